// SPDX-License-Identifier: GPL-2.0
/*
 * C half of the demo's platform driver "errtrace-demo" (platform.rs has the
 * probe): the driver, its devices errtrace-demo.0 ... errtrace-demo.7 (added
 * by the debugfs trigger `devices N`), and the helpers Rust calls for device
 * context: dev_printk, dev_err_probe, the current task.
 *
 * Devices are added synchronously: the probe runs in the writer's task unless
 * it is deferred, in which case the driver core retries it from its deferred
 * probe work once another device binds.
 */
#include <linux/device.h>
#include <linux/dev_printk.h>
#include <linux/err.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/task.h>

#define DEMO_MAX_DEVICES 8

/* Implemented in Rust (platform.rs). */
int errtrace_demo_pdev_probe(struct device *dev, int id, u8 chip_id);
void errtrace_demo_pdev_remove(void *state);

/* Called from Rust. */
int errtrace_demo_pdrv_register(void);
void errtrace_demo_pdrv_unregister(void);
int errtrace_demo_pdev_add(u8 chip_id);
void *errtrace_demo_task(void);
void errtrace_demo_scope_hold(void *task, struct device *dev);
void errtrace_demo_scope_release(void *task, struct device *dev);
void errtrace_demo_dev_printk(struct device *dev, int level, const char *text,
			      size_t len);
int errtrace_demo_dev_err_probe(struct device *dev, int err, const char *text,
				size_t len);
void errtrace_demo_dev_set_state(struct device *dev, void *state);

static struct platform_device *devices[DEMO_MAX_DEVICES];
static int ndevices;
/* Serialises errtrace_demo_pdev_add() against unregistering. */
static DEFINE_MUTEX(devices_lock);

/* The platform data of an errtrace-demo device: its chip's id (one byte). */
static int demo_probe(struct platform_device *pdev)
{
	const u8 *chip_id = dev_get_platdata(&pdev->dev);

	if (!chip_id)
		return -EINVAL;
	return errtrace_demo_pdev_probe(&pdev->dev, pdev->id, *chip_id);
}

static void demo_remove(struct platform_device *pdev)
{
	errtrace_demo_pdev_remove(platform_get_drvdata(pdev));
}

static struct platform_driver demo_driver = {
	.probe = demo_probe,
	.remove = demo_remove,
	.driver = {
		.name = "errtrace-demo",
	},
};

int errtrace_demo_pdrv_register(void)
{
	return platform_driver_register(&demo_driver);
}

/* Removes the devices (deferred ones leave the deferred list), then the driver. */
void errtrace_demo_pdrv_unregister(void)
{
	mutex_lock(&devices_lock);
	while (ndevices > 0) {
		ndevices--;
		platform_device_unregister(devices[ndevices]);
		devices[ndevices] = NULL;
	}
	mutex_unlock(&devices_lock);
	platform_driver_unregister(&demo_driver);
}

/*
 * Adds the next device, errtrace-demo.<id>, whose chip reports chip_id; its
 * probe runs before this returns (unless deferred). Returns the id, or a
 * negative errno.
 */
int errtrace_demo_pdev_add(u8 chip_id)
{
	struct platform_device *pdev;
	int id;

	mutex_lock(&devices_lock);
	id = ndevices;
	if (id >= DEMO_MAX_DEVICES) {
		mutex_unlock(&devices_lock);
		return -ENOSPC;
	}
	pdev = platform_device_register_data(NULL, "errtrace-demo", id, &chip_id,
					     sizeof(chip_id));
	if (IS_ERR(pdev)) {
		mutex_unlock(&devices_lock);
		return PTR_ERR(pdev);
	}
	devices[id] = pdev;
	ndevices++;
	mutex_unlock(&devices_lock);
	return id;
}

/* The task in task context; NULL in interrupt context (no device scope there). */
void *errtrace_demo_task(void)
{
	return in_task() ? current : NULL;
}

/*
 * A device scope's references (devctx.rs): the device, so that a scope left
 * behind by a task that died inside it (an oops runs no Drop) never points at a
 * freed device, and the task (when the scope claims a slot for it), so that its
 * task_struct cannot be reused by a new task that would find the dead one's slot.
 * Either may be NULL.
 */
void errtrace_demo_scope_hold(void *task, struct device *dev)
{
	if (task)
		get_task_struct((struct task_struct *)task);
	if (dev)
		get_device(dev);
}

void errtrace_demo_scope_release(void *task, struct device *dev)
{
	if (dev)
		put_device(dev);
	if (task)
		put_task_struct((struct task_struct *)task);
}

/* One line on the device, as dev_err()/dev_warn()/dev_info() print it. */
void errtrace_demo_dev_printk(struct device *dev, int level, const char *text,
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
		/* errtrace decided to print this debug line: not dynamic_debug's dev_dbg. */
		dev_printk(KERN_DEBUG, dev, "%.*s\n", (int)len, text);
		break;
	}
}

/* dev_err_probe() with a text: for -EPROBE_DEFER, the device's deferral reason. */
int errtrace_demo_dev_err_probe(struct device *dev, int err, const char *text,
				size_t len)
{
	return dev_err_probe(dev, err, "%.*s\n", (int)len, text);
}

void errtrace_demo_dev_set_state(struct device *dev, void *state)
{
	dev_set_drvdata(dev, state);
}
