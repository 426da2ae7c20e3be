//! Errors the recorder had no slot for: an identity for each, and the mark that says one was
//! reported. Storage layer.
//!
//! A recorded error is marked reported in its recorder slot (its report was printed through a
//! `&Error`, which cannot change the error's own bits). An unrecorded error has no slot, so it
//! gets a number of its own when it is made and, once reported, that number is kept in a small
//! lock-free table until the error ends. "Reported" then means the same for every error: a
//! boundary does not print it again and dropping it does not warn.
//!
//! The table holds [`MARKS`] numbers: that many unrecorded errors can be reported and still
//! alive at once (which needs every recorder slot to hold a live error as well). Past that, a
//! further mark is not kept and that error may be printed once more at a boundary or warn
//! when dropped; nothing is lost.

use crate::sync::{AtomicU32, Ordering};

/// How many reported unrecorded errors can be alive at once.
pub(crate) const MARKS: usize = 16;

/// Numbers given to unrecorded errors, never 0.
pub(crate) struct Marks {
    next: AtomicU32,
    /// 0: free; otherwise the number of a reported, live, unrecorded error.
    reported: [AtomicU32; MARKS],
}

impl Marks {
    #[cfg(not(loom))]
    pub(crate) const fn new() -> Marks {
        Marks {
            next: AtomicU32::new(1),
            reported: [const { AtomicU32::new(0) }; MARKS],
        }
    }

    #[cfg(loom)]
    pub(crate) fn new() -> Marks {
        Marks {
            next: AtomicU32::new(1),
            reported: core::array::from_fn(|_| AtomicU32::new(0)),
        }
    }

    /// A number for a new unrecorded error (wraps after 2³² − 1, skipping 0).
    pub(crate) fn next_id(&self) -> u32 {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        if n == 0 {
            self.next.fetch_add(1, Ordering::Relaxed)
        } else {
            n
        }
    }

    /// Marks the unrecorded error `id` as reported; false when the table is full.
    pub(crate) fn mark(&self, id: u32) -> bool {
        if id == 0 || self.is_marked(id) {
            return id != 0;
        }
        self.reported.iter().any(|m| {
            m.compare_exchange(0, id, Ordering::Release, Ordering::Relaxed)
                .is_ok()
        })
    }

    /// Whether the unrecorded error `id` was marked reported.
    pub(crate) fn is_marked(&self, id: u32) -> bool {
        id != 0
            && self
                .reported
                .iter()
                .any(|m| m.load(Ordering::Acquire) == id)
    }

    /// The error `id` ended: its mark, if any, is freed.
    pub(crate) fn clear(&self, id: u32) {
        if id == 0 {
            return;
        }
        for m in &self.reported {
            let _ = m.compare_exchange(id, 0, Ordering::Relaxed, Ordering::Relaxed);
        }
    }
}

/// The marks of this program's unrecorded errors.
#[cfg(not(loom))]
pub(crate) static MARKS_OF_UNRECORDED: Marks = Marks::new();

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn mark_is_kept_until_cleared_and_the_table_is_bounded() {
        let m = Marks::new();
        let ids: [u32; MARKS + 1] = core::array::from_fn(|_| m.next_id());
        for id in &ids[..MARKS] {
            assert!(m.mark(*id));
            assert!(m.mark(*id), "marking twice keeps one entry");
        }
        assert!(!m.mark(ids[MARKS]), "a full table says so");
        assert!(m.is_marked(ids[0]) && !m.is_marked(ids[MARKS]));
        m.clear(ids[0]);
        assert!(!m.is_marked(ids[0]));
        assert!(m.mark(ids[MARKS]), "a cleared entry is reused");
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::Arc;
    use loom::thread;

    /// Two threads marking two errors at once take two entries; a mark made before a join is
    /// seen after it, and clearing one leaves the other.
    #[test]
    fn concurrent_marks_take_distinct_entries() {
        loom::model(|| {
            let m = Arc::new(Marks::new());
            let (a, b) = (m.next_id(), m.next_id());
            let m2 = m.clone();
            let t = thread::spawn(move || assert!(m2.mark(b)));
            assert!(m.mark(a));
            t.join().unwrap();
            assert!(m.is_marked(a) && m.is_marked(b));
            m.clear(a);
            assert!(!m.is_marked(a) && m.is_marked(b));
        });
    }
}
