//! The environment a command gets: the process's own, minus secrets.

use std::ffi::OsStr;

use super::secrets::is_secret_env;

/// Variables set for every command so that nothing waits for a human and
/// nothing runs stale code: pagers print straight through, git never
/// prompts for credentials, and Python writes no bytecode cache (an agent
/// edits a module within a second of a test run imported it; when the
/// edit keeps the file's size, as `b - a` → `a - b` does, Python's cache
/// check of size and whole-second mtime would run the old code).
pub(crate) const NON_INTERACTIVE: &[(&str, &str)] = &[
    ("PAGER", "cat"),
    ("GIT_PAGER", "cat"),
    ("GIT_TERMINAL_PROMPT", "0"),
    ("PYTHONDONTWRITEBYTECODE", "1"),
];

/// Tools that refuse to run without a cache they keep under the home
/// directory, which a sandboxed command may not write: the variable that
/// moves it, and the cache's directory under the context's
/// [`crate::ToolContext::caches`]. Go builds nothing without its build
/// cache (`failed to initialize build cache at ~/.cache/go-build:
/// permission denied`, found on the eval's Go tasks).
pub(crate) const TOOL_CACHES: &[(&str, &str)] = &[("GOCACHE", "go-build")];

/// Points each tool of [`TOOL_CACHES`] whose variable the process does not
/// set at its directory under `caches`.
pub(crate) fn tool_caches(command: &mut tokio::process::Command, caches: &std::path::Path) {
    for (name, dir) in TOOL_CACHES {
        if std::env::var_os(name).is_none() {
            command.env(name, caches.join(dir));
        }
    }
}

/// The names of the variables in `vars` that [`is_secret_env`] scrubs.
/// Names that are not UTF-8 are kept (no secret rule could name them).
pub(crate) fn secret_names<'a>(
    vars: impl Iterator<Item = &'a OsStr>,
    allow: &[String],
) -> Vec<&'a OsStr> {
    vars.filter(|name| name.to_str().is_some_and(|name| is_secret_env(name, allow)))
        .collect()
}

/// Removes the secrets of the current process's environment from what
/// `command` passes on — by name ([`is_secret_env`]) and by value (a value
/// that [`super::secrets::looks_like_secret`], a URL with a password),
/// except the names in `allow` — and turns pagers and prompts off
/// (`PAGER=cat`, `GIT_TERMINAL_PROMPT=0`, ...).
pub fn apply(command: &mut tokio::process::Command, allow: &[String]) {
    let vars: Vec<(std::ffi::OsString, std::ffi::OsString)> = std::env::vars_os().collect();
    for name in secret_names(vars.iter().map(|(name, _)| name.as_os_str()), allow) {
        command.env_remove(name);
    }
    for (name, value) in &vars {
        let allowed = name
            .to_str()
            .is_some_and(|name| allow.iter().any(|a| a.eq_ignore_ascii_case(name)));
        let secret_value = value.to_str().is_some_and(|value| {
            super::secrets::looks_like_secret(value)
                || super::secrets::url_password(value).is_some()
        });
        if secret_value && !allowed {
            command.env_remove(name);
        }
    }
    for (name, value) in NON_INTERACTIVE {
        command.env(name, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_recognised_by_name() {
        let allow = vec!["MY_PUBLIC_KEY".to_string()];
        for name in [
            "OPENAI_API_KEY",
            "ANTHROPIC_API_KEY",
            "GITHUB_TOKEN",
            "AWS_SECRET_ACCESS_KEY",
            "AWS_ACCESS_KEY_ID",
            "DB_PASSWORD",
            "client_secret",
            "TOKEN",
        ] {
            assert!(is_secret_env(name, &allow), "{name} should be a secret");
        }
        for name in [
            "PATH",
            "HOME",
            "KEYBOARD",
            "TOKENIZERS_PARALLELISM",
            "MONKEY",
            "MY_PUBLIC_KEY",
            "my_public_key",
        ] {
            assert!(!is_secret_env(name, &allow), "{name} should pass");
        }
    }
}
