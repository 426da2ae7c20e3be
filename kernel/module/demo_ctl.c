// SPDX-License-Identifier: GPL-2.0
/*
 * C half of the errtrace demo module: what the 6.12 Rust API lacks.
 *  - module parameters `ctl` (control queries applied at load), `chip_id`
 *    (the simulated chip's id) and `plain` (no errtrace boundary at init);
 *  - debugfs files errtrace_demo/{control,recorder,trigger}, whose contents
 *    and commands are handled by the Rust half (demo.rs);
 * Every call into Rust from a file operation happens with `lock` held.
 */
#include <linux/build_bug.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

static char ctl[512];
module_param_string(ctl, ctl, sizeof(ctl), 0444);
MODULE_PARM_DESC(ctl, "errtrace control queries applied at load (e.g. \"fail name=bus_read times=1\")");

static int chip_id = 0x5a;
module_param(chip_id, int, 0444);
MODULE_PARM_DESC(chip_id, "id of the simulated chip (the driver expects 0x5a)");

static int plain;
module_param(plain, int, 0444);
MODULE_PARM_DESC(plain, "1: init returns the probe's error as a bare errno, without the errtrace boundary");

/* Implemented in Rust (demo.rs). */
long errtrace_demo_control_write(const char *buf, size_t len);
long errtrace_demo_control_read(char *buf, size_t len);
long errtrace_demo_recorder_read(char *buf, size_t len);
long errtrace_demo_trigger_write(const char *buf, size_t len);

/* stress.c */
void errtrace_demo_stress_create(struct dentry *dir);

/* Called from Rust. */
const char *errtrace_demo_param_ctl(void);
int errtrace_demo_param_plain(void);
int errtrace_demo_param_chip_id(void);
int errtrace_demo_c_init(void);
void errtrace_demo_c_exit(void);

const char *errtrace_demo_param_ctl(void)
{
	return ctl;
}

int errtrace_demo_param_plain(void)
{
	return plain;
}

int errtrace_demo_param_chip_id(void)
{
	return chip_id;
}

static DEFINE_MUTEX(lock);
static struct dentry *dir;

/* Readable files: the contents are made once, at open, into a per-open buffer. */
#define SNAPSHOT_SIZE (64 * 1024)

struct snapshot {
	size_t len;
	char data[SNAPSHOT_SIZE];
};

static int snapshot_open(struct file *file, long (*fill)(char *, size_t))
{
	struct snapshot *s;
	long n;

	s = kvmalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	mutex_lock(&lock);
	n = fill(s->data, sizeof(s->data));
	mutex_unlock(&lock);
	if (n < 0) {
		kvfree(s);
		return n;
	}
	s->len = n;
	file->private_data = s;
	return 0;
}

static ssize_t snapshot_read(struct file *file, char __user *ubuf, size_t count,
			     loff_t *ppos)
{
	struct snapshot *s = file->private_data;

	if (!s)
		return 0;
	return simple_read_from_buffer(ubuf, count, ppos, s->data, s->len);
}

static int snapshot_release(struct inode *inode, struct file *file)
{
	kvfree(file->private_data);
	return 0;
}

/* Writes: one command or query per write, at most 4 KiB, handled by Rust. */
static ssize_t command_write(const char __user *ubuf, size_t count,
			     long (*handle)(const char *, size_t))
{
	char *buf;
	long ret;

	if (count > 4096)
		return -E2BIG;
	buf = memdup_user_nul(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	mutex_lock(&lock);
	ret = handle(buf, count);
	mutex_unlock(&lock);
	kfree(buf);
	return ret < 0 ? ret : (ssize_t)count;
}

static int control_open(struct inode *inode, struct file *file)
{
	if (!(file->f_mode & FMODE_READ))
		return 0;
	return snapshot_open(file, errtrace_demo_control_read);
}

static ssize_t control_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	return command_write(ubuf, count, errtrace_demo_control_write);
}

static const struct file_operations control_fops = {
	.owner = THIS_MODULE,
	.open = control_open,
	.read = snapshot_read,
	.write = control_write,
	.release = snapshot_release,
	.llseek = default_llseek,
};

static int recorder_open(struct inode *inode, struct file *file)
{
	return snapshot_open(file, errtrace_demo_recorder_read);
}

static const struct file_operations recorder_fops = {
	.owner = THIS_MODULE,
	.open = recorder_open,
	.read = snapshot_read,
	.release = snapshot_release,
	.llseek = default_llseek,
};

static ssize_t trigger_write(struct file *file, const char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	return command_write(ubuf, count, errtrace_demo_trigger_write);
}

static const struct file_operations trigger_fops = {
	.owner = THIS_MODULE,
	.write = trigger_write,
	.llseek = noop_llseek,
};

int errtrace_demo_c_init(void)
{
	dir = debugfs_create_dir("errtrace_demo", NULL);
	if (IS_ERR(dir))
		return PTR_ERR(dir);
	debugfs_create_file("control", 0644, dir, NULL, &control_fops);
	debugfs_create_file("recorder", 0444, dir, NULL, &recorder_fops);
	debugfs_create_file("trigger", 0200, dir, NULL, &trigger_fops);
	errtrace_demo_stress_create(dir);
	return 0;
}

void errtrace_demo_c_exit(void)
{
	debugfs_remove_recursive(dir);
	dir = NULL;
}
