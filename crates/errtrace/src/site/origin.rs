//! Where a site is: its origin (file, line, column, module, function, format), and the helpers
//! that cut Rust paths without a panic path. Part of the storage layer's sites.

use super::*;

/// Trims the helper function name the macros use to learn the enclosing function's path.
#[doc(hidden)]
pub fn function_path(raw: &'static str) -> &'static str {
    let mut s = raw.strip_suffix("::__errtrace_here").unwrap_or(raw);
    while let Some(rest) = s.strip_suffix("::{{closure}}") {
        s = rest;
    }
    s
}

/// Where a site is, and what it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Origin {
    /// Source file, as `file!()` gives it.
    pub file: &'static str,
    /// Line, 1-based.
    pub line: u32,
    /// Column, 1-based.
    pub column: u32,
    /// The module path (`demo::bus`), known for macro sites.
    pub module: Option<&'static str>,
    /// The enclosing function's path (`demo::bus::read_reg`), known for macro sites.
    pub function: Option<&'static str>,
    /// The message format string of an `err!`/`.log` site, if any.
    pub format: Option<&'static str>,
}

impl Origin {
    pub(crate) const UNKNOWN: Origin = Origin {
        file: "<unknown>",
        line: 0,
        column: 0,
        module: None,
        function: None,
        format: None,
    };

    pub(crate) fn from_location(loc: &'static Location<'static>) -> Origin {
        Origin {
            file: loc.file(),
            line: loc.line(),
            column: loc.column(),
            module: None,
            function: None,
            format: None,
        }
    }

    pub(crate) fn from_site(site: &'static Site) -> Origin {
        Origin {
            file: site.file,
            line: site.line,
            column: site.column,
            module: Some(site.module),
            function: Some(function_path((site.function)())),
            format: if site.format.is_empty() {
                None
            } else {
                Some(site.format)
            },
        }
    }

    /// The last segment of the function path (`read_reg`), as dynamic_debug lists it.
    pub fn function_name(&self) -> Option<&'static str> {
        self.function.map(|f| after_last(f, b"::"))
    }
}

/// The part of `s` after the last `sep` (all of `s` when there is none). Byte search with
/// checked slicing: no panic path, whatever the input.
pub(crate) fn after_last<'a>(s: &'a str, sep: &[u8]) -> &'a str {
    let b = s.as_bytes();
    let n = sep.len();
    let mut i = b.len();
    while i >= n && n > 0 {
        let start = i.wrapping_sub(n);
        if b.get(start..i) == Some(sep) {
            return s.get(i..).unwrap_or(s);
        }
        i = i.wrapping_sub(1);
    }
    s
}

/// The part of `s` before the first `sep` (all of `s` when there is none).
#[cfg(feature = "control")]
pub(crate) fn before_first<'a>(s: &'a str, sep: &[u8]) -> &'a str {
    let b = s.as_bytes();
    let n = sep.len();
    let mut i = 0usize;
    while n > 0 && i.wrapping_add(n) <= b.len() {
        if b.get(i..i.wrapping_add(n)) == Some(sep) {
            return s.get(..i).unwrap_or(s);
        }
        i = i.wrapping_add(1);
    }
    s
}

impl core::fmt::Display for Origin {
    /// `src/bus.rs:42:13`.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn path_segments() {
        assert_eq!(after_last("demo::bus::read_reg", b"::"), "read_reg");
        assert_eq!(after_last("read_reg", b"::"), "read_reg");
        assert_eq!(after_last("a::", b"::"), "");
        assert_eq!(after_last("src/bus.rs", b"/"), "bus.rs");
        assert_eq!(after_last("é::ü", b"::"), "ü");
    }

    #[cfg(feature = "control")]
    #[test]
    fn first_segment() {
        assert_eq!(before_first("demo::bus", b"::"), "demo");
        assert_eq!(before_first("demo", b"::"), "demo");
    }
}
