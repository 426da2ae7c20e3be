# Scenarios run inside the guest: sourced by /init (busybox sh), in
# /lib/modules where the built .ko files are. Helpers from /init:
#   scenario NAME   print the marker line "ERRTRACE-SCENARIO: NAME"
#   run CMD...      print "ERRTRACE-RUN: CMD...", run CMD, then print
#                   "ERRTRACE-RC: <exit code> (<first word of CMD>)"
# Kernel messages and these lines share the serial console; kernel/check.sh
# asserts on the captured log, scenario by scenario.
CONTROL=/sys/kernel/debug/errtrace_demo/control

scenario before
# A Rust module whose init returns Err(EINVAL): today the kernel prints nothing.
run insmod errtrace_demo.ko fail=1

scenario load
# The quotes reach the kernel's parameter parser, which keeps spaces inside them.
run insmod errtrace_demo.ko 'ctl="func layer_* +p"'
run cat $CONTROL

scenario control-write
run sh -c "echo 'module errtrace_demo +p' > $CONTROL"
run cat $CONTROL

scenario control-write-error
run sh -c "echo fail > $CONTROL"

scenario unload
run rmmod errtrace_demo
run grep -c errtrace_demo /proc/modules
run ls /sys/kernel/debug/errtrace_demo
