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
RECORDER=$D/recorder
TRIGGER=$D/trigger
# The forced failure, named at load time: the first bus read fails with EIO.
FAULT='ctl="fail name=bus_read probability=100 times=1 code=EIO"'

# Console log level 8: KERN_DEBUG lines (errtrace's debug records) print too.
dmesg -n 8

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
# Control query at load (module parameter): the quiet retry site (EAGAIN while the chip resets)
# prints. Sites appear on first use; the query stands until they do.
run $INSMOD errtrace_demo.ko 'ctl="func poll_ready +p"'
run cat $CONTROL

scenario control-on
run sh -c "echo reset > $TRIGGER"

scenario control-off
run sh -c "echo 'func poll_ready -p' > $CONTROL"
run sh -c "echo reset > $TRIGGER"

scenario control-flags
run sh -c "echo 'func poll_ready =pflt' > $CONTROL"
run sh -c "echo reset > $TRIGGER"
run sh -c "grep ']poll_ready ' $CONTROL"

scenario control-fail
# Fault injection while loaded, with a code override: one failing bus write.
run sh -c "echo 'fail name=bus_write times=1 code=ETIMEDOUT' > $CONTROL"
run sh -c "echo 'func poll_ready -p' > $CONTROL"
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

scenario storm
run sh -c "echo 'storm 1000' > $TRIGGER"
run sh -c "grep ']sample ' $CONTROL"

scenario storm-off
# -p silences the storm's site at runtime; it is still counted.
run sh -c "echo 'func sample -p' > $CONTROL"
run sh -c "echo 'storm 1000' > $TRIGGER"
run sh -c "grep ']sample ' $CONTROL"

scenario unload
run rmmod errtrace_demo
run grep -c errtrace_demo /proc/modules
run ls $D

scenario levels
# The printk level of each kind of record (<3> err, <4> warning, <6> info, <7> debug).
run sh -c "dmesg -r | grep -E 'errtrace_demo: (errtrace_demo init: |unexpected chip id|.*messages suppressed|.*dropped unhandled|loaded|unloaded)'"
