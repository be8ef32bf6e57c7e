//! A check the planner proposes for a run that has none. With no check, a
//! finish would rest on the model's word; a check the agent writes itself
//! is weaker evidence than the user's, but it is evidence if it can tell
//! done from not done. So a proposal is adopted only when it runs and
//! fails before any change (while the workspace is as the run found it),
//! and only when it does not run a file the agent could write
//! afterwards. Once adopted it is fixed for the run (later
//! plans cannot swap it for an easier one), and the files it reads are
//! guarded like tests.

use std::path::Path;

use rebound_graph::{NodeContext, NodeError};

use super::{run_checks, Check, CheckRun, CheckSource, CheckWhen, Evidence};
use crate::events::{AgentEvent, Emit};
use crate::AgentDeps;

/// Longest proposed command accepted, in characters.
const MAX_COMMAND_CHARS: usize = 400;

/// Why a proposal made after the workspace changed is refused: whether it
/// fails for the goal's reason, on the workspace as the run found it
/// ([`Evidence::found`]), can no longer be seen.
pub const CHANGED_SINCE_FOUND: &str = "the workspace has changed since the run began, so it cannot be shown to fail before any change: a check is adopted only while the workspace is as the run found it";

/// Programs that, alone, only tell whether a file exists.
const EXISTENCE_ONLY: &[&str] = &["test", "[", "ls", "stat"];

/// The placeholders of the planner's request for a check
/// (`prompts/write_check.md`: `PROGRAM | grep -qxF 'LINE'`, `grep -qxF
/// 'LINE' FILE`): a check that contains one copied the example instead of
/// the goal, and looks for text nothing asks for. (Found on dev: with a
/// natural example, `grep -qx 'expected line' out.txt`, the small model
/// copied it whole in five runs, `go run . | grep -qx 'expected line'
/// out.txt` among them.)
pub const PROMPT_EXAMPLES: &[&str] = &["'LINE'", "PROGRAM |", "' FILE"];

/// The file the check request's example reads (`FILE`): a step that
/// writes it, in a run whose goal never names it, copied the example.
pub const EXAMPLE_FILE: &str = "FILE";

/// What considering a proposal gave: the run's evidence afterwards (with
/// the check adopted, or only the proposal counted), and whether the user
/// answered "approve all" while it ran.
#[derive(Debug, Clone)]
pub struct Considered {
    /// The evidence to keep.
    pub evidence: Evidence,
    /// The user approved all commands while the check ran.
    pub approved_all: bool,
}

/// Considers the planner's proposed check (`None`: it gave none): refuses
/// it unseen when it cannot be a fair check ([`refusal`]), else runs it
/// once and adopts it only if it fails now without changing any file. Emits
/// [`AgentEvent::CheckProposed`] for every proposal.
pub async fn consider(
    ctx: &NodeContext,
    deps: &AgentDeps,
    goal: &str,
    evidence: &Evidence,
    proposed: Option<&str>,
    approved_all: bool,
) -> Result<Considered, NodeError> {
    let counted = Evidence {
        proposals: evidence.proposals + 1,
        ..evidence.clone()
    };
    let not_adopted = |approved_all| Considered {
        evidence: counted.clone(),
        approved_all,
    };
    let Some(command) = proposed.map(str::trim).filter(|c| !c.is_empty()) else {
        return Ok(not_adopted(approved_all));
    };
    // `total.sh | grep ...` meant the project's own total.sh.
    let repaired = crate::bare_program::repaired(command, deps.workspace.workspace());
    let command = repaired.as_deref().unwrap_or(command);
    let unseen = if evidence.checks.iter().any(|c| c.command.trim() == command) {
        Some("the run has this check already: a proposal must test something the run's checks do not".to_string())
    } else {
        refusal(command, deps.workspace.workspace(), goal)
    };
    if let Some(reason) = unseen {
        refuse(ctx, command, reason);
        return Ok(not_adopted(approved_all));
    }
    if let Some(found) = evidence.found {
        if crate::unchanged::mark(deps.workspace.workspace()).await != found {
            refuse(ctx, command, CHANGED_SINCE_FOUND.to_string());
            return Ok(not_adopted(approved_all));
        }
    }
    let check = Check::new(command, CheckSource::Agent);
    let (run, changed) = trial(ctx, deps, &check, approved_all).await?;
    let approved_all = approved_all || run.approved_all;
    let Some(result) = run.results.first() else {
        return Ok(not_adopted(approved_all));
    };
    let problem = if changed {
        Some(
            "running it changes the workspace (a file, or git: a commit, a branch, a staged change): a check may only inspect, and this one does the work"
                .to_string(),
        )
    } else if result.passed {
        Some("it passes before any change, so it cannot tell done from not done".to_string())
    } else {
        cannot_run(result.exit_code, &result.output)
    };
    if let Some(reason) = problem {
        refuse(ctx, command, reason);
        return Ok(not_adopted(approved_all));
    }
    AgentEvent::CheckProposed {
        command: command.to_string(),
        adopted: true,
        reason: format!("it fails before any change ({})", result.headline()),
    }
    .emit(ctx);
    adopt(ctx, deps, counted, check, run, approved_all).await
}

/// Tells that a proposal was refused, and why.
fn refuse(ctx: &NodeContext, command: &str, reason: String) {
    AgentEvent::CheckProposed {
        command: command.to_string(),
        adopted: false,
        reason,
    }
    .emit(ctx);
}

/// Runs the proposed `check` once, before any change: its result, and
/// whether running it changed the workspace. It runs in a scratch copy
/// (with `.git`), so a "check" that does the work (`git commit`,
/// `> report.txt`) does nothing to the workspace, and any write it makes
/// is seen, down to a branch or a staged file. A workspace too big to
/// copy is checked in place, by its fingerprint.
async fn trial(
    ctx: &NodeContext,
    deps: &AgentDeps,
    check: &Check,
    approved_all: bool,
) -> Result<(CheckRun, bool), NodeError> {
    let workspace = deps.workspace.workspace();
    let scratch = crate::scratch::Scratch::copy(workspace)
        .and_then(|scratch| Ok((scratch.deps(deps)?, scratch)))
        .ok();
    let before = match &scratch {
        Some((_, scratch)) => crate::scratch::state(scratch.path()),
        None => super::fingerprint(workspace),
    };
    let run = run_checks(
        ctx,
        scratch.as_ref().map_or(deps, |(deps, _)| deps),
        std::slice::from_ref(check),
        CheckWhen::Start,
        approved_all,
    )
    .await?;
    let after = match &scratch {
        Some((_, scratch)) => crate::scratch::state(scratch.path()),
        None => run.fingerprint,
    };
    let run = CheckRun {
        fingerprint: super::fingerprint(workspace),
        ..run
    };
    Ok((run, after != before))
}

/// The evidence with `check` adopted beside the run's other checks (the
/// goal's conditions, detected ones), if any: they run again with it, so
/// the evidence keeps every check's result (an edit's baseline, the files
/// they read), not only the new one's. `run` is the new check's own.
async fn adopt(
    ctx: &NodeContext,
    deps: &AgentDeps,
    counted: Evidence,
    check: Check,
    run: CheckRun,
    approved_all: bool,
) -> Result<Considered, NodeError> {
    let mut checks = counted.checks.clone();
    checks.push(check);
    let (run, approved_all) = if checks.len() > 1 {
        let all = run_checks(ctx, deps, &checks, CheckWhen::Start, approved_all).await?;
        let approved_all = approved_all || all.approved_all;
        (all, approved_all)
    } else {
        (run, approved_all)
    };
    let mut adopted = Evidence { checks, ..counted }.after(&run);
    // The files the new check reads are guarded from now on, beside those
    // guarded since the checks first ran.
    for (path, hash) in &run.guarded {
        adopted.guarded.entry(path.clone()).or_insert(*hash);
    }
    Ok(Considered {
        evidence: adopted,
        approved_all,
    })
}

/// Why `command` cannot be a fair check of `goal` without running it:
/// more than one line or too long, it copies the request's example, it
/// reads a file that neither exists in `workspace` nor is named by the
/// goal (nothing will ever write it), or it runs a script (or program
/// path) that does not exist yet — the agent would write the check that
/// judges it — or it waits for a line the goal does not give
/// ([`invented_line`]).
pub fn refusal(command: &str, workspace: &Path, goal: &str) -> Option<String> {
    if command.contains('\n') || command.chars().count() > MAX_COMMAND_CHARS {
        return Some(format!(
            "a check is one command line of at most {MAX_COMMAND_CHARS} characters"
        ));
    }
    if let Some(example) = PROMPT_EXAMPLES.iter().find(|e| command.contains(*e)) {
        return Some(format!(
            "it copies the example `{example}` of the request instead of testing what the goal asks for"
        ));
    }
    if let Some(copied) = copied_sentence(command, goal) {
        return Some(format!(
            "it looks for the goal's own words (`{}`), which describe the task, not what a program prints or a file holds",
            crate::llm::shorten(&copied, 60)
        ));
    }
    // The trial in a scratch copy sees only the writes that run before the
    // check fails; one behind a part that fails now (`make clean && rm
    // app`: no `clean` target yet) would run in the workspace at every
    // later check (found trying the binary: such a proposal was adopted).
    if let Some(writer) = rebound_tools::approval::file_writer(command) {
        return Some(format!(
            "a part of it writes (`{writer}`): a check may only inspect, even after a part that fails now"
        ));
    }
    let compound = command.contains("&&") || command.contains('|') || command.contains(';');
    if super::goal::program(command).is_some_and(|p| EXISTENCE_ONLY.contains(&p)) && !compound {
        return Some(
            "it only tests that a file exists, not what it holds: check the content".to_string(),
        );
    }
    if let Some(script) = super::guard::script(command) {
        let script = script.trim_start_matches("./");
        if !workspace.join(script).exists() {
            return Some(format!(
                "it runs `{script}`, which does not exist yet: a check must not depend on a file the agent writes"
            ));
        }
    }
    named_files(command)
        .into_iter()
        .find(|file| !workspace.join(file).exists() && !goal.contains(file.as_str()))
        .map(|file| {
            format!(
                "it reads `{file}`, which does not exist and which the goal does not name: a check must test what the goal asks for"
            )
        })
        .or_else(|| {
            piped_grep_file(command).map(|file| {
                format!(
                    "a pipe feeds its `grep`, but grep reads `{file}` and never sees what the program prints: leave the file out"
                )
            })
        })
        .or_else(|| {
            alternatives(command).then(|| {
                "it passes when either side of its `||` does, so it can pass with part of the goal undone: a check requires everything it looks for (join them with `&&`)".to_string()
            })
        })
        .or_else(|| {
            invented_line(command, goal).map(|invented| {
                format!(
                    "it looks for `{}`, which the goal does not give: a check looks for a line the goal quotes or states, not one the agent made up",
                    crate::llm::shorten(&invented, 60)
                )
            })
        })
}

/// Whether `command` offers alternatives: two or more parts joined by a
/// top-level `||` (read by the approval policy's bash parser) each test
/// something (a `grep`, `test` or `[`), so
/// either passing passes it. A fallback that only reports a failure
/// (`... || exit 1`, `|| { echo missing; false; }`) is no alternative.
/// Found on dev: `go run main.go | grep -qxF 'Milk: 3 x 1.05 = 3.15' ||
/// go run main.go | grep -qxF 'total: 40.04'` was adopted, a fix of the
/// first line alone passed it, and the run claimed a receipt whose total
/// was still wrong.
fn alternatives(command: &str) -> bool {
    let tests = |part: &str| {
        let part = part.trim_start_matches(['(', '{', ' ', '!']);
        !grep_calls(part).is_empty()
            || part.starts_with("test ")
            || part.starts_with("[ ")
            || part.starts_with("[[ ")
    };
    rebound_tools::approval::or_operands(command)
        .unwrap_or_default()
        .into_iter()
        .filter(|span| tests(&command[span.clone()]))
        .count()
        >= 2
}

/// Characters that make a pattern a regular expression rather than a line
/// of text (after its escapes and anchors are taken off).
const PATTERN_SYNTAX: &[char] = &['[', ']', '*', '+', '?', '{', '}', '(', ')', '|'];

/// One `grep` of a check command, as far as the proposal rules read it.
#[derive(Debug, Default, PartialEq, Eq)]
struct GrepCall {
    /// A pipe feeds it (`program | grep ...`).
    piped: bool,
    /// `-x`: the pattern must be a whole line.
    whole_line: bool,
    /// `-F`: the pattern is text, not a regular expression.
    fixed: bool,
    /// The pattern, when it was quoted.
    quoted_pattern: Option<String>,
    /// The files it reads (its words after the pattern, redirections left out).
    files: Vec<String>,
}

/// The `grep` calls of `command`: each `grep` that starts a command (at
/// the start, or after a space, `|`, `;`, `&` or `(`), read up to its first
/// unquoted operator.
fn grep_calls(command: &str) -> Vec<GrepCall> {
    command
        .match_indices("grep ")
        .filter_map(|(at, _)| {
            let before = command[..at].trim_end();
            if !command[..at]
                .chars()
                .next_back()
                .is_none_or(|c| c.is_whitespace() || "|;&(".contains(c))
            {
                return None;
            }
            let mut call = GrepCall {
                piped: before.ends_with('|') && !before.ends_with("||"),
                ..GrepCall::default()
            };
            let mut words = words_until_operator(&command[at + "grep ".len()..]).into_iter();
            let (pattern, quoted) = loop {
                let (word, quoted) = words.next()?;
                if quoted || word.len() < 2 || !word.starts_with('-') {
                    break (word, quoted);
                }
                if word == "-e" {
                    break words.next()?;
                }
                call.fixed |=
                    word == "--fixed-strings" || (!word.starts_with("--") && word.contains('F'));
                call.whole_line |=
                    word == "--line-regexp" || (!word.starts_with("--") && word.contains('x'));
            };
            call.quoted_pattern = quoted.then_some(pattern);
            call.files = words
                .map(|(word, _)| word)
                .filter(|word| !word.starts_with(['>', '<']) && !word.starts_with("2>"))
                .collect();
            Some(call)
        })
        .collect()
}

/// The quoted whole line (`grep -x`) a grep of `command` waits for, when
/// it is plain text (`-F`, or no regular-expression syntax once its
/// escapes and `^`/`$` anchors are off) that the goal does not give: not
/// in its text, ignoring case and runs of spaces. The model made up what
/// the output should be, and a check that waits for it may never pass.
/// Found on dev, once the request showed `PROGRAM | grep -qxF 'LINE'`:
/// `python3 stats.py | grep -qxF 'median\(\[1, 2, 3, 4\]\) == 2.5'`
/// (stats.py prints nothing; the goal asked for a function) and `python3
/// -m json.tool hours.json | grep -qxF 'total_hours: 20.5'` were adopted,
/// as they failed before any change, and no fix could pass them.
fn invented_line(command: &str, goal: &str) -> Option<String> {
    let flat = |text: &str| {
        text.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let goal = flat(goal);
    grep_calls(command)
        .into_iter()
        .filter(|call| call.whole_line)
        .find_map(|call| {
            let pattern = call.quoted_pattern?;
            let line = if call.fixed {
                flat(&pattern)
            } else {
                flat(&plain_line(&pattern)?)
            };
            (line.chars().count() >= 2 && !goal.contains(&line)).then_some(pattern)
        })
}

/// The file a `grep` that a pipe feeds reads instead of the pipe
/// (`cargo run | grep -qxF 'the: 12' words.txt`): such a check never looks
/// at the program's output. Found on dev, adopted, as it failed before
/// any change; no fix could pass it.
fn piped_grep_file(command: &str) -> Option<String> {
    grep_calls(command)
        .into_iter()
        .filter(|call| call.piped)
        .find_map(|call| call.files.into_iter().next())
}

/// The words of `text` up to its first unquoted `|`, `;`, `&` or `)`, with
/// their quotes taken off, each with whether it was quoted.
fn words_until_operator(text: &str) -> Vec<(String, bool)> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut started = false;
    let mut quoted = false;
    let mut quote: Option<char> = None;
    for c in text.chars() {
        match quote {
            Some(open) if c == open => quote = None,
            Some(_) => word.push(c),
            None => match c {
                '\'' | '"' => {
                    quote = Some(c);
                    started = true;
                    quoted = true;
                }
                '|' | ';' | '&' | ')' => break,
                c if c.is_whitespace() => {
                    if started {
                        words.push((std::mem::take(&mut word), quoted));
                        started = false;
                        quoted = false;
                    }
                }
                c => {
                    word.push(c);
                    started = true;
                }
            },
        }
    }
    if started {
        words.push((word, quoted));
    }
    words
}

/// The line of text a regular expression matches when it is one: its `^`
/// and `$` anchors and escapes taken off; `None` when it has other syntax
/// ([`PATTERN_SYNTAX`]), as a format check's pattern has.
fn plain_line(pattern: &str) -> Option<String> {
    let bare = pattern.strip_prefix('^').unwrap_or(pattern);
    let bare = bare.strip_suffix('$').unwrap_or(bare);
    let mut text = String::new();
    let mut chars = bare.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => text.push(chars.next()?),
            c if PATTERN_SYNTAX.contains(&c) => return None,
            c => text.push(c),
        }
    }
    Some(text)
}

/// Words a quoted text of a check must have to count as a sentence copied
/// from the goal.
const COPIED_WORDS: usize = 6;

/// A text `command` quotes that is a sentence of the goal's prose (at
/// least [`COPIED_WORDS`] words, found in the goal but in none of its
/// quoted texts): the model copied the description of the task as the
/// output to expect. Found on dev: `python3 table.py | grep -qx 'Ashby
/// Town won all four of its games, ... yet its GD column shows -4 ...'`
/// was adopted, as it failed before any change, and could never pass.
fn copied_sentence(command: &str, goal: &str) -> Option<String> {
    let goal_quotes = super::phrases::quoted_texts(goal);
    super::phrases::quoted_texts(command)
        .into_iter()
        .find(|text| {
            text.split_whitespace().count() >= COPIED_WORDS
                && goal.contains(text.as_str())
                && !goal_quotes.iter().any(|q| q.contains(text.as_str()))
        })
}

/// The words of `command` that name files it reads: a plain word (not
/// quoted text, not an option, not a module after `-m`, not the target of
/// an output redirection, which the scratch run judges) with a name and
/// an extension that starts with a letter (`out.txt`, `src/a.py`; not
/// `3.10`).
fn named_files(command: &str) -> Vec<String> {
    let mut files = Vec::new();
    let mut skip_next = false;
    for word in command.split_whitespace() {
        let skipped = std::mem::replace(
            &mut skip_next,
            word == "-m" || (word.ends_with('>') && word.len() <= 3),
        );
        if skipped || word.contains('>') {
            continue;
        }
        let word = word.trim_start_matches('<');
        let word = word.strip_prefix("./").unwrap_or(word);
        if looks_like_file(word) {
            files.push(word.to_string());
        }
    }
    files
}

/// `name.ext` with path segments of letters, digits, `_`, `-`, `.`.
fn looks_like_file(word: &str) -> bool {
    let Some((stem, extension)) = word.rsplit_once('.') else {
        return false;
    };
    let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/');
    !stem.is_empty()
        && !stem.ends_with('/')
        && stem
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        && stem.chars().all(plain)
        && (1..=5).contains(&extension.len())
        && extension.starts_with(|c: char| c.is_ascii_alphabetic())
        && extension.chars().all(|c| c.is_ascii_alphanumeric())
}

/// Why a check that exited with `exit_code` and printed `output` could
/// never pass, whatever the agent does: it cannot start (126, 127, a
/// program not found), it is not valid shell or inline code, or it was
/// used wrongly (exit 2 with a usage message); `None` when it failed the
/// way a fair check fails.
fn cannot_run(exit_code: Option<i32>, output: &str) -> Option<String> {
    let lower = output.to_lowercase();
    match exit_code {
        Some(code @ (126 | 127)) => Some(format!("it cannot run (exit {code})")),
        _ if lower.contains("command not found") => {
            Some("a program it runs is not installed (command not found)".to_string())
        }
        Some(2) if lower.contains("syntax error") => {
            Some("it is not valid shell (a syntax error)".to_string())
        }
        Some(2)
            if USAGE_ERRORS.iter().any(|m| lower.contains(m))
                && !MISSING_FILE.iter().any(|m| lower.contains(m)) =>
        {
            Some(
                "it uses a program wrongly (exit 2 with a usage message): it could never pass"
                    .to_string(),
            )
        }
        Some(_) if inline_code_is_invalid(output) => Some(
            "the code it runs inline is not valid (a SyntaxError): it could never pass".to_string(),
        ),
        None => Some("it did not finish, or was not allowed to run".to_string()),
        Some(_) => None,
    }
}

/// What programs print when they are called wrongly (with exit code 2).
const USAGE_ERRORS: &[&str] = &[
    "usage:",
    "invalid option",
    "unrecognized option",
    "unknown option",
    "illegal option",
    "missing operand",
    "unexpected eof",
    "unexpected end of file",
];

/// What a usage message says when the program was called rightly on a
/// file that is not there yet (`python3 -m json.tool hours.json` exits 2
/// with its usage and "can't open 'hours.json'"): the file the goal asks
/// for is missing, a fair failure.
const MISSING_FILE: &[&str] = &[
    "no such file or directory",
    "can't open",
    "cannot open",
    "does not exist",
];

/// Whether `output` says the code a check passes inline (`python3 -c`,
/// `node -e`) does not parse: such a check fails whatever the agent does.
/// A syntax error in a file the inline code imports is the project's, not
/// the check's: the location before the error tells them apart.
fn inline_code_is_invalid(output: &str) -> bool {
    let mut inline = false;
    for line in output.lines().map(str::trim_start) {
        if line.starts_with("File \"") || line.starts_with("[eval]") {
            inline = line.starts_with("File \"<string>\"") || line.starts_with("[eval]");
        } else if line.starts_with("SyntaxError:") || line.starts_with("IndentationError:") {
            return inline;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::{cannot_run, inline_code_is_invalid, refusal};

    #[test]
    fn a_check_that_could_never_pass_is_told_from_a_fair_failure() {
        assert!(cannot_run(Some(127), "bash: pytets: command not found").is_some());
        assert!(cannot_run(Some(1), "sh: 1: jq: command not found").is_some());
        assert!(cannot_run(
            Some(2),
            "bash: -c: line 1: unexpected EOF while looking for matching `''"
        )
        .is_some());
        assert!(cannot_run(
            Some(2),
            "grep: invalid option -- 'y'\nUsage: grep [OPTION]..."
        )
        .is_some());
        assert_eq!(
            cannot_run(Some(2), "grep: report.txt: No such file or directory"),
            None,
            "the file the goal asks for is missing: a fair failure"
        );
        assert_eq!(
            cannot_run(
                Some(2),
                "usage: python -m json.tool [-h] [infile] [outfile]\npython -m json.tool: error: argument infile: can't open 'hours.json': [Errno 2] No such file or directory: 'hours.json'"
            ),
            None,
            "a usage message about the missing file the goal asks for: a fair failure"
        );
        assert_eq!(cannot_run(Some(1), "AssertionError"), None);
        assert!(cannot_run(None, "").is_some());
    }

    #[test]
    fn inline_code_that_does_not_parse_is_told() {
        let python = "  File \"<string>\", line 1\n    import os; for x in y: print(x)\n               ^^^\nSyntaxError: invalid syntax\n";
        assert!(inline_code_is_invalid(python));
        let node = "[eval]:1\nfor (;;\n      ^\n\nSyntaxError: Unexpected end of input\n";
        assert!(inline_code_is_invalid(node));
        let raised = "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\nAssertionError\n";
        assert!(
            !inline_code_is_invalid(raised),
            "it ran and failed: a fair check"
        );
        let module = "  File \"/w/app.py\", line 3\n    def f(:\nSyntaxError: invalid syntax\n";
        assert!(
            !inline_code_is_invalid(module),
            "the project's code: the agent fixes it"
        );
        let imported = format!("Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n{module}");
        assert!(
            !inline_code_is_invalid(&imported),
            "imported by the inline code"
        );
    }

    /// A goal naming the files the checks below read.
    const GOAL: &str = "Write out.txt, report.txt and errors_by_hour.txt; fix TODO.md";

    /// [`GOAL`], with the lines its checks look for.
    const LINES_GOAL: &str = "Write out.txt, report.txt and errors_by_hour.txt; fix TODO.md: it should have `src/a.py:3: fix` and `Total: 3`";

    #[test]
    fn a_check_that_looks_for_a_line_the_goal_does_not_give_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join("stats.py"),
            "def mean(v):\n    return sum(v) / len(v)\n",
        )
        .unwrap();
        let goal = "Add a function `median(values)` to stats.py that returns the median; `python3 report.py` should then print `median:  2.5` and a line with the count.";
        let invented = refusal(
            "python3 stats.py | grep -qxF 'median\\(\\[1, 2, 3, 4\\]\\) == 2.5'",
            root,
            goal,
        )
        .unwrap();
        assert!(invented.contains("the goal does not give"), "{invented}");
        assert!(refusal(
            "python3 -m json.tool stats.py | grep -qx '\"total_hours\": 20.5'",
            root,
            goal
        )
        .unwrap()
        .contains("does not give"));
        for given in [
            "python3 stats.py | grep -qxF 'MEDIAN: 2.5'",
            "python3 stats.py | grep -qx '^median: 2\\.5$'",
            "python3 stats.py && grep -q \"median(values)\" stats.py",
            "python3 stats.py | grep -qE '^[a-z]+: [0-9.]+$'",
            "python3 stats.py | grep -q count",
            "python3 stats.py | grep -c 'line' >/dev/null",
            "grep -q '^def median(values):' stats.py",
        ] {
            assert_eq!(refusal(given, root, goal), None, "{given}");
        }
        assert!(refusal("python3 stats.py|grep -qx 'median: 3'", root, goal).is_some());
        let ignored = refusal(
            "python3 stats.py | grep -qxF 'median: 2.5' stats.py",
            root,
            goal,
        )
        .unwrap();
        assert!(ignored.contains("grep reads `stats.py`"), "{ignored}");
        for fed in [
            "python3 stats.py | grep -qxF 'median: 2.5' 2>/dev/null",
            "python3 stats.py | grep -e 'median: 2.5' >/dev/null",
            "python3 stats.py | grep -qx 'median: 2.5' | wc -l",
            "grep -qx 'median: 2.5' stats.py || python3 stats.py",
            "python3 stats.py || grep -q 'count' stats.py",
        ] {
            assert_eq!(super::piped_grep_file(fed), None, "{fed}");
        }
        assert_eq!(
            super::invented_line("egrep -q 'x y z' stats.py", goal),
            None,
            "only grep itself"
        );
    }

    #[test]
    fn a_check_that_either_of_two_tests_passes_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("main.go"), "package main\n").unwrap();
        let goal = "Every amount must have two decimals, e.g. `Milk: 3 x 1.05 = 3.15` and a last line `total: 40.04`. Fix main.go.";
        let either = refusal(
            "go run main.go | grep -qxF 'Milk: 3 x 1.05 = 3.15' || go run main.go | grep -qxF 'total: 40.04' || exit 1",
            root,
            goal,
        )
        .unwrap();
        assert!(either.contains("either side"), "{either}");
        assert!(refusal("test -s out.txt || [ -f main.go ]", root, goal).is_some());
        for required in [
            "go run main.go | grep -qxF 'Milk: 3 x 1.05 = 3.15' && go run main.go | grep -qxF 'total: 40.04'",
            "go run main.go | grep -qxF 'total: 40.04' || exit 1",
            "go run main.go | grep -qxF 'total: 40.04' || { echo 'no total'; false; }",
            "go run main.go | grep -qE 'Milk|total: 40.04'",
            "go run main.go | grep -qxF 'a || b' main.go",
        ] {
            assert!(!super::alternatives(required), "{required}");
        }
    }

    #[test]
    fn a_check_that_writes_in_any_part_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("Makefile"), "app:\n\ttouch app\n").unwrap();
        let goal = "Add a clean target to the Makefile.";
        for writes in [
            "make clean && rm app && rm *.o",
            "test -f app || touch app",
            "sed -i 's/a/b/' Makefile; grep -q b Makefile",
            "git add -A && git diff --cached --quiet",
            "X=1 mv Makefile M",
        ] {
            let why = refusal(writes, root, goal);
            assert!(
                why.as_deref().is_some_and(|w| w.contains("writes")),
                "{writes}: {why:?}"
            );
        }
        for reads in [
            "make -n clean | grep -q 'rm -f app'",
            "grep -q '^clean:' Makefile 2>&1",
            "git branch --show-current | grep -qx main",
            "! git status --porcelain | grep .",
        ] {
            assert_eq!(refusal(reads, root, goal), None, "{reads}");
        }
    }

    #[test]
    fn a_check_that_reads_a_file_nothing_will_write_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("names.txt"), "Ana\n").unwrap();
        let goal = "Write greet.sh: it greets each name of names.txt.";
        let why = refusal("grep -qx 'Hello, Ana!' out.txt", root, goal).unwrap();
        assert!(why.contains("`out.txt`"), "{why}");
        assert!(refusal("grep -q Ana < greeting.log", root, goal).is_some());
        // A file it writes is refused as a write, not as a missing read.
        let why = refusal("ls > listing.txt && false", root, goal).unwrap();
        assert!(
            why.contains("writes") && !why.contains("does not exist"),
            "{why}"
        );
        assert_eq!(
            refusal("grep -q Ana names.txt", root, goal),
            None,
            "it exists"
        );
        assert!(
            refusal(
                "cat names.txt | grep -qx Ana && test -s greet.sh",
                root,
                goal
            )
            .is_none(),
            "greet.sh is the goal's"
        );
        assert_eq!(
            refusal("python3 -m json.tool names.txt", root, goal),
            None,
            "a module is not a file"
        );
        assert_eq!(
            refusal("python3.10 --version | grep -q 3.10", root, goal),
            None
        );
    }

    #[test]
    fn a_check_that_looks_for_the_goals_own_sentence_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("table.py"), "print(1)\n").unwrap();
        let goal = "The table printed by `python3 table.py` is wrong: Ashby Town won all four of its games, yet its GD column shows -4. It should print `Ashby Town 12 points and a goal difference of 6`.";
        let copied = "python3 table.py | grep -qx 'Ashby Town won all four of its games'";
        assert!(refusal(copied, dir.path(), goal)
            .unwrap()
            .contains("the goal's own words"));
        // The goal's quoted output is what to look for.
        let quoted =
            "python3 table.py | grep -qx 'Ashby Town 12 points and a goal difference of 6'";
        assert_eq!(refusal(quoted, dir.path(), goal), None);
        assert_eq!(
            refusal("python3 table.py | grep -q 'GD'", dir.path(), goal),
            None
        );
    }

    #[test]
    fn a_check_that_runs_a_missing_script_or_spans_lines_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("run_tests.sh"), "exit 1\n").unwrap();
        let root = dir.path();
        assert!(refusal("python3 check_todo.py", root, GOAL)
            .unwrap()
            .contains("check_todo.py"));
        assert!(refusal("./verify.sh", root, GOAL).is_some());
        assert!(refusal("bash -x new.sh", root, GOAL).is_some());
        assert!(refusal("grep -q a\nb", root, GOAL).is_some());
        assert!(refusal(&"x".repeat(500), root, GOAL).is_some());
        assert_eq!(refusal("bash run_tests.sh", root, GOAL), None, "it exists");
        assert_eq!(refusal("python3 -m unittest", root, GOAL), None);
        assert_eq!(
            refusal(
                "python3 -c \"import json; json.load(open('a.json'))\"",
                root,
                GOAL
            ),
            None
        );
        assert_eq!(
            refusal("grep -qx 'src/a.py:3: fix' TODO.md", root, LINES_GOAL),
            None
        );
        assert!(refusal("grep -qxF 'LINE' errors_by_hour.txt", root, GOAL)
            .unwrap()
            .contains("copies the example"));
        assert_eq!(
            refusal("grep -qx 'total: 3' out.txt", root, LINES_GOAL),
            None
        );
        for example in super::PROMPT_EXAMPLES {
            assert!(
                crate::prompts::WRITE_CHECK.contains(example),
                "{example} is the request's own example"
            );
        }
        assert!(refusal("test -s report.txt", root, GOAL)
            .unwrap()
            .contains("exists"));
        assert_eq!(
            refusal("test -s report.txt && grep -q total report.txt", root, GOAL),
            None
        );
    }
}
