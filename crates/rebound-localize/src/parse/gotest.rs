//! Go's reports: `go test`'s failed tests (`--- FAIL: TestParse (0.00s)`
//! and the `size_test.go:20: message` lines under it), panics (`panic:
//! …` and the `goroutine N [running]:` trace, innermost frame first), and
//! the compiler's and vet's errors (`calc/calc.go:4:13: undefined: c`).
//! `go test` names a test's file without its package directory, so a bare
//! name is looked up in the workspace when it is not at the root. Found
//! on dev: with Go's output unread, the failing test's line pointed at
//! nothing and no edit was planned from it.

use std::collections::HashMap;
use std::sync::LazyLock;

use regex::Regex;

use super::{Claims, Context, Found};
use crate::failure::{innermost_project_frame, Failure, FailureKind, Location, Place};
use crate::find::workspace_files;
use crate::text::{one_line, split_position};

/// `--- FAIL: TestParse (0.00s)`, indented for a subtest: the name is
/// group 1.
static FAIL: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^\s*--- FAIL: (\S+) \(\d+(?:\.\d+)?s\)\s*$").ok());

/// A test's report line, `    size_test.go:20: message`: the file is
/// group 1, the line group 2, the message group 3.
static REPORT: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^\s+([A-Za-z0-9_.-]+_test\.go):(\d+): (.*)$").ok());

/// A trace's place line, `\t/ws/calc/calc.go:8 +0x1b`.
static TRACE_PLACE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^\t(\S+\.go):(\d+)(?: \+0x[0-9a-f]+)?$").ok());

/// The most frames read from one trace.
const MAX_FRAMES: usize = 30;

/// The most lines of one report message.
const MAX_MESSAGE_LINES: usize = 6;

/// Reads the failed tests, panics and build errors.
pub(crate) fn parse(lines: &[String], claims: &mut Claims, context: &Context) -> Vec<Found> {
    let (Some(fail), Some(report)) = (FAIL.as_ref(), REPORT.as_ref()) else {
        return Vec::new();
    };
    let mut places = Places::new(context);
    let mut found = Vec::new();
    let mut test: Option<String> = None;
    let mut i = 0;
    while i < lines.len() {
        if claims.is_claimed(i) {
            i += 1;
            continue;
        }
        let line = &lines[i];
        if let Some(captures) = fail.captures(line) {
            test = captures.get(1).map(|m| m.as_str().to_string());
            claims.claim(i..i + 1);
            i += 1;
            continue;
        }
        if let Some(captures) = report.captures(line) {
            let indent = line.len() - line.trim_start().len();
            // A message's own lines are indented further.
            let mut end = i + 1;
            while end < lines.len()
                && end - i < MAX_MESSAGE_LINES
                && !lines[end].trim().is_empty()
                && lines[end].len() - lines[end].trim_start().len() > indent
                && !fail.is_match(&lines[end])
            {
                end += 1;
            }
            let file = captures.get(1).map_or("", |m| m.as_str());
            let number = captures
                .get(2)
                .and_then(|m| m.as_str().parse::<u32>().ok())
                .unwrap_or(1);
            let first = captures.get(3).map_or("", |m| m.as_str());
            let message =
                one_line(std::iter::once(first).chain(lines[i + 1..end].iter().map(|l| l.trim())));
            let mut failure = Failure::new(FailureKind::GoTestFailure, message);
            failure.test = test.clone();
            failure.location = Some(places.location(file, number, None, None));
            claims.claim(i..end);
            found.push(Found::at(i, failure));
            i = end;
            continue;
        }
        if let Some(message) = line.strip_prefix("panic: ") {
            let (failure, end) = panic(lines, i, message, test.clone(), &mut places);
            claims.claim(i..end);
            found.push(Found::at(i, failure));
            i = end;
            continue;
        }
        if let Some(failure) = build_error(line, &mut places) {
            claims.claim(i..i + 1);
            found.push(Found::at(i, failure));
        }
        i += 1;
    }
    found
}

/// A compiler's or vet's error line, `calc/calc.go:4:13: undefined: c`
/// (`vet: ` in front for vet; `./main.go` for `go build`).
fn build_error(line: &str, places: &mut Places<'_>) -> Option<Failure> {
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let text = line.strip_prefix("vet: ").unwrap_or(line);
    let (path, number, column, rest) = split_position(text)?;
    if !path.ends_with(".go") || column.is_none() {
        return None;
    }
    let message = rest.trim();
    if message.is_empty() {
        return None;
    }
    let mut failure = Failure::new(FailureKind::GoCompileError, one_line([message]));
    failure.location = Some(places.location(path, number, column, None));
    Some(failure)
}

/// The panic starting at line `start` (`panic: message`): its message,
/// and the trace's frames after `goroutine N [running]:` (innermost
/// first as Go prints them, kept outermost first); the index after it.
fn panic(
    lines: &[String],
    start: usize,
    message: &str,
    test: Option<String>,
    places: &mut Places<'_>,
) -> (Failure, usize) {
    let mut failure = Failure::new(
        FailureKind::GoPanic,
        one_line([message.trim_end_matches(" [recovered]")]),
    );
    failure.test = test;
    let mut i = start + 1;
    // The re-panic lines (`\tpanic: …`) and blank lines before the trace.
    while i < lines.len() && !lines[i].starts_with("goroutine ") && i - start < 8 {
        i += 1;
    }
    if !lines.get(i).is_some_and(|l| l.starts_with("goroutine ")) {
        return (failure, start + 1);
    }
    i += 1;
    let mut frames: Vec<Location> = Vec::new();
    while i + 1 < lines.len() && frames.len() < MAX_FRAMES {
        let function = &lines[i];
        let Some(place) = TRACE_PLACE.as_ref().and_then(|r| r.captures(&lines[i + 1])) else {
            break;
        };
        let path = place.get(1).map_or("", |m| m.as_str());
        let number = place
            .get(2)
            .and_then(|m| m.as_str().parse::<u32>().ok())
            .unwrap_or(1);
        frames.push(places.location(path, number, None, function_name(function)));
        i += 2;
    }
    frames.reverse();
    failure.location = innermost_project_frame(&frames);
    failure.frames = frames;
    (failure, i)
}

/// The function a trace line names, `example.com/samp/calc.At(...)` →
/// `At`, `main.(*Cart).Total(…)` → `Total`.
fn function_name(line: &str) -> Option<&str> {
    let call = line
        .trim()
        .strip_prefix("created by ")
        .unwrap_or(line.trim());
    let before_args = call.rsplit_once('(').map_or(call, |(name, _)| name);
    let name = before_args.rsplit('.').next()?;
    (!name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_')).then_some(name)
}

/// Locations in the workspace, with the files Go names bare (`size_test.go`,
/// printed without its package directory) looked up once per parse.
struct Places<'c> {
    context: &'c Context,
    /// Each bare name looked up: the workspace's one file of that name.
    bare: HashMap<String, Option<String>>,
}

impl<'c> Places<'c> {
    fn new(context: &'c Context) -> Self {
        Places {
            context,
            bare: HashMap::new(),
        }
    }

    /// The location of `printed`:`line`; a bare file name not at the root
    /// is the workspace's one file of that name.
    fn location(
        &mut self,
        printed: &str,
        line: u32,
        column: Option<u32>,
        function: Option<&str>,
    ) -> Location {
        let location = self.context.location(printed, line, column, function);
        if location.place != Place::Missing || printed.contains('/') {
            return location;
        }
        let root = self.context.paths.root();
        let only = self
            .bare
            .entry(printed.to_string())
            .or_insert_with(|| {
                let suffix = format!("/{printed}");
                let mut matches = workspace_files(root)
                    .filter_map(|entry| {
                        let relative = entry.path().strip_prefix(root).ok()?;
                        let relative = relative.to_string_lossy().replace('\\', "/");
                        relative.ends_with(&suffix).then_some(relative)
                    })
                    .take(2);
                match (matches.next(), matches.next()) {
                    (Some(only), None) => Some(only),
                    _ => None,
                }
            })
            .clone();
        match only {
            Some(only) => self.context.location(&only, line, column, function),
            None => location,
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use crate::failure::{FailureKind, Place};
    use crate::parse::parse;

    fn workspace() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("calc")).unwrap();
        std::fs::write(dir.path().join("calc/calc.go"), "package calc\n").unwrap();
        std::fs::write(dir.path().join("calc/calc_test.go"), "package calc\n").unwrap();
        dir
    }

    #[test]
    fn failed_tests_are_read_with_their_package_file() {
        let dir = workspace();
        let output = "--- FAIL: TestDiv (0.00s)\n    calc_test.go:7: Div(6, 3) = 2, want 3\n    --- FAIL: TestDiv/sub (0.00s)\n        calc_test.go:11: Div(1, 1) != 2\nFAIL\nFAIL\texample.com/samp/calc\t0.002s\nFAIL\n";
        let failures = parse("go test ./...", output, dir.path());
        assert_eq!(failures.len(), 2, "{failures:?}");
        assert_eq!(failures[0].kind, FailureKind::GoTestFailure);
        assert_eq!(failures[0].test.as_deref(), Some("TestDiv"));
        assert_eq!(failures[0].message, "Div(6, 3) = 2, want 3");
        let location = failures[0].location.clone().unwrap();
        assert_eq!(
            (location.file.as_str(), location.line),
            ("calc/calc_test.go", 7)
        );
        assert_eq!(location.place, Place::Workspace);
        assert_eq!(failures[1].test.as_deref(), Some("TestDiv/sub"));
    }

    #[test]
    fn a_panic_is_located_at_its_innermost_workspace_frame() {
        let dir = workspace();
        let root = dir.path().display();
        let output = format!("--- FAIL: TestAt (0.00s)\npanic: runtime error: index out of range [2] with length 2 [recovered]\n\tpanic: runtime error: index out of range [2] with length 2\n\ngoroutine 20 [running]:\ntesting.tRunner.func1.2({{0x518a00, 0xc0000d6078}})\n\t/usr/lib/go-1.19/src/testing/testing.go:1396 +0x24e\nexample.com/samp/calc.At(...)\n\t{root}/calc/calc.go:8\nexample.com/samp/calc.TestAt(0xc000098680?)\n\t{root}/calc/calc_test.go:17 +0x1b\ntesting.tRunner(0xc000098d00, 0x52f320)\n\t/usr/lib/go-1.19/src/testing/testing.go:1446 +0x10b\nFAIL\texample.com/samp/calc\t0.028s\n");
        let failures = parse("go test ./...", &output, dir.path());
        assert_eq!(failures.len(), 1, "{failures:?}");
        let failure = &failures[0];
        assert_eq!(failure.kind, FailureKind::GoPanic);
        assert_eq!(failure.test.as_deref(), Some("TestAt"));
        assert_eq!(
            failure.message,
            "runtime error: index out of range [2] with length 2"
        );
        let location = failure.location.clone().unwrap();
        assert_eq!(
            (
                location.file.as_str(),
                location.line,
                location.function.as_deref()
            ),
            ("calc/calc.go", 8, Some("At"))
        );
        assert_eq!(failure.frames.len(), 4);
        let test = &failure.frames[1];
        assert_eq!((test.file.as_str(), test.line), ("calc/calc_test.go", 17));
        let at = &failure.frames[2];
        assert_eq!(
            (at.file.as_str(), at.line, at.function.as_deref()),
            ("calc/calc.go", 8, Some("At"))
        );
    }

    #[test]
    fn build_and_vet_errors_are_read() {
        let dir = workspace();
        let output = "# example.com/samp/calc [example.com/samp/calc.test]\ncalc/calc.go:4:13: undefined: c\nnote: module requires Go 1.21\nFAIL\texample.com/samp/calc [build failed]\nFAIL\n";
        let failures = parse("go test ./...", output, dir.path());
        assert_eq!(failures.len(), 1, "{failures:?}");
        assert_eq!(failures[0].kind, FailureKind::GoCompileError);
        assert_eq!(failures[0].message, "undefined: c");
        let location = failures[0].location.clone().unwrap();
        assert_eq!(
            (location.file.as_str(), location.line, location.column),
            ("calc/calc.go", 4, Some(13))
        );
        let vet = parse(
            "go vet ./...",
            "# example.com/samp/calc\nvet: calc/calc.go:4:13: undeclared name: c\n",
            dir.path(),
        );
        assert_eq!(vet[0].kind, FailureKind::GoCompileError);
    }
}
