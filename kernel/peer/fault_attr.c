// SPDX-License-Identifier: GPL-2.0
/*
 * errtrace's fail points through the kernel's fault injection, for a module
 * built without errtrace's control language (errtrace_peer, errtrace_builtin):
 * one struct fault_attr per module, with the kernel's own knobs and semantics.
 *
 *   fail=<interval>,<probability>,<space>,<times>
 *       module parameter, read at load, in the format of failslab= and the
 *       other fault attributes' boot parameters (setup_fault_attr())
 *   fail_points=GLOB
 *       module parameter, read at load: which fail points the attribute
 *       applies to (glob_match(); empty: every point of the module)
 *   /sys/kernel/debug/fail_<module>/
 *       the attribute's debugfs knobs (fault_create_debugfs_attr():
 *       probability, interval, times, space, verbose, task-filter, ...),
 *       changed at runtime as for failslab
 *
 * fault.rs installs errtrace_should_fail() as errtrace's platform hook: a
 * fail point reached asks it, by name. It never blocks or allocates (the
 * name is compared in a stack buffer; should_fail() takes no lock), so a fail
 * point may be reached in any context.
 */
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fault-inject.h>
#include <linux/glob.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#ifndef CONFIG_FAULT_INJECTION
#error "errtrace's fail points without the control language need CONFIG_FAULT_INJECTION"
#endif

/* Longest point name compared; a longer name never matches. */
#define ERRTRACE_FAIL_NAME 64

static DECLARE_FAULT_ATTR(errtrace_fail_attr);

static char fail[64];
module_param_string(fail, fail, sizeof(fail), 0444);
MODULE_PARM_DESC(fail, "errtrace fail points' fault attribute: <interval>,<probability>,<space>,<times>");

static char fail_points[ERRTRACE_FAIL_NAME];
module_param_string(fail_points, fail_points, sizeof(fail_points), 0444);
MODULE_PARM_DESC(fail_points, "errtrace fail points the fault attribute applies to (glob; empty: all)");

static struct dentry *errtrace_fail_dir;

int errtrace_fault_init(void);
void errtrace_fault_exit(void);
bool errtrace_should_fail(const char *name, size_t len);

/* Called by fault.rs at init: applies fail= and makes the debugfs knobs. */
int errtrace_fault_init(void)
{
	struct dentry *dir;

	/* One line per injected fault (the kernel's default, 2, adds a stack dump). */
	errtrace_fail_attr.verbose = 1;
	if (fail[0] && !setup_fault_attr(&errtrace_fail_attr, fail))
		return -EINVAL;
	dir = fault_create_debugfs_attr("fail_" KBUILD_MODNAME, NULL, &errtrace_fail_attr);
	/* Without debugfs the attribute still works, set by fail= only. */
	if (IS_ERR(dir) && PTR_ERR(dir) != -ENODEV)
		return PTR_ERR(dir);
	errtrace_fail_dir = IS_ERR(dir) ? NULL : dir;
	return 0;
}

/* Called by fault.rs when the module goes. */
void errtrace_fault_exit(void)
{
	debugfs_remove_recursive(errtrace_fail_dir);
	errtrace_fail_dir = NULL;
}

/* errtrace's platform hook: whether the fail point `name` (not NUL-terminated) fails now. */
bool errtrace_should_fail(const char *name, size_t len)
{
	char buf[ERRTRACE_FAIL_NAME];

	if (fail_points[0]) {
		if (len >= sizeof(buf))
			return false;
		memcpy(buf, name, len);
		buf[len] = '\0';
		if (!glob_match(fail_points, buf))
			return false;
	}
	return should_fail(&errtrace_fail_attr, 1);
}
