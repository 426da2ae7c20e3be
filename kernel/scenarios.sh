# Scenarios run inside the guest: sourced by /init (busybox sh), in
# /lib/modules where the built .ko files are. Helpers from /init:
#   scenario NAME   print the marker line "ERRTRACE-SCENARIO: NAME"
#   run CMD...      print "ERRTRACE-RUN: CMD...", run CMD, then print
#                   "ERRTRACE-RC: <exit code> (<basename of CMD's first word>)"
# Kernel messages and these lines share the serial console; kernel/check.sh
# asserts on the captured log, scenario by scenario.
# kernel/guest/insmod.c: loads once (busybox's insmod runs a failing init twice).
INSMOD=/sbin/insmod
D=/sys/kernel/debug/errtrace_demo
CONTROL=$D/control
# The kernel's dynamic_debug control file: errtrace's static sites are listed there.
DDCONTROL=/proc/dynamic_debug/control
RECORDER=$D/recorder
TRIGGER=$D/trigger
# The forced failure, named at load time: the first bus read fails with EIO.
FAULT='ctl="fail name=bus_read probability=100 times=1 code=EIO"'

# Console log level 8: KERN_DEBUG lines (errtrace's debug records) print too.
dmesg -n 8

scenario kunit
# Right after boot (Linux 6.13+): the KUnit suite errtrace_recorder, which KUnit runs when its
# module loads (its own copy of errtrace: the demo's recorder is not touched).
if [ -f errtrace_kunit.ko ]; then
    run $INSMOD errtrace_kunit.ko
    run rmmod errtrace_kunit
fi

scenario builtin
# A copy of errtrace built into the kernel (the base flavour of Linux 6.13+: errtrace_builtin, the
# peer's source in vmlinux) ran at boot; the peer module's own copy loads beside it.
if grep -q '\[errtrace_builtin\]' $DDCONTROL; then
    run sh -c "dmesg | grep 'errtrace_builtin: [l]oaded'"
    run sh -c "echo dynamic_debug entries of errtrace_builtin: \$(grep -c '\[errtrace_builtin\]' $DDCONTROL)"
    run sh -c "echo 'module errtrace_builtin +p' > $DDCONTROL"
    run sh -c "echo with p: \$(grep '\[errtrace_builtin\]' $DDCONTROL | grep -c ' =p ')"
    run sh -c "echo 'module errtrace_builtin -p' > $DDCONTROL"
    run $INSMOD errtrace_peer.ko
    run sh -c "echo dynamic_debug entries: builtin \$(grep -c '\[errtrace_builtin\]' $DDCONTROL), peer \$(grep -c '\[errtrace_peer\]' $DDCONTROL)"
    # Each copy's events under its own system: no clash in tracefs.
    grep -q " /sys/kernel/tracing tracefs " /proc/mounts || mount -t tracefs tracefs /sys/kernel/tracing
    run sh -c "ls -1d /sys/kernel/tracing/events/errtrace*"
    run rmmod errtrace_peer
fi

scenario fault-attr
# A module built as a driver ships errtrace (errtrace_peer: no control language):
# its fail points are armed by the kernel's fault injection, a struct fault_attr
# of the module (fail= in failslab='s format, fail_points=, debugfs knobs).
run $INSMOD errtrace_peer.ko fail=1,100,0,1 fail_points=peer_setup
run $INSMOD errtrace_peer.ko fail_points=peer_setup
run sh -c "echo fault_attr knobs: \$(ls /sys/kernel/debug/fail_errtrace_peer | tr '\n' ' ')"
run sh -c "echo fault_attr: probability \$(cat /sys/kernel/debug/fail_errtrace_peer/probability), times \$(cat /sys/kernel/debug/fail_errtrace_peer/times)"
run rmmod errtrace_peer
run sh -c "test -e /sys/kernel/debug/fail_errtrace_peer && echo knobs after unload: present || echo knobs after unload: removed"

scenario before
# The same driver and fault, but init hands the error back as a bare errno
# (what a Rust module does today): the kernel prints nothing about it.
run $INSMOD errtrace_demo.ko plain=1 "$FAULT"

scenario load-fail
# The same failing init through errtrace's boundary: origin and every hop.
run $INSMOD errtrace_demo.ko "$FAULT"

scenario load-fail-logged
# A creator that logs (wrong chip id): printed once, where it was made; the
# boundary does not print it again (its debug line, enabled here, says so).
run $INSMOD errtrace_demo.ko chip_id=0x42 'ctl="file demo.rs +p"'

scenario load
# dynamic_debug query at load (dyndbg= on the insmod line): the quiet retry site (EAGAIN while
# the chip resets) prints.
run $INSMOD errtrace_demo.ko 'dyndbg="format busy +p"'
run cat $CONTROL
run sh -c "grep errtrace_demo $DDCONTROL"

scenario control-on
run sh -c "echo reset > $TRIGGER"

scenario control-off
run sh -c "echo 'format busy -p' > $DDCONTROL"
run sh -c "echo reset > $TRIGGER"
run sh -c "grep 'chip busy' $DDCONTROL"

scenario control-flags
run sh -c "echo 'format busy =pflt' > $DDCONTROL"
run sh -c "echo reset > $TRIGGER"
run sh -c "grep ']poll_ready ' $CONTROL"
run sh -c "grep 'chip busy' $DDCONTROL"

scenario control-fail
# Fault injection while loaded, with a code override: one failing bus write.
run sh -c "echo 'fail name=bus_write times=1 code=ETIMEDOUT' > $CONTROL"
run sh -c "echo 'format busy -p' > $DDCONTROL"
run sh -c "echo reset > $TRIGGER"
run sh -c "echo reset > $TRIGGER"

scenario control-error
run sh -c "echo 'fiel x +p' > $CONTROL"
run sh -c "echo 'func poll_ready +p; fiel x +p' > $CONTROL"
run sh -c "grep ']poll_ready ' $CONTROL"
run sh -c "echo bogus > $TRIGGER"

scenario drop
run sh -c "echo drop > $TRIGGER"

scenario recorder
run cat $RECORDER

scenario tracepoints
# errtrace's events as real tracepoints in tracefs: enabled, a failing sample
# (one fault on the bus read) traced with its hops, disabled again.
T=/sys/kernel/tracing
grep -q " $T tracefs " /proc/mounts || mount -t tracefs tracefs $T
run ls -1 $T/events/errtrace
run sh -c "echo 1 > $T/events/errtrace/errtrace_error/enable"
run sh -c "echo 1 > $T/events/errtrace/errtrace_hop/enable"
run sh -c "echo 'fail name=bus_read times=1 code=EIO' > $CONTROL"
run sh -c "echo sample > $TRIGGER"
run sh -c "echo 0 > $T/events/errtrace/enable"
run sh -c "grep -c errtrace_ $T/trace"
run sh -c "echo 'fail name=bus_read times=1 code=EIO' > $CONTROL"
run sh -c "echo sample > $TRIGGER"
# Disabled: the second failing sample adds no line.
run sh -c "grep -c errtrace_ $T/trace"
run sh -c "grep errtrace_ $T/trace | sed 's/^ *//'"

scenario devices
# Four identical devices (platform devices errtrace-demo.0-3 of the demo's driver) whose probes
# fail the same way (a bus read fault): each report is printed on its device, like dev_err!.
run sh -c "echo 'fail name=bus_read times=4 code=EIO' > $CONTROL"
run sh -c "echo 'devices 4' > $TRIGGER"

scenario devices-creator
# A creator that logs inside a probe (a wrong chip id) prints on its device; the probe's
# end does not print the error again (the driver core keeps ENODEV quiet too).
run sh -c "echo 'devices 1 0x42' > $TRIGGER"

scenario devices-defer
# EPROBE_DEFER: no error line; the deferral reason, with the origin, in devices_deferred.
run sh -c "echo 'supply off' > $TRIGGER"
run sh -c "echo 'devices 1' > $TRIGGER"
run cat /sys/kernel/debug/devices_deferred

scenario devices-enomem
# ENOMEM: errtrace prints nothing (the driver core's own line remains).
run sh -c "echo 'supply on' > $TRIGGER"
run sh -c "echo 'fail name=dev_alloc times=1 code=ENOMEM' > $CONTROL"
run sh -c "echo 'devices 1' > $TRIGGER"

scenario devices-bound
# A device that binds; the driver core then retries the deferred one, which binds too.
run sh -c "echo 'devices 1' > $TRIGGER"
i=0
while [ $i -lt 50 ] && [ ! -e /sys/bus/platform/drivers/errtrace-demo/errtrace-demo.5 ]; do
    sleep 0.1
    i=$((i + 1))
done
run ls /sys/bus/platform/drivers/errtrace-demo
run sh -c "echo deferred: \$(grep -c errtrace-demo /sys/kernel/debug/devices_deferred)"

scenario storm
# A blanket -p on the whole module (what people type to quiet debug output) leaves error
# reports alone: the storm's site still reports, rate limited.
run sh -c "echo 'module errtrace_demo -p' > $DDCONTROL"
run sh -c "echo 'storm 1000' > $TRIGGER"
run sh -c "grep ']sample ' $CONTROL"

scenario storm-off
# Silencing an error site takes errtrace's own control; the site is still counted.
run sh -c "echo 'func sample -p' > $CONTROL"
run sh -c "echo 'storm 1000' > $TRIGGER"
run sh -c "grep ']sample ' $CONTROL"

scenario expecting
# A bus scan expects ENXIO where no register is (errtrace::expecting in the trigger's `scan`):
# the absent addresses print nothing; the read site counts them as suppressed.
run sh -c "echo scan > $TRIGGER"
run sh -c "grep 'code=ENXIO' $CONTROL"

scenario module-p
# =p on the whole module: every site prints, quiet ones included (and the prefixes are gone).
run sh -c "echo 'module errtrace_demo =p' > $DDCONTROL"
run sh -c "echo reset > $TRIGGER"

scenario unload
run rmmod errtrace_demo
run grep -c errtrace_demo /proc/modules
run ls $D
# The kernel removed the module's descriptors; its control file still reads.
run sh -c "echo dynamic_debug entries of errtrace_demo: \$(grep -c errtrace_demo $DDCONTROL)"
run sh -c "echo dynamic_debug lines: \$(wc -l < $DDCONTROL)"

scenario levels
# The printk level of each kind of record (<3> err, <4> warning, <6> info, <7> debug).
run sh -c "dmesg -r | grep -E 'errtrace_demo: (errtrace_demo init: |unexpected chip id|.*messages suppressed|.*dropped unhandled|loaded|unloaded)'"
