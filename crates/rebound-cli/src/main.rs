//! `rebound`: run the agent on a goal, watch it work, answer its approval
//! questions, and inspect, resume or fork its durable threads.
//!
//! A thin binary over the libraries: `rebound-workspace` (the settings,
//! trust, the state directory and thread records, the model and tools of a
//! run), `rebound-agent` (the workflows), `rebound-graph` (the engine),
//! `rebound-eval` (`rebound eval`'s harness) and `rebound-server` (`serve`,
//! `worker`). Here: the arguments (`cli`), one file per command
//! (`commands`), the trust prompt (`gate`), approvals on the terminal
//! (`approve`), driving a run (`run`), rendering (`render`) and the exit
//! codes (`exit`).

mod approve;
mod cli;
mod commands;
mod exit;
mod gate;
mod render;
mod run;
mod timefmt;
mod workflow;

use std::process::ExitCode;

use clap::Parser;

use crate::exit::Exit;

/// jemalloc rather than the system allocator: under `rebound serve`'s load
/// allocation is a fifth of the time, and jemalloc serves it faster
/// (measured with `rebound-bench server-load`: ~+10% runs/s over glibc).
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// The libraries' diagnostics (`tracing`) on stderr: warnings by default
/// (a prompt state on disk that was corrupt and is made again, a sandbox
/// the kernel lacks), more with `REBOUND_LOG` (`REBOUND_LOG=debug`,
/// `REBOUND_LOG=rebound_llm=debug` for each local model call's timings).
/// No colours; the subscriber escapes control characters in what it
/// writes.
fn diagnostics() {
    use tracing_subscriber::EnvFilter;
    // llama.cpp's own warnings (its log goes to `tracing` under
    // `llama-cpp-2`) are about its settings, said on every load: only its
    // errors by default.
    let filter = EnvFilter::try_from_env("REBOUND_LOG")
        .unwrap_or_else(|_| EnvFilter::new("warn,llama-cpp-2=error"));
    // Best effort: a subscriber set already (none is) keeps its place.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .without_time()
        .try_init();
}

fn main() -> ExitCode {
    // Not dumpable: another process of the same user (a command the agent
    // runs, above all) cannot read rebound's memory or its environment
    // (`/proc/<pid>/environ`, where the provider keys are) without
    // CAP_SYS_PTRACE. Best effort: a kernel that refuses changes nothing.
    let _ = nix::sys::prctl::set_dumpable(false);
    let cli = cli::Cli::parse();
    diagnostics();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        // `rebound serve` blocks threads on its database (see the function).
        .worker_threads(rebound_server::runtime_threads())
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
            eprintln!("rebound: error: {}", error_text(&error));
            exit::code_of(&error).into()
        }
    }
}

/// An error and its causes on one line, `a: b: c`. A cause already told by
/// the message before it is left out, and nothing below a model error is
/// read: its message carries its causes with the API key redacted, while
/// the HTTP client's error underneath may show a URL with credentials.
fn error_text(error: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in error.chain() {
        let message = cause.to_string();
        if !text.contains(&message) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&message);
        }
        if cause.downcast_ref::<rebound_llm::LlmError>().is_some() {
            break;
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::error_text;

    #[test]
    fn an_error_is_told_once_and_nothing_below_a_model_error() {
        #[derive(Debug, thiserror::Error)]
        #[error("error sending request for url (https://user:secret@example.invalid/v1)")]
        struct Client;
        let model = rebound_llm::LlmError::Transport {
            provider: "openai".to_string(),
            message: "error sending request (connection refused)".to_string(),
            source: rebound_llm::ErrorSource::new(Client),
        };
        let error = anyhow::Error::new(model).context("the planner failed");
        assert_eq!(
            error_text(&error),
            "the planner failed: openai: transport error: error sending request (connection refused)"
        );
        let repeated =
            anyhow::anyhow!("cannot open state.db").context("cannot open state.db: disk full");
        assert_eq!(error_text(&repeated), "cannot open state.db: disk full");
    }
}
