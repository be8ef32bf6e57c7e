//! What a resumed superstep reuses from the pending writes of its
//! checkpoint: finished nodes' outputs, journaled results, interrupts and the
//! values given to resume them.

use std::collections::{BTreeMap, HashMap};

use crate::checkpoint::codec::decode;
use crate::checkpoint::{PendingWrite, WriteKind};
use crate::send::parse_task_key;
use crate::{GraphError, Interrupt, InterruptKind};

/// What a resumed superstep reuses from the pending writes of its checkpoint.
#[derive(Default)]
pub(crate) struct ResumeData {
    /// Updates of tasks that finished before the superstep stopped, by
    /// task key (a node's name, or `node#k` for a send: see
    /// [`crate::send::task_key`]).
    pub(crate) updates: HashMap<String, Vec<u8>>,
    /// Journaled results, by task key then key.
    pub(crate) journal: HashMap<String, HashMap<String, Vec<u8>>>,
    /// Values given to resume dynamic interrupts, by task key, in order.
    pub(crate) resume: HashMap<String, Vec<serde_json::Value>>,
    /// Interrupt writes, by task key, in order, with the index of the
    /// `interrupt` call of a dynamic one (a later write for the same call
    /// replaces the earlier).
    pub(crate) interrupts: HashMap<String, Vec<(Option<usize>, Interrupt)>>,
    /// The interrupts a subgraph task's child stopped at last, by task key
    /// (ids unique in this graph).
    pub(crate) sub_interrupts: HashMap<String, Vec<Interrupt>>,
    /// Answers given to subgraph interrupts, by task key then interrupt id.
    pub(crate) sub_answers: HashMap<String, BTreeMap<String, serde_json::Value>>,
}

/// The key of the pending write listing a subgraph task's interrupts.
pub(crate) const SUBGRAPH_INTERRUPTS: &str = "subgraph";

/// What the key of a pending write answering a subgraph's interrupt starts
/// with (the interrupt's id follows).
pub(crate) const SUBGRAPH_ANSWER: &str = "subgraph:";

/// A dynamic interrupt that waits for a value.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Awaiting {
    /// Its task's key (the node's name, or `node#k` for a send).
    pub(crate) node: String,
    /// The index of its `interrupt` call within the node; `None` for an
    /// interrupt of a subgraph the task runs.
    pub(crate) call: Option<usize>,
    /// Its id.
    pub(crate) id: String,
}

/// The value of a pending write, read as a `T` (`what` names it in the
/// error).
fn decode_value<T: serde::de::DeserializeOwned>(
    write: &PendingWrite,
    what: &str,
) -> Result<T, GraphError> {
    decode(&write.value, &write.thread_id, write.checkpoint, what)
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
                WriteKind::Resume if write.key.starts_with(SUBGRAPH_ANSWER) => {
                    let value = decode_value(&write, "resume value")?;
                    let id = write.key[SUBGRAPH_ANSWER.len()..].to_string();
                    data.sub_answers
                        .entry(write.node)
                        .or_default()
                        .insert(id, value);
                }
                WriteKind::Interrupt if write.key == SUBGRAPH_INTERRUPTS => {
                    // The latest stop of the child replaces the earlier ones.
                    let list: Vec<Interrupt> = decode_value(&write, "subgraph interrupts")?;
                    data.sub_interrupts.insert(write.node, list);
                }
                WriteKind::Resume => {
                    let value = decode_value(&write, "resume value")?;
                    // A later answer to the same interrupt replaces the earlier one.
                    let answers = data.resume.entry(write.node).or_default();
                    match write.key.parse::<usize>() {
                        Ok(index) if index < answers.len() => answers[index] = value,
                        _ => answers.push(value),
                    }
                }
                WriteKind::Interrupt => {
                    let mut interrupt: Interrupt = decode_value(&write, "interrupt")?;
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

    /// The interrupts waiting at the checkpoint: each task that interrupted
    /// and has not finished since, with its latest interrupt; by node, then
    /// the node's scheduled task before its sends, in emission order.
    pub(crate) fn pending(&self) -> Vec<Interrupt> {
        let mut out: Vec<(&str, Interrupt)> = self
            .interrupts
            .iter()
            .filter(|(task, _)| !self.updates.contains_key(*task))
            .filter_map(|(task, list)| list.last().map(|(_, i)| (task.as_str(), i.clone())))
            .collect();
        for (task, list) in &self.sub_interrupts {
            if !self.updates.contains_key(task) {
                out.extend(list.iter().map(|i| (task.as_str(), i.clone())));
            }
        }
        // Stable: a subgraph's interrupts keep the child's order.
        out.sort_by(|(a_task, a), (b_task, b)| {
            a.node
                .cmp(&b.node)
                .then_with(|| parse_task_key(a_task).1.cmp(&parse_task_key(b_task).1))
        });
        out.into_iter().map(|(_, interrupt)| interrupt).collect()
    }

    /// The answers given so far to the interrupts `task`'s subgraph waits
    /// at now, by id (answers to earlier stops are left out).
    pub(crate) fn sub_answers_for(
        &self,
        task: &str,
    ) -> Option<BTreeMap<String, serde_json::Value>> {
        let answers = self.sub_answers.get(task)?;
        let waiting = self.sub_interrupts.get(task)?;
        let current: BTreeMap<String, serde_json::Value> = answers
            .iter()
            .filter(|(id, _)| waiting.iter().any(|i| &i.id == *id))
            .map(|(id, value)| (id.clone(), value.clone()))
            .collect();
        (!current.is_empty()).then_some(current)
    }

    /// The id the interrupt of `node` at call `call` was given when it first
    /// waited, if it did.
    pub(crate) fn known_id(&self, node: &str, call: usize) -> Option<String> {
        self.interrupts
            .get(node)
            .and_then(|list| list.iter().find(|(c, _)| *c == Some(call)))
            .map(|(_, interrupt)| interrupt.id.clone())
    }

    /// The dynamic interrupts waiting for a value: each unfinished task's
    /// latest one, by node, then the scheduled task before the sends.
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
                    call: Some(call),
                    id: interrupt.id.clone(),
                })
            })
            .collect();
        for (task, list) in &self.sub_interrupts {
            if self.updates.contains_key(task) {
                continue;
            }
            out.extend(
                list.iter()
                    .filter(|i| i.kind == InterruptKind::Dynamic)
                    .map(|i| Awaiting {
                        node: task.clone(),
                        call: None,
                        id: i.id.clone(),
                    }),
            );
        }
        out.sort_by(|a, b| {
            parse_task_key(&a.node)
                .cmp(&parse_task_key(&b.node))
                .then_with(|| a.cmp(b))
        });
        out
    }
}

/// A finished task's output kept as a pending write: its update and goto
/// (the goto's targets, sends and reason).
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct StoredCommand<U> {
    #[serde(rename = "u")]
    update: U,
    #[serde(rename = "g", default, skip_serializing_if = "Option::is_none")]
    goto: Option<Vec<String>>,
    #[serde(rename = "s", default, skip_serializing_if = "Vec::is_empty")]
    sends: Vec<crate::Send>,
    #[serde(rename = "r", default, skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    /// Further updates, merged after `update` in order.
    #[serde(rename = "m", default, skip_serializing_if = "Vec::is_empty")]
    more: Vec<U>,
}

impl<'a, U> StoredCommand<&'a U> {
    pub(crate) fn of(command: &'a crate::Command<U>) -> Self {
        StoredCommand {
            update: &command.update,
            goto: command
                .goto
                .as_ref()
                .map(|g| g.targets().map(str::to_string).collect()),
            sends: command
                .goto
                .as_ref()
                .map(|g| g.send_items().to_vec())
                .unwrap_or_default(),
            reason: command
                .goto
                .as_ref()
                .and_then(|g| g.reason())
                .map(str::to_string),
            more: command.more().iter().collect(),
        }
    }
}

impl<U> StoredCommand<U> {
    pub(crate) fn into_command(self) -> crate::Command<U> {
        let sends = self.sends;
        let goto = self.goto.map(|targets| {
            let route = crate::Route::to_all(targets).with_sends(sends);
            match self.reason {
                Some(reason) => route.because(reason),
                None => route,
            }
        });
        crate::Command {
            update: self.update,
            goto,
            more: (!self.more.is_empty()).then(|| Box::new(self.more)),
        }
    }
}

/// Reads the pending writes of a checkpoint into what a resume needs.
pub(crate) fn resume_data(writes: Vec<PendingWrite>) -> Result<ResumeData, GraphError> {
    ResumeData::from_writes(writes)
}
