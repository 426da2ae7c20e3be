//! Runtime control of sites, in the model of the kernel's dynamic_debug.
//!
//! (The query language is in [`query`](crate::control::query); this module holds the flag bits
//! and applies parsed queries to the site table.)

/// Per-site control flags.
pub mod flags {
    /// `+p` was given: print even quiet and debug sites.
    pub const PRINT_ON: u32 = 1 << 0;
    /// `-p` was given: never print this site.
    pub const PRINT_OFF: u32 = 1 << 1;
    /// `f`: prefix the function name.
    pub const FUNCTION: u32 = 1 << 2;
    /// `l`: prefix the line number.
    pub const LINE: u32 = 1 << 3;
    /// `m`: prefix the module path.
    pub const MODULE: u32 = 1 << 4;
    /// `t`: prefix the thread/CPU id.
    pub const THREAD: u32 = 1 << 5;
    /// `s`: print the trail after the message.
    pub const TRAIL: u32 = 1 << 6;
}
