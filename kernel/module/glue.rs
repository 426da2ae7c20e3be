// SPDX-License-Identifier: GPL-2.0
//! The kernel glue: what a module adds to use errtrace (the core itself is kernel-agnostic).
//!
//! - [`install`]: a sink over printk, the kernel's monotonic clock, the CPU id, the tracepoints;
//! - conversions between `kernel::error::Error` and errtrace: [`KernelResultExt::errtrace`]
//!   and [`from_kernel`] (kernel → errtrace, with the origin at the caller), [`to_kernel`]
//!   (an errtrace code → kernel, after `errtrace::boundary` where errors leave the module);
//! - device context ([`crate::devctx`]): the sink prints on the device of the task's scope;
//! - [`SliceWriter`]: `core::fmt::Write` into a byte buffer, for debugfs files.

use core::fmt::{self, Write};
use core::panic::Location;
use core::sync::atomic::{AtomicU32, Ordering::Relaxed};
use errtrace::code::Code;
use errtrace::sink::{Level, Record, Sink};
use kernel::prelude::*;

extern "C" {
    fn errtrace_demo_cpu_id() -> u32;
    fn errtrace_demo_clock_ns() -> u64;
    fn errtrace_demo_printk_debug(text: *const u8, len: usize);
    fn errtrace_demo_ddebug_word(line: u32, flags: u32) -> u32;
    fn errtrace_demo_defer() -> bool;
    fn errtrace_demo_defer_sync();
}

/// Checks errtrace's dynamic_debug descriptor word against the C compiler's `struct _ddebug`
/// bit-fields (`lineno:18`, `class_id:6`, `flags:8`); demo_ctl.c checks the size and offsets.
/// A mismatch would let the kernel's flags land in the wrong bits: the module refuses to load.
pub(crate) fn check_dyndbg_layout() -> Result {
    for (line, flags) in [(1, 0), (59, 1), ((1 << 18) - 1, 0xFF), (12345, 0x25)] {
        // SAFETY: a pure C function of two integers.
        let c = unsafe { errtrace_demo_ddebug_word(line, flags) };
        let rust = errtrace::__private::DynDebug::word(line, flags);
        if c != rust {
            pr_err!(
                "struct _ddebug word for line {} flags {:#x}: C {:#010x}, errtrace {:#010x}\n",
                line,
                flags,
                c,
                rust
            );
            return Err(EINVAL);
        }
    }
    Ok(())
}

/// Installs the shard hooks, the sink, the clock, the CPU-id hook, the context of
/// `errtrace::expecting` scopes (the current task in task context, none in interrupts) and the
/// defer hook (no standing-query parsing in NMI: `defer.c`). Call first in `init`; call
/// [`uninstall`] last in the module's `Drop`.
pub(crate) fn install() {
    // Each hook can be set once per load of the module; a second call keeps the first.
    crate::shard::install();
    let _ = errtrace::sink::set_sink(&PRINTK);
    let _ = errtrace::platform::set_clock(ktime_ns);
    let _ = errtrace::platform::set_cpu_id(cpu_id);
    let _ = errtrace::platform::set_context(task_context);
    let _ = errtrace::platform::set_defer(defer);
    crate::tracepoints::install();
}

/// Waits for deferred work queued by [`install`]'s defer hook: after it nothing of the module
/// runs from an `irq_work`. Call when nothing makes errors any more (the NMI handler is gone).
pub(crate) fn uninstall() {
    // SAFETY: `irq_work_sync()` on the module's own static irq_work, from process context.
    unsafe { errtrace_demo_defer_sync() };
}

/// Times [`defer`] said "later", and runs of the irq_work it queued.
static DEFERRED: AtomicU32 = AtomicU32::new(0);
static APPLIED_LATER: AtomicU32 = AtomicU32::new(0);

/// In NMI: queues the application of the standing queries (an irq_work) and says "later".
fn defer() -> bool {
    // SAFETY: `in_nmi()` and `irq_work_queue()` (NMI-safe) on the module's own irq_work.
    let later = unsafe { errtrace_demo_defer() };
    if later {
        DEFERRED.fetch_add(1, Relaxed);
    }
    later
}

/// The irq_work queued by [`defer`], once the NMI is over.
#[no_mangle]
extern "C" fn errtrace_demo_apply_deferred() {
    errtrace::control::apply_deferred();
    APPLIED_LATER.fetch_add(1, Relaxed);
}

/// How many times errtrace left its standing queries for later (in NMI), and how many runs of
/// the irq_work applied them.
pub(crate) fn deferred_counts() -> (u32, u32) {
    (DEFERRED.load(Relaxed), APPLIED_LATER.load(Relaxed))
}

/// `ktime_get_mono_fast_ns()`: NMI-safe (no seqlock retry loop), monotonic, enough for rate
/// limits.
fn ktime_ns() -> u64 {
    // SAFETY: plain C helper around ktime_get_mono_fast_ns(), callable from any context.
    unsafe { errtrace_demo_clock_ns() }
}

/// The current task (`current`) in task context, 0 in interrupts: an interrupt does not take
/// the interrupted task's expectations.
fn task_context() -> usize {
    crate::devctx::task() as usize
}

fn cpu_id() -> u32 {
    // SAFETY: plain C helper around raw_smp_processor_id().
    unsafe { errtrace_demo_cpu_id() }
}

/// An errtrace sink over printk: each line of a record with its level (`pr_err!`,
/// `pr_warn!`, `pr_info!`, and `KERN_DEBUG` through C since `pr_debug!` is compiled out
/// without `CONFIG_RUST_DEBUG_ASSERTIONS`).
struct Printk;

static PRINTK: Printk = Printk;

impl Sink for Printk {
    fn emit(&self, record: &Record<'_>) {
        let mut out = Lines::new(record.level, crate::devctx::current());
        let _ = write!(out, "{}", record);
        out.flush();
    }
}

/// Longest line printed at once; a longer one continues on the next line.
const LINE: usize = 240;

/// Formats into a fixed stack buffer and prints it line by line (no allocation, any context);
/// on the device of this task's device scope if it is in one (`dev_err!`-style lines).
struct Lines {
    level: Level,
    dev: Option<*mut kernel::ffi::c_void>,
    buf: [u8; LINE],
    len: usize,
}

impl Lines {
    fn new(level: Level, dev: Option<*mut kernel::ffi::c_void>) -> Lines {
        Lines {
            level,
            dev,
            buf: [0; LINE],
            len: 0,
        }
    }

    fn flush(&mut self) {
        if self.len == 0 {
            return;
        }
        let bytes = self.buf.get(..self.len).unwrap_or(&[]);
        // Whole characters only are pushed, so this is valid UTF-8.
        let line = core::str::from_utf8(bytes).unwrap_or("<not UTF-8>");
        if let Some(dev) = self.dev {
            let level = match self.level {
                Level::Error => 3,
                Level::Warning => 4,
                Level::Info => 6,
                Level::Debug => 7,
            };
            // SAFETY: `dev` came from this task's device scope, which outlives this record.
            unsafe { crate::devctx::dev_printk(dev, level, line) };
            self.len = 0;
            return;
        }
        match self.level {
            Level::Error => pr_err!("{}\n", line),
            Level::Warning => pr_warn!("{}\n", line),
            Level::Info => pr_info!("{}\n", line),
            // SAFETY: `line` is valid for `line.len()` bytes.
            Level::Debug => unsafe { errtrace_demo_printk_debug(line.as_ptr(), line.len()) },
        }
        self.len = 0;
    }
}

impl Write for Lines {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for c in s.chars() {
            if c == '\n' {
                self.flush();
                continue;
            }
            let mut tmp = [0u8; 4];
            let bytes = c.encode_utf8(&mut tmp).as_bytes();
            if self.len + bytes.len() > LINE {
                self.flush();
            }
            if let Some(dst) = self.buf.get_mut(self.len..self.len + bytes.len()) {
                dst.copy_from_slice(bytes);
                self.len += bytes.len();
            }
        }
        Ok(())
    }
}

// ---- conversions ----

/// `kernel::error::Error` → `errtrace::Error`, with the origin at the caller.
#[track_caller]
pub(crate) fn from_kernel(e: Error) -> errtrace::Error {
    let code = Code::from_errno(e.to_errno()).unwrap_or(errtrace::code::EINVAL);
    errtrace::Error::at_location(code, Location::caller())
}

/// `errtrace::code::Code` → `kernel::error::Error` (the same errno).
pub(crate) fn to_kernel(code: Code) -> Error {
    Error::from_errno(code.to_errno())
}

/// Kernel results into errtrace results.
pub(crate) trait KernelResultExt<T> {
    /// The kernel error as an `errtrace::Error` whose origin is this call.
    #[track_caller]
    fn errtrace(self) -> errtrace::Result<T>;
}

impl<T> KernelResultExt<T> for Result<T> {
    #[track_caller]
    fn errtrace(self) -> errtrace::Result<T> {
        match self {
            Ok(v) => Ok(v),
            Err(e) => Err(from_kernel(e)),
        }
    }
}

// ---- debugfs output ----

/// `core::fmt::Write` into a byte buffer; output past the end is dropped and remembered.
pub(crate) struct SliceWriter<'a> {
    buf: &'a mut [u8],
    len: usize,
    truncated: bool,
}

/// Room kept at the end of a buffer for the truncation marker.
const MARK: &str = "... (truncated)\n";

impl<'a> SliceWriter<'a> {
    pub(crate) fn new(buf: &'a mut [u8]) -> SliceWriter<'a> {
        SliceWriter {
            buf,
            len: 0,
            truncated: false,
        }
    }

    /// Bytes still free (not counting the marker's room).
    pub(crate) fn room(&self) -> usize {
        self.buf
            .len()
            .saturating_sub(MARK.len())
            .saturating_sub(self.len)
    }

    /// Ends the output (with the marker if something was dropped); returns its length.
    pub(crate) fn finish(mut self) -> usize {
        if self.truncated {
            if let Some(dst) = self.buf.get_mut(self.len..self.len + MARK.len()) {
                dst.copy_from_slice(MARK.as_bytes());
                self.len += MARK.len();
            }
        }
        self.len
    }
}

impl Write for SliceWriter<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if self.truncated || s.len() > self.room() {
            self.truncated = true;
            return Ok(());
        }
        if let Some(dst) = self.buf.get_mut(self.len..self.len + s.len()) {
            dst.copy_from_slice(s.as_bytes());
            self.len += s.len();
        }
        Ok(())
    }
}

/// Counts the bytes written.
#[derive(Default)]
pub(crate) struct Counter(pub(crate) usize);

impl Write for Counter {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0 = self.0.saturating_add(s.len());
        Ok(())
    }
}
