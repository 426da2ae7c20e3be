#include <linux/device.h>

static DEFINE_MUTEX(lock);

int quiet_busy(struct thing *t)
{
	int err = 0;

	mutex_lock(&lock);
	if (t->minor > 4) {
		err = -EBUSY;
		goto out;
	}
	t->ready = true;
out:
	mutex_unlock(&lock);
	return err;
}
EXPORT_SYMBOL(quiet_busy);

int loud(struct device *dev)
{
	int ret;

	ret = quiet_busy(dev->thing);
	if (ret) {
		dev_err(dev, "no thing: %d\n", ret);
		return ret;
	}
	if (WARN_ON(!dev->parent))
		return -EINVAL;
	return 0;
}

int probe_style(struct device *dev)
{
	int ret = quiet_busy(dev->thing);

	if (ret)
		return dev_err_probe(dev, ret, "thing\n");
	return 0;
}

int forwards(struct device *dev)
{
	int ret;

	ret = quiet_busy(dev->thing);
	if (ret)
		return ret;
	return 0;
}

void *only_alloc(size_t n)
{
	void *p = kzalloc(n, GFP_KERNEL);

	if (!p)
		return NULL;
	return p;
}

int enomem_only(struct thing *t)
{
	t->buf = kmalloc(64, GFP_KERNEL);
	if (!t->buf)
		return -ENOMEM;
	return 0;
}

void nothing(struct thing *t)
{
	t->ready = false;
}

int checks_arguments(struct thing *t, const char *name)
{
	if (!name || name[0] == '\0')
		return -EINVAL;
	if (t->minor > MAX_MINOR)
		return -EINVAL;
	return enomem_only(t);
}

int by_kind(struct thing *t, int kind)
{
	switch (kind) {
	case 1:
		return quiet_busy(t);
	default:
		dev_err(t->dev, "Unsupported kind %d\n", kind);
		return -EOPNOTSUPP;
	}
}

int always_zero(struct thing *t)
{
	t->ready = false;
	return 0;
}

static int
own_line(struct thing *t)
{
	return t->cb(t);
}

struct thing *get_ptr(struct device *dev)
{
	struct thing *t;

	t = lookup(dev);
	if (IS_ERR(t))
		return ERR_CAST(t);
	return t;
}

int label_prints(struct thing *t)
{
	int err;

	err = quiet_busy(t);
	if (err)
		goto fail;
	return 0;
fail:
	pr_err("thing failed: %d\n", err);
	return err;
}

int defers(struct device *dev)
{
	if (!dev->driver)
		return -EPROBE_DEFER;
	return 0;
}

int through_ops(struct thing *t)
{
	int ret;

	if (t->minor > 4)
		return -EBUSY;
	ret = t->ops->start(t);
	return ret;
}

#define quiet_alias(t) quiet_busy(t)

int sharing(struct thing *t)
{
	if (!t->np)
		return -ENOENT;
	if (t->minor > 4) {
		pr_err("bad minor %d\n", t->minor);
		return -ERANGE;
	}
	return 0;
}
