//! `// errtrace-audit: allow(<kind>) <reason>` comments, on the line of a finding or on the
//! comment lines right above it.

use crate::findings::Kind;

const MARKER: &str = "errtrace-audit:";

/// The suppression comments of one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Suppressions {
    /// (line, kinds bit set) for each marker line, sorted by line.
    markers: Vec<(u32, u8)>,
    /// Lines that hold only a `//` comment (so a marker can stand above a finding with other
    /// comment lines in between).
    comment_lines: Vec<u32>,
}

impl Suppressions {
    /// Scan a file's text.
    pub fn scan(text: &str) -> Suppressions {
        let mut s = Suppressions::default();
        if !text.contains(MARKER) {
            return s;
        }
        for (i, line) in text.lines().enumerate() {
            let n = (i + 1) as u32;
            let trimmed = line.trim_start();
            if trimmed.starts_with("//") {
                s.comment_lines.push(n);
            }
            let Some(at) = line.find(MARKER) else { continue };
            // Only in a comment.
            let Some(slashes) = line.find("//") else { continue };
            if slashes > at {
                continue;
            }
            let rest = line[at + MARKER.len()..].trim_start();
            let Some(rest) = rest.strip_prefix("allow(") else {
                continue;
            };
            let Some(close) = rest.find(')') else { continue };
            let mut bits = 0u8;
            for k in rest[..close].split(',') {
                let k = k.trim();
                if k == "all" {
                    bits = 0xff;
                } else if let Some(kind) = Kind::parse(k) {
                    bits |= kind.bit();
                }
            }
            if bits != 0 {
                s.markers.push((n, bits));
            }
        }
        s
    }

    /// Is a finding of `kind` at `line` suppressed?
    pub fn allows(&self, line: u32, kind: Kind) -> bool {
        if self.markers.is_empty() {
            return false;
        }
        let has = |l: u32| {
            self.markers
                .binary_search_by_key(&l, |m| m.0)
                .ok()
                .and_then(|i| self.markers.get(i))
                .is_some_and(|m| m.1 & kind.bit() != 0)
        };
        if has(line) {
            return true;
        }
        // Walk up over the comment block right above the line.
        let mut l = line;
        while l > 1 {
            l -= 1;
            if self.comment_lines.binary_search(&l).is_err() {
                return false;
            }
            if has(l) {
                return true;
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_on_and_above() {
        let text = "fn a() {\n    // errtrace-audit: allow(discarded) best effort\n    // more words\n    let _ = f();\n    let _ = g(); // errtrace-audit: allow(swallowed, panic) why\n}\n";
        let s = Suppressions::scan(text);
        assert!(s.allows(4, Kind::Discarded));
        assert!(!s.allows(4, Kind::Panic));
        assert!(s.allows(5, Kind::Panic));
        assert!(s.allows(5, Kind::Swallowed));
        assert!(!s.allows(6, Kind::Discarded));
        assert!(!s.allows(1, Kind::Discarded));
    }

    #[test]
    fn marker_in_code_is_ignored() {
        let s = Suppressions::scan("let s = \"errtrace-audit: allow(panic)\";\n");
        assert!(!s.allows(1, Kind::Panic));
    }
}
