//! `--json`: every event as one JSON line (its wire form, `rebound_protocol::Event`),
//! then one `{"summary": ...}` line.

use rebound_protocol::Event;
use rebound_tools::approval::{ApprovalAnswer, ApprovalRequest};
use serde_json::{json, Value};

use super::{out, Ending, Renderer, RunEnd, RunInfo};

/// JSON lines on stdout.
#[derive(Debug, Default)]
pub struct JsonRenderer;

impl Renderer for JsonRenderer {
    fn start(&mut self, _info: &RunInfo) {}

    fn event(&mut self, event: &Event) {
        match serde_json::to_string(event) {
            Ok(line) => out(line),
            Err(error) => out(json!({"event": "unserializable", "error": error.to_string()})),
        }
    }

    fn answered(&mut self, request: &ApprovalRequest, answer: &ApprovalAnswer) {
        out(json!({"approval_answer": {"request": request, "answer": answer}}));
    }

    fn end(&mut self, end: &RunEnd) {
        out(json!({ "summary": summary(end) }));
    }
}

/// The summary object: thread, status, exit code and time, then what the
/// ending adds (the run summary's fields, the pending approvals, the error).
pub fn summary(end: &RunEnd) -> Value {
    let status = match &end.ending {
        Ending::Completed(summary) if summary.stop_reason.is_finished() => "finished",
        Ending::Completed(_) => "stopped",
        Ending::Interrupted(_) => "interrupted",
        Ending::Cancelled => "cancelled",
        Ending::Failed(_) => "failed",
    };
    let mut value = json!({
        "thread_id": end.thread_id,
        "workflow": end.workflow,
        "status": status,
        "exit_code": end.exit.code(),
        "elapsed_ms": u64::try_from(end.elapsed.as_millis()).unwrap_or(u64::MAX),
    });
    let Some(object) = value.as_object_mut() else {
        return value;
    };
    match &end.ending {
        Ending::Completed(summary) => {
            object.insert("stop".into(), json!(summary.stop_reason.to_string()));
            object.insert("verified".into(), json!(summary.stop_reason.is_verified()));
            if let Ok(Value::Object(fields)) = serde_json::to_value(summary) {
                object.extend(fields);
            }
        }
        Ending::Interrupted(interrupts) => {
            object.insert("pending".into(), json!(interrupts));
            object.insert("resume".into(), json!(end.resume));
        }
        Ending::Cancelled => {
            object.insert("resume".into(), json!(end.resume));
        }
        Ending::Failed(message) => {
            object.insert("error".into(), json!(message));
            object.insert("resume".into(), json!(end.resume));
        }
    }
    value
}
