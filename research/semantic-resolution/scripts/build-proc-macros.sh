#!/bin/sh
# Rebuild the kernel's host proc-macro crates with the rustup 1.95 rustc so that
# rust-analyzer's 1.95 proc-macro-srv can load them (the tree's .so files were
# built by rustc 1.85 and are rejected). Output only in this directory.
set -e
K=/var/cache/errtrace-kernel/4d510d68d93f58d6/linux-source-7.3
O=$(dirname $(readlink -f $0))/out
mkdir -p $O
RUSTC="rustc +1.95.0"
export RUSTC_BOOTSTRAP=1
cd $O
$RUSTC --edition=2021 --cap-lints=allow --cfg='feature="proc-macro"' --cfg=wrap_proc_macro --crate-type rlib -O --out-dir $O -L$O --crate-name proc_macro2 $K/rust/proc-macro2/lib.rs
$RUSTC --edition=2018 --cap-lints=allow --extern proc_macro2 --cfg='feature="proc-macro"' --crate-type rlib -O --out-dir $O -L$O --crate-name quote $K/rust/quote/lib.rs
$RUSTC --edition=2021 --cap-lints=allow --extern proc_macro2 --extern quote --cfg='feature="clone-impls"' --cfg='feature="derive"' --cfg='feature="full"' --cfg='feature="parsing"' --cfg='feature="printing"' --cfg='feature="proc-macro"' --cfg='feature="visit"' --cfg='feature="visit-mut"' --crate-type rlib -O --out-dir $O -L$O --crate-name syn $K/rust/syn/lib.rs
$RUSTC --edition=2021 --cap-lints=allow --extern proc_macro2 --extern quote --extern syn --extern proc_macro --crate-type proc-macro -L$O --crate-name macros --cfg CONFIG_RUSTC_HAS_SPAN_FILE @$K/include/generated/rustc_cfg --out-dir $O $K/rust/macros/lib.rs
$RUSTC --edition=2021 --cap-lints=allow --extern proc_macro2 --extern quote --extern syn --cfg=kernel --cfg=USE_RUSTC_FEATURES --extern proc_macro --crate-type proc-macro -L$O --crate-name pin_init_internal @$K/include/generated/rustc_cfg --out-dir $O $K/rust/pin-init/internal/src/lib.rs
$RUSTC --edition=2021 --cap-lints=allow --extern proc_macro2 --extern quote --extern syn --cfg=zerocopy_unstable_linux --extern proc_macro --crate-type proc-macro -L$O --crate-name zerocopy_derive @$K/include/generated/rustc_cfg --out-dir $O $K/rust/zerocopy-derive/lib.rs
ls -la $O/*.so
