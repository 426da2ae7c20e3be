//! With `std`: the text of the foreign error an [`Error`](crate::Error) was converted from
//! (`invalid digit found in string`), kept on the heap beside its recorder slot while the error
//! lives.
//!
//! The slot's owner writes the text and reads it through the error, and frees it when the error
//! ends (before it releases the slot). Nobody else touches it, so it needs no protocol beyond
//! the slot's ownership. The text is stamped with its event's tag: a text left behind by an
//! error that was leaked (never released) is ignored by the slot's later events and freed by
//! the next one that keeps a text.

use crate::sync::{AtomicPtr, AtomicU32, AtomicUsize, Ordering};

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
    /// The tag of the event the text belongs to.
    tag: AtomicU32,
}

impl DetailCell {
    pub(crate) const fn new() -> DetailCell {
        DetailCell {
            ptr: AtomicPtr::new(core::ptr::null_mut()),
            len: AtomicUsize::new(0),
            tag: AtomicU32::new(0),
        }
    }

    /// Keeps a copy of `text` (cut to [`DETAIL_MAX`] bytes) for event `tag`; the slot's owner
    /// only. An allocation failure keeps nothing (never a panic or an abort).
    pub(crate) fn set(&self, tag: u32, text: &str) {
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
        self.tag.store(tag, Ordering::Relaxed);
        self.ptr.store(ptr, Ordering::Relaxed);
    }

    /// The text; the slot's owner only, and the text lives as long as its error.
    ///
    /// # Safety
    ///
    /// The caller owns the slot for as long as it holds the result (its error is alive, so no
    /// claimer frees the text) and does not call [`set`](DetailCell::set) meanwhile.
    pub(crate) unsafe fn get(&self, tag: u32) -> Option<&str> {
        let ptr = self.ptr.load(Ordering::Relaxed);
        if ptr.is_null() || self.tag.load(Ordering::Relaxed) != tag {
            return None;
        }
        let len = self.len.load(Ordering::Relaxed);
        // SAFETY: by the type invariant `ptr` holds `len` bytes of UTF-8 owned by this cell, and
        // by this function's contract they are not freed or rewritten while the result is held.
        Some(unsafe { core::str::from_utf8_unchecked(core::slice::from_raw_parts(ptr, len)) })
    }

    /// Frees the text (whichever event it belongs to); the slot's owner only.
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
        assert_eq!(unsafe { c.get(1) }, None);
        c.set(1, "invalid digit found in string");
        // SAFETY: as above.
        assert_eq!(unsafe { c.get(1) }, Some("invalid digit found in string"));
        // SAFETY: as above.
        assert_eq!(
            unsafe { c.get(2) },
            None,
            "another event's text is not ours"
        );
        c.set(2, "é".repeat(200).as_str());
        // SAFETY: as above.
        let cut = unsafe { c.get(2) }.unwrap();
        assert!(cut.len() <= DETAIL_MAX && cut.chars().all(|ch| ch == 'é'));
        c.free();
        // SAFETY: as above.
        assert_eq!(unsafe { c.get(2) }, None);
        c.free();
    }
}
