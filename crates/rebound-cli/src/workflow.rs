//! The workflows the CLI runs: [`Workflow`] and [`WorkflowKind`] from
//! `rebound_agent::workflow`, and how the command line names them.

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

pub use rebound_agent::workflow::{Workflow, WorkflowKind};

/// The parser of `--workflow`: a workflow's name, the names and what they
/// do listed in `--help`.
pub fn parser() -> impl TypedValueParser<Value = WorkflowKind> {
    PossibleValuesParser::new(
        WorkflowKind::ALL.map(|kind| PossibleValue::new(kind.name()).help(kind.description())),
    )
    .try_map(|name| name.parse::<WorkflowKind>())
}

/// The error for a workflow `rebound_agent` has and this CLI cannot run
/// yet (the kind is `#[non_exhaustive]`).
pub fn unsupported(kind: WorkflowKind) -> anyhow::Error {
    anyhow::anyhow!("this version of rebound cannot run the {kind} workflow")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[derive(Debug, clap::Parser)]
    struct Args {
        #[arg(long, value_parser = parser())]
        workflow: Option<WorkflowKind>,
    }

    #[test]
    fn the_flag_takes_the_workflow_names_only() {
        use clap::Parser;
        let args = Args::try_parse_from(["x", "--workflow", "reflect"]).unwrap();
        assert_eq!(args.workflow, Some(WorkflowKind::Reflect));
        assert_eq!(Args::try_parse_from(["x"]).unwrap().workflow, None);
        let error = Args::try_parse_from(["x", "--workflow", "supervisor"]).unwrap_err();
        let text = error.to_string();
        assert!(text.contains("[possible values: pev, reflect]"), "{text}");
    }
}
