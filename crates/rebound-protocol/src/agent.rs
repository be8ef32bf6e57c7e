//! The agent's wire types: the plan steps, verdicts and check results the
//! planner, executor and reviewer exchange, and the agent's progress events
//! ([`AgentEvent`]): `{"plan": ...}`, `{"step": ...}`, `{"review": ...}`,
//! `{"repair": ...}`, `{"git": ...}`, `{"checks": ...}`,
//! `{"check_proposed": ...}`, `{"finish_overruled": ...}`,
//! `{"thinking": ...}`, `{"agent": ...}`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What kind of step a plan step is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    /// A command that must succeed (exit code 0); without a command, the
    /// executor model does the step with the tools.
    #[default]
    Run,
    /// A command run for its output: a non-zero exit is not a failure and
    /// does not trigger repair mode.
    Observe,
    /// A change to one file: the harness cuts the `target` span of `file`,
    /// the model writes only its replacement (the description is the
    /// instruction), and the checks decide what is kept
    /// (`rebound_agent::edit`).
    Edit,
    /// A new file: written whole by the model from the description (the
    /// harness runs it as an edit of the whole file, judged by the checks
    /// like one).
    Create,
    /// A short program the harness has the model write (in a fenced
    /// block, not inside JSON) and runs: for an answer computed from data
    /// (a report, a list, a converted file). The description says what it
    /// reads and what it writes; its output, exit code and the files it
    /// wrote are the step's result (`rebound_agent::script`).
    Script,
}

impl std::fmt::Display for StepKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            StepKind::Run => "run",
            StepKind::Observe => "observe",
            StepKind::Edit => "edit",
            StepKind::Create => "create",
            StepKind::Script => "script",
        })
    }
}

/// One step of a plan. Every string is bounded in the schema, so a
/// grammar-constrained local model cannot repeat itself to the token
/// limit inside one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = require_kind)]
pub struct PlanStep {
    /// run, observe, edit, create or script.
    #[serde(default, skip_serializing_if = "is_run")]
    pub kind: StepKind,
    /// What the step does, in a sentence; for an edit, what to change.
    #[schemars(length(max = 300))]
    pub description: String,
    /// The shell command that does the step, when one command does it.
    /// Such a step runs directly: no model call; for `run`, success means
    /// exit code 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 300))]
    pub command: Option<String>,
    /// The file an edit changes or a create step writes (relative to the
    /// project directory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 200))]
    pub file: Option<String>,
    /// What part of the file an edit rewrites: a function or definition
    /// name, or a line range like `12-20`; empty for the whole file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 100))]
    pub target: Option<String>,
}

impl PlanStep {
    /// A `run` step of `command`.
    pub fn command(description: impl Into<String>, command: impl Into<String>) -> Self {
        PlanStep {
            description: description.into(),
            command: Some(command.into()),
            ..PlanStep::default()
        }
    }

    /// A step the executor model does with the tools.
    pub fn task(description: impl Into<String>) -> Self {
        PlanStep {
            description: description.into(),
            ..PlanStep::default()
        }
    }

    /// An `edit` step of `target` in `file`.
    pub fn edit(
        description: impl Into<String>,
        file: impl Into<String>,
        target: impl Into<String>,
    ) -> Self {
        PlanStep {
            kind: StepKind::Edit,
            description: description.into(),
            file: Some(file.into()),
            target: Some(target.into()),
            command: None,
        }
    }
}

impl PlanStep {
    /// What the step does, for a display: `$ cmd`, `$ cmd (observe)`,
    /// `edit calc.py (subtract)`; `None` for a step the executor model
    /// does.
    pub fn action(&self) -> Option<String> {
        match (self.kind, &self.command) {
            (StepKind::Edit, _) => Some(format!(
                "edit {}{}",
                self.file.as_deref().unwrap_or("?"),
                self.target
                    .as_deref()
                    .filter(|t| !t.trim().is_empty())
                    .map(|t| format!(" ({t})"))
                    .unwrap_or_default()
            )),
            (StepKind::Create, _) => {
                Some(format!("create {}", self.file.as_deref().unwrap_or("?")))
            }
            (StepKind::Observe, Some(command)) => Some(format!("$ {command} (observe)")),
            (StepKind::Script, _) => Some("script".to_string()),
            (_, Some(command)) => Some(format!("$ {command}")),
            (_, None) => None,
        }
    }
}

/// Whether `kind` is the default, left out of the serialized step.
fn is_run(kind: &StepKind) -> bool {
    *kind == StepKind::Run
}

/// Marks `kind` required in [`PlanStep`]'s schema, so a grammar-constrained
/// model decides the kind of every step first.
fn require_kind(schema: &mut schemars::Schema) {
    require_first(schema, "kind");
}

/// Puts `reason` first in [`Review`]'s required properties: a grammar
/// that follows that order has the model give its reason before its
/// verdict.
fn reason_first(schema: &mut schemars::Schema) {
    require_first(schema, "reason");
}

/// Puts `field` first (adding it when missing) in `schema`'s required properties.
pub fn require_first(schema: &mut schemars::Schema, field: &str) {
    match schema.get_mut("required") {
        Some(serde_json::Value::Array(required)) => {
            if !required.iter().any(|name| name == field) {
                required.insert(0, field.into());
            }
        }
        _ => {
            schema.insert("required".into(), serde_json::json!([field]));
        }
    }
}

/// The reviewer's verdict (note 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The step did its part: go on with the plan.
    Continue,
    /// Try again: back to the planner.
    Retry,
    /// The plan is wrong: make a new one.
    Replan,
    /// The goal is reached.
    Finish,
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Verdict::Continue => "continue",
            Verdict::Retry => "retry",
            Verdict::Replan => "replan",
            Verdict::Finish => "finish",
        })
    }
}

/// The reviewer's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = reason_first)]
pub struct Review {
    /// continue, retry, replan or finish.
    pub verdict: Verdict,
    /// Why, in a sentence.
    pub reason: String,
    /// What to change, when the verdict is retry or replan.
    #[serde(default)]
    pub fix_suggestions: Vec<String>,
}

/// What one run of a check gave.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckResult {
    /// The command.
    pub command: String,
    /// Whether it exited 0.
    pub passed: bool,
    /// Its exit code, when it exited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Its output (head and tail), or why it did not run.
    pub output: String,
    /// How long it ran, in milliseconds.
    pub duration_ms: u64,
}

impl CheckResult {
    /// One line: `` `cmd` passed `` or `` `cmd` failed (exit 1) ``.
    pub fn headline(&self) -> String {
        match (self.passed, self.exit_code) {
            (true, _) => format!("`{}` passed", self.command),
            (false, Some(127)) => {
                format!("`{}` failed (exit 127: command not found)", self.command)
            }
            (false, Some(0)) => {
                format!("`{}` failed (exit 0, but it proved nothing)", self.command)
            }
            (false, Some(code)) => format!("`{}` failed (exit {code})", self.command),
            (false, None) => format!("`{}` failed", self.command),
        }
    }
}

/// Why the checks ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckWhen {
    /// Once before the first plan: where the run starts from.
    Start,
    /// After a step that changed files.
    AfterChange,
    /// To verify a `finish`.
    Finish,
    /// To judge a candidate of an edit step.
    Edit,
}

impl std::fmt::Display for CheckWhen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CheckWhen::Start => "before the first plan",
            CheckWhen::AfterChange => "after a change",
            CheckWhen::Finish => "to verify the finish",
            CheckWhen::Edit => "to judge an edit",
        })
    }
}

/// An event of the agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum AgentEvent {
    /// The planner made a plan.
    Plan {
        /// Its steps.
        steps: Vec<PlanStep>,
        /// Whether it repairs a failed step.
        repair: bool,
        /// Tokens of the planner's prompt (0 when the answer was replayed
        /// from the journal of an older version).
        #[serde(default)]
        prompt_tokens: u64,
    },
    /// A step started or ended.
    Step {
        /// Its index in the plan.
        index: usize,
        /// The step.
        step: PlanStep,
        /// `started` or `finished`.
        phase: StepPhase,
        /// When finished: whether it succeeded.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        success: Option<bool>,
        /// When finished: the tail of its output.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        output: Option<String>,
    },
    /// The reviewer (or reflector) judged.
    Review(Review),
    /// A failed step goes back to the planner.
    Repair {
        /// The failed step.
        step: PlanStep,
        /// The error the planner will see.
        error: String,
    },
    /// A git operation of the reflect workflow.
    Git {
        /// `commit`, `rollback` or `init`.
        action: String,
        /// The commit it made or went back to.
        commit: String,
        /// The message or what happened.
        message: String,
    },
    /// The run's checks ran.
    Checks {
        /// Why they ran.
        when: CheckWhen,
        /// One result per check.
        results: Vec<CheckResult>,
    },
    /// The planner proposed a check for a run that had none: adopted when
    /// it fails before any change (it tells done from not done), refused
    /// otherwise.
    CheckProposed {
        /// The command.
        command: String,
        /// Whether it became the run's check.
        adopted: bool,
        /// Why (for a refusal: what is wrong with it).
        reason: String,
    },
    /// A `finish` was overruled: a check fails, so the run goes back to the
    /// planner in repair mode with the check's output.
    FinishOverruled {
        /// Who said finish (`reviewer`, `reflector`).
        by: String,
        /// Why it said so.
        reason: String,
        /// The failing checks.
        failing: Vec<CheckResult>,
    },
    /// A piece of the text a model is generating, as it arrives (from a
    /// model that streams tokens, such as the local one), so a display can
    /// show the model thinking. Pieces are batched (a line, or a few
    /// dozen characters); the whole answer is in the journal.
    Thinking {
        /// The call: `planner`, `reviewer`, `edit1:candidate`...
        call: String,
        /// The new text.
        text: String,
    },
    /// A supervisor agent spoke.
    Agent {
        /// Its name.
        name: String,
        /// What it said.
        message: String,
    },
}

/// The phase of a [`AgentEvent::Step`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepPhase {
    /// It started.
    Started,
    /// It ended.
    Finished,
}
