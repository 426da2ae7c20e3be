// SPDX-License-Identifier: GPL-2.0
//! errtrace's sink over printk: each line of a record at its level, with the module's name
//! (`sensor: …`, as `pr_err!` prints), or, inside a device scope ([`crate::device`]), on the
//! scope's device through `dev_printk` (`sensor pcspkr: …`, as `dev_err!` prints). Lines are
//! formatted into a stack buffer: no allocation, any context.

use core::fmt::{self, Write};
use errtrace::sink::{Level, Record, Sink};
use kernel::ffi::{c_int, c_void};

/// The sink [`crate::install`] installs.
pub(crate) struct Printk;

pub(crate) static PRINTK: Printk = Printk;

impl Sink for Printk {
    fn emit(&self, record: &Record<'_>) {
        let mut out = Lines::new(record.level, crate::device::current());
        let _ = write!(out, "{}", record);
        out.flush();
    }
}

/// Longest line printed at once; a longer one continues on the next line.
const LINE: usize = 240;

/// Formats into a fixed stack buffer and prints it line by line.
struct Lines {
    level: c_int,
    dev: Option<*mut c_void>,
    buf: [u8; LINE],
    len: usize,
}

impl Lines {
    fn new(level: Level, dev: Option<*mut c_void>) -> Lines {
        let level = match level {
            Level::Error => 3,
            Level::Warning => 4,
            Level::Info => 6,
            Level::Debug => 7,
        };
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
        match self.dev {
            // SAFETY: `dev` came from this task's device scope, which outlives this record.
            Some(dev) => unsafe { crate::device::dev_printk(dev, self.level, line) },
            None => crate::printk::print_line(self.level, line),
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
