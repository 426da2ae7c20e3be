//! The kernel's `___ratelimit`, lock-free, and `once`. Decision layer.
//!
//! Each stream of messages has a [`RateState`]: a window opens at the first message; up to
//! `burst` messages print in it; the rest are counted. The first message after the window closes
//! reports the count first. `interval` 0 never limits; `burst` 0 suppresses everything. Without a
//! clock the window is counted in events: it closes after `burst × 100` events.

use crate::site::RateState;
use crate::sync::Ordering;

/// What a rate limiter said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Verdict {
    /// Print this message.
    pub(crate) emit: bool,
    /// A window closed with this many suppressed messages: report them first.
    pub(crate) closed_missed: u32,
}

/// One message through `rs`. `now_ms` is `None` without a clock.
pub(crate) fn ratelimit(
    rs: &RateState,
    burst: u32,
    interval_ms: u32,
    now_ms: Option<u32>,
) -> Verdict {
    if interval_ms == 0 {
        return Verdict {
            emit: true,
            closed_missed: 0,
        };
    }
    if burst == 0 {
        rs.missed.fetch_add(1, Ordering::Relaxed);
        return Verdict {
            emit: false,
            closed_missed: 0,
        };
    }
    let mut closed_missed = 0;
    match now_ms {
        Some(now) => {
            let now = now.max(1);
            let start = rs.start_ms.load(Ordering::Acquire);
            if start == 0 {
                let _ = rs
                    .start_ms
                    .compare_exchange(0, now, Ordering::AcqRel, Ordering::Acquire);
            } else if window_over(now, start, interval_ms)
                && rs
                    .start_ms
                    .compare_exchange(start, now, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok()
            {
                // This thread closed the window.
                closed_missed = rs.missed.swap(0, Ordering::AcqRel);
                rs.printed.store(0, Ordering::Release);
            }
        }
        None => {
            let window = burst.saturating_mul(100);
            let n = rs.events.fetch_add(1, Ordering::AcqRel).wrapping_add(1);
            if n > window
                && rs
                    .events
                    .compare_exchange(n, 1, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok()
            {
                closed_missed = rs.missed.swap(0, Ordering::AcqRel);
                rs.printed.store(0, Ordering::Release);
            }
        }
    }
    let printed = rs.printed.fetch_add(1, Ordering::AcqRel);
    if printed < burst {
        Verdict {
            emit: true,
            closed_missed,
        }
    } else {
        rs.missed.fetch_add(1, Ordering::Relaxed);
        Verdict {
            emit: false,
            closed_missed,
        }
    }
}

/// Whether a window that opened at `start` is over at `now` (both in wrapping milliseconds).
///
/// A thread that read the clock before another thread opened a newer window sees `now` behind
/// `start`: that is inside the new window, not 49 days later (found by the loom model).
#[inline]
pub(crate) fn window_over(now: u32, start: u32, interval_ms: u32) -> bool {
    let elapsed = now.wrapping_sub(start);
    (elapsed as i32) >= 0 && elapsed >= interval_ms
}

/// `Once`: true for the first caller only.
pub(crate) fn once(rs: &RateState) -> bool {
    rs.printed
        .compare_exchange(0, 1, Ordering::AcqRel, Ordering::Relaxed)
        .is_ok()
}

/// Closes `rs`'s window if it is over at `now` and held messages back; returns how many.
pub(crate) fn close_if_over(rs: &RateState, interval_ms: u32, now_ms: u32) -> u32 {
    if rs.missed.load(Ordering::Relaxed) == 0 {
        return 0;
    }
    let start = rs.start_ms.load(Ordering::Acquire);
    if start == 0 || !window_over(now_ms.max(1), start, interval_ms) {
        return 0;
    }
    close(rs)
}

/// Closes `rs`'s window now; returns the messages it held back.
pub(crate) fn close(rs: &RateState) -> u32 {
    let missed = rs.missed.swap(0, Ordering::AcqRel);
    if missed > 0 {
        // The next message opens a new window.
        rs.start_ms.store(0, Ordering::Release);
        rs.events.store(0, Ordering::Release);
        rs.printed.store(0, Ordering::Release);
    }
    missed
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn window_logic_with_clock() {
        let rs = RateState::new();
        let emitted = (0..25)
            .filter(|_| ratelimit(&rs, 10, 5000, Some(1000)).emit)
            .count();
        assert_eq!(emitted, 10);
        // Still inside the window.
        assert!(!ratelimit(&rs, 10, 5000, Some(5999)).emit);
        let v = ratelimit(&rs, 10, 5000, Some(6000));
        assert!(v.emit);
        assert_eq!(v.closed_missed, 16);
    }

    #[test]
    fn zero_interval_and_zero_burst() {
        let rs = RateState::new();
        assert!((0..100).all(|_| ratelimit(&rs, 1, 0, Some(5)).emit));
        assert!((0..100).all(|_| !ratelimit(&rs, 0, 5000, Some(5)).emit));
    }

    #[test]
    fn count_based_window() {
        let rs = RateState::new();
        let emitted = (0..1000)
            .filter(|_| ratelimit(&rs, 2, 5000, None).emit)
            .count();
        // Windows of 200 events, 2 printed in each.
        assert_eq!(emitted, 10);
    }

    #[test]
    fn only_windows_that_are_over_close() {
        let rs = RateState::new();
        for _ in 0..5 {
            ratelimit(&rs, 1, 1000, Some(100));
        }
        assert_eq!(close_if_over(&rs, 1000, 500), 0, "still open");
        assert_eq!(close_if_over(&rs, 1000, 1100), 4);
        assert_eq!(close_if_over(&rs, 1000, 1200), 0, "reported once");
    }

    #[test]
    fn once_is_once() {
        let rs = RateState::new();
        assert!(once(&rs));
        assert!(!once(&rs));
    }
}

#[cfg(all(test, loom))]
mod loom_tests {
    use super::*;
    use loom::sync::Arc;
    use loom::thread;

    /// Two threads, burst 1: within one window exactly one message prints; a thread whose clock
    /// reading is older than a window another thread just opened does not close it again.
    #[test]
    fn burst_is_respected_and_windows_close_once() {
        loom::model(|| {
            let rs = Arc::new(RateState::new());
            let r2 = rs.clone();
            let t = thread::spawn(move || ratelimit(&r2, 1, 100, Some(5)));
            let a = ratelimit(&rs, 1, 100, Some(200));
            let b = t.join().unwrap();
            let printed = [a.emit, b.emit].iter().filter(|e| **e).count();
            let closed = a.closed_missed + b.closed_missed;
            // Either both in one window (one prints, one counted) or a new window at 200 (both
            // print, the first window's miss count is 0).
            assert!(printed >= 1);
            assert!(closed <= 1);
            if printed == 1 {
                assert_eq!(rs.missed.load(Ordering::Relaxed) + closed, 1);
            }
        });
    }
}
