//! Rate limits as a token bucket (the generic cell rate algorithm), lock-free, and `once`.
//! Decision layer.
//!
//! A stream of messages with `burst` per `interval` may print `burst` messages at once and then
//! one every `interval / burst` (rounded up to whole milliseconds, so a steady stream prints no
//! more than `burst` per `interval`; as with the kernel's fixed windows, a full burst right
//! after a steady stream may put up to twice that into one interval); the rest are counted, and
//! the next message that prints reports the count first.
//! The bucket is one word: the earliest moment the next message may print (the algorithm's
//! *theoretical arrival time* less the burst's tolerance). A message prints when `now` has
//! reached it, and moves it on by one emission interval (from `now`, when the bucket had refilled
//! further). A message held back reads that word and writes nothing to it, so a storm's common
//! case is one relaxed load and a compare, with no division.
//!
//! `interval` 0 never limits; `burst` 0 suppresses everything. Without a clock the bucket counts
//! events instead of milliseconds: one message per 100 events after the burst (an interval of
//! `burst × 100` events).
//!
//! The word holds that moment in wrapping 31-bit milliseconds, shifted left by one above a bit
//! that says the stream has printed (a new stream's word is 0: its bucket is full). The moment
//! never lies more than one interval (and a minute for clock readings that another thread's
//! overtook) ahead of `now`; one that seems to (the stream was idle for a multiple of about 24.8
//! days) is stale and read as "the bucket is full".

use crate::site::RateState;
use crate::sync::Ordering;

/// What a rate limiter said.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Verdict {
    /// Print this message.
    pub(crate) emit: bool,
    /// Messages held back since the last one printed (this one reports them first).
    pub(crate) closed_missed: u32,
}

/// How often a bucket of `burst` per `interval` lets a message through (`t`), and its tolerance
/// (`tau`: how far ahead of `now` the theoretical arrival time may be for a message to print);
/// `burst` ≥ 1, `interval` ≥ 1.
#[inline(always)]
fn bucket(burst: u32, interval: u32) -> (u32, u32) {
    let t = interval.div_ceil(burst).max(1);
    (t, t.saturating_mul(burst.wrapping_sub(1)))
}

/// The bucket word's flag: the stream printed a message (a new stream's word is 0).
const USED: u32 = 1;
/// Times in the word are 31 bits of milliseconds.
const MASK: u32 = u32::MAX >> 1;

/// How far `a` lies ahead of `now`, both wrapping 31-bit milliseconds.
#[inline(always)]
fn ahead(a: u32, now: u32) -> u32 {
    a.wrapping_sub(now) & MASK
}

/// Whether the bucket word `word` holds a message back at `now`: the moment it names lies
/// ahead of `now`, by at most `limit` (further is stale).
#[inline(always)]
fn holds(word: u32, now: u32, limit: u32) -> bool {
    // `d - 1 < limit`: ahead (not 0) by at most `limit`.
    word & USED != 0 && ahead(word >> 1, now).wrapping_sub(1) < limit
}

/// How much older one thread's clock reading may be than the one another thread just wrote into
/// a bucket (it read the clock, then was preempted) and still be taken as such (ms).
const SKEW: u32 = 1 << 16;

/// How far ahead of `now` a bucket's moments can lie: `interval + burst` is at least the
/// rounded-up emission interval times `burst`, plus [`SKEW`] for readers whose clock reading is
/// older than the writer's. (A policy's interval and burst are far below `u32::MAX`; were the sum
/// to wrap, words would only be taken for stale more often.)
#[inline(always)]
fn limit(burst: u32, interval: u32) -> u32 {
    interval.wrapping_add(burst).wrapping_add(SKEW)
}

/// Whether a message of a stream with `burst` per `interval_ms` (both ≥ 1) is held back at
/// `now` (its bucket is empty). One relaxed load; writes nothing.
#[inline(always)]
pub(crate) fn held_back(rs: &RateState, burst: u32, interval_ms: u32, now: u32) -> bool {
    holds(
        rs.next.load(Ordering::Relaxed),
        now,
        limit(burst, interval_ms),
    )
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
    let (now, interval) = match now_ms {
        Some(now) => (now, interval_ms),
        None => (
            rs.events.fetch_add(1, Ordering::Relaxed).wrapping_add(1),
            burst.saturating_mul(100),
        ),
    };
    let (t, tau) = bucket(burst, interval);
    let mut next = rs.next.load(Ordering::Relaxed);
    // A few tries: each failed exchange means another message took a token just now.
    for _ in 0..4 {
        if holds(next, now, limit(burst, interval)) {
            break;
        }
        // The theoretical arrival time, if the bucket has not refilled completely.
        let tat = (next >> 1).wrapping_add(tau);
        let from = if next & USED != 0 && ahead(tat, now).wrapping_sub(1) < limit(burst, interval) {
            tat
        } else {
            now
        };
        let new = (from.wrapping_add(t).wrapping_sub(tau) << 1) | USED;
        match rs
            .next
            .compare_exchange_weak(next, new, Ordering::Relaxed, Ordering::Relaxed)
        {
            Ok(_) => {
                let closed_missed = if rs.missed.load(Ordering::Relaxed) == 0 {
                    0
                } else {
                    rs.missed.swap(0, Ordering::Relaxed)
                };
                return Verdict {
                    emit: true,
                    closed_missed,
                };
            }
            Err(cur) => next = cur,
        }
    }
    rs.missed.fetch_add(1, Ordering::Relaxed);
    Verdict {
        emit: false,
        closed_missed: 0,
    }
}

/// `Once`: true for the first caller only.
pub(crate) fn once(rs: &RateState) -> bool {
    rs.printed
        .compare_exchange(0, 1, Ordering::AcqRel, Ordering::Relaxed)
        .is_ok()
}

/// Reports `rs`'s held-back messages if its bucket has refilled at `now` (a message now would
/// print: the storm is over); returns how many.
pub(crate) fn close_if_over(rs: &RateState, burst: u32, interval_ms: u32, now_ms: u32) -> u32 {
    if rs.missed.load(Ordering::Relaxed) == 0 {
        return 0;
    }
    if interval_ms != 0 && burst != 0 && held_back(rs, burst, interval_ms, now_ms) {
        return 0;
    }
    rs.missed.swap(0, Ordering::Relaxed)
}

/// Reports `rs`'s held-back messages now, and refills its bucket; returns how many.
pub(crate) fn close(rs: &RateState) -> u32 {
    let missed = rs.missed.swap(0, Ordering::Relaxed);
    if missed > 0 {
        rs.next.store(0, Ordering::Relaxed);
        rs.events.store(0, Ordering::Relaxed);
    }
    missed
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn printed(rs: &RateState, burst: u32, interval: u32, times: core::ops::Range<u32>) -> usize {
        times
            .filter(|now| ratelimit(rs, burst, interval, Some(*now)).emit)
            .count()
    }

    #[test]
    fn a_burst_then_one_per_emission_interval() {
        let rs = RateState::new();
        // 25 messages at once: the burst prints.
        assert_eq!(
            (0..25)
                .filter(|_| ratelimit(&rs, 10, 5000, Some(1000)).emit)
                .count(),
            10
        );
        // Empty until one emission interval (500 ms) has passed.
        assert!(!ratelimit(&rs, 10, 5000, Some(1499)).emit);
        let v = ratelimit(&rs, 10, 5000, Some(1500));
        assert!(v.emit);
        assert_eq!(
            v.closed_missed, 16,
            "the next message that prints reports the held back"
        );
        assert!(!ratelimit(&rs, 10, 5000, Some(1500)).emit);
        // A storm of one message a millisecond for 10 s: the burst, then one per 500 ms; never
        // more than 2 × 10 in any 5 s (as with the kernel's fixed windows, whose end and the
        // next one's start may both be full).
        let rs = RateState::new();
        let mut at = std::vec::Vec::new();
        for now in 1..=10_000u32 {
            if ratelimit(&rs, 10, 5000, Some(now)).emit {
                at.push(now);
            }
        }
        assert_eq!(at.len(), 10 + 19);
        for w in at.windows(21) {
            assert!(
                w[20] - w[0] >= 5000,
                "21 messages within one interval: {w:?}"
            );
        }
    }

    #[test]
    fn uneven_intervals_round_the_rate_down() {
        // 3 per 1000 ms: one per 334 ms after the burst; never 4 in a second.
        let rs = RateState::new();
        assert_eq!(printed(&rs, 3, 1000, 1..1001), 3 + 2);
        // More messages than milliseconds: the burst, then one per millisecond.
        let rs = RateState::new();
        assert_eq!(
            (0..200)
                .filter(|_| ratelimit(&rs, 100, 10, Some(7)).emit)
                .count(),
            100
        );
        assert!(ratelimit(&rs, 100, 10, Some(8)).emit);
    }

    #[test]
    fn zero_interval_and_zero_burst() {
        let rs = RateState::new();
        assert!((0..100).all(|_| ratelimit(&rs, 1, 0, Some(5)).emit));
        assert!((0..100).all(|_| !ratelimit(&rs, 0, 5000, Some(5)).emit));
    }

    #[test]
    fn count_based_bucket() {
        let rs = RateState::new();
        let emitted = (0..1000)
            .filter(|_| ratelimit(&rs, 2, 5000, None).emit)
            .count();
        // The burst of 2, then one per 100 events.
        assert_eq!(emitted, 2 + 9);
    }

    #[test]
    fn stale_and_wrapped_buckets_are_full() {
        let rs = RateState::new();
        assert_eq!(printed(&rs, 1, 1000, 5..6), 1);
        // Idle for 3·10⁹ ms (longer than the word's 31-bit clock wraps): stale, so full.
        let later = 5u32.wrapping_add(3_000_000_000);
        assert!(ratelimit(&rs, 1, 1000, Some(later)).emit);
        // Across the wrap of the millisecond clock.
        let rs = RateState::new();
        assert!(ratelimit(&rs, 1, 1000, Some(u32::MAX - 10)).emit);
        assert!(!ratelimit(&rs, 1, 1000, Some(u32::MAX)).emit);
        assert!(!ratelimit(&rs, 1, 1000, Some(900)).emit);
        assert!(ratelimit(&rs, 1, 1000, Some(1000)).emit);
    }

    #[test]
    fn held_back_agrees_and_writes_nothing() {
        let rs = RateState::new();
        assert!(!held_back(&rs, 2, 1000, 50), "a fresh bucket is full");
        assert_eq!(printed(&rs, 2, 1000, 50..52), 2);
        assert!(held_back(&rs, 2, 1000, 60));
        let word = rs.next.load(Ordering::Relaxed);
        assert!(held_back(&rs, 2, 1000, 60));
        assert_eq!(rs.next.load(Ordering::Relaxed), word);
        assert!(!held_back(&rs, 2, 1000, 550));
    }

    #[test]
    fn only_refilled_buckets_report() {
        let rs = RateState::new();
        for _ in 0..5 {
            ratelimit(&rs, 1, 1000, Some(100));
        }
        assert_eq!(close_if_over(&rs, 1, 1000, 500), 0, "still empty");
        assert_eq!(close_if_over(&rs, 1, 1000, 1100), 4);
        assert_eq!(close_if_over(&rs, 1, 1000, 1200), 0, "reported once");
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

    /// Two threads, burst 1, clock readings 45 ms apart (within one emission interval): exactly
    /// one message prints, whichever thread's reading is older, and the other is counted once.
    #[test]
    fn burst_is_respected_and_counts_are_kept() {
        loom::model(|| {
            let rs = Arc::new(RateState::new());
            let r2 = rs.clone();
            let t = thread::spawn(move || ratelimit(&r2, 1, 100, Some(5)));
            let a = ratelimit(&rs, 1, 100, Some(50));
            let b = t.join().unwrap();
            let printed = [a.emit, b.emit].iter().filter(|e| **e).count();
            assert_eq!(printed, 1, "5 and 50 are within one emission interval");
            // The held-back message is counted once: still pending, or already reported by the
            // one that printed (when it was held back while the other printed).
            let reported = a.closed_missed + b.closed_missed;
            assert_eq!(rs.missed.load(Ordering::Relaxed) + reported, 1);
        });
    }
}
