//! `rebound graph --workflow W --format mermaid|ascii`: a workflow's graph,
//! as the engine's Mermaid export or drawn in ASCII from its edges: each
//! node, then where it leads, solid for fixed edges and dotted for the
//! choices of its router.

use rebound_agent::pev::PevState;
use rebound_agent::reflect::ReflectState;
use rebound_graph::GraphEdge;

use super::{flags, settings};
use crate::cli::{GlobalArgs, GraphArgs, GraphFormat};
use crate::exit::Exit;
use crate::render::out;
use crate::render::progress::node_name;
use crate::workflow::{Workflow, WorkflowKind};

/// Prints a workflow's graph.
pub fn graph(global: &GlobalArgs, args: GraphArgs) -> anyhow::Result<Exit> {
    let workspace = match settings(&flags(global, None)) {
        Ok(settings) => settings.workspace,
        Err(_) => std::env::temp_dir(),
    };
    let (mermaid, edges) = match args.workflow {
        WorkflowKind::Pev => described::<PevState>(&workspace)?,
        WorkflowKind::Reflect => described::<ReflectState>(&workspace)?,
        other => return Err(crate::workflow::unsupported(other)),
    };
    let text = match args.format {
        GraphFormat::Mermaid => mermaid,
        GraphFormat::Ascii => ascii(args.workflow, &edges),
    };
    out(text.trim_end());
    Ok(Exit::Success)
}

/// The workflow's graph as Mermaid, and its edges.
fn described<S: Workflow>(workspace: &std::path::Path) -> anyhow::Result<(String, Vec<GraphEdge>)> {
    let deps = rebound_workspace::deps::inert(workspace)?;
    let graph = S::build(deps)?;
    Ok((graph.to_mermaid(), graph.edges()))
}

/// The ASCII drawing: each node that leads somewhere, in the order of the
/// edges (START first), then its edges.
fn ascii(workflow: WorkflowKind, edges: &[GraphEdge]) -> String {
    let title = match workflow {
        WorkflowKind::Pev => "pev: plan → execute → review → advance, with repair mode".to_string(),
        WorkflowKind::Reflect => {
            "reflect: plan → execute → reflect → commit, with rollback".to_string()
        }
        other => format!("{other}: {}", other.description()),
    };
    let mut sources: Vec<&str> = Vec::new();
    for edge in edges {
        if !sources.contains(&edge.source.as_str()) {
            sources.push(&edge.source);
        }
    }
    let mut out = format!("{title}\n\n");
    for node in sources {
        let outgoing: Vec<&GraphEdge> = edges.iter().filter(|e| e.source == node).collect();
        out.push_str(&format!("  {}\n", node_name(node)));
        for (i, edge) in outgoing.iter().enumerate() {
            let branch = if i + 1 == outgoing.len() {
                "└"
            } else {
                "├"
            };
            let arrow = if edge.conditional {
                "┈┈▶"
            } else {
                "──▶"
            };
            let label = match &edge.label {
                Some(label) if *label != edge.target && label != rebound_graph::END => {
                    format!("  (when {label})")
                }
                _ => String::new(),
            };
            out.push_str(&format!(
                "    {branch}{arrow} {}{label}\n",
                node_name(&edge.target)
            ));
        }
    }
    out.push_str("\n  ──▶ always    ┈┈▶ chosen by the node's router\n");
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    fn edge(source: &str, target: &str, label: Option<&str>) -> GraphEdge {
        GraphEdge {
            source: source.into(),
            target: target.into(),
            conditional: label.is_some(),
            label: label.map(Into::into),
        }
    }

    #[test]
    fn each_node_is_drawn_with_its_edges_and_the_router_answers() {
        let edges = [
            edge(rebound_graph::START, "a", None),
            edge("a", "b c", Some("go")),
            edge("a", rebound_graph::END, Some(rebound_graph::END)),
            edge("b c", rebound_graph::END, None),
        ];
        let text = ascii(WorkflowKind::Pev, &edges);
        assert!(text.contains("  START\n    └──▶ a\n"), "{text}");
        assert!(
            text.contains("  a\n    ├┈┈▶ b c  (when go)\n    └┈┈▶ END\n"),
            "{text}"
        );
        assert!(text.contains("  b c\n    └──▶ END\n"), "{text}");
    }
}
