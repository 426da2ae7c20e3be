//! `errtrace-bench --threads`: does making errors scale across cores? Each thread makes its own
//! errors (the S2 path: an error at the leaf, ten `?`, `handled()`), first one thread alone,
//! then two at once on the two cores. Wall-clock, not instructions: the question is whether
//! threads slow each other down (shared cache lines), which callgrind, serialising threads,
//! cannot see. The per-error cost ratio (two threads / one thread) is the median of several
//! rounds; 1.0 means no interference.

use crate::cases;
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
}
