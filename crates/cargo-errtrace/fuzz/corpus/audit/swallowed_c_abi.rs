// Negative: in an `extern "C"` fn, an `Err` arm that turns the error into the value its C
// caller reads (a poll mask, a null pointer) hands the error over; it does not swallow it.
fn poll_ready() -> Result<u32, Error> {
    Err(EAGAIN)
}

const POLLERR: u32 = 8;

#[no_mangle]
pub extern "C" fn demo_poll() -> u32 {
    match poll_ready() {
        Ok(mask) => mask,
        Err(_) => POLLERR,
    }
}

#[no_mangle]
pub unsafe extern "C" fn demo_alloc() -> *mut u8 {
    match poll_ready() {
        Ok(_) => core::ptr::NonNull::dangling().as_ptr(),
        Err(_) => core::ptr::null_mut(),
    }
}

// Positive: the same arm in a Rust function swallows the error.
fn rust_poll() -> u32 {
    match poll_ready() {
        Ok(mask) => mask,
        Err(_) => POLLERR,
    }
}
