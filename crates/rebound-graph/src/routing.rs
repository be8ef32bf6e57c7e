//! Routing out of a node at the end of a superstep: its `goto`, or its static
//! edges, conditional edges and joins.

use std::borrow::Cow;
use std::sync::Arc;

use crate::compile::{CompiledNode, Conditional, Graph, Outgoing, Target};
use crate::node::RunShared;
use crate::send::SentTask;
use crate::{Event, GraphError, Route, State};

/// Where routing starts from: START, or a node that ran.
pub(crate) struct From<'a, S: State> {
    pub(crate) name: &'a Arc<str>,
    pub(crate) out: &'a Outgoing<S>,
    pub(crate) node: Option<&'a CompiledNode<S>>,
}

impl<'a, S: State> From<'a, S> {
    pub(crate) fn start(graph: &'a Graph<S>) -> Self {
        From {
            name: &graph.start_name,
            out: &graph.entry,
            node: None,
        }
    }

    pub(crate) fn node(graph: &'a Graph<S>, index: usize) -> Self {
        let node = &graph.nodes[index];
        From {
            name: &node.name,
            out: &node.out,
            node: Some(node),
        }
    }
}

/// Schedules what follows `from` into `next` (nodes) and `sends` (tasks of
/// [`crate::Send`]s, in emission order) and returns the reason given for
/// the choice, if any. Emits a `route_chosen` event.
#[allow(clippy::too_many_arguments)]
pub(crate) fn route<S: State>(
    graph: &Graph<S>,
    from: From<'_, S>,
    goto: Option<Route>,
    state: &S,
    step: u64,
    shared: &RunShared,
    barriers: &mut [u64],
    next: &mut Vec<usize>,
    sends: &mut Vec<SentTask>,
) -> Result<Option<Cow<'static, str>>, GraphError> {
    let events = shared.events.is_active();
    let mut out = Scheduled {
        graph,
        from: from.name,
        events,
        chosen: Vec::new(),
        sent_to: Vec::new(),
        next,
        sends,
    };
    let reason = match goto {
        Some(goto) => out.goto(goto, from.node)?,
        None => {
            for target in &from.out.statics {
                out.push(*target);
            }
            let mut reason = None;
            for conditional in &from.out.conditionals {
                if let Some(r) = out.conditional(conditional, state)? {
                    reason = Some(r);
                }
            }
            for &(join, bit) in &from.out.joins {
                barriers[join] |= bit;
                if barriers[join] == graph.joins[join].full {
                    barriers[join] = 0;
                    out.push(graph.joins[join].target);
                }
            }
            reason
        }
    };
    if events {
        let mut chosen = out.chosen;
        chosen.append(&mut out.sent_to);
        shared.events.emit(|| Event::RouteChosen {
            from: from.name.clone(),
            to: chosen,
            step,
            reason: reason.clone(),
        });
    }
    Ok(reason)
}

/// What a routing schedules, as it goes: the next nodes and sends, and
/// (when events are told) the names chosen.
struct Scheduled<'a, S: State> {
    graph: &'a Graph<S>,
    /// The node routed from.
    from: &'a Arc<str>,
    /// Whether events are told (then `chosen` and `sent_to` are kept).
    events: bool,
    /// The targets chosen, by name.
    chosen: Vec<Arc<str>>,
    /// The nodes of the sends, told after the targets.
    sent_to: Vec<Arc<str>>,
    next: &'a mut Vec<usize>,
    sends: &'a mut Vec<SentTask>,
}

impl<S: State> Scheduled<'_, S> {
    /// Schedules `target`.
    fn push(&mut self, target: Target) {
        if let Target::Node(i) = target {
            self.next.push(i);
        }
        if self.events {
            self.chosen.push(self.graph.target_name(target).clone());
        }
    }

    /// Schedules `sent`.
    fn send(&mut self, sent: Vec<crate::Send>) -> Result<(), GraphError> {
        let chosen = self.events.then_some(&mut self.sent_to);
        schedule_sends(self.graph, self.from, sent, self.sends, chosen)
    }

    /// Schedules a node's `goto` among its declared destinations (of
    /// `node`); its reason.
    fn goto(
        &mut self,
        mut goto: Route,
        node: Option<&CompiledNode<S>>,
    ) -> Result<Option<Cow<'static, str>>, GraphError> {
        if let Some(sent) = goto.take_sends() {
            self.send(sent)?;
        }
        let destinations = node.map(|n| n.destinations.as_slice()).unwrap_or(&[]);
        for key in goto.targets() {
            match destinations.iter().find(|(name, _)| &**name == key) {
                Some((_, target)) => self.push(*target),
                None => {
                    return Err(GraphError::UnknownRoute {
                        node: self.from.to_string(),
                        value: key.to_string(),
                        allowed: destinations.iter().map(|(n, _)| n.to_string()).collect(),
                    })
                }
            }
        }
        Ok(goto.into_reason())
    }

    /// Schedules what the router of `conditional` answers for `state`; its
    /// reason (a fallback's says so).
    fn conditional(
        &mut self,
        conditional: &Conditional<S>,
        state: &S,
    ) -> Result<Option<Cow<'static, str>>, GraphError> {
        let mut answer =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (conditional.router)(state)))
                .map_err(|panic| GraphError::Panicked {
                    place: format!("the router of {:?}", self.from),
                    message: crate::execute::panic_message(&*panic),
                })?;
        if let Some(sent) = answer.take_sends() {
            self.send(sent)?;
        }
        let mut fell_back = None;
        for key in answer.targets() {
            let declared = conditional
                .entries
                .iter()
                .find(|(k, _)| &**k == key)
                .map(|(_, t)| *t);
            match declared.or(conditional.fallback) {
                Some(target) => {
                    if declared.is_none() {
                        fell_back = Some(key.to_string());
                    }
                    self.push(target);
                }
                None => {
                    return Err(GraphError::UnknownRoute {
                        node: self.from.to_string(),
                        value: key.to_string(),
                        allowed: conditional
                            .entries
                            .iter()
                            .map(|(k, _)| k.to_string())
                            .collect(),
                    })
                }
            }
        }
        Ok(match fell_back {
            Some(key) => Some(format!("fallback: {key:?} is not a declared target").into()),
            None => answer.into_reason(),
        })
    }
}

/// Schedules the tasks of `sent` (from `from`'s router or goto) into
/// `sends`, naming them in `chosen` when events are told. A send to
/// anything but a node of the graph is an error.
fn schedule_sends<S: State>(
    graph: &Graph<S>,
    from: &Arc<str>,
    sent: Vec<crate::Send>,
    sends: &mut Vec<SentTask>,
    mut chosen: Option<&mut Vec<Arc<str>>>,
) -> Result<(), GraphError> {
    sends.reserve(sent.len());
    // Fan-outs usually send to one node: look its name up once.
    let mut last: Option<(Cow<'static, str>, usize)> = None;
    for send in sent {
        let (name, arg) = send.into_parts();
        let node = match &last {
            Some((known, index)) if *known == name => *index,
            _ => {
                let index = graph
                    .index_of(&name)
                    .ok_or_else(|| GraphError::UnknownSendTarget {
                        from: from.to_string(),
                        node: name.to_string(),
                        known: graph.nodes.iter().map(|n| n.name.to_string()).collect(),
                    })?;
                last = Some((name, index));
                index
            }
        };
        if let Some(chosen) = chosen.as_deref_mut() {
            chosen.push(graph.nodes[node].name.clone());
        }
        sends.push(SentTask { node, arg });
    }
    Ok(())
}
