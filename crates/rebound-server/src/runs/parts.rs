//! From the engine's events to the parts of a run's stream, by mode:
//! `values` (the state after each superstep), `updates` (`{node: update}`
//! as each node finishes), `custom` (what nodes emit), `events` (every
//! event in rebound's typed wire form).

use rebound_graph::{Event, Interrupt};
use serde_json::{json, Value};

use super::StreamMode;

/// The stream parts (`(event name, data)`) an engine event makes.
pub(crate) fn parts(event: &Event, modes: &[StreamMode]) -> Vec<(&'static str, Value)> {
    let mut out = Vec::new();
    for mode in modes {
        match (mode, event) {
            (StreamMode::Values, Event::Values { values, .. }) => {
                out.push(("values", values.clone()));
            }
            (StreamMode::Updates, Event::Updates { node, update, .. }) => {
                out.push(("updates", json!({ node.as_ref(): update })));
            }
            (StreamMode::Custom, Event::Custom { payload, .. }) => {
                out.push(("custom", payload.clone()));
            }
            // The state and the updates have parts of their own when
            // those modes are on: not told twice.
            (StreamMode::Events, Event::Values { .. }) if modes.contains(&StreamMode::Values) => {}
            (StreamMode::Events, Event::Updates { .. }) if modes.contains(&StreamMode::Updates) => {
            }
            (StreamMode::Events, event) => {
                let wire = rebound_protocol::Event::from(event);
                if let Ok(value) = serde_json::to_value(&wire) {
                    out.push(("events", value));
                }
            }
            _ => {}
        }
    }
    out
}

/// The interrupts in the Agent Server's form: `[{value, id}]`.
pub(crate) fn interrupts_json(interrupts: &[Interrupt]) -> Value {
    Value::Array(
        interrupts
            .iter()
            .map(|i| json!({ "value": i.payload, "id": i.id }))
            .collect(),
    )
}

/// The part an interrupted run ends with in `updates` mode:
/// `{"__interrupt__": [{value, id}]}`.
pub(crate) fn interrupt_update(interrupts: &[Interrupt]) -> Value {
    json!({ "__interrupt__": interrupts_json(interrupts) })
}
