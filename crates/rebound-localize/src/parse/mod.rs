//! Check output read into [`Failure`]s: one file per format family. Each
//! parser claims the lines it used, so that a traceback inside a unittest
//! report is not read a second time as a bare traceback.

mod assertion;
mod cc;
mod data;
mod git;
mod gotest;
mod make;
mod panic;
mod pytest;
mod python;
mod rustc;
mod tap;
mod unittest;

use std::ops::Range;
use std::path::Path;

use super::failure::{Failure, FailureKind, Location, Place};
use super::paths::{read_workspace_file, Paths};
use super::text::{bounded_tail, Output};

/// How many of the output's last lines an [`FailureKind::Unknown`] failure
/// keeps.
pub const UNKNOWN_TAIL_LINES: usize = 50;

/// The longest message of an [`FailureKind::Unknown`] failure, in
/// characters (its last ones are kept).
pub const UNKNOWN_MAX_CHARS: usize = 4000;

/// The failures `output` shows, in the order it shows them. `command` is
/// the check's command (it names the data file a JSON, TOML or YAML error
/// is about, and the directory it `cd`s into); `workspace` is the root the
/// locations are made relative to (only file metadata is looked at here).
///
/// Output in no known format gives one [`FailureKind::Unknown`] failure
/// with its last [`UNKNOWN_TAIL_LINES`] lines. Empty (or blank) output gives
/// no failure at all: there is nothing to localize, and the caller already
/// knows from the exit code that the check failed.
pub fn parse(command: &str, output: &str, workspace: &Path) -> Vec<Failure> {
    let output = Output::new(output);
    if output.is_blank() {
        return Vec::new();
    }
    let context = Context::new(command, workspace);
    let lines = output.lines();
    let mut claims = Claims::new(lines.len());
    let parsers: [Parser; 12] = [
        unittest::parse,
        pytest::parse,
        tap::parse,
        gotest::parse,
        panic::parse,
        rustc::parse,
        python::parse,
        data::parse,
        cc::parse,
        make::parse,
        git::parse,
        assertion::parse,
    ];
    let mut found = Vec::new();
    for parser in parsers {
        found.extend(parser(lines, &mut claims, &context));
    }
    // Where a build ran the command whose errors these are (`make: ***
    // [Makefile:5: spread] Error 1`).
    let recipe = found
        .iter()
        .filter(|f| f.consequence)
        .find_map(|f| f.failure.location.clone());
    if found.iter().any(|f| !f.consequence) {
        found.retain(|f| !f.consequence);
        // Errors with no place of their own (the linker's `undefined
        // reference to `sqrt'` when the code is right and the link line
        // lacks `-lm`) are placed at the build rule that ran the command:
        // that is where the fix goes (found on dev: with no place, the
        // planner only looked, three plans in a row).
        if let Some(recipe) = recipe {
            if found.iter().all(|f| f.failure.location.is_none()) {
                for f in &mut found {
                    f.failure.location = Some(recipe.clone());
                }
            }
        }
    }
    found.sort_by_key(|f| f.line);
    let mut failures: Vec<Failure> = found.into_iter().map(|f| f.failure).collect();
    if failures.is_empty() {
        failures.push(unknown(lines));
    }
    for failure in &mut failures {
        failure.message = context.without_root(&failure.message);
    }
    failures
}

/// One parser: reads the unclaimed lines it recognises.
type Parser = fn(&[String], &mut Claims, &Context) -> Vec<Found>;

/// A failure a parser found.
#[derive(Debug)]
pub(crate) struct Found {
    /// The output line it starts on, for ordering.
    pub(crate) line: usize,
    /// The failure.
    pub(crate) failure: Failure,
    /// Whether it is only a consequence of other failures (`make: ***
    /// [all] Error 1` after a compiler error): dropped when there are
    /// others.
    pub(crate) consequence: bool,
}

impl Found {
    /// A failure found at output line `line`.
    pub(crate) fn at(line: usize, failure: Failure) -> Self {
        Found {
            line,
            failure,
            consequence: false,
        }
    }
}

/// Which output lines a parser has used.
#[derive(Debug)]
pub(crate) struct Claims(Vec<bool>);

impl Claims {
    fn new(len: usize) -> Self {
        Claims(vec![false; len])
    }

    /// Marks `range` as used.
    pub(crate) fn claim(&mut self, range: Range<usize>) {
        let end = range.end.min(self.0.len());
        for claimed in self.0.iter_mut().take(end).skip(range.start) {
            *claimed = true;
        }
    }

    /// Whether line `index` is used.
    pub(crate) fn is_claimed(&self, index: usize) -> bool {
        self.0.get(index).copied().unwrap_or(true)
    }
}

/// What the parsers know besides the output: the workspace's paths and the
/// command's words.
#[derive(Debug)]
pub(crate) struct Context {
    paths: Paths,
    /// The command whose output is read.
    command: String,
    /// The command's words that name a file, for data-file errors that do
    /// not name it.
    words: Vec<String>,
    root_prefixes: Vec<String>,
}

impl Context {
    fn new(command: &str, workspace: &Path) -> Self {
        let paths = Paths::new(workspace, command);
        let words = command
            .split(|c: char| !(c.is_alphanumeric() || matches!(c, '.' | '/' | '_' | '-')))
            .filter(|w| w.contains('.'))
            .map(str::to_string)
            .collect();
        let root_prefixes = paths.root_prefixes();
        Context {
            command: command.to_string(),
            paths,
            words,
            root_prefixes,
        }
    }

    /// A location at `printed`:`line`, made relative to the workspace.
    pub(crate) fn location(
        &self,
        printed: &str,
        line: u32,
        column: Option<u32>,
        function: Option<&str>,
    ) -> Location {
        let (file, place) = self.paths.resolve(printed);
        Location {
            file,
            line,
            column,
            function: function.map(str::to_string),
            place,
        }
    }

    /// Where a header the compiler could not find should be named to it:
    /// the line of the build file (a Makefile, a build script the command
    /// runs) where the compiler first runs, with a note saying where the
    /// workspace has the header, when it has it. `None` when the header
    /// is nowhere in the workspace (a missing `#include` of the code, a
    /// system header) or the command names no build file.
    pub(crate) fn include_path_fault(&self, message: &str) -> Option<(Location, String)> {
        let header = crate::build::missing_header(message)?;
        let build = crate::build::build_file(&self.command, self.paths.root())?;
        let dirs = crate::build::header_dirs(self.paths.root(), &header);
        let dir = dirs.first()?;
        let text = read_workspace_file(self.paths.root(), &build)?;
        let line = crate::build::first_compiler_line(&text, crate::build::is_makefile(&build))?;
        let shown = if dir.is_empty() { "." } else { dir.as_str() };
        let note = format!(
            "{header} is in {shown}/ of the workspace: the compiler's include path (-I) in {build} does not name it"
        );
        Some((self.location(&build, line, None, None), note))
    }

    /// Where a header the compiler could not find is a Makefile's to make:
    /// the workspace lacks it, the Makefile `make` reads has a rule that
    /// makes it (`version.h: VERSION`), and the rule for the object of
    /// `source` (the file whose `#include` failed) does not list it, so
    /// make compiles `source` before it makes the header. Located at that
    /// object's rule, with a note saying so. Found on dev: the edit went
    /// to the source the compiler named, which the goal protected, while
    /// the Makefile lacked one prerequisite.
    pub(crate) fn generated_header_fault(
        &self,
        message: &str,
        source: &str,
    ) -> Option<(Location, String)> {
        let header = crate::build::missing_header(message)?;
        let build = crate::build::build_file(&self.command, self.paths.root())?;
        if !crate::build::is_makefile(&build)
            || !crate::build::header_dirs(self.paths.root(), &header).is_empty()
        {
            return None;
        }
        let text = read_workspace_file(self.paths.root(), &build)?;
        let (object, made) = crate::build::header_rule_gap(&text, &header, source)?;
        let source = source.trim_start_matches("./");
        let note = format!(
            "{build} makes {header} (line {made}), but the rule on line {object} compiles {source} without listing {header} among its prerequisites, so make never makes it first"
        );
        Some((self.location(&build, object, None, None), note))
    }

    /// The first word of the command naming a file with one of
    /// `extensions` (`.json`), preferring one in the workspace.
    pub(crate) fn command_file(&self, extensions: &[&str]) -> Option<String> {
        let named: Vec<&String> = self
            .words
            .iter()
            .filter(|w| extensions.iter().any(|ext| w.ends_with(ext)))
            .collect();
        named
            .iter()
            .find(|w| self.paths.resolve(w).1 == Place::Workspace)
            .or(named.first())
            .map(|w| w.to_string())
    }

    /// The data file (with one of `extensions`) a program failed to
    /// parse: the one the command names, else the first workspace file the
    /// innermost workspace frame's source names (`open("settings.toml")`,
    /// or a comment about it).
    pub(crate) fn data_file(&self, extensions: &[&str], frames: &[Location]) -> Option<String> {
        if let Some(file) = self.command_file(extensions) {
            return Some(file);
        }
        let frame = frames.iter().rev().find(|f| f.place == Place::Workspace)?;
        let source = read_workspace_file(self.paths.root(), &frame.file)?;
        let base = std::path::Path::new(&frame.file)
            .parent()
            .unwrap_or(std::path::Path::new(""));
        source
            .split(|c: char| {
                c.is_whitespace()
                    || matches!(c, '"' | '\'' | '`' | '(' | ')' | ',' | '=' | '[' | ']')
            })
            .map(|word| word.trim_end_matches(['.', ':', ';']))
            .filter(|literal| extensions.iter().any(|ext| literal.ends_with(ext)))
            .find_map(|literal| {
                [std::path::PathBuf::from(literal), base.join(literal)]
                    .into_iter()
                    .find(|candidate| {
                        self.paths.resolve(&candidate.to_string_lossy()).1 == Place::Workspace
                    })
                    .map(|candidate| self.paths.resolve(&candidate.to_string_lossy()).0)
            })
    }

    /// `message` without the workspace root in front of its paths.
    fn without_root(&self, message: &str) -> String {
        let mut message = message.to_string();
        for prefix in &self.root_prefixes {
            message = message.replace(prefix.as_str(), "");
        }
        message
    }
}

/// The failure for output in no known format: its last lines.
fn unknown(lines: &[String]) -> Failure {
    let start = lines.len().saturating_sub(UNKNOWN_TAIL_LINES);
    let tail = lines[start..].join("\n");
    Failure::new(
        FailureKind::Unknown,
        bounded_tail(tail.trim(), UNKNOWN_MAX_CHARS),
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn empty_output_has_no_failure() {
        assert_eq!(parse("make", "", Path::new("/nonexistent")), []);
        assert_eq!(parse("make", " \n\n", Path::new("/nonexistent")), []);
    }

    #[test]
    fn unknown_output_keeps_its_last_fifty_lines() {
        let output: String = (1..=80).map(|n| format!("line {n}\n")).collect();
        let failures = parse("./run.sh", &output, Path::new("/nonexistent"));
        let expected: Vec<String> = (31..=80).map(|n| format!("line {n}")).collect();
        assert_eq!(
            failures,
            [Failure::new(FailureKind::Unknown, expected.join("\n"))]
        );
    }

    #[test]
    fn garbage_is_unknown_and_bounded() {
        let garbage: String = (0..20_000u32)
            .map(|n| char::from_u32((n * 7919) % 0xD000 + 1).unwrap_or('?'))
            .collect();
        let failures = parse("./bin", &garbage, Path::new("/nonexistent"));
        assert_eq!(failures.len(), 1);
        assert_eq!(failures[0].kind, FailureKind::Unknown);
        assert!(failures[0].message.chars().count() <= UNKNOWN_MAX_CHARS);
        assert!(!failures[0]
            .message
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t'));
    }

    #[test]
    fn command_files_prefer_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("b.json"), "{}").unwrap();
        let context = Context::new("python3 -m json.tool a.json b.json > /dev/null", dir.path());
        assert_eq!(context.command_file(&[".json"]).as_deref(), Some("b.json"));
        let context = Context::new(
            "python3 -c 'import sys, tomllib; tomllib.load(open(sys.argv[1], \"rb\"))' settings.toml",
            dir.path(),
        );
        assert_eq!(
            context.command_file(&[".toml"]).as_deref(),
            Some("settings.toml")
        );
        assert_eq!(context.command_file(&[".yaml"]), None);
    }

    #[test]
    fn a_data_file_is_found_in_the_program_that_loads_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("conf")).unwrap();
        std::fs::write(dir.path().join("conf/settings.toml"), "a = \n").unwrap();
        std::fs::write(
            dir.path().join("show.py"),
            "\"\"\"Shows the relay's settings.\"\"\"\nimport tomllib\nNAME = 'other.toml'\nwith open(\"conf/settings.toml\", \"rb\") as f:\n    tomllib.load(f)\n",
        )
        .unwrap();
        let context = Context::new("python3 show.py", dir.path());
        let frames = [
            context.location("show.py", 5, None, Some("<module>")),
            context.location(
                "/usr/lib/python3.11/tomllib/_parser.py",
                66,
                None,
                Some("load"),
            ),
        ];
        assert_eq!(
            context.data_file(&[".toml"], &frames).as_deref(),
            Some("conf/settings.toml"),
            "the literal naming a workspace file, not the one that is not there"
        );
        assert_eq!(context.data_file(&[".yaml"], &frames), None);
        assert_eq!(
            context.data_file(&[".toml"], &frames[1..]),
            None,
            "no workspace frame"
        );
    }
}
