//! A hop of a trail: the public [`Hop`], and the cells a slot keeps it in (its location word,
//! which also ends the trail, and its message's halves). The slot (`slot.rs`) decides when
//! they are written and checks every read of them.

use crate::sync::{AtomicPtr, AtomicUsize, Ordering};
use core::panic::Location;

/// One hop of a trail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hop {
    /// Where the error passed (the `?`, `.trace()` or `.during()`).
    pub location: &'static Location<'static>,
    /// The `.during()` message, if any.
    pub message: Option<&'static str>,
}

/// The message of the hop that `.log()`, `.not_expected()` and `.or_log()` record where they
/// print the error: the trail says where it was reported.
pub(crate) static LOGGED_HERE: &str = "logged here";

impl Hop {
    /// Whether this hop is where the error was printed (by `.log()`, `.log_with()`,
    /// `.not_expected()` or `.or_log()`); its message is then `"logged here"`.
    pub fn is_where_logged(&self) -> bool {
        self.message.is_some_and(|m| {
            core::ptr::eq(m.as_ptr(), LOGGED_HERE.as_ptr()) && m.len() == LOGGED_HERE.len()
        })
    }
}

impl core::fmt::Display for Hop {
    /// `src/sensor.rs:88:9 "reading chip id"`; where the error was printed,
    /// `src/main.rs:17:5 (logged here)`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let l = self.location;
        write!(f, "{l}")?;
        match self.message {
            Some(m) if self.is_where_logged() => write!(f, " ({m})")?,
            Some(m) => write!(f, " \"{m}\"")?,
            None => {}
        }
        Ok(())
    }
}

/// Bit 0 of a hop's location word: the hop has a message, in the cell of the same number.
const WITH_MESSAGE: usize = 1;
// A `Location` is aligned to at least 2 (it holds a `&str`), so bit 0 of its address is free.
const _: () = assert!(core::mem::align_of::<Location<'static>>() >= 2);

/// One hop's location: null (the end of the trail), or the address of a `&'static Location`
/// with [`WITH_MESSAGE`] in bit 0 when the hop has a message.
///
/// # Invariants
///
/// The pointer is null or, with bit 0 cleared, was obtained from a `&'static Location`.
pub(super) struct HopLoc {
    word: AtomicPtr<Location<'static>>,
}

impl HopLoc {
    crate::sync::loom_const_fn! {
        pub(super) fn new() -> HopLoc {
            HopLoc {
                word: AtomicPtr::new(core::ptr::null_mut()),
            }
        }
    }

    /// Ends the trail here.
    #[inline(always)]
    pub(super) fn end(&self) {
        self.word.store(core::ptr::null_mut(), Ordering::Relaxed);
    }

    /// Stores a hop's location, marked when the hop's message cell was written before.
    #[inline(always)]
    pub(super) fn set(
        &self,
        location: &'static Location<'static>,
        with_message: bool,
        order: Ordering,
    ) {
        let ptr = core::ptr::from_ref(location).cast_mut();
        let word = if with_message {
            ptr.map_addr(|a| a | WITH_MESSAGE)
        } else {
            ptr
        };
        self.word.store(word, order);
    }

    /// The location and whether the hop has a message; `None` at the end of the trail.
    #[inline(always)]
    pub(super) fn get(&self, order: Ordering) -> Option<(&'static Location<'static>, bool)> {
        let word = self.word.load(order);
        let ptr = word.map_addr(|a| a & !WITH_MESSAGE);
        // SAFETY: by the invariant, with bit 0 cleared the pointer is null or came from a
        // `&'static Location`, which is valid, aligned and lives forever.
        let location = unsafe { ptr.cast_const().as_ref() }?;
        Some((location, word.addr() & WITH_MESSAGE != 0))
    }
}

/// The hops' locations: one cell per kept hop, then one more that only ever holds the end
/// mark, so that every kept hop can end the trail after it with one store.
///
/// # Invariants
///
/// `repr(C)`: `past` follows the `H` cells directly (they have one type), so cell `i + 1` of
/// the struct's memory, for `i < H`, is a cell or `past`.
#[repr(C)]
pub(super) struct HopLocs<const H: usize> {
    pub(super) cells: [HopLoc; H],
    past: HopLoc,
}

impl<const H: usize> HopLocs<H> {
    #[cfg(not(loom))]
    pub(super) const fn new() -> Self {
        HopLocs {
            cells: [const { HopLoc::new() }; H],
            past: HopLoc::new(),
        }
    }

    #[cfg(loom)]
    pub(super) fn new() -> Self {
        HopLocs {
            cells: core::array::from_fn(|_| HopLoc::new()),
            past: HopLoc::new(),
        }
    }

    /// Ends the trail after kept hop `i` (`i < H`), in the next cell or `past`.
    #[inline(always)]
    pub(super) fn end_after(&self, i: usize) {
        if i >= H {
            return;
        }
        let first = core::ptr::from_ref(self).cast::<HopLoc>();
        // SAFETY: `i + 1 <= H`, and by the invariant the struct is `H + 1` consecutive
        // `HopLoc`s starting at its address, so the pointer (derived from the whole struct)
        // points at one of them, valid for as long as `self` is borrowed.
        let next = unsafe { &*first.add(i.wrapping_add(1)) };
        next.end();
    }
}

/// A hop's message, as its two halves.
///
/// # Invariants
///
/// Written only by the slot's owner, before it stores the location of the hop with the same
/// number marked [`WITH_MESSAGE`]; `ptr`/`len` are then the halves of one `&'static str`.
pub(super) struct HopMessage {
    pub(super) ptr: AtomicPtr<u8>,
    pub(super) len: AtomicUsize,
}

impl HopMessage {
    crate::sync::loom_const_fn! {
        pub(super) fn new() -> HopMessage {
            HopMessage {
                ptr: AtomicPtr::new(core::ptr::null_mut()),
                len: AtomicUsize::new(0),
            }
        }
    }

    /// The message, for a reader that read this hop's location marked [`WITH_MESSAGE`] with
    /// Acquire, and that checks the slot's state word after (the text is only used if the slot
    /// was not claimed again meanwhile).
    #[inline(always)]
    pub(super) fn halves(&self) -> (*mut u8, usize) {
        (
            self.ptr.load(Ordering::Relaxed),
            self.len.load(Ordering::Relaxed),
        )
    }
}

/// A message from its halves.
///
/// # Safety
///
/// `ptr` is null, or `ptr` and `len` are the two halves of one `&'static str`.
pub(super) unsafe fn message(ptr: *mut u8, len: usize) -> Option<&'static str> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: by the contract, the halves of a `&'static str`: valid UTF-8, live forever.
    Some(unsafe { core::str::from_utf8_unchecked(core::slice::from_raw_parts(ptr, len)) })
}
