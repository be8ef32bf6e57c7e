//! The JSON form of the protocol, pinned: one of every payload and event,
//! snapshot-tested (a change to a snapshot is a change to the wire and
//! needs a [`PROTOCOL_VERSION`] decision), each read back to itself, and
//! what a newer version may send read as unknown, never as an error.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use rebound_protocol::agent::{
    AgentEvent, CheckResult, CheckWhen, PlanStep, Review, StepPhase, Verdict,
};
use rebound_protocol::{
    Approval, ApprovalEvent, CommandOutcome, Decision, Event, InterruptKind, ModelCall, ModelEvent,
    NodeErrorKind, OutputLine, Payload, RunStatus, Stream, SubgraphTask, ToolCall, ToolEvent,
    PROTOCOL_VERSION,
};
use serde_json::{json, Value};

fn payloads() -> Vec<Payload> {
    vec![
        AgentEvent::Plan {
            steps: vec![
                PlanStep::command("Run the tests", "pytest -q"),
                PlanStep::edit("Fix the sign", "calc.py", "subtract"),
            ],
            repair: false,
            prompt_tokens: 812,
        }
        .into(),
        AgentEvent::Step {
            index: 0,
            step: PlanStep::command("Run the tests", "pytest -q"),
            phase: StepPhase::Finished,
            success: Some(false),
            output: Some("1 failed".to_string()),
        }
        .into(),
        AgentEvent::Review(Review {
            verdict: Verdict::Replan,
            reason: "the test still fails".to_string(),
            fix_suggestions: vec!["edit calc.py".to_string()],
        })
        .into(),
        AgentEvent::Checks {
            when: CheckWhen::Finish,
            results: vec![CheckResult {
                command: "pytest -q".to_string(),
                passed: true,
                exit_code: Some(0),
                output: "3 passed".to_string(),
                duration_ms: 420,
            }],
        }
        .into(),
        AgentEvent::Thinking {
            call: "planner".to_string(),
            text: "{\"steps\"".to_string(),
        }
        .into(),
        ToolEvent::ToolCall(ToolCall::Started {
            name: "shell".to_string(),
            command: Some("pytest -q".to_string()),
        })
        .into(),
        ToolEvent::ToolOutput(OutputLine {
            stream: Stream::Stderr,
            line: "E   assert 1 == 2".to_string(),
        })
        .into(),
        ToolEvent::ToolCall(ToolCall::Finished {
            name: "shell".to_string(),
            command: Some("pytest -q".to_string()),
            success: false,
            duration_ms: 1530,
            outcome: Some(CommandOutcome {
                exit_code: Some(1),
                sandboxed: Some(true),
                ..CommandOutcome::default()
            }),
        })
        .into(),
        ToolEvent::ToolCall(ToolCall::Replayed {
            name: "read_file".to_string(),
            command: None,
            success: true,
        })
        .into(),
        ApprovalEvent::Approval(Approval::Asked {
            tool: "shell".to_string(),
            command: "git push".to_string(),
            cwd: PathBuf::from("/work/repo"),
            reason: "publishes commits".to_string(),
        })
        .into(),
        ApprovalEvent::Approval(Approval::Answered {
            tool: "shell".to_string(),
            command: "git push".to_string(),
            decision: Decision::Deny,
        })
        .into(),
        ModelEvent::ModelCall(ModelCall {
            model: "local:qwen2.5-coder-1.5b".to_string(),
            input_tokens: 812,
            output_tokens: 64,
            duration_ms: 5210,
        })
        .into(),
        Payload::Other(json!({"my_progress": {"percent": 40}})),
    ]
}

fn events() -> Vec<Event> {
    let custom = |payload: Payload| Event::Custom {
        node: "executor".to_string(),
        step: 3,
        payload,
    };
    let mut events = vec![
        Event::RunStarted {
            run_id: "0193a1b2-0000-7000-8000-000000000001".to_string(),
            thread_id: Some("t1".to_string()),
        },
        Event::NodeStarted {
            node: "planner".to_string(),
            step: 1,
            attempt: 1,
        },
        Event::NodeFinished {
            node: "planner".to_string(),
            step: 1,
            attempt: 1,
            duration_us: 1250,
            changed: vec!["plan".to_string(), "messages".to_string()],
        },
        Event::RouteChosen {
            from: "executor".to_string(),
            to: vec!["planner".to_string()],
            step: 2,
            reason: Some("the step failed".to_string()),
        },
        Event::Retry {
            node: "planner".to_string(),
            step: 1,
            attempt: 1,
            delay_us: 500_000,
            error: "HTTP 503".to_string(),
        },
        Event::Error {
            node: Some("executor".to_string()),
            step: 2,
            kind: Some(NodeErrorKind::TimedOut),
            message: "timed out after 30s".to_string(),
        },
        Event::Interrupted {
            node: "executor".to_string(),
            kind: InterruptKind::Dynamic,
            payload: json!({"kind": "approval", "tool": "shell", "command": "git push",
                "cwd": "/work/repo", "reason": "publishes commits"}),
        },
        Event::Values {
            step: 2,
            values: json!({"iters": 1}),
        },
        Event::Updates {
            node: "advance".to_string(),
            step: 2,
            update: json!({"iters": 1}),
        },
        Event::Subgraph {
            namespace: vec![SubgraphTask {
                node: "research".to_string(),
                task: "research#1".to_string(),
                step: 4,
            }],
            inner: Box::new(Event::NodeStarted {
                node: "search".to_string(),
                step: 1,
                attempt: 2,
            }),
        },
        Event::RunFinished {
            run_id: "0193a1b2-0000-7000-8000-000000000001".to_string(),
            status: RunStatus::Interrupted,
            steps: 3,
            duration_us: 9_000_000,
        },
    ];
    events.extend(payloads().into_iter().map(custom));
    events
}

#[test]
fn every_event_has_its_pinned_json_form() {
    let lines: Vec<String> = events()
        .iter()
        .map(|event| serde_json::to_string(event).unwrap())
        .collect();
    // The version heads the pinned form: a change to the form shows
    // beside the version it is released under.
    insta::assert_snapshot!(format!(
        "protocol version {PROTOCOL_VERSION}\n{}",
        lines.join("\n")
    ));
}

#[test]
fn every_event_reads_back_to_itself() {
    for event in events() {
        let json = serde_json::to_value(&event).unwrap();
        assert_eq!(Event::decode(json.clone()), event, "{json}");
        assert_eq!(
            Event::decode_str(&serde_json::to_string(&event).unwrap()),
            event
        );
    }
    for payload in payloads() {
        assert_eq!(Payload::decode(&payload.to_value()), payload);
    }
}

#[test]
fn the_approval_request_of_an_interrupt_is_read_from_its_payload() {
    let Event::Interrupted { payload, .. } = &events()[6] else {
        panic!("not the interrupt");
    };
    let request = rebound_protocol::ApprovalRequest::from_payload(payload).unwrap();
    assert_eq!(request.command, "git push");
    assert_eq!(
        rebound_protocol::ApprovalRequest::from_payload(&json!({"question": "keep it?"})),
        None
    );
}

#[test]
fn an_event_of_a_newer_version_is_unknown_and_kept() {
    let newer = json!({"event": "budget_warning", "left": {"tokens": 300}});
    let event = Event::decode(newer.clone());
    let Event::Unknown { name, error, raw } = &event else {
        panic!("not unknown: {event:?}");
    };
    assert_eq!(name.as_deref(), Some("budget_warning"));
    assert!(error.contains("budget_warning"), "{error}");
    assert_eq!(Value::Object(raw.clone()), newer);
    assert_eq!(
        serde_json::to_value(&event).unwrap(),
        newer,
        "written back as read"
    );
    assert_eq!(
        event.to_string(),
        "unknown event \"budget_warning\" (from a newer version of rebound?)"
    );

    // A known event that lost a required field, or changed its type.
    let changed = Event::decode(json!({"event": "node_started", "node": "planner", "step": "one"}));
    assert!(
        matches!(&changed, Event::Unknown { name: Some(name), .. } if name == "node_started"),
        "{changed:?}"
    );
    // Not an event at all.
    for line in ["[1, 2]", "\"text\"", "{\"no_tag\": 1}", "not json", ""] {
        assert!(
            matches!(Event::decode_str(line), Event::Unknown { .. }),
            "{line}"
        );
    }
}

#[test]
fn a_payload_of_a_newer_version_or_of_the_user_is_other() {
    for value in [
        json!({"my_progress": {"percent": 40}}),
        json!({"tool_call": {"phase": "paused", "name": "shell"}}),
        json!({"plan": "not a plan"}),
        json!("just text"),
        Value::Null,
    ] {
        assert_eq!(Payload::decode(&value), Payload::Other(value.clone()));
    }
    let event = Event::decode(json!({"event": "custom", "node": "n", "step": 1,
        "payload": {"my_progress": {"percent": 40}}}));
    assert!(
        matches!(
            &event,
            Event::Custom {
                payload: Payload::Other(_),
                ..
            }
        ),
        "{event:?}"
    );
}

#[test]
fn events_read_well_as_lines() {
    let lines: Vec<String> = events().iter().map(ToString::to_string).collect();
    insta::assert_snapshot!(lines.join("\n"));
}
