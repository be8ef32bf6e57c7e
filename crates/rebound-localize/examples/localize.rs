//! Runs a command in a workspace and shows where its failures point, as
//! rebound's planner sees them:
//!
//! ```text
//! cargo run -p rebound-localize --example localize -- <workspace> '<command>'
//! cargo run -p rebound-localize --example localize -- \
//!     examples/tasks/dev/py-early-return/workspace 'python3 -m unittest'
//! ```

use std::path::PathBuf;
use std::process::{Command, ExitCode};

fn main() -> Result<ExitCode, Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(workspace), Some(command)) = (args.next(), args.next()) else {
        eprintln!("usage: localize <workspace> '<command>'");
        return Ok(ExitCode::from(2));
    };
    let workspace = PathBuf::from(workspace).canonicalize()?;
    let ran = Command::new("bash")
        .arg("-c")
        .arg(&command)
        .current_dir(&workspace)
        .output()?;
    if ran.status.success() {
        println!("`{}` passed: nothing to localize", shown(&command));
        return Ok(ExitCode::SUCCESS);
    }
    let output = format!(
        "{}{}",
        String::from_utf8_lossy(&ran.stdout),
        String::from_utf8_lossy(&ran.stderr)
    );
    let failures = rebound_localize::parse(&command, &output, &workspace);
    let suspects = rebound_localize::locate(&workspace, &failures);
    println!(
        "{}",
        shown(&rebound_localize::render(&failures, &suspects, 1500))
    );
    Ok(ExitCode::FAILURE)
}

/// `text` with its control characters (but newlines and tabs) replaced:
/// a command's output and a file's code must not drive the terminal.
fn shown(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() && c != '\n' && c != '\t' {
                '\u{fffd}'
            } else {
                c
            }
        })
        .collect()
}
