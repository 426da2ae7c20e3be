//! errtrace on bare metal: a Cortex-M3 firmware (TI LM3S6965, run under qemu's `lm3s6965evb`
//! board) that uses errtrace without `std`, an allocator or an operating system, with the
//! `embedded` capacity profile (`ERRTRACE_PROFILE=embedded`, set in `.cargo/config.toml`).
//!
//! A pretend sensor driver fails to read its chip id; the firmware shows, in order:
//!
//! 1. the error made by `err!` with a message, logged once by its creator, with its origin;
//! 2. its trail: two hops, one by `#[errtrace::trace]`, one by `.during()`, found in the flight
//!    recorder's dump while the error is still live;
//! 3. a fault point forced to fail by a control query, and the error it injects reported at a
//!    boundary;
//! 4. a bus scan that expects `EREMOTEIO` from absent addresses (`errtrace::expecting`): their
//!    creator's lines are held back and counted;
//! 5. the list of sites, which includes an `err!` site that never fired: the link-time registry
//!    (kept in flash by errtrace's `errtrace-registry.x`) survived into the firmware.
//!
//! Every line goes to the host's standard output through semihosting. `bash
//! scripts/test-baremetal.sh` builds the firmware, checks errtrace's RAM and where the registry
//! was linked, runs it and compares its output with `expected.txt`.

#![no_std]
#![no_main]

use core::fmt;

use cortex_m_rt::entry;
use cortex_m_semihosting::debug::{self, EXIT_FAILURE, EXIT_SUCCESS};
use cortex_m_semihosting::{hprint, hprintln};
use errtrace::code::{EBUSY, EIO, EREMOTEIO, ETIMEDOUT};
use errtrace::sink::{Record, Sink};
use errtrace::{boundary, control, err, fail_point, recorder, ResultExt};
// A panic prints its message by semihosting and ends qemu with a failure status.
use panic_semihosting as _;

/// The host's console (semihosting), as a `fmt::Write` for errtrace's dump and listing.
struct Console;

impl fmt::Write for Console {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        hprint!("{}", s);
        Ok(())
    }
}

/// errtrace's sink: each record's text, as a line (a boundary's report: several) on the console.
/// A sink must not make errors itself; this one only formats and writes.
struct SemihostingSink;

impl Sink for SemihostingSink {
    fn emit(&self, record: &Record<'_>) {
        hprintln!("errtrace: {}", record);
    }
}

static SINK: SemihostingSink = SemihostingSink;

// ---- a pretend sensor driver ----

/// The chip-id register, whose read fails on this board.
const REG_ID: u8 = 0x10;
/// The status register; bit 0 set means busy.
const REG_STATUS: u8 = 0x01;

/// A register read over the bus. The read of `REG_ID` fails: `err!` makes the error where it
/// happens and, as it has a message, logs it there, once, with its origin.
fn read_reg(reg: u8) -> errtrace::Result<u8> {
    if reg == REG_ID {
        return Err(err!(EIO, "read of reg {:#x} failed", reg));
    }
    Ok(0)
}

/// Waits for the sensor to be ready. The sensor is never busy here, so this `err!` site never
/// fires; it is listed all the same (step 5), from the registry.
fn wait_ready() -> errtrace::Result {
    if read_reg(REG_STATUS)? & 1 != 0 {
        return Err(err!(ETIMEDOUT, "sensor stayed busy"));
    }
    Ok(())
}

/// `#[errtrace::trace]` records a hop at each `?` of the function.
#[errtrace::trace]
fn chip_id() -> errtrace::Result<u8> {
    wait_ready()?;
    let id = read_reg(REG_ID)?;
    Ok(id)
}

/// `.during()` records a hop with a message.
fn probe() -> errtrace::Result {
    chip_id().during("reading chip id")?;
    Ok(())
}

/// Turns on the sensor's interrupt. A fail point: a control query can make it fail (step 3).
fn enable_irq() -> errtrace::Result {
    fail_point!("sensor_irq", EBUSY);
    Ok(())
}

/// Whether a sensor answers at `addr` on the bus: only 0x48 does; elsewhere the transfer gets
/// no acknowledge, and the creator would print a line for each address.
fn ping(addr: u8) -> errtrace::Result {
    if addr != 0x48 {
        return Err(err!(EREMOTEIO, "no ACK from {:#x}", addr));
    }
    Ok(())
}

/// A bus scan: the caller expects `EREMOTEIO` from absent addresses (`errtrace::expecting`), so
/// their creator's lines are held back, in the program's one context; any other error goes up.
fn scan() -> errtrace::Result<u32> {
    let mut found = 0u32;
    for addr in 0x44u8..0x4c {
        match errtrace::expecting(EREMOTEIO, || ping(addr)) {
            Ok(()) => found = found.wrapping_add(1),
            Err(e) => e.recover(EREMOTEIO)?,
        }
    }
    Ok(found)
}

// ---- the firmware ----

#[entry]
fn main() -> ! {
    match run() {
        Ok(()) => {
            hprintln!("baremetal: all steps passed");
            debug::exit(EXIT_SUCCESS);
        }
        Err(what) => {
            hprintln!("baremetal: FAILED: {}", what);
            debug::exit(EXIT_FAILURE);
        }
    }
    // `debug::exit` returns only when no semihosting host is there to end the program.
    loop {
        cortex_m::asm::wfi();
    }
}

/// The steps; an `Err` says which check failed.
fn run() -> Result<(), &'static str> {
    // The capacities errtrace was built with: `ERRTRACE_PROFILE=embedded` picked them.
    if !errtrace::config::EMBEDDED {
        return Err("errtrace was not built with ERRTRACE_PROFILE=embedded");
    }
    hprintln!(
        "errtrace on a Cortex-M3, embedded profile: {} recorder slots of {} hops, {} location sites",
        errtrace::config::RECORDER_SLOTS,
        errtrace::config::HOPS,
        errtrace::config::LOCATION_SITES
    );

    // Where errtrace's records go. Without a sink, a `no_std` build prints nothing (the recorder
    // still records).
    errtrace::sink::set_sink(&SINK).map_err(|_| "a sink was already set")?;

    // Step 1: the probe fails. The creator's log line prints now, with the error's origin.
    hprintln!("1. probe: an error made by err!, logged once by its creator");
    let e = match probe() {
        Err(e) if e.code() == EIO => e,
        Err(e) => {
            e.handled();
            return Err("the probe failed with another code than EIO");
        }
        Ok(()) => return Err("the probe did not fail"),
    };

    // Step 2: the flight recorder, while the error is live: its event holds the origin and the
    // two hops, which the error itself (8 bytes) does not carry.
    hprintln!("2. the flight recorder, with the error still live");
    let dumped = recorder::dump(&mut Console);
    let live_with_two_hops = e
        .seq()
        .and_then(|seq| recorder::read(seq).ok())
        .is_some_and(|event| event.is_live() && event.hops().count() == 2);
    // The firmware carries on without the sensor: the error is handled here, which ends it
    // (whatever the checks below find).
    e.handled();
    dumped.map_err(|_| "the dump failed")?;
    if !live_with_two_hops {
        return Err("the error's event is not live with two hops");
    }

    // Step 3: force the fail point once, by a query, as an operator or a test would. The
    // injected error is not logged by anyone on its way up, so the boundary, where it leaves the
    // driver, prints its full report.
    hprintln!("3. a fault point forced by a control query");
    control::apply("fail name=sensor_irq times=1").map_err(|_| "the query was rejected")?;
    if boundary("sensor irq setup", enable_irq()) != Err(EBUSY) {
        return Err("the forced fault point did not fail with EBUSY");
    }
    // `times=1`: the next call passes.
    if let Err(e) = enable_irq() {
        e.handled();
        return Err("the fault point failed twice");
    }

    // Step 4: a bus scan of eight addresses, one of which answers. The seven misses print
    // nothing; they are counted at `ping`'s site (step 5).
    hprintln!("4. a bus scan expecting EREMOTEIO: the absent addresses print nothing");
    match scan() {
        Ok(1) => hprintln!("scan: 1 sensor found"),
        Ok(_) => return Err("the scan did not find exactly one sensor"),
        Err(e) => {
            e.handled();
            return Err("the scan failed");
        }
    }

    // Step 5: every site, with its counters. `wait_ready`'s `err!` never fired: only the
    // link-time registry knows it.
    hprintln!("5. the sites, from the link-time registry");
    control::list(&mut Console).map_err(|_| "the listing failed")?;
    let never_fired = control::sites().any(|s| {
        s.origin().function == Some("errtrace_baremetal::wait_ready") && s.counters().created == 0
    });
    if !never_fired {
        return Err("wait_ready's err! site is not listed: the registry is missing");
    }
    if recorder::unrecorded() != 0 {
        return Err("an error found no slot in the recorder");
    }
    Ok(())
}
