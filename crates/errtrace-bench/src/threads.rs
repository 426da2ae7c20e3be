//! `errtrace-bench --threads`: does making errors scale across cores? Each thread makes its own
//! errors (the S2 path: an error at the leaf, ten `?`, `handled()`), first one thread alone,
//! then two at once on the two cores. Wall-clock, not instructions: the question is whether
//! threads slow each other down (shared cache lines), which callgrind, serialising threads,
//! cannot see. The per-error cost ratio (two threads / one thread) is the median of several
//! rounds; 1.0 means no interference.
//!
//! Then the cost of a hop taken on another thread than the one that made the error (an `Error`
//! is `Send`): the hop writes the error's slot in the maker's shard, so the slot's cache lines
//! move to the other core.

use crate::cases;
use errtrace::{code::EIO, Error};
use std::time::{Duration, Instant};

/// Iterations per thread per round.
const N: u64 = 2_000_000;
const ROUNDS: usize = 7;

fn time_threads(run: fn(u64), threads: usize) -> Duration {
    let barrier = std::sync::Barrier::new(threads + 1);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    run(N / 100); // warm-up: this thread's id, shard and cache lines
                    barrier.wait();
                    let t0 = Instant::now();
                    run(N);
                    t0.elapsed()
                })
            })
            .collect();
        barrier.wait();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .max()
            .unwrap_or_default()
    })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Runs the measurement and prints one line per case.
pub fn run() {
    crate::harness::install_noop_sink();
    println!(
        "errtrace-bench --threads: {N} errors per thread per round, median of {ROUNDS} rounds, \
         {} CPUs",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    println!(
        "{:<22} {:>12} {:>12} {:>8}",
        "case", "1 thread", "2 threads", "ratio"
    );
    for id in ["errno64/S2", "errtrace-origin/S2", "errtrace-trail/S2"] {
        let Some(case) = cases::find(id) else {
            continue;
        };
        let mut one = vec![];
        let mut two = vec![];
        let mut ratios = vec![];
        for _ in 0..ROUNDS {
            let t1 = time_threads(case.run, 1).as_secs_f64() * 1e9 / N as f64;
            let t2 = time_threads(case.run, 2).as_secs_f64() * 1e9 / N as f64;
            one.push(t1);
            two.push(t2);
            ratios.push(t2 / t1);
        }
        println!(
            "{:<22} {:>9.1} ns {:>9.1} ns {:>7.2}x",
            id,
            median(one),
            median(two),
            median(ratios)
        );
    }
    hops_across_threads();
}

/// Errors per batch and hops per error in [`hops_across_threads`].
const BATCH: usize = 32;
const HOPS: usize = 10;
const BATCHES: usize = 20_000;

/// Times `HOPS` hops on each error of `batch` and handles them; returns the hops' time.
#[inline(never)]
fn hop_batch(batch: &mut Vec<Error>) -> Duration {
    let t0 = Instant::now();
    for e in batch.iter_mut() {
        for _ in 0..HOPS {
            e.hop();
        }
    }
    let t = t0.elapsed();
    for e in batch.drain(..) {
        e.handled();
    }
    t
}

fn fill(batch: &mut Vec<Error>) {
    batch.extend((0..BATCH).map(|_| Error::new(EIO)));
}

/// Nanoseconds per hop: on the thread that made the errors, and on another thread that
/// received them in batches (the maker keeps making the next batch meanwhile).
fn hops_across_threads() {
    let per_hop = |t: Duration| t.as_secs_f64() * 1e9 / (BATCHES * BATCH * HOPS) as f64;
    let mut same = vec![];
    let mut other = vec![];
    for _ in 0..ROUNDS {
        let t = std::thread::scope(|s| {
            s.spawn(|| {
                let mut batch = Vec::with_capacity(BATCH);
                let mut t = Duration::ZERO;
                for _ in 0..BATCHES {
                    fill(&mut batch);
                    t += hop_batch(&mut batch);
                }
                t
            })
            .join()
            .unwrap_or_default()
        });
        same.push(per_hop(t));
        let (to_hopper, batches) = std::sync::mpsc::sync_channel::<Vec<Error>>(2);
        let (to_maker, empties) = std::sync::mpsc::sync_channel::<Vec<Error>>(4);
        let t = std::thread::scope(|s| {
            let hopper = s.spawn(move || {
                for _ in 0..4 {
                    let _ = to_maker.send(Vec::with_capacity(BATCH));
                }
                let mut t = Duration::ZERO;
                while let Ok(mut batch) = batches.recv() {
                    t += hop_batch(&mut batch);
                    let _ = to_maker.send(batch);
                }
                t
            });
            s.spawn(move || {
                for _ in 0..BATCHES {
                    let Ok(mut batch) = empties.recv() else { break };
                    fill(&mut batch);
                    if to_hopper.send(batch).is_err() {
                        break;
                    }
                }
            });
            hopper.join().unwrap_or_default()
        });
        other.push(per_hop(t));
    }
    let (same, other) = (median(same), median(other));
    println!(
        "hop on the error's own thread: {same:.1} ns; on another thread: {other:.1} ns \
         ({BATCH} errors per batch, {HOPS} hops each, median of {ROUNDS} rounds): \
         {:.0} ns more per error that moved",
        (other - same) * HOPS as f64
    );
}
