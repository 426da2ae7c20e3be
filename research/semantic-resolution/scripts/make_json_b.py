#!/usr/bin/env python3
"""Variant B of the kernel rust-project.json: move the explicitly listed sysroot
crates (core, alloc, std, proc_macro) into "sysroot_project" (+ "sysroot_src"),
so rust-analyzer treats them as sysroot crates (CrateOrigin::Lang, needed for
lang items) and adds them as dependencies of every crate. Kernel-side crates get
crate_attrs ["no_std"] (the kernel build passes -Zcrate-attr=no_std).
Optionally point proc-macro dylibs at a rebuilt copy (3rd arg: dir)."""
import json, sys
src, dst = sys.argv[1], sys.argv[2]
pmdir = sys.argv[3] if len(sys.argv) > 3 else None
d = json.load(open(src))
SYS = ('core', 'alloc', 'std', 'proc_macro')
drop = [i for i, c in enumerate(d['crates']) if c['display_name'] in SYS]
sremap = {i: n for n, i in enumerate(drop)}
sys_crates = []
for i in drop:
    c = dict(d['crates'][i])
    c['deps'] = [dict(dep, crate=sremap[dep['crate']]) for dep in c['deps']]
    sys_crates.append(c)
remap, out = {}, []
for i, c in enumerate(d['crates']):
    if i in sremap: continue
    remap[i] = len(out); out.append(c)
for c in out:
    uses_std = any(d['crates'][dep['crate']]['display_name'] == 'std' for dep in c['deps'])
    c['deps'] = [dict(dep, crate=remap[dep['crate']]) for dep in c['deps'] if dep['crate'] not in sremap]
    if not uses_std and not c.get('is_proc_macro'):
        c['crate_attrs'] = ['no_std']
    if pmdir and c.get('is_proc_macro'):
        c['proc_macro_dylib_path'] = pmdir + '/' + c['proc_macro_dylib_path'].rsplit('/', 1)[1]
d['crates'] = out
d['sysroot_src'] = d['sysroot'].rstrip('/') + '/lib/rustlib/src/rust/library'
d['sysroot_project'] = {'sysroot': d['sysroot'], 'sysroot_src': d['sysroot_src'], 'crates': sys_crates}
json.dump(d, open(dst, 'w'), indent=1)
print(f"sysroot crates {[c['display_name'] for c in sys_crates]}; {len(out)} crates; no_std on {sum(1 for c in out if c.get('crate_attrs'))}")
