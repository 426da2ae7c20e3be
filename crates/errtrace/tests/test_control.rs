//! Runtime control end to end: listing, `+p` on quiet sites, `-p` on noisy ones, policy words,
//! all-or-nothing inputs, standing queries for sites that appear later.
#![cfg(feature = "control")]

use errtrace::{
    code::{EAGAIN, EIO, ENOTUNIQ},
    control,
};
mod common;
use common::Capture;
use errtrace::{err, Error, ResultExt};

static CAPTURE: Capture = Capture::new();

fn setup() {
    let _ = errtrace::sink::set_sink(&CAPTURE);
    CAPTURE.take();
}

fn listing() -> String {
    let mut s = String::new();
    control::list(&mut s).unwrap();
    s
}

fn line_for(func: &str) -> String {
    listing()
        .lines()
        .find(|l| l.contains(&format!("]{func} ")))
        .unwrap_or_else(|| panic!("no site for {func} in\n{}", listing()))
        .to_string()
}

mod bus {
    #[cfg(feature = "registry")]
    use errtrace::code::ENODEV;
    use errtrace::code::{EAGAIN, EIO};

    pub fn quiet_poll() -> errtrace::Result {
        Err(errtrace::err!(EAGAIN, "bus busy"))
    }
    pub fn noisy_read() -> errtrace::Result {
        Err(errtrace::err!(always, EIO, "read failed"))
    }
    /// Never called: listed only through the link-time registry.
    #[cfg(feature = "registry")]
    pub fn never_fired() -> errtrace::Result {
        Err(errtrace::err!(ENODEV, "no such device"))
    }
}

#[test]
fn listing_shows_dynamic_debug_style_lines() {
    setup();
    for _ in 0..3 {
        bus::noisy_read().unwrap_err().handled();
    }
    let l = line_for("noisy_read");
    assert!(
        l.starts_with("crates/errtrace/tests/test_control.rs:"),
        "{l}"
    );
    assert!(l.contains(" [test_control::bus]noisy_read =p code=EIO created=3 logged=3 suppressed=0 policy=always"), "{l}");
}

#[cfg(feature = "registry")]
#[test]
fn macro_sites_are_listed_before_they_fire() {
    let l = line_for("never_fired");
    assert!(l.contains("code=- created=0 logged=0 suppressed=0"), "{l}");
    let _ = bus::never_fired; // never called in this test binary
}

#[test]
fn plus_p_makes_a_quiet_site_print_and_minus_p_silences_it() {
    setup();
    bus::quiet_poll().unwrap_err().handled();
    assert!(CAPTURE.take().is_empty(), "EAGAIN is quiet by default");
    assert!(line_for("quiet_poll").contains(" =_ code=EAGAIN"));

    let applied = control::apply("file *test_control* func quiet_poll +p").unwrap();
    assert_eq!(applied.matched, 1);
    bus::quiet_poll().unwrap_err().handled();
    let lines = CAPTURE.take();
    assert_eq!(lines.len(), 1);
    assert!(lines[0].text.starts_with("bus busy: EAGAIN (-11)"));
    assert!(line_for("quiet_poll").contains(" =p code=EAGAIN"));

    control::apply("func quiet_poll -p").unwrap();
    bus::quiet_poll().unwrap_err().handled();
    assert!(CAPTURE.take().is_empty());
}

fn decorated() -> errtrace::Result<u32> {
    Err(err!(always, EIO, "decorated"))
}

#[test]
fn decoration_flags() {
    setup();
    control::apply("func decorated =pfl").unwrap();
    decorated().unwrap_err().handled();
    let text = &CAPTURE.take()[0].text;
    let line = include_str!("test_control.rs")
        .lines()
        .position(|l| l.contains("Err(err!(always, EIO, \"decorated\"))"))
        .unwrap()
        + 1;
    assert!(
        text.starts_with(&format!("decorated:{line}: decorated: EIO")),
        "{text}"
    );
    control::apply("func decorated =pm").unwrap();
    decorated().trace().unwrap_err().handled();
    let text = &CAPTURE.take()[0].text;
    assert!(text.starts_with("test_control: decorated: EIO"), "{text}");
    control::apply("func decorated +h").unwrap();
    decorated().unwrap_err().handled();
    let text = &CAPTURE.take()[0].text;
    assert!(text.contains("\n  origin: "), "{text}");
}

fn policy_target() -> errtrace::Result<u32> {
    Err(err!(EIO, "policy target"))
}

#[test]
fn policy_words_replace_the_policy() {
    setup();
    // Without the `registry` feature a site is listed once it has fired.
    policy_target().unwrap_err().handled();
    CAPTURE.take();
    control::apply("func policy_target ratelimit=2/1s").unwrap();
    assert!(line_for("policy_target").contains("policy=ratelimit(2/1s)"));
    for _ in 0..5 {
        policy_target().unwrap_err().handled();
    }
    // The bucket is read under the new limit: the first message (under the default 10/5s)
    // left room for the new burst of two, then it is empty.
    assert_eq!(CAPTURE.take().len(), 2);
    control::apply("func policy_target quiet").unwrap();
    policy_target().unwrap_err().handled();
    assert!(CAPTURE.take().is_empty());
    control::apply("func policy_target always").unwrap();
    for _ in 0..5 {
        policy_target().unwrap_err().handled();
    }
    assert_eq!(CAPTURE.take().len(), 5);
}

fn untouched() -> errtrace::Result<u32> {
    Err(err!(always, EIO, "untouched"))
}

#[test]
fn a_bad_input_applies_nothing() {
    setup();
    untouched().unwrap_err().handled();
    CAPTURE.take();
    let e = control::apply("func untouched -p\nfunc untouched =_\nfiel x +p").unwrap_err();
    assert_eq!((e.line, e.column), (3, 1));
    assert_eq!(e.found(), "fiel");
    untouched().unwrap_err().handled();
    assert_eq!(
        CAPTURE.take().len(),
        1,
        "the first two queries were not applied"
    );
}

#[test]
fn a_query_matching_nothing_is_not_an_error() {
    let a = control::apply("file no_such_file.rs +p").unwrap();
    assert_eq!(a.matched, 0);
    assert_eq!(a.queries, 1);
}

#[test]
fn line_and_code_matches() {
    setup();
    fn at_line() -> errtrace::Result {
        Err(Error::new(errtrace::code::ENOSPC))
    }
    let e = at_line().unwrap_err();
    let line = e.origin().line;
    e.handled();
    let a = control::apply(&format!(
        "file test_control.rs:{line}-{line} code ENOSPC -p"
    ))
    .unwrap();
    assert_eq!(a.matched, 1);
    let a = control::apply(&format!("line {}- code ENOSPC +p", line + 1)).unwrap();
    assert_eq!(a.matched, 0);
}

fn appears_later() -> errtrace::Result {
    // A location site, interned only when first used.
    Err(Error::new(errtrace::code::EAGAIN))
}

#[test]
fn standing_queries_reach_sites_that_appear_later() {
    setup();
    // `appears_later`'s site does not exist yet when the query runs: it matches nothing now,
    // and is applied when the site appears.
    let src = include_str!("test_control.rs");
    let line = src
        .lines()
        .position(|l| l.contains("Err(Error::new(errtrace::code::EAGAIN))"))
        .unwrap()
        + 1;
    let a = control::apply(&format!("file test_control.rs:{line} +p")).unwrap();
    assert_eq!(a.matched, 0);
    let e = appears_later().log("later").unwrap_err();
    e.handled();
    let listing = listing();
    let l = listing
        .lines()
        .find(|l| l.starts_with(&format!("crates/errtrace/tests/test_control.rs:{line} ")))
        .unwrap();
    assert!(l.contains(" =p "), "{l}");
}

/// A bare `+`, `-` or `=` changes nothing: it is rejected with its position (before, `func x +` was accepted and did nothing).
#[test]
fn bare_flag_operators_are_rejected() {
    setup();
    for (input, column) in [("func x +", 8), ("func x -", 8), ("file a.rs =", 11)] {
        let e = control::apply(input).unwrap_err();
        assert_eq!((e.line, e.column), (1, column), "{input}: {e}");
        assert!(
            e.to_string().contains("one or more of the flags"),
            "{input}: {e}"
        );
    }
    // The explicit forms still work.
    assert!(control::apply("func nothing_here =_").is_ok());
    assert!(control::apply("func nothing_here -p").is_ok());
}

/// `#` starts a comment that runs to the end of its line, after a query too, as in
/// dynamic_debug's control file (before, `func x +p # on` was an error).
#[test]
fn comments_end_a_line() {
    setup();
    let a = control::apply("func nothing_here +p # turn it on\n# a comment line\n").unwrap();
    assert_eq!(a.queries, 1);
    // A '#' inside a word or a quote is not a comment.
    assert!(control::apply("format \"50# done\" +p").is_ok());
}

/// A quote must close on its line, and an unclosed one is reported as such, where it opened
/// (before, the quote ran silently to the end of the input).
#[test]
fn unterminated_quote_is_reported() {
    setup();
    let e = control::apply("format \"abc +p").unwrap_err();
    assert_eq!((e.line, e.column), (1, 8), "{e}");
    assert!(e.to_string().contains("closing '\"'"), "{e}");
    let e = control::apply("format \"abc\n+p\"").unwrap_err();
    assert_eq!((e.line, e.column), (1, 8), "{e}");
}

/// An error in a control file names the file's own line, comment lines counted (before, comment lines were removed first and the error said line 1).
#[cfg(feature = "std")]
#[test]
fn control_file_errors_name_the_files_line() {
    setup();
    let path = std::env::temp_dir().join(format!("errtrace-ctl-{}.txt", std::process::id()));
    std::fs::write(&path, "# a\n# b\n# c\nfiel x\n").unwrap();
    let e = control::apply_file(&path).unwrap().unwrap_err();
    assert_eq!((e.line, e.column), (4, 1), "{e}");
    let _ = std::fs::remove_file(path);
}

/// A query file is read only if it is a regular file, and only up to `MAX_QUERY_FILE` bytes: a
/// FIFO without a writer (whose open would block forever) and a device such as `/dev/zero`
/// (endless) are refused with a clear message, and so is a file too big to be queries.
#[cfg(all(feature = "std", target_os = "linux"))]
#[test]
fn control_files_that_would_block_or_never_end_are_refused() {
    setup();
    let dir = std::env::temp_dir().join(format!("errtrace-ctlf-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    // On a thread, so that a regression shows as a failed check rather than a hung test.
    let (tx, rx) = std::sync::mpsc::channel();
    let f = fifo.clone();
    std::thread::spawn(move || {
        let _ = tx.send(
            control::apply_file(&f)
                .map(|_| ())
                .map_err(|e| e.to_string()),
        );
    });
    let r = rx.recv_timeout(std::time::Duration::from_secs(10));
    let e = r.expect("apply_file blocked on a FIFO").unwrap_err();
    assert!(e.contains("not a regular file"), "{e}");
    let e = control::apply_file(std::path::Path::new("/dev/zero")).unwrap_err();
    assert!(e.to_string().contains("not a regular file"), "{e}");
    let big = dir.join("big");
    std::fs::write(&big, vec![b'#'; control::MAX_QUERY_FILE as usize + 1]).unwrap();
    let e = control::apply_file(&big).unwrap_err();
    assert!(e.to_string().contains("larger than"), "{e}");
    // A file of exactly the limit is read (a comment: nothing applied).
    std::fs::write(&big, vec![b'#'; control::MAX_QUERY_FILE as usize]).unwrap();
    assert!(control::apply_file(&big).unwrap().is_ok());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The flags error names every flag a query takes, `h` (the trail) too.
#[test]
fn the_flags_error_names_every_flag() {
    setup();
    let e = control::apply("func x +z").unwrap_err();
    assert!(e.to_string().contains("p, f, l, m, t, s, h, _"), "{e}");
    assert!(control::apply("func nothing_here +h").is_ok());
}

/// A location site first used after the queries below, and its line.
#[cfg(feature = "std")]
#[rustfmt::skip]
fn appears_after_many_queries() -> (errtrace::Result, u32) {
    (Err(Error::new(errtrace::code::EAGAIN)), line!())
}

/// With `std`, every query stands for sites that appear later, however much text came before
/// (before, the standing text kept 1 KiB, and past it a query applied to
/// present sites only, silently).
#[cfg(feature = "std")]
#[test]
fn long_standing_queries_are_kept() {
    setup();
    for i in 0..100 {
        control::apply(&format!("func never_called_{i} ratelimit=3/250ms")).unwrap();
    }
    // The site's line, found in the source without making an error there yet.
    let src = include_str!("test_control.rs");
    let line = src
        .lines()
        .position(|l| l.contains("(Err(Error::new(errtrace::code::EAGAIN)), line!())"))
        .unwrap() as u32
        + 1;
    control::apply(&format!("file test_control.rs:{line} +p")).unwrap();
    let (r, made_at) = appears_after_many_queries();
    assert_eq!(made_at, line);
    r.unwrap_err().handled();
    let l = listing()
        .lines()
        .find(|l| l.starts_with(&format!("crates/errtrace/tests/test_control.rs:{line} ")))
        .map(str::to_owned)
        .unwrap();
    assert!(l.contains(" =p "), "{l}");
}

/// Without `std`, an input that would not fit the standing space is rejected whole, with an
/// error (before, it was applied to present sites and silently not kept).
#[cfg(not(feature = "std"))]
#[test]
fn standing_space_full_is_an_error() {
    setup();
    let long: String = (0..60)
        .map(|i| format!("func never_called_{i} +p\n"))
        .collect();
    assert!(long.len() > errtrace::config::STANDING_BYTES);
    let e = control::apply(&long).unwrap_err();
    assert!(e.to_string().contains("room for standing queries"), "{e}");
}

fn quiet_maker() -> errtrace::Result {
    // The form the decision table recommends for a normal, quiet code: no message.
    Err(errtrace::err!(EAGAIN))
}

/// `+p` on a quiet site prints every error made there, message or not (before, `err!(EAGAIN)` without a message printed nothing even with `+p`).
#[test]
fn plus_p_makes_a_quiet_site_print() {
    setup();
    quiet_maker().unwrap_err().handled();
    assert!(CAPTURE.take().is_empty(), "quiet by default");
    control::apply("func quiet_maker +p").unwrap();
    quiet_maker().unwrap_err().handled();
    let lines = CAPTURE.take();
    assert_eq!(lines.len(), 1, "{lines:#?}");
    assert!(
        lines[0].text.starts_with("EAGAIN (-11) at "),
        "{}",
        lines[0].text
    );
    control::apply("func quiet_maker -p").unwrap();
}

fn makes_enotuniq() -> errtrace::Result {
    Err(errtrace::err!(ENOTUNIQ))
}

/// A standing `code` query applies to a site that first fires later with that code (before, the site was linked before its code was known, so `code ENOTUNIQ +p` given
/// at start-up matched nothing).
#[test]
fn standing_code_queries_reach_new_sites() {
    setup();
    control::apply("code ENOTUNIQ +p").unwrap();
    makes_enotuniq().unwrap_err().handled();
    let lines = CAPTURE.take();
    assert!(
        lines
            .iter()
            .any(|l| l.text.starts_with("ENOTUNIQ (-76) at ")),
        "{lines:#?}"
    );
}

fn quiet_new() -> errtrace::Result {
    Err(errtrace::Error::new(errtrace::code::EAGAIN))
}

/// `+p` on the site of an `Error::new` location prints every error made there (before, only `err!` sites printed; `Error::new`, `Err(CODE)?` and foreign `?`
/// conversions stayed silent with `+p`).
#[test]
fn plus_p_makes_an_error_new_location_print() {
    setup();
    let e = quiet_new().unwrap_err();
    let line = e.origin().line;
    e.handled();
    assert!(CAPTURE.take().is_empty(), "quiet by default");
    let q = format!("file test_control.rs line {line} +p");
    assert_eq!(control::apply(&q).unwrap().matched, 1);
    quiet_new().unwrap_err().handled();
    quiet_new().unwrap_err().handled();
    let lines = CAPTURE.take();
    assert_eq!(lines.len(), 2, "{lines:#?}");
    assert!(
        lines[0].text.starts_with(&format!(
            "EAGAIN (-11) at crates/errtrace/tests/test_control.rs:{line}:"
        )),
        "{}",
        lines[0].text
    );
    control::apply(&format!("file test_control.rs line {line} -p")).unwrap();
}

fn makes_esrmnt() -> errtrace::Result {
    Err(errtrace::Error::new(errtrace::code::ESRMNT))
}

/// A standing `code` query reaches an `Error::new` location when it first fires with that code
/// (for location sites).
#[test]
fn standing_code_queries_reach_new_locations() {
    setup();
    control::apply("code ESRMNT +p").unwrap();
    makes_esrmnt().unwrap_err().handled();
    let lines = CAPTURE.take();
    assert!(
        lines.iter().any(|l| l
            .text
            .starts_with("ESRMNT (-69) at crates/errtrace/tests/test_control.rs:")),
        "{lines:#?}"
    );
}

/// A site whose code is quiet by its class (`err!(EAGAIN, …)`) is listed without `p` before it
/// first fires, as it is after: quiet sites do not print.
#[cfg(feature = "registry")]
#[test]
fn a_quiet_site_is_listed_without_p_before_it_fires() {
    setup();
    #[allow(dead_code)]
    fn never_called_quiet_site() -> errtrace::Result {
        use errtrace::code::EAGAIN;
        Err(errtrace::err!(EAGAIN, "never fires"))
    }
    let mut listing = String::new();
    control::list(&mut listing).unwrap();
    let line = listing
        .lines()
        .find(|l| l.contains("]") && l.contains("never_called_quiet_site"))
        .unwrap_or_else(|| panic!("the site is not listed:\n{listing}"));
    assert!(line.contains(" =_ "), "{line}");
    assert!(line.contains("policy=quiet"), "{line}");
}
