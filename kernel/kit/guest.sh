# The guest's side of a test boot: the first thing the initramfs's /init sources
# (kernel/kit/boot.sh's and kernel/test.sh's), with busybox as the userland.
# Mounts proc, sysfs, devtmpfs, debugfs and tracefs, goes to /lib/modules (the
# modules), and defines the helpers a script uses; MARK (set before sourcing,
# default empty) prefixes the RUN:/RC: lines.
/bin/busybox --install -s /bin
export PATH=/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
cd /lib/modules
# Every line of the guest goes into the kernel's log (/dev/kmsg), marked "@@ ",
# so that the serial console has the kernel's lines and the guest's in one
# order: a serial console that prints from its own kthread (7.3's 8250 is an
# nbcon console) would otherwise print a command's kernel lines after the
# guest's next lines. The host removes the timestamp and the mark again.
# say TEXT: one line of the guest.
say() { echo "@@ $*" > /dev/kmsg; }
# run CMD...: say the command, run it, say its output and its exit code (and the
# command's basename).
run() {
    say "${MARK-}RUN: $*"
    "$@" > /tmp/run.out 2>&1
    set -- $? "${1##*/}"
    while IFS= read -r line || [ -n "$line" ]; do say "$line"; done < /tmp/run.out
    say "${MARK-}RC: $1 ($2)"
}
# bind DRIVER: binds DRIVER to the first platform device without a driver
# (driver_override, then drivers_probe); after a failed probe the override is
# cleared, so that the next load of the driver does not probe it by itself.
bind() {
    for d in /sys/bus/platform/devices/*; do
        [ -e "$d/driver" ] && continue
        say "binding $1 to ${d##*/}"
        echo "$1" > "$d/driver_override"
        echo "${d##*/}" > /sys/bus/platform/drivers_probe
        [ -e "$d/driver" ] || echo > "$d/driver_override"
        return
    done
    say "no platform device without a driver"
}
