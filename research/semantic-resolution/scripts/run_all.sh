#!/bin/sh
# Re-run every configuration measured in REPORT.md. Outputs in runs/<config>/.
cd /tmp/ra-probe
P=./probe/target/release/ra-probe
SRV195=/root/.rustup/toolchains/1.95.0-x86_64-unknown-linux-gnu/libexec/rust-analyzer-proc-macro-srv
SRV185=/usr/libexec/rust-analyzer-proc-macro-srv
CR=nova_core,tyr,rust_binder,kernel
G="--grep chipset.name() --grep boot0. --grep usize_as_u --grep MCU_STATUS --grep NV_PMC_BOOT_0 --grep project()"
[ -f pm195/out/libmacros.so ] || ./pm195/build.sh
[ -f pm195/json/rust-project.json ] || python3 -c "
import json; d=json.load(open('rust-project.json'))
for c in d['crates']:
    if c.get('is_proc_macro'): c['proc_macro_dylib_path']='/tmp/ra-probe/pm195/out/'+c['proc_macro_dylib_path'].rsplit('/',1)[1]
json.dump(d,open('pm195/json/rust-project.json','w'),indent=1)"
mkdir -p sysroot-variant/b sysroot-variant/b-nopm
python3 sysroot-variant/make_json_b.py rust-project.json sysroot-variant/b/rust-project.json /tmp/ra-probe/pm195/out
python3 sysroot-variant/make_json_b.py rust-project.json sysroot-variant/b-nopm/rust-project.json
run() { name=$1; shift; mkdir -p runs/$name
  /usr/bin/time -v $P "$@" --crates $CR --out runs/$name $G > runs/$name/stdout.txt 2> runs/$name/stderr.txt
  echo "== $name rc=$?"; grep -E "Elapsed|Maximum resident" runs/$name/stderr.txt; grep -E "^TIMING" runs/$name/stdout.txt; }
run A_orig_nopm        rust-project.json --pm none
run B_orig_pm185       rust-project.json --pm $SRV185
run C_orig_pm195       pm195/json/rust-project.json --pm $SRV195
run D_sysroot_nopm     sysroot-variant/b-nopm/rust-project.json --pm none
run E_sysroot_pm195    sysroot-variant/b/rust-project.json --pm $SRV195
