//! The implementations measured.

pub mod errno;
pub mod errtrace_impl;
pub mod peers;
