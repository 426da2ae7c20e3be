//! Functions registered in an operations table as entry points from user space, and a DRM
//! driver's ioctls (`declare_drm_ioctls!`).
//!
//! A driver that fills a `bindings::file_operations` (or `proc_ops`) by hand registers
//! `extern "C"` functions the VFS calls on a system call: the errno such a function returns is
//! the system call's result, seen by the process that asked. They are found by the field they
//! are stored in (`unlocked_ioctl: Some(rust_binder_ioctl)`); `release` is not one of them (the
//! VFS ignores its value). configfs's C tables (`configfs_attribute`'s `show`/`store`,
//! `configfs_group_operations`' `make_group`/`make_item`) are read the same way: read(2),
//! write(2) and mkdir(2) on a configfs file or directory reach them.

use std::collections::BTreeSet;
use syn::visit::Visit;

use super::syntax::sig_mentions_type;

/// `file_operations` and `proc_ops` members whose return value is a system call's result.
const USER_FIELDS: &[&str] = &[
    "open",
    "read",
    "write",
    "read_iter",
    "write_iter",
    "unlocked_ioctl",
    "compat_ioctl",
    "mmap",
    "llseek",
    "flush",
    "fsync",
    "fasync",
    "fallocate",
    "lock",
    "flock",
    "splice_read",
    "splice_write",
    "uring_cmd",
    "copy_file_range",
    "remap_file_range",
    "proc_open",
    "proc_read",
    "proc_read_iter",
    "proc_write",
    "proc_lseek",
    "proc_ioctl",
    "proc_compat_ioctl",
    "proc_mmap",
];

/// configfs's tables: an attribute's `show` and `store` run for read(2) and write(2) of its
/// file, a group's `make_group`/`make_item` for mkdir(2) (the kernel crate fills them in
/// `configfs::Attribute::new` and `GroupOperationsVTable`).
const CONFIGFS_FIELDS: &[&str] = &["show", "store", "make_group", "make_item"];

/// The operations tables whose members are read (the struct literal's type name), with the
/// members whose return value is a system call's result.
const TABLES: &[(&str, &[&str])] = &[
    ("file_operations", USER_FIELDS),
    ("proc_ops", USER_FIELDS),
    ("configfs_attribute", CONFIGFS_FIELDS),
    ("configfs_group_operations", CONFIGFS_FIELDS),
];

/// Deeper expressions are not looked into (a table is a shallow literal; this bounds the
/// recursion on adversarial input).
const MAX_DEPTH: u32 = 48;

/// The names of the functions a file stores in user-space entry fields of an operations table.
pub(super) fn user_entries(file: &syn::File) -> BTreeSet<String> {
    struct Collect {
        found: BTreeSet<String>,
        depth: u32,
    }
    impl<'ast> Visit<'ast> for Collect {
        fn visit_expr(&mut self, e: &'ast syn::Expr) {
            if self.depth >= MAX_DEPTH {
                return;
            }
            self.depth += 1;
            if let syn::Expr::Struct(s) = e {
                let fields = s.path.segments.last().and_then(|seg| {
                    TABLES
                        .iter()
                        .find(|(t, _)| seg.ident == t)
                        .map(|(_, fields)| *fields)
                });
                if let Some(fields) = fields {
                    for field in &s.fields {
                        let syn::Member::Named(name) = &field.member else {
                            continue;
                        };
                        if fields.contains(&name.to_string().as_str()) {
                            if let Some(f) = stored_fn(&field.expr) {
                                self.found.insert(f);
                            }
                        }
                    }
                }
            }
            syn::visit::visit_expr(self, e);
            self.depth -= 1;
        }
        // Function bodies are the walker's; tables live in statics and consts (or in a
        // function that builds one, visited all the same).
    }
    let mut c = Collect {
        found: BTreeSet::new(),
        depth: 0,
    };
    c.visit_file(file);
    c.found
}

/// The free functions a file hands over as callbacks on user memory: a function taking a
/// `UserSliceReader` or `UserSliceWriter`, passed as an argument
/// (`dir.write_only_callback_file(c"create", data, &create_file_write)`). The kernel crate calls
/// it on a read(2) or write(2) of the file it registers, so its errno (when it returns a
/// `Result`: the analysis checks) is the system call's result.
pub(super) fn user_memory_callbacks(file: &syn::File) -> BTreeSet<String> {
    struct Collect {
        candidates: BTreeSet<String>,
        passed: BTreeSet<String>,
        depth: u32,
    }
    impl<'ast> Visit<'ast> for Collect {
        fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
            if sig_mentions_type(&f.sig, &["UserSliceReader", "UserSliceWriter"]) {
                self.candidates.insert(f.sig.ident.to_string());
            }
            syn::visit::visit_item_fn(self, f);
        }
        fn visit_expr(&mut self, e: &'ast syn::Expr) {
            if self.depth >= MAX_DEPTH {
                return;
            }
            self.depth += 1;
            let args = match e {
                syn::Expr::Call(c) => Some(&c.args),
                syn::Expr::MethodCall(m) => Some(&m.args),
                _ => None,
            };
            for a in args.into_iter().flatten() {
                let inner = match a {
                    syn::Expr::Reference(r) => &*r.expr,
                    other => other,
                };
                if let syn::Expr::Path(p) = inner {
                    if let Some(i) = p.path.get_ident() {
                        self.passed.insert(i.to_string());
                    }
                }
            }
            syn::visit::visit_expr(self, e);
            self.depth -= 1;
        }
    }
    let mut c = Collect {
        candidates: BTreeSet::new(),
        passed: BTreeSet::new(),
        depth: 0,
    };
    c.visit_file(file);
    c.candidates.intersection(&c.passed).cloned().collect()
}

/// The handlers a file registers with `kernel::declare_drm_ioctls! { (NAME, uapi_type,
/// flags, File::get_param), … }`, as `Type::method` (the last two segments of each entry's last
/// element). DRM calls them on an `ioctl`: the errno is the system call's result.
pub(super) fn drm_ioctls(file: &syn::File) -> BTreeSet<String> {
    struct Collect {
        found: BTreeSet<String>,
    }
    impl<'ast> Visit<'ast> for Collect {
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            if m.path
                .segments
                .last()
                .is_some_and(|s| s.ident == "declare_drm_ioctls")
            {
                for tt in m.tokens.clone() {
                    if let proc_macro2::TokenTree::Group(g) = tt {
                        if let Some(h) = last_path(g.stream()) {
                            self.found.insert(h);
                        }
                    }
                }
            }
            syn::visit::visit_macro(self, m);
        }
    }
    let mut c = Collect {
        found: BTreeSet::new(),
    };
    c.visit_file(file);
    c.found
}

/// The last comma-separated element of an entry, if it is a path: its last two segments
/// (`File::get_param`), or its one segment.
fn last_path(ts: proc_macro2::TokenStream) -> Option<String> {
    let mut last: Vec<proc_macro2::TokenTree> = Vec::new();
    for tt in ts {
        match &tt {
            proc_macro2::TokenTree::Punct(p) if p.as_char() == ',' => last.clear(),
            _ => last.push(tt),
        }
    }
    let mut segs = Vec::new();
    for tt in &last {
        match tt {
            proc_macro2::TokenTree::Ident(i) => segs.push(i.to_string()),
            proc_macro2::TokenTree::Punct(p) if p.as_char() == ':' => {}
            _ => return None,
        }
    }
    let n = segs.len();
    match n {
        0 => None,
        1 => segs.pop(),
        _ => Some(format!("{}::{}", segs.get(n - 2)?, segs.get(n - 1)?)),
    }
}

/// `Some(f)`, `Some(path::f)`, `f`, `path::f`, `f as _`: the function's name.
fn stored_fn(e: &syn::Expr) -> Option<String> {
    match e {
        syn::Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        syn::Expr::Call(c) => {
            let is_some = matches!(&*c.func, syn::Expr::Path(p)
                if p.path.segments.last().is_some_and(|s| s.ident == "Some"));
            match (is_some, c.args.first()) {
                (true, Some(arg)) if c.args.len() == 1 => stored_fn(arg),
                _ => None,
            }
        }
        syn::Expr::Cast(c) => stored_fn(&c.expr),
        syn::Expr::Paren(p) => stored_fn(&p.expr),
        // `if O::HAS_STORE { Some(Self::store) } else { None }`.
        syn::Expr::If(i) => match i.then_branch.stmts.last() {
            Some(syn::Stmt::Expr(e, None)) => stored_fn(e),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_drm_drivers_ioctls() {
        let f: syn::File = syn::parse_str(
            r#"
            impl drm::Driver for NovaDriver {
                kernel::declare_drm_ioctls! {
                    (NOVA_GETPARAM, drm_nova_getparam, ioctl::RENDER_ALLOW, File::get_param),
                    (NOVA_GEM_CREATE, drm_nova_gem_create, ioctl::AUTH | ioctl::RENDER_ALLOW, crate::file::File::gem_create),
                }
            }
            "#,
        )
        .unwrap();
        let got: Vec<String> = drm_ioctls(&f).into_iter().collect();
        assert_eq!(got, ["File::gem_create", "File::get_param"]);
    }

    #[test]
    fn finds_the_user_space_members_of_a_table() {
        let f: syn::File = syn::parse_str(
            r#"
            pub static FOPS: AssertSync<kernel::bindings::file_operations> = {
                let ops = kernel::bindings::file_operations {
                    owner: THIS_MODULE.as_ptr(),
                    poll: Some(my_poll),
                    unlocked_ioctl: Some(my_ioctl),
                    compat_ioctl: Some(bindings::compat_ptr_ioctl),
                    mmap: Some(my_mmap as _),
                    open: Some(my_open),
                    release: Some(my_release),
                    flush: Some(self::my_flush),
                    ..unsafe { MaybeUninit::zeroed().assume_init() }
                };
                AssertSync(ops)
            };
            const P: proc_ops = proc_ops { proc_read: Some(p_read), proc_release: Some(p_rel) };
            "#,
        )
        .unwrap();
        let got: Vec<String> = user_entries(&f).into_iter().collect();
        assert_eq!(
            got,
            [
                "compat_ptr_ioctl",
                "my_flush",
                "my_ioctl",
                "my_mmap",
                "my_open",
                "p_read"
            ]
        );
    }
}
