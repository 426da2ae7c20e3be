// SPDX-License-Identifier: GPL-2.0
/*
 * The stress scenario's C half (debugfs errtrace_demo/stress; 6.12's Rust API
 * has no kthreads or timers). Writing N makes errors in every context at once:
 *  - one kthread bound to each online CPU calls errtrace_demo_stress_thread()
 *    N times;
 *  - an hrtimer in hard IRQ context calls errtrace_demo_stress_hardirq()
 *    every 200 us;
 *  - a timer_list (softirq) calls errtrace_demo_stress_softirq() every jiffy;
 *  - NMIs: the hrtimer and every 1024th kthread iteration send an NMI to their
 *    own CPU (a self-IPI with the NMI vector, as the kernel's NMI backtrace
 *    does), whose handler calls errtrace_demo_stress_nmi() (x86 with a local
 *    APIC; elsewhere no NMIs are made and the summary says nmi=0);
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
#include <linux/version.h>
#include <linux/percpu.h>
#ifdef CONFIG_X86_LOCAL_APIC
#include <asm/apic.h>
#include <asm/nmi.h>
#endif

/* Implemented in Rust (stress.rs). */
void errtrace_demo_stress_begin(u32 cpus, u32 n);
void errtrace_demo_stress_thread(u32 cpu, u32 i);
void errtrace_demo_stress_hardirq(u32 i);
void errtrace_demo_stress_softirq(u32 i);
void errtrace_demo_stress_nmi(u32 i);
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

#ifdef CONFIG_X86_LOCAL_APIC
/* Self-NMIs sent and not yet taken, per CPU: the handler claims only ours. */
static DEFINE_PER_CPU(atomic_t, nmi_pending);
static atomic_t nmi_i;
static bool nmi_registered;

static int nmi_fn(unsigned int type, struct pt_regs *regs)
{
	if (!atomic_xchg(this_cpu_ptr(&nmi_pending), 0))
		return NMI_DONE;
	errtrace_demo_stress_nmi(atomic_inc_return(&nmi_i));
	return NMI_HANDLED;
}

/* An NMI on this CPU, now (preemption or interrupts off). */
static void self_nmi(void)
{
	if (!READ_ONCE(nmi_registered))
		return;
	atomic_set(this_cpu_ptr(&nmi_pending), 1);
	__apic_send_IPI_self(NMI_VECTOR);
}

static void nmi_start(void)
{
	atomic_set(&nmi_i, 0);
	WRITE_ONCE(nmi_registered,
		   !register_nmi_handler(NMI_LOCAL, nmi_fn, 0, "errtrace_stress"));
}

static void nmi_stop(void)
{
	if (!nmi_registered)
		return;
	WRITE_ONCE(nmi_registered, false);
	/* Waits for handlers running on other CPUs (synchronize_rcu). */
	unregister_nmi_handler(NMI_LOCAL, "errtrace_stress");
}
#else
static void self_nmi(void) { }
static void nmi_start(void) { }
static void nmi_stop(void) { }
#endif

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
		if ((i & 1023) == 512) {
			preempt_disable();
			self_nmi();
			preempt_enable();
		}
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
	if ((hardirq_i & 7) == 0)
		self_nmi();
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
	nmi_start();
	WRITE_ONCE(ticking, true);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
	hrtimer_setup(&hardirq_timer, hardirq_fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
#else
	hrtimer_init(&hardirq_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	hardirq_timer.function = hardirq_fn;
#endif
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
	nmi_stop();
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
