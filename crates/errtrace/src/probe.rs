//! Attachable probes: SystemTap SDT probes a tracer can attach to at runtime.
//!
//! With the `sdt` feature (Linux user space), two USDT probes fire:
//!
//! - `errtrace:error` at every error creation, with arguments
//!   `(code: u16, site: u32, seq: u32, file: *const u8, line: u32)`;
//! - `errtrace:hop` at every recorded hop, with `(code: u16, site: u32, seq: u32,
//!   file: *const u8, line: u32)` of the hop's location.
//!
//! With no tracer attached each probe is a single `nop` (behind one call: both probes live in one
//! function that is never inlined, so each has exactly one note in a linked function). `file` points to the file name's
//! bytes, which are not NUL-terminated in Rust: read them with the length you know or up to
//! `.rs`. For example, with bpftrace:
//!
//! ```text
//! bpftrace -e 'usdt:./target/debug/examples/driver:errtrace:error {
//!     printf("errno %d site %d at %s:%d\n", arg0, arg1, str(arg3, 64), arg4); }'
//! ```
//!
//! or with gdb: `break -probe-stap errtrace:error`, then `print $_probe_arg0`.
//! Without the feature the functions below compile to nothing.

use crate::code::Code;
use crate::site::SiteRef;
use core::panic::Location;

#[cfg(all(feature = "sdt", not(loom)))]
#[inline(always)]
pub(crate) fn error(code: Code, site: SiteRef, id: u32, seq: u32) {
    let o = site.origin();
    fire(false, code.get(), id, seq, o.file.as_ptr(), o.line);
}

#[cfg(not(all(feature = "sdt", not(loom))))]
#[inline(always)]
pub(crate) fn error(_code: Code, _site: SiteRef, _id: u32, _seq: u32) {}

#[cfg(all(feature = "sdt", not(loom)))]
#[inline(always)]
pub(crate) fn hop(code: Code, site: u32, seq: u32, at: &'static Location<'static>) {
    fire(true, code.get(), site, seq, at.file().as_ptr(), at.line());
}

#[cfg(not(all(feature = "sdt", not(loom))))]
#[inline(always)]
pub(crate) fn hop(_code: Code, _site: u32, _seq: u32, _at: &'static Location<'static>) {}

/// Both probes, in one function that is never inlined: each probe has exactly one note, in
/// code that every program making an error links. (A probe inlined into a function the linker
/// then discards leaves its note behind with an address of nothing; a tracer attaching there
/// writes its breakpoint at a bogus address.)
#[cfg(all(feature = "sdt", not(loom)))]
#[inline(never)]
fn fire(hop: bool, code: u16, site: u32, seq: u32, file: *const u8, line: u32) {
    if hop {
        probe::probe!(errtrace, hop, code, site, seq, file, line);
    } else {
        probe::probe!(errtrace, error, code, site, seq, file, line);
    }
}
