//! TAP reports of node's test runner (`node --test`, and any runner that
//! writes the same YAML blocks): each `not ok N - name` with its block of
//! `error`, `expected`/`actual`, `location` and `stack`. The failure is
//! located at the innermost stack frame in the workspace (the assertion's
//! line in the test file, so the names it calls are the suspects), else
//! at the test's `location`. Found on dev: with the report unread, no
//! edit was planned from it and the planner guessed line ranges.

use std::sync::LazyLock;

use regex::Regex;

use super::{Claims, Context, Found};
use crate::failure::{innermost_project_frame, Failure, FailureKind, Location};
use crate::text::one_line;

/// `not ok 3 - multi-digit parts compare as numbers` (indented for a
/// subtest): the name is group 1.
static NOT_OK: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^\s*not ok \d+(?:\s+-\s+(.*))?$").ok());

/// A JavaScript or TypeScript place, `path:line:column`, in a stack frame
/// (`fn (/ws/a.test.js:18:10)`, `at /ws/a.js:3:5`) or a `location:` value.
static PLACE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?:^|[\s(']|file://)((?:/|\./)?[^\s()':]+\.(?:m?js|cjs|mts|cts|ts|jsx|tsx)):(\d+):(\d+)",
    )
    .ok()
});

/// Most stack frames read from one failure.
const MAX_FRAMES: usize = 20;

/// Reads the `not ok` blocks.
pub(crate) fn parse(lines: &[String], claims: &mut Claims, context: &Context) -> Vec<Found> {
    let Some(not_ok) = NOT_OK.as_ref() else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(captures) = (!claims.is_claimed(i))
            .then(|| not_ok.captures(&lines[i]))
            .flatten()
        else {
            i += 1;
            continue;
        };
        let name = captures
            .get(1)
            .map(|m| m.as_str().trim().to_string())
            .filter(|n| !n.is_empty());
        let indent = indent_of(&lines[i]);
        // The YAML block: `---` on the next line, up to `...` at its indent.
        // A bare `not ok` (a summary line) has nothing to read.
        let Some(block_indent) = lines
            .get(i + 1)
            .filter(|l| l.trim() == "---" && indent_of(l) > indent)
            .map(|l| indent_of(l))
        else {
            i += 1;
            continue;
        };
        let close = (i + 2..lines.len())
            .find(|&j| lines[j].trim() == "..." && indent_of(&lines[j]) == block_indent)
            .unwrap_or(lines.len());
        let block = &lines[i + 2..close];
        let end = (close + 1).min(lines.len());
        claims.claim(i..end);
        // A parent that failed only because a subtest did ("N subtests
        // failed"): the subtest's own block says where.
        if !block_is_only_a_parent(block) {
            found.push(Found::at(i, read_block(name, block, context)));
        }
        i = end;
    }
    found
}

/// A parent test's block: it failed only because a subtest did.
fn block_is_only_a_parent(block: &[String]) -> bool {
    block
        .iter()
        .any(|l| l.trim() == "failureType: 'subtestsFailed'")
}

/// The failure one YAML block describes.
fn read_block(name: Option<String>, block: &[String], context: &Context) -> Failure {
    let mut error: Vec<String> = Vec::new();
    let mut expected: Option<String> = None;
    let mut actual: Option<String> = None;
    let mut location: Option<Location> = None;
    let mut frames: Vec<Location> = Vec::new();
    let mut j = 0;
    while j < block.len() {
        let line = &block[j];
        let key_indent = indent_of(line);
        let trimmed = line.trim();
        let (key, value) = trimmed.split_once(':').unwrap_or((trimmed, ""));
        let value = value.trim();
        // A `|-` or `>-` value: the more indented lines after it.
        let nested = |from: usize| -> (Vec<String>, usize) {
            let mut k = from;
            let mut out = Vec::new();
            while k < block.len()
                && (block[k].trim().is_empty() || indent_of(&block[k]) > key_indent)
            {
                out.push(block[k].trim().to_string());
                k += 1;
            }
            (out, k)
        };
        match key {
            "error" if value.starts_with('|') || value.starts_with('>') => {
                let (text, next) = nested(j + 1);
                error = text.into_iter().filter(|l| !l.is_empty()).collect();
                j = next;
                continue;
            }
            "error" => error = vec![unquote(value)],
            "expected" if !value.is_empty() => expected = Some(unquote(value)),
            "actual" if !value.is_empty() => actual = Some(unquote(value)),
            "location" => location = place(value, context).or(location),
            "stack" => {
                let (text, next) = nested(j + 1);
                frames = text
                    .iter()
                    .filter_map(|l| place(l, context))
                    .take(MAX_FRAMES)
                    .collect();
                // Innermost last, as every parser orders frames.
                frames.reverse();
                j = next;
                continue;
            }
            _ => {}
        }
        j += 1;
    }
    let mut message = error.join(" ");
    if let (Some(expected), Some(actual)) = (&expected, &actual) {
        message.push_str(&format!(" (expected {expected}, actual {actual})"));
    }
    if message.trim().is_empty() {
        message = "failed".to_string();
    }
    let mut failure = Failure::new(FailureKind::NodeTestFailure, one_line([message.as_str()]));
    failure.test = name;
    failure.frames = frames;
    failure.location = failure
        .innermost_workspace_frame()
        .cloned()
        .or(location)
        .or_else(|| innermost_project_frame(&failure.frames));
    failure
}

/// The first JavaScript place on `text`, relative to the workspace.
fn place(text: &str, context: &Context) -> Option<Location> {
    let captures = PLACE.as_ref()?.captures(text)?;
    let path = captures.get(1)?.as_str();
    let line: u32 = captures.get(2)?.as_str().parse().ok()?;
    let column: Option<u32> = captures.get(3).and_then(|m| m.as_str().parse().ok());
    Some(context.location(path, line, column, None))
}

/// A YAML scalar without its quotes.
fn unquote(value: &str) -> String {
    let value = value.trim();
    value
        .strip_prefix('\'')
        .and_then(|v| v.strip_suffix('\''))
        .or_else(|| value.strip_prefix('"').and_then(|v| v.strip_suffix('"')))
        .unwrap_or(value)
        .to_string()
}

/// The number of leading spaces of `line`.
fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use crate::failure::FailureKind;
    use crate::parse::parse as parse_output;

    const REPORT: &str = "TAP version 13
# Subtest: same version
ok 1 - same version
  ---
  duration_ms: 1.22
  ...
# Subtest: multi-digit parts compare as numbers
not ok 3 - multi-digit parts compare as numbers
  ---
  duration_ms: 0.98
  location: 'WS/version.test.js:17:1'
  failureType: 'testCodeFailure'
  error: |-
    Expected values to be strictly equal:

    -1 !== 1

  code: 'ERR_ASSERTION'
  name: 'AssertionError'
  expected: 1
  actual: -1
  operator: 'strictEqual'
  stack: |-
    TestContext.<anonymous> (WS/version.test.js:18:10)
    Test.runInAsyncScope (node:async_hooks:206:9)
    Test.run (node:internal/test_runner/test:796:25)
  ...
# Subtest: outer
    not ok 1 - inner
      ---
      location: 'WS/version.test.js:30:3'
      error: 'boom'
      ...
not ok 4 - outer
  ---
  failureType: 'subtestsFailed'
  error: '1 subtest failed'
  ...
1..4
# pass 2
# fail 2
";

    #[test]
    fn failed_tests_are_read_with_their_assertion_line() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::write(ws.join("version.test.js"), "x\n").unwrap();
        let output = REPORT.replace("WS", &ws.to_string_lossy());
        let failures = parse_output("node --test", &output, ws);
        assert_eq!(failures.len(), 2, "{failures:#?}");
        let first = &failures[0];
        assert_eq!(first.kind, FailureKind::NodeTestFailure);
        assert_eq!(
            first.test.as_deref(),
            Some("multi-digit parts compare as numbers")
        );
        assert_eq!(
            first.message,
            "Expected values to be strictly equal: -1 !== 1 (expected 1, actual -1)"
        );
        let at = first.location.as_ref().unwrap();
        assert_eq!((at.file.as_str(), at.line), ("version.test.js", 18));
        assert_eq!(first.frames.len(), 1, "node's own frames name no file");
        let inner = &failures[1];
        assert_eq!(inner.test.as_deref(), Some("inner"));
        assert_eq!(inner.message, "boom");
        assert_eq!(inner.location.as_ref().unwrap().line, 30);
    }
}
