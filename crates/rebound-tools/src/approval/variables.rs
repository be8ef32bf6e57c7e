//! Environment variables set on a command line: which change what runs.

/// Variables that change which program runs, what it loads, or where a
/// program finds its configuration.
const RISKY_VARIABLES: &[&str] = &[
    "PATH",
    "HOME",
    "XDG_CONFIG_HOME",
    "BASH_ENV",
    "ENV",
    "IFS",
    "PROMPT_COMMAND",
    "SHELLOPTS",
    "BASHOPTS",
    "PS4",
    "SHELL",
    "PAGER",
    "MANPAGER",
    "LESSOPEN",
    "LESSCLOSE",
    "EDITOR",
    "VISUAL",
    "BROWSER",
    "SSH_ASKPASS",
    "NODE_OPTIONS",
    "NODE_PATH",
    "PYTHONSTARTUP",
    "PYTHONPATH",
    "PYTHONHOME",
    "PERL5OPT",
    "PERL5LIB",
    "RUBYOPT",
    "RUBYLIB",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "RUSTC",
    "RUSTDOC",
    "RUSTC_WRAPPER",
    "RUSTC_WORKSPACE_WRAPPER",
    "RUSTFLAGS",
    "RUSTDOCFLAGS",
    "CARGO_ENCODED_RUSTFLAGS",
    "CARGO_BUILD_RUSTC",
    "CARGO_BUILD_RUSTC_WRAPPER",
    "CARGO_BUILD_RUSTFLAGS",
    "CC",
    "CXX",
    "LD",
    "AR",
];

/// Prefixes of variable families that do the same: the dynamic loader's
/// (`LD_PRELOAD`), git's (`GIT_CONFIG_*`, `GIT_EXTERNAL_DIFF`, `GIT_DIR`...).
const RISKY_PREFIXES: &[&str] = &["LD_", "DYLD_", "GIT_"];

/// Suffixes of cargo's per-target programs (`CARGO_TARGET_<triple>_RUNNER`).
const RISKY_SUFFIXES: &[&str] = &["_RUNNER", "_LINKER"];

/// `NAME=value` (or `NAME+=value`).
pub(super) fn is_assignment(word: &str) -> bool {
    let Some((name, _)) = word.split_once('=') else {
        return false;
    };
    let name = name.strip_suffix('+').unwrap_or(name);
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The name an assignment `NAME=value` sets.
pub(super) fn assigned_name(assignment: &str) -> &str {
    let name = assignment.split('=').next().unwrap_or_default();
    name.strip_suffix('+').unwrap_or(name)
}

/// Whether setting `name` can change which programs run.
pub(super) fn is_risky_variable(name: &str) -> bool {
    RISKY_VARIABLES.contains(&name)
        || RISKY_PREFIXES.iter().any(|p| name.starts_with(p))
        || (name.starts_with("CARGO_TARGET_") && RISKY_SUFFIXES.iter().any(|s| name.ends_with(s)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn risky_variables() {
        for name in [
            "PATH",
            "LD_PRELOAD",
            "GIT_CONFIG_COUNT",
            "RUSTFLAGS",
            "CARGO_TARGET_X_RUNNER",
        ] {
            assert!(is_risky_variable(name), "{name}");
        }
        for name in ["RUST_LOG", "CARGO_TARGET_DIR", "FOO"] {
            assert!(!is_risky_variable(name), "{name}");
        }
        assert!(is_assignment("A_1+=x"));
        assert!(!is_assignment("1A=x"));
        assert_eq!(assigned_name("PATH+=/x"), "PATH");
    }
}
