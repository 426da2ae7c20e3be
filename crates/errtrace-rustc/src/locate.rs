//! A span as the audit's position: an absolute path, a 1-based line and a 1-based column in
//! characters.

use std::path::{Path, PathBuf};

use errtrace_facts::Loc;
use rustc_middle::ty::TyCtxt;
use rustc_span::{FileName, Span};

/// Where `span` starts, when its file is a real one (not a macro's own text, not
/// `<anon>`).
pub(crate) fn loc(tcx: TyCtxt<'_>, span: Span) -> Option<Loc> {
    let pos = tcx.sess.source_map().lookup_char_pos(span.lo());
    let FileName::Real(real) = &pos.file.name else {
        return None;
    };
    let path = absolute(real.local_path_if_available());
    Some(Loc {
        file: path.to_string_lossy().into_owned(),
        line: u32::try_from(pos.line).unwrap_or(u32::MAX),
        column: u32::try_from(pos.col.0.saturating_add(1)).unwrap_or(u32::MAX),
    })
}

/// A path the compiler was given relative to its working directory, made absolute (without
/// touching the file system beyond the working directory: the reader canonicalises).
fn absolute(p: &Path) -> PathBuf {
    std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf())
}
