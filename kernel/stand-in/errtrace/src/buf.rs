//! Fixed-size text buffers implementing `core::fmt::Write` (no allocation).

use core::fmt;

/// Truncating writer into a borrowed byte slice; keeps UTF-8 boundaries.
pub struct SliceBuf<'a> {
    buf: &'a mut [u8],
    len: usize,
    truncated: bool,
}

impl<'a> SliceBuf<'a> {
    /// Wraps `buf`, initially empty.
    pub fn new(buf: &'a mut [u8]) -> Self {
        SliceBuf { buf, len: 0, truncated: false }
    }

    /// Bytes written so far.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when nothing was written.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// True when some output did not fit.
    pub fn truncated(&self) -> bool {
        self.truncated
    }

    /// The text written so far.
    pub fn as_str(&self) -> &str {
        // SAFETY: only whole UTF-8 sequences are ever copied in (see write_str).
        unsafe { core::str::from_utf8_unchecked(&self.buf[..self.len]) }
    }
}

impl fmt::Write for SliceBuf<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let room = self.buf.len() - self.len;
        let mut n = s.len().min(room);
        while !s.is_char_boundary(n) {
            n -= 1;
        }
        self.buf[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        if n < s.len() {
            self.truncated = true;
        }
        Ok(())
    }
}

/// An owned fixed-capacity text buffer.
pub struct FixedBuf<const N: usize> {
    buf: [u8; N],
    len: usize,
}

impl<const N: usize> FixedBuf<N> {
    /// An empty buffer (usable in a `static`).
    pub const fn new() -> Self {
        FixedBuf { buf: [0; N], len: 0 }
    }

    /// Empties the buffer.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// The text written so far.
    pub fn as_str(&self) -> &str {
        // SAFETY: only whole UTF-8 sequences are ever copied in (see write_str).
        unsafe { core::str::from_utf8_unchecked(&self.buf[..self.len]) }
    }
}

impl<const N: usize> Default for FixedBuf<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> fmt::Write for FixedBuf<N> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let mut w = SliceBuf { buf: &mut self.buf[..], len: self.len, truncated: false };
        w.write_str(s)?;
        self.len = w.len;
        Ok(())
    }
}
