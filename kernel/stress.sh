# The stress scenario, run by the debug kernel (SMP, PREEMPT, lockdep, KASAN)
# after kernel/scenarios.sh, with the same helpers (scenario, run) and
# variables. kernel/check.sh checks it when given the flavour "debug".
STRESS=$D/stress
PEER=errtrace_peer.ko
ITERATIONS=200000

scenario stress
run $INSMOD errtrace_demo.ko
# Meanwhile, in user space: control queries to errtrace and to dynamic_debug,
# the recorder and the site list read, and a second errtrace module loaded and
# unloaded, over and over until the stress ends. Nothing of user space writes
# to the console while the stress runs (its lines would cut the kernel's on
# SMP): the RUN line comes before, the RC and LOOP lines after.
rm -f /tmp/stress-done
echo "ERRTRACE-RUN: echo $ITERATIONS > $STRESS (with the loop in the background)"
(
    n=0
    while [ ! -f /tmp/stress-done ]; do
        echo 'func stress_leaf +p' > $CONTROL
        cat $RECORDER > /dev/null
        echo 'format stress -p' > $DDCONTROL
        cat $CONTROL > /dev/null
        echo 'func stress_leaf -p' > $CONTROL
        echo 'format stress +p' > $DDCONTROL
        $INSMOD $PEER > /dev/null
        grep -q '\[errtrace_peer\]' $DDCONTROL || touch /tmp/stress-peer-missing
        rmmod errtrace_peer
        n=$((n + 1))
    done
    echo "$n" > /tmp/stress-rounds
) &
echo $ITERATIONS > $STRESS
rc=$?
touch /tmp/stress-done
wait
echo "ERRTRACE-RC: $rc (stress)"
echo "ERRTRACE-LOOP: $(cat /tmp/stress-rounds) rounds of queries, reads and peer load/unload"
[ -f /tmp/stress-peer-missing ] && echo "ERRTRACE-LOOP: peer not in dynamic_debug"
run sh -c "grep -E '\]stress_' $CONTROL"

scenario two-modules
# Both modules loaded, then unloaded demo first (the stress loop unloaded the
# peer first): each keeps its own sites; nothing is left behind.
run $INSMOD $PEER
run sh -c "echo dynamic_debug entries: demo \$(grep -c '\[errtrace_demo\]' $DDCONTROL), peer \$(grep -c '\[errtrace_peer\]' $DDCONTROL)"
run rmmod errtrace_demo
run sh -c "echo dynamic_debug entries: demo \$(grep -c '\[errtrace_demo\]' $DDCONTROL), peer \$(grep -c '\[errtrace_peer\]' $DDCONTROL)"
run sh -c "echo tracefs errtrace events: \$(grep -c '^errtrace:' /sys/kernel/tracing/available_events)"
run rmmod errtrace_peer
run sh -c "echo dynamic_debug lines: \$(wc -l < $DDCONTROL)"
