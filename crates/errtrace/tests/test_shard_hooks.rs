//! Without `std`: the platform's shard hooks give each context a shard of the recorder (the
//! Linux glue: the CPU's, with preemption off, in task context; interrupts share shard 0).
//! Here each test thread plays a context, naming its shard through a thread-local.
//!
//! With the default `no_std` configuration there is one shard, so every context lands in the
//! shared one; `.ci` also runs this with `ERRTRACE_RECORDER_SHARDS=4`, where threads 1 and 2
//! own shards of their own.
#![cfg(not(feature = "std"))]

use core::cell::Cell;
use core::sync::atomic::{AtomicU32, Ordering};
use errtrace::code::EIO;
use errtrace::config::{RECORDER_SHARDS, RECORDER_SLOTS};
use errtrace::{Error, ResultExt};

std::thread_local! {
    /// The shard this thread's hook names.
    static MINE: Cell<u32> = const { Cell::new(0) };
    /// Whether the thread is between `enter` and `exit`.
    static INSIDE: Cell<bool> = const { Cell::new(false) };
}

static ENTERS: AtomicU32 = AtomicU32::new(0);
static EXITS: AtomicU32 = AtomicU32::new(0);
static NESTED: AtomicU32 = AtomicU32::new(0);

fn enter() -> u32 {
    if INSIDE.with(|i| i.replace(true)) {
        NESTED.fetch_add(1, Ordering::Relaxed);
    }
    ENTERS.fetch_add(1, Ordering::Relaxed);
    MINE.with(Cell::get)
}

fn exit() {
    INSIDE.with(|i| i.set(false));
    EXITS.fetch_add(1, Ordering::Relaxed);
}

/// The shard of the slot a sequence number names.
fn shard_of(seq: u64) -> u32 {
    (seq & 0xFFFF) as u32 / (RECORDER_SLOTS / RECORDER_SHARDS) as u32
}

fn leaf() -> errtrace::Result<u32> {
    Err(Error::new(EIO))
}

/// Makes errors in the shard `mine` names, some live at once, some travelling; returns the
/// shards they were recorded in.
fn run(mine: u32) -> Vec<u32> {
    MINE.with(|m| m.set(mine));
    let mut shards = Vec::new();
    for _ in 0..3 {
        let kept: Vec<Error> = (0..2).map(|_| Error::new(EIO)).collect();
        let travelled = leaf().trace().unwrap_err();
        for e in kept.iter().chain(Some(&travelled)) {
            if let Some(seq) = e.seq() {
                shards.push(shard_of(seq));
            }
        }
        for e in kept {
            e.handled();
        }
        // Released through the slow path: counted as travelled in this context's shard.
        travelled.handled();
    }
    shards
}

#[test]
fn each_context_records_in_the_shard_its_hook_names() {
    // SAFETY: each thread below names a shard no other thread names (0 is the shared one),
    // and no error is made before the hooks are installed.
    unsafe { errtrace::platform::set_shard_hooks(enter, exit) }.unwrap();
    // SAFETY: as above; a second installation is refused and changes nothing.
    assert!(unsafe { errtrace::platform::set_shard_hooks(enter, exit) }.is_err());
    let threads: Vec<_> = (0..3u32)
        .map(|mine| std::thread::spawn(move || (mine, run(mine))))
        .collect();
    for t in threads {
        let (mine, shards) = t.join().unwrap();
        assert!(!shards.is_empty(), "the recorder had room");
        // An index beyond the shards, or 0, is the shared shard. An owner whose shard is full
        // records in the shared one.
        let owned = if (mine as usize) < RECORDER_SHARDS {
            mine
        } else {
            0
        };
        for s in &shards {
            assert!(*s == owned || *s == 0, "context {mine}: shard {s}");
        }
        if owned != 0 {
            assert!(
                shards.contains(&owned),
                "context {mine} used its shard: {shards:?}"
            );
        }
    }
    // Every error entered once to be made and once more to be counted as travelled.
    assert_eq!(ENTERS.load(Ordering::Relaxed), 3 * 3 * (3 + 1));
    assert_eq!(
        EXITS.load(Ordering::Relaxed),
        ENTERS.load(Ordering::Relaxed)
    );
    assert_eq!(NESTED.load(Ordering::Relaxed), 0, "never nested");
}
