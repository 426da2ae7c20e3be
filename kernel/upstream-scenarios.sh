# Scenarios of the upstream kernels (Linux 7.3, kernel/patches/), run inside
# the guest with in-tree modules, unmodified, and rust_probe_test.ko
# (kernel/upstream-module/): the same on the kernel without the postings of
# kernel/patches/ (upstream-before) and with them (upstream, and upstream-debug:
# the debug configuration with lockdep and KASAN). Sourced by /init; helpers:
#   say TEXT        one line into the log
#   scenario NAME   print the marker line "ERRTRACE-SCENARIO: NAME"
#   run CMD...      print "ERRTRACE-RUN: CMD...", run it, print "ERRTRACE-RC: <rc> (<cmd>)"
# kernel/check.sh (flavours upstream-before, upstream, upstream-debug) checks the log.
INSMOD=/sbin/insmod
F=/sys/kernel/debug/failslab
T=/sys/kernel/tracing
C=/proc/dynamic_debug/control
P=/sys/bus/platform
DEFERRED=/sys/kernel/debug/devices_deferred

dmesg -n 8

scenario doctests
# The kernel crate's documentation examples ran as KUnit tests at boot.
run sh -c "dmesg | grep -E '# rust_doctests_kernel: |ok [0-9]+ rust_doctests_kernel$'"

scenario kunit
# The origins posting's KUnit suite (built in, ran at boot): its cases and its summary.
run sh -c "dmesg | grep -E '(ok [0-9]+ [a-z_]+$|rust_error_origin)' | grep -v rust_doctest"

scenario intree-load
# The in-tree Rust samples load and unload (the series keeps them working).
for m in rust_minimal rust_print rust_driver_platform rust_driver_faux; do
    run $INSMOD $m.ko
done
for m in rust_minimal rust_print rust_driver_platform rust_driver_faux; do
    run rmmod $m
done

scenario device
# A platform device that has no driver: the platform drivers of the test are
# bound to it through driver_override. The PC speaker's when there is one.
D=
[ -d $P/devices/pcspkr ] && [ ! -e $P/devices/pcspkr/driver ] && D=pcspkr
if [ -z "$D" ]; then
    for d in $P/devices/*; do [ -e $d/driver ] || { D=${d##*/}; break; }; done
fi
say "platform device without a driver: $D"
# bind DRIVER: binds $D to DRIVER (a platform driver of a loaded module), as
# the driver core does when a device appears (drivers_probe: a deferral puts
# the device on the deferred-probe list, as the sysfs bind file does not).
bind() {
    echo "$1" > $P/devices/$D/driver_override
    echo $D > $P/drivers_probe
}
# unbind DRIVER: the reverse (nothing if the device is not bound).
unbind() {
    if [ -e $P/devices/$D/driver ]; then echo $D > $P/drivers/$1/unbind; fi
    echo > $P/devices/$D/driver_override
}
# failing CMD...: CMD in a subshell marked for failslab (make-it-fail, inherited
# by the commands it runs).
failing() { ( echo 1 > /proc/self/make-it-fail; "$@" ) }

scenario dyndbg
# The in-tree platform sample's dev_dbg! ("Probe Rust Platform driver sample.")
# as a dynamic debug site: listed in the control file, printed after +p.
run $INSMOD rust_driver_platform.ko
run sh -c "grep -c '\[rust_driver_platform\]' $C"
run sh -c "grep 'Probe Rust Platform' $C"
run sh -c "echo 'module rust_driver_platform +p' > $C"
run sh -c "grep 'Probe Rust Platform' $C"
run bind rust_driver_platform
run unbind rust_driver_platform
run sh -c "echo 'module rust_driver_platform -p' > $C"

scenario pr-debug
# The test driver's pr_debug! and dev_dbg! sites: listed, printed after +p.
run $INSMOD rust_probe_test.ko
run sh -c "grep '\[rust_probe_test\]' $C"
run sh -c "echo 'module rust_probe_test +p' > $C"
run bind rust_probe_test
run unbind rust_probe_test
run rmmod rust_probe_test

scenario failslab-setup
# The kernel's failslab: fail the first slab allocation, with GFP_KERNEL too,
# of a task marked with make-it-fail, made while code in the module area
# (x86-64 with RANDOMIZE_BASE: 0xffffffffc0000000 up to 0xffffffffff000000) is
# on the stack: from a module's init or probe, not from the loader.
run sh -c "echo 1 > $F/task-filter"
run sh -c "echo N > $F/ignore-gfp-wait"
run sh -c "echo 0xffffffffc0000000 > $F/require-start"
run sh -c "echo 0xffffffffff000000 > $F/require-end"
run sh -c "echo 1 > $F/verbose"
mount -t tracefs tracefs $T
# The origins posting's tracepoint, where there is one.
[ -d $T/events/rust/error_made ] && run sh -c "echo 1 > $T/events/rust/error_made/enable"

scenario probe-fails
# The in-tree platform sample's probe, unmodified, fails: its driver data's
# allocation (ENOMEM).
run sh -c "echo 100 > $F/probability; echo 1 > $F/times"
run failing bind rust_driver_platform
run sh -c "[ -e $P/devices/$D/driver ]; echo bound: \$?"
run unbind rust_driver_platform
run rmmod rust_driver_platform

scenario init-fails
# rust_minimal's init, unmodified: its first KVec::push fails (ENOMEM).
run sh -c "echo 100 > $F/probability; echo 1 > $F/times"
run failing $INSMOD rust_minimal.ko
run sh -c "grep -c rust_minimal /proc/modules"

scenario faux-init-fails
# The faux device sample's init, unmodified: the C faux bus fails to allocate
# its device, and the kernel crate returns a constant (ENODEV).
run sh -c "echo 100 > $F/probability; echo 1 > $F/times"
run failing $INSMOD rust_driver_faux.ko

# probe_in_mode MODE [CMD...]: loads the test driver with mode=MODE, binds it to
# $D, runs CMD (if given) while its probe's outcome stands, unbinds, unloads.
probe_in_mode() {
    local mode=$1
    shift
    run $INSMOD rust_probe_test.ko mode=$mode
    run bind rust_probe_test
    if [ $# -gt 0 ]; then run "$@"; fi
    run unbind rust_probe_test
    run rmmod rust_probe_test
}

scenario probe-defers
# A probe whose supplier is not there yet (EPROBE_DEFER from a C API): the
# deferral reason in devices_deferred.
probe_in_mode 1 cat $DEFERRED

scenario probe-bare
# A probe that returns a bare constant (EIO).
probe_in_mode 2

scenario probe-logs
# A probe that reports its error where it is made (dev_err_probe!): one line.
probe_in_mode 3

scenario probe-own-reason
# A probe that gives its own deferral reason (dev_err_probe!).
probe_in_mode 4 cat $DEFERRED

scenario probe-nodev
# A probe that says the device is not its own (ENODEV): quiet.
probe_in_mode 5

scenario probe-c-fails
# A probe whose C API call fails (EIO, to_result).
probe_in_mode 6

scenario probe-cleanup-fails
# A probe whose reset fails with EIO, and the power-off on its error path too.
probe_in_mode 7

scenario tracepoint
[ -d $T/events/rust/error_made ] && run sh -c "echo 0 > $T/events/rust/error_made/enable"
# The task and the event (without the CPU, flags and time columns).
run sh -c "grep -h error_made: $T/trace | sed -E 's/^ *([^ ]+) +\\[[0-9]+\\] [^ ]+ +[0-9.]+: /\\1 /'"
