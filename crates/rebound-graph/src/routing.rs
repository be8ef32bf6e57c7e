//! Routing out of a node at the end of a superstep: its `goto`, or its static
//! edges, conditional edges and joins.

use std::borrow::Cow;
use std::sync::Arc;

use crate::compile::{CompiledNode, Graph, Outgoing, Target};
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
    let mut chosen: Vec<Arc<str>> = Vec::new();
    // The nodes of the sends, told after the targets.
    let mut sent_to: Vec<Arc<str>> = Vec::new();
    let mut push = |target: Target, next: &mut Vec<usize>| {
        if let Target::Node(i) = target {
            next.push(i);
        }
        if events {
            chosen.push(graph.target_name(target).clone());
        }
    };

    let mut reason = None;
    if let Some(mut goto) = goto {
        if let Some(sent) = goto.take_sends() {
            schedule_sends(
                graph,
                from.name,
                sent,
                sends,
                events.then_some(&mut sent_to),
            )?;
        }
        let destinations = from.node.map(|n| n.destinations.as_slice()).unwrap_or(&[]);
        for key in goto.targets() {
            match destinations.iter().find(|(name, _)| &**name == key) {
                Some((_, target)) => push(*target, next),
                None => {
                    return Err(GraphError::UnknownRoute {
                        node: from.name.to_string(),
                        value: key.to_string(),
                        allowed: destinations.iter().map(|(n, _)| n.to_string()).collect(),
                    })
                }
            }
        }
        reason = goto.into_reason();
    } else {
        for target in &from.out.statics {
            push(*target, next);
        }
        for conditional in &from.out.conditionals {
            let mut answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                (conditional.router)(state)
            }))
            .map_err(|panic| GraphError::Panicked {
                place: format!("the router of {:?}", from.name),
                message: crate::execute::panic_message(&*panic),
            })?;
            if let Some(sent) = answer.take_sends() {
                schedule_sends(
                    graph,
                    from.name,
                    sent,
                    sends,
                    events.then_some(&mut sent_to),
                )?;
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
                        push(target, next);
                    }
                    None => {
                        return Err(GraphError::UnknownRoute {
                            node: from.name.to_string(),
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
            if let Some(key) = fell_back {
                reason = Some(format!("fallback: {key:?} is not a declared target").into());
            } else if let Some(r) = answer.into_reason() {
                reason = Some(r);
            }
        }
        for &(join, bit) in &from.out.joins {
            barriers[join] |= bit;
            if barriers[join] == graph.joins[join].full {
                barriers[join] = 0;
                push(graph.joins[join].target, next);
            }
        }
    }
    if events {
        chosen.append(&mut sent_to);
        shared.events.emit(|| Event::RouteChosen {
            from: from.name.clone(),
            to: chosen,
            step,
            reason: reason.clone(),
        });
    }
    Ok(reason)
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
