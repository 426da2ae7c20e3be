//! A sink that drops everything (nested submodule: `sink/nop.rs`).

use super::{Level, Sink};
use core::fmt;

/// Drops every line.
pub(crate) struct Nop;

impl Sink for Nop {
    fn write(&self, _level: Level, _args: fmt::Arguments<'_>) {}
}
