// SPDX-License-Identifier: GPL-2.0
/*
 * C half of the demo's platform driver "errtrace-demo" (platform.rs has the
 * probe): the driver, its devices errtrace-demo.0 ... errtrace-demo.7 (added
 * by the debugfs trigger `devices N`); device context (dev_printk, the
 * deferral reason) is errtrace_linux's (kernel/kit).
 *
 * Devices are added synchronously: the probe runs in the writer's task unless
 * it is deferred, in which case the driver core retries it from its deferred
 * probe work once another device binds.
 */
#include <linux/device.h>
#include <linux/err.h>
#include <linux/mutex.h>
#include <linux/platform_device.h>

#define DEMO_MAX_DEVICES 8

/* Implemented in Rust (platform.rs). */
int errtrace_demo_pdev_probe(struct device *dev, int id, u8 chip_id);
void errtrace_demo_pdev_remove(void *state);

/* Called from Rust. */
int errtrace_demo_pdrv_register(void);
void errtrace_demo_pdrv_unregister(void);
int errtrace_demo_pdev_add(u8 chip_id);
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

void errtrace_demo_dev_set_state(struct device *dev, void *state)
{
	dev_set_drvdata(dev, state);
}
