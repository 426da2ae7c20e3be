//! `?` on everyday foreign errors, with the origin at the `?` and (with `std`) the foreign
//! error's text in the report. Before: `Ok(s.parse::<u32>()?)` did
//! not compile in a function returning `errtrace::Result` (no `From<ParseIntError>`), nor did
//! any of the other seven; an `io::Error` of kind `NotFound` without an OS code became `EIO`,
//! and its message was lost.

use errtrace::code::{self, Code, EINVAL};
use errtrace::{Error, WithCode};

/// Runs `f`, checks the error's code, that its origin is the `?` at `line`, and (with `std`)
/// its detail; handles it.
fn check(r: errtrace::Result<()>, code: Code, line: u32, detail: &str) {
    let e = r.unwrap_err();
    assert_eq!(e.code(), code);
    assert_eq!(e.origin().line, line, "origin at the `?`");
    assert!(e.origin().file.ends_with("test_conversions.rs"));
    #[cfg(feature = "std")]
    assert_eq!(e.detail(), Some(detail));
    #[cfg(not(feature = "std"))]
    let _ = detail;
    e.handled();
}

#[test]
fn the_everyday_core_errors_convert_with_question_mark() {
    fn int() -> errtrace::Result<()> {
        let _: u32 = "12x".parse()?;
        Ok(())
    }
    check(int(), EINVAL, line!() - 3, "invalid digit found in string");
    #[cfg(feature = "std")]
    fn float() -> errtrace::Result<()> {
        let _: f64 = "one".parse()?;
        Ok(())
    }
    #[cfg(feature = "std")]
    check(float(), EINVAL, line!() - 4, "invalid float literal");
    fn boolean() -> errtrace::Result<()> {
        let _: bool = "yes".parse()?;
        Ok(())
    }
    check(
        boolean(),
        EINVAL,
        line!() - 6,
        "provided string was not `true` or `false`",
    );
    fn utf8() -> errtrace::Result<()> {
        let bytes = std::hint::black_box([0xffu8]);
        let _ = core::str::from_utf8(&bytes)?;
        Ok(())
    }
    check(
        utf8(),
        EINVAL,
        line!() - 6,
        "invalid utf-8 sequence of 1 bytes from index 0",
    );
    fn addr() -> errtrace::Result<()> {
        let _: core::net::Ipv4Addr = "1.2.3".parse()?;
        Ok(())
    }
    check(addr(), EINVAL, line!() - 3, "invalid IPv4 address syntax");
    fn slice() -> errtrace::Result<()> {
        let _: [u8; 4] = <[u8; 4]>::try_from(&[1u8, 2][..])?;
        Ok(())
    }
    check(
        slice(),
        EINVAL,
        line!() - 6,
        "could not convert slice to array",
    );
    fn ch() -> errtrace::Result<()> {
        let _ = char::try_from(0xD800u32)?;
        Ok(())
    }
    check(
        ch(),
        EINVAL,
        line!() - 6,
        "converted integer out of range for `char`",
    );
}

#[cfg(feature = "std")]
#[test]
fn the_everyday_std_errors_convert_with_question_mark() {
    fn from_utf8() -> errtrace::Result<()> {
        let _ = String::from_utf8(vec![0xff])?;
        Ok(())
    }
    check(
        from_utf8(),
        EINVAL,
        line!() - 6,
        "invalid utf-8 sequence of 1 bytes from index 0",
    );
    fn nul() -> errtrace::Result<()> {
        let _ = std::ffi::CString::new("a\0b")?;
        Ok(())
    }
    check(
        nul(),
        EINVAL,
        line!() - 6,
        "nul byte found in provided data at position: 1",
    );
}

#[cfg(feature = "std")]
#[test]
fn io_kinds_map_to_their_errno_and_keep_the_message() {
    use std::io::{Error as IoError, ErrorKind};
    fn io(kind: ErrorKind, msg: &str) -> errtrace::Result<()> {
        Err(IoError::new(kind, msg.to_string()))?;
        Ok(())
    }
    let line = line!() - 3;
    for (kind, code) in [
        (ErrorKind::NotFound, code::ENOENT),
        (ErrorKind::PermissionDenied, code::EACCES),
        (ErrorKind::InvalidData, code::EINVAL),
        (ErrorKind::InvalidInput, code::EINVAL),
        (ErrorKind::TimedOut, code::ETIMEDOUT),
        (ErrorKind::WouldBlock, code::EAGAIN),
        (ErrorKind::AlreadyExists, code::EEXIST),
        (ErrorKind::Other, code::EIO),
    ] {
        check(io(kind, "the config"), code, line, "the config");
    }
    // An OS error keeps its own code, and needs no detail (the code says it).
    fn os() -> errtrace::Result<()> {
        Err(IoError::from_raw_os_error(13))?;
        Ok(())
    }
    let e = os().unwrap_err();
    assert_eq!(e.code(), code::EACCES);
    assert_eq!(e.detail(), None);
    e.handled();
}

#[cfg(feature = "std")]
#[test]
fn a_config_file_that_is_not_utf8_says_so() {
    let path = std::env::temp_dir().join(format!("errtrace-conv-{}.toml", std::process::id()));
    std::fs::write(&path, [0x66, 0xff, 0x0a]).unwrap();
    fn load(p: &std::path::Path) -> errtrace::Result<String> {
        Ok(std::fs::read_to_string(p)?)
    }
    let e = load(&path).unwrap_err();
    let _ = std::fs::remove_file(&path);
    assert_eq!(e.code(), EINVAL);
    let report = e.report().to_string();
    assert!(
        report.contains("\n  detail: stream did not contain valid UTF-8"),
        "{report}"
    );
    e.handled();
}

#[derive(Debug)]
struct BadMagic(u32);

impl core::fmt::Display for BadMagic {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "bad magic {:#x}", self.0)
    }
}

#[test]
fn with_code_converts_any_error_at_the_call() {
    fn probe() -> errtrace::Result<()> {
        Err(BadMagic(0x42)).with_code(code::ENODEV)?;
        Ok(())
    }
    check(probe(), code::ENODEV, line!() - 3, "bad magic 0x42");
}

#[test]
fn with_code_on_an_errtrace_error_keeps_it_and_adds_a_hop() {
    fn inner() -> errtrace::Result<()> {
        Err(Error::new(code::EIO))
    }
    fn outer() -> errtrace::Result<()> {
        inner().with_code(code::ENODEV)?;
        Ok(())
    }
    let e = outer().unwrap_err();
    assert_eq!(e.code(), code::EIO, "its own code");
    assert_eq!(e.event().unwrap().hops().count(), 1);
    e.handled();
}

#[cfg(feature = "std")]
#[test]
fn a_long_foreign_text_is_cut_at_256_bytes() {
    #[derive(Debug)]
    struct Long;
    impl core::fmt::Display for Long {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            for _ in 0..100 {
                f.write_str("é-é-")?;
            }
            Ok(())
        }
    }
    let e = Err::<(), _>(Long).with_code(EINVAL).unwrap_err();
    let d = e.detail().unwrap();
    assert!(d.len() <= 256 && d.len() > 250, "{}", d.len());
    assert!(d.starts_with("é-é-"));
    e.handled();
}
