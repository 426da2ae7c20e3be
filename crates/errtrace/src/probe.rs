//! Attachable probes: SystemTap SDT probes a tracer can attach to at runtime.
//!
//! With the `sdt` feature (Linux user space), two USDT probes fire:
//!
//! - `errtrace:error` at every error creation, with arguments
//!   `(code: u16, site: u32, seq: u32, file: *const u8, line: u32)`;
//! - `errtrace:hop` at every recorded hop, with `(code: u16, site: u32, seq: u32,
//!   file: *const u8, line: u32)` of the hop's location.
//!
//! With no tracer attached each probe is a single `nop`. `file` points to the file name's
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
    let (file, line) = (o.file.as_ptr(), o.line);
    probe::probe!(errtrace, error, code.get(), id, seq, file, line);
}

#[cfg(not(all(feature = "sdt", not(loom))))]
#[inline(always)]
pub(crate) fn error(_code: Code, _site: SiteRef, _id: u32, _seq: u32) {}

#[cfg(all(feature = "sdt", not(loom)))]
#[inline(always)]
pub(crate) fn hop(code: Code, site: u32, seq: u32, at: &'static Location<'static>) {
    probe::probe!(
        errtrace,
        hop,
        code.get(),
        site,
        seq,
        at.file().as_ptr(),
        at.line()
    );
}

#[cfg(not(all(feature = "sdt", not(loom))))]
#[inline(always)]
pub(crate) fn hop(_code: Code, _site: u32, _seq: u32, _at: &'static Location<'static>) {}
