// SPDX-License-Identifier: GPL-2.0
/*
 * The C half of errtrace's Linux glue (errtrace_linux, in Rust): what the
 * Rust side reaches through C because the kernel crate does not offer it on
 * every supported kernel (6.12 and later), or because only C knows it (the
 * struct _ddebug bit-fields, KBUILD_MODNAME).
 *  - printing: a line at a printk level, with the module's name, as the
 *    kernel crate's pr_*() would print it; a line on a device, as dev_*();
 *    dev_err_probe() (the deferral reason);
 *  - platform hooks: the CPU id, an NMI-safe clock, the current task;
 *  - a device scope's references (get_device(), get_task_struct());
 *  - the C compiler's struct _ddebug word, which Rust checks its own against.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/dev_printk.h>
#include <linux/dynamic_debug.h>
#include <linux/printk.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/smp.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/types.h>

void errtrace_linux_printk(int level, const char *text, size_t len);
void errtrace_linux_dev_printk(struct device *dev, int level, const char *text,
			       size_t len);
int errtrace_linux_dev_err_probe(struct device *dev, int err, const char *text,
				 size_t len);
u32 errtrace_linux_cpu_id(void);
u64 errtrace_linux_clock_ns(void);
void *errtrace_linux_task(void);
void errtrace_linux_scope_hold(void *task, struct device *dev);
void errtrace_linux_scope_release(void *task, struct device *dev);
u32 errtrace_linux_ddebug_word(u32 line, u32 flags);

/* One line at printk level `level` (3 err, 4 warning, 6 info, 7 debug). */
void errtrace_linux_printk(int level, const char *text, size_t len)
{
	switch (level) {
	case 3:
		pr_err("%.*s\n", (int)len, text);
		break;
	case 4:
		pr_warn("%.*s\n", (int)len, text);
		break;
	case 6:
		pr_info("%.*s\n", (int)len, text);
		break;
	default:
		/* errtrace decided to print this debug line: not dynamic_debug's pr_debug. */
		printk(KERN_DEBUG pr_fmt("%.*s\n"), (int)len, text);
		break;
	}
}

/* One line on the device, as dev_err()/dev_warn()/dev_info() print it. */
void errtrace_linux_dev_printk(struct device *dev, int level, const char *text,
			       size_t len)
{
	switch (level) {
	case 3:
		dev_err(dev, "%.*s\n", (int)len, text);
		break;
	case 4:
		dev_warn(dev, "%.*s\n", (int)len, text);
		break;
	case 6:
		dev_info(dev, "%.*s\n", (int)len, text);
		break;
	default:
		dev_printk(KERN_DEBUG, dev, "%.*s\n", (int)len, text);
		break;
	}
}

/* dev_err_probe() with a text: for -EPROBE_DEFER, the device's deferral reason. */
int errtrace_linux_dev_err_probe(struct device *dev, int err, const char *text,
				 size_t len)
{
	return dev_err_probe(dev, err, "%.*s\n", (int)len, text);
}

u32 errtrace_linux_cpu_id(void)
{
	return raw_smp_processor_id();
}

/* errtrace's rate-limit clock: NMI-safe, unlike ktime_get(). */
u64 errtrace_linux_clock_ns(void)
{
	return ktime_get_mono_fast_ns();
}

/* The task in task context; NULL in interrupt context (no device scope there). */
void *errtrace_linux_task(void)
{
	return in_task() ? current : NULL;
}

/*
 * A device scope's references (device.rs): the device, so that a scope left
 * behind by a task that died inside it (an oops runs no Drop) never points at a
 * freed device, and the task (when the scope claims a slot for it), so that its
 * task_struct cannot be reused by a new task that would find the dead one's slot.
 * Either may be NULL.
 */
void errtrace_linux_scope_hold(void *task, struct device *dev)
{
	if (task)
		get_task_struct((struct task_struct *)task);
	if (dev)
		get_device(dev);
}

void errtrace_linux_scope_release(void *task, struct device *dev)
{
	if (dev)
		put_device(dev);
	if (task)
		put_task_struct((struct task_struct *)task);
}

/*
 * errtrace's dynamic_debug descriptors (errtrace::__private::DynDebug, in
 * Rust) are laid out as this kernel's struct _ddebug: four string pointers,
 * one word of bit-fields and, with CONFIG_JUMP_LABEL, the static key. Rust
 * checks the size and offsets at compile time against the kernel's bindgen
 * struct _ddebug; the bit-field order inside the word is the C compiler's,
 * returned here for the glue to compare at install.
 */
u32 errtrace_linux_ddebug_word(u32 line, u32 flags)
{
	struct _ddebug d = {
		.lineno = line,
		.class_id = _DPRINTK_CLASS_DFLT,
		.flags = flags,
	};
	u32 word;

	memcpy(&word, (const char *)&d + offsetof(struct _ddebug, format) +
	       sizeof(d.format), sizeof(word));
	return word;
}
