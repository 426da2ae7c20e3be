// SPDX-License-Identifier: GPL-2.0
/*
 * errtrace's shard hooks (shard.rs installs them): while a task makes an
 * error, it owns its CPU's shard of errtrace's flight recorder and per-site
 * counters, with preemption off, so the slot is claimed and the counts are
 * kept with plain loads and stores. Interrupts (softirq, hard IRQ, NMI) may
 * come in on that CPU meanwhile: they get shard 0, shared by every context
 * and written with atomic read-modify-writes, as are tasks on CPUs past the
 * shards. The _notrace variants: an error may be made inside a tracer.
 */
#include <linux/preempt.h>
#include <linux/smp.h>
#include <linux/types.h>

u32 errtrace_shard_enter(void);
void errtrace_shard_exit(void);

/* The current context's shard: 1 + its CPU in task context, 0 in interrupts. */
u32 errtrace_shard_enter(void)
{
	preempt_disable_notrace();
	if (!in_task())
		return 0;
	return 1 + raw_smp_processor_id();
}

void errtrace_shard_exit(void)
{
	preempt_enable_notrace();
}
