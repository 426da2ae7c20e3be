//! The facts that `errtrace-rustc` writes while it compiles a crate, and that `cargo errtrace
//! audit --facts DIR` reads: every call in the crate's function bodies, and the function or
//! functions it resolves to, as the compiler resolved them (names a macro made, methods chosen
//! by type, trait calls by their impls).
//!
//! One crate owns this grammar so that the writer (built with the kernel's compiler, against
//! `rustc_private`) and the reader (the audit) cannot disagree on it. A facts directory holds
//! one JSON file per compiled crate, `<crate name>.json`, each a [`CrateFacts`].
//!
//! Positions are 1-based lines and 1-based columns counted in characters, as the audit's own
//! positions are; paths are absolute, as the compiler resolved them from its working directory.
#![warn(missing_docs)]

use serde::{Deserialize, Serialize};

/// The version of this format. A reader refuses files of another version.
pub const FORMAT: u32 = 1;

/// What the compiler found in one crate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CrateFacts {
    /// [`FORMAT`] when written.
    pub format: u32,
    /// The crate's name (`nova_core`).
    pub krate: String,
    /// The crate's root file, absolute.
    pub root: String,
    /// The compiler's working directory (a kernel build's tree): a reader can match these
    /// paths relative to it against a copy of the tree.
    pub workdir: String,
    /// Every call in the crate's bodies, in source order per body.
    pub calls: Vec<Call>,
}

/// A position in a source file.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Loc {
    /// Absolute path.
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
}

/// How a call chooses its function.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Dispatch {
    /// A free function, an inherent method or a constructor: one function.
    Static,
    /// A trait method that the types at the call select: one implementation.
    Resolved,
    /// A trait method called through `dyn Trait`: any implementation in the compiled crates.
    Dynamic,
    /// A trait method on a generic parameter: any implementation in the compiled crates.
    Generic,
}

/// One call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Call {
    /// The function whose body holds the call (the enclosing function for a closure).
    pub caller: Loc,
    /// The called name as written (the method name, or the last path segment); for a call a
    /// macro made, the position is the macro's call in the source.
    pub at: Loc,
    /// The called name.
    pub name: String,
    /// The call comes from a macro expansion (`at` is where the macro is called).
    pub in_macro: bool,
    /// How the function is chosen.
    pub dispatch: Dispatch,
    /// For a trait method, the trait's name: a reader that knows crates this one cannot see
    /// (the drivers that implement a trait of the kernel crate) adds their implementations
    /// to those of a [`Dispatch::Dynamic`] or [`Dispatch::Generic`] call.
    pub via_trait: Option<String>,
    /// The function or functions it can run (for [`Dispatch::Dynamic`] and
    /// [`Dispatch::Generic`], every implementation in a crate of the build, and the trait's
    /// default when an implementation does not override it).
    pub targets: Vec<Target>,
}

/// A function a call can run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Target {
    /// Its path as the compiler prints it (`nova_core::gpu::Gpu::new`,
    /// `<nova_core::fb::hal::ga100::Ga100 as nova_core::fb::hal::FbHal>::read_sysmem_flush_page`).
    pub path: String,
    /// The type its `impl` is for (its last path segment: `Gsp` for `impl Falcon for Gsp`),
    /// or the trait for a trait's default method; `None` for a free function or a type
    /// that has no name (`impl Trait for &[u8]`).
    pub owner: Option<String>,
    /// Where its name is written; `None` when its crate's sources are not known (`core`).
    pub at: Option<Loc>,
    /// When a macro made it: where that macro is called.
    pub made_by_macro: Option<Loc>,
}
