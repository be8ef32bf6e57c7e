//! `rebound`: run the agent on a goal, watch it work, answer its approval
//! questions, and inspect, resume or fork its durable threads.
//!
//! A thin binary over the libraries: `rebound-agent` (the workflows),
//! `rebound-graph` (the engine), `rebound-sqlite` (the checkpoints),
//! `rebound-llm` (the models) and `rebound-tools` (the tools). See `cli` for
//! the commands, `config` for the configuration and `exit` for the exit
//! codes.

mod approve;
mod cli;
mod commands;
mod config;
mod deps;
mod eval;
mod exit;
mod models;
mod render;
mod run;
mod store;
mod threads;
mod timefmt;
mod workflow;

use std::process::ExitCode;

use clap::Parser;

use crate::exit::Exit;

fn main() -> ExitCode {
    // Not dumpable: another process of the same user (a command the agent
    // runs, above all) cannot read rebound's memory or its environment
    // (`/proc/<pid>/environ`, where the provider keys are) without
    // CAP_SYS_PTRACE. Best effort: a kernel that refuses changes nothing.
    let _ = nix::sys::prctl::set_dumpable(false);
    let cli = cli::Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("rebound: cannot start the async runtime: {error}");
            return Exit::Stopped.into();
        }
    };
    let result = runtime.block_on(commands::dispatch(cli));
    // A prompt may still be blocked reading stdin: do not wait for it.
    runtime.shutdown_background();
    match result {
        Ok(exit) => exit.into(),
        Err(error) => {
            eprintln!("rebound: error: {error:#}");
            exit::code_of(&error).into()
        }
    }
}
