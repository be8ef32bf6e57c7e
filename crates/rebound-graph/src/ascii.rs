//! A compiled graph drawn in plain text from its edges: each node that
//! leads somewhere, then where it leads, solid for fixed edges and dotted
//! for the choices of its router.

use crate::{CompiledGraph, GraphEdge, State};

impl<S: State> CompiledGraph<S> {
    /// The graph drawn in text from [`CompiledGraph::edges`]: each node
    /// that leads somewhere, then its edges, then a legend.
    ///
    /// ```text
    ///   START
    ///     └──▶ planner
    ///   planner
    ///     ├┈┈▶ executor  (when go)
    ///     └┈┈▶ END
    /// ```
    pub fn to_ascii(&self) -> String {
        draw_edges(&self.edges())
    }
}

/// Draws `edges`: each node that leads somewhere, in the order of the
/// edges, then its edges, then a legend.
fn draw_edges(edges: &[GraphEdge]) -> String {
    let mut sources: Vec<&str> = Vec::new();
    for edge in edges {
        if !sources.contains(&edge.source.as_str()) {
            sources.push(&edge.source);
        }
    }
    let mut out = String::new();
    for node in sources {
        let outgoing: Vec<&GraphEdge> = edges.iter().filter(|e| e.source == node).collect();
        out.push_str(&format!("  {}\n", shown(node)));
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
                Some(label) if *label != edge.target && label != crate::END => {
                    format!("  (when {label})")
                }
                _ => String::new(),
            };
            out.push_str(&format!(
                "    {branch}{arrow} {}{label}\n",
                shown(&edge.target)
            ));
        }
    }
    out.push_str("\n  ──▶ always    ┈┈▶ chosen by the node's router\n");
    out
}

/// START and END by those names; other nodes by theirs.
fn shown(name: &str) -> &str {
    match name {
        crate::START => "START",
        crate::END => "END",
        other => other,
    }
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
            edge(crate::START, "a", None),
            edge("a", "b c", Some("go")),
            edge("a", crate::END, Some(crate::END)),
            edge("b c", crate::END, None),
        ];
        let text = draw_edges(&edges);
        assert!(text.starts_with("  START\n    └──▶ a\n"), "{text}");
        assert!(
            text.contains("  a\n    ├┈┈▶ b c  (when go)\n    └┈┈▶ END\n"),
            "{text}"
        );
        assert!(text.contains("  b c\n    └──▶ END\n"), "{text}");
    }
}
