//! Validation of a [`StateGraph`] into the index-based [`Graph`] the run loop
//! executes.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use crate::builder::{ConditionalDef, NodeDef, Router};
use crate::names::{END, START};
use crate::node::NodeFn;
use crate::{CompileError, RetryPolicy, State, StateGraph};

/// A resolved edge target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    Node(usize),
    End,
}

pub(crate) struct Conditional<S: State> {
    pub(crate) router: Router<S>,
    /// Router answers and their targets, in declaration order.
    pub(crate) entries: Vec<(Box<str>, Target)>,
    pub(crate) fallback: Option<Target>,
}

/// Everything that leaves one node (or START).
pub(crate) struct Outgoing<S: State> {
    pub(crate) statics: Vec<Target>,
    pub(crate) conditionals: Vec<Conditional<S>>,
    /// (join index, this source's bit in the join's barrier)
    pub(crate) joins: Vec<(usize, u64)>,
}

impl<S: State> Default for Outgoing<S> {
    fn default() -> Self {
        Outgoing {
            statics: Vec::new(),
            conditionals: Vec::new(),
            joins: Vec::new(),
        }
    }
}

impl<S: State> Outgoing<S> {
    fn is_empty(&self) -> bool {
        self.statics.is_empty() && self.conditionals.is_empty() && self.joins.is_empty()
    }

    fn targets(&self) -> impl Iterator<Item = Target> + '_ {
        self.statics.iter().copied().chain(
            self.conditionals
                .iter()
                .flat_map(|c| c.entries.iter().map(|(_, t)| *t).chain(c.fallback)),
        )
    }
}

pub(crate) struct CompiledNode<S: State> {
    pub(crate) name: Arc<str>,
    pub(crate) func: NodeFn<S>,
    pub(crate) retry: Vec<RetryPolicy>,
    pub(crate) timeout: Option<Duration>,
    /// Declared `goto` targets, by name.
    pub(crate) destinations: Vec<(Box<str>, Target)>,
    pub(crate) out: Outgoing<S>,
    /// The child graph, for a subgraph node.
    pub(crate) subgraph: Option<Arc<dyn crate::subgraph::SubgraphView>>,
}

pub(crate) struct Join {
    pub(crate) sources: Vec<usize>,
    pub(crate) target: Target,
    pub(crate) full: u64,
}

/// A validated graph.
pub(crate) struct Graph<S: State> {
    pub(crate) nodes: Vec<CompiledNode<S>>,
    pub(crate) entry: Outgoing<S>,
    pub(crate) joins: Vec<Join>,
    pub(crate) start_name: Arc<str>,
    pub(crate) end_name: Arc<str>,
    pub(crate) replace_fields: crate::FieldSet,
    /// Static interrupts set at compile time, by node index.
    pub(crate) interrupt_before: Vec<bool>,
    pub(crate) interrupt_after: Vec<bool>,
}

impl<S: State> crate::checkpoint::codec::NodeNames for Graph<S> {
    fn node_name(&self, index: usize) -> &str {
        &self.nodes[index].name
    }
}

impl<S: State> Graph<S> {
    pub(crate) fn index_of(&self, name: &str) -> Option<usize> {
        self.nodes.iter().position(|n| &*n.name == name)
    }

    pub(crate) fn target_name(&self, target: Target) -> &Arc<str> {
        match target {
            Target::Node(i) => &self.nodes[i].name,
            Target::End => &self.end_name,
        }
    }
}

struct Resolver<'a> {
    index: HashMap<&'a str, usize>,
    known: Vec<String>,
}

impl Resolver<'_> {
    fn target(&self, place: impl Fn() -> String, name: &str) -> Result<Target, CompileError> {
        if name == END {
            return Ok(Target::End);
        }
        if name == START {
            return Err(CompileError::MisplacedTerminal { place: place() });
        }
        self.node(place, name).map(Target::Node)
    }

    fn node(&self, place: impl Fn() -> String, name: &str) -> Result<usize, CompileError> {
        self.index
            .get(name)
            .copied()
            .ok_or_else(|| CompileError::UnknownNode {
                place: place(),
                node: name.to_string(),
                known: self.known.clone(),
            })
    }

    /// A source: START (None) or a node.
    fn source(
        &self,
        place: impl Fn() -> String,
        name: &str,
    ) -> Result<Option<usize>, CompileError> {
        match name {
            START => Ok(None),
            END => Err(CompileError::MisplacedTerminal { place: place() }),
            _ => self.node(place, name).map(Some),
        }
    }
}

/// Validates `graph` into the index-based graph a run executes, reporting
/// the first problem found: names, then edges, conditional edges, joins,
/// node options, then that every node is reachable and can leave.
pub(crate) fn compile<S: State>(graph: StateGraph<S>) -> Result<Graph<S>, CompileError> {
    let StateGraph {
        nodes,
        edges,
        conditionals,
        joins,
        options,
        interrupt_before,
        interrupt_after,
    } = graph;
    let resolver = Resolver::new(&nodes)?;
    let mut wiring = Wiring {
        outgoing: (0..nodes.len()).map(|_| Outgoing::default()).collect(),
        entry: Outgoing::default(),
        joins: Vec::with_capacity(joins.len()),
        destinations: vec![Vec::new(); nodes.len()],
    };
    wiring.add_edges(&resolver, &edges)?;
    wiring.add_conditionals(&resolver, conditionals)?;
    wiring.add_joins(&resolver, &joins)?;
    let node_options = wiring.add_options(&resolver, options)?;
    wiring.check_ways(&nodes)?;
    let before = interrupt_flags(&resolver, &interrupt_before, "interrupt_before")?;
    let after = interrupt_flags(&resolver, &interrupt_after, "interrupt_after")?;
    let Wiring {
        outgoing,
        entry,
        joins,
        destinations,
    } = wiring;
    let compiled_nodes = nodes
        .into_iter()
        .zip(outgoing)
        .zip(node_options)
        .zip(destinations)
        .map(|(((def, out), opts), destinations)| CompiledNode {
            name: Arc::from(def.name),
            func: def.func,
            retry: opts.retry,
            timeout: opts.timeout,
            destinations,
            out,
            subgraph: def.subgraph,
        })
        .collect();
    Ok(Graph {
        nodes: compiled_nodes,
        entry,
        joins,
        start_name: Arc::from(START),
        end_name: Arc::from(END),
        replace_fields: S::replace_fields(),
        interrupt_before: before,
        interrupt_after: after,
    })
}

impl<'a> Resolver<'a> {
    /// The resolver of `nodes`' names: an empty, reserved or repeated name
    /// is an error.
    fn new<S: State>(nodes: &'a [NodeDef<S>]) -> Result<Self, CompileError> {
        let mut index = HashMap::with_capacity(nodes.len());
        for (i, node) in nodes.iter().enumerate() {
            if node.name.is_empty()
                || node.name == START
                || node.name == END
                || crate::send::is_reserved_in_name(&node.name)
            {
                return Err(CompileError::ReservedName {
                    name: node.name.clone(),
                });
            }
            if index.insert(node.name.as_str(), i).is_some() {
                return Err(CompileError::DuplicateNode {
                    name: node.name.clone(),
                });
            }
        }
        Ok(Resolver {
            index,
            known: nodes.iter().map(|n| n.name.clone()).collect(),
        })
    }
}

/// The graph's edges by node index, as they are resolved.
struct Wiring<S: State> {
    /// What leaves each node.
    outgoing: Vec<Outgoing<S>>,
    /// What leaves START.
    entry: Outgoing<S>,
    /// The joins.
    joins: Vec<Join>,
    /// Each node's declared `goto` targets.
    destinations: Vec<Vec<(Box<str>, Target)>>,
}

impl<S: State> Wiring<S> {
    /// What leaves `source` (START for `None`).
    fn out(&mut self, source: Option<usize>) -> &mut Outgoing<S> {
        match source {
            Some(i) => &mut self.outgoing[i],
            None => &mut self.entry,
        }
    }

    fn add_edges(
        &mut self,
        resolver: &Resolver<'_>,
        edges: &[(String, String)],
    ) -> Result<(), CompileError> {
        for (from, to) in edges {
            let place = || format!("edge {from:?} -> {to:?}");
            let source = resolver.source(place, from)?;
            let target = resolver.target(place, to)?;
            let out = self.out(source);
            if !out.statics.contains(&target) {
                out.statics.push(target);
            }
        }
        Ok(())
    }

    fn add_conditionals(
        &mut self,
        resolver: &Resolver<'_>,
        conditionals: Vec<ConditionalDef<S>>,
    ) -> Result<(), CompileError> {
        for cond in conditionals {
            let from = &cond.source;
            let place = || format!("conditional edge from {from:?}");
            let source = resolver.source(place, from)?;
            if cond.paths.entries.is_empty() && cond.paths.fallback.is_none() {
                return Err(CompileError::EmptyPathMap { node: from.clone() });
            }
            let mut entries = Vec::with_capacity(cond.paths.entries.len());
            for (key, target) in &cond.paths.entries {
                entries.push((
                    key.clone().into_boxed_str(),
                    resolver.target(place, target)?,
                ));
            }
            let fallback = match &cond.paths.fallback {
                Some(target) => Some(resolver.target(place, target)?),
                None => None,
            };
            self.out(source).conditionals.push(Conditional {
                router: cond.router,
                entries,
                fallback,
            });
        }
        Ok(())
    }

    /// Joins of 1 to 64 sources (one bit each in the join's barrier).
    fn add_joins(
        &mut self,
        resolver: &Resolver<'_>,
        joins: &[(Vec<String>, String)],
    ) -> Result<(), CompileError> {
        for (sources, to) in joins {
            if sources.is_empty() || sources.len() > 64 {
                return Err(CompileError::BadJoin {
                    target: to.clone(),
                    count: sources.len(),
                });
            }
            let place = || format!("join {sources:?} -> {to:?}");
            let target = resolver.target(place, to)?;
            let join_index = self.joins.len();
            let mut ids = Vec::with_capacity(sources.len());
            let mut full = 0u64;
            for (bit, name) in sources.iter().enumerate() {
                let Some(source) = resolver.source(place, name)? else {
                    return Err(CompileError::MisplacedTerminal { place: place() });
                };
                self.outgoing[source].joins.push((join_index, 1u64 << bit));
                full |= 1u64 << bit;
                ids.push(source);
            }
            self.joins.push(Join {
                sources: ids,
                target,
                full,
            });
        }
        Ok(())
    }

    /// Each node's options, merged in the order they were set (a later
    /// setting wins); `goto` destinations become edges.
    fn add_options(
        &mut self,
        resolver: &Resolver<'_>,
        options: Vec<(String, crate::NodeOptions)>,
    ) -> Result<Vec<crate::NodeOptions>, CompileError> {
        let mut node_options = vec![crate::NodeOptions::default(); self.outgoing.len()];
        for (name, opts) in options {
            let i = resolver.node(|| "configure_node".to_string(), &name)?;
            if let Some(dests) = &opts.destinations {
                let place = || format!("goto destinations of {name:?}");
                self.destinations[i] = dests
                    .iter()
                    .map(|d| Ok((d.clone().into_boxed_str(), resolver.target(place, d)?)))
                    .collect::<Result<_, CompileError>>()?;
            }
            if opts.timeout.is_some_and(|t| t.is_zero()) {
                return Err(CompileError::ZeroTimeout { node: name });
            }
            let merged = &mut node_options[i];
            if !opts.retry.is_empty() {
                merged.retry = opts.retry;
            }
            if opts.timeout.is_some() {
                merged.timeout = opts.timeout;
            }
            if opts.destinations.is_some() {
                merged.destinations = opts.destinations;
            }
        }
        Ok(node_options)
    }

    /// START leads somewhere, every node can leave, and every node is
    /// reachable from START over every kind of edge.
    fn check_ways(&self, nodes: &[NodeDef<S>]) -> Result<(), CompileError> {
        if self.entry.is_empty() {
            return Err(CompileError::NoEntry);
        }
        for (i, node) in nodes.iter().enumerate() {
            if self.outgoing[i].is_empty() && self.destinations[i].is_empty() {
                return Err(CompileError::NoWayOut {
                    node: node.name.clone(),
                });
            }
        }
        let mut reached = vec![false; nodes.len()];
        let mut stack: Vec<usize> = Vec::new();
        let visit = |target: Target, stack: &mut Vec<usize>, reached: &mut Vec<bool>| {
            if let Target::Node(i) = target {
                if !reached[i] {
                    reached[i] = true;
                    stack.push(i);
                }
            }
        };
        for t in self.entry.targets() {
            visit(t, &mut stack, &mut reached);
        }
        while let Some(i) = stack.pop() {
            let next: Vec<Target> = self.outgoing[i]
                .targets()
                .chain(
                    self.outgoing[i]
                        .joins
                        .iter()
                        .map(|(j, _)| self.joins[*j].target),
                )
                .chain(self.destinations[i].iter().map(|(_, t)| *t))
                .collect();
            for t in next {
                visit(t, &mut stack, &mut reached);
            }
        }
        let unreachable: Vec<String> = nodes
            .iter()
            .zip(&reached)
            .filter(|(_, r)| !**r)
            .map(|(n, _)| n.name.clone())
            .collect();
        if unreachable.is_empty() {
            Ok(())
        } else {
            Err(CompileError::Unreachable { nodes: unreachable })
        }
    }
}

/// The static interrupt flags, by node index, of the node `names`
/// ([`crate::ALL_NODES`] for all) given to `place`.
fn interrupt_flags(
    resolver: &Resolver<'_>,
    names: &[String],
    place: &str,
) -> Result<Vec<bool>, CompileError> {
    let mut flags = vec![false; resolver.known.len()];
    for name in names {
        if name == crate::ALL_NODES {
            flags.iter_mut().for_each(|flag| *flag = true);
            continue;
        }
        flags[resolver.node(|| place.to_string(), name)?] = true;
    }
    Ok(flags)
}
