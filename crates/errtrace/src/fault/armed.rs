//! Fail-point configurations set by `fail` queries ([`control`](crate::control)): a fixed table
//! of named (glob) configurations with the kernel's `fault_attr` semantics, and the random draw
//! behind `probability`.

use crate::code::Code;
use crate::control::query::{FailQuery, Pattern, QueryError};
use crate::sync::{AtomicU32, AtomicU8, Ordering};

/// How many `fail` configurations can exist at once
/// ([`config::FAIL_CONFIGS`](crate::config::FAIL_CONFIGS)).
pub(crate) const MAX_CONFIGS: usize = crate::config::FAIL_CONFIGS;

pub(super) struct Config {
    /// 0 free, 1 being written, 2 in use.
    used: AtomicU32,
    name: [AtomicU8; crate::control::query::MAX_PATTERN],
    name_len: AtomicU32,
    probability: AtomicU32,
    interval: AtomicU32,
    /// Failures left, as i32 bits (-1 unlimited).
    times: AtomicU32,
    code: AtomicU32,
    calls: AtomicU32,
    /// When it was last configured (a global count): the newest matching configuration wins.
    generation: AtomicU32,
}

static GENERATION: AtomicU32 = AtomicU32::new(0);

impl Config {
    const fn new() -> Config {
        Config {
            used: AtomicU32::new(0),
            name: [const { AtomicU8::new(0) }; crate::control::query::MAX_PATTERN],
            name_len: AtomicU32::new(0),
            probability: AtomicU32::new(0),
            // Read as 1 (`decide`); 0 keeps the table all zeros, in `.bss`.
            interval: AtomicU32::new(0),
            times: AtomicU32::new(0),
            code: AtomicU32::new(0),
            calls: AtomicU32::new(0),
            generation: AtomicU32::new(0),
        }
    }

    fn name_is(&self, pat: &str) -> bool {
        let len = self.name_len.load(Ordering::Acquire) as usize;
        len == pat.len()
            && self
                .name
                .iter()
                .zip(pat.bytes())
                .all(|(c, b)| c.load(Ordering::Relaxed) == b)
    }

    fn glob_matches(&self, point: &str) -> bool {
        let mut buf = [0u8; crate::control::query::MAX_PATTERN];
        let len = (self.name_len.load(Ordering::Acquire) as usize).min(buf.len());
        for (b, c) in buf.iter_mut().zip(self.name.iter()) {
            *b = c.load(Ordering::Relaxed);
        }
        buf.get(..len)
            .is_some_and(|pat| crate::control::query::glob(pat, point.as_bytes()))
    }

    /// Whether its failures are used up (`times` reached 0).
    #[cfg(feature = "std")]
    pub(super) fn used_up(&self) -> bool {
        self.times.load(Ordering::Relaxed) == 0
    }

    pub(super) fn is_on(&self) -> bool {
        self.probability.load(Ordering::Relaxed) > 0 && self.times.load(Ordering::Relaxed) != 0
    }

    /// The kernel's `should_fail`: `Some(code override)` when this call fails.
    pub(super) fn decide(&self) -> Option<Option<Code>> {
        let times = self.times.load(Ordering::Acquire) as i32;
        if times == 0 {
            return None;
        }
        let interval = self.interval.load(Ordering::Relaxed).max(1);
        let calls = self.calls.fetch_add(1, Ordering::AcqRel).wrapping_add(1);
        if interval > 1 && calls.checked_rem(interval) != Some(0) {
            return None;
        }
        let p = self.probability.load(Ordering::Relaxed);
        if p == 0 || (p < 100 && random_below_100() >= p) {
            return None;
        }
        if times != -1 {
            // Take one failure; lose the race quietly if another thread took the last one.
            let taken = self
                .times
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |t| {
                    let t = t as i32;
                    if t > 0 {
                        Some(t.wrapping_sub(1) as u32)
                    } else {
                        None
                    }
                })
                .is_ok();
            if !taken {
                return None;
            }
        }
        Some(Code::new(self.code.load(Ordering::Relaxed) as u16))
    }
}

static CONFIGS: [Config; MAX_CONFIGS] = [const { Config::new() }; MAX_CONFIGS];

pub(super) fn find_config(point: &str) -> Option<&'static Config> {
    // The most recently configured matching configuration wins (`fail name=alloc_* off` after
    // `fail name=alloc_buf …` disarms alloc_buf, and the other way round).
    CONFIGS
        .iter()
        .filter(|c| c.used.load(Ordering::Acquire) == 2 && c.glob_matches(point))
        .max_by_key(|c| c.generation.load(Ordering::Acquire))
}

/// Applies a parsed `fail` query (from [`control::apply`](crate::control::apply)).
pub(crate) fn configure(q: &FailQuery) -> Result<(), QueryError> {
    let name = q.name.as_str();
    let slot = match configured(name) {
        Some(c) => c,
        None => {
            let Some(c) = CONFIGS.iter().find(|c| {
                c.used
                    .compare_exchange(0, 1, Ordering::AcqRel, Ordering::Relaxed)
                    .is_ok()
            }) else {
                return Err(table_full(q.name));
            };
            for (cell, b) in c.name.iter().zip(name.bytes()) {
                cell.store(b, Ordering::Relaxed);
            }
            c.name_len.store(name.len() as u32, Ordering::Relaxed);
            c.used.store(2, Ordering::Release);
            c
        }
    };
    slot.generation.store(
        GENERATION.fetch_add(1, Ordering::AcqRel).wrapping_add(1),
        Ordering::Release,
    );
    if q.off {
        slot.probability.store(0, Ordering::Relaxed);
        slot.times.store(0, Ordering::Relaxed);
        // An 'off' that overrides no other configuration needs no slot: free it, so names that
        // come and go (as `exercise` makes them) never fill the table.
        let overrides = CONFIGS.iter().any(|c| {
            !core::ptr::eq(c, slot) && c.used.load(Ordering::Acquire) == 2 && c.glob_matches(name)
        });
        if !overrides {
            slot.used.store(0, Ordering::Release);
        }
    } else {
        slot.probability
            .store(q.probability.unwrap_or(100), Ordering::Relaxed);
        slot.interval
            .store(q.interval.unwrap_or(1), Ordering::Relaxed);
        slot.times
            .store(q.times.unwrap_or(1) as u32, Ordering::Relaxed);
        slot.code
            .store(q.code.map_or(0, |c| u32::from(c.get())), Ordering::Relaxed);
        slot.calls.store(0, Ordering::Relaxed);
    }
    super::refresh_all();
    Ok(())
}

/// Whether a `fail` configuration with exactly this name exists.
pub(crate) fn is_configured(name: &str) -> bool {
    configured(name).is_some()
}

/// The configuration with exactly this name.
fn configured(name: &str) -> Option<&'static Config> {
    CONFIGS
        .iter()
        .find(|c| c.used.load(Ordering::Acquire) == 2 && c.name_is(name))
}

/// Free configuration slots.
pub(crate) fn free_slots() -> usize {
    CONFIGS
        .iter()
        .filter(|c| c.used.load(Ordering::Acquire) == 0)
        .fold(0usize, |n, _| n.wrapping_add(1))
}

fn table_full(name: Pattern) -> QueryError {
    let _ = name;
    QueryError::table_full()
}

/// Forgets every `fail` configuration (the caller refreshes the points).
pub(super) fn forget_all() {
    for c in CONFIGS.iter() {
        c.probability.store(0, Ordering::Relaxed);
        c.times.store(0, Ordering::Relaxed);
        c.used.store(0, Ordering::Release);
    }
}

static RNG: AtomicU32 = AtomicU32::new(0x2545_F491);

/// Seeds the generator behind `probability` (the default seed is fixed, so runs repeat).
pub fn set_seed(seed: u32) {
    RNG.store(seed.max(1), Ordering::Relaxed);
}

/// A draw in `0..100`: a counter stepped by the golden ratio (one atomic add, wait-free), then
/// mixed (the 32-bit finaliser of MurmurHash3).
fn random_below_100() -> u32 {
    let mut x = RNG.fetch_add(0x9E37_79B9, Ordering::Relaxed);
    x ^= x >> 16;
    x = x.wrapping_mul(0x85EB_CA6B);
    x ^= x >> 13;
    x = x.wrapping_mul(0xC2B2_AE35);
    x ^= x >> 16;
    x % 100
}
