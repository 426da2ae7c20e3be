//! The only `unsafe` code in errtrace: atomic cells holding `'static` references.
//!
//! The flight recorder and the site table are written by many threads at once without locks, so
//! the references they hold (`&'static Location`, `&'static Site`, `&'static str`) live in atomics.
//! Turning the stored pointer back into a reference is the `unsafe` step; it is sound because only
//! `'static` references are ever stored (nothing is ever freed), which the types here enforce.
//!
//! These cells are exercised under valgrind's memcheck by the CI (see `.ci/run`).

use crate::sync::{AtomicPtr, AtomicU8, AtomicUsize, Ordering};
use core::cell::UnsafeCell;
use core::mem::MaybeUninit;

/// An atomic `Option<&'static T>`.
///
/// # Invariants
///
/// `ptr` is null or was obtained from a `&'static T`.
pub(crate) struct AtomicRef<T: 'static> {
    ptr: AtomicPtr<T>,
}

impl<T: 'static> AtomicRef<T> {
    #[cfg(not(loom))]
    pub(crate) const fn none() -> Self {
        AtomicRef {
            ptr: AtomicPtr::new(core::ptr::null_mut()),
        }
    }

    #[cfg(loom)]
    pub(crate) fn none() -> Self {
        AtomicRef {
            ptr: AtomicPtr::new(core::ptr::null_mut()),
        }
    }

    #[inline]
    pub(crate) fn store(&self, value: Option<&'static T>, order: Ordering) {
        let p = match value {
            Some(r) => r as *const T as *mut T,
            None => core::ptr::null_mut(),
        };
        self.ptr.store(p, order);
    }

    #[inline]
    pub(crate) fn load(&self, order: Ordering) -> Option<&'static T> {
        let p = self.ptr.load(order);
        // SAFETY: by the type invariant `p` is null or came from a `&'static T`; the referent is
        // never freed or mutated through this pointer, so it is valid for `'static` reads.
        unsafe { p.as_ref() }
    }
}

/// An atomic `Option<&'static str>` stored as two words.
///
/// The two words can tear when a writer and a reader race, so reading is split: [`load`] returns
/// the raw halves and [`RawStr::get`] turns them into a `&str` only after the caller has checked,
/// with its own sequence protocol, that no write overlapped the read.
///
/// # Invariants
///
/// Each completed [`store`] writes both halves of one `&'static str` (or null and 0).
///
/// [`load`]: AtomicStr::load
/// [`store`]: AtomicStr::store
pub(crate) struct AtomicStr {
    ptr: AtomicPtr<u8>,
    len: AtomicUsize,
}

/// The two halves of an [`AtomicStr`], read but not yet trusted.
#[derive(Clone, Copy)]
pub(crate) struct RawStr {
    ptr: *const u8,
    len: usize,
}

impl AtomicStr {
    #[cfg(not(loom))]
    pub(crate) const fn none() -> Self {
        AtomicStr {
            ptr: AtomicPtr::new(core::ptr::null_mut()),
            len: AtomicUsize::new(0),
        }
    }

    #[cfg(loom)]
    pub(crate) fn none() -> Self {
        AtomicStr {
            ptr: AtomicPtr::new(core::ptr::null_mut()),
            len: AtomicUsize::new(0),
        }
    }

    /// Stores both halves with `Relaxed` ordering: the caller publishes them with a later
    /// `Release` store of its own state word.
    #[inline]
    pub(crate) fn store(&self, value: Option<&'static str>) {
        match value {
            Some(s) => {
                self.len.store(s.len(), Ordering::Relaxed);
                self.ptr.store(s.as_ptr() as *mut u8, Ordering::Relaxed);
            }
            None => self.ptr.store(core::ptr::null_mut(), Ordering::Relaxed),
        }
    }

    #[inline]
    pub(crate) fn load(&self) -> RawStr {
        RawStr {
            ptr: self.ptr.load(Ordering::Relaxed),
            len: self.len.load(Ordering::Relaxed),
        }
    }
}

impl RawStr {
    /// Trusts the halves.
    ///
    /// `consistent` must be the caller's verdict that no store to the cell overlapped the
    /// [`AtomicStr::load`] that produced `self` (a seqlock re-check). When it is `false` this
    /// returns `None` and touches nothing.
    pub(crate) fn get(self, consistent: bool) -> Option<&'static str> {
        if !consistent || self.ptr.is_null() {
            return None;
        }
        // SAFETY: `consistent` says no store overlapped the load, so by the type invariant `ptr`
        // and `len` are the two halves of one `&'static str`: valid UTF-8, live forever.
        unsafe {
            let bytes = core::slice::from_raw_parts(self.ptr, self.len);
            Some(core::str::from_utf8_unchecked(bytes))
        }
    }
}

// SAFETY: `AtomicStr` only hands out `&'static str`, which is `Send + Sync`; its fields are atomics.
unsafe impl Sync for AtomicStr {}
// SAFETY: as above.
unsafe impl Send for AtomicStr {}

/// A value set at most once, then read by any thread without locks (the sink, the clock and the
/// CPU-id hook).
///
/// # Invariants
///
/// `value` is initialised exactly when `state` is `READY`, and is never written after that.
pub(crate) struct SetOnce<T: Copy> {
    state: AtomicU8,
    value: UnsafeCell<MaybeUninit<T>>,
}

const EMPTY: u8 = 0;
const WRITING: u8 = 1;
const READY: u8 = 2;

// SAFETY: the value is written once, by the thread that won the EMPTY→WRITING race, before the
// Release store of READY; readers read it only after an Acquire load of READY. `T: Send + Sync`
// makes sharing the copies across threads sound.
unsafe impl<T: Copy + Send + Sync> Sync for SetOnce<T> {}

impl<T: Copy> SetOnce<T> {
    #[cfg(not(loom))]
    pub(crate) const fn new() -> Self {
        SetOnce {
            state: AtomicU8::new(EMPTY),
            value: UnsafeCell::new(MaybeUninit::uninit()),
        }
    }

    #[cfg(loom)]
    pub(crate) fn new() -> Self {
        SetOnce {
            state: AtomicU8::new(EMPTY),
            value: UnsafeCell::new(MaybeUninit::uninit()),
        }
    }

    /// Sets the value; gives it back if a value was already set (or is being set).
    pub(crate) fn set(&self, value: T) -> Result<(), T> {
        if self
            .state
            .compare_exchange(EMPTY, WRITING, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            return Err(value);
        }
        // SAFETY: winning EMPTY→WRITING gives this thread exclusive access to `value`; readers
        // do not look at it until READY is published below.
        unsafe { (*self.value.get()).write(value) };
        self.state.store(READY, Ordering::Release);
        Ok(())
    }

    #[inline]
    pub(crate) fn get(&self) -> Option<T> {
        if self.state.load(Ordering::Acquire) != READY {
            return None;
        }
        // SAFETY: READY (Acquire) means the value was initialised and will never change.
        Some(unsafe { (*self.value.get()).assume_init() })
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    static TEXT: &str = "static text";

    #[test]
    fn atomic_ref_round_trip() {
        static X: u32 = 7;
        let r = AtomicRef::<u32>::none();
        assert!(r.load(Ordering::Acquire).is_none());
        r.store(Some(&X), Ordering::Release);
        assert_eq!(r.load(Ordering::Acquire), Some(&7));
        r.store(None, Ordering::Release);
        assert!(r.load(Ordering::Acquire).is_none());
    }

    #[test]
    fn atomic_str_round_trip() {
        let s = AtomicStr::none();
        assert_eq!(s.load().get(true), None);
        s.store(Some(TEXT));
        assert_eq!(s.load().get(true), Some("static text"));
        assert_eq!(s.load().get(false), None);
        s.store(None);
        assert_eq!(s.load().get(true), None);
    }

    #[test]
    fn set_once_sets_once() {
        let c = SetOnce::<u64>::new();
        assert_eq!(c.get(), None);
        assert_eq!(c.set(1), Ok(()));
        assert_eq!(c.set(2), Err(2));
        assert_eq!(c.get(), Some(1));
    }
}
