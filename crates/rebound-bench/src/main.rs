//! `rebound-bench`: the engine benchmark of bench/WORKLOADS.md. Each workload
//! prints exactly one JSON line.

mod pev;
mod postgres_workloads;
mod queue_worker;
mod queue_workload;
mod rss;
mod send_workload;
mod server_load;
mod server_memory;
mod sqlite_workloads;
mod workloads;

use std::process::ExitCode;

use anyhow::Result;
use clap::{Parser, ValueEnum};

/// The workloads of WORKLOADS.md §2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Workload {
    /// W0: the node logic as a plain loop.
    Ref,
    /// W1: one run, no checkpointer.
    Steps,
    /// W2: one run, in-memory checkpointer.
    StepsMem,
    /// W3: one run, SQLite checkpointer.
    StepsSqlite,
    /// W3 on PostgreSQL: one run, rebound_postgres::PostgresSaver (`--url`,
    /// else REBOUND_POSTGRES_URL, else a throwaway local cluster).
    StepsPostgres,
    /// W4a: K concurrent runs, no checkpointer.
    Concurrent,
    /// W4b: K concurrent runs, one shared SQLite checkpointer.
    ConcurrentSqlite,
    /// W5: stop in the middle, resume in a new process.
    Resume,
    /// W5's second phase (spawned by `resume`).
    ResumeChild,
    /// Map-reduce fan-out: one superstep of K sends (`--k`, default 1000),
    /// in-memory saver.
    Send,
    /// Load on a running Agent Server over HTTP (`--url`, `--assistant`,
    /// `--mode wait|stream`; see src/server_load.rs).
    ServerLoad,
    /// Run-queue throughput on PostgreSQL with rebound-server's workers:
    /// `--runs` (default 10000) three-node runs through `--workers` worker
    /// processes of `--concurrency` workers each; runs/s and claim latency
    /// (see src/queue_workload.rs). `--url` as `steps-postgres`.
    QueuePostgres,
    /// One worker process of `queue-postgres` (spawned by it).
    #[value(hide = true)]
    QueueWorker,
}

/// Which tokio runtime drives the runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Runtime {
    /// One thread (`new_current_thread`).
    CurrentThread,
    /// A worker per core (`new_multi_thread`).
    MultiThread,
}

/// rebound's engine benchmark (bench/WORKLOADS.md).
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// The workload to run.
    #[arg(value_enum)]
    workload: Workload,
    /// max_iters of the run (W0, W1: default 2000).
    #[arg(long)]
    n: Option<i64>,
    /// Number of concurrent runs (W4: default 1000); number of sends (`send`: default 1000).
    #[arg(long)]
    k: Option<usize>,
    /// max_iters of each concurrent run (W4: default 20).
    #[arg(long)]
    m: Option<i64>,
    /// The tokio runtime.
    #[arg(long, value_enum, default_value = "current-thread")]
    runtime: Runtime,
    /// When checkpoints are committed.
    #[arg(long, value_enum, default_value = "sync")]
    durability: DurabilityArg,
    /// SQLite's `PRAGMA synchronous` (W3, W4b, W5).
    #[arg(long, default_value = "normal")]
    synchronous: rebound_sqlite::Synchronous,
    /// The database of `resume-child`.
    #[arg(long)]
    db: Option<std::path::PathBuf>,
    /// The flags of `server-load`.
    #[command(flatten)]
    server_load: server_load::ServerLoadArgs,
    /// The flags of `queue-postgres`.
    #[command(flatten)]
    queue: queue_workload::QueueArgs,
}

/// `--durability`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum DurabilityArg {
    /// Committed before the next superstep starts.
    Sync,
    /// Committed in batches (64 steps or 100 ms).
    Batched,
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(&args) {
        Ok(line) => {
            println!("{line}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("rebound-bench: {error:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<serde_json::Value> {
    let runtime = match args.runtime {
        Runtime::CurrentThread => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?,
        Runtime::MultiThread => tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?,
    };
    let runtime_name = match args.runtime {
        Runtime::CurrentThread => "current_thread",
        Runtime::MultiThread => "multi_thread",
    };
    let n = args.n.unwrap_or(2000);
    let durability = match args.durability {
        DurabilityArg::Sync => rebound_graph::Durability::Sync,
        DurabilityArg::Batched => rebound_graph::Durability::batched(),
    };
    let settings = sqlite_workloads::SqliteSettings {
        synchronous: args.synchronous,
        durability,
    };
    match args.workload {
        Workload::Ref => Ok(workloads::reference(n)),
        Workload::Steps => runtime.block_on(workloads::steps(n)),
        Workload::StepsMem => runtime.block_on(workloads::steps_mem(n, durability)),
        Workload::StepsSqlite => runtime.block_on(sqlite_workloads::steps_sqlite(n, settings)),
        Workload::StepsPostgres => runtime.block_on(postgres_workloads::steps_postgres(
            n,
            durability,
            args.server_load.url.as_deref(),
        )),
        Workload::ConcurrentSqlite => runtime.block_on(sqlite_workloads::concurrent_sqlite(
            args.k.unwrap_or(1000),
            args.m.unwrap_or(20),
            runtime_name,
            settings,
        )),
        Workload::Resume => runtime.block_on(sqlite_workloads::resume(n, settings)),
        Workload::ResumeChild => {
            let Some(db) = args.db.clone() else {
                anyhow::bail!("resume-child needs --db");
            };
            runtime.block_on(sqlite_workloads::resume_child(n, db, settings))
        }
        Workload::Send => runtime.block_on(send_workload::send(args.k.unwrap_or(1000))),
        Workload::ServerLoad => runtime.block_on(server_load::server_load(&args.server_load)),
        Workload::Concurrent => runtime.block_on(workloads::concurrent(
            args.k.unwrap_or(1000),
            args.m.unwrap_or(20),
            runtime_name,
        )),
        Workload::QueuePostgres | Workload::QueueWorker => run_queue(args),
    }
}

/// `queue-postgres` and its worker processes, on the runtime a server
/// runs on (a multi-thread one with `rebound_server::runtime_threads`).
fn run_queue(args: &Args) -> Result<serde_json::Value> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(rebound_server::runtime_threads())
        .enable_all()
        .build()?;
    let url = args.server_load.url.as_deref();
    if args.workload == Workload::QueueWorker {
        return runtime.block_on(queue_worker::queue_worker(url, args.queue.concurrency));
    }
    runtime.block_on(queue_workload::queue_postgres(
        &args.queue,
        args.server_load.runs.unwrap_or(10_000),
        url,
    ))
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// The flags of every workload share one command line: two with the
    /// same name are a clap error that only shows when the binary runs
    /// (`--runs-per-thread` of `server-load` met `queue-postgres`'s).
    #[test]
    fn the_command_line_is_consistent() {
        super::Args::command().debug_assert();
    }
}
