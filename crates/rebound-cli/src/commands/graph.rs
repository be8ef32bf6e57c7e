//! `rebound graph --workflow W --format mermaid|ascii`: a workflow's graph.
//!
//! The ASCII drawing is made from the engine's Mermaid export (the one
//! description of a compiled graph's edges the engine publishes): each
//! node, then where it leads, solid for fixed edges and dotted for the
//! choices of its router.

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
    let mermaid = match args.workflow {
        WorkflowKind::Pev => mermaid::<PevState>(&workspace)?,
        WorkflowKind::Reflect => mermaid::<ReflectState>(&workspace)?,
        other => return Err(crate::workflow::unsupported(other)),
    };
    let text = match args.format {
        GraphFormat::Mermaid => mermaid,
        GraphFormat::Ascii => ascii(args.workflow, &mermaid),
    };
    out(text.trim_end());
    Ok(Exit::Success)
}

fn mermaid<S: Workflow>(workspace: &std::path::Path) -> anyhow::Result<String> {
    let deps = crate::deps::inert(workspace)?;
    Ok(S::build(deps)?.to_mermaid())
}

/// One edge of the drawing.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Edge {
    from: String,
    to: String,
    /// The router's answer, for a conditional edge.
    label: Option<String>,
}

/// The nodes (in order, START first, END last) and edges of a Mermaid
/// flowchart as the engine writes it.
fn parse(mermaid: &str) -> (Vec<String>, Vec<Edge>) {
    let mut ids: Vec<(String, String)> = Vec::new();
    let mut edges = Vec::new();
    for line in mermaid.lines().map(str::trim) {
        if let Some((from, rest)) = line.split_once(" -.->|\"") {
            if let Some((label, to)) = rest.split_once("\"| ") {
                for from in from.split(" & ") {
                    edges.push(Edge {
                        from: from.trim().to_string(),
                        to: to.trim().to_string(),
                        label: Some(label.replace("#quot;", "\"")),
                    });
                }
            }
        } else if let Some((from, to)) = line.split_once(" --> ") {
            for from in from.split(" & ") {
                edges.push(Edge {
                    from: from.trim().to_string(),
                    to: to.trim().to_string(),
                    label: None,
                });
            }
        } else if let Some((id, label)) = line.split_once("[\"") {
            let label = label.trim_end_matches("\"]").replace("#quot;", "\"");
            ids.push((id.to_string(), label));
        } else if let Some((id, label)) = line.split_once("([") {
            ids.push((id.to_string(), label.trim_end_matches("])").to_string()));
        }
    }
    let name = |id: &str| {
        ids.iter()
            .find(|(i, _)| i == id)
            .map(|(_, label)| label.clone())
            .unwrap_or_else(|| id.to_string())
    };
    let edges = edges
        .into_iter()
        .map(|edge| Edge {
            from: name(&edge.from),
            to: name(&edge.to),
            label: edge.label,
        })
        .collect();
    (ids.into_iter().map(|(_, label)| label).collect(), edges)
}

/// The ASCII drawing.
fn ascii(workflow: WorkflowKind, mermaid: &str) -> String {
    let (nodes, edges) = parse(mermaid);
    let title = match workflow {
        WorkflowKind::Pev => "pev: plan → execute → review → advance, with repair mode".to_string(),
        WorkflowKind::Reflect => {
            "reflect: plan → execute → reflect → commit, with rollback".to_string()
        }
        other => format!("{other}: {}", other.description()),
    };
    let mut out = format!("{title}\n\n");
    for node in &nodes {
        let outgoing: Vec<&Edge> = edges.iter().filter(|e| &e.from == node).collect();
        if outgoing.is_empty() {
            continue;
        }
        out.push_str(&format!("  {node}\n"));
        for (i, edge) in outgoing.iter().enumerate() {
            let branch = if i + 1 == outgoing.len() {
                "└"
            } else {
                "├"
            };
            let arrow = if edge.label.is_some() {
                "┈┈▶"
            } else {
                "──▶"
            };
            let label = match &edge.label {
                Some(label) if *label != edge.to && label != rebound_graph::END => {
                    format!("  (when {label})")
                }
                _ => String::new(),
            };
            out.push_str(&format!("    {branch}{arrow} {}{label}\n", edge.to));
        }
    }
    out.push_str("\n  ──▶ always    ┈┈▶ chosen by the node's router\n");
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn mermaid_reads_back_into_nodes_and_edges() {
        let mermaid = "flowchart TD\n    __start__([START])\n    a[\"a\"]\n    __n1[\"b c\"]\n    __end__([END])\n    __start__ --> a\n    a -.->|\"go\"| __n1\n    a -.->|\"__end__\"| __end__\n    a & __n1 --> __end__\n";
        let (nodes, edges) = parse(mermaid);
        assert_eq!(nodes, ["START", "a", "b c", "END"]);
        assert_eq!(
            edges[1],
            Edge {
                from: "a".into(),
                to: "b c".into(),
                label: Some("go".into())
            }
        );
        assert_eq!(edges.len(), 5);
        let text = ascii(WorkflowKind::Pev, mermaid);
        assert!(text.contains("  START\n    └──▶ a\n"), "{text}");
        assert!(text.contains("├┈┈▶ b c  (when go)"), "{text}");
    }
}
