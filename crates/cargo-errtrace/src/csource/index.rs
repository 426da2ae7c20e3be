//! Where each C function of a kernel tree is defined: one pass over the tree's `.c` and `.h`
//! files that notes every definition written the kernel's way (the name's line starts at
//! column 0, `{` follows the parameter list), without parsing anything.

use rayon::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Where a definition is, and how much a caller should trust it to be the one linked.
#[derive(Debug, Clone)]
pub(crate) struct Location {
    /// The file, relative to the tree.
    pub file: String,
    /// Byte offset of the definition's first line.
    pub offset: usize,
    /// 1-based line of that offset.
    pub line: u32,
    /// Lower is preferred: a `rust_helper_` wrapper (what a binding calls), a global
    /// definition in a `.c` file, a `static inline` in a header, a file-local `static`.
    pub rank: u8,
}

/// The definitions found, by name (each name's candidates best first).
#[derive(Debug, Default)]
pub(crate) struct Index {
    pub by_name: HashMap<String, Vec<Location>>,
    /// Function-like macros that only call a function (`#define devm_add_action_or_reset(dev,
    /// action, data) __devm_add_action_or_reset(dev, action, data, #action)`): name → callee.
    pub aliases: HashMap<String, String>,
    /// How many files were read.
    pub files: usize,
    /// How many bytes were read.
    pub bytes: u64,
}

/// What one file holds: a function's definition, or a macro that only calls a function.
enum Found {
    Definition(String, Location),
    Alias(String, String),
}

/// Directories whose C is not the kernel that runs: tools, docs, build scripts, user-space
/// programs.
const SKIP_DIRS: &[&str] = &["tools", "Documentation", "scripts", "usr", "LICENSES", "samples"];

/// Read the tree's C files (`arch/` only for `arch`) and note every definition.
pub(crate) fn build(tree: &Path, arch: &str) -> Index {
    let files: Vec<(PathBuf, String)> = walkdir::WalkDir::new(tree)
        .into_iter()
        .filter_entry(|e| {
            let Ok(rel) = e.path().strip_prefix(tree) else {
                return true;
            };
            let mut comps = rel.components().map(|c| c.as_os_str().to_string_lossy());
            match (comps.next(), comps.next()) {
                (Some(top), _) if SKIP_DIRS.contains(&top.as_ref()) => false,
                (Some(top), Some(a)) if top == "arch" => a == arch,
                (Some(top), None) if top.starts_with('.') => false,
                _ => true,
            }
        })
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter(|e| {
            let n = e.file_name().to_string_lossy();
            n.ends_with(".c") || n.ends_with(".h")
        })
        .filter_map(|e| {
            let rel = e.path().strip_prefix(tree).ok()?.to_string_lossy().into_owned();
            Some((e.path().to_path_buf(), rel))
        })
        .collect();
    let read: Vec<(Vec<Found>, u64)> = files
        .par_iter()
        .map(|(path, rel)| {
            let text = std::fs::read(path).unwrap_or_default();
            let header = rel.ends_with(".h");
            let helper = rel.starts_with("rust/helpers/");
            let defs = definitions(&text)
                .into_iter()
                .map(|(name, offset, line, is_static)| {
                    let rank = if helper {
                        0
                    } else if !is_static && !header {
                        1
                    } else if header {
                        2
                    } else {
                        3
                    };
                    let file = rel.clone();
                    Found::Definition(
                        name,
                        Location {
                            file,
                            offset,
                            line,
                            rank,
                        },
                    )
                });
            let aliases = macro_aliases(&text)
                .into_iter()
                .map(|(name, target)| Found::Alias(name, target));
            (defs.chain(aliases).collect::<Vec<_>>(), text.len() as u64)
        })
        .collect();
    let mut index = Index {
        files: files.len(),
        bytes: read.iter().map(|(_, n)| n).sum(),
        ..Default::default()
    };
    for f in read.into_iter().flat_map(|(found, _)| found) {
        match f {
            Found::Definition(name, loc) => index.by_name.entry(name).or_default().push(loc),
            Found::Alias(name, target) => {
                index.aliases.entry(name).or_insert(target);
            }
        }
    }
    for locs in index.by_name.values_mut() {
        locs.sort_by(|a, b| (a.rank, &a.file, a.offset).cmp(&(b.rank, &b.file, b.offset)));
    }
    index
}

/// The function definitions in one file: (name, byte offset of its first line, line, static).
pub(crate) fn definitions(text: &[u8]) -> Vec<(String, usize, u32, bool)> {
    let mut out = Vec::new();
    let mut line_no = 0u32;
    let mut start = 0usize;
    let mut prev_start = 0usize;
    while start < text.len() {
        line_no = line_no.saturating_add(1);
        let end = memchr_nl(text, start);
        let line = &text[start..end];
        if let Some((name, is_static, words)) = header_line(line) {
            let open = start + line.iter().position(|&b| b == b'(').unwrap_or(0);
            if body_follows(text, open) {
                // `static int\nfoo(void)`: the type is on the line before.
                let prev = &text[prev_start..start];
                let type_before = words == 1
                    && start > 0
                    && prev
                        .first()
                        .is_some_and(|b| b.is_ascii_alphabetic() || *b == b'_')
                    && !prev.trim_ascii_end().ends_with(b";");
                let found = if type_before {
                    (
                        name,
                        prev_start,
                        line_no - 1,
                        is_static || contains(prev, b"static"),
                    )
                } else {
                    (name, start, line_no, is_static)
                };
                out.push(found);
            }
        }
        prev_start = start;
        start = end + 1;
    }
    out
}

/// `#define name(args) target(…)`, the body on the same line or the next (after a `\`): a
/// macro that only calls a function, as the kernel's `devm_add_action_or_reset` calls
/// `__devm_add_action_or_reset`.
pub(crate) fn macro_aliases(text: &[u8]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut start = 0usize;
    while start < text.len() {
        let end = memchr_nl(text, start);
        let line = &text[start..end];
        start = end + 1;
        let Some(rest) = line.strip_prefix(b"#define ") else {
            continue;
        };
        let Some(open) = rest.iter().position(|&b| b == b'(') else {
            continue;
        };
        let name = &rest[..open];
        if name.is_empty() || !name.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_') {
            continue;
        }
        let Some(close) = rest[open..].iter().position(|&b| b == b')') else {
            continue;
        };
        let mut body = rest[open + close + 1..].trim_ascii();
        if body == b"\\" && start < text.len() {
            body = text[start..memchr_nl(text, start)].trim_ascii();
        }
        let Some(call) = body.iter().position(|&b| b == b'(') else {
            continue;
        };
        let target = body[..call].trim_ascii();
        let is_name = |t: &[u8]| {
            !t.is_empty()
                && !t[0].is_ascii_digit()
                && t.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_')
        };
        if is_name(target) && target != name {
            out.push((
                String::from_utf8_lossy(name).into_owned(),
                String::from_utf8_lossy(target).into_owned(),
            ));
        }
    }
    out
}

fn memchr_nl(text: &[u8], from: usize) -> usize {
    text[from..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(text.len(), |p| from + p)
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// A line that can start a definition: at column 0, type words and `*` then a name and `(`;
/// with whether `static` is among the words, and how many words there are.
fn header_line(line: &[u8]) -> Option<(String, bool, usize)> {
    let first = *line.first()?;
    if !(first.is_ascii_alphabetic() || first == b'_') {
        return None;
    }
    let open = line.iter().position(|&b| b == b'(')?;
    let before = &line[..open];
    if before
        .iter()
        .any(|&b| matches!(b, b'=' | b',' | b';' | b'"' | b'#' | b'{' | b'}' | b':' | b'['))
    {
        return None;
    }
    let words: Vec<&[u8]> = before
        .split(|&b| b == b' ' || b == b'\t' || b == b'*')
        .filter(|w| !w.is_empty())
        .collect();
    let name = *words.last()?;
    if !name.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_') || name[0].is_ascii_digit() {
        return None;
    }
    const NOT_TYPES: &[&[u8]] = &[
        b"return", b"if", b"while", b"for", b"switch", b"typedef", b"else", b"do",
    ];
    if words.iter().any(|w| NOT_TYPES.contains(w)) {
        return None;
    }
    let is_static = words.iter().any(|w| *w == b"static");
    Some((String::from_utf8_lossy(name).into_owned(), is_static, words.len()))
}

/// After the `(` at `open`, the parameter list closes and a body `{` follows (attributes such
/// as `__acquires(x)` and comments may sit between).
fn body_follows(text: &[u8], open: usize) -> bool {
    let limit = (open + 4096).min(text.len());
    let mut depth = 0i32;
    let mut i = open;
    while i < limit {
        match text[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            b';' | b'{' | b'}' => return false,
            _ => {}
        }
        i += 1;
    }
    if depth != 0 {
        return false;
    }
    i += 1;
    // Whitespace, comments and attribute words with their arguments, then `{`.
    let mut budget = 512;
    while i < limit && budget > 0 {
        budget -= 1;
        match text[i] {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'{' => return true,
            b'/' if text.get(i + 1) == Some(&b'*') => {
                match text[i + 2..limit].windows(2).position(|w| w == b"*/") {
                    Some(p) => i += p + 4,
                    None => return false,
                }
            }
            b'_' | b'a'..=b'z' | b'A'..=b'Z' => {
                while i < limit && (text[i].is_ascii_alphanumeric() || text[i] == b'_') {
                    i += 1;
                }
                if text.get(i) == Some(&b'(') {
                    let mut d = 0;
                    while i < limit {
                        if text[i] == b'(' {
                            d += 1;
                        } else if text[i] == b')' {
                            d -= 1;
                            if d == 0 {
                                i += 1;
                                break;
                            }
                        }
                        i += 1;
                    }
                }
            }
            _ => return false,
        }
    }
    false
}

/// The text of the definition starting at `offset`: up to its closing brace (braces in
/// comments, strings and character literals not counted). `None` past 256 KiB.
pub(crate) fn definition_text(text: &str, offset: usize) -> Option<&str> {
    let bytes = text.as_bytes();
    let limit = (offset + 256 * 1024).min(bytes.len());
    let mut i = offset;
    let mut depth = 0i32;
    let mut opened = false;
    while i < limit {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let p = bytes[i + 2..limit].windows(2).position(|w| w == b"*/")?;
                i += p + 4;
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = memchr_nl(bytes, i);
                continue;
            }
            q @ (b'"' | b'\'') => {
                i += 1;
                while i < limit && bytes[i] != q {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'{' => {
                depth += 1;
                opened = true;
            }
            b'}' => {
                depth -= 1;
                if opened && depth == 0 {
                    return text.get(offset..=i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}
