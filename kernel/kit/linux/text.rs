// SPDX-License-Identifier: GPL-2.0
//! `core::fmt::Write` into fixed buffers: [`SliceWriter`] (a byte buffer, truncated with a
//! marker) and [`Counter`] (only counts), for text made without allocating (a deferral reason,
//! a debugfs file's contents).

use core::fmt::{self, Write};

/// `core::fmt::Write` into a byte buffer; output past the end is dropped and remembered.
pub struct SliceWriter<'a> {
    buf: &'a mut [u8],
    len: usize,
    truncated: bool,
}

/// Room kept at the end of a buffer for the truncation marker.
const MARK: &str = "... (truncated)\n";

impl<'a> SliceWriter<'a> {
    /// A writer that fills `buf` from its start.
    pub fn new(buf: &'a mut [u8]) -> SliceWriter<'a> {
        SliceWriter {
            buf,
            len: 0,
            truncated: false,
        }
    }

    /// Bytes still free (not counting the marker's room).
    pub fn room(&self) -> usize {
        self.buf
            .len()
            .saturating_sub(MARK.len())
            .saturating_sub(self.len)
    }

    /// Ends the output (with the marker if something was dropped); returns its length.
    pub fn finish(mut self) -> usize {
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
pub struct Counter(pub usize);

impl Write for Counter {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0 = self.0.saturating_add(s.len());
        Ok(())
    }
}
