//! With `std`: both ways between `std::io::Error` and [`Error`].

use crate::code::{self, Code};
use crate::error::Error;

impl From<std::io::Error> for Error {
    /// An `io::Error` that carries an errtrace error (made by `From<Error> for io::Error`) gives
    /// it back, story and all, with a hop at the conversion. Any other becomes a new error at
    /// the conversion: its raw OS error when it is an errno, else the errno of its
    /// [`kind`](std::io::ErrorKind) ([`errno_of_kind`]); the `io::Error`'s own message (not
    /// an OS error's, which the code already says) is kept as the [`detail`](Error::detail).
    #[track_caller]
    fn from(e: std::io::Error) -> Error {
        use core::mem::ManuallyDrop;
        // Owned values are held in `ManuallyDrop` across calls, and dropped only where nothing
        // else is owned: no destructor runs on an unwinding path here.
        let mut e = ManuallyDrop::new(e);
        let carried = ManuallyDrop::new(
            e.get_mut()
                .and_then(|inner| inner.downcast_mut::<Error>())
                .map(Error::take_out),
        );
        let loc = core::panic::Location::caller();
        let made = match (ManuallyDrop::into_inner(carried), e.raw_os_error()) {
            (Some(inner), _) => inner.hopped(loc),
            (None, Some(n)) => Error::at_location(Code::from_errno(n).unwrap_or(code::EIO), loc),
            (None, None) => super::foreign(&*e, errno_of_kind(e.kind()), loc),
        };
        // `made` is not dropped if this unwinds: it is handed out whole or not at all.
        let made = ManuallyDrop::new(made);
        drop(ManuallyDrop::into_inner(e));
        ManuallyDrop::into_inner(made)
    }
}

/// The errno of an [`io::ErrorKind`](std::io::ErrorKind), for an `io::Error` without an OS
/// code: the code a kernel or libc would return for it (`NotFound` → `ENOENT`,
/// `PermissionDenied` → `EACCES`, `InvalidInput` and `InvalidData` → `EINVAL`, `TimedOut` →
/// `ETIMEDOUT`, `WouldBlock` → `EAGAIN`, `UnexpectedEof` → `ENODATA`, `Unsupported` →
/// `EOPNOTSUPP`, `OutOfMemory` → `ENOMEM`, …); `EIO` for `Other` and kinds without one.
///
/// ```
/// use errtrace::{code, interop::errno_of_kind};
/// use std::io::ErrorKind;
/// assert_eq!(errno_of_kind(ErrorKind::NotFound), code::ENOENT);
/// assert_eq!(errno_of_kind(ErrorKind::InvalidData), code::EINVAL);
/// assert_eq!(errno_of_kind(ErrorKind::Other), code::EIO);
/// ```
pub fn errno_of_kind(kind: std::io::ErrorKind) -> Code {
    use std::io::ErrorKind as K;
    match kind {
        K::NotFound => code::ENOENT,
        K::PermissionDenied => code::EACCES,
        K::ConnectionRefused => code::ECONNREFUSED,
        K::ConnectionReset => code::ECONNRESET,
        K::HostUnreachable => code::EHOSTUNREACH,
        K::NetworkUnreachable => code::ENETUNREACH,
        K::ConnectionAborted => code::ECONNABORTED,
        K::NotConnected => code::ENOTCONN,
        K::AddrInUse => code::EADDRINUSE,
        K::AddrNotAvailable => code::EADDRNOTAVAIL,
        K::NetworkDown => code::ENETDOWN,
        K::BrokenPipe => code::EPIPE,
        K::AlreadyExists => code::EEXIST,
        K::WouldBlock => code::EAGAIN,
        K::NotADirectory => code::ENOTDIR,
        K::IsADirectory => code::EISDIR,
        K::DirectoryNotEmpty => code::ENOTEMPTY,
        K::ReadOnlyFilesystem => code::EROFS,
        K::StaleNetworkFileHandle => code::ESTALE,
        K::InvalidInput | K::InvalidData => code::EINVAL,
        K::TimedOut => code::ETIMEDOUT,
        K::StorageFull => code::ENOSPC,
        K::NotSeekable => code::ESPIPE,
        K::FileTooLarge => code::EFBIG,
        K::ResourceBusy => code::EBUSY,
        K::ExecutableFileBusy => code::ETXTBSY,
        K::Deadlock => code::EDEADLK,
        K::CrossesDevices => code::EXDEV,
        K::TooManyLinks => code::EMLINK,
        K::InvalidFilename => code::ENAMETOOLONG,
        K::ArgumentListTooLong => code::E2BIG,
        K::Interrupted => code::EINTR,
        K::Unsupported => code::EOPNOTSUPP,
        K::UnexpectedEof => code::ENODATA,
        K::OutOfMemory => code::ENOMEM,
        K::WriteZero => code::EIO,
        _ => code::EIO,
    }
}

impl From<Error> for std::io::Error {
    /// An `io::Error` that carries the errtrace error on, so nothing of its story is lost:
    ///
    /// - its [`kind`](std::io::Error::kind) is the errno's (`ENOENT` → `NotFound`);
    /// - it prints as the error does: one line with `{}`, the whole report with `{:#}`;
    /// - the errtrace error is reachable with `get_ref()`/`into_inner()` and `downcast`, and
    ///   `?` back into an `errtrace::Result` takes it out again (with a hop there);
    /// - dropped without being reported, it warns like the error itself would.
    ///
    /// `raw_os_error()` is `None` (the payload is the errtrace error, not an OS code): read the
    /// code with `errtrace::Error::from(io_error).code()` or from the payload.
    ///
    /// ```
    /// use errtrace::{code::ENOENT, Error};
    /// fn open() -> std::io::Result<u32> {
    ///     let r: errtrace::Result<u32> = Err(Error::new(ENOENT));
    ///     Ok(r?)
    /// }
    /// let io = open().unwrap_err();
    /// assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
    /// assert!(io.to_string().starts_with("ENOENT: No such file or directory (at "));
    /// let back = Error::from(io);
    /// assert_eq!(back.code(), ENOENT);
    /// back.handled();
    /// ```
    fn from(e: Error) -> std::io::Error {
        // The kind std gives the errno; an OS-code `io::Error` owns nothing, so not dropping it
        // loses nothing and keeps drops out of this function's unwinding paths.
        let os = core::mem::ManuallyDrop::new(std::io::Error::from_raw_os_error(i32::from(
            e.code().get(),
        )));
        let kind = os.kind();
        std::io::Error::new(kind, e)
    }
}
