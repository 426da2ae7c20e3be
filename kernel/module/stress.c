// SPDX-License-Identifier: GPL-2.0
/*
 * The stress scenario's C half (debugfs errtrace_demo/stress; 6.12's Rust API
 * has no kthreads or timers). Writing N makes errors in every context at once:
 *  - one kthread bound to each online CPU calls errtrace_demo_stress_thread()
 *    N times;
 *  - an hrtimer in hard IRQ context calls errtrace_demo_stress_hardirq()
 *    every 200 us;
 *  - a timer_list (softirq) calls errtrace_demo_stress_softirq() every jiffy;
 * then stops the timers and lets Rust print the summary. The write does not
 * take the module's mutex, so control writes and recorder reads run meanwhile.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/kstrtox.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timer.h>

/* Implemented in Rust (stress.rs). */
void errtrace_demo_stress_begin(u32 cpus, u32 n);
void errtrace_demo_stress_thread(u32 cpu, u32 i);
void errtrace_demo_stress_hardirq(u32 i);
void errtrace_demo_stress_softirq(u32 i);
void errtrace_demo_stress_end(void);

/* Called from demo_ctl.c. */
void errtrace_demo_stress_create(struct dentry *dir);

#define HARDIRQ_PERIOD_NS (200 * NSEC_PER_USEC)

static DEFINE_MUTEX(stress_lock);	/* one stress run at a time */
static atomic_t working;		/* kthreads still making errors */
static DECLARE_COMPLETION(all_done);
static bool ticking;			/* the timers re-arm while set */
static struct hrtimer hardirq_timer;
static struct timer_list softirq_timer;
static u32 hardirq_i, softirq_i;

struct worker {
	struct task_struct *task;
	u32 cpu;
	u32 n;
};

static int worker_fn(void *arg)
{
	struct worker *w = arg;
	u32 i;

	for (i = 0; i < w->n; i++) {
		errtrace_demo_stress_thread(w->cpu, i);
		if ((i & 63) == 0)
			cond_resched();
	}
	if (atomic_dec_and_test(&working))
		complete(&all_done);
	/* Return only when stopped: kthread_stop() then knows we left this module's code. */
	while (!kthread_should_stop()) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (!kthread_should_stop())
			schedule();
		__set_current_state(TASK_RUNNING);
	}
	return 0;
}

static enum hrtimer_restart hardirq_fn(struct hrtimer *t)
{
	errtrace_demo_stress_hardirq(hardirq_i++);
	if (!READ_ONCE(ticking))
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(HARDIRQ_PERIOD_NS));
	return HRTIMER_RESTART;
}

static void softirq_fn(struct timer_list *t)
{
	errtrace_demo_stress_softirq(softirq_i++);
	if (READ_ONCE(ticking))
		mod_timer(t, jiffies + 1);
}

static int stress_run(u32 n)
{
	struct worker *workers;
	unsigned int cpu, count = 0, started = 0, k;
	int ret = 0;

	workers = kcalloc(nr_cpu_ids, sizeof(*workers), GFP_KERNEL);
	if (!workers)
		return -ENOMEM;
	for_each_online_cpu(cpu) {
		workers[count].cpu = cpu;
		workers[count].n = n;
		count++;
	}
	errtrace_demo_stress_begin(count, n);
	reinit_completion(&all_done);
	atomic_set(&working, count);
	hardirq_i = 0;
	softirq_i = 0;
	WRITE_ONCE(ticking, true);
	hrtimer_init(&hardirq_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	hardirq_timer.function = hardirq_fn;
	hrtimer_start(&hardirq_timer, ns_to_ktime(HARDIRQ_PERIOD_NS), HRTIMER_MODE_REL_HARD);
	timer_setup(&softirq_timer, softirq_fn, 0);
	mod_timer(&softirq_timer, jiffies + 1);

	for (k = 0; k < count; k++) {
		struct task_struct *t;

		t = kthread_create_on_cpu(worker_fn, &workers[k], workers[k].cpu,
					  "errtrace_stress/%u");
		if (IS_ERR(t)) {
			ret = PTR_ERR(t);
			break;
		}
		workers[k].task = t;
		started++;
	}
	/* Workers that could not start count as done. */
	if (started < count && atomic_sub_and_test(count - started, &working))
		complete(&all_done);
	for (k = 0; k < started; k++)
		wake_up_process(workers[k].task);
	if (started)
		wait_for_completion(&all_done);
	for (k = 0; k < started; k++)
		kthread_stop(workers[k].task);

	WRITE_ONCE(ticking, false);
	hrtimer_cancel(&hardirq_timer);
	timer_delete_sync(&softirq_timer);
	kfree(workers);
	errtrace_demo_stress_end();
	return ret;
}

static ssize_t stress_write(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos)
{
	u32 n;
	int ret;

	ret = kstrtou32_from_user(ubuf, count, 0, &n);
	if (ret)
		return ret;
	if (n == 0 || n > 1000000)
		return -EINVAL;
	mutex_lock(&stress_lock);
	ret = stress_run(n);
	mutex_unlock(&stress_lock);
	return ret ? ret : (ssize_t)count;
}

static const struct file_operations stress_fops = {
	.owner = THIS_MODULE,
	.write = stress_write,
	.llseek = noop_llseek,
};

void errtrace_demo_stress_create(struct dentry *dir)
{
	debugfs_create_file("stress", 0200, dir, NULL, &stress_fops);
}
