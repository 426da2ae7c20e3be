# Scenarios of the upstream kernels (kernel/patches/), run inside the guest
# with in-tree modules only, unmodified: the same on the kernel without the
# series (upstream-before) and with it (upstream). Sourced by /init; helpers:
#   scenario NAME   print the marker line "ERRTRACE-SCENARIO: NAME"
#   run CMD...      print "ERRTRACE-RUN: CMD...", run it, print "ERRTRACE-RC: <rc> (<cmd>)"
# kernel/check.sh (flavours upstream-before and upstream) checks the log.
INSMOD=/sbin/insmod
F=/sys/kernel/debug/failslab
T=/sys/kernel/tracing

dmesg -n 8

scenario doctests
# The kernel crate's documentation examples ran as KUnit tests at boot: the
# summary, and the examples of error.rs.
run sh -c "dmesg | grep -E '# rust_doctests_kernel: |ok [0-9]+ rust_doctest_kernel_error_rs_'"

scenario intree-load
# Every in-tree Rust module of the config loads and unloads (the PHY drivers
# register with phylib; rnull makes /dev/rnullb0).
for m in rust_minimal rust_print rnull_mod ax88796b_rust qt2025; do
    run $INSMOD $m.ko
done
run ls /dev/rnullb0
for m in rust_minimal rust_print rnull_mod ax88796b_rust qt2025; do
    run rmmod $m
done

scenario failslab-setup
# The kernel's failslab: fail the first slab allocation, with GFP_KERNEL too,
# of a task marked with make-it-fail, made while code in the module area
# (x86-64, no KASLR: 0xffffffffa0000000 up to 0xffffffffff000000) is on the
# stack, i.e. from a module's init rather than from the loader.
run sh -c "echo 1 > $F/task-filter"
run sh -c "echo N > $F/ignore-gfp-wait"
run sh -c "echo 0xffffffffa0000000 > $F/require-start"
run sh -c "echo 0xffffffffff000000 > $F/require-end"
run sh -c "echo 1 > $F/verbose"
mount -t tracefs tracefs $T
# The series' tracepoint, where there is one.
[ -d $T/events/rust_error ] && run sh -c "echo 1 > $T/events/rust_error/rust_error/enable"

scenario init-fails
# rust_minimal's init, unmodified: its first KVec::push fails (ENOMEM).
run sh -c "echo 100 > $F/probability; echo 1 > $F/times"
run sh -c "echo 1 > /proc/self/make-it-fail; exec $INSMOD rust_minimal.ko"
run sh -c "grep -c rust_minimal /proc/modules"

scenario init-fails-deeper
# rnull's init, unmodified: its first allocation (the tag set's Arc) fails
# inside the kernel crate.
run sh -c "echo 100 > $F/probability; echo 1 > $F/times"
run sh -c "echo 1 > /proc/self/make-it-fail; exec $INSMOD rnull_mod.ko"

scenario tracepoint
[ -d $T/events/rust_error ] && run sh -c "echo 0 > $T/events/rust_error/rust_error/enable"
# The task and the event (without the CPU, flags and time columns).
run sh -c "grep -h rust_error: $T/trace | sed -E 's/^ *([^ ]+) +\\[[0-9]+\\] [^ ]+ +[0-9.]+: /\\1 /'"
