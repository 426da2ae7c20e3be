// SPDX-License-Identifier: GPL-2.0
/*
 * C half of the errtrace demo module: what the 6.12 Rust API lacks.
 *  - module parameters `ctl` (a string) and `fail` (an int);
 *  - debugfs file errtrace_demo/control, whose reads and writes are handled
 *    by the Rust half (demo.rs) through extern "C" functions.
 * The Rust half calls errtrace_demo_c_init/exit and the parameter getters.
 */
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/uaccess.h>

static char ctl[256];
module_param_string(ctl, ctl, sizeof(ctl), 0444);
MODULE_PARM_DESC(ctl, "control query applied at load");

static int fail;
module_param(fail, int, 0444);
MODULE_PARM_DESC(fail, "1: init returns -EINVAL silently (the 'before' picture)");

/* Implemented in Rust (demo.rs). Both are called with `lock` held. */
long errtrace_demo_control_write(const char *buf, size_t len);
long errtrace_demo_control_read(char *buf, size_t len);

/* Called from Rust. */
const char *errtrace_demo_param_ctl(void);
int errtrace_demo_param_fail(void);
int errtrace_demo_c_init(void);
void errtrace_demo_c_exit(void);

const char *errtrace_demo_param_ctl(void)
{
	return ctl;
}

int errtrace_demo_param_fail(void)
{
	return fail;
}

static DEFINE_MUTEX(lock);
static char rbuf[4096];
static char wbuf[1024];
static struct dentry *dir;

static ssize_t control_read(struct file *file, char __user *ubuf, size_t count,
			    loff_t *ppos)
{
	long n;
	ssize_t ret;

	mutex_lock(&lock);
	n = errtrace_demo_control_read(rbuf, sizeof(rbuf));
	if (n < 0)
		ret = n;
	else
		ret = simple_read_from_buffer(ubuf, count, ppos, rbuf, n);
	mutex_unlock(&lock);
	return ret;
}

static ssize_t control_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	long ret;

	if (count >= sizeof(wbuf))
		return -E2BIG;
	mutex_lock(&lock);
	if (copy_from_user(wbuf, ubuf, count)) {
		mutex_unlock(&lock);
		return -EFAULT;
	}
	wbuf[count] = '\0';
	ret = errtrace_demo_control_write(wbuf, count);
	mutex_unlock(&lock);
	return ret < 0 ? ret : (ssize_t)count;
}

static const struct file_operations control_fops = {
	.owner = THIS_MODULE,
	.read = control_read,
	.write = control_write,
	.llseek = default_llseek,
};

int errtrace_demo_c_init(void)
{
	dir = debugfs_create_dir("errtrace_demo", NULL);
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	debugfs_create_file("control", 0644, dir, NULL, &control_fops);
	return 0;
}

void errtrace_demo_c_exit(void)
{
	debugfs_remove_recursive(dir);
	dir = NULL;
}
