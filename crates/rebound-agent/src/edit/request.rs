//! The model call of an edit: the instruction, the failing checks in
//! brief, the span's code, and the grammar of a fenced block; and where
//! the failures meet the span's file.

use rebound_llm::{ChatRequest, Message};

use super::EditSpan;
use crate::checks::CheckResult;
use crate::llm::shorten;
use crate::localize::{self, FailureKind, SuspectReason};
use crate::prompts::{self, render};
use crate::{AgentDeps, PlanStep};

/// The grammar of an edit answer: one fenced code block and nothing else
/// (a line of code may not start with a backtick; the closing fence ends
/// the answer).
pub const FENCE_GRAMMAR: &str = r#"root ::= "```" [a-zA-Z0-9_+-]* "\n" line* "```"
line ::= [^`\n] [^\n]* "\n" | "\n"
"#;

/// Characters of a file shown when a new definition is added to it.
const INSERT_CONTEXT_CHARS: usize = 4_000;

/// Tokens of room for a new definition's code.
const INSERT_TOKENS: u32 = 400;

/// Tokens of room for a new file written by hand (a `create` step): a
/// whole small program or config, not one definition. Found on dev: a
/// 60-line Python program cut at 160 tokens was refused five times ("the
/// code block is not closed").
const NEW_FILE_TOKENS: u32 = 700;

/// Characters of the failing checks' report in an edit prompt.
const FAILURE_CHARS: usize = 700;

/// The most source lines of failures (a test's failed assertion) an edit
/// prompt quotes.
const FAILING_LINES: usize = 3;

/// Where `results`' failures meet `file`: the line localization suspects
/// in it (outside tests), and whether a failure points at it at all (a
/// location or frame in it, or, for output that could not be read, its
/// name). Each failing check's output is parsed once.
pub(super) fn implication(
    workspace: &std::path::Path,
    results: &[CheckResult],
    file: &str,
) -> (Option<u32>, bool) {
    let file = file.trim_start_matches("./");
    let mut line = None;
    let mut named = false;
    for result in results.iter().filter(|r| !r.passed) {
        let failures = localize::parse(&result.command, &result.output, workspace);
        named |= failures.iter().any(|failure| {
            failure.kind == FailureKind::Unknown && result.output.contains(file)
                || failure
                    .location
                    .iter()
                    .chain(&failure.frames)
                    .any(|at| at.file == file)
        });
        if line.is_none() {
            line = localize::locate(workspace, &failures)
                .into_iter()
                .find(|s| s.file == file && s.reason != SuspectReason::Test)
                .map(|s| s.line);
        }
    }
    (line, named || line.is_some())
}

/// The model call of an edit: the instruction, the failures, the span's
/// code, and the grammar of a fenced block.
pub(super) fn edit_request(
    deps: &AgentDeps,
    goal: &str,
    step: &PlanStep,
    span: &EditSpan,
    results: Option<&[CheckResult]>,
    workspace: &std::path::Path,
) -> ChatRequest {
    let failures = results
        .map(|r| failures_brief(workspace, r, &span.file))
        .unwrap_or_default();
    let language = fence_language(&span.file);
    let (template, code) = if span.is_insertion() {
        let file = std::fs::read_to_string(workspace.join(&span.file)).unwrap_or_default();
        (prompts::EDITOR_INSERT, shorten(&file, INSERT_CONTEXT_CHARS))
    } else {
        (prompts::EDITOR_USER, span.text.clone())
    };
    let user = render(
        template,
        &[
            ("goal", goal),
            ("instruction", &step.description),
            ("failures", &failures),
            ("file", &span.file),
            ("part", &span.label),
            ("language", language),
            ("code", &code),
        ],
    );
    // Room for a rewrite a good deal longer than the original, or for a
    // new definition.
    let room = if !span.exists {
        NEW_FILE_TOKENS
    } else if span.is_insertion() {
        INSERT_TOKENS
    } else {
        u32::try_from(span.text.len() / 2).unwrap_or(u32::MAX)
    };
    let max_tokens = room
        .saturating_add(160)
        .clamp(160, deps.config.max_answer_tokens.max(160) * 3);
    ChatRequest::new()
        .system(prompts::EDITOR)
        .message(Message::user(user))
        .max_tokens(max_tokens)
        .grammar(FENCE_GRAMMAR)
}

/// The failing checks, briefly: each failure's header and message, and
/// the source lines where they show outside `file` (a test's failed
/// assertion, with the call and the value it expects); no other code (the
/// edit prompt shows the span itself).
fn failures_brief(workspace: &std::path::Path, results: &[CheckResult], file: &str) -> String {
    let failing: Vec<&CheckResult> = results.iter().filter(|r| !r.passed).collect();
    if failing.is_empty() {
        return String::new();
    }
    let budget = FAILURE_CHARS / failing.len();
    let parts: Vec<String> = failing
        .iter()
        .map(|result| {
            let failures = localize::parse(&result.command, &result.output, workspace);
            let text = localize::render(&failures, &[], budget);
            let mut body = if text.trim().is_empty() {
                shorten(result.output.trim_end(), budget)
            } else {
                text.trim_end().to_string()
            };
            for line in localize::failing_lines(workspace, &failures, file, FAILING_LINES) {
                body.push_str("\n> ");
                body.push_str(&line);
            }
            format!("{}:\n{body}", crate::checks::shown_headline(result))
        })
        .collect();
    format!("The checks fail:\n{}\n", parts.join("\n"))
}

/// The tag of a fenced block of `file`'s code.
pub(super) fn fence_language(file: &str) -> &'static str {
    let extension = std::path::Path::new(file)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default();
    match extension {
        "py" => "python",
        "rs" => "rust",
        "c" | "h" => "c",
        "js" | "mjs" | "cjs" | "jsx" => "javascript",
        "ts" | "tsx" => "typescript",
        "sh" | "bash" => "bash",
        "json" => "json",
        "toml" => "toml",
        "yaml" | "yml" => "yaml",
        "go" => "go",
        _ if file.ends_with("Makefile") || file.ends_with(".mk") => "make",
        _ => "",
    }
}
