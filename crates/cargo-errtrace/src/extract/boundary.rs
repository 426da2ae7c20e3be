//! Which functions are boundaries: where an error leaves the analysed code, and what becomes
//! of it there (module init, probe, driver callbacks, entry points from user space, …).

use super::syntax::*;
use super::Walker;
use crate::model::*;

/// File-operation style trait methods that are boundaries (in a trait impl whose trait name
/// has `Operations`, `File` or `Misc` in it, or whose signature takes a `File`).
const FILE_OPS: &[&str] = &[
    "open",
    "ioctl",
    "compat_ioctl",
    "read",
    "write",
    "read_iter",
    "write_iter",
    "mmap",
    "llseek",
    "flush",
];

/// configfs's operation traits: their `#[vtable]` impls are called for read(2), write(2) and
/// mkdir(2) in configfs.
const CONFIGFS_OPS: &[&str] = &["AttributeOperations", "GroupOperations"];

/// Traits whose `read`/`write` hand the error to the caller (std I/O): not boundaries.
const IO_TRAITS: &[&str] = &[
    "Read",
    "Write",
    "BufRead",
    "Seek",
    "AsyncRead",
    "AsyncWrite",
    "AsyncBufRead",
    "AsyncSeek",
];

impl Walker<'_, '_> {
    pub(super) fn boundary_of(&self, name: &str, sig: &syn::Signature, in_impl: bool) -> Option<Boundary> {
        let (owner, trait_name) = match self.impls.last() {
            Some(i) if in_impl => (i.owner.as_deref(), i.trait_name.as_deref()),
            _ => (None, None),
        };
        if self.config.is_boundary(name, owner, trait_name) {
            return Some(Boundary::Config);
        }
        // Only a real foreign ABI hands errors to non-Rust code: `#[export_name]` or
        // `#[no_mangle]` on a Rust-ABI function only names its symbol (Rust binder does it so
        // that `ps` shows a readable wchan), and its callers are Rust.
        if has_c_abi(sig) {
            return Some(Boundary::Exported);
        }
        if !in_impl && name == "main" {
            return Some(Boundary::Main);
        }
        if let Some(t) = trait_name {
            if name == "init" && (t == "Module" || t == "InPlaceModule") {
                return Some(Boundary::ModuleInit);
            }
            if name == "probe" {
                return Some(Boundary::Probe);
            }
            let file_like = t.contains("Operations")
                || t.contains("File")
                || t.contains("Misc")
                || sig_mentions_file(sig);
            if FILE_OPS.contains(&name) && !IO_TRAITS.contains(&t) && file_like {
                return Some(Boundary::FileOp);
            }
            // `impl phy::Driver for …`, `impl cpufreq::Driver for …`: every callback of a
            // kernel driver trait is called by C through the subsystem's adapter, except those
            // whose failure the subsystem prints itself.
            if t == "Driver" && returns_result(sig) && !crate::model::SUBSYSTEM_PRINTS.contains(&name) {
                return Some(Boundary::DriverCallback);
            }
            // configfs: a `#[vtable] impl` of its attribute or group operations is what
            // `configfs_attrs!`/`Subsystem::new` register; C calls `show`/`store` for read(2)
            // and write(2) of the attribute's file, `make_group` for mkdir(2).
            let vtable = self.impls.last().is_some_and(|i| i.vtable);
            if vtable && CONFIGFS_OPS.contains(&t) && returns_result(sig) {
                return Some(Boundary::ConfigfsOp);
            }
        }
        None
    }
}
