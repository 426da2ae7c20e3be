// SPDX-License-Identifier: GPL-2.0
/*
 * The KUnit suite's C half (kunit.rs): running a Rust function on one CPU
 * without migrating, or on every online CPU at once. Linux's Rust API has no
 * on_each_cpu() (a static inline) and no preempt_disable().
 */
#include <linux/preempt.h>
#include <linux/smp.h>
#include <linux/types.h>

void errtrace_kunit_on_this_cpu(void (*fn)(void *), void *arg);
void errtrace_kunit_on_each_cpu(void (*fn)(void *), void *arg);
u32 errtrace_kunit_cpu_id(void);
bool errtrace_kunit_in_task(void);

/* fn(arg) on this CPU with preemption off: every error it makes goes to one shard. */
void errtrace_kunit_on_this_cpu(void (*fn)(void *), void *arg)
{
	preempt_disable();
	fn(arg);
	preempt_enable();
}

/* fn(arg) on every online CPU at once (hard IRQ context on the others), waiting for all. */
void errtrace_kunit_on_each_cpu(void (*fn)(void *), void *arg)
{
	on_each_cpu(fn, arg, 1);
}

u32 errtrace_kunit_cpu_id(void)
{
	return raw_smp_processor_id();
}

/* Whether the caller runs in task context (not in an interrupt). */
bool errtrace_kunit_in_task(void)
{
	return in_task();
}
