//! `#[derive(State)]`: merge rules (replace, append, custom), the written
//! `FieldSet`, the generated update type and its serde behaviour, and the
//! merge rules observed through a real run.

// Helpers outside #[test] functions unwrap too; clippy.toml only exempts test bodies.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;

use rebound_graph::{FieldSet, MergeRule, NodeError, RunConfig, State, StateGraph, END, START};
use serde::{Deserialize, Serialize};

fn keep_max(old: &mut u32, new: u32) {
    *old = (*old).max(new);
}

fn join_words(old: &mut String, new: String) {
    if !old.is_empty() {
        old.push(' ');
    }
    old.push_str(&new);
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, State)]
struct Doc {
    title: String,
    #[state(append)]
    notes: Vec<String>,
    #[state(merge = keep_max)]
    best: u32,
    #[state(replace)]
    count: u64,
    #[state(append)]
    tags: BTreeMap<String, u32>,
    #[state(merge = join_words)]
    sentence: String,
}

fn names(set: FieldSet) -> Vec<&'static str> {
    set.names(Doc::FIELDS).collect()
}

#[test]
fn fields_and_merge_rules_follow_declaration_order() {
    assert_eq!(
        Doc::FIELDS,
        ["title", "notes", "best", "count", "tags", "sentence"]
    );
    assert_eq!(
        Doc::MERGE_RULES,
        [
            MergeRule::Replace,
            MergeRule::Append,
            MergeRule::Custom,
            MergeRule::Replace,
            MergeRule::Append,
            MergeRule::Custom,
        ]
    );
    // Fields 0 (title) and 3 (count) are replace-only.
    assert_eq!(Doc::replace_fields(), FieldSet::from_bits(0b00_1001));
}

#[test]
fn replace_is_the_default_and_overwrites() {
    let mut doc = Doc {
        title: "old".into(),
        count: 7,
        ..Doc::default()
    };
    let changed = doc.apply(DocUpdate::default().title("new".into()).count(1));
    assert_eq!(doc.title, "new");
    assert_eq!(doc.count, 1);
    assert_eq!(names(changed), ["title", "count"]);
    assert_eq!(changed, FieldSet::from_bits(0b00_1001));
}

#[test]
fn replace_with_the_same_value_still_counts_as_written() {
    let mut doc = Doc {
        title: "same".into(),
        ..Doc::default()
    };
    let changed = doc.apply(DocUpdate::default().title("same".into()));
    assert_eq!(names(changed), ["title"]);
}

#[test]
fn append_extends_vectors_and_maps() {
    let mut doc = Doc {
        notes: vec!["one".into()],
        ..Doc::default()
    };
    doc.tags.insert("a".into(), 1);
    let changed = doc.apply(
        DocUpdate::default()
            .notes(vec!["two".into(), "three".into()])
            .tags(BTreeMap::from([("a".to_string(), 9), ("b".to_string(), 2)])),
    );
    assert_eq!(doc.notes, ["one", "two", "three"]);
    assert_eq!(
        doc.tags,
        BTreeMap::from([("a".to_string(), 9), ("b".to_string(), 2)])
    );
    assert_eq!(names(changed), ["notes", "tags"]);

    // An empty append is still a write, and changes nothing.
    let changed = doc.apply(DocUpdate::default().notes(Vec::new()));
    assert_eq!(doc.notes, ["one", "two", "three"]);
    assert_eq!(names(changed), ["notes"]);
}

#[test]
fn custom_merge_calls_the_function_with_old_and_new() {
    let mut doc = Doc {
        best: 5,
        ..Doc::default()
    };
    let changed = doc.apply(DocUpdate::default().best(3));
    assert_eq!(doc.best, 5, "keep_max keeps the larger old value");
    assert_eq!(names(changed), ["best"]);
    doc.apply(DocUpdate::default().best(8));
    assert_eq!(doc.best, 8);

    doc.apply(DocUpdate::default().sentence("hello".into()));
    doc.apply(DocUpdate::default().sentence("world".into()));
    assert_eq!(doc.sentence, "hello world");
}

#[test]
fn empty_update_writes_nothing() {
    let before = Doc {
        title: "t".into(),
        notes: vec!["n".into()],
        best: 2,
        ..Doc::default()
    };
    let mut doc = before.clone();
    let changed = doc.apply(DocUpdate::default());
    assert_eq!(changed, FieldSet::EMPTY);
    assert!(changed.is_empty());
    assert_eq!(doc, before);
}

#[test]
fn written_matches_apply_without_mutating() {
    let update = DocUpdate::default()
        .sentence("s".into())
        .notes(vec!["x".into()])
        .best(1);
    let written = Doc::written(&update);
    let mut doc = Doc::default();
    let applied = doc.apply(update);
    assert_eq!(written, applied);
    assert_eq!(names(written), ["notes", "best", "sentence"]);
    assert_eq!(written.len(), 3);
    assert!(written.contains(1) && written.contains(2) && written.contains(5));
    assert!(!written.contains(0));
}

#[test]
fn builder_methods_set_the_option_fields() {
    let update = DocUpdate::default()
        .title("t".into())
        .notes(vec!["n".into()])
        .best(4)
        .count(9)
        .tags(BTreeMap::from([("k".to_string(), 1)]))
        .sentence("s".into());
    assert_eq!(update.title.as_deref(), Some("t"));
    assert_eq!(update.notes, Some(vec!["n".to_string()]));
    assert_eq!(update.best, Some(4));
    assert_eq!(update.count, Some(9));
    assert_eq!(update.tags, Some(BTreeMap::from([("k".to_string(), 1)])));
    assert_eq!(update.sentence.as_deref(), Some("s"));
    // A later call of the same setter replaces the earlier value.
    let update = DocUpdate::default().best(1).best(2);
    assert_eq!(update.best, Some(2));
}

#[test]
fn update_serializes_only_the_fields_it_sets() {
    let update = DocUpdate::default().notes(vec!["a".into()]).best(3);
    let json = serde_json::to_value(&update).unwrap();
    assert_eq!(json, serde_json::json!({"notes": ["a"], "best": 3}));
    assert_eq!(
        serde_json::to_value(DocUpdate::default()).unwrap(),
        serde_json::json!({})
    );
}

#[test]
fn update_deserializes_a_partial_object() {
    let update: DocUpdate = serde_json::from_str(r#"{"title": "x", "notes": ["y"]}"#).unwrap();
    let mut doc = Doc::default();
    let changed = doc.apply(update);
    assert_eq!(doc.title, "x");
    assert_eq!(doc.notes, ["y"]);
    assert_eq!(names(changed), ["title", "notes"]);
}

#[test]
fn update_with_unknown_key_is_rejected_naming_the_key() {
    let err = serde_json::from_str::<DocUpdate>(r#"{"title": "x", "tittle": "typo"}"#)
        .expect_err("unknown keys must be refused");
    let message = err.to_string();
    assert!(
        message.contains("unknown field `tittle`"),
        "error should name the unknown key: {message}"
    );
    assert!(
        message.contains("title"),
        "error should list the expected fields: {message}"
    );
}

#[test]
fn update_with_wrong_type_is_rejected() {
    let err = serde_json::from_str::<DocUpdate>(r#"{"best": "high"}"#).unwrap_err();
    assert!(err.to_string().contains("invalid type"), "{err}");
}

#[test]
fn field_set_operations() {
    let mut a = FieldSet::EMPTY;
    a.insert(0);
    a.insert(5);
    let b = FieldSet::single(5).union(FieldSet::single(63));
    assert_eq!(a.bits(), 0b10_0001);
    assert_eq!(a.intersection(b), FieldSet::single(5));
    assert_eq!(a.union(b).indices().collect::<Vec<_>>(), [0, 5, 63]);
    assert_eq!(a.union(b).len(), 3);
    assert!(b.contains(63));
    assert!(!b.contains(0));
    // Names beyond the field table are skipped rather than panicking.
    assert_eq!(
        FieldSet::from_bits(0b100_0001)
            .names(Doc::FIELDS)
            .collect::<Vec<_>>(),
        ["title"]
    );
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, State)]
struct Run {
    #[state(append)]
    log: Vec<String>,
    last: String,
    #[state(merge = keep_max)]
    high: u32,
}

#[tokio::test]
async fn merge_rules_apply_across_supersteps_of_a_run() {
    let mut graph = StateGraph::<Run>::new();
    graph
        .add_sync_node("first", |_, _| {
            Ok(RunUpdate::default()
                .log(vec!["first".into()])
                .last("first".into())
                .high(10))
        })
        .add_sync_node("second", |s, _| {
            // Nodes see the state merged so far.
            assert_eq!(s.log, ["seed", "first"]);
            Ok(RunUpdate::default()
                .log(vec!["second".into()])
                .last("second".into())
                .high(4))
        })
        .add_edge(START, "first")
        .add_edge("first", "second")
        .add_edge("second", END);
    let graph = graph.compile().unwrap();
    let out = graph
        .invoke(
            Run {
                log: vec!["seed".into()],
                last: "input".into(),
                high: 0,
            },
            RunConfig::new(),
        )
        .await
        .unwrap();
    assert_eq!(out.log, ["seed", "first", "second"]);
    assert_eq!(out.last, "second");
    assert_eq!(out.high, 10);
}

#[tokio::test]
async fn fields_a_node_does_not_write_keep_their_value() {
    let mut graph = StateGraph::<Run>::new();
    graph
        .add_node("noop", |_, _| async {
            Ok::<_, NodeError>(RunUpdate::default())
        })
        .add_edge(START, "noop")
        .add_edge("noop", END);
    let graph = graph.compile().unwrap();
    let input = Run {
        log: vec!["x".into()],
        last: "kept".into(),
        high: 3,
    };
    let out = graph.invoke(input, RunConfig::new()).await.unwrap();
    assert_eq!(out.log, ["x"]);
    assert_eq!(out.last, "kept");
    assert_eq!(out.high, 3);
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, State)]
struct Optional {
    maybe: Option<String>,
    n: u32,
}

#[test]
fn update_of_an_option_field_to_some_round_trips_through_json() {
    let update = OptionalUpdate::default().maybe(Some("y".into()));
    let json = serde_json::to_string(&update).unwrap();
    assert_eq!(json, r#"{"maybe":"y"}"#);
    let back: OptionalUpdate = serde_json::from_str(&json).unwrap();
    assert_eq!(back.maybe, Some(Some("y".to_string())));
}

/// An update that clears an `Option` field (`Some(None)`) serializes as
/// `{"maybe": null}`, but deserializing that gives `None` (no write), because
/// the generated field is `#[serde(default)] Option<Option<T>>`: the write is
/// lost on a JSON round trip (e.g. a persisted or replayed update).
#[test]
fn update_clearing_an_option_field_round_trips_through_json() {
    let update = OptionalUpdate::default().maybe(None);
    assert_eq!(Optional::written(&update), FieldSet::single(0));
    let json = serde_json::to_string(&update).unwrap();
    assert_eq!(json, r#"{"maybe":null}"#);
    let back: OptionalUpdate = serde_json::from_str(&json).unwrap();
    assert_eq!(
        Optional::written(&back),
        FieldSet::single(0),
        "the write of None to `maybe` was lost in the round trip"
    );
    let mut state = Optional {
        maybe: Some("x".into()),
        n: 1,
    };
    state.apply(back);
    assert_eq!(state.maybe, None);
}
