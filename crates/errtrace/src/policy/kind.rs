//! What a policy is, and its one encoding. Value layer.

/// How often a site's messages print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// Every time.
    Always,
    /// The first time only, like `pr_err_once`.
    Once,
    /// At most `burst` per `interval_ms` (a token bucket), then a count of the suppressed ones.
    RateLimited {
        /// Messages that may print at once.
        burst: u32,
        /// The interval in milliseconds in which the bucket refills `burst` messages.
        interval_ms: u32,
    },
    /// Never printed; recorded in the flight recorder and counted.
    Quiet,
    /// Printed only when enabled at runtime (`+p` in [`control`](crate::control)).
    Debug,
}

impl core::fmt::Display for Policy {
    /// `always`, `once`, `ratelimit(10/5s)`, `quiet`, `debug`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            Policy::Always => f.write_str("always"),
            Policy::Once => f.write_str("once"),
            Policy::Quiet => f.write_str("quiet"),
            Policy::Debug => f.write_str("debug"),
            Policy::RateLimited { burst, interval_ms } => {
                if interval_ms % 1000 == 0 {
                    write!(f, "ratelimit({}/{}s)", burst, interval_ms / 1000)
                } else {
                    write!(f, "ratelimit({}/{}ms)", burst, interval_ms)
                }
            }
        }
    }
}

/// The kernel's `DEFAULT_RATELIMIT_BURST`.
pub const DEFAULT_BURST: u32 = 10;
/// The kernel's `DEFAULT_RATELIMIT_INTERVAL` (5 s), in milliseconds.
pub const DEFAULT_INTERVAL_MS: u32 = 5000;

/// Largest burst of any rate limit (what a policy word holds).
pub const MAX_RUNTIME_BURST: u32 = 0x1FFF;
/// Largest interval of any rate limit, in milliseconds (32767 s, about 9 hours); above 32767 ms
/// an interval is a whole number of seconds. Both limits are what a policy word holds, and
/// within what the rate limiter's 31-bit millisecond clock can tell apart.
pub const MAX_RUNTIME_INTERVAL_MS: u32 = 0x7FFF * 1000;

/// A rate limit errtrace cannot honour: a burst above [`MAX_RUNTIME_BURST`], an interval above
/// [`MAX_RUNTIME_INTERVAL_MS`], or one above 32767 ms that is not whole seconds. Refused rather
/// than rounded or wrapped: a limit that wrapped would print far more, or far less, than asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimitOutOfRange {
    /// The burst asked for.
    pub burst: u32,
    /// The interval asked for, in milliseconds.
    pub interval_ms: u32,
}

impl core::fmt::Display for RateLimitOutOfRange {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "errtrace: rate limit {}/{} ms out of range: burst at most {}, interval at most {} ms \
             (in whole seconds above 32767 ms)",
            self.burst, self.interval_ms, MAX_RUNTIME_BURST, MAX_RUNTIME_INTERVAL_MS
        )
    }
}

impl core::error::Error for RateLimitOutOfRange {}

/// `err!(ratelimit(B, I), …)`'s policy, checked when the site's static is compiled: a rate limit
/// errtrace cannot honour is a compile-time error (an associated const, so no panic path).
#[doc(hidden)]
pub struct CheckedRateLimit<const B: u32, const I: u32>;

impl<const B: u32, const I: u32> CheckedRateLimit<B, I> {
    const IN_RANGE: () = assert!(
        ratelimit_in_range(B, I),
        "errtrace::err!: rate limit out of range: burst at most 8191, interval at most \
         32767000 ms (in whole seconds above 32767 ms)"
    );

    /// The policy `B` per `I` ms.
    pub const fn policy() -> Policy {
        #[allow(clippy::let_unit_value)]
        let () = Self::IN_RANGE;
        Policy::RateLimited {
            burst: B,
            interval_ms: I,
        }
    }
}

/// Whether errtrace honours `burst` per `interval_ms` exactly (see [`RateLimitOutOfRange`]).
pub(crate) const fn ratelimit_in_range(burst: u32, interval_ms: u32) -> bool {
    burst <= MAX_RUNTIME_BURST
        && interval_ms <= MAX_RUNTIME_INTERVAL_MS
        && (interval_ms <= 0x7FFF || interval_ms % 1000 == 0)
}

/// The word of "no policy".
pub(crate) const NONE: u32 = 0;
/// The kind field of a policy word (bits 0..3).
pub(crate) const KIND_MASK: u32 = 0x7;
const ALWAYS: u32 = 1;
const ONCE: u32 = 2;
pub(crate) const QUIET: u32 = 3;
const DEBUG: u32 = 4;
pub(crate) const RATELIMIT: u32 = 5;

impl Policy {
    /// The policy in one word, so that a control change and a decision racing with it never see
    /// half of each: kind in bits 0..3, burst in bits 3..16, interval in bits 16..31 (in ms, or
    /// in whole seconds when bit 31 is set, for intervals above 32767 ms). Never 0.
    pub(crate) const fn to_word(self) -> u32 {
        match self {
            Policy::Always => ALWAYS,
            Policy::Once => ONCE,
            Policy::Quiet => QUIET,
            Policy::Debug => DEBUG,
            Policy::RateLimited { burst, interval_ms } => {
                let interval = if interval_ms <= 0x7FFF {
                    interval_ms
                } else {
                    let s = interval_ms / 1000;
                    (1 << 15) | if s < 0x7FFF { s } else { 0x7FFF }
                };
                let burst = if burst < MAX_RUNTIME_BURST {
                    burst
                } else {
                    MAX_RUNTIME_BURST
                };
                RATELIMIT | (burst << 3) | (interval << 16)
            }
        }
    }

    /// The policy of a word; `None` for [`NONE`] (and for words never made by
    /// [`to_word`](Self::to_word)).
    pub(crate) fn from_word(word: u32) -> Option<Policy> {
        match word & KIND_MASK {
            ALWAYS => Some(Policy::Always),
            ONCE => Some(Policy::Once),
            QUIET => Some(Policy::Quiet),
            DEBUG => Some(Policy::Debug),
            RATELIMIT => {
                let interval = word >> 16;
                let interval_ms = if interval & (1 << 15) != 0 {
                    (interval & 0x7FFF).wrapping_mul(1000)
                } else {
                    interval
                };
                Some(Policy::RateLimited {
                    burst: (word >> 3) & MAX_RUNTIME_BURST,
                    interval_ms,
                })
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display() {
        let p = |burst, interval_ms| Policy::RateLimited { burst, interval_ms };
        assert_eq!(std::format!("{}", p(10, 5000)), "ratelimit(10/5s)");
        assert_eq!(std::format!("{}", p(3, 250)), "ratelimit(3/250ms)");
    }

    #[test]
    fn word_round_trip() {
        for p in [
            Policy::Always,
            Policy::Once,
            Policy::Quiet,
            Policy::Debug,
            Policy::RateLimited {
                burst: 7,
                interval_ms: 1234,
            },
            Policy::RateLimited {
                burst: 1,
                interval_ms: 60_000,
            },
        ] {
            assert_ne!(p.to_word(), NONE);
            assert_eq!(Policy::from_word(p.to_word()), Some(p));
        }
        assert_eq!(Policy::from_word(NONE), None);
    }
}
