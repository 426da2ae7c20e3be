//! `errtrace-audit.toml`: extra log macros, log functions and methods, boundaries, origin
//! functions and discard-worthy functions.

use serde::Deserialize;
use std::path::Path;

/// The name of the config file looked up at the audited root.
pub const FILE_NAME: &str = "errtrace-audit.toml";

/// The audit's configuration. Every list adds to the built-in defaults.
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Extra macros (last path segment, without `!`) that count as logging calls.
    pub log_macros: Vec<String>,
    /// Extra functions (last path segment) that count as logging calls, like `dev_err_probe`.
    pub log_functions: Vec<String>,
    /// Extra methods that log the error of the `Result` they are called on, like `.log(…)`.
    pub log_methods: Vec<String>,
    /// Extra boundaries: a function name (`handler`) or `Type::name` / `Trait::name`.
    pub boundaries: Vec<String>,
    /// Extra functions whose call makes an error (like `from_errno`).
    pub origin_functions: Vec<String>,
    /// Functions outside the tree whose results count as `Result` when discarded.
    pub discard_functions: Vec<String>,
    /// Extra calls whose failure the callee reports itself (`Type::name` or a bare name),
    /// like the kernel's allocating constructors: an error from them is not a silent origin.
    pub reported_by_callee: Vec<String>,
    /// Report `panic` findings (`.unwrap()`, `.expect()`, `panic!`… on a `Result` or in code
    /// that returns one). Off by default: on real drivers nearly all of them are guarded by an
    /// invariant, and clippy's `unwrap_used`/`expect_used` already point at them. `--panics`
    /// turns it on too.
    pub panics: bool,
    /// List silent chains whose only boundary is an entry point from user space (a file
    /// operation: the errno is the system call's result, which the process sees). Off by
    /// default: such an errno is the report the kernel's ABI gives, and most are about the
    /// caller's own input. `--user-space` turns it on too.
    pub user_space: bool,
    /// List silent chains whose origin is an overflow or conversion guard
    /// (`a.checked_add(b).ok_or(EOVERFLOW)?`, `u32::try_from(n)?`, `x.try_into()?`). Off by
    /// default: such a check guards against what the code's invariants exclude, written so
    /// that it cannot panic. `--guards` turns it on too.
    pub guards: bool,
}

/// Why a config could not be loaded.
#[derive(Debug)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Config {
    /// Parse a config from TOML text.
    pub fn from_toml(text: &str) -> Result<Config, ConfigError> {
        toml::from_str(text).map_err(|e| ConfigError(format!("invalid config: {e}")))
    }

    /// Load `path`.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| ConfigError(format!("cannot read {}: {e}", path.display())))?;
        Config::from_toml(&text).map_err(|e| ConfigError(format!("{}: {}", path.display(), e.0)))
    }

    /// Is `name` (a function's name, with its owner or trait) a configured boundary?
    pub fn is_boundary(&self, name: &str, owner: Option<&str>, trait_name: Option<&str>) -> bool {
        self.boundaries.iter().any(|b| match b.rsplit_once("::") {
            None => b == name,
            Some((q, n)) => {
                n == name
                    && (owner.is_some_and(|o| q.rsplit("::").next() == Some(o))
                        || trait_name.is_some_and(|t| q.rsplit("::").next() == Some(t)))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_keys_are_rejected() {
        assert!(Config::from_toml("log_macro = [\"x\"]").is_err());
        let c = Config::from_toml("log_macros = [\"my_log\"]\nboundaries = [\"Srv::handle\", \"entry\"]")
            .unwrap();
        assert_eq!(c.log_macros, vec!["my_log".to_string()]);
        assert!(c.is_boundary("entry", None, None));
        assert!(c.is_boundary("handle", Some("Srv"), None));
        assert!(!c.is_boundary("handle", Some("Other"), None));
    }

    #[test]
    fn reported_by_callee_adds_to_the_allocating_constructors() {
        let c = Config::from_toml("reported_by_callee = [\"Pool::get\", \"request_firmware\"]").unwrap();
        let names = crate::logging::Names::new(&c);
        assert!(names.is_reported_by_callee(Some("Pool"), "get"));
        assert!(names.is_reported_by_callee(None, "request_firmware"));
        assert!(
            names.is_reported_by_callee(Some("KBox"), "new"),
            "an alias of Box"
        );
        assert!(names.is_reported_by_callee(Some("Vec"), "push"));
        assert!(!names.is_reported_by_callee(Some("Pool"), "put"));
        assert!(
            !names.is_reported_by_callee(None, "push"),
            "a bare method name is not enough"
        );
    }
}
