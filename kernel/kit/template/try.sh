# A script for kernel/kit/boot.sh: the template loaded four times, each time
# bound to a platform device without a driver, its probe failing as `mode` says.
#   kernel/kit/boot.sh --kdir KDIR --script try.sh errtrace_template.ko
for mode in 0 1 2 3; do
    say "TRY: mode=$mode"
    run insmod errtrace_template.ko mode=$mode
    bind errtrace_template
    run rmmod errtrace_template
done
