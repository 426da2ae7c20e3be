//! Errno codes: the value half of an [`Error`](crate::Error).
//!
//! A [`Code`] is a positive errno in `1..=4095` (the kernel's `MAX_ERRNO`). Every Linux errno has a
//! named constant here, with the same name as in the kernel's `kernel::error::code`, including the
//! kernel-internal ones (`ERESTARTSYS` … `EPROBE_DEFER` = 517, `ENOTSUPP` = 524, …).
//!
//! # Examples
//!
//! ```
//! use errtrace::code::{self, Code};
//!
//! assert_eq!(code::EINVAL.name(), "EINVAL");
//! assert_eq!(code::EINVAL.description(), "Invalid argument");
//! assert_eq!(code::EINVAL.to_errno(), -22);
//! assert_eq!(Code::from_errno(-22), Ok(code::EINVAL));
//! assert_eq!(Code::from_errno(22), Ok(code::EINVAL));
//! assert!(Code::from_errno(0).is_err());
//! assert!(Code::from_errno(-4096).is_err());
//! ```

use core::fmt;
use core::num::NonZeroU16;

pub(crate) mod set;
pub use set::CodeSet;

/// The largest errno value, as in the kernel's `MAX_ERRNO`.
pub const MAX_ERRNO: u16 = 4095;

/// A positive errno value in `1..=MAX_ERRNO`.
///
/// `Code` is `Copy` and two bytes; it carries no location. Turn it into an [`Error`](crate::Error)
/// with [`Error::new`](crate::Error::new), the [`err!`](crate::err) macro, or `Err(code)?`, each of
/// which records where the error was made.
///
/// # Invariants
///
/// The value is always in `1..=MAX_ERRNO`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Code(NonZeroU16);

/// The value given to [`Code::from_errno`] or [`Error::from_errno`](crate::Error::from_errno) is
/// not an errno: it is zero or its magnitude is above [`MAX_ERRNO`].
///
/// Unlike the kernel's `Error::from_errno`, errtrace never turns a bad value silently into
/// `EINVAL`: the caller decides.
///
/// # Examples
///
/// ```
/// let bad = errtrace::code::Code::from_errno(5000).unwrap_err();
/// assert_eq!(bad.value(), 5000);
/// assert_eq!(bad.to_string(), "5000 is not an errno (expected 1..=4095 or -4095..=-1)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InvalidErrno(i32);

impl InvalidErrno {
    /// The rejected value.
    pub const fn value(self) -> i32 {
        self.0
    }
}

impl fmt::Display for InvalidErrno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} is not an errno (expected 1..={MAX_ERRNO} or -{MAX_ERRNO}..=-1)",
            self.0
        )
    }
}

impl core::error::Error for InvalidErrno {}

impl Code {
    /// Makes a code from a positive value, at compile time where possible.
    ///
    /// Returns `None` for 0 and for values above [`MAX_ERRNO`].
    ///
    /// # Examples
    ///
    /// ```
    /// use errtrace::code::Code;
    /// const MY_CODE: Option<Code> = Code::new(4000);
    /// assert_eq!(MY_CODE.map(Code::get), Some(4000));
    /// assert_eq!(Code::new(0), None);
    /// ```
    pub const fn new(value: u16) -> Option<Code> {
        if value > MAX_ERRNO {
            return None;
        }
        match NonZeroU16::new(value) {
            Some(v) => Some(Code(v)),
            None => None,
        }
    }

    /// Accepts an errno in the kernel's negative convention (`-22`) or as a positive value (`22`).
    ///
    /// # Errors
    ///
    /// [`InvalidErrno`] for 0 and for values whose magnitude is above [`MAX_ERRNO`].
    pub const fn from_errno(errno: i32) -> Result<Code, InvalidErrno> {
        let magnitude = errno.unsigned_abs();
        if magnitude == 0 || magnitude > MAX_ERRNO as u32 {
            return Err(InvalidErrno(errno));
        }
        match Code::new(magnitude as u16) {
            Some(c) => Ok(c),
            None => Err(InvalidErrno(errno)),
        }
    }

    /// The positive value, `1..=4095`.
    pub const fn get(self) -> u16 {
        self.0.get()
    }

    /// The kernel's convention: the negative errno (`EINVAL` → `-22`).
    pub const fn to_errno(self) -> i32 {
        -(self.0.get() as i32)
    }

    /// The symbolic name, such as `"EINVAL"`; `"E?"` for a value Linux does not name (a private
    /// code of an application).
    ///
    /// Aliases (`EWOULDBLOCK`, `EDEADLOCK`) report the primary name (`EAGAIN`, `EDEADLK`).
    pub fn name(self) -> &'static str {
        match lookup(self.get()) {
            Some((_, name, _)) => name,
            None => "E?",
        }
    }

    /// The description, such as `"Invalid argument"`; `"Unknown error"` for unnamed values.
    pub fn description(self) -> &'static str {
        match lookup(self.get()) {
            Some((_, _, desc)) => desc,
            None => "Unknown error",
        }
    }

    /// Looks a code up by its name (`"EINVAL"`, also the aliases `"EWOULDBLOCK"`, `"EDEADLOCK"`,
    /// `"ENOTSUP"`), or by its number (`"22"`, `"-22"`).
    ///
    /// # Examples
    ///
    /// ```
    /// use errtrace::code::{self, Code};
    /// assert_eq!(Code::from_name("EPROBE_DEFER"), Some(code::EPROBE_DEFER));
    /// assert_eq!(Code::from_name("EWOULDBLOCK"), Some(code::EAGAIN));
    /// assert_eq!(Code::from_name("-5"), Some(code::EIO));
    /// assert_eq!(Code::from_name("ENOPE"), None);
    /// ```
    pub fn from_name(name: &str) -> Option<Code> {
        match name {
            "EWOULDBLOCK" => return Some(EAGAIN),
            "EDEADLOCK" => return Some(EDEADLK),
            "ENOTSUP" => return Some(EOPNOTSUPP),
            _ => {}
        }
        if let Some((v, _, _)) = TABLE.iter().find(|(_, n, _)| *n == name) {
            return Code::new(*v);
        }
        let n: i32 = name.parse().ok()?;
        Code::from_errno(n).ok()
    }

    /// All codes errtrace knows by name, in ascending order.
    ///
    /// # Examples
    ///
    /// ```
    /// let all: Vec<_> = errtrace::code::Code::all().collect();
    /// assert_eq!(all.first().map(|c| c.name()), Some("EPERM"));
    /// assert!(all.iter().any(|c| c.name() == "ENOTSUPP"));
    /// ```
    pub fn all() -> impl Iterator<Item = Code> {
        TABLE.iter().filter_map(|(v, _, _)| Code::new(*v))
    }
}

fn lookup(value: u16) -> Option<&'static (u16, &'static str, &'static str)> {
    TABLE
        .binary_search_by_key(&value, |(v, _, _)| *v)
        .ok()
        .and_then(|i| TABLE.get(i))
}

impl fmt::Debug for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match lookup(self.get()) {
            Some((_, name, _)) => f.write_str(name),
            None => write!(f, "E?({})", self.get()),
        }
    }
}

impl fmt::Display for Code {
    /// `EINVAL: Invalid argument`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {}", self, self.description())
    }
}

/// A code is a standard error, so what a [`boundary`](crate::boundary()) hands back goes up with
/// `?` in `fn main() -> anyhow::Result<()>` or into a `Box<dyn Error>`.
impl core::error::Error for Code {}

macro_rules! declare_codes {
    ($($name:ident = $value:literal, $desc:literal;)*) => {
        $(
            #[doc = concat!("`", stringify!($name), "` (", stringify!($value), "): ", $desc, ".")]
            pub const $name: Code = match Code::new($value) {
                Some(c) => c,
                None => Code(NonZeroU16::MIN),
            };
        )*

        /// Every errno errtrace knows by name: `(value, name, description)`, sorted by value.
        pub(crate) const TABLE: &[(u16, &str, &str)] = &[$(($value, stringify!($name), $desc)),*];
    };
}

include!("errno_table.rs");

/// Equal strings, in constant context.
const fn str_eq(a: &str, b: &str) -> bool {
    let (mut a, mut b) = (a.as_bytes(), b.as_bytes());
    loop {
        match (a, b) {
            ([x, ra @ ..], [y, rb @ ..]) => {
                if *x != *y {
                    return false;
                }
                a = ra;
                b = rb;
            }
            ([], []) => return true,
            _ => return false,
        }
    }
}

/// The errno of a code name (`"EAGAIN"` → 11), aliases included, in constant context: the
/// build-time class of a code written by its name in `err!`.
pub(crate) const fn errno_of_name(name: &str) -> Option<u16> {
    if str_eq(name, "EWOULDBLOCK") {
        return Some(EAGAIN.get());
    }
    if str_eq(name, "EDEADLOCK") {
        return Some(EDEADLK.get());
    }
    if str_eq(name, "ENOTSUP") {
        return Some(EOPNOTSUPP.get());
    }
    let mut rest = TABLE;
    while let [(v, n, _), tail @ ..] = rest {
        if str_eq(n, name) {
            return Some(*v);
        }
        rest = tail;
    }
    None
}

/// Alias of [`EAGAIN`], as in Linux.
pub const EWOULDBLOCK: Code = EAGAIN;
/// Alias of [`EDEADLK`], as in Linux.
pub const EDEADLOCK: Code = EDEADLK;
/// Alias of [`EOPNOTSUPP`], as in glibc.
pub const ENOTSUP: Code = EOPNOTSUPP;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_in_constant_context_as_from_name_does() {
        for (v, n, _) in TABLE {
            assert_eq!(errno_of_name(n), Some(*v), "{n}");
        }
        for alias in ["EWOULDBLOCK", "EDEADLOCK", "ENOTSUP"] {
            assert_eq!(errno_of_name(alias), Code::from_name(alias).map(Code::get));
        }
        assert_eq!(errno_of_name("code"), None);
        assert_eq!(errno_of_name("EIO2"), None);
        assert_eq!(errno_of_name("EI"), None);
        assert_eq!(errno_of_name(""), None);
        const { assert!(crate::policy::classes::quiet_by_name("EAGAIN")) };
        assert!(crate::policy::classes::quiet_by_name("EWOULDBLOCK"));
        assert!(crate::policy::classes::quiet_by_name("ENOMEM"));
        assert!(!crate::policy::classes::quiet_by_name("EIO"));
        assert!(!crate::policy::classes::quiet_by_name("retry_code"));
    }

    #[test]
    fn table_is_sorted_and_unique() {
        for w in TABLE.windows(2) {
            assert!(w[0].0 < w[1].0, "{:?} before {:?}", w[0], w[1]);
        }
        assert_eq!(TABLE.len(), 150);
    }

    #[test]
    fn kernel_internal_codes() {
        assert_eq!(ERESTARTSYS.get(), 512);
        assert_eq!(EPROBE_DEFER.get(), 517);
        assert_eq!(ENOTSUPP.get(), 524);
        assert_eq!(EPROBE_DEFER.name(), "EPROBE_DEFER");
    }

    #[test]
    fn unknown_code_prints_number() {
        let c = Code::new(4000).unwrap();
        assert_eq!(std::format!("{c:?}"), "E?(4000)");
        assert_eq!(c.name(), "E?");
    }

    #[test]
    fn extremes() {
        assert!(Code::from_errno(i32::MIN).is_err());
        assert!(Code::from_errno(i32::MAX).is_err());
        assert_eq!(Code::from_errno(4095).map(Code::get), Ok(4095));
        assert_eq!(Code::from_errno(-4095).map(Code::get), Ok(4095));
    }
}
