//! The list of every site that has fired: intrusive and lock-free, newest first, with the hook
//! control installs to see each site as it is linked. Part of the storage layer's sites.
//!
//! The hook parses the standing control queries (up to a few KiB): work an NMI must not do. Where
//! the platform defers work ([`platform::set_defer`](crate::platform::set_defer)), a site that
//! appears there is marked, and the hook runs for it later, from
//! [`run_deferred_appeared`], in a context the platform chose.

use super::state::NO_ID;
use super::*;

/// The list of every site that has fired (or was listed), newest first.
///
/// # Invariants
///
/// Every site reachable from `head` is `'static` and linked exactly once; `next_id` counts the
/// ids handed out.
pub(crate) struct SiteList {
    head: AtomicRef<SiteState>,
    next_id: AtomicU32,
}

/// Called (through [`set_appeared_hook`]) with every site as it is linked.
pub(crate) type AppearedHook = fn(SiteRef);

impl SiteList {
    loom_const_fn! {
        pub(crate) fn new() -> SiteList {
            SiteList { head: AtomicRef::none(), next_id: AtomicU32::new(0) }
        }
    }

    /// Links a site whose `id` this thread set to `LINKING`.
    #[cold]
    pub(crate) fn link(&self, state: &'static SiteState) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed).wrapping_add(1);
        // Ids are 16 bits in an `Error`; past 65535 sites, errors reach their site through the
        // flight recorder only (id 0 never matches `find`).
        let id = if id > 0xFFFF { 0 } else { id };
        let mut head = self.head.load(Ordering::Relaxed);
        loop {
            state.next.store(head, Ordering::Relaxed);
            // SeqCst: a control writer that stores its query and then walks the list, and this
            // thread that links and then reads the stored queries, cannot both miss each other.
            match self.head.compare_exchange(head, Some(state)) {
                Ok(()) => break,
                Err(now) => head = now,
            }
        }
        state
            .id
            .store(if id == 0 { NO_ID } else { id }, Ordering::Release);
        #[cfg(not(loom))]
        appeared(SiteRef { state });
    }

    /// Every linked site, newest first.
    pub(crate) fn iter(&self) -> impl Iterator<Item = &'static SiteState> {
        let mut cur = self.head.load(Ordering::SeqCst);
        core::iter::from_fn(move || {
            let s = cur?;
            cur = s.next.load(Ordering::Acquire);
            Some(s)
        })
    }

    /// The site with id `id`.
    pub(crate) fn find(&self, id: u32) -> Option<&'static SiteState> {
        if id == 0 {
            return None;
        }
        self.iter().find(|s| s.id() == id)
    }
}

/// Every site of the program that has fired.
#[cfg(not(loom))]
pub(crate) static SITES: SiteList = SiteList::new();

#[cfg(not(loom))]
static APPEARED: SetOnce<AppearedHook> = SetOnce::new();

/// Calls the appeared hook again for a site that makes its first code (it was linked before
/// its code was known): standing `code` queries may select it now.
#[cfg(not(loom))]
#[cold]
#[inline(never)]
pub(super) fn first_code(site: SiteRef) {
    appeared(site);
}

/// Runs the appeared hook for `site`: now, or, when the platform defers work in this context,
/// from the platform's later call to [`run_deferred_appeared`].
#[cfg(not(loom))]
#[cold]
fn appeared(site: SiteRef) {
    let Some(hook) = APPEARED.get() else {
        return;
    };
    // Marked before the platform is asked, so that its deferred run (which may start at once,
    // elsewhere) finds the mark; whoever clears the mark runs the hook, exactly once.
    site.state.mark_appeared();
    if crate::platform::defer() {
        return;
    }
    if site.state.take_appeared() {
        hook(site);
    }
}

/// Runs the appeared hook for every site whose run was deferred (walks the whole list: the
/// platform calls this rarely, after an NMI made a new site).
#[cfg(all(not(loom), feature = "control"))]
pub(crate) fn run_deferred_appeared() {
    let Some(hook) = APPEARED.get() else {
        return;
    };
    for state in SITES.iter() {
        if state.take_appeared() {
            hook(SiteRef { state });
        }
    }
}

/// Installs the hook called with every site as it is linked (control's standing queries). The
/// first hook stays.
#[cfg(all(not(loom), feature = "control"))]
pub(crate) fn set_appeared_hook(hook: AppearedHook) {
    let _ = APPEARED.set(hook);
}
