//! The gate every run passes (`run`, `resume`, `serve`, `worker`): an
//! untrusted workspace file that asks for more than it may have is named,
//! and on a terminal the user is asked whether to trust it. The settings
//! themselves come from `rebound_workspace`; only the asking is here.

use std::io::{BufRead, Write};

use console::style;
use rebound_workspace::config::{TrustStore, WORKSPACE_FILE};
use rebound_workspace::{process_env, Flags, Settings, WorkspaceTrust};

use crate::cli::GlobalArgs;
use crate::commands::{settings, shell_quote};
use crate::exit::usage;
use crate::render::sanitize;

/// The lines that name what an untrusted workspace file asked for and did
/// not get: a heading and one line per setting.
pub fn ignored_lines(settings: &Settings) -> Vec<String> {
    let ignored = settings.trust.ignored();
    if ignored.is_empty() {
        return Vec::new();
    }
    let mut lines = vec![format!(
        "{} asks for settings an untrusted workspace cannot have:",
        sanitize(
            &settings
                .workspace
                .join(WORKSPACE_FILE)
                .display()
                .to_string()
        )
    )];
    lines.extend(
        ignored
            .iter()
            .map(|i| format!("  {}", sanitize(&i.to_string()))),
    );
    lines
}

/// The settings for a run: an untrusted workspace file that asks for more
/// than it may have is dealt with first. With `--no-input` it is an error
/// (exit 2) naming the command that trusts it; on a terminal the user is
/// asked (a yes trusts the file and reloads); otherwise one warning line
/// per ignored setting, and the run goes on without them.
pub fn settings_for_run(global: &GlobalArgs, flags: &Flags) -> anyhow::Result<Settings> {
    let settings = settings(flags)?;
    if let WorkspaceTrust::Untrusted {
        store_warning: Some(warning),
        ..
    } = &settings.trust
    {
        eprintln!("warning: {}", sanitize(warning));
    }
    let lines = ignored_lines(&settings);
    if lines.is_empty() {
        return Ok(settings);
    }
    let command = format!(
        "rebound trust {}",
        shell_quote(&settings.workspace.display().to_string())
    );
    if global.no_input {
        return Err(usage(format!(
            "{}\nReview the file, then trust it with `{command}` (or remove those settings).",
            lines.join("\n")
        )));
    }
    if crate::approve::can_ask(global.no_input) {
        let mut stderr = std::io::stderr().lock();
        for line in &lines {
            writeln!(stderr, "{line}")?;
        }
        write!(
            stderr,
            "{} ",
            style("Trust this file? All of it will count, until it changes. [y/N]")
                .for_stderr()
                .yellow()
                .bold()
        )?;
        stderr.flush()?;
        drop(stderr);
        let mut answer = String::new();
        std::io::stdin().lock().read_line(&mut answer)?;
        if matches!(answer.trim(), "y" | "Y" | "yes") {
            if let WorkspaceTrust::Untrusted { sha256, .. } = &settings.trust {
                TrustStore::load(&process_env).trust(&settings.workspace, sha256)?;
            }
            return crate::commands::settings(flags);
        }
        eprintln!("going on without those settings");
        return Ok(settings);
    }
    for line in &lines {
        eprintln!("warning: {line}");
    }
    eprintln!("warning: ignored until trusted: `{command}`");
    Ok(settings)
}
