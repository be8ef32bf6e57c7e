//! From failures to code: which definitions to show the model, and why.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::calls::{called_before_in_tree, called_in_tree};
use super::definitions::{enclosing_in_tree, Span};
use super::failure::{Failure, FailureKind, Location};
use super::find::{find_definitions, DefinitionSite};
use super::languages::{parse_source, Language};
use super::paths::read_workspace_file;
use super::test_files::is_test_code;
use super::window::Window;

/// The most failures located (the rest are rendered without code).
pub const MAX_FAILURES_LOCATED: usize = 10;

/// The most definitions a failed assertion's line leads to.
pub const MAX_CALLED_SUSPECTS: usize = 3;

/// Why a piece of code is suspected.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SuspectReason {
    /// The innermost frame of a traceback or panic in code under test.
    Frame,
    /// A name called on the failing line of a test, defined in code under
    /// test.
    Called {
        /// The name.
        name: String,
    },
    /// Where a compiler, a data-file parser or `make` reported the error.
    Reported,
    /// The failing test itself: nothing its failing line calls is defined
    /// in code under test.
    Test,
    /// The module of the workspace a failing import takes a name from,
    /// which does not define it (`cannot import name 'chunked' from
    /// 'listutils'`): the addition goes in that module's file.
    Missing {
        /// The name.
        name: String,
    },
}

/// Code a failure points at, with its window of lines.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Suspect {
    /// The index of its failure in the slice given to [`locate`].
    pub failure: usize,
    /// The file, relative to the workspace root.
    pub file: String,
    /// The line of interest (the frame's or error's line; a called
    /// definition's first line).
    pub line: u32,
    /// The enclosing definition, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub span: Option<Span>,
    /// Why it is suspected.
    pub reason: SuspectReason,
    /// Its lines.
    pub window: Window,
}

/// The code each failure points at, failure by failure (at most
/// [`MAX_FAILURES_LOCATED`] failures):
///
/// - a compiler, data-file or `make` error: the reported line's enclosing
///   definition (or the lines around it);
/// - a traceback or panic whose innermost frame in the workspace is code
///   under test: that frame's enclosing definition;
/// - a failed assertion in a test (the innermost frame is test code): the
///   definitions, in code under test, of the names its line calls
///   (`self.assertEqual(sub(5, 3), 2)` → `def sub`); when it calls none,
///   of the names the test called before it (`cart = Cart()` →
///   `class Cart`); the test itself when none is found.
///
/// Only files inside `workspace` are read; a failure whose locations are
/// all outside it (or gone) has no suspect and is rendered from its text.
pub fn locate(workspace: &Path, failures: &[Failure]) -> Vec<Suspect> {
    let leads: Vec<Lead> = failures
        .iter()
        .take(MAX_FAILURES_LOCATED)
        .map(|failure| lead(workspace, failure))
        .collect();
    // One walk of the workspace for every name the failing tests call.
    let mut names: Vec<String> = Vec::new();
    for lead in &leads {
        if let Lead::Calls {
            names: called,
            before,
            ..
        } = lead
        {
            for name in called.iter().chain(before) {
                if !names.contains(name) {
                    names.push(name.clone());
                }
            }
        }
    }
    let sites = find_definitions(workspace, &names);
    let mut suspects = Vec::new();
    for (index, lead) in leads.into_iter().enumerate() {
        let mut found = match lead {
            Lead::Found(found) => without_repeats(found),
            Lead::Calls {
                names,
                before,
                test,
            } => {
                let called = called_definitions(workspace, &names, &sites);
                if !called.is_empty() {
                    without_repeats(called)
                } else {
                    // What the test built before the failing line: a class
                    // it constructed stays beside the methods it called.
                    let mut earlier = called_definitions(workspace, &before, &sites);
                    let mut seen = std::collections::HashSet::new();
                    earlier.retain(|s| seen.insert((s.file.clone(), s.span.clone())));
                    if earlier.is_empty() {
                        vec![test]
                    } else {
                        earlier
                    }
                }
            }
        };
        for suspect in &mut found {
            suspect.failure = index;
        }
        suspects.extend(found);
    }
    suspects
}

/// What a failure leads to: suspects, or the names its failing test line
/// calls, then those the test called before it (for when the line calls
/// nothing under test), with the test itself for when none is defined in
/// code under test.
enum Lead {
    Found(Vec<Suspect>),
    Calls {
        names: Vec<String>,
        before: Vec<String>,
        test: Suspect,
    },
}

/// `found` without repeated code, and without a definition (a class)
/// around another one that is suspected (its method).
fn without_repeats(mut found: Vec<Suspect>) -> Vec<Suspect> {
    let mut seen = std::collections::HashSet::new();
    found.retain(|s| seen.insert((s.file.clone(), s.window.start_line, s.span.clone())));
    let kept: Vec<bool> = found
        .iter()
        .map(|outer| !found.iter().any(|inner| encloses(outer, inner)))
        .collect();
    found
        .into_iter()
        .zip(kept)
        .filter_map(|(suspect, kept)| kept.then_some(suspect))
        .collect()
}

/// Whether `outer`'s definition strictly contains `inner`'s, in one file.
fn encloses(outer: &Suspect, inner: &Suspect) -> bool {
    let (Some(o), Some(i)) = (&outer.span, &inner.span) else {
        return false;
    };
    outer.file == inner.file
        && o.start_line <= i.start_line
        && i.end_line <= o.end_line
        && (o.start_line, o.end_line) != (i.start_line, i.end_line)
}

/// Where one failure leads (its suspects' `failure` index not yet set).
fn lead(workspace: &Path, failure: &Failure) -> Lead {
    let reported = matches!(
        failure.kind,
        FailureKind::RustCompileError
            | FailureKind::CCompileError
            | FailureKind::GoCompileError
            | FailureKind::MakeError
            | FailureKind::JsonParseError
            | FailureKind::TomlParseError
            | FailureKind::YamlParseError
    );
    if reported {
        if let Some(location) = failure.location.as_ref().filter(|l| l.in_workspace()) {
            return Lead::Found(
                at_line(workspace, location, SuspectReason::Reported)
                    .into_iter()
                    .collect(),
            );
        }
    }
    if let Some(missing) = missing_from_module(workspace, failure) {
        return Lead::Found(vec![missing]);
    }
    let Some(frame) = failure
        .innermost_workspace_frame()
        .or(failure.location.as_ref().filter(|l| l.in_workspace()))
    else {
        return Lead::Found(Vec::new());
    };
    let Some(source) = read_workspace_file(workspace, &frame.file) else {
        return Lead::Found(Vec::new());
    };
    let at = |span, reason| suspect(&frame.file, frame.line, span, reason, &source);
    let Some((language, tree)) = Language::from_path(&frame.file)
        .and_then(|language| Some((language, parse_source(language, &source)?)))
    else {
        return Lead::Found(vec![at(None, SuspectReason::Frame)]);
    };
    let span = enclosing_in_tree(&tree, &source, language, frame.line);
    if !is_test_code(&frame.file, &tree, &source, language, frame.line) {
        return Lead::Found(vec![at(span, SuspectReason::Frame)]);
    }
    let first_line = span.as_ref().map_or(frame.line, |s| s.start_line);
    Lead::Calls {
        names: called_in_tree(&tree, &source, language, frame.line),
        before: called_before_in_tree(&tree, &source, language, first_line, frame.line),
        test: at(span, SuspectReason::Test),
    }
}

/// The module file a failing import takes a missing name from, when it
/// is a Python module of the workspace (`listutils` → `listutils.py`, a
/// package's `__init__.py`), not a test, that defines no such name: the
/// suspect is its last line, with no definition (found on dev: "add
/// `chunked` to listutils.py", and the import error in the test pointed
/// at the test alone, so the planner wrote a new file `chunked.py`).
fn missing_from_module(workspace: &Path, failure: &Failure) -> Option<Suspect> {
    let missing = super::undefined_name(failure)?;
    if missing.kind != super::NameKind::Identifier {
        return None;
    }
    let module = missing.module.as_deref()?.replace('.', "/");
    let file = [format!("{module}.py"), format!("{module}/__init__.py")]
        .into_iter()
        .find(|file| workspace.join(file).is_file())?;
    if super::is_test_file(&file) {
        return None;
    }
    let source = read_workspace_file(workspace, &file)?;
    let tree = parse_source(Language::Python, &source)?;
    let defined = super::definitions::named_definitions(&tree, &source, Language::Python)
        .into_iter()
        .any(|(_, span)| span.name == missing.name);
    if defined {
        return None;
    }
    let last = u32::try_from(source.lines().count().max(1)).unwrap_or(u32::MAX);
    Some(suspect(
        &file,
        last,
        None,
        SuspectReason::Missing { name: missing.name },
        &source,
    ))
}

/// The definitions in code under test of `names` among `sites`, in the
/// order the names are called.
fn called_definitions(
    workspace: &Path,
    names: &[String],
    sites: &[DefinitionSite],
) -> Vec<Suspect> {
    let mut suspects = Vec::new();
    for name in names {
        for site in sites.iter().filter(|s| !s.in_test && &s.span.name == name) {
            if suspects.len() >= MAX_CALLED_SUSPECTS {
                return suspects;
            }
            let Some(source) = read_workspace_file(workspace, &site.file) else {
                continue;
            };
            let reason = SuspectReason::Called { name: name.clone() };
            let span = Some(site.span.clone());
            suspects.push(suspect(
                &site.file,
                site.span.start_line,
                span,
                reason,
                &source,
            ));
        }
    }
    suspects
}

/// The suspect at `location`: its enclosing definition, or the lines
/// around it.
fn at_line(workspace: &Path, location: &Location, reason: SuspectReason) -> Option<Suspect> {
    let source = read_workspace_file(workspace, &location.file)?;
    let span = Language::from_path(&location.file)
        .and_then(|language| Some((language, parse_source(language, &source)?)))
        .and_then(|(language, tree)| enclosing_in_tree(&tree, &source, language, location.line));
    Some(suspect(
        &location.file,
        location.line,
        span,
        reason,
        &source,
    ))
}

/// A suspect with its window.
fn suspect(
    file: &str,
    line: u32,
    span: Option<Span>,
    reason: SuspectReason,
    source: &str,
) -> Suspect {
    let window = Window::around(source, span.as_ref(), line);
    Suspect {
        failure: 0,
        file: file.to_string(),
        line,
        span,
        reason,
        window,
    }
}
