//! With `std`: the text of the foreign error an [`Error`](crate::Error) was converted from
//! (`invalid digit found in string`), kept on the heap beside its recorder slot while the error
//! lives.
//!
//! The slot's owner writes the text right after it claims the slot and reads it through the
//! error; the next claimer of the slot frees it. Nobody else touches it, so it needs no
//! protocol beyond the slot's ownership.

use core::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

/// The most bytes of text kept (longer texts are cut at a character boundary).
pub(crate) const DETAIL_MAX: usize = 256;

/// A heap text owned by one recorder slot.
///
/// # Invariants
///
/// `ptr` is null, or points to an allocation of `len` bytes (layout `[u8; len]`, `len > 0`)
/// made by [`DetailCell::set`] holding UTF-8, owned by this cell until [`DetailCell::free`].
pub(crate) struct DetailCell {
    ptr: AtomicPtr<u8>,
    len: AtomicUsize,
}

impl DetailCell {
    pub(crate) const fn new() -> DetailCell {
        DetailCell {
            ptr: AtomicPtr::new(core::ptr::null_mut()),
            len: AtomicUsize::new(0),
        }
    }

    /// Keeps a copy of `text` (cut to [`DETAIL_MAX`] bytes); the slot's owner only. An
    /// allocation failure keeps nothing (never a panic or an abort).
    pub(crate) fn set(&self, text: &str) {
        self.free();
        let text = cut(text);
        if text.is_empty() {
            return;
        }
        let Ok(layout) = std::alloc::Layout::array::<u8>(text.len()) else {
            return;
        };
        // SAFETY: `layout` has a non-zero size (the text is not empty).
        let ptr = unsafe { std::alloc::alloc(layout) };
        if ptr.is_null() {
            return;
        }
        // SAFETY: `ptr` is a fresh allocation of `text.len()` bytes, which cannot overlap
        // `text`.
        unsafe { core::ptr::copy_nonoverlapping(text.as_ptr(), ptr, text.len()) };
        self.len.store(text.len(), Ordering::Relaxed);
        self.ptr.store(ptr, Ordering::Relaxed);
    }

    /// The text; the slot's owner only, and the text lives as long as its error.
    ///
    /// # Safety
    ///
    /// The caller owns the slot for as long as it holds the result (its error is alive, so no
    /// claimer frees the text) and does not call [`set`](DetailCell::set) meanwhile.
    pub(crate) unsafe fn get(&self) -> Option<&str> {
        let ptr = self.ptr.load(Ordering::Relaxed);
        if ptr.is_null() {
            return None;
        }
        let len = self.len.load(Ordering::Relaxed);
        // SAFETY: by the type invariant `ptr` holds `len` bytes of UTF-8 owned by this cell, and
        // by this function's contract they are not freed or rewritten while the result is held.
        Some(unsafe { core::str::from_utf8_unchecked(core::slice::from_raw_parts(ptr, len)) })
    }

    /// Frees the text; the slot's owner (or its claimer, which owns it exclusively) only.
    #[inline]
    pub(crate) fn free(&self) {
        let ptr = self.ptr.swap(core::ptr::null_mut(), Ordering::Relaxed);
        if ptr.is_null() {
            return;
        }
        let len = self.len.load(Ordering::Relaxed);
        if let Ok(layout) = std::alloc::Layout::array::<u8>(len) {
            // SAFETY: by the type invariant `ptr` was allocated by `set` with this layout and is
            // owned by this cell; it was swapped out, so it is freed once.
            unsafe { std::alloc::dealloc(ptr, layout) };
        }
    }
}

/// `text` cut to at most [`DETAIL_MAX`] bytes, at a character boundary.
fn cut(text: &str) -> &str {
    if text.len() <= DETAIL_MAX {
        return text;
    }
    let mut end = DETAIL_MAX;
    while end > 0 && !text.is_char_boundary(end) {
        end = end.wrapping_sub(1);
    }
    text.get(..end).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_get_free() {
        let c = DetailCell::new();
        // SAFETY: this test owns the cell.
        assert_eq!(unsafe { c.get() }, None);
        c.set("invalid digit found in string");
        // SAFETY: as above.
        assert_eq!(unsafe { c.get() }, Some("invalid digit found in string"));
        c.set("é".repeat(200).as_str());
        // SAFETY: as above.
        let cut = unsafe { c.get() }.unwrap();
        assert!(cut.len() <= DETAIL_MAX && cut.chars().all(|ch| ch == 'é'));
        c.free();
        // SAFETY: as above.
        assert_eq!(unsafe { c.get() }, None);
        c.free();
    }
}
