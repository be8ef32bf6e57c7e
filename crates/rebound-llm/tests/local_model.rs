//! The embedded local model on the real Qwen2.5-Coder 0.5B GGUF. Each test
//! skips (saying so) when the model file is absent; `scripts/fetch-model
//! --small` installs it.
#![cfg(feature = "local")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Instant;

use rebound_llm::local::{known_model_path, LocalModel};
use rebound_llm::{chat_structured, ChatModel, ChatRequest, FinishReason, LlmError, Message};
use schemars::JsonSchema;
use serde::Deserialize;

const SMALL: &str = "qwen2.5-coder-0.5b";

/// The tests share one model and its KV cache, so they run one at a time.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The 0.5B model, or `None` after printing why the test is skipped.
/// Where the model must be present (`REBOUND_REQUIRE_MODEL`, set by CI),
/// its absence is a failure.
fn small_model(test: &str) -> Option<LocalModel> {
    let path = known_model_path(SMALL).unwrap();
    if !path.is_file() {
        assert!(
            std::env::var_os("REBOUND_REQUIRE_MODEL").is_none(),
            "{test}: REBOUND_REQUIRE_MODEL is set, but {} is missing",
            path.display()
        );
        eprintln!(
            "SKIPPED {test}: {} is absent; run `scripts/fetch-model --small` to install it",
            path.display()
        );
        return None;
    }
    let model = LocalModel::open(&path).unwrap();
    // Cold calls must be cold: no prompt states from disk unless a test
    // asks for them.
    model.set_prompt_state_dir(None);
    Some(model)
}

#[derive(Debug, Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Step {
    description: String,
    command: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Plan {
    steps: Vec<Step>,
}

#[tokio::test(flavor = "current_thread")]
async fn a_plain_question_gets_a_non_empty_answer() {
    let _serial = SERIAL.lock().await;
    let Some(model) = small_model("a_plain_question_gets_a_non_empty_answer") else {
        return;
    };
    assert_eq!(
        model.name(),
        "local:qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
    );
    assert!(model.enforces_schema());
    let request = ChatRequest::new()
        .system("You are a terse assistant.")
        .message(Message::user(
            "Which command runs the Python tests in a repository?",
        ))
        .max_tokens(48);
    let response = model.chat(&request).await.unwrap();
    eprintln!("answer: {:?}", response.text);
    assert!(!response.text.trim().is_empty());
    assert!(response.usage.input_tokens > 10);
    assert!(response.usage.output_tokens > 0);
    assert!(response.usage.output_tokens <= 48);
    if response.usage.output_tokens == 48 {
        assert_eq!(response.finish_reason, FinishReason::Length);
    }
}

#[tokio::test(flavor = "current_thread")]
async fn max_tokens_ends_with_length() {
    let _serial = SERIAL.lock().await;
    let Some(model) = small_model("max_tokens_ends_with_length") else {
        return;
    };
    let request = ChatRequest::new()
        .message(Message::user("Write a long essay about testing software."))
        .max_tokens(5);
    let response = model.chat(&request).await.unwrap();
    assert_eq!(response.finish_reason, FinishReason::Length);
    assert_eq!(response.usage.output_tokens, 5);
}

#[tokio::test(flavor = "current_thread")]
async fn a_structured_plan_is_valid() {
    let _serial = SERIAL.lock().await;
    let Some(model) = small_model("a_structured_plan_is_valid") else {
        return;
    };
    let request = ChatRequest::new()
        .system("You plan coding tasks as short lists of shell steps.")
        .message(Message::user("Goal: make the failing Python tests pass."))
        .max_tokens(400);
    let plan = chat_structured::<Plan>(&model, request).await.unwrap();
    eprintln!("plan ({} attempts): {}", plan.attempts, plan.raw);
    assert_eq!(plan.attempts, 1, "constrained decoding needs no repair");
    assert!(!plan.value.steps.is_empty());
}

#[tokio::test(flavor = "current_thread")]
async fn the_same_request_gives_the_same_text() {
    let _serial = SERIAL.lock().await;
    let Some(model) = small_model("the_same_request_gives_the_same_text") else {
        return;
    };
    let request = ChatRequest::new()
        .message(Message::user("Name three Python testing tools."))
        .max_tokens(40);
    let first = model.chat(&request).await.unwrap();
    // Another request in between, so the second run is not a pure cache hit.
    model
        .chat(
            &ChatRequest::new()
                .message(Message::user("Say ok."))
                .max_tokens(4),
        )
        .await
        .unwrap();
    let second = model.chat(&request).await.unwrap();
    assert_eq!(first.text, second.text);
    assert_eq!(first.usage, second.usage);
}

#[tokio::test(flavor = "current_thread")]
async fn tokens_stream_as_they_are_generated() {
    let _serial = SERIAL.lock().await;
    let Some(model) = small_model("tokens_stream_as_they_are_generated") else {
        return;
    };
    assert!(model.streams_tokens());
    let request = ChatRequest::new()
        .message(Message::user("Name three Python testing tools."))
        .max_tokens(40);
    let pieces = std::sync::Mutex::new(Vec::<(String, Instant)>::new());
    let observed = rebound_llm::chat_observed(&model, &request, &|text| {
        pieces
            .lock()
            .unwrap()
            .push((text.to_string(), Instant::now()));
    })
    .await
    .unwrap();
    let whole = model.chat(&request).await.unwrap();
    let pieces = pieces.into_inner().unwrap();
    assert!(pieces.len() > 5, "{} pieces", pieces.len());
    let joined: String = pieces.iter().map(|(text, _)| text.as_str()).collect();
    assert_eq!(joined, observed.text, "the pieces make the answer");
    assert_eq!(observed.text, whole.text, "streaming changes nothing");
    assert_eq!(observed.usage, whole.usage);
    assert!(
        pieces.last().unwrap().1 > pieces.first().unwrap().1,
        "the pieces arrived over time, not all at the end"
    );
}

/// A reader that stops reading ends the generation where it stood: the
/// cut answer is the start of the whole one, and the engine, its KV cache
/// left mid-answer, gives the next call the same answer as before.
#[tokio::test(flavor = "current_thread")]
async fn a_reader_with_enough_ends_the_generation() {
    let _serial = SERIAL.lock().await;
    let Some(model) = small_model("a_reader_with_enough_ends_the_generation") else {
        return;
    };
    let request = ChatRequest::new()
        .message(Message::user(
            "Name five Python testing tools, one per line.",
        ))
        .max_tokens(60);
    let whole = model.chat(&request).await.unwrap();
    let pieces = std::sync::atomic::AtomicUsize::new(0);
    let cut = rebound_llm::chat_observed_until(
        &model,
        &request,
        &|_| {
            pieces.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        },
        &|_| pieces.load(std::sync::atomic::Ordering::Relaxed) >= 3,
    )
    .await
    .unwrap();
    assert_eq!(cut.finish_reason, FinishReason::Cut);
    assert_eq!(cut.usage.output_tokens, 3);
    assert!(
        whole.text.starts_with(&cut.text) && cut.text.len() < whole.text.len(),
        "{:?} is not the start of {:?}",
        cut.text,
        whole.text
    );
    let again = model.chat(&request).await.unwrap();
    assert_eq!(again.text, whole.text);
    assert_eq!(again.usage, whole.usage);
}

#[tokio::test(flavor = "current_thread")]
async fn sampling_is_seeded() {
    let _serial = SERIAL.lock().await;
    let Some(model) = small_model("sampling_is_seeded") else {
        return;
    };
    let request = |seed: u64| {
        ChatRequest::new()
            .message(Message::user("Write one line of a poem about rivers."))
            .max_tokens(24)
            .temperature(1.0)
            .seed(seed)
    };
    let first = model.chat(&request(7)).await.unwrap();
    let again = model.chat(&request(7)).await.unwrap();
    assert_eq!(
        first.text, again.text,
        "the same seed gives the same answer"
    );
    let mut answers = std::collections::BTreeSet::new();
    for seed in 0..4 {
        answers.insert(model.chat(&request(seed)).await.unwrap().text);
    }
    assert!(
        answers.len() >= 2,
        "four seeds at temperature 1 gave one answer: {answers:?}"
    );
}

#[tokio::test(flavor = "current_thread")]
async fn a_raw_grammar_is_enforced() {
    let _serial = SERIAL.lock().await;
    let Some(model) = small_model("a_raw_grammar_is_enforced") else {
        return;
    };
    let grammar = r#"root ::= "```" [a-z]* "\n" line* "```"
line ::= [^`\n] [^\n]* "\n" | "\n"
"#;
    for seed in [None, Some(3)] {
        let mut request = ChatRequest::new()
            .message(Message::user(
                "Write a Python function that adds two numbers.",
            ))
            .max_tokens(120)
            .grammar(grammar);
        if let Some(seed) = seed {
            request = request.temperature(0.8).seed(seed);
        }
        let answer = model.chat(&request).await.unwrap();
        assert!(answer.text.starts_with("```"), "{:?}", answer.text);
        if answer.finish_reason == FinishReason::Stop {
            assert!(answer.text.trim_end().ends_with("```"), "{:?}", answer.text);
            assert!(answer.text.contains("def "), "{:?}", answer.text);
        }
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_shared_prefix_is_reused() {
    let _serial = SERIAL.lock().await;
    let Some(model) = small_model("a_shared_prefix_is_reused") else {
        return;
    };
    let context: String = (1..=40)
        .map(|i| format!("File src/module_{i}.py defines function handler_{i}(request) which validates input and returns a response.\n"))
        .collect();
    let system = format!("You are a coding agent. Repository overview:\n{context}");
    let question = |q: &str| {
        ChatRequest::new()
            .system(system.clone())
            .message(Message::user(q))
            .max_tokens(8)
    };
    // Something else first, so the first timed call starts cold.
    model
        .chat(
            &ChatRequest::new()
                .message(Message::user("Hi"))
                .max_tokens(1),
        )
        .await
        .unwrap();

    let started = Instant::now();
    let (cold, cold_stats) = model
        .chat_with_stats(&question("Which file defines handler_7?"))
        .await
        .unwrap();
    let cold_time = started.elapsed();

    let started = Instant::now();
    let warm_request = question("Which file defines handler_31?");
    let (warm, warm_stats) = model.chat_with_stats(&warm_request).await.unwrap();
    let warm_time = started.elapsed();

    eprintln!(
        "prefix reuse: cold {cold_time:?} ({} prompt tokens, {} reused), warm {warm_time:?} ({} prompt tokens, {} reused)",
        cold_stats.prompt_tokens,
        cold_stats.reused_tokens,
        warm_stats.prompt_tokens,
        warm_stats.reused_tokens
    );
    assert!(cold_stats.reused_tokens < 10);
    assert!(warm_stats.reused_tokens > warm_stats.prompt_tokens / 2);
    assert!(!cold.text.is_empty() && !warm.text.is_empty());

    // Correctness: the reused cache gives the same answer as a cold run.
    model.forget_cache();
    let (fresh, fresh_stats) = model.chat_with_stats(&warm_request).await.unwrap();
    assert!(fresh_stats.reused_tokens < 10);
    assert_eq!(fresh.text, warm.text);
}

#[tokio::test(flavor = "current_thread")]
async fn alternating_prompts_each_find_their_own_prefix() {
    let _serial = SERIAL.lock().await;
    let Some(model) = small_model("alternating_prompts_each_find_their_own_prefix") else {
        return;
    };
    let overview = |what: &str| -> String {
        (1..=30)
            .map(|i| {
                format!("{what} {i}: module_{i}.py holds handler_{i}, which checks its input.\n")
            })
            .collect()
    };
    let planner = format!("You plan work. Project:\n{}", overview("Entry"));
    let editor = format!("You edit code. Files:\n{}", overview("File"));
    let ask = |system: &str, question: &str| {
        ChatRequest::new()
            .system(system.to_string())
            .message(Message::user(question))
            .max_tokens(8)
    };
    model.forget_cache();
    let (_, first) = model
        .chat_with_stats(&ask(&planner, "Which module holds handler_3?"))
        .await
        .unwrap();
    let (_, other) = model
        .chat_with_stats(&ask(&editor, "Which file holds handler_9?"))
        .await
        .unwrap();
    // The editor call displaced the planner's prompt from the KV cache;
    // the planner's next call restores its saved state.
    let again = ask(&planner, "Which module holds handler_21?");
    let (answer, stats) = model.chat_with_stats(&again).await.unwrap();
    eprintln!(
        "alternating: planner {} prompt tokens ({} reused), editor {} ({} reused), planner again {} ({} reused, {} restored)",
        first.prompt_tokens,
        first.reused_tokens,
        other.prompt_tokens,
        other.reused_tokens,
        stats.prompt_tokens,
        stats.reused_tokens,
        stats.restored_tokens
    );
    assert!(other.reused_tokens < other.prompt_tokens / 4);
    assert!(stats.restored_tokens > stats.prompt_tokens / 2);
    assert_eq!(stats.reused_tokens, stats.restored_tokens);

    // The same answer as with nothing cached.
    model.forget_cache();
    let (fresh, fresh_stats) = model.chat_with_stats(&again).await.unwrap();
    assert_eq!(fresh_stats.reused_tokens, 0);
    assert_eq!(fresh.text, answer.text);
}

#[tokio::test(flavor = "current_thread")]
async fn prompt_lookup_gives_the_same_answer_in_fewer_steps() {
    let _serial = SERIAL.lock().await;
    let Some(model) = small_model("prompt_lookup_gives_the_same_answer_in_fewer_steps") else {
        return;
    };
    let code = "def total(items):\n    result = 0\n    for item in items:\n        result += item.price * item.quantity\n    return result\n\n\ndef count(items):\n    return len(items)\n";
    let edit = ChatRequest::new()
        .system("You edit Python code. Answer with the whole new code in one ```python block.")
        .message(Message::user(format!(
            "Rename the function `count` to `item_count`; change nothing else.\n```python\n{code}```"
        )))
        .max_tokens(120);
    let plan = ChatRequest::new()
        .message(Message::user(
            "List the files src/app.py, src/db.py and tests/test_app.py as a JSON object {\"files\": [...]}.",
        ))
        .response_schema(
            "Files",
            serde_json::json!({"type": "object", "properties": {"files": {"type": "array", "items": {"type": "string"}}}, "required": ["files"]}),
        )
        .max_tokens(60);
    for request in [edit, plan] {
        model.set_prompt_lookup(false);
        model.forget_cache();
        let started = Instant::now();
        let (plain, plain_stats) = model.chat_with_stats(&request).await.unwrap();
        let plain_time = started.elapsed();
        model.set_prompt_lookup(true);
        model.forget_cache();
        let started = Instant::now();
        let (drafted, stats) = model.chat_with_stats(&request).await.unwrap();
        let drafted_time = started.elapsed();
        eprintln!(
            "prompt lookup: {} tokens in {plain_time:?} plain, {drafted_time:?} drafted ({} drafted, {} kept in {} checks)",
            stats.generated_tokens, stats.draft_tokens, stats.accepted_draft_tokens, stats.verify_steps
        );
        assert_eq!(plain_stats.draft_tokens, 0);
        assert_eq!(drafted.text, plain.text, "the same answer token for token");
        assert_eq!(drafted.finish_reason, plain.finish_reason);
        assert_eq!(stats.generated_tokens, plain_stats.generated_tokens);
        assert!(stats.accepted_draft_tokens > 0, "{stats:?}");
    }
}

#[tokio::test(flavor = "current_thread")]
async fn an_overflowing_prompt_is_context_too_long() {
    let _serial = SERIAL.lock().await;
    let Some(model) = small_model("an_overflowing_prompt_is_context_too_long") else {
        return;
    };
    let n_ctx = model.context_tokens();
    let request = ChatRequest::new()
        .message(Message::user("Say hi"))
        .max_tokens(n_ctx as u32);
    match model.chat(&request).await {
        Err(LlmError::ContextTooLong { message, .. }) => {
            assert!(message.contains(&n_ctx.to_string()), "{message}")
        }
        other => panic!("expected ContextTooLong, got {other:?}"),
    }
    let long = "word ".repeat(n_ctx * 2);
    let request = ChatRequest::new().message(Message::user(long));
    assert!(matches!(
        model.chat(&request).await,
        Err(LlmError::ContextTooLong { .. })
    ));
    // The model still answers afterwards.
    let ok = model
        .chat(
            &ChatRequest::new()
                .message(Message::user("Say hi"))
                .max_tokens(4),
        )
        .await
        .unwrap();
    assert!(ok.usage.output_tokens > 0);
}

#[test]
fn a_missing_file_says_how_to_fetch_it() {
    let error = LocalModel::open("/nonexistent/dir/model.gguf").unwrap_err();
    assert!(matches!(error, LlmError::Config(_)));
    let text = error.to_string();
    assert!(text.contains("scripts/fetch-model"), "{text}");
    let spec: rebound_llm::ModelSpec = "local:/nonexistent/dir/model.gguf".parse().unwrap();
    let error = rebound_llm::from_spec(&spec).err().unwrap().to_string();
    assert!(error.contains("scripts/fetch-model"), "{error}");
}

/// The system text's KV state is stored on disk by the first call and
/// restored by a later process's (here: the same model with its memory
/// forgotten): the answer is the same token for token, with or without
/// the stored state, and a corrupt state file is refused, removed and
/// stored again, never loaded.
#[tokio::test(flavor = "current_thread")]
async fn the_system_texts_state_on_disk_serves_a_new_process_with_the_same_answer() {
    let _serial = SERIAL.lock().await;
    let Some(model) =
        small_model("the_system_texts_state_on_disk_serves_a_new_process_with_the_same_answer")
    else {
        return;
    };
    let system: String = (1..=12)
        .map(|i| {
            format!(
                "Rule {i}: answer in one short line and name file_{i}.py when it is asked for.\n"
            )
        })
        .collect();
    let request = ChatRequest::new()
        .system(system)
        .message(Message::user("Which file does rule 7 name?"))
        .max_tokens(16);

    model.forget_cache();
    let (plain, plain_stats) = model.chat_with_stats(&request).await.unwrap();
    assert_eq!(plain_stats.reused_tokens, 0);

    let dir = tempfile::tempdir().unwrap();
    model.set_prompt_state_dir(Some(dir.path().to_path_buf()));
    model.forget_cache();
    let (first, first_stats) = model.chat_with_stats(&request).await.unwrap();
    assert_eq!(first_stats.disk_tokens, 0, "nothing stored yet");
    let stored: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "state"))
        .collect();
    assert_eq!(stored.len(), 1, "{stored:?}");

    model.forget_cache();
    let started = Instant::now();
    let (again, stats) = model.chat_with_stats(&request).await.unwrap();
    eprintln!(
        "prompt state on disk: {} of {} prompt tokens restored in {:?} (first call: {:.2} s of prompt)",
        stats.disk_tokens,
        stats.prompt_tokens,
        started.elapsed(),
        first_stats.prompt_seconds
    );
    assert!(stats.disk_tokens > stats.prompt_tokens / 2, "{stats:?}");
    assert_eq!(stats.reused_tokens, stats.disk_tokens);
    assert_eq!(
        again.text, first.text,
        "the same answer with the stored state"
    );
    assert_eq!(
        again.text, plain.text,
        "the same answer as with no disk at all"
    );

    // A corrupt state: refused (its checksum), removed, stored again.
    let mut bytes = std::fs::read(&stored[0]).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    std::fs::write(&stored[0], &bytes).unwrap();
    model.forget_cache();
    let (after, after_stats) = model.chat_with_stats(&request).await.unwrap();
    assert_eq!(
        after_stats.disk_tokens, 0,
        "the corrupt state was not loaded"
    );
    assert_eq!(after.text, plain.text);
    assert_ne!(
        std::fs::read(&stored[0]).unwrap(),
        bytes,
        "a good state was stored in its place"
    );
    model.forget_cache();
    let (_, restored) = model.chat_with_stats(&request).await.unwrap();
    assert!(restored.disk_tokens > 0);
    model.set_prompt_state_dir(None);
}
