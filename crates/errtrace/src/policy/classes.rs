//! The default policy of each code, and the default rate limit. Decision layer.
//!
//! Quiet by default: the codes that are normal in a kernel (`EAGAIN`, `EINTR`, `ENOMEM`,
//! `ERESTARTSYS` and its kin, `EPROBE_DEFER`), like `dev_err_probe`; configurable at build time
//! (`ERRTRACE_QUIET_CODES=11,4,512`) and at start-up ([`set_code_policy`]). Every other code is
//! rate-limited with the default burst and interval.

use crate::code::{Code, MAX_ERRNO};
use crate::policy::kind::{self, Policy, RateLimitOutOfRange, DEFAULT_BURST, DEFAULT_INTERVAL_MS};
use crate::sync::Ordering;
#[cfg(not(loom))]
use crate::sync::{AtomicU32, AtomicU8};

/// Codes quiet by default, from `ERRTRACE_QUIET_CODES` at build time when set.
const BUILD_QUIET: [u16; 16] = quiet_codes(option_env!("ERRTRACE_QUIET_CODES"));

// Evaluated only at compile time (for `BUILD_QUIET`): an out-of-range index or a bad value is a
// compile error, never a runtime panic.
#[allow(clippy::indexing_slicing, clippy::panic)]
const fn quiet_codes(env: Option<&str>) -> [u16; 16] {
    let mut out = [0u16; 16];
    let Some(text) = env else {
        // EAGAIN, EINTR, ENOMEM, ERESTARTSYS, ERESTARTNOINTR, ERESTARTNOHAND,
        // ERESTART_RESTARTBLOCK, EPROBE_DEFER.
        let d = [11u16, 4, 12, 512, 513, 514, 516, 517];
        let mut i = 0;
        while i < d.len() {
            out[i] = d[i];
            i += 1;
        }
        return out;
    };
    let mut bytes = text.as_bytes();
    let mut n: u32 = 0;
    let mut count = 0;
    let mut any = false;
    loop {
        let (b, rest) = match bytes {
            [b, rest @ ..] => (Some(*b), rest),
            [] => (None, bytes),
        };
        match b {
            Some(d @ b'0'..=b'9') => {
                n = n * 10 + (d - b'0') as u32;
                any = true;
                assert!(
                    n <= MAX_ERRNO as u32,
                    "ERRTRACE_QUIET_CODES: value above 4095"
                );
            }
            Some(b',') | Some(b' ') | None => {
                if any {
                    assert!(count < 16, "ERRTRACE_QUIET_CODES: at most 16 codes");
                    out[count] = n as u16;
                    count += 1;
                }
                n = 0;
                any = false;
                if b.is_none() {
                    return out;
                }
            }
            Some(_) => panic!("ERRTRACE_QUIET_CODES: expected comma-separated errno numbers"),
        }
        bytes = rest;
    }
}

/// Per errno: the kind field of a policy word set by [`set_code_policy`], 0 when not set. Indexed
/// by the code's bit in a [`CodeSet`](crate::code::CodeSet) (every Linux errno: codes below 192
/// and from 512 to 575), 256 bytes instead of one byte for each of the 4095 possible codes.
#[cfg(not(loom))]
static CLASS: [AtomicU8; 256] = [const { AtomicU8::new(0) }; 256];

/// The class cell of `code`, if it has a bit.
#[cfg(not(loom))]
fn class_cell(code: Code) -> Option<&'static AtomicU8> {
    crate::code::set::bit(code).and_then(|b| CLASS.get(b as usize))
}

#[cfg(not(loom))]
static BURST: AtomicU32 = AtomicU32::new(DEFAULT_BURST);
#[cfg(not(loom))]
static INTERVAL: AtomicU32 = AtomicU32::new(DEFAULT_INTERVAL_MS);

/// Whether a code name as written in `err!` (`"EAGAIN"`) names a code that is quiet by its
/// build-time class (`ERRTRACE_QUIET_CODES`, or the default list), in constant context: the
/// starting `p` of a site's dynamic_debug descriptor. A name that is not a code: `false`.
pub const fn quiet_by_name(name: &str) -> bool {
    let Some(v) = crate::code::errno_of_name(name) else {
        return false;
    };
    let mut rest: &[u16] = &BUILD_QUIET;
    while let [q, tail @ ..] = rest {
        if *q == v {
            return true;
        }
        rest = tail;
    }
    false
}

/// The kind of `code`'s default policy (a policy word's kind field).
#[cfg(not(loom))]
#[inline]
pub(crate) fn kind_of(code: Code) -> u32 {
    let set = class_cell(code).map_or(0, |c| u32::from(c.load(Ordering::Relaxed)));
    if set != 0 {
        set
    } else if BUILD_QUIET.contains(&code.get()) {
        kind::QUIET
    } else {
        kind::RATELIMIT
    }
}

#[cfg(loom)]
pub(crate) fn kind_of(code: Code) -> u32 {
    if BUILD_QUIET.contains(&code.get()) {
        kind::QUIET
    } else {
        kind::RATELIMIT
    }
}

/// The default policy of errors with `code` (before any per-site setting).
pub fn default_for(code: Code) -> Policy {
    match kind_of(code) {
        kind::RATELIMIT => {
            let (burst, interval_ms) = default_ratelimit();
            Policy::RateLimited { burst, interval_ms }
        }
        k => Policy::from_word(k).unwrap_or(Policy::Always),
    }
}

/// Sets the default policy of `code` at start-up. Only the kind of `policy` matters for
/// [`Policy::RateLimited`]: its numbers come from [`set_default_ratelimit`].
///
/// Every Linux errno (below 192, and the kernel's 512 to 575) can have its own default; another
/// value is refused.
///
/// # Errors
///
/// [`NotAnErrno`] when `code` is not in those ranges.
///
/// # Examples
///
/// ```
/// use errtrace::{code::ETIMEDOUT, policy::{self, Policy}};
/// policy::set_code_policy(ETIMEDOUT, Policy::Quiet).unwrap();
/// assert_eq!(policy::default_for(ETIMEDOUT), Policy::Quiet);
/// ```
#[cfg(not(loom))]
pub fn set_code_policy(code: Code, policy: Policy) -> Result<(), NotAnErrno> {
    let cell = class_cell(code).ok_or(NotAnErrno(code))?;
    cell.store(
        (policy.to_word() & kind::KIND_MASK) as u8,
        Ordering::Relaxed,
    );
    Ok(())
}

/// [`set_code_policy`] was refused: the code is not a Linux errno (it is from 192 to 511, or
/// above 575), and only errnos have a default policy of their own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotAnErrno(pub Code);

impl core::fmt::Display for NotAnErrno {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "errtrace: {} is not an errno: it cannot have a default policy",
            self.0.get()
        )
    }
}

impl core::error::Error for NotAnErrno {}

/// Sets the default burst and interval of rate-limited sites.
///
/// # Errors
///
/// [`RateLimitOutOfRange`] for a burst above [`MAX_RUNTIME_BURST`](super::MAX_RUNTIME_BURST)
/// or an interval above [`MAX_RUNTIME_INTERVAL_MS`](super::MAX_RUNTIME_INTERVAL_MS) (or above
/// 32767 ms and not whole seconds); the default is then unchanged.
///
/// # Examples
///
/// ```
/// use errtrace::policy;
/// policy::set_default_ratelimit(5, 1000).unwrap();
/// assert_eq!(policy::default_ratelimit(), (5, 1000));
/// assert!(policy::set_default_ratelimit(2_000_000_000, 5000).is_err());
/// assert_eq!(policy::default_ratelimit(), (5, 1000));
/// # policy::set_default_ratelimit(10, 5000).unwrap();
/// ```
#[cfg(not(loom))]
pub fn set_default_ratelimit(burst: u32, interval_ms: u32) -> Result<(), RateLimitOutOfRange> {
    if !super::kind::ratelimit_in_range(burst, interval_ms) {
        return Err(RateLimitOutOfRange { burst, interval_ms });
    }
    BURST.store(burst, Ordering::Relaxed);
    INTERVAL.store(interval_ms, Ordering::Relaxed);
    Ok(())
}

/// The default `(burst, interval_ms)`.
#[cfg(not(loom))]
pub fn default_ratelimit() -> (u32, u32) {
    (
        BURST.load(Ordering::Relaxed),
        INTERVAL.load(Ordering::Relaxed),
    )
}

#[cfg(loom)]
pub(crate) fn default_ratelimit() -> (u32, u32) {
    (DEFAULT_BURST, DEFAULT_INTERVAL_MS)
}
