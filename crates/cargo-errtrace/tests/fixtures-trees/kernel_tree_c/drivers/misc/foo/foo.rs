//! A driver whose probe calls C functions that print, only allocate, cannot fail, and fail
//! silently: with the tree, only the last is a silent path; and a kernel-crate function that
//! fails without a word, whose log line belongs in the driver.

use kernel::bindings;
use kernel::error::{to_result, Result};
use kernel::platform;

struct Foo;

impl platform::Driver for Foo {
    fn probe(pdev: &mut platform::Device) -> Result<Foo> {
        let raw = pdev.as_raw();
        to_result(unsafe { bindings::loud(raw) })?;
        to_result(unsafe { bindings::enomem_only(raw) })?;
        to_result(unsafe { bindings::always_zero(raw) })?;
        to_result(unsafe { bindings::quiet_busy(raw) })?;
        kernel::io::map(0)?;
        // Its one unprinted failure, ENOENT, is handled: no silent path.
        let _fallback = match sharing(raw) {
            Ok(()) => false,
            Err(e) if e == ENOENT => true,
            Err(e) => return Err(e),
        };
        Ok(Foo)
    }
}

fn sharing(raw: *mut u8) -> Result {
    to_result(unsafe { bindings::sharing(raw) })
}
