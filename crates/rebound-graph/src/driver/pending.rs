//! What a resumed superstep reuses from the pending writes of its
//! checkpoint: finished nodes' outputs, journaled results, interrupts and the
//! values given to resume them.

use std::collections::HashMap;

use crate::checkpoint::codec::decode;
use crate::checkpoint::{PendingWrite, WriteKind};
use crate::{GraphError, Interrupt, InterruptKind};

/// What a resumed superstep reuses from the pending writes of its checkpoint.
#[derive(Default)]
pub(crate) struct ResumeData {
    /// Updates of nodes that finished before the superstep stopped.
    pub(crate) updates: HashMap<String, Vec<u8>>,
    /// Journaled results, by node then key.
    pub(crate) journal: HashMap<String, HashMap<String, Vec<u8>>>,
    /// Values given to resume dynamic interrupts, by node, in order.
    pub(crate) resume: HashMap<String, Vec<serde_json::Value>>,
    /// Interrupt writes, by node, in order, with the index of the
    /// `interrupt` call of a dynamic one (a later write for the same call
    /// replaces the earlier).
    pub(crate) interrupts: HashMap<String, Vec<(Option<usize>, Interrupt)>>,
}

/// A dynamic interrupt that waits for a value.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Awaiting {
    /// Its node.
    pub(crate) node: String,
    /// The index of its `interrupt` call within the node.
    pub(crate) call: usize,
    /// Its id.
    pub(crate) id: String,
}

impl ResumeData {
    fn from_writes(writes: Vec<PendingWrite>) -> Result<Self, GraphError> {
        let mut data = ResumeData::default();
        for write in writes {
            match write.kind {
                WriteKind::Update => {
                    data.updates.insert(write.node, write.value);
                }
                WriteKind::Journal => {
                    data.journal
                        .entry(write.node)
                        .or_default()
                        .insert(write.key, write.value);
                }
                WriteKind::Resume => {
                    let value = decode(
                        &write.value,
                        &write.thread_id,
                        write.checkpoint,
                        "resume value",
                    )?;
                    // A later answer to the same interrupt replaces the earlier one.
                    let answers = data.resume.entry(write.node).or_default();
                    match write.key.parse::<usize>() {
                        Ok(index) if index < answers.len() => answers[index] = value,
                        _ => answers.push(value),
                    }
                }
                WriteKind::Interrupt => {
                    let mut interrupt: Interrupt = decode(
                        &write.value,
                        &write.thread_id,
                        write.checkpoint,
                        "interrupt",
                    )?;
                    if interrupt.id.is_empty() {
                        // Written before interrupts had ids.
                        interrupt.id = format!("{}:{}", write.node, write.key);
                    }
                    let call = write.key.parse::<usize>().ok();
                    let list = data.interrupts.entry(write.node).or_default();
                    match list.iter_mut().find(|(c, _)| call.is_some() && *c == call) {
                        Some(slot) => slot.1 = interrupt,
                        None => list.push((call, interrupt)),
                    }
                }
            }
        }
        Ok(data)
    }

    /// The interrupts waiting at the checkpoint: each node that interrupted
    /// and has not finished since, with its latest interrupt.
    pub(crate) fn pending(&self) -> Vec<Interrupt> {
        let mut out: Vec<Interrupt> = self
            .interrupts
            .iter()
            .filter(|(node, _)| !self.updates.contains_key(*node))
            .filter_map(|(_, list)| list.last().map(|(_, i)| i.clone()))
            .collect();
        out.sort_by(|a, b| a.node.cmp(&b.node));
        out
    }

    /// The id the interrupt of `node` at call `call` was given when it first
    /// waited, if it did.
    pub(crate) fn known_id(&self, node: &str, call: usize) -> Option<String> {
        self.interrupts
            .get(node)
            .and_then(|list| list.iter().find(|(c, _)| *c == Some(call)))
            .map(|(_, interrupt)| interrupt.id.clone())
    }

    /// The dynamic interrupts waiting for a value: each unfinished node's
    /// latest one, by node.
    pub(crate) fn awaiting_values(&self) -> Vec<Awaiting> {
        let mut out: Vec<Awaiting> = self
            .interrupts
            .iter()
            .filter(|(node, _)| !self.updates.contains_key(*node))
            .filter_map(|(node, list)| {
                let (call, interrupt) = list.last()?;
                let call = (*call).filter(|_| interrupt.kind == InterruptKind::Dynamic)?;
                Some(Awaiting {
                    node: node.clone(),
                    call,
                    id: interrupt.id.clone(),
                })
            })
            .collect();
        out.sort();
        out
    }
}

/// A finished node's output kept as a pending write: its update and goto.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct StoredCommand<U> {
    #[serde(rename = "u")]
    update: U,
    #[serde(rename = "g", default, skip_serializing_if = "Option::is_none")]
    goto: Option<Vec<String>>,
    #[serde(rename = "r", default, skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

impl<'a, U> StoredCommand<&'a U> {
    pub(crate) fn of(command: &'a crate::Command<U>) -> Self {
        StoredCommand {
            update: &command.update,
            goto: command
                .goto
                .as_ref()
                .map(|g| g.targets().map(str::to_string).collect()),
            reason: command
                .goto
                .as_ref()
                .and_then(|g| g.reason())
                .map(str::to_string),
        }
    }
}

impl<U> StoredCommand<U> {
    pub(crate) fn into_command(self) -> crate::Command<U> {
        let goto = self.goto.map(|targets| {
            let route = crate::Route::to_all(targets);
            match self.reason {
                Some(reason) => route.because(reason),
                None => route,
            }
        });
        crate::Command {
            update: self.update,
            goto,
        }
    }
}

/// Reads the pending writes of a checkpoint into what a resume needs.
pub(crate) fn resume_data(writes: Vec<PendingWrite>) -> Result<ResumeData, GraphError> {
    ResumeData::from_writes(writes)
}
