//! Asking for an approval on the terminal: the command, where it runs and
//! why the policy asks, then `[a]pprove, approve [A]ll, [d]eny`.

use std::io::{BufRead, IsTerminal, Write};

use console::style;
use rebound_tools::approval::{ApprovalAnswer, ApprovalRequest};

use crate::render::shown;

/// Whether this process may ask the user: stdin and stderr are terminals
/// and `--no-input` was not given.
pub fn can_ask(no_input: bool) -> bool {
    !no_input && std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// What the user typed, read as an answer (`None`: ask again).
fn parse_choice(input: &str) -> Option<Choice> {
    match input.trim() {
        "a" | "approve" | "y" | "yes" => Some(Choice::Approve),
        "A" | "all" | "approve all" | "approve-all" => Some(Choice::ApproveAll),
        "d" | "D" | "deny" | "n" | "no" => Some(Choice::Deny),
        _ => None,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Choice {
    Approve,
    ApproveAll,
    Deny,
}

/// Asks about `request` on stderr, reading stdin. Blocking: run it off
/// the async threads. `Ok(None)`: stdin closed before an answer.
pub fn ask(request: &ApprovalRequest) -> std::io::Result<Option<ApprovalAnswer>> {
    let mut stderr = std::io::stderr().lock();
    writeln!(stderr)?;
    writeln!(
        stderr,
        "{}",
        style("⏸ approval needed: the agent wants to run")
            .for_stderr()
            .yellow()
            .bold()
    )?;
    writeln!(
        stderr,
        "    {}",
        style(format!("$ {}", shown(&request.command)))
            .for_stderr()
            .cyan()
    )?;
    writeln!(
        stderr,
        "    {} {}",
        style("in").for_stderr().dim(),
        shown(&request.cwd.display().to_string())
    )?;
    writeln!(
        stderr,
        "    {} {}",
        style("because").for_stderr().dim(),
        shown(&request.reason)
    )?;
    drop(stderr);
    let stdin = std::io::stdin();
    let choice = loop {
        prompt(&format!(
            "{}pprove, approve {}ll, {}eny? ",
            style("[a]").for_stderr().bold(),
            style("[A]").for_stderr().bold(),
            style("[d]").for_stderr().bold()
        ))?;
        let mut line = String::new();
        if stdin.lock().read_line(&mut line)? == 0 {
            return Ok(None);
        }
        match parse_choice(&line) {
            Some(choice) => break choice,
            None => eprintln!("  type a (approve), A (approve all) or d (deny)"),
        }
    };
    Ok(Some(match choice {
        Choice::Approve => ApprovalAnswer::Approve,
        Choice::ApproveAll => ApprovalAnswer::ApproveAll,
        Choice::Deny => {
            prompt("message for the agent (why, or what to do instead; Enter for none): ")?;
            let mut message = String::new();
            stdin.lock().read_line(&mut message)?;
            ApprovalAnswer::deny(message.trim())
        }
    }))
}

fn prompt(text: &str) -> std::io::Result<()> {
    let mut stderr = std::io::stderr().lock();
    write!(stderr, "{text}")?;
    stderr.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_read_like_the_prompt_says() {
        assert_eq!(parse_choice("a\n"), Some(Choice::Approve));
        assert_eq!(parse_choice("A"), Some(Choice::ApproveAll));
        assert_eq!(parse_choice(" d "), Some(Choice::Deny));
        assert_eq!(parse_choice("maybe"), None);
    }
}
