//! How the shell tool frames a command's output for the model: a status
//! line first (`exit code 1 (failure) after 0.2 s`), then the command
//! echoed (`$ make test`), then the output. Readers of that output (the
//! agent's checks, failure localization) tell the framing from what the
//! command printed with these.

/// How the status line of a command that exited starts (`exit code 1
/// (failure) after 0.2 s`).
pub const EXIT_PREFIX: &str = "exit code ";

/// How the line echoing the command starts, right after the status line.
pub const ECHO_PREFIX: &str = "$ ";

/// Whether `line` is the status line of a command that exited (`exit code
/// 1 (failure) after 0.2 s`).
pub fn is_exit_line(line: &str) -> bool {
    untimed_exit_line(line).is_some()
}

/// An exit status line without how long the command took (`exit code 1
/// (failure)`), so that two runs' outputs can be compared; `None` for any
/// other line.
pub fn untimed_exit_line(line: &str) -> Option<&str> {
    if !line.starts_with(EXIT_PREFIX) || !line.ends_with(" s") {
        return None;
    }
    line.find(") after ").map(|at| &line[..=at])
}
