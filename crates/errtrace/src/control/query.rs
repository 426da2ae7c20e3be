//! The control language: parsing queries into commands.
//!
//! The grammar is stated once, in the guide (`docs/src/control.md`, "The grammar"); this module
//! implements it, and the fuzz corpus and the tests in `tests/test_control.rs` hold it to it.
//!
//! `GLOB` takes `*` (any run) and `?` (any one character). Parsing never allocates: a command
//! keeps its patterns in fixed buffers of [`MAX_PATTERN`] bytes.

use crate::code::Code;
use crate::policy::kind::Policy;
use core::fmt;

/// The longest pattern or fail-point name a query may hold.
pub const MAX_PATTERN: usize = 64;

/// A glob pattern held inline.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Pattern {
    bytes: [u8; MAX_PATTERN],
    len: u8,
}

impl Pattern {
    fn new(s: &str) -> Option<Pattern> {
        if s.len() > MAX_PATTERN {
            return None;
        }
        let mut bytes = [0u8; MAX_PATTERN];
        bytes.get_mut(..s.len())?.copy_from_slice(s.as_bytes());
        Some(Pattern {
            bytes,
            len: s.len() as u8,
        })
    }

    /// A pattern from a fail point's name (at most [`MAX_PATTERN`] bytes).
    pub fn from_name(s: &str) -> Option<Pattern> {
        Pattern::new(s)
    }

    /// The pattern text.
    pub fn as_str(&self) -> &str {
        let b = self.bytes.get(..self.len as usize).unwrap_or(&[]);
        core::str::from_utf8(b).unwrap_or("")
    }

    /// Whether `text` matches the glob (`*`, `?`).
    pub fn matches(&self, text: &str) -> bool {
        glob(self.as_str().as_bytes(), text.as_bytes())
    }
}

impl fmt::Debug for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

/// `s` split at the first `sep` byte (ASCII), like `str::split_once` but as a byte search (no
/// pattern machinery: smaller code in the kernel module).
fn split_at_byte(s: &str, sep: u8) -> Option<(&str, &str)> {
    let i = s.bytes().position(|b| b == sep)?;
    Some((s.get(..i)?, s.get(i.wrapping_add(1)..)?))
}

/// `s` split at the last `sep` byte (ASCII).
fn rsplit_at_byte(s: &str, sep: u8) -> Option<(&str, &str)> {
    let i = s.bytes().rposition(|b| b == sep)?;
    Some((s.get(..i)?, s.get(i.wrapping_add(1)..)?))
}

/// Iterative glob matching with backtracking to the last `*` (linear in practice, never
/// recursive, so no input can exhaust the stack).
pub(crate) fn glob(pat: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0usize, 0usize);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pat.get(p) {
            Some(b'*') => {
                star = Some((p, t));
                p = p.wrapping_add(1);
            }
            Some(&c) if c == b'?' || Some(&c) == text.get(t) => {
                p = p.wrapping_add(1);
                t = t.wrapping_add(1);
            }
            _ => match star {
                Some((sp, st)) => {
                    p = sp.wrapping_add(1);
                    t = st.wrapping_add(1);
                    star = Some((sp, st.wrapping_add(1)));
                }
                None => return false,
            },
        }
    }
    while pat.get(p) == Some(&b'*') {
        p = p.wrapping_add(1);
    }
    p == pat.len()
}

pub use crate::site::FlagOp;

/// A parsed site query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SiteQuery {
    /// `file GLOB` (matched against the whole path and against the file name).
    pub file: Option<Pattern>,
    /// `func GLOB` (matched against the function name and its whole path).
    pub func: Option<Pattern>,
    /// `module GLOB` (matched against the module path and its first segment).
    pub module: Option<Pattern>,
    /// `format GLOB` (matched against the message format).
    pub format: Option<Pattern>,
    /// `line` range, inclusive.
    pub lines: Option<(u32, u32)>,
    /// `code CODE`.
    pub code: Option<Code>,
    /// The flags action, if any: operation and flag bits (see [`flags`](crate::control::flags)).
    pub flags: Option<(FlagOp, u32)>,
    /// A policy word, if any.
    pub policy: Option<Policy>,
}

/// A parsed fault-injection query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FailQuery {
    /// The fail point's name (a glob).
    pub name: Pattern,
    /// Percent, 0..=100.
    pub probability: Option<u32>,
    /// Fail every Nth call (≥ 1).
    pub interval: Option<u32>,
    /// Failures left; -1 unlimited.
    pub times: Option<i32>,
    /// The code to inject (default: the fail point's own).
    pub code: Option<Code>,
    /// `off`: disable.
    pub off: bool,
}

/// One command of an input.
// Commands are short-lived stack values and never allocate; boxing the big variant would.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// Change matching sites.
    Site(SiteQuery),
    /// Configure fail points.
    Fail(FailQuery),
}

/// Why a query was rejected. Nothing of the input was applied.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct QueryError {
    /// 1-based line of the input.
    pub line: usize,
    /// 1-based column (in bytes) on that line.
    pub column: usize,
    /// What was expected there.
    pub expected: &'static str,
    found: [u8; 32],
    found_len: u8,
}

impl QueryError {
    fn new(input: &str, offset: usize, expected: &'static str, found: &str) -> QueryError {
        let before = input.get(..offset).unwrap_or("");
        let line = before
            .bytes()
            .filter(|b| *b == b'\n')
            .fold(1usize, |n, _| n.wrapping_add(1));
        let column = offset
            .wrapping_sub(
                before
                    .bytes()
                    .rposition(|b| b == b'\n')
                    .map_or(0, |i| i.wrapping_add(1)),
            )
            .wrapping_add(1);
        let mut buf = [0u8; 32];
        let mut n = found.len().min(32);
        while !found.is_char_boundary(n) {
            n = n.wrapping_sub(1);
        }
        if let (Some(dst), Some(src)) = (buf.get_mut(..n), found.as_bytes().get(..n)) {
            dst.copy_from_slice(src);
        }
        QueryError {
            line,
            column,
            expected,
            found: buf,
            found_len: n as u8,
        }
    }

    /// Without `std`: the space for queries that stand for later sites is used up.
    #[cfg(not(feature = "std"))]
    pub(crate) fn standing_full() -> QueryError {
        QueryError {
            line: 1,
            column: 1,
            expected: "room for standing queries (1 KiB without std); nothing was applied",
            found: [0; 32],
            found_len: 0,
        }
    }

    /// With `std`: keeping the input for later sites needed memory that was not there.
    #[cfg(feature = "std")]
    pub(crate) fn out_of_memory() -> QueryError {
        QueryError {
            line: 1,
            column: 1,
            expected: "memory to keep the queries for sites that appear later (nothing of this input was applied)",
            found: [0; 32],
            found_len: 0,
        }
    }

    pub(crate) fn table_full() -> QueryError {
        QueryError {
            line: 1,
            column: 1,
            expected: "room in the fault table (32 'fail' names at once; 'off' frees one); nothing was applied",
            found: [0; 32],
            found_len: 0,
        }
    }

    /// What was found instead (cut at 32 bytes), empty at the end of a query.
    pub fn found(&self) -> &str {
        core::str::from_utf8(self.found.get(..self.found_len as usize).unwrap_or(&[])).unwrap_or("")
    }
}

impl fmt::Display for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: expected {}, ",
            self.line, self.column, self.expected
        )?;
        if self.found().is_empty() {
            f.write_str("found the end of the query")
        } else {
            write!(f, "found '{}'", self.found())
        }
    }
}

impl fmt::Debug for QueryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl core::error::Error for QueryError {}

const EXPECT_KEYWORD: &str =
    "'file', 'func', 'module', 'format', 'line', 'code', 'fail', flags ('+p', '-p', '=pmfslth_') or a policy ('once', 'quiet', 'always', 'debug', 'ratelimit=B/I')";

/// Splits the input into words with their byte offsets; `"…"` quotes a word with spaces.
struct Words<'a> {
    input: &'a str,
    pos: usize,
    end: usize,
}

impl<'a> Words<'a> {
    fn next_word(&mut self) -> Option<(usize, &'a str)> {
        let bytes = self.input.as_bytes();
        while self.pos < self.end && bytes.get(self.pos).is_some_and(|b| b.is_ascii_whitespace()) {
            self.pos = self.pos.wrapping_add(1);
        }
        if self.pos >= self.end {
            return None;
        }
        let start = self.pos;
        if bytes.get(start) == Some(&b'"') {
            let mut i = start.wrapping_add(1);
            while i < self.end && bytes.get(i) != Some(&b'"') {
                i = i.wrapping_add(1);
            }
            let word = self
                .input
                .get(start.wrapping_add(1)..i.min(self.end))
                .unwrap_or("");
            self.pos = (i.wrapping_add(1)).min(self.end);
            return Some((start, word));
        }
        while self.pos < self.end
            && bytes
                .get(self.pos)
                .is_some_and(|b| !b.is_ascii_whitespace())
        {
            self.pos = self.pos.wrapping_add(1);
        }
        Some((start, self.input.get(start..self.pos).unwrap_or("")))
    }
}

/// Parses an input of one or more queries, calling `out` for each command in order.
///
/// # Errors
///
/// The first [`QueryError`]; commands already handed to `out` must then be discarded (the
/// callers of this function validate everything before applying anything).
pub fn parse(input: &str, mut out: impl FnMut(Command)) -> Result<usize, QueryError> {
    parse_dyn(input, &mut out)
}

/// [`parse`] with the callback behind a pointer: one copy of the parser, whatever the callers.
#[inline(never)]
fn parse_dyn(input: &str, out: &mut dyn FnMut(Command)) -> Result<usize, QueryError> {
    let mut count: usize = 0;
    let mut start = 0;
    loop {
        let (query_end, end) = query_bounds(input, start)?;
        if let Some(c) = parse_one(input, start, query_end)? {
            out(c);
            count = count.wrapping_add(1);
        }
        if end >= input.len() {
            return Ok(count);
        }
        start = end.wrapping_add(1);
    }
}

/// Where the query that starts at `start` ends (`;`, a newline, or a `#` comment that runs to
/// the end of the line), and where the next one may start (after the separator). `;` and `#`
/// inside a quote do not count; a quote must close on its own line.
fn query_bounds(input: &str, start: usize) -> Result<(usize, usize), QueryError> {
    let bytes = input.as_bytes();
    let mut i = start;
    let mut quote: Option<usize> = None;
    while let Some(&b) = bytes.get(i) {
        match (quote, b) {
            (Some(_), b'"') => quote = None,
            (Some(q), b'\n') => return Err(unterminated(input, q)),
            (Some(_), _) => {}
            (None, b';' | b'\n') => return Ok((i, i)),
            (None, b'"') => quote = Some(i),
            (None, b'#')
                if i == start
                    || bytes
                        .get(i.wrapping_sub(1))
                        .is_some_and(|p| p.is_ascii_whitespace()) =>
            {
                // A comment: the query ends here; the next starts after the line.
                let mut j = i;
                while bytes.get(j).is_some_and(|c| *c != b'\n') {
                    j = j.wrapping_add(1);
                }
                return Ok((i, j));
            }
            (None, _) => {}
        }
        i = i.wrapping_add(1);
    }
    match quote {
        Some(q) => Err(unterminated(input, q)),
        None => Ok((i, i)),
    }
}

fn unterminated(input: &str, at: usize) -> QueryError {
    QueryError::new(
        input,
        at,
        "a closing '\"' for this quote on the same line",
        input
            .get(at..)
            .and_then(|r| split_at_byte(r, b'\n').map_or(Some(r), |(line, _)| Some(line)))
            .unwrap_or(""),
    )
}

fn parse_u32(s: &str) -> Option<u32> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn parse_range(s: &str) -> Option<(u32, u32)> {
    match split_at_byte(s, b'-') {
        None => parse_u32(s).map(|n| (n, n)),
        Some(("", hi)) => parse_u32(hi).map(|h| (0, h)),
        Some((lo, "")) => parse_u32(lo).map(|l| (l, u32::MAX)),
        Some((lo, hi)) => {
            let (l, h) = (parse_u32(lo)?, parse_u32(hi)?);
            (l <= h).then_some((l, h))
        }
    }
}

/// The flag characters of a query and their bits, in the order [`FLAGS_EXPECTED`] names them.
const FLAG_CHARS: [(char, u32); 8] = [
    ('p', crate::site::flags::PRINT_ON),
    ('f', crate::site::flags::FUNCTION),
    ('l', crate::site::flags::LINE),
    ('m', crate::site::flags::MODULE),
    ('t', crate::site::flags::THREAD),
    ('s', crate::site::flags::SOURCE),
    ('h', crate::site::flags::TRAIL),
    ('_', 0),
];

/// What a flags word may hold: every character of [`FLAG_CHARS`] (a unit test keeps them in
/// step).
const FLAGS_EXPECTED: &str =
    "one or more of the flags p, f, l, m, t, s, h, _ after '+', '-' or '=' ('=_' clears them)";

fn parse_flags(s: &str) -> Option<(FlagOp, u32)> {
    let mut chars = s.chars();
    let op = match chars.next()? {
        '+' => FlagOp::Add,
        '-' => FlagOp::Remove,
        '=' => FlagOp::Set,
        _ => return None,
    };
    let mut bits = 0;
    let mut any = false;
    for c in chars {
        any = true;
        bits |= FLAG_CHARS.iter().find(|&&(f, _)| f == c)?.1;
    }
    // A bare '+', '-' or '=' would change nothing: it is a mistake, not a query.
    any.then_some((op, bits))
}

/// `BURST/N(ms|s)`.
fn parse_ratelimit(s: &str) -> Option<Policy> {
    let (burst, interval) = split_at_byte(s, b'/')?;
    let burst = parse_u32(burst).filter(|b| *b <= crate::policy::MAX_RUNTIME_BURST)?;
    let ms = if let Some(n) = interval.strip_suffix("ms") {
        parse_u32(n)?
    } else if let Some(n) = interval.strip_suffix("s") {
        parse_u32(n)?.checked_mul(1000)?
    } else {
        return None;
    };
    if ms > crate::policy::MAX_RUNTIME_INTERVAL_MS || (ms > 0x7FFF && ms % 1000 != 0) {
        return None;
    }
    Some(Policy::RateLimited {
        burst,
        interval_ms: ms,
    })
}

fn parse_code(s: &str) -> Option<Code> {
    Code::from_name(s)
}

#[inline(never)]
fn parse_one(input: &str, start: usize, end: usize) -> Result<Option<Command>, QueryError> {
    let mut w = Words {
        input,
        pos: start,
        end,
    };
    let Some((off, first)) = w.next_word() else {
        return Ok(None);
    };
    let err = |off: usize, expected: &'static str, found: &str| {
        Err(QueryError::new(input, off, expected, found))
    };
    if first == "fail" {
        return parse_fail(input, w, end);
    }

    let mut q = SiteQuery {
        file: None,
        func: None,
        module: None,
        format: None,
        lines: None,
        code: None,
        flags: None,
        policy: None,
    };
    let mut word = Some((off, first));
    let mut acted = false;
    while let Some((off, kw)) = word {
        let mut value = |what: &'static str| match w.next_word() {
            Some(v) => Ok(v),
            None => Err(QueryError::new(input, end, what, "")),
        };
        match kw {
            "file" if !acted => {
                let (voff, v) = value("a file pattern after 'file'")?;
                let (pat, range) = match rsplit_at_byte(v, b':') {
                    Some((f, r))
                        if r.bytes()
                            .next()
                            .is_some_and(|b| b.is_ascii_digit() || b == b'-') =>
                    {
                        (f, Some(r))
                    }
                    _ => (v, None),
                };
                q.file = Some(match Pattern::new(pat) {
                    Some(p) => p,
                    None => return err(voff, "a pattern of at most 64 bytes", v),
                });
                if let Some(r) = range {
                    match parse_range(r) {
                        Some(l) => q.lines = Some(l),
                        None => return err(voff, "a line range N, N-M, -N or N- after ':'", v),
                    }
                }
            }
            "func" | "module" | "format" if !acted => {
                let (voff, v) = value("a pattern")?;
                let Some(p) = Pattern::new(v) else {
                    return err(voff, "a pattern of at most 64 bytes", v);
                };
                match kw {
                    "func" => q.func = Some(p),
                    "module" => q.module = Some(p),
                    _ => q.format = Some(p),
                }
            }
            "line" if !acted => {
                let (voff, v) = value("a line range after 'line'")?;
                match parse_range(v) {
                    Some(l) => q.lines = Some(l),
                    None => return err(voff, "a line range N, N-M, -N or N-", v),
                }
            }
            "code" if !acted => {
                let (voff, v) = value("an errno name after 'code'")?;
                match parse_code(v) {
                    Some(c) => q.code = Some(c),
                    None => return err(voff, "an errno name such as EINVAL", v),
                }
            }
            "once" | "quiet" | "always" | "debug" if q.policy.is_none() => {
                q.policy = Some(match kw {
                    "once" => Policy::Once,
                    "quiet" => Policy::Quiet,
                    "always" => Policy::Always,
                    _ => Policy::Debug,
                });
                acted = true;
            }
            _ if kw.starts_with("ratelimit=") && q.policy.is_none() => {
                match parse_ratelimit(kw.get("ratelimit=".len()..).unwrap_or("")) {
                    Some(p) => q.policy = Some(p),
                    None => return err(off, "'ratelimit=BURST/INTERVAL' with INTERVAL in ms or s, such as ratelimit=10/5s (burst at most 8191; interval at most 32767 s, in whole seconds above 32767 ms)", kw),
                }
                acted = true;
            }
            _ if matches!(kw.as_bytes().first(), Some(b'+' | b'-' | b'=')) && q.flags.is_none() => {
                match parse_flags(kw) {
                    Some(f) => q.flags = Some(f),
                    None => return err(off, FLAGS_EXPECTED, kw),
                }
                acted = true;
            }
            _ => {
                let expected = if acted {
                    "at most one flags and one policy word after the match terms"
                } else {
                    EXPECT_KEYWORD
                };
                return err(off, expected, kw);
            }
        }
        word = w.next_word();
    }
    if !acted {
        return err(
            end,
            "flags ('+p', '-p', '=…') or a policy word at the end of the query",
            "",
        );
    }
    Ok(Some(Command::Site(q)))
}

/// The rest of a `fail` query (its own frame: a fail query and a site query are never both
/// built).
#[inline(never)]
fn parse_fail(input: &str, mut w: Words<'_>, end: usize) -> Result<Option<Command>, QueryError> {
    let err = |off: usize, expected: &'static str, found: &str| {
        Err(QueryError::new(input, off, expected, found))
    };
    let mut q = FailQuery {
        name: Pattern::new("").unwrap_or(Pattern {
            bytes: [0; MAX_PATTERN],
            len: 0,
        }),
        probability: None,
        interval: None,
        times: None,
        code: None,
        off: false,
    };
    let mut named = false;
    while let Some((off, word)) = w.next_word() {
        if word == "off" {
            q.off = true;
            continue;
        }
        let Some((key, value)) = split_at_byte(word, b'=') else {
            return err(
                off,
                "'name=', 'probability=', 'interval=', 'times=', 'code=' or 'off'",
                word,
            );
        };
        match key {
            "name" => match Pattern::new(value) {
                Some(p) if !value.is_empty() => {
                    q.name = p;
                    named = true;
                }
                _ => return err(off, "a fail point name of 1 to 64 bytes", word),
            },
            "probability" => match parse_u32(value) {
                Some(p) if p <= 100 => q.probability = Some(p),
                _ => return err(off, "a probability in percent, 0 to 100", word),
            },
            "interval" => match parse_u32(value) {
                Some(n) if n >= 1 => q.interval = Some(n),
                _ => return err(off, "an interval of at least 1", word),
            },
            "times" => match value {
                "-1" => q.times = Some(-1),
                v => match parse_u32(v) {
                    Some(n) if n <= i32::MAX as u32 => q.times = Some(n as i32),
                    _ => return err(off, "a number of times, or -1 for unlimited", word),
                },
            },
            "code" => match parse_code(value) {
                Some(c) => q.code = Some(c),
                None => return err(off, "an errno name such as ENOMEM", word),
            },
            _ => {
                return err(
                    off,
                    "'name=', 'probability=', 'interval=', 'times=', 'code=' or 'off'",
                    word,
                )
            }
        }
    }
    if !named {
        return err(end, "'name=NAME' in a 'fail' query", "");
    }
    Ok(Some(Command::Fail(q)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::site::flags::*;
    use std::string::ToString;
    use std::vec::Vec;

    #[test]
    fn the_flags_message_names_every_flag_the_parser_takes() {
        for (c, _) in FLAG_CHARS {
            assert!(
                FLAGS_EXPECTED.contains(&std::format!(" {c},"))
                    || FLAGS_EXPECTED.contains(&std::format!(" {c} ")),
                "{c} is not named in: {FLAGS_EXPECTED}"
            );
            assert!(parse_flags(&std::format!("+{c}")).is_some(), "+{c}");
        }
    }

    fn one(input: &str) -> Command {
        let mut v = Vec::new();
        parse(input, |c| v.push(c)).unwrap();
        assert_eq!(v.len(), 1, "{input}");
        v[0]
    }

    fn site(input: &str) -> SiteQuery {
        match one(input) {
            Command::Site(q) => q,
            c => panic!("{c:?}"),
        }
    }

    fn error(input: &str) -> QueryError {
        parse(input, |_| {}).unwrap_err()
    }

    #[test]
    fn glob_matching() {
        assert!(glob(b"*bus*", b"src/bus.rs"));
        assert!(glob(b"src/?us.rs", b"src/bus.rs"));
        assert!(!glob(b"*bus", b"src/bus.rs"));
        assert!(glob(b"*", b""));
        assert!(glob(b"a*b*c", b"axxbyyc"));
        assert!(!glob(b"a*b*c", b"axxbyy"));
        assert!(glob(b"", b""));
        assert!(!glob(b"", b"x"));
    }

    #[test]
    fn file_func_module_format() {
        let q = site("file *bus* func read_* module demo::* format \"read of*\" +p");
        assert_eq!(q.file.unwrap().as_str(), "*bus*");
        assert_eq!(q.func.unwrap().as_str(), "read_*");
        assert_eq!(q.module.unwrap().as_str(), "demo::*");
        assert_eq!(q.format.unwrap().as_str(), "read of*");
        assert_eq!(q.flags, Some((FlagOp::Add, PRINT_ON)));
    }

    #[test]
    fn line_forms() {
        assert_eq!(site("line 42 +p").lines, Some((42, 42)));
        assert_eq!(site("line 10-20 +p").lines, Some((10, 20)));
        assert_eq!(site("line -20 +p").lines, Some((0, 20)));
        assert_eq!(site("line 10- +p").lines, Some((10, u32::MAX)));
        let q = site("file bus.rs:10-20 -p");
        assert_eq!(q.file.unwrap().as_str(), "bus.rs");
        assert_eq!(q.lines, Some((10, 20)));
        assert!(error("line 20-10 +p").expected.contains("line range"));
    }

    #[test]
    fn code_and_flags() {
        let q = site("code EINVAL =pflmtsh");
        assert_eq!(q.code, Some(crate::code::EINVAL));
        assert_eq!(
            q.flags,
            Some((
                FlagOp::Set,
                PRINT_ON | FUNCTION | LINE | MODULE | THREAD | TRAIL | SOURCE
            ))
        );
        assert_eq!(site("file x =_").flags, Some((FlagOp::Set, 0)));
        assert_eq!(site("file x -p").flags, Some((FlagOp::Remove, PRINT_ON)));
    }

    #[test]
    fn policy_words() {
        assert_eq!(site("func f once").policy, Some(Policy::Once));
        assert_eq!(site("func f quiet").policy, Some(Policy::Quiet));
        assert_eq!(site("func f always").policy, Some(Policy::Always));
        assert_eq!(site("func f debug").policy, Some(Policy::Debug));
        assert_eq!(
            site("func f ratelimit=10/5s").policy,
            Some(Policy::RateLimited {
                burst: 10,
                interval_ms: 5000
            })
        );
        let q = site("func f +p ratelimit=3/250ms");
        assert_eq!(
            q.policy,
            Some(Policy::RateLimited {
                burst: 3,
                interval_ms: 250
            })
        );
        assert_eq!(q.flags, Some((FlagOp::Add, PRINT_ON)));
        assert!(error("func f ratelimit=10/5")
            .expected
            .contains("ratelimit"));
    }

    #[test]
    fn fail_query() {
        match one("fail name=alloc_buf probability=100 interval=1 times=3 code=ENOMEM") {
            Command::Fail(f) => {
                assert_eq!(f.name.as_str(), "alloc_buf");
                assert_eq!(f.probability, Some(100));
                assert_eq!(f.interval, Some(1));
                assert_eq!(f.times, Some(3));
                assert_eq!(f.code, Some(crate::code::ENOMEM));
            }
            c => panic!("{c:?}"),
        }
        match one("fail name=x times=-1") {
            Command::Fail(f) => assert_eq!(f.times, Some(-1)),
            c => panic!("{c:?}"),
        }
        assert!(error("fail probability=5").expected.contains("name="));
        assert!(error("fail name=x probability=101")
            .expected
            .contains("probability"));
    }

    #[test]
    fn several_queries() {
        let mut n = 0;
        assert_eq!(
            parse("file a +p; file b -p\nfunc c once;;\n", |_| n += 1),
            Ok(3)
        );
        assert_eq!(n, 3);
        assert_eq!(parse("", |_| {}), Ok(0));
        assert_eq!(parse("  ;  \n ", |_| {}), Ok(0));
    }

    #[test]
    fn error_positions() {
        let e = error("file a +p\nfile b +p\nfiel c +p");
        assert_eq!((e.line, e.column), (3, 1));
        assert_eq!(e.found(), "fiel");
        assert!(e
            .to_string()
            .starts_with("line 3, column 1: expected 'file', 'func'"));
        assert!(e.to_string().ends_with("found 'fiel'"));
        let e = error("file a");
        assert!(e.to_string().contains("found the end of the query"));
        let e = error("file a +x");
        assert_eq!(e.column, 8);
    }

    #[test]
    fn long_pattern_rejected() {
        let long = std::format!("file {} +p", "a".repeat(65));
        assert!(error(&long).expected.contains("64 bytes"));
    }
}
