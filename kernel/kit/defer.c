// SPDX-License-Identifier: GPL-2.0
/*
 * errtrace's deferred work (errtrace_linux installs it as errtrace's defer hook).
 * A site's first error applies the standing control queries to it: a parse
 * of up to a few KiB, too much for an NMI. In NMI, errtrace marks the site
 * and this irq_work applies them once the NMI is over: in hard IRQ on the
 * same CPU, or in the irq_work kthread on PREEMPT_RT. Until then the site is
 * decided by its defaults.
 */
#include <linux/hardirq.h>
#include <linux/irq_work.h>
#include <linux/types.h>

bool errtrace_linux_defer(void);
void errtrace_linux_defer_sync(void);
/* errtrace_linux (hooks.rs) */
void errtrace_linux_apply_deferred(void);

static void apply_deferred(struct irq_work *work)
{
	errtrace_linux_apply_deferred();
}

static DEFINE_IRQ_WORK(apply_work, apply_deferred);

/* Whether errtrace must leave its standing queries for later (queued then). */
bool errtrace_linux_defer(void)
{
	if (!in_nmi())
		return false;
	irq_work_queue(&apply_work);
	return true;
}

/* Waits for a queued run to finish (before the module goes away). */
void errtrace_linux_defer_sync(void)
{
	irq_work_sync(&apply_work);
}
