// SPDX-License-Identifier: GPL-2.0
//! The stress scenario's Rust half (the C half, `stress.c`, runs it): errors made, hopped, logged,
//! handled and dropped on every CPU at once, in kthreads, in hard IRQ context (an hrtimer), in
//! softirq context (a timer) and in NMI context (self-NMIs), while user space writes control
//! queries, reads the recorder and the control files, loads and unloads a second module and takes
//! CPUs offline and back.
//!
//! Each error is checked against the flight recorder while it is alive: it is either readable
//! there or counted by the recorder as unrecorded. At the end the counts are reconciled with the
//! sites' counters and printed; `kernel/check.sh` checks the summary and counts the printed lines.

use core::sync::atomic::{AtomicU32, Ordering::Relaxed};
use errtrace::control::SiteRef;
use errtrace::{
    code::{EAGAIN, EBUSY, EIO, ENXIO, ETIMEDOUT},
    err, ResultExt,
};
use kernel::prelude::*;

/// CPUs counted one by one (the debug kernel boots with 4).
const MAX_CPUS: usize = 8;

static PER_CPU: [AtomicU32; MAX_CPUS] = [const { AtomicU32::new(0) }; MAX_CPUS];
static OTHER_CPU: AtomicU32 = AtomicU32::new(0);
static LOUD: AtomicU32 = AtomicU32::new(0);
static DROPPED: AtomicU32 = AtomicU32::new(0);
static HARDIRQ: AtomicU32 = AtomicU32::new(0);
static SOFTIRQ: AtomicU32 = AtomicU32::new(0);
static NMI: AtomicU32 = AtomicU32::new(0);
static RECORDED: AtomicU32 = AtomicU32::new(0);
static NOT_RECORDED: AtomicU32 = AtomicU32::new(0);
static UNRECORDED_BEFORE: AtomicU32 = AtomicU32::new(0);
static CPUS: AtomicU32 = AtomicU32::new(0);
static N: AtomicU32 = AtomicU32::new(0);

/// The index of each stress site, noted from its first error (0: not seen yet).
static LEAF_SITE: AtomicU32 = AtomicU32::new(0);
static LOUD_SITE: AtomicU32 = AtomicU32::new(0);
static HARDIRQ_SITE: AtomicU32 = AtomicU32::new(0);
static SOFTIRQ_SITE: AtomicU32 = AtomicU32::new(0);
static NMI_SITE: AtomicU32 = AtomicU32::new(0);

/// A retry that is normal: quiet unless `+p` (the user-space loop toggles it meanwhile).
fn stress_leaf() -> errtrace::Result<u32> {
    Err(err!(quiet, EAGAIN))
}

#[errtrace::trace]
fn stress_middle() -> errtrace::Result<u32> {
    let v = stress_leaf()?;
    Ok(v)
}

#[errtrace::trace]
fn stress_top() -> errtrace::Result<u32> {
    let v = stress_middle()?;
    Ok(v)
}

/// A failure that logs (rate limited: 10 per 5 s, then counted).
fn stress_loud(cpu: u32, i: u32) -> errtrace::Error {
    err!(EIO, "stress: cpu {} iteration {} failed", cpu, i)
}

/// Counts `e` as readable in the recorder while alive, or not, and notes its site.
fn check(e: &errtrace::Error, site: &AtomicU32) {
    let recorded = e.seq().is_some_and(|s| errtrace::recorder::read(s).is_ok());
    if recorded {
        RECORDED.fetch_add(1, Relaxed);
    } else {
        NOT_RECORDED.fetch_add(1, Relaxed);
    }
    if let Some(s) = e.site() {
        site.store(s.index(), Relaxed);
    }
}

#[no_mangle]
extern "C" fn errtrace_demo_stress_begin(cpus: u32, n: u32) {
    for c in &PER_CPU {
        c.store(0, Relaxed);
    }
    for c in [
        &OTHER_CPU,
        &LOUD,
        &DROPPED,
        &HARDIRQ,
        &SOFTIRQ,
        &NMI,
        &RECORDED,
        &NOT_RECORDED,
    ] {
        c.store(0, Relaxed);
    }
    UNRECORDED_BEFORE.store(errtrace::recorder::unrecorded(), Relaxed);
    CPUS.store(cpus, Relaxed);
    N.store(n, Relaxed);
}

/// One iteration of the kthread bound to `cpu`: an error made three frames down, hopped twice,
/// then handled, logged further up (every 8th) or dropped unhandled (every 1000th); every 16th
/// iteration also makes an error that logs where it is made.
#[no_mangle]
extern "C" fn errtrace_demo_stress_thread(cpu: u32, i: u32) {
    let e = match stress_top() {
        Ok(_) => return,
        Err(e) => e,
    };
    check(&e, &LEAF_SITE);
    match PER_CPU.get(cpu as usize) {
        Some(c) => c.fetch_add(1, Relaxed),
        None => OTHER_CPU.fetch_add(1, Relaxed),
    };
    if i % 1000 == 999 {
        DROPPED.fetch_add(1, Relaxed);
        drop(e);
    } else if i % 8 == 0 {
        if let Err(e) = Err::<(), _>(e).log("stress: logged further up") {
            e.handled();
        }
    } else {
        e.handled();
    }
    if i % 16 == 0 {
        let e = stress_loud(cpu, i);
        check(&e, &LOUD_SITE);
        LOUD.fetch_add(1, Relaxed);
        e.handled();
    }
}

/// Counts an error made in an interrupt context (`count`, and its site in `site`), checked
/// against the recorder, and handles it.
fn made_in(e: errtrace::Error, count: &AtomicU32, site: &AtomicU32) {
    check(&e, site);
    count.fetch_add(1, Relaxed);
    e.handled();
}

/// In hard IRQ context (the hrtimer).
#[no_mangle]
extern "C" fn errtrace_demo_stress_hardirq(_i: u32) {
    made_in(err!(quiet, ETIMEDOUT), &HARDIRQ, &HARDIRQ_SITE);
}

/// In softirq context (the timer).
#[no_mangle]
extern "C" fn errtrace_demo_stress_softirq(_i: u32) {
    made_in(err!(quiet, EBUSY), &SOFTIRQ, &SOFTIRQ_SITE);
}

/// In NMI context (a self-NMI's handler): nothing here blocks, allocates or takes a lock.
#[no_mangle]
extern "C" fn errtrace_demo_stress_nmi(_i: u32) {
    made_in(err!(quiet, ENXIO), &NMI, &NMI_SITE);
}

fn site(index: &AtomicU32) -> Option<SiteRef> {
    let i = index.load(Relaxed);
    errtrace::control::sites().find(|s| s.index() == i && i != 0)
}

/// Prints the summary and whether the counts reconcile.
#[no_mangle]
extern "C" fn errtrace_demo_stress_end() {
    let cpus = CPUS.load(Relaxed);
    let n = N.load(Relaxed);
    let per_cpu: [u32; MAX_CPUS] = core::array::from_fn(|k| PER_CPU[k].load(Relaxed));
    let threads: u32 = per_cpu.iter().sum::<u32>() + OTHER_CPU.load(Relaxed);
    let (loud, hardirq, softirq, nmi) = (
        LOUD.load(Relaxed),
        HARDIRQ.load(Relaxed),
        SOFTIRQ.load(Relaxed),
        NMI.load(Relaxed),
    );
    let made = threads + loud + hardirq + softirq + nmi;
    let (recorded, not_recorded) = (RECORDED.load(Relaxed), NOT_RECORDED.load(Relaxed));
    let unrecorded = errtrace::recorder::unrecorded().wrapping_sub(UNRECORDED_BEFORE.load(Relaxed));
    pr_info!(
        "stress: {} CPUs x {} iterations; errors made per CPU in kthreads: {:?}\n",
        cpus,
        n,
        &per_cpu[..(cpus as usize).min(MAX_CPUS)]
    );
    pr_info!(
        "stress: {} errors made: {} in kthreads ({} dropped unhandled), {} logging at creation, {} in hard IRQ, {} in softirq, {} in NMI\n",
        made,
        threads,
        DROPPED.load(Relaxed),
        loud,
        hardirq,
        softirq,
        nmi
    );
    pr_info!(
        "stress: {} readable in the recorder while alive, {} not; the recorder counted {} unrecorded\n",
        recorded,
        not_recorded,
        unrecorded
    );
    let (deferred, applied_later) = errtrace_linux::deferred_counts();
    pr_info!(
        "stress: standing queries left by NMIs for later {} times, applied by {} irq_work runs\n",
        deferred,
        applied_later
    );
    // Errors neither readable while alive nor counted as unrecorded by the recorder.
    let lost = made.saturating_sub(recorded.wrapping_add(unrecorded));
    pr_info!(
        "errtrace stress: made={} hardirq={} softirq={} nmi={} unrecorded={} lost={}\n",
        made,
        hardirq,
        softirq,
        nmi,
        unrecorded,
        lost
    );
    let mut ok = recorded + not_recorded == made && not_recorded == unrecorded && lost == 0;
    for (name, index, expected, logs) in [
        ("kthread retry", &LEAF_SITE, threads, false),
        ("logging", &LOUD_SITE, loud, true),
        ("hard IRQ", &HARDIRQ_SITE, hardirq, false),
        ("softirq", &SOFTIRQ_SITE, softirq, false),
        ("NMI", &NMI_SITE, nmi, false),
    ] {
        let Some(s) = site(index) else {
            pr_info!("stress: {} site: never fired\n", name);
            ok &= expected == 0;
            continue;
        };
        let c = s.counters();
        let o = s.origin();
        // A site with a message decides once per error it makes: printed or held back.
        let decided = c.logged + c.suppressed;
        pr_info!(
            "stress: {} site {}:{}: created={} (made {}) logged={} suppressed={}\n",
            name,
            o.file,
            o.line,
            c.created,
            expected,
            c.logged,
            c.suppressed
        );
        ok &= c.created == expected && (!logs || decided == c.created);
    }
    if ok {
        pr_info!("stress: counts reconcile\n");
    } else {
        pr_err!("stress: counts DO NOT reconcile\n");
    }
}
