//! Every printed output in the README and the guide comes from a real run, and is checked here
//! against one (before, output blocks were typed by hand and drifted).
//!
//! Each ```` ```text ```` block is preceded by a marker naming its source:
//!
//! - `<!-- output: example NAME [ARGS…] -->`: the output (stdout then stderr) of the example
//!   program `NAME` of this package, built by `cargo test`;
//! - `<!-- output: file PATH -->`: lines in the file `PATH` of the repository (the kernel's serial
//!   console captures, the saved benchmark results…), themselves written by a real run;
//! - `<!-- output: doctest -->`: printed by the ```` ```rust ```` block just before or after,
//!   which asserts each of these lines itself (each line, without the stderr sink's `errtrace: `,
//!   must appear in that code);
//! - `<!-- output: sdt -->`: the SDT probes' `readelf` and `gdb` output, checked by
//!   `scripts/test-sdt.sh` against its own runs (it needs gdb and a build with `sdt`);
//! - `<!-- output: sketch -->`: not output at all (a grammar, a format).
//!
//! A ```` ```rust ```` block marked `<!-- code: PATH -->` must be the code of that file (its
//! lines, hidden `# ` lines included, appear in order in it): the example the output comes from.
//!
//! A block matches when its lines appear as consecutive lines of the source, each block line
//! being the end of its source line (so a demo's `error: ` prefix or indentation may precede
//! it); kernel timestamps (`[    0.703449]`) match any timestamp; a line of the block that is
//! only `…` or `… N more …` stands for any number of source lines.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The documents whose output blocks are checked.
fn documents() -> Vec<PathBuf> {
    let mut docs = vec![root().join("README.md")];
    let mut chapters: Vec<PathBuf> = std::fs::read_dir(root().join("docs/src"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    chapters.sort();
    docs.extend(chapters);
    docs
}

struct Block {
    doc: PathBuf,
    line: usize,
    marker: Option<String>,
    lines: Vec<String>,
    /// The ```rust blocks just before and just after, for `doctest`.
    code_around: String,
}

/// A ```` ```rust ```` block that says it is a copy of a file (`<!-- code: PATH -->`).
struct CodeCopy {
    doc: PathBuf,
    line: usize,
    path: String,
    lines: Vec<String>,
}

/// A fenced block: its language, the line after its opening fence, the marker on the line
/// before it (`<!-- output: … -->` or `<!-- code: … -->`), and its lines.
struct Fenced {
    lang: String,
    line: usize,
    marker: Option<String>,
    lines: Vec<String>,
}

fn fenced(doc: &Path) -> Vec<Fenced> {
    let text = std::fs::read_to_string(doc).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim_start();
        if let Some(lang) = t.strip_prefix("```") {
            let indent = lines[i].len() - t.len();
            let marker = lines[..i]
                .iter()
                .rev()
                .find(|l| !l.trim().is_empty())
                .and_then(|l| {
                    let l = l.trim();
                    l.strip_prefix("<!--")
                        .and_then(|r| r.strip_suffix("-->"))
                        .map(|m| m.trim().to_string())
                });
            let start = i + 1;
            let mut body = Vec::new();
            i += 1;
            while i < lines.len() && !lines[i].trim_start().starts_with("```") {
                let l = lines[i];
                let cut = indent.min(l.len() - l.trim_start().len());
                body.push(l[cut..].to_string());
                i += 1;
            }
            out.push(Fenced {
                lang: lang.trim().to_string(),
                line: start,
                marker,
                lines: body,
            });
        }
        i += 1;
    }
    out
}

fn blocks(doc: &Path) -> (Vec<Block>, Vec<CodeCopy>) {
    let all = fenced(doc);
    let is_rust = |f: &Fenced| f.lang.starts_with("rust");
    let mut text_blocks = Vec::new();
    let mut copies = Vec::new();
    for (k, f) in all.iter().enumerate() {
        if is_rust(f) {
            if let Some(path) = f.marker.as_deref().and_then(|m| m.strip_prefix("code:")) {
                copies.push(CodeCopy {
                    doc: doc.to_path_buf(),
                    line: f.line,
                    path: path.trim().to_string(),
                    lines: f.lines.clone(),
                });
            }
        } else if f.lang == "text" {
            let mut code_around = String::new();
            for n in [k.checked_sub(1), Some(k + 1)].into_iter().flatten() {
                if let Some(c) = all.get(n).filter(|c| is_rust(c)) {
                    code_around.push_str(&c.lines.join("\n"));
                }
            }
            text_blocks.push(Block {
                doc: doc.to_path_buf(),
                line: f.line,
                marker: f
                    .marker
                    .as_deref()
                    .and_then(|m| m.strip_prefix("output:"))
                    .map(|m| m.trim().to_string()),
                lines: f.lines.clone(),
                code_around,
            });
        }
    }
    (text_blocks, copies)
}

/// `[    0.703449] ` and `<7>[    0.703449] ` become `[T] `.
fn normalize(line: &str) -> String {
    let mut s = line.trim_end().to_string();
    let start = s.find('[');
    if let (Some(a), Some(b)) = (start, s.find(']')) {
        let inner = &s[a + 1..b];
        if b > a
            && !inner.trim().is_empty()
            && inner.trim().chars().all(|c| c.is_ascii_digit() || c == '.')
        {
            s = format!("{}[T]{}", &s[..a], &s[b + 1..]);
        }
    }
    s
}

fn is_gap(line: &str) -> bool {
    let t = line.trim();
    t == "…" || t == "..." || (t.starts_with('…') && t.ends_with('…'))
}

/// Whether the block's lines appear, consecutively (gaps aside), in `source`.
fn found_in(block: &[String], source: &str) -> Result<(), String> {
    let src: Vec<String> = source
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(normalize)
        .collect();
    // Pieces between gaps, each a run of consecutive lines.
    let mut pieces: Vec<Vec<String>> = vec![Vec::new()];
    for l in block {
        if is_gap(l) {
            pieces.push(Vec::new());
        } else if !l.trim().is_empty() {
            pieces.last_mut().unwrap().push(normalize(l.trim_start()));
        }
    }
    let mut from = 0;
    for piece in pieces.iter().filter(|p| !p.is_empty()) {
        let at = (from..src.len()).find(|&s| {
            piece.iter().enumerate().all(|(k, want)| {
                src.get(s + k)
                    .is_some_and(|have| have.trim_end().ends_with(want.as_str()))
            })
        });
        match at {
            Some(s) => from = s + piece.len(),
            None => {
                return Err(format!(
                    "these lines are not in the source (in this order):\n  {}",
                    piece.join("\n  ")
                ))
            }
        }
    }
    Ok(())
}

fn example_output(args: &[&str]) -> String {
    let exe = std::env::current_exe().unwrap();
    let dir = exe.parent().unwrap().parent().unwrap().join("examples");
    let bin = dir.join(args[0]);
    let out = Command::new(&bin)
        .args(&args[1..])
        .current_dir(root())
        .env_remove("ERRTRACE")
        .env_remove("ERRTRACE_FILE")
        // anyhow's `main` adds a backtrace when these are set.
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", bin.display()));
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn every_output_block_comes_from_a_real_run() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for doc in documents() {
        let (text_blocks, copies) = blocks(&doc);
        for c in copies {
            let at = format!(
                "{}:{}",
                c.doc.strip_prefix(root()).unwrap().display(),
                c.line
            );
            // Hidden lines (`# `) are part of the code; the block must be the file's code.
            let lines: Vec<String> = c
                .lines
                .iter()
                .map(|l| match l.as_str() {
                    "#" => String::new(),
                    _ => l.strip_prefix("# ").unwrap_or(l).to_string(),
                })
                .collect();
            match std::fs::read_to_string(root().join(&c.path)) {
                Ok(text) => {
                    if let Err(e) = found_in(&lines, &text) {
                        failures.push(format!("{at} (code: {}): {e}", c.path));
                    }
                }
                Err(e) => failures.push(format!("{at}: cannot read {}: {e}", c.path)),
            }
        }
        for b in text_blocks {
            let at = format!(
                "{}:{}",
                b.doc.strip_prefix(root()).unwrap().display(),
                b.line
            );
            checked += 1;
            let Some(marker) = &b.marker else {
                failures.push(format!(
                    "{at}: a ```text block without an `<!-- output: … -->` marker"
                ));
                continue;
            };
            let words: Vec<&str> = marker.split_whitespace().collect();
            let result = match words.as_slice() {
                ["sketch"] => Ok(()),
                // Checked by scripts/test-sdt.sh against its own readelf and gdb runs.
                ["sdt"] => Ok(()),
                ["example", args @ ..] if !args.is_empty() => {
                    found_in(&b.lines, &example_output(args))
                }
                ["file", path] => match std::fs::read_to_string(root().join(path)) {
                    Ok(text) => found_in(&b.lines, &text),
                    Err(e) => Err(format!("cannot read {path}: {e}")),
                },
                ["doctest"] => b
                    .lines
                    .iter()
                    .filter(|l| !l.trim().is_empty() && !is_gap(l))
                    .map(|l| l.trim().strip_prefix("errtrace: ").unwrap_or(l.trim()))
                    .find(|l| !b.code_around.contains(l))
                    .map_or(Ok(()), |l| {
                        Err(format!(
                            "the code block next to it does not assert this line: {l}"
                        ))
                    }),
                _ => Err(format!("unknown marker `{marker}`")),
            };
            if let Err(e) = result {
                failures.push(format!("{at} ({marker}): {e}"));
            }
        }
    }
    assert!(checked > 20, "only {checked} blocks found");
    assert!(
        failures.is_empty(),
        "{} of {checked} output blocks do not match:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// The README is read on a repository page, where rustdoc's hidden lines (`# fn main() {`) show
/// as they are: its Rust blocks are whole programs a reader can copy.
#[test]
fn readme_rust_blocks_have_no_hidden_lines() {
    let readme = root().join("README.md");
    for b in fenced(&readme)
        .iter()
        .filter(|b| b.lang.starts_with("rust"))
    {
        for (k, l) in b.lines.iter().enumerate() {
            assert!(
                l != "#" && !l.starts_with("# "),
                "README.md:{}: a hidden line shows on a repository page: {l}",
                b.line + k
            );
        }
    }
}

/// The README's feature table names every feature of the library crate.
#[test]
fn readme_lists_every_feature() {
    let manifest = std::fs::read_to_string(root().join("crates/errtrace/Cargo.toml")).unwrap();
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let features = manifest
        .split("[features]")
        .nth(1)
        .and_then(|t| t.split("\n[").next())
        .unwrap();
    let mut n = 0;
    for line in features.lines() {
        let Some((name, _)) = line.split_once(" = ") else {
            continue;
        };
        if name == "default" || name.starts_with('#') {
            continue;
        }
        n += 1;
        assert!(
            readme.contains(&format!("| `{name}` |")),
            "README.md's feature table does not list `{name}`"
        );
    }
    assert!(n >= 10, "only {n} features read from Cargo.toml");
}
