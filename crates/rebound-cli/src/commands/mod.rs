//! The subcommands, one file each, and what they share: loading the
//! settings, the command that resumes a thread, and errors in what the
//! user asked for.

pub mod config;
pub mod eval;
pub mod fork;
pub mod graph;
pub mod history;
pub mod model;
pub mod resume;
pub mod run;
pub mod serve;
pub mod show;
pub mod threads;
pub mod trust;

use rebound_workspace::{process_env, Flags, Settings};

use crate::cli::{Cli, Command, ConfigCommand, GlobalArgs, RunOverrides};
use crate::exit::{usage, Exit};

/// Runs the command `cli` names.
pub async fn dispatch(cli: Cli) -> anyhow::Result<Exit> {
    let global = &cli.global;
    match cli.command {
        Command::Run(args) => run::run(global, args).await,
        Command::Resume(args) => resume::resume(global, args).await,
        Command::Eval(args) => eval::eval(global, args).await,
        Command::Threads => threads::threads(global).await,
        Command::History(args) => history::history(global, args).await,
        Command::Show(args) => show::show(global, args).await,
        Command::Fork(args) => fork::fork(global, args).await,
        Command::Graph(args) => graph::graph(global, args),
        Command::Serve(args) => serve::serve(global, args).await,
        Command::Worker(args) => serve::worker(global, args).await,
        Command::Trust(args) => trust::trust(global, args),
        Command::Model { command } => model::model(global, command),
        Command::Config {
            command: ConfigCommand::Show,
        } => config::show(global),
    }
}

/// The flags every command shares, plus a run's overrides.
pub fn flags(global: &GlobalArgs, overrides: Option<&RunOverrides>) -> Flags {
    Flags {
        workspace: global.workspace.clone(),
        state_dir: global.state_dir.clone(),
        model: overrides.and_then(|o| o.model.clone()),
        approval: overrides.and_then(|o| o.approval.map(|a| a.as_str().to_string())),
        ..Flags::default()
    }
}

/// Loads the settings for `flags` from the files and the process
/// environment.
pub fn settings(flags: &Flags) -> anyhow::Result<Settings> {
    Ok(rebound_workspace::load(flags, &process_env)?)
}

/// Quotes `word` for a POSIX shell when it needs it (`shlex`, as
/// `rebound eval` does; a NUL byte, which no path holds, is dropped).
pub fn shell_quote(word: &str) -> String {
    let word = word.replace('\0', "");
    shlex::try_quote(&word).map_or_else(|_| word.clone(), std::borrow::Cow::into_owned)
}

/// The command that resumes `thread`, as typed from the current directory:
/// with `--workspace` when the workspace is elsewhere, and `--state-dir`
/// when one was given on the command line.
pub fn resume_command(thread: &str, global: &GlobalArgs, settings: &Settings) -> String {
    let mut command = format!("rebound resume {thread}");
    let here = std::env::current_dir()
        .ok()
        .and_then(|dir| std::fs::canonicalize(dir).ok());
    if here.as_deref() != Some(settings.workspace.as_path()) {
        command.push_str(&format!(
            " --workspace {}",
            shell_quote(&settings.workspace.display().to_string())
        ));
    }
    if global.state_dir.is_some() {
        command.push_str(&format!(
            " --state-dir {}",
            shell_quote(&settings.state_dir.display().to_string())
        ));
    }
    command
}

/// A checkpoint id from the command line.
pub fn checkpoint_id(text: &str) -> anyhow::Result<rebound_graph::checkpoint::CheckpointId> {
    text.parse()
        .map_err(|e: rebound_graph::checkpoint::ParseCheckpointIdError| usage(e.to_string()))
}
