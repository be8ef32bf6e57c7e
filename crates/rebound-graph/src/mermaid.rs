//! Mermaid export of a compiled graph: static edges solid, conditional edges
//! dashed and labelled with the router's answer, joins drawn with `&`.

use std::fmt::Write;

use crate::compile::{Graph, Outgoing, Target};
use crate::{CompiledGraph, State};

impl<S: State> CompiledGraph<S> {
    /// The graph as a Mermaid flowchart. Nodes keep their names as ids when
    /// those are plain identifiers; others get `__n<index>` ids and keep their
    /// names as labels.
    ///
    /// ```text
    /// flowchart TD
    ///     __start__([START])
    ///     planner["planner"]
    ///     __end__([END])
    ///     __start__ --> planner
    ///     planner -.->|"done"| __end__
    /// ```
    pub fn to_mermaid(&self) -> String {
        let graph = &*self.graph;
        let ids = Ids::new(graph);
        let mut out = String::from("flowchart TD\n");
        let _ = writeln!(out, "    {}([START])", crate::START);
        for (i, node) in graph.nodes.iter().enumerate() {
            let _ = writeln!(out, "    {}[\"{}\"]", ids.nodes[i], escape(&node.name));
        }
        let _ = writeln!(out, "    {}([END])", crate::END);
        edges(&ids, crate::START, &graph.entry, &[], &mut out);
        for (i, node) in graph.nodes.iter().enumerate() {
            edges(&ids, &ids.nodes[i], &node.out, &node.destinations, &mut out);
        }
        for join in &graph.joins {
            let sources: Vec<&str> = join
                .sources
                .iter()
                .map(|&i| ids.nodes[i].as_str())
                .collect();
            let _ = writeln!(
                out,
                "    {} --> {}",
                sources.join(" & "),
                ids.target(join.target)
            );
        }
        out
    }
}

/// One edge of a compiled graph, for drawing it ([`CompiledGraph::edges`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphEdge {
    /// The node it leaves ([`crate::START`] for the entry).
    pub source: String,
    /// The node it reaches ([`crate::END`] for the end).
    pub target: String,
    /// Whether a router or a node's `goto` chooses it (else it is static,
    /// or a join's).
    pub conditional: bool,
    /// The router's answer that takes it (`otherwise` for a fallback,
    /// `goto` for a node's declared destination), if conditional.
    pub label: Option<String>,
}

impl<S: State> CompiledGraph<S> {
    /// The graph's edges by node name: those [`CompiledGraph::to_mermaid`]
    /// draws, from START first, then in the order the nodes were added,
    /// then the joins (one edge per source).
    pub fn edges(&self) -> Vec<GraphEdge> {
        let graph = &*self.graph;
        let name = |target: Target| match target {
            Target::Node(i) => graph.nodes[i].name.to_string(),
            Target::End => crate::END.to_string(),
        };
        let mut list = Vec::new();
        let mut outgoing = |from: &str, out: &Outgoing<S>, destinations: &[(Box<str>, Target)]| {
            for target in &out.statics {
                list.push(GraphEdge {
                    source: from.to_string(),
                    target: name(*target),
                    conditional: false,
                    label: None,
                });
            }
            for conditional in &out.conditionals {
                let labelled = conditional
                    .entries
                    .iter()
                    .map(|(key, target)| (key.to_string(), *target))
                    .chain(conditional.fallback.map(|t| ("otherwise".to_string(), t)));
                for (label, target) in labelled {
                    list.push(GraphEdge {
                        source: from.to_string(),
                        target: name(target),
                        conditional: true,
                        label: Some(label),
                    });
                }
            }
            for (_, target) in destinations {
                list.push(GraphEdge {
                    source: from.to_string(),
                    target: name(*target),
                    conditional: true,
                    label: Some("goto".to_string()),
                });
            }
        };
        outgoing(crate::START, &graph.entry, &[]);
        for node in &graph.nodes {
            outgoing(&node.name, &node.out, &node.destinations);
        }
        for join in &graph.joins {
            for &source in &join.sources {
                list.push(GraphEdge {
                    source: graph.nodes[source].name.to_string(),
                    target: name(join.target),
                    conditional: false,
                    label: None,
                });
            }
        }
        list
    }
}

struct Ids {
    nodes: Vec<String>,
}

impl Ids {
    fn new<S: State>(graph: &Graph<S>) -> Self {
        // Mermaid reserves `end` (it closes a subgraph) in any case.
        let plain = |name: &str| {
            !name.starts_with("__")
                && !name.eq_ignore_ascii_case("end")
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        };
        Ids {
            nodes: graph
                .nodes
                .iter()
                .enumerate()
                .map(|(i, n)| {
                    if plain(&n.name) {
                        n.name.to_string()
                    } else {
                        format!("__n{i}")
                    }
                })
                .collect(),
        }
    }

    fn target(&self, target: Target) -> &str {
        match target {
            Target::Node(i) => &self.nodes[i],
            Target::End => crate::END,
        }
    }
}

fn edges<S: State>(
    ids: &Ids,
    from: &str,
    out: &Outgoing<S>,
    destinations: &[(Box<str>, Target)],
    buf: &mut String,
) {
    for target in &out.statics {
        let _ = writeln!(buf, "    {from} --> {}", ids.target(*target));
    }
    for conditional in &out.conditionals {
        for (key, target) in &conditional.entries {
            let _ = writeln!(
                buf,
                "    {from} -.->|\"{}\"| {}",
                escape(key),
                ids.target(*target)
            );
        }
        if let Some(target) = conditional.fallback {
            let _ = writeln!(buf, "    {from} -.->|\"otherwise\"| {}", ids.target(target));
        }
    }
    for (_, target) in destinations {
        let _ = writeln!(buf, "    {from} -.->|\"goto\"| {}", ids.target(*target));
    }
}

fn escape(text: &str) -> String {
    text.replace('"', "#quot;")
}
