//! What each method of [`ResultExt`](crate::ResultExt) does to an error, as data: the one list
//! that errtrace's own tests (`tests/test_vocabulary.rs`: every method is listed) and the audit
//! tool (`cargo errtrace audit`: which calls log, which pass the error on) both read.

/// What a `ResultExt` method does to the error of an `Err`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Passes the error on with a hop recorded (`.trace()`, `.during("…")`).
    Hop,
    /// Logs the error (per its site's policy) and passes it on (`.log("…")`).
    LogsAndPasses,
    /// Logs the error and ends it, giving a value instead (`.or_log("…", fallback)`).
    LogsAndEnds,
    /// Ends the error without a message: the caller deals with it (`.handled_ok()`).
    Handles,
}

/// Every method of `ResultExt`, with its role.
pub const RESULT_EXT: &[(&str, Role)] = &[
    ("trace", Role::Hop),
    ("during", Role::Hop),
    ("log", Role::LogsAndPasses),
    ("log_with", Role::LogsAndPasses),
    ("gave_up", Role::LogsAndPasses),
    ("not_expected", Role::LogsAndPasses),
    ("or_log", Role::LogsAndEnds),
    ("into_code_result", Role::Handles),
    ("handled_ok", Role::Handles),
];

/// The functions that end an error's way at a boundary ([`boundary`](crate::boundary),
/// [`boundary_errno`](crate::boundary_errno)): each reports an error that reaches it unreported
/// (at its policy's level), so what they return has been said once.
pub const REPORTING_FUNCTIONS: &[&str] = &["boundary", "boundary_errno"];

/// The `ResultExt` methods that log the error.
pub fn logging_methods() -> impl Iterator<Item = &'static str> {
    RESULT_EXT
        .iter()
        .filter(|(_, r)| matches!(r, Role::LogsAndPasses | Role::LogsAndEnds))
        .map(|(m, _)| *m)
}

/// The `ResultExt` methods that pass the error on (possibly logged or with a hop).
pub fn passing_methods() -> impl Iterator<Item = &'static str> {
    RESULT_EXT
        .iter()
        .filter(|(_, r)| matches!(r, Role::Hop | Role::LogsAndPasses))
        .map(|(m, _)| *m)
}
