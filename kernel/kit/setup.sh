#!/usr/bin/env bash
# Sets up a kernel module folder to use errtrace: writes DIR/errtrace/ (errtrace's
# source as crate `errtrace`, its Linux glue as crate `errtrace_linux`, their C,
# and errtrace.mk, the Kbuild fragment DIR/Kbuild includes). With --template, DIR
# also gets the kit's template driver (Kbuild, Makefile, template.rs) if
# it has no Kbuild yet. With --kdir, checks that KDIR is a kernel tree (a build
# tree or its headers) a Rust module can be built against, and prints the make
# command; nothing is written into KDIR.
#
# Usage: kernel/kit/setup.sh [--template] [--kdir KDIR] [--link] [--core SRC] DIR
#   --link   symbolic links to errtrace's source instead of copies (for builds
#            from this repository; a copy stays valid when the repository moves)
#   --core   errtrace's source (default: this repository's crates/errtrace/src)
set -euo pipefail

KIT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
CORE='' TEMPLATE=0 KDIR='' LINK=0 DIR=''
while (($#)); do
    case $1 in
        --template) TEMPLATE=1 ;;
        --kdir) KDIR=${2:?--kdir needs a directory}; shift ;;
        --link) LINK=1 ;;
        --core) CORE=$(cd "${2:?--core needs a directory}" && pwd); shift ;;
        -h|--help) awk 'NR > 1 && /^#/ { print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        -*) echo "setup.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) [[ -z $DIR ]] || { echo "setup.sh: one DIR only" >&2; exit 2; }; DIR=$1 ;;
    esac
    shift
done
[[ -n $DIR ]] || { echo "setup.sh: which module folder? (see --help)" >&2; exit 2; }
# errtrace's source: --core, else this repository's (the kit's own checkout).
if [[ -z $CORE ]]; then
    CORE=$KIT/../../crates/errtrace/src
    [[ -d $CORE ]] || { echo "setup.sh: no errtrace source beside the kit ($CORE): give --core" >&2; exit 2; }
    CORE=$(cd "$CORE" && pwd)
fi
[[ -f $CORE/lib.rs ]] || { echo "setup.sh: no lib.rs in $CORE" >&2; exit 2; }
die() { echo "setup.sh: $*" >&2; exit 1; }

if [[ -n $KDIR ]]; then
    [[ -f $KDIR/Makefile && -f $KDIR/.config ]] ||
        die "$KDIR is not a configured kernel tree (no Makefile or .config)"
    grep -qx CONFIG_RUST=y "$KDIR/.config" || die "$KDIR has no CONFIG_RUST=y"
    [[ -f $KDIR/rust/libkernel.rmeta ]] ||
        die "$KDIR/rust/libkernel.rmeta is missing: build the kernel (or install its headers with Rust) first"
fi

mkdir -p "$DIR"
if ((TEMPLATE)) && [[ ! -e $DIR/Kbuild ]]; then
    cp "$KIT"/template/{Kbuild,Makefile,template.rs} "$DIR/"
fi
out=$DIR/errtrace
rm -rf "$out"
mkdir -p "$out/core" "$out/linux"
cp "$KIT"/errtrace.mk "$KIT"/*.c "$KIT"/*.h "$out/"
cp "$KIT"/linux/*.rs "$out/linux/"
if ((LINK)); then
    cp -rs "$CORE/." "$out/core/"
else
    cp -r "$CORE/." "$out/core/"
fi
# Kbuild names a crate after its root file: lib.rs becomes errtrace.rs (crate
# `errtrace`), and `mod x;` still finds the sibling x.rs and x/.
mv "$out/core/lib.rs" "$out/core/errtrace.rs"
echo "setup.sh: errtrace in $out"

if [[ -n $KDIR ]]; then
    # Modules are built with the compilers the tree was built with: its clang (LLVM=1 when
    # `clang` is that version, else its versioned name) and its rustc (RUSTC= when `rustc`
    # is another version: the module's crates must match the kernel crate's metadata).
    args=()
    ver=$(sed -n 's/^CONFIG_CLANG_VERSION=\([0-9]*\)[0-9]\{4\}$/\1/p' "$KDIR/.config")
    if [[ -n $ver ]]; then
        if [[ $(clang --version 2>/dev/null | head -n1) == *" version $ver."* ]]; then
            args+=(LLVM=1)
        elif command -v "clang-$ver" >/dev/null; then
            args+=(LLVM=-$ver)
        else
            echo "setup.sh: warning: the tree was built with clang $ver, which is not installed" >&2
            args+=(LLVM=-$ver)
        fi
    fi
    want=$(sed -n 's/^CONFIG_RUSTC_VERSION_TEXT="\(.*\)"$/\1/p' "$KDIR/.config")
    if [[ $(rustc --version 2>/dev/null) != "$want" ]]; then
        found=''
        for r in /usr/bin/rustc /usr/lib/rust-*/bin/rustc "$HOME"/.rustup/toolchains/*/bin/rustc; do
            [[ -x $r && $("$r" --version 2>/dev/null) == "$want" ]] && { found=$r; break; }
        done
        if [[ -n $found ]]; then
            args+=(RUSTC="$found")
        else
            echo "setup.sh: warning: the tree was built with $want; no such rustc found (set RUSTC=)" >&2
        fi
    fi
    echo "setup.sh: build with: make -C $KDIR M=$(cd "$DIR" && pwd) ${args[*]} modules"
    if [[ -f $DIR/Makefile ]]; then
        echo "setup.sh: or, in $DIR: make KDIR=$KDIR ${args[*]}"
    fi
fi
