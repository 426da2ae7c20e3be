//! The pool of location sites (sites of `#[track_caller]` constructors, which have no static of
//! their own), interned by location, and the overflow site that later locations share when it is
//! full. Part of the storage layer's sites.

use super::state::LINKING;
use super::*;
use core::panic::Location;

/// The pool of location sites.
///
/// # Invariants
///
/// An entry's `loc` goes from null to one location by compare-and-swap, never back, so a
/// location has at most one entry.
pub(crate) struct LocationPool<const N: usize> {
    entries: [SiteState; N],
    overflow: AtomicU32,
}

fn same_location(a: &Location<'_>, b: &Location<'_>) -> bool {
    core::ptr::eq(a, b)
        || (a.line() == b.line() && a.column() == b.column() && a.file() == b.file())
}

/// The pool place of a location, from its line and column (two locations on one line and
/// column of different files share a chain).
#[inline(always)]
fn hash(loc: &Location<'_>) -> usize {
    let h = loc.line().wrapping_mul(0x9E37_79B1) ^ loc.column().wrapping_mul(0x85EB_CA6B);
    (h ^ (h >> 15)) as usize
}

impl<const N: usize> LocationPool<N> {
    #[cfg(not(loom))]
    pub(crate) const fn new() -> Self {
        LocationPool {
            entries: [const { SiteState::new() }; N],
            overflow: AtomicU32::new(0),
        }
    }

    #[cfg(loom)]
    pub(crate) fn new() -> Self {
        LocationPool {
            entries: core::array::from_fn(|_| SiteState::new()),
            overflow: AtomicU32::new(0),
        }
    }

    /// Finds or adds the entry for `loc`, linking a new one into `list`; `None` when full.
    #[inline]
    pub(crate) fn intern(
        &'static self,
        loc: &'static Location<'static>,
        list: &SiteList,
    ) -> Option<&'static SiteState> {
        let start = hash(loc);
        // The common case: the location is where its hash puts it, with the same pointer.
        if let Some(e) = self.entries.get(start % N) {
            if e.loc
                .load(Ordering::Acquire)
                .is_some_and(|l| core::ptr::eq(l, loc))
            {
                return Some(e);
            }
        }
        self.intern_slow(loc, list, start)
    }

    #[cold]
    #[inline(never)]
    fn intern_slow(
        &'static self,
        loc: &'static Location<'static>,
        list: &SiteList,
        start: usize,
    ) -> Option<&'static SiteState> {
        for probe in 0..N {
            let e = self.entries.get(start.wrapping_add(probe) % N)?;
            match e.loc.load(Ordering::Acquire) {
                Some(l) if same_location(l, loc) => return Some(e),
                Some(_) => continue,
                None => match e.loc.compare_exchange(None, Some(loc)) {
                    Ok(()) => {
                        if e.id
                            .compare_exchange(0, LINKING, Ordering::Acquire, Ordering::Relaxed)
                            .is_ok()
                        {
                            list.link(e);
                        }
                        return Some(e);
                    }
                    Err(Some(l)) if same_location(l, loc) => return Some(e),
                    Err(_) => continue,
                },
            }
        }
        self.overflow.fetch_add(1, Ordering::Relaxed);
        None
    }

    pub(crate) fn overflowed(&self) -> u32 {
        self.overflow.load(Ordering::Relaxed)
    }
}

/// The location sites.
#[cfg(not(loom))]
static LOCATIONS: LocationPool<{ crate::config::LOCATION_SITES }> = LocationPool::new();

/// The site that locations share once the pool is full.
#[cfg(not(loom))]
static OVERFLOW: Site = Site::new(
    "<location sites overflow>",
    0,
    0,
    "errtrace",
    || "errtrace::site::overflow",
    "",
    SiteKind::Error,
    None,
);

/// The site of a location (its pool entry, or the shared overflow site when the pool is full).
#[cfg(not(loom))]
#[inline]
pub(crate) fn at_location(loc: &'static Location<'static>) -> SiteRef {
    match LOCATIONS.intern(loc, &SITES) {
        Some(state) => SiteRef { state },
        None => overflow_site(),
    }
}

#[cfg(not(loom))]
#[cold]
#[inline(never)]
fn overflow_site() -> SiteRef {
    let _ = OVERFLOW_NOTICE.compare_exchange(
        NOTICE_NONE,
        NOTICE_PENDING,
        Ordering::Relaxed,
        Ordering::Relaxed,
    );
    OVERFLOW.get()
}

const NOTICE_NONE: u32 = 0;
const NOTICE_PENDING: u32 = 1;
const NOTICE_GIVEN: u32 = 2;

/// Whether the pool's overflow still has to be reported (once, by the next record emitted).
#[cfg(not(loom))]
static OVERFLOW_NOTICE: AtomicU32 = AtomicU32::new(NOTICE_NONE);

/// True exactly once after the pool of location sites first overflowed: the caller reports it.
/// One relaxed load otherwise.
#[cfg(not(loom))]
#[inline]
pub(crate) fn take_overflow_notice() -> bool {
    OVERFLOW_NOTICE.load(Ordering::Relaxed) == NOTICE_PENDING
        && OVERFLOW_NOTICE
            .compare_exchange(
                NOTICE_PENDING,
                NOTICE_GIVEN,
                Ordering::Relaxed,
                Ordering::Relaxed,
            )
            .is_ok()
}

/// The overflow site's origin (`<location sites overflow>`), for its notice.
#[cfg(not(loom))]
pub(crate) fn overflow_origin() -> Origin {
    Origin::from_site(&OVERFLOW)
}

/// Lookups that found the location-site pool full: one per error made (or `.log()` or
/// boundary passed) at a location without an entry (such locations share the site
/// `<location sites overflow>`; their errors still report their exact origin).
#[cfg(not(loom))]
pub(crate) fn overflowed() -> u32 {
    LOCATIONS.overflowed()
}

/// Number of sites that have fired (or were listed).
#[cfg(not(loom))]
pub(crate) fn count() -> usize {
    SITES.iter().fold(0usize, |n, _| n.wrapping_add(1))
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    /// The first overflow is to be reported once; the overflow site is listed.
    #[test]
    fn overflow_notice_once() {
        assert!(!take_overflow_notice(), "nothing overflowed yet");
        let s = overflow_site();
        let _ = overflow_site();
        assert_eq!(s.origin().file, "<location sites overflow>");
        assert!(all().any(|x| x == s), "the overflow site is listed");
        assert!(take_overflow_notice());
        assert!(!take_overflow_notice(), "reported once");
    }

    /// The overflow count is per lookup, as documented (the documentation
    /// said "locations" while the count was per error).
    #[test]
    fn overflow_counts_lookups_not_locations() {
        static LIST: SiteList = SiteList::new();
        static POOL: LocationPool<1> = LocationPool::new();
        let a = Location::caller();
        let b = other_location();
        assert!(POOL.intern(a, &LIST).is_some());
        assert!(POOL.intern(b, &LIST).is_none());
        assert!(POOL.intern(b, &LIST).is_none());
        assert_eq!(POOL.overflowed(), 2, "two lookups of one location");
    }

    #[track_caller]
    fn other_location() -> &'static Location<'static> {
        Location::caller()
    }
}
