#!/usr/bin/env python3
"""Variant of the kernel rust-project.json: drop the explicitly listed sysroot
crates (core, alloc, std, proc_macro) and let rust-analyzer build them from
"sysroot_src" instead, so they get CrateOrigin::Lang (needed for lang-item /
primitive-method resolution). Optionally point proc-macro dylibs at a rebuilt
copy (pm dir)."""
import json, sys
src, dst = sys.argv[1], sys.argv[2]
pmdir = sys.argv[3] if len(sys.argv) > 3 else None
d = json.load(open(src))
drop = {i for i, c in enumerate(d['crates']) if c['display_name'] in ('core', 'alloc', 'std', 'proc_macro')}
remap, out = {}, []
for i, c in enumerate(d['crates']):
    if i in drop: continue
    remap[i] = len(out); out.append(c)
for c in out:
    c['deps'] = [dict(dep, crate=remap[dep['crate']]) for dep in c['deps'] if dep['crate'] not in drop]
    if pmdir and c.get('is_proc_macro'):
        c['proc_macro_dylib_path'] = pmdir + '/' + c['proc_macro_dylib_path'].rsplit('/', 1)[1]
d['crates'] = out
d['sysroot_src'] = d['sysroot'].rstrip('/') + '/lib/rustlib/src/rust/library'
json.dump(d, open(dst, 'w'), indent=1)
print(f"dropped {sorted(drop)}; {len(out)} crates; sysroot_src={d['sysroot_src']}")
