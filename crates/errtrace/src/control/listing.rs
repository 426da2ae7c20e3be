//! The listing: one line per site, in dynamic_debug's style, with its counters and policy.

use crate::policy::kind::Policy;
use crate::site::{flags, SiteRef};
use core::fmt;
use core::sync::atomic::Ordering;

/// Writes every known site, one a line, in dynamic_debug's style.
///
/// With the `registry` feature, sites made by `err!` and `fail_point!` are listed before they
/// first fire; without it (e.g. in the kernel module), sites appear when first used.
///
/// # Errors
///
/// The writer's error.
pub fn list(out: &mut dyn fmt::Write) -> fmt::Result {
    #[cfg(feature = "std")]
    super::init_from_env();
    super::register_all();
    for s in crate::site::all() {
        write_site(out, s)?;
        out.write_char('\n')?;
    }
    Ok(())
}

fn effective_print(site: SiteRef, p: Option<Policy>) -> bool {
    let f = site.state().flags(Ordering::Relaxed);
    if f & flags::PRINT_OFF != 0 {
        return false;
    }
    f & flags::PRINT_ON != 0 || !matches!(p, Some(Policy::Quiet | Policy::Debug))
}

/// One listing line for `site` (without the newline).
///
/// # Errors
///
/// The writer's error.
pub fn write_site(out: &mut dyn fmt::Write, site: SiteRef) -> fmt::Result {
    let o = site.origin();
    write!(
        out,
        "{}:{} [{}]{}",
        o.file,
        o.line,
        o.module.unwrap_or("?"),
        o.function_name().unwrap_or("?")
    )?;
    let code = site.last_code();
    let pol = match code {
        Some(c) => Some(crate::policy::decide::effective(Some(site), c)),
        // Before its first error: the runtime policy, the one written at the site, or the
        // build-time class of the code written there (`err!(EAGAIN, …)` is quiet).
        None => {
            let w = site.state().policy.load(Ordering::Relaxed);
            Policy::from_word(w)
                .or(site.source_policy())
                .or(site.quiet_code().then_some(Policy::Quiet))
        }
    };
    let f = site.state().flags(Ordering::Relaxed);
    out.write_str(" =")?;
    let mut any = false;
    if effective_print(site, pol) {
        out.write_char('p')?;
        any = true;
    }
    // dynamic_debug's order, then errtrace's own `h`.
    for (bit, c) in [
        (flags::MODULE, 'm'),
        (flags::FUNCTION, 'f'),
        (flags::SOURCE, 's'),
        (flags::LINE, 'l'),
        (flags::THREAD, 't'),
        (flags::TRAIL, 'h'),
    ] {
        if f & bit != 0 {
            out.write_char(c)?;
            any = true;
        }
    }
    if !any {
        out.write_char('_')?;
    }
    match code {
        Some(c) => write!(out, " code={c:?}")?,
        None => out.write_str(" code=-")?,
    }
    let n = site.counters();
    write!(
        out,
        " created={} logged={} suppressed={}",
        n.created, n.logged, n.suppressed
    )?;
    match pol {
        Some(p) => write!(out, " policy={p}")?,
        None => out.write_str(" policy=default")?,
    }
    if n.dropped > 0 {
        write!(out, " dropped={}", n.dropped)?;
    }
    match site.kind() {
        crate::site::SiteKind::Error => {}
        crate::site::SiteKind::Log => out.write_str(" kind=log")?,
        crate::site::SiteKind::FailPoint => out.write_str(" kind=fail")?,
        crate::site::SiteKind::Boundary => out.write_str(" kind=boundary")?,
        #[allow(unreachable_patterns)]
        _ => {}
    }
    Ok(())
}
