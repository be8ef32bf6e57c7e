//! `rebound graph --workflow W --format mermaid|ascii`: a workflow's graph,
//! as the engine draws it (Mermaid, or text with solid fixed edges and
//! dotted router choices).

use rebound_agent::pev::PevState;
use rebound_agent::reflect::ReflectState;

use super::{flags, settings};
use crate::cli::{GlobalArgs, GraphArgs, GraphFormat};
use crate::exit::Exit;
use crate::render::out;
use crate::workflow::{Workflow, WorkflowKind};

/// Prints a workflow's graph.
pub fn graph(global: &GlobalArgs, args: GraphArgs) -> anyhow::Result<Exit> {
    let workspace = match settings(&flags(global, None)) {
        Ok(settings) => settings.workspace,
        Err(_) => std::env::temp_dir(),
    };
    let (mermaid, ascii) = match args.workflow {
        WorkflowKind::Pev => described::<PevState>(args.workflow, &workspace)?,
        WorkflowKind::Reflect => described::<ReflectState>(args.workflow, &workspace)?,
        other => return Err(crate::workflow::unsupported(other)),
    };
    let text = match args.format {
        GraphFormat::Mermaid => mermaid,
        GraphFormat::Ascii => ascii,
    };
    out(text.trim_end());
    Ok(Exit::Success)
}

/// The workflow's graph as Mermaid, and drawn in text under a title.
fn described<S: Workflow>(
    workflow: WorkflowKind,
    workspace: &std::path::Path,
) -> anyhow::Result<(String, String)> {
    let deps = rebound_workspace::deps::inert(workspace)?;
    let graph = S::build(deps)?;
    let title = match workflow {
        WorkflowKind::Pev => "pev: plan → execute → review → advance, with repair mode".to_string(),
        WorkflowKind::Reflect => {
            "reflect: plan → execute → reflect → commit, with rollback".to_string()
        }
        other => format!("{other}: {}", other.description()),
    };
    Ok((
        graph.to_mermaid(),
        format!("{title}\n\n{}", graph.to_ascii()),
    ))
}
