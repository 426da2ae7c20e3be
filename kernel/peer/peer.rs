// SPDX-License-Identifier: GPL-2.0
//! A second module that uses errtrace (its own copy, built from the same source), loaded beside
//! the demo and unloaded again and again by the stress scenario: two errtrace users at once, no
//! duplicate symbols, each with its own sites, records and dynamic_debug entries. The same file
//! is also built into the kernel as `errtrace_builtin` (Linux 6.13+): a copy of errtrace in
//! vmlinux beside the modules' copies.
//!
//! Both are built as a driver ships errtrace: without its control language (kernel/test.sh
//! builds their copy without the `control` feature). Their sites' print flags are
//! dynamic_debug's, and their fail points are armed by the kernel's fault injection
//! (`fault.rs`, `fault_attr.c`): `insmod errtrace_peer.ko fail=1,100,0,1 fail_points=peer_setup`
//! makes `init` fail at its fail point.

// The kernel's fault injection for errtrace's fail points.
mod fault;

use errtrace::{
    code::{ENODEV, ENOENT},
    err, ResultExt,
};
use kernel::prelude::*;

#[cfg(all(linux_6_13, MODULE))]
module! {
    type: ErrtracePeer,
    name: "errtrace_peer",
    authors: ["errtrace"],
    description: "A second errtrace user, loaded beside errtrace_demo",
    license: "GPL",
}

// The same source built into the kernel (kernel/test.sh's built-in copy, Linux 6.13+): a third
// copy of errtrace beside the two modules' own.
#[cfg(all(linux_6_13, not(MODULE)))]
module! {
    type: ErrtracePeer,
    name: "errtrace_builtin",
    authors: ["errtrace"],
    description: "errtrace built into the kernel, beside the modules' copies",
    license: "GPL",
}

#[cfg(not(linux_6_13))]
module! {
    type: ErrtracePeer,
    name: "errtrace_peer",
    author: "errtrace",
    description: "A second errtrace user, loaded beside errtrace_demo",
    license: "GPL",
}

struct ErrtracePeer {
    /// errtrace's hooks, dropped (waited for) before the last line.
    errtrace: Option<errtrace_linux::Installed>,
}

/// The boundary of `init`, by the name this copy is loaded as.
const INIT: &str = if cfg!(MODULE) {
    "errtrace_peer init"
} else {
    "errtrace_builtin init"
};

/// How many errors `init` makes.
const ERRORS: u32 = 100;

fn lookup(i: u32) -> errtrace::Result<u32> {
    if i % 10 == 9 {
        return Err(err!(ENOENT, "peer: entry {} missing", i));
    }
    Err(err!(quiet, ENOENT))
}

#[errtrace::trace]
fn find(i: u32) -> errtrace::Result<u32> {
    let v = lookup(i)?;
    Ok(v)
}

/// What `init` sets up before its errors: a fail point the kernel's fault injection can arm.
fn set_up() -> errtrace::Result {
    errtrace::fail_point!("peer_setup", ENODEV);
    Ok(())
}

#[errtrace::trace]
fn start() -> errtrace::Result {
    set_up()?;
    Ok(())
}

impl kernel::Module for ErrtracePeer {
    fn init(_module: &'static ThisModule) -> Result<Self> {
        // errtrace's Linux glue (kernel/kit): its events under this copy's own tracefs system
        // (errtrace_peer, errtrace_builtin), lines at their levels with the module's name.
        // SAFETY: first in `init`, before the module makes an error; `Installed` is dropped in
        // `Drop`, the module's exit.
        let errtrace = unsafe { errtrace_linux::install() }?;
        fault::install()?;
        if let Err(code) = errtrace::boundary(INIT, start()) {
            fault::remove();
            return Err(Error::from_errno(code.to_errno()));
        }
        let mut recorded = 0;
        for i in 0..ERRORS {
            if let Err(e) = find(i).trace() {
                if e.seq().is_some_and(|s| errtrace::recorder::read(s).is_ok()) {
                    recorded += 1;
                }
                e.handled();
            }
        }
        let created: u32 = errtrace::control::sites()
            .map(|s| s.counters().created)
            .sum();
        pr_info!(
            "loaded: {} errors made at {} sites, {} readable in its recorder\n",
            created,
            errtrace::control::site_count(),
            recorded
        );
        Ok(ErrtracePeer {
            errtrace: Some(errtrace),
        })
    }
}

impl Drop for ErrtracePeer {
    fn drop(&mut self) {
        fault::remove();
        drop(self.errtrace.take());
        pr_info!("unloaded\n");
    }
}
