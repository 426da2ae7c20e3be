//! Who logs, and how often: per-site policies, the default class of each code, and rate limits.
//!
//! A *log decision* happens when an error is made with a message ([`err!`](crate::err)`(EIO, "…")`),
//! when [`ResultExt::log`](crate::ResultExt::log) sees an `Err`, at a
//! [boundary](crate::boundary()), and when an error is dropped unhandled. The decision follows,
//! first match wins:
//!
//! 1. the site's runtime control state ([`control`](crate::control): `-p` silences, `+p` makes a
//!    quiet or debug site print, a policy word replaces the policy);
//! 2. the policy written at the site (`err!(quiet, EAGAIN)`, `err!(once, EIO, "…")`,
//!    `err!(ratelimit(5, 1000), EIO, "…")`);
//! 3. the default class of the error's code: [`Policy::Quiet`] for codes that are normal in a
//!    kernel (`EAGAIN`, `EINTR`, `ERESTARTSYS` and its kin, `EPROBE_DEFER`, `ENOMEM`), like
//!    `dev_err_probe`; configurable at build time (`ERRTRACE_QUIET_CODES=11,4,512`) and at
//!    start-up ([`set_code_policy`]);
//! 4. otherwise [`Policy::RateLimited`] with the default burst and interval (10 per 5 s, like
//!    `printk_ratelimited`; [`set_default_ratelimit`]).
//!
//! A quiet or rate-limited error still counts as logged: it is recorded and counted, and nobody
//! prints it later (it was decided not to print).
//!
//! # Rate limits
//!
//! Each site has its own state, like the kernel's `DEFINE_RATELIMIT_STATE` per call site, kept as
//! a token bucket: `burst` messages may print at once, then one every `interval / burst`; the rest
//! are counted. The next message that prints first prints "`<site>`: N messages suppressed" (or
//! call [`flush_suppressed`] to print pending counts now). `interval` 0 never limits; `burst` 0
//! suppresses everything.
//!
//! Without a clock ([`platform`](crate::platform): `no_std` and none installed) the bucket counts
//! events at the site instead of time: after the burst, one message per 100 events.
//!
//! # Examples
//!
//! ```
//! use errtrace::{code::{EAGAIN, EIO}, policy::{self, Policy}};
//!
//! assert_eq!(policy::default_for(EAGAIN), Policy::Quiet);
//! assert_eq!(policy::default_for(EIO), Policy::RateLimited { burst: 10, interval_ms: 5000 });
//! ```

pub(crate) mod classes;
pub(crate) mod decide;
pub(crate) mod kind;
pub(crate) mod ratelimit;

#[cfg(not(loom))]
pub use crate::emit::{flush_suppressed, unhandled_drops};
pub use classes::default_for;
#[cfg(not(loom))]
pub use classes::{default_ratelimit, set_code_policy, set_default_ratelimit, NotAnErrno};
pub use decide::effective;
pub use kind::{
    Policy, RateLimitOutOfRange, DEFAULT_BURST, DEFAULT_INTERVAL_MS, MAX_RUNTIME_BURST,
    MAX_RUNTIME_INTERVAL_MS,
};
