//! A set of codes: what a caller expects ([`expecting`](crate::expecting())). Value layer.

use super::Code;

/// A set of [`Code`]s, built from one code, an array or a slice, at compile time where possible.
///
/// It holds every code below 192 (every errno of Linux's UAPI, which ends at 133) and the
/// kernel-internal codes 512 to 575 (`ERESTARTSYS` … `EPROBE_DEFER` … 531). Another code cannot
/// be held, and [`with`](CodeSet::with) leaves the set as it was; [`holds`](CodeSet::holds) says
/// whether a code can be.
///
/// # Examples
///
/// ```
/// use errtrace::code::{CodeSet, EAGAIN, EINTR, EIO, EPROBE_DEFER};
///
/// const RETRY: CodeSet = CodeSet::of(&[EAGAIN, EINTR]);
/// assert!(RETRY.contains(EAGAIN) && RETRY.contains(EINTR));
/// assert!(!RETRY.contains(EIO));
/// assert!(CodeSet::from(EPROBE_DEFER).contains(EPROBE_DEFER));
/// assert_eq!(CodeSet::from([EINTR, EAGAIN]), RETRY);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct CodeSet {
    /// Bits 0..128.
    lo: u128,
    /// Bits 128..256.
    hi: u128,
}

/// The bit of `code`: codes `0..192` are bits `0..192`, codes `512..576` bits `192..256` (bit
/// `b` is bit `b % 32` of word `b / 32` in [`CodeSet::to_words`]).
pub(crate) const fn bit(code: Code) -> Option<u32> {
    let v = code.get() as u32;
    if v < 192 {
        Some(v)
    } else if v >= 512 && v < 576 {
        Some(v.wrapping_sub(512 - 192))
    } else {
        None
    }
}

impl CodeSet {
    /// The empty set.
    pub const EMPTY: CodeSet = CodeSet { lo: 0, hi: 0 };

    /// The set of `codes`.
    #[inline]
    pub const fn of(codes: &[Code]) -> CodeSet {
        let mut set = CodeSet::EMPTY;
        let mut rest = codes;
        while let [c, tail @ ..] = rest {
            set = set.with(*c);
            rest = tail;
        }
        set
    }

    /// This set and `code` (unchanged if `code` cannot be held: see [`holds`](CodeSet::holds)).
    #[must_use]
    #[inline]
    pub const fn with(mut self, code: Code) -> CodeSet {
        match bit(code) {
            Some(b) if b < 128 => self.lo |= 1 << b,
            Some(b) => self.hi |= 1 << (b.wrapping_sub(128) % 128),
            None => {}
        }
        self
    }

    /// Whether `code` is in the set.
    #[inline]
    pub const fn contains(&self, code: Code) -> bool {
        match bit(code) {
            Some(b) if b < 128 => self.lo & (1 << b) != 0,
            Some(b) => self.hi & (1 << (b.wrapping_sub(128) % 128)) != 0,
            None => false,
        }
    }

    /// Whether a set can hold `code`: below 192, or from 512 to 575.
    #[inline]
    pub const fn holds(code: Code) -> bool {
        bit(code).is_some()
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(&self) -> bool {
        self.lo == 0 && self.hi == 0
    }

    /// The codes of both sets.
    #[must_use]
    #[inline]
    pub const fn union(self, other: CodeSet) -> CodeSet {
        CodeSet {
            lo: self.lo | other.lo,
            hi: self.hi | other.hi,
        }
    }

    /// The set as eight 32-bit words, lowest first (for the table of scopes, whose atomics are
    /// 32-bit on every target).
    pub(crate) const fn to_words(self) -> [u32; 8] {
        let (l, h) = (self.lo, self.hi);
        [
            l as u32,
            (l >> 32) as u32,
            (l >> 64) as u32,
            (l >> 96) as u32,
            h as u32,
            (h >> 32) as u32,
            (h >> 64) as u32,
            (h >> 96) as u32,
        ]
    }

    /// The set of [`to_words`](CodeSet::to_words)' words.
    pub(crate) const fn from_words(w: [u32; 8]) -> CodeSet {
        let [a, b, c, d, e, f, g, h] = w;
        CodeSet {
            lo: a as u128 | (b as u128) << 32 | (c as u128) << 64 | (d as u128) << 96,
            hi: e as u128 | (f as u128) << 32 | (g as u128) << 64 | (h as u128) << 96,
        }
    }

    /// The codes in the set, in increasing order.
    #[inline]
    pub fn iter(&self) -> impl Iterator<Item = Code> + '_ {
        (1u16..576)
            .filter_map(Code::new)
            .filter(move |c| self.contains(*c))
    }
}

impl From<Code> for CodeSet {
    #[inline]
    fn from(code: Code) -> CodeSet {
        CodeSet::EMPTY.with(code)
    }
}

impl<const N: usize> From<[Code; N]> for CodeSet {
    #[inline]
    fn from(codes: [Code; N]) -> CodeSet {
        CodeSet::of(&codes)
    }
}

impl From<&[Code]> for CodeSet {
    #[inline]
    fn from(codes: &[Code]) -> CodeSet {
        CodeSet::of(codes)
    }
}

impl core::fmt::Debug for CodeSet {
    /// `{EAGAIN, EINTR}`.
    #[inline]
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::code::{EAGAIN, EHWPOISON, EINTR, EIO, EPERM, EPROBE_DEFER};

    #[test]
    fn holds_every_named_code_and_nothing_else() {
        for c in Code::all() {
            let set = CodeSet::from(c);
            assert!(set.contains(c), "{c:?}");
            assert_eq!(set.iter().collect::<std::vec::Vec<_>>(), [c]);
        }
        let odd = Code::new(1000).unwrap();
        assert!(!CodeSet::holds(odd));
        assert!(CodeSet::EMPTY.with(odd).is_empty());
        assert!(!CodeSet::from(odd).contains(odd));
    }

    #[test]
    fn union_and_bounds() {
        let a = CodeSet::of(&[EPERM, EHWPOISON]);
        let b = CodeSet::from([EPROBE_DEFER, EAGAIN]);
        let u = a.union(b);
        for c in [EPERM, EHWPOISON, EPROBE_DEFER, EAGAIN] {
            assert!(u.contains(c));
        }
        assert!(!u.contains(EINTR) && !u.contains(EIO));
        assert!(
            CodeSet::holds(Code::new(191).unwrap()) && !CodeSet::holds(Code::new(192).unwrap())
        );
        assert!(
            CodeSet::holds(Code::new(575).unwrap()) && !CodeSet::holds(Code::new(576).unwrap())
        );
        assert!(!CodeSet::holds(Code::new(511).unwrap()));
        assert_eq!(std::format!("{b:?}"), "{EAGAIN, EPROBE_DEFER}");
        assert_eq!(CodeSet::from_words(u.to_words()), u);
    }
}
