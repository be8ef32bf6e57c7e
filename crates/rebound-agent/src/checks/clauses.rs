//! Checks made from the goal's own words: clauses that say what done
//! looks like in a way the harness can observe. Each rule is a small
//! parser of one kind of clause, and turns it into a command built by the
//! harness (every value from the goal is single-quoted, never pasted into
//! the shell as code):
//!
//! - "`X` prints 'Y'", "./hello should print \"hello, world\"": run X and
//!   compare its output with Y ([`RULE_PRINTS`]);
//! - "`./wordstat a.txt` should print the counts" (words, not a quoted
//!   output): the command exits 0 and prints something
//!   ([`super::runs`]); weak;
//! - "commit ... with the message 'M'", "amend the message to 'M'": the
//!   last commit's subject is M ([`RULE_COMMIT_MESSAGE`]);
//! - "with pytest", "using cargo test": the named tool runs, as named
//!   (detection does not replace it with another runner) ([`RULE_RUNNER`]);
//! - "write report.txt ... one line per file, such as `a.log: 12`": the
//!   file exists and each of its lines has the example's shape
//!   ([`RULE_FILE_SHAPE`]). This one is weak: a file of the right shape
//!   can hold wrong values, so it must pass for a finish but cannot
//!   verify one alone;
//! - "undo it with git revert": the last commit is a revert (git's
//!   "This reverts commit" line), so fixing the code by hand does not pass
//!   for it ([`RULE_REVERT`]); weak: which commit was reverted is not
//!   read;
//! - "make settings.json valid JSON again without changing its values":
//!   the values the file holds when the run starts (read leniently, as
//!   JSON5: unquoted keys, single quotes, comments, trailing commas) are
//!   the values it must hold as JSON ([`RULE_SAME_VALUES`]); weak;
//! - "rename calc_total to order_total": the old name is gone from the
//!   source files of its language ([`super::rename`]); weak;
//! - "tag the current commit as v1.2.0, annotated, with the message
//!   'M'": the tag exists, of that kind, on that commit, with that
//!   message ([`super::tag`]); weak;
//! - "bring 'Fix rounding' onto main with git cherry-pick": a commit
//!   with that subject is on the current branch, and the named one is
//!   not (a copy, not a merge) ([`super::cherry_pick`]); weak;
//! - "a new branch named csv-export", "leave me on main", "a clean
//!   working tree": the branch exists, is checked out, nothing is
//!   uncommitted ([`super::branch`]); weak;
//! - "I deleted config/rates.json by mistake: bring it back": the file
//!   holds what it held before the commit that deleted it
//!   ([`super::restore`]); weak;
//! - "biggest total first", "in descending order", "lowest first": the
//!   written file's lines are in that order by the last number on each
//!   ([`RULE_FILE_ORDER`]; a first line with no number is a header);
//!   weak too;
//! - a table's header, row order and ISO dates ([`super::table`]); weak;
//! - "undo the last commit, keep its changes staged": `HEAD` its parent,
//!   the changes where the goal keeps them ([`super::uncommit`]); weak;
//! - "stop tracking .env but keep it on disk", "fix that commit so .env
//!   is not in it": out of the index (and of every commit, for a
//!   rewrite), on disk as it was, ignored when asked
//!   ([`super::untrack`]); weak;
//! - "first commit only the parse_timeout fix in fetch.py with the
//!   message 'A'; then everything else as 'B'": two commits, the first
//!   with that definition's changes only ([`super::split`]); weak;
//! - a merge git stopped with conflicts: resolved, and committed when
//!   the goal says so ([`super::merge`]); weak;
//! - "`X` prints `min: 0.0` although the coldest day was 3.5": the
//!   output shows `min: 3.5` ([`super::corrected`]); weak;
//! - "convert a.csv to a.json ... the first element should be: {...}":
//!   the file holds that element, types included
//!   ([`super::json_example`]); weak.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

pub(crate) use super::phrases::{
    asked_file, commit_id_words, is_file_name, output_file, path_words, quoted_messages,
    quoted_texts, quoted_value, safe_path, subject_named, MessageOwner, PRINT_VERB, PROGRAM_PRINTS,
    QUOTED_TEXT, SENTENCE_END,
};
pub use super::phrases::{file_order, single_quote, Order};
pub use super::protected::protected_files;
use super::{Check, CheckSource};

/// The rule of "X prints 'Y'".
pub const RULE_PRINTS: &str = "prints";
/// The rule of "commit with the message 'M'".
pub const RULE_COMMIT_MESSAGE: &str = "commit message";
/// The rule of "with pytest" (a named test runner).
pub const RULE_RUNNER: &str = "named runner";
/// The rule of "a file F with lines such as `...`".
pub const RULE_FILE_SHAPE: &str = "file shape";

/// The rule of a file the goal asks for that the workspace lacks: it must
/// be written, and not empty.
pub const RULE_FILE_WRITTEN: &str = "file written";

/// The rule of "with git revert" (the last commit is a revert).
pub const RULE_REVERT: &str = "git revert";

/// The last commit is one `git revert` made: its message has git's
/// "This reverts commit <id>." line.
pub(crate) const REVERT_CHECK: &str =
    "git log -1 --format=%B | grep -q '^This reverts commit [0-9a-f]'";

/// "git revert", "`git revert`", "revert it with git": the goal names the
/// tool that undoes a commit by a new one.
static REVERT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\bgit\s+revert\b|\brevert\b[^.;\n]{0,40}\bwith\s+git\b").ok()
});

/// Words about the code's structure, which tests do not show: "refactor",
/// "extract ... into one function", "instead of repeating the code",
/// "defined in one place", "move ... into a new module".
static STRUCTURE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\brefactor\w*|\bextract\b[^.;\n]{0,80}\binto\b[^.;\n]{0,40}\b(?:function|method|helper|class|module)|\binstead\s+of\s+(?:repeating|duplicating|copying)\b|\bin\s+one\s+place\b|\bmove\b[^.;\n]{0,60}\binto\s+(?:a\s+)?new\s+(?:module|file)\b").ok()
});

/// The goal's first words about the code's structure (see [`STRUCTURE`]),
/// if any: a finish its tests pass is still unverified, for they show what
/// the code does, not how it is arranged.
pub fn structure_clause(goal: &str) -> Option<String> {
    STRUCTURE
        .as_ref()?
        .find(goal)
        .map(|m| m.as_str().to_string())
}

/// Words that put a commit somewhere its message does not show, besides
/// an amend: a branch, a merge, a rebase, a tag.
static COMMIT_PLACE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\bbranch(?:es)?\b|\bmerg(?:e|es|ing)\b|\brebas(?:e|ing)\b|\bcherry-pick|\bcheckout\b|\bswitch\b|\btag\b").ok()
});

/// "amend", "amending", "amended": the last commit is rewritten, not a
/// new one made.
static AMEND: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"(?i)\bamend\w*").ok());

/// "commit all my changes", "commit my current changes to parse.py",
/// "commit the staged changes", "commit everything": the commit's object
/// is work the user already has, not work the run is to do.
static COMMIT_OF_USERS_WORK: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\bcommit\s+(?:(?:all\s+(?:of\s+)?)?(?:my|your|our)\s+|all\s+(?:of\s+)?(?:the\s+)?|(?:the|these)\s+(?:current|uncommitted|staged|pending|outstanding|local)\s+)(?:current\s+|uncommitted\s+|staged\s+|pending\s+|outstanding\s+|local\s+)*(?:changes|work|edits|files)\b|\bcommit\s+everything\b").ok()
});

/// Whether the last commit's message (or subject) proves a goal that asks
/// for a commit with it: only when the commit is of work the user already
/// has ([`COMMIT_OF_USERS_WORK`]) and the goal says nothing of where it
/// goes ([`names_commit_place`]). A commit of the run's own work ("stop
/// tracking .env, ... and commit that with the message 'M'") shows by its
/// message that a commit was made, not that the work in it was done: the
/// message's check is then a condition. Found on test as a false success:
/// `.env` was overwritten instead of untracked, committed with the right
/// message, and that message verified the finish.
pub fn message_proves(goal: &str) -> bool {
    !names_commit_place(goal)
        && COMMIT_OF_USERS_WORK
            .as_ref()
            .is_some_and(|regex| regex.is_match(goal))
}

/// Whether the goal says where a commit goes beyond its message (a
/// branch, an amend, ...): then the last commit's message cannot prove
/// the goal alone, and the harness does not make the commit.
pub fn names_commit_place(goal: &str) -> bool {
    names_amend(goal) || names_place_besides_amend(goal)
}

/// Whether the goal asks to amend the last commit.
pub fn names_amend(goal: &str) -> bool {
    AMEND.as_ref().is_none_or(|regex| regex.is_match(goal))
}

/// Whether the goal names a branch, a merge, a rebase or a tag.
pub(crate) fn names_place_besides_amend(goal: &str) -> bool {
    COMMIT_PLACE
        .as_ref()
        .is_none_or(|regex| regex.is_match(goal))
}

/// The rule of "without changing its values" (a JSON file's values kept).
pub const RULE_SAME_VALUES: &str = "same values";

/// "without changing (any of) its values", "keeping its values": group 0.
static SAME_VALUES: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:without\s+(?:changing|altering|losing|touching)|keep(?:ing)?|preserv(?:e|ing))\s+(?:any\s+of\s+|all\s+(?:of\s+)?)?(?:its|their|the|any)\s+(?:values|data|settings)\b",
    )
    .ok()
});

/// Longest JSON text of the values a check compares a file with, inline
/// in its command.
const MAX_VALUES_CHARS: usize = 2_000;

/// The files whose values the goal says to keep, with those values as
/// compact JSON: each `.json` file of `workspace` the goal names, read as
/// JSON5 (a superset a hand-edited file usually still is) when the goal
/// has a [`SAME_VALUES`] clause.
fn kept_values(goal: &str, workspace: &Path) -> Vec<(String, String)> {
    if !SAME_VALUES.as_ref().is_some_and(|r| r.is_match(goal)) {
        return Vec::new();
    }
    let mut kept: Vec<(String, String)> = Vec::new();
    for file in path_words(goal) {
        let is_json = file.len() > ".json".len() && file.ends_with(".json");
        if !is_json || kept.iter().any(|(f, _)| f == file) {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(workspace.join(file)) else {
            continue;
        };
        let Ok(values) = json5::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        let Ok(compact) = serde_json::to_string(&values) else {
            continue;
        };
        if compact.len() <= MAX_VALUES_CHARS {
            kept.push((file.to_string(), compact));
        }
    }
    kept
}

/// The check that `file` parses as JSON and holds `values` (compact JSON).
fn same_values_check(file: &str, values: &str) -> String {
    format!(
        "python3 -c 'import json, sys; sys.exit(0 if json.load(open(sys.argv[1])) == json.loads(sys.argv[2]) else sys.argv[1] + \": the values differ from those it held before\")' {file} {}",
        single_quote(values)
    )
}

/// The rule of "biggest first" / "in ascending order" (the order of a
/// written file's lines).
pub const RULE_FILE_ORDER: &str = "file order";

/// "`X` prints 'Y'" or "./x prints 'Y'", with a few words allowed between
/// the program and the verb ("should", "then", "now").
pub(super) static PRINTS: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(&format!(
        r"{PROGRAM_PRINTS}{PRINT_VERB}\s+(?:exactly\s*|out\s+)?:?\s*{QUOTED_TEXT}"
    ))
    .ok()
});

/// "`git describe` should print v1.2.0", "`./count` prints 42": a value
/// with a digit, unquoted, as the whole of what is printed (group 3).
static PRINTS_TOKEN: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(&format!(
        r"{PROGRAM_PRINTS}{PRINT_VERB}\s+(?:exactly\s+)?([A-Za-z]{{0,3}}[0-9][A-Za-z0-9_.:+-]*?)(?:[.;!](?:\s|$)|$)"
    ))
    .ok()
});

/// "`X` must print exactly:" at a line's end, then the expected output as
/// the block of lines after it (up to a blank line), or a fenced block.
static PRINTS_BLOCK: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(&format!(
        r"{PROGRAM_PRINTS}{PRINT_VERB}(?:\s+(?:exactly|this|the\s+following|these\s+lines))*\s*:[ \t]*\n(?:[ \t]*\n)*(```[^\n]*\n(?s:.*?)\n```|(?:[^\n]*\S[^\n]*(?:\n|$))+)"
    ))
    .ok()
});

/// An example line: "such as `X`", "e.g. `X`", "like `X`", "for example:
/// `X`".
static EXAMPLE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)(?:such\s+as|e\.g\.|e\.g|for\s+example|for\s+instance|like|example|in\s+the\s+form(?:at)?(?:\s+of)?|formatted\s+as|in\s+the\s+format)[:,]?\s*{QUOTED_TEXT}"
    ))
    .ok()
});

/// The command that passes when `file` is not empty and the last number
/// of each of its non-blank lines goes in `order`. A failure says which
/// line broke the order and what the order is: a program repaired from
/// the check's output sees what to change (found on dev: three programs
/// in a row wrote the totals unsorted, each shown only that the check
/// failed, with no output).
fn order_check(file: &str, order: Order) -> String {
    let (wrong, rule) = match order {
        Order::Descending => (">", "from the biggest number to the smallest"),
        Order::Ascending => ("<", "from the smallest number to the biggest"),
    };
    format!(
        "test -s {file} && awk '/[^[:space:]]/ {{ s = $0; gsub(/[^0-9.-]+/, \" \", s); k = split(s, a, \" \"); if (k == 0) {{ if (NR == 1) next; printf \"%s line %d has no number: %s\\n\", FILENAME, NR, $0; bad = 1; exit 1 }} n = a[k] + 0; if (seen && n {wrong} prev) {{ bad = 1; printf \"%s is out of order at line %d: %s after %s; its lines must go {rule}\\n\", FILENAME, NR, a[k], last; exit 1 }} prev = n; last = a[k]; seen = 1 }} END {{ if (!bad && !seen) {{ printf \"%s has no line with a number\\n\", FILENAME; exit 1 }} }}' {file}"
    )
}

/// The checks the clauses of `goal` make (see the module's doc), for the
/// workspace `workspace`: each at most once.
pub fn clause_checks(goal: &str, workspace: &Path) -> Vec<Check> {
    // The file the goal asks for, as the goal names it or as the one new
    // data file beside the data it names (read now, at the start).
    let asked = asked_file(goal, workspace);
    let mut checks: Vec<Check> = Vec::new();
    let mut add = |command: String, rule: &str, proves: bool| {
        if !checks.iter().any(|c| c.command == command) {
            checks.push(Check::new(
                command,
                CheckSource::Clause {
                    rule: rule.to_string(),
                    proves,
                },
            ));
        }
    };
    for (program, expected) in prints(goal) {
        // The last commit's subject proves no more than a commit message
        // does ([`message_proves`]).
        let proves = !shows_last_subject(&program) || message_proves(goal);
        let check = built_first(&program, workspace, prints_check(&program, &expected));
        add(check, RULE_PRINTS, proves);
    }
    let lines = super::output_lines::output_lines(goal);
    for expected in &lines {
        let check = super::output_lines::output_lines_check(expected);
        let check = built_first(&expected.program, workspace, check);
        add(check, super::output_lines::RULE_OUTPUT_LINES, true);
    }
    for corrected in super::corrected::corrected(goal, workspace) {
        let check = super::corrected::corrected_check(&corrected);
        let check = built_first(&corrected.program, workspace, check);
        add(check, super::corrected::RULE_CORRECTED, false);
    }
    if let Some(message) = commit_message(goal) {
        let proves = message_proves(goal);
        add(commit_message_check(&message), RULE_COMMIT_MESSAGE, proves);
    }
    if let Some(runner) = named_runner(goal, workspace) {
        add(runner, RULE_RUNNER, true);
    }
    for (file, values) in kept_values(goal, workspace) {
        add(same_values_check(&file, &values), RULE_SAME_VALUES, false);
    }
    if REVERT.as_ref().is_some_and(|revert| revert.is_match(goal)) {
        add(REVERT_CHECK.to_string(), RULE_REVERT, false);
    }
    if let Some((file, shape)) = asked.clone().and_then(|f| file_shape_in(goal, f)) {
        add(
            format!(
                // `-e`: a shape that starts with `-` is not an option.
                "test -s {file} && ! grep -vxE -e {} {file}",
                single_quote(&shape)
            ),
            RULE_FILE_SHAPE,
            false,
        );
    }
    let printed = prints(goal);
    for command in super::runs::described_outputs(goal, workspace) {
        // A program whose output the goal quotes has its prints check.
        if !printed.iter().any(|(program, _)| *program == command)
            && !lines.iter().any(|expected| expected.program == command)
        {
            add(
                super::runs::runs_check(&command),
                super::runs::RULE_RUNS,
                false,
            );
        }
    }
    if let Some(check) = super::rename::rename_check(goal, workspace) {
        add(check, super::rename::RULE_RENAME, false);
    }
    if let Some(pick) = super::cherry_pick::pick_goal(goal, workspace) {
        add(
            super::cherry_pick::pick_check(&pick),
            super::cherry_pick::RULE_CHERRY_PICK,
            false,
        );
    }
    for (command, rule) in super::branch::branch_checks(goal, workspace) {
        add(command, rule, false);
    }
    for restore in super::restore::restore_goals(goal, workspace) {
        add(
            super::restore::restore_check(&restore),
            super::restore::RULE_RESTORE,
            false,
        );
    }
    if let Some(uncommit) = super::uncommit::uncommit_goal(goal, workspace) {
        add(
            super::uncommit::uncommit_check(&uncommit),
            super::uncommit::RULE_UNCOMMIT,
            false,
        );
    }
    if let Some(untrack) = super::untrack::untrack_goal(goal, workspace) {
        add(
            super::untrack::untrack_check(&untrack),
            super::untrack::RULE_UNTRACK,
            false,
        );
    }
    if let Some(split) = super::split::split_goal(goal, workspace) {
        add(
            super::split::split_check(&split),
            super::split::RULE_SPLIT,
            false,
        );
    }
    if let Some(check) = super::merge::merge_check(goal, workspace) {
        add(check, super::merge::RULE_MERGE, false);
    }
    if let Some(tag) = super::tag::tag_goal(goal) {
        add(super::tag::tag_check(&tag), super::tag::RULE_TAG, false);
    }
    let table = asked
        .as_deref()
        .and_then(|file| super::table::table_goal_for(goal, workspace, file));
    if let Some(table) = &table {
        add(
            super::table::table_check(table),
            super::table::RULE_TABLE,
            false,
        );
    }
    if let Some((file, order)) = asked
        .clone()
        .and_then(|f| super::phrases::file_order_in(goal, f))
    {
        // A table's order is its check's: by its columns, past its header.
        if !table
            .as_ref()
            .is_some_and(|t| t.file == file && !t.keys.is_empty())
        {
            add(order_check(&file, order), RULE_FILE_ORDER, false);
        }
    }
    for (command, rule) in asked
        .as_deref()
        .map(|f| super::lines::line_checks_in(goal, f))
        .unwrap_or_default()
    {
        add(command, rule, false);
    }
    if let Some((file, example, position)) = asked
        .clone()
        .and_then(|f| super::json_example::json_example_in(goal, f))
    {
        add(
            super::json_example::json_example_check(&file, &example, position),
            super::json_example::RULE_JSON_EXAMPLE,
            false,
        );
    }
    if let Some(file) = asked {
        // A file the goal asks for and no rule above reads: that it is
        // written at all, with something in it (found on dev: a program
        // wrote TODO.md empty, and with no check the run finished).
        let read = checks
            .iter()
            .any(|c| c.command.contains(&format!("test -s {file} ")));
        if !read && !workspace.join(&file).exists() {
            checks.push(Check::new(
                format!(
                    "test -s {file} || {{ echo '{file} is missing or empty: the goal asks for it, with content'; false; }}"
                ),
                CheckSource::Clause {
                    rule: RULE_FILE_WRITTEN.to_string(),
                    proves: false,
                },
            ));
        }
    }
    checks
}

/// The (program, expected output) pairs of the goal's "X prints 'Y'"
/// clauses. The program is a command the goal quotes in backticks or a
/// `./path`; an empty expected output is skipped.
pub fn prints(goal: &str) -> Vec<(String, String)> {
    let (Some(inline), Some(block)) = (PRINTS.as_ref(), PRINTS_BLOCK.as_ref()) else {
        return Vec::new();
    };
    let inline = inline.captures_iter(goal).filter_map(|c| {
        let first = quoted_value(&c, 3)?;
        let end = c.get(0)?.end();
        if tells_the_bug(c.get(0)?.as_str(), &goal[end..]) {
            return None;
        }
        Some((
            c.get(1).or_else(|| c.get(2))?,
            listed_lines(first, &goal[end..])?,
        ))
    });
    let tokens = PRINTS_TOKEN.as_ref().into_iter().flat_map(|token| {
        token.captures_iter(goal).filter_map(|c| {
            Some((
                c.get(1).or_else(|| c.get(2))?,
                c.get(3)?.as_str().to_string(),
            ))
        })
    });
    let described = PRINTS_DESCRIBED.as_ref().into_iter().flat_map(|described| {
        described.captures_iter(goal).filter_map(|c| {
            let program = c.get(1).or_else(|| c.get(2))?;
            if tells_the_bug(c.get(0)?.as_str(), &goal[c.get(0)?.end()..]) {
                return None;
            }
            let (values, per_line, _) = listed(quoted_value(&c, 3)?, &goal[c.get(0)?.end()..]);
            // Only a list of lines: one quoted value after a description
            // may be an example, not the whole output.
            (values.len() > 1 && per_line).then(|| (program, values.join("\n")))
        })
    });
    let blocks = block.captures_iter(goal).filter_map(|c| {
        let program = c.get(1).or_else(|| c.get(2))?;
        Some((program, block_value(c.get(3)?.as_str())?))
    });
    inline
        .chain(tokens)
        .chain(described)
        .chain(blocks)
        .filter_map(|(program, expected)| {
            let program = printing_program(program.as_str())?;
            (!expected.trim().is_empty()).then_some((program, expected))
        })
        .collect()
}

/// "although", "but", "instead of", "whereas" right after a printed
/// value: the clause tells what the program prints now, wrongly ("`bash
/// tempstats.sh temps.csv` prints `min: 0.0` although the coldest day was
/// 3.5"), not what it should print. Found on dev: that output was made the
/// run's expected output, a check only a wrong program could pass.
static CONTRAST: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*[,;]?\s*(?:although|though|even\s+though|but|whereas|while|yet|instead\s+of|when\s+it\s+should|where\s+it\s+should)\b").ok()
});

/// What a program should do: "should print", "must output", "to print".
static ASKED: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:should|must|will|shall|needs?\s+to|has\s+to|to|correctly)\s+(?:\w+\s+)?(?:print|prints|output|outputs|display|displays|echo|echoes)\b").ok()
});

/// Whether a "prints" clause (`clause`, the text matched) tells the bug:
/// said as what the program does, not what it should do ([`ASKED`]), and
/// followed by a contrast ([`CONTRAST`]) in `after`.
fn tells_the_bug(clause: &str, after: &str) -> bool {
    !ASKED.as_ref().is_none_or(|regex| regex.is_match(clause))
        && CONTRAST.as_ref().is_none_or(|regex| regex.is_match(after))
}

/// The command a "prints" clause names, as it is run: trimmed, without a
/// sentence's `.` or `,` after it; `None` when empty or a bare source
/// file's name (`calc.py` cannot be run as it is).
pub(super) fn printing_program(text: &str) -> Option<String> {
    let program = text.trim().trim_end_matches(['.', ',']);
    (!program.is_empty() && !is_file_name(program)).then(|| program.to_string())
}

/// "prints `a`, `b` and `c` (one per line)": more quoted values listed
/// after the `first` (in `rest`, the goal after it) are more lines of
/// the output, when the goal says they are one per line; a list whose
/// layout the goal does not say gives no expected output (a check of
/// the first value alone could never pass). `first` alone otherwise.
fn listed_lines(first: String, rest: &str) -> Option<String> {
    let (mut values, per_line, at) = listed(first, rest);
    if super::output_lines::ends_with_next(&rest[at..]) {
        // "prints `a` and ends with `b`": lines of a longer output
        // ([`super::output_lines`]), not the whole of it.
        return None;
    }
    if values.len() == 1 {
        return values.pop();
    }
    per_line.then(|| values.join("\n"))
}

/// The quoted values listed from `first` on (", `b` and `c`" at the
/// start of `rest`), whether the goal says they are one per line, and
/// where in `rest` the list ends.
pub(super) fn listed(first: String, rest: &str) -> (Vec<String>, bool, usize) {
    let mut values = vec![first];
    let Some(more) = LISTED_MORE.as_ref() else {
        return (values, false, 0);
    };
    let mut at = 0;
    while let Some(c) = more.captures(&rest[at..]) {
        let (Some(value), Some(whole)) = (quoted_value(&c, 1), c.get(0)) else {
            break;
        };
        values.push(value);
        at += whole.end();
    }
    let after: String = rest[at..]
        .chars()
        .take(60)
        .collect::<String>()
        .to_lowercase();
    let per_line = [
        "per line",
        "own line",
        "separate line",
        "each line",
        "a line each",
    ]
    .iter()
    .any(|words| after.contains(words));
    (values, per_line, at)
}

/// "`X` should print the hours per person: `a`, `b` and `c`, one per
/// line": words about the output, a colon, then its lines listed.
static PRINTS_DESCRIBED: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(&format!(
        r#"{PROGRAM_PRINTS}{PRINT_VERB}\s+(?:[^.`'"\n:;]|\.\S){{1,80}}:\s*{QUOTED_TEXT}"#
    ))
    .ok()
});

/// One more value of a list after a quoted one: ", `b`", " and `c`",
/// ", and `d`".
static LISTED_MORE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(&format!(r"^\s*(?:,\s*(?:and\s+)?|and\s+){QUOTED_TEXT}")).ok());

/// The expected output a block after "prints:" gives: a fenced block's
/// lines, or the lines as written (their end of line spaces dropped).
/// A list of bullets describes the output rather than showing it: none.
fn block_value(block: &str) -> Option<String> {
    let lines: Vec<&str> = match block.strip_prefix("```") {
        Some(fenced) => {
            let body = fenced.split_once('\n').map_or("", |(_, body)| body);
            body.strip_suffix("```")
                .unwrap_or(body)
                .trim_end_matches('\n')
                .lines()
                .collect()
        }
        None => block.trim_end_matches('\n').lines().collect(),
    };
    let bullets = lines.iter().all(|line| {
        let line = line.trim_start();
        line.starts_with("- ") || line.starts_with("* ")
    });
    let lines: Vec<&str> = lines.iter().map(|line| line.trim_end()).collect();
    (!lines.is_empty() && !bullets).then(|| lines.join("\n"))
}

/// `check`, after `make` when `program` is built by it
/// ([`built_by_make`]): "After `make`, ./attendance should print ...".
/// Found on dev: the check ran a binary no one had built, so no fix
/// could pass it.
fn built_first(program: &str, workspace: &Path, check: String) -> String {
    if built_by_make(program, workspace) {
        format!("make >&2 && {check}")
    } else {
        check
    }
}

/// Whether `program` is a `./name` the workspace does not have but its
/// Makefile names: it must be built before it runs.
fn built_by_make(program: &str, workspace: &Path) -> bool {
    let Some(name) = program
        .split_whitespace()
        .next()
        .and_then(|p| p.strip_prefix("./"))
    else {
        return false;
    };
    if name.is_empty() || name.contains("..") || workspace.join(name).exists() {
        return false;
    }
    super::detect::read_makefile(workspace)
        .is_some_and(|makefile| super::detect::has_target(&makefile, name))
}

/// The command that runs `program` and compares what it prints with
/// `expected`: a diff of the two (the output with a final newline, as a
/// line of text has), so a failure shows what was printed.
fn prints_check(program: &str, expected: &str) -> String {
    format!(
        "diff <({program} | sed -e '$a\\') <(printf '%s\\n' {})",
        single_quote(expected)
    )
}

/// The check that the last commit's subject is `message`.
pub(crate) fn commit_message_check(message: &str) -> String {
    format!(
        "git log -1 --format=%s; test \"$(git log -1 --format=%s)\" = {}",
        single_quote(message)
    )
}

/// `git log -1 --format=%s` (or `--pretty=format:%s`, `%s` quoted): the
/// command that prints the last commit's subject.
static SUBJECT_COMMAND: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r#"^git\s+log\s+(?:-1|-n\s*1|--max-count=1)\s+--(?:format|pretty)=(?:format:)?['"]?%s['"]?$"#)
        .ok()
});

/// Whether `program` prints the last commit's subject.
fn shows_last_subject(program: &str) -> bool {
    SUBJECT_COMMAND
        .as_ref()
        .is_some_and(|regex| regex.is_match(program.trim()))
}

/// The message the goal gives the last commit, and the check that tests
/// it: "with the message 'M'" ([`commit_message`]), or "`git log -1
/// --format=%s` should print `M`" (a prints clause of the subject).
pub(crate) fn commit_subject(goal: &str) -> Option<(String, String)> {
    if let Some(message) = commit_message(goal) {
        let check = commit_message_check(&message);
        return Some((message, check));
    }
    prints(goal)
        .into_iter()
        .find(|(program, expected)| shows_last_subject(program) && !expected.contains('\n'))
        .map(|(program, expected)| {
            let check = prints_check(&program, &expected);
            (expected, check)
        })
}

/// The message the goal asks a commit to have: a quoted message in a goal
/// about a commit, unless the nearest of "commit" and "tag" before it in
/// its sentence is "tag" ("tag the current commit: an annotated tag with
/// the message 'Release 1.2.0'" gives the tag's message, not a commit's;
/// found on dev: that check could only pass by making a commit nobody
/// asked for).
///
/// A goal that asks for several commits has no one message to read: the
/// last commit's subject would prove one of them at most (found on dev: "two
/// separate commits ... first only the fix with the message 'A'; then
/// everything else as 'B'" was read as one commit 'A', the harness
/// committed everything under it, and that message verified the finish —
/// a false success).
pub fn commit_message(goal: &str) -> Option<String> {
    if !goal.to_lowercase().contains("commit") || asks_for_several_commits(goal) {
        return None;
    }
    quoted_messages(goal)
        .into_iter()
        .find_map(|(message, owner)| (owner == MessageOwner::Commit).then_some(message))
}

/// "two separate commits", "one commit per file", "commit the fix ...;
/// then commit the rest": more than one commit is asked for.
static SEVERAL_COMMITS: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?is)\b(?:two|three|four|five|several|multiple|separate|individual)\s+(?:[a-z-]+\s+){0,2}commits\b|\bone\s+commit\s+(?:per|for\s+each|each)\b|\bcommit\b.*\b(?:then|afterwards|after\s+that|next|second|secondly)\s*,?\s+commit\b",
    )
    .ok()
});

/// Commits made into one: "squash the last two commits into one".
static INTO_ONE_COMMIT: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)\bsquash|\binto\s+(?:one|a\s+single)\b|\bcombine\b").ok());

/// Whether the goal asks for more than one commit ([`SEVERAL_COMMITS`]),
/// and not for commits made into one.
pub(crate) fn asks_for_several_commits(goal: &str) -> bool {
    SEVERAL_COMMITS
        .as_ref()
        .is_none_or(|regex| regex.is_match(goal))
        && !INTO_ONE_COMMIT
            .as_ref()
            .is_none_or(|regex| regex.is_match(goal))
}

/// The test runner the goal names in words ("with pytest", "using cargo
/// test"), as the command that runs it; in a virtualenv the goal names
/// (`.venv`, `venv`) when one is in `workspace`. `None` when the goal
/// names none, or quotes a command that already runs it.
pub fn named_runner(goal: &str, workspace: &Path) -> Option<String> {
    let lower = goal.to_lowercase();
    let quoted: Vec<&str> = goal.split('`').skip(1).step_by(2).collect();
    let quotes = |needle: &str| quoted.iter().any(|q| q.contains(needle));
    let words: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '.' || c == '_' || c == '-'))
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| !w.is_empty())
        .collect();
    let has = |word: &str| words.contains(&word);
    let pair = |a: &str, b: &str| words.windows(2).any(|w| w[0] == a && w[1] == b);
    if has("pytest") && !quotes("pytest") {
        let venv = [".venv", "venv", "env", ".env"]
            .into_iter()
            .find(|dir| has(dir) && workspace.join(dir).join("bin").is_dir());
        return Some(match venv {
            Some(dir) => format!("{dir}/bin/python -m pytest -q"),
            None => "python3 -m pytest -q".to_string(),
        });
    }
    if pair("cargo", "test") && !quotes("cargo test") {
        return Some("cargo test".to_string());
    }
    if pair("go", "test") && !quotes("go test") {
        return Some("go test ./...".to_string());
    }
    None
}

/// The file the goal asks to be written and the shape of its lines (an
/// extended regular expression), when the goal gives an example line
/// ("such as `server.log: 12`") in a sentence about that file's lines.
///
/// The sentence must be about lines or name the file, and the example must
/// not follow words about what is left out in its sentence ("drop
/// extras such as `[binary]`": found on dev, where that made every right
/// line fail the check), nor be followed by a denial of what it shows
/// ("option lines (like `-r base.txt`) are not packages": found on dev,
/// where every package name failed a `-X Y` shape).
pub fn file_shape(goal: &str) -> Option<(String, String)> {
    file_shape_in(goal, output_file(goal)?)
}

/// [`file_shape`] of `file`, the file the goal asks for.
pub(crate) fn file_shape_in(goal: &str, file: String) -> Option<(String, String)> {
    let (examples, left_out, denied) = (EXAMPLE.as_ref()?, LEFT_OUT.as_ref()?, DENIED.as_ref()?);
    let example = SENTENCE_END
        .as_ref()?
        .split(goal)
        .filter(|sentence| sentence.to_lowercase().contains("line") || sentence.contains(&file))
        .flat_map(|sentence| {
            examples.captures_iter(sentence).filter_map(move |c| {
                let (start, end) = c.get(0).map_or((0, 0), |m| (m.start(), m.end()));
                // The denial belongs to the example's own clause (up to
                // the next comma, semicolon or colon).
                let after = &sentence[end..];
                let clause = after.split([',', ';', ':']).next().unwrap_or(after);
                if left_out.is_match(&sentence[..start]) || denied.is_match(clause) {
                    return None;
                }
                quoted_value(&c, 1)
            })
        })
        .find(|example| !reads_as_command(example))?;
    if example.trim().is_empty() || example == file {
        return None;
    }
    Some((file, line_shape(&example)))
}

/// Words that make what follows them in a sentence something to leave
/// out of a file, not the shape of its lines.
static LEFT_OUT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:drop|dropping|remove|removing|strip|stripping|ignore|ignoring|skip|skipping|exclude|excluding|without|omit|omitting|not|no)\b|n't\b|\bleave\s+out\b").ok()
});

/// A denial after an example, in its clause: what the example shows
/// "is not", "are not", "aren't", "does not count", "don't belong".
static DENIED: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:is|are)\s+not\b|\b(?:is|are)n't\b|\b(?:do|does)\s+not\s+(?:count|belong)\b|\b(?:do|does)n't\s+(?:count|belong)\b").ok()
});

/// Whether a quoted example is a command, not a line of a file: words
/// after an environment assignment or after a program found on `PATH`
/// (found on dev: "sorted (plain byte order, like `LC_ALL=C sort`)" made
/// every URL line fail a `NAME=value word` shape).
fn reads_as_command(example: &str) -> bool {
    let mut words = example.split_whitespace();
    let (Some(first), Some(_)) = (words.next(), words.next()) else {
        return false;
    };
    super::goal::is_assignment(first) || super::detect::on_path(first)
}

/// The shape of a line like `example`, as an extended regular expression:
/// numbers become any number, words (and the names around them) become
/// any run of non-space characters, spaces any run of spaces, and other
/// characters stay as they are.
pub fn line_shape(example: &str) -> String {
    let mut shape = String::new();
    let chars: Vec<char> = example.trim().chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        // A `-` is a number's sign only where a number may start (not
        // between the parts of `2024-03-04`).
        let signed = c == '-'
            && chars.get(i + 1).is_some_and(char::is_ascii_digit)
            && (i == 0 || !chars[i - 1].is_alphanumeric());
        if c.is_ascii_digit() || signed {
            i += 1;
            while i < chars.len()
                && (chars[i].is_ascii_digit()
                    || (matches!(chars[i], '.' | ',')
                        && chars.get(i + 1).is_some_and(char::is_ascii_digit)))
            {
                i += 1;
            }
            shape.push_str("-?[0-9]+([.,][0-9]+)*");
        } else if c.is_whitespace() {
            while i < chars.len() && chars[i].is_whitespace() {
                i += 1;
            }
            shape.push_str("[[:space:]]+");
        } else if c.is_alphanumeric() || c == '_' {
            // A word and what is glued to it (`server.log`, `a@b.c`):
            // any run of non-space characters, up to the next separator
            // the example has.
            while i < chars.len()
                && !chars[i].is_whitespace()
                && (chars[i].is_alphanumeric() || "_.@-/".contains(chars[i]))
            {
                i += 1;
            }
            shape.push_str("[^[:space:]]+");
        } else {
            if "\\^$.|?*+()[]{}".contains(c) {
                shape.push('\\');
            }
            shape.push(c);
            i += 1;
        }
    }
    shape
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    use crate::checks::test_bash as bash;

    #[test]
    fn a_program_and_what_it_prints_are_read_from_the_goal() {
        assert_eq!(
            prints("Make `make` succeed so that ./hello prints 'hello, world'."),
            vec![("./hello".to_string(), "hello, world".to_string())]
        );
        assert_eq!(
            prints("`python3 wc.py sample.txt` should print `3 12 68`"),
            vec![(
                "python3 wc.py sample.txt".to_string(),
                "3 12 68".to_string()
            )]
        );
        assert_eq!(
            prints("Fix it: ./stats then outputs \"mean: 4.5\" for data.txt"),
            vec![("./stats".to_string(), "mean: 4.5".to_string())]
        );
        assert!(prints("The program prints a greeting.").is_empty());
        // What it prints now, wrongly: the bug, not the expected output.
        assert!(
            prints("`bash t.sh t.csv` prints `min: 0.0` although the coldest day was 3.5.")
                .is_empty()
        );
        assert!(prints("`./count` outputs '7', but there are only 6 lines.").is_empty());
        assert_eq!(
            prints("`./count` should print '6', but it prints '7'."),
            vec![("./count".to_string(), "6".to_string())]
        );
        // A list of lines, said to be one per line; a list whose layout
        // the goal does not say gives no check (its first value alone
        // could never be the whole output).
        assert_eq!(
            prints("`./att r.csv` should print `s: 3`, `a: 2` and `b: 1` (one per line), but"),
            vec![("./att r.csv".to_string(), "s: 3\na: 2\nb: 1".to_string())]
        );
        assert!(prints("`./att` should print `s: 3`, `a: 2` and `b: 1`.").is_empty());
        assert_eq!(
            prints("`bash hours.sh` should print the hours per person in t.txt: `i 29h45`, `m 23h10` and `t 16h00`, one per line. Instead"),
            vec![("bash hours.sh".to_string(), "i 29h45\nm 23h10\nt 16h00".to_string())]
        );
        assert!(
            prints("`./x` prints a line for each user: `ann: 3`, for example.").is_empty(),
            "an example after a description is not the output"
        );
        assert!(
            prints("`calc.py` prints '4'").is_empty(),
            "a file, not a command"
        );
        assert!(prints("./x prints ''").is_empty(), "nothing to compare");
        // An unquoted value with a digit that ends the sentence.
        assert_eq!(
            prints("Tag it. Afterwards `git describe` should print v1.2.0."),
            vec![("git describe".to_string(), "v1.2.0".to_string())]
        );
        assert_eq!(
            prints("`./count` prints 42"),
            vec![("./count".to_string(), "42".to_string())]
        );
        assert!(prints("`./count` prints 42 lines.").is_empty());
        assert!(prints("`./count` prints the total.").is_empty());
    }

    #[test]
    fn a_goal_naming_git_revert_wants_a_revert_commit_not_a_hand_fix() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let goal =
            "My last commit broke the tests. Undo it with git revert, without rewriting history.";
        let checks = clause_checks(goal, root);
        assert_eq!(
            checks,
            vec![Check::new(
                REVERT_CHECK,
                CheckSource::Clause {
                    rule: RULE_REVERT.to_string(),
                    proves: false
                }
            )]
        );
        assert!(clause_checks("Revert the change in calc.py by hand.", root).is_empty());
        let git = |args: &[&str]| crate::checks::test_git(root, args);
        git(&["init", "-q"]);
        std::fs::write(root.join("a.txt"), "1\n").unwrap();
        git(&["add", "a.txt"]);
        git(&["commit", "-qm", "one"]);
        std::fs::write(root.join("a.txt"), "2\n").unwrap();
        git(&["commit", "-qam", "two"]);
        std::fs::write(root.join("a.txt"), "1\n").unwrap();
        git(&["commit", "-qam", "undo two by hand"]);
        assert!(!bash(root, REVERT_CHECK).status.success(), "a hand fix");
        git(&["revert", "--no-edit", "HEAD"]);
        assert!(bash(root, REVERT_CHECK).status.success(), "a revert");
    }

    #[test]
    fn a_json_files_values_are_kept_through_its_repair() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join("settings.json"),
            "{\n  appName: 'Recipe Box', // the title\n  \"pageSize\": 24,\n  'locales': ['en', \"de\",],\n}\n",
        )
        .unwrap();
        let goal = "Make settings.json valid JSON again without changing any of its values.";
        let checks = clause_checks(goal, root);
        assert_eq!(checks.len(), 1, "{checks:?}");
        assert_eq!(
            checks[0].source,
            CheckSource::Clause {
                rule: RULE_SAME_VALUES.to_string(),
                proves: false
            }
        );
        let check = &checks[0].command;
        let before = bash(root, check);
        assert!(!before.status.success(), "not JSON yet");
        std::fs::write(
            root.join("settings.json"),
            "{\"appName\": \"Recipe Box\", \"pageSize\": 24, \"locales\": [\"en\", \"de\"]}\n",
        )
        .unwrap();
        assert!(bash(root, check).status.success(), "the same values");
        std::fs::write(
            root.join("settings.json"),
            "{\"appName\": \"Recipe Box\", \"pageSize\": 25, \"locales\": [\"en\", \"de\"]}\n",
        )
        .unwrap();
        let changed = bash(root, check);
        assert!(!changed.status.success());
        assert!(String::from_utf8_lossy(&changed.stderr).contains("the values differ"));
        assert!(
            clause_checks("Make settings.json valid JSON again.", root).is_empty(),
            "no clause"
        );
    }

    #[test]
    fn the_words_that_may_name_paths_lose_punctuation_and_globs() {
        let words: Vec<&str> =
            path_words("Read docs/*.md and ./data.csv (not ../x), then write `out.txt`.").collect();
        assert_eq!(
            words,
            ["Read", "docs/", "and", "data.csv", "not", "then", "write", "out.txt"]
        );
    }

    #[test]
    fn a_program_the_makefile_builds_is_built_before_its_output_is_compared() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("Makefile"),
            "att: att.c\n\tcc -o att att.c\n",
        )
        .unwrap();
        let goal = "After `make`, `./att r.csv` should print `s: 3`.";
        let checks = clause_checks(goal, dir.path());
        assert!(
            checks[0]
                .command
                .starts_with("make >&2 && diff <(./att r.csv"),
            "{checks:?}"
        );
        // Built already, or a script of the workspace: run as it is.
        std::fs::write(dir.path().join("att"), "").unwrap();
        assert!(clause_checks(goal, dir.path())[0]
            .command
            .starts_with("diff"));
        let other = "`./run.sh` should print `ok`.";
        assert!(clause_checks(other, dir.path())[0]
            .command
            .starts_with("diff"));
    }

    #[test]
    fn the_file_a_goal_asks_for_is_read_with_or_without_a_verb() {
        assert_eq!(
            output_file("Write errors_by_hour.txt with one line per hour."),
            Some("errors_by_hour.txt".to_string())
        );
        assert_eq!(
            output_file("List every TODO under src/ in a new file TODO.md, one per line."),
            Some("TODO.md".to_string())
        );
        assert_eq!(
            output_file("Put the result into a file named out/list.txt."),
            Some("out/list.txt".to_string())
        );
        assert_eq!(
            output_file("Collect every e-mail address in the tickets in tickets/ into emails.txt: one per line."),
            Some("emails.txt".to_string())
        );
        assert_eq!(
            output_file("Look into calc.py: the sum is wrong. Fix it."),
            None,
            "looking into a file is not writing it"
        );
        assert_eq!(output_file("Fix the parser in parse.py."), None);
        assert_eq!(
            output_file("Convert products.csv to products.json for the web shop."),
            Some("products.json".to_string())
        );
        assert_eq!(
            output_file("Turn `config.yaml` into a file named config.json."),
            Some("config.json".to_string())
        );
    }

    #[test]
    fn the_order_a_goal_gives_a_written_files_lines_is_checked() {
        let goal = "Write them to region_totals.txt, one line per region as `Region: total`, biggest total first.";
        assert_eq!(
            file_order(goal),
            Some(("region_totals.txt".to_string(), Order::Descending))
        );
        assert_eq!(
            file_order("Save the list to cheap.txt, lowest price first.").map(|(_, o)| o),
            Some(Order::Ascending)
        );
        assert_eq!(
            file_order("Write top.txt sorted in descending order of count").map(|(_, o)| o),
            Some(Order::Descending)
        );
        assert_eq!(file_order("Write log.txt, most recent first."), None);
        assert_eq!(
            file_order("Write a.txt, smallest first, then the biggest first"),
            None
        );
        assert_eq!(
            file_order("Biggest first, please."),
            None,
            "no file written"
        );
        let dir = tempfile::tempdir().unwrap();
        let run = |text: &str, order: Order| {
            std::fs::write(dir.path().join("t.txt"), text).unwrap();
            bash(dir.path(), &order_check("t.txt", order))
                .status
                .success()
        };
        let sorted = "North: 15069.98\nWest: 12015.99\n\nCentral: 6231.28\nEast: -2.5\n";
        assert!(run(sorted, Order::Descending));
        assert!(!run(sorted, Order::Ascending));
        assert!(!run("South: 6201.75\nNorth: 15069.98\n", Order::Descending));
        assert!(
            run("a 2024-01-02 3\nb 2024-01-01 10\n", Order::Ascending),
            "the last number"
        );
        assert!(!run("", Order::Descending), "empty");
        assert!(!run("no numbers here\n", Order::Descending));
        assert!(!run("region,total\n", Order::Descending), "a header alone");
        let said = |text: &str, order: Order| {
            std::fs::write(dir.path().join("t.txt"), text).unwrap();
            String::from_utf8(bash(dir.path(), &order_check("t.txt", order)).stdout).unwrap()
        };
        assert_eq!(
            said("South: 6201.75\nNorth: 15069.98\n", Order::Descending),
            "t.txt is out of order at line 2: 15069.98 after 6201.75; its lines must go from the biggest number to the smallest\n"
        );
        assert_eq!(
            said("a 3\n\nb 1\n", Order::Ascending),
            "t.txt is out of order at line 3: 1 after 3; its lines must go from the smallest number to the biggest\n"
        );
        assert_eq!(
            said("a 3\nno number\n", Order::Ascending),
            "t.txt line 2 has no number: no number\n"
        );
        assert_eq!(said(sorted, Order::Descending), "", "a pass says nothing");
        assert_eq!(
            said("region,total\nNorth,9\nSouth,3\n", Order::Descending),
            "",
            "a first line with no number is a header"
        );
        let checks = clause_checks(goal, dir.path());
        assert!(checks.iter().any(|c| matches!(
            &c.source,
            CheckSource::Clause { rule, proves: false } if rule == RULE_FILE_ORDER
        )));
    }

    #[test]
    fn a_file_the_goal_asks_for_must_be_written_with_content() {
        let dir = tempfile::tempdir().unwrap();
        let goal =
            "List every TODO comment under src/ in a new file TODO.md, one line per comment.";
        let checks = clause_checks(goal, dir.path());
        assert_eq!(checks.len(), 1, "{checks:?}");
        assert!(matches!(
            &checks[0].source,
            CheckSource::Clause { rule, proves: false } if rule == RULE_FILE_WRITTEN
        ));
        let output = bash(dir.path(), &checks[0].command);
        assert!(!output.status.success());
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            "TODO.md is missing or empty: the goal asks for it, with content\n"
        );
        std::fs::write(dir.path().join("TODO.md"), "").unwrap();
        assert!(!bash(dir.path(), &checks[0].command).status.success());
        std::fs::write(dir.path().join("TODO.md"), "src/a.py:3: x\n").unwrap();
        assert!(bash(dir.path(), &checks[0].command).status.success());
        // A file that exists is an edit's, and one a rule reads is that
        // rule's.
        assert!(clause_checks(goal, dir.path()).is_empty());
        let other = tempfile::tempdir().unwrap();
        let shaped = clause_checks(
            "Write out.txt: one line per user, such as `alice: 3`.",
            other.path(),
        );
        assert_eq!(shaped.len(), 1);
    }

    #[test]
    fn the_block_after_prints_colon_is_the_expected_output() {
        let goal = "Write greet.sh. With the current names.txt, `bash greet.sh` must print exactly:\n\nHello, Ana!\nHello, Mary Ann! \n\nDon't edit names.txt.";
        assert_eq!(
            prints(goal),
            vec![(
                "bash greet.sh".to_string(),
                "Hello, Ana!\nHello, Mary Ann!".to_string()
            )]
        );
        let fenced =
            "Then ./report outputs the following:\n```\ntotal: 3\n\nmean: 1.5\n```\nThanks.";
        assert_eq!(
            prints(fenced),
            vec![("./report".to_string(), "total: 3\n\nmean: 1.5".to_string())]
        );
        assert!(
            prints("`./stats` prints:\n- the mean\n- the median\n").is_empty(),
            "bullets describe the output"
        );
        assert!(prints("`./stats` prints:\n\n").is_empty());
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("names.txt"), "Ana\n\n Mary Ann \n").unwrap();
        let script = "while read -r n; do [ -n \"$n\" ] && echo \"Hello, $n!\"; done < names.txt";
        std::fs::write(dir.path().join("greet.sh"), script).unwrap();
        let checks = clause_checks(goal, dir.path());
        let run = |command: &str| bash(dir.path(), command);
        assert!(
            run(&checks[0].command).status.success(),
            "{}",
            checks[0].command
        );
        std::fs::write(dir.path().join("greet.sh"), "echo 'Hello, Ana!'").unwrap();
        assert!(!run(&checks[0].command).status.success());
    }

    #[test]
    fn the_prints_check_compares_the_output_as_lines_and_quotes_the_value() {
        let dir = tempfile::tempdir().unwrap();
        let run = |command: &str| bash(dir.path(), command);
        let check = prints_check("printf 'it'\\''s'", "it's");
        assert!(run(&check).status.success(), "no final newline: {check}");
        let check = prints_check("echo 'hello world'", "hello, world");
        let output = run(&check);
        assert!(!output.status.success());
        let shown = String::from_utf8_lossy(&output.stdout);
        assert!(
            shown.contains("< hello world") && shown.contains("> hello, world"),
            "{shown}"
        );
        assert!(!run(&prints_check("echo '$(touch pwned)'", "$(touch x)"))
            .status
            .success());
        assert!(!dir.path().join("x").exists(), "the value is not code");
    }

    #[test]
    fn a_commit_message_proves_a_goal_only_when_it_commits_the_users_own_work_and_nothing_more() {
        let dir = tempfile::tempdir().unwrap();
        let proves = |goal: &str| {
            clause_checks(goal, dir.path())
                .iter()
                .find_map(|c| match &c.source {
                    CheckSource::Clause { rule, proves } if rule == RULE_COMMIT_MESSAGE => {
                        Some(*proves)
                    }
                    _ => None,
                })
                .unwrap()
        };
        assert!(proves(
            "Commit all my changes with the message 'Add greeting'."
        ));
        assert!(!proves(
            "On a new branch fix/empty, commit the fix with the message 'Handle empty input'."
        ));
        assert!(!proves(
            "Amend the last commit so its message is 'Fix typo'."
        ));
        assert!(proves(
            "Commit my current changes to parse.py and README.md with the message 'Parse quotes'."
        ));
        assert!(proves("Commit everything with the message 'Ship it'."));
        // The commit of the run's own work: its message shows a commit,
        // not the work in it.
        assert!(!proves(
            "Stop tracking .env but keep it on disk, add it to .gitignore, and commit that with the message 'Stop tracking .env'."
        ));
        assert!(!proves(
            "Fix the off-by-one in pager.py and commit the fix with the message 'Fix paging'."
        ));
        assert!(!proves(
            "Bring config.json back in a new commit with the message 'Restore config.json'."
        ));
        // The subject printed by `git log` proves no more than the
        // message rule does.
        let subject_proves = |goal: &str| {
            clause_checks(goal, dir.path())
                .iter()
                .find_map(|c| match &c.source {
                    CheckSource::Clause { rule, proves } if rule == RULE_PRINTS => Some(*proves),
                    _ => None,
                })
                .unwrap()
        };
        assert!(!subject_proves(
            "Fix the message by amending the commit. Afterwards `git log -1 --format=%s` should print `Fix typo`."
        ));
        assert!(subject_proves(
            "Commit all my changes. Afterwards `git log -1 --format=%s` should print `Fix typo`."
        ));
        assert!(!subject_proves(
            "Commit it. Afterwards `git log -1 --format=%s` should print `Fix typo`."
        ));
        assert!(
            subject_proves("On a new branch, `./hello` should print 'hi'."),
            "another program's output"
        );
    }

    #[test]
    fn words_about_the_codes_structure_are_read() {
        for goal in [
            "Extract them into one function, normalize_email(email), and make both call it.",
            "Make both functions call it instead of repeating the code.",
            "Move it into a new module config.py so that it is defined in one place only.",
            "Refactor parse() into smaller pieces.",
        ] {
            assert!(structure_clause(goal).is_some(), "{goal}");
        }
        for goal in [
            "Extract the e-mail addresses from log.txt into emails.txt, one per line.",
            "Fix the off-by-one error in pages().",
        ] {
            assert_eq!(structure_clause(goal), None, "{goal}");
        }
    }

    #[test]
    fn a_commit_message_is_read_only_in_a_goal_about_a_commit() {
        assert_eq!(
            commit_message(
                "Commit all my current changes in one commit with the message 'Add greeting'."
            )
            .as_deref(),
            Some("Add greeting")
        );
        assert_eq!(
            commit_message("Amend the last commit so its message is \"Fix typo in README\"")
                .as_deref(),
            Some("Fix typo in README")
        );
        assert_eq!(
            commit_message("commit it, message: `Bump version`").as_deref(),
            Some("Bump version")
        );
        assert_eq!(
            commit_message("Print the message 'hi' when it starts"),
            None
        );
        assert_eq!(
            commit_message("Tag the current commit as v1.2.0: an annotated tag, like v1.1.0, with the message 'Release 1.2.0'."),
            None,
            "the tag's message"
        );
        assert_eq!(
            commit_message("Commit everything with the message 'Ship it' and tag that commit v2.")
                .as_deref(),
            Some("Ship it")
        );
        assert_eq!(
            commit_message("Tag v2 first. Then commit the rest with the message 'Later'.")
                .as_deref(),
            Some("Later"),
            "a tag in another sentence"
        );
    }

    #[test]
    fn a_goal_asking_for_several_commits_has_no_one_message() {
        for goal in [
            "I want them as two separate commits. First commit only the fix in fetch.py with the message 'Fix parsing'; then commit everything else as 'Add --dry-run option'.",
            "Commit the fix with the message 'Fix it', then commit the docs with 'Docs'.",
            "Make one commit per file, each with the message 'Add <file>'.",
        ] {
            assert_eq!(commit_message(goal), None, "{goal}");
        }
        for goal in [
            "Fix the bug, then commit with the message 'Fix the bug'.",
            "Squash the last two commits into one with the message 'Add parser'.",
            "Commit all my changes in one commit with the message 'Add greeting'.",
        ] {
            assert!(commit_message(goal).is_some(), "{goal}");
        }
    }

    #[test]
    fn a_named_runner_is_run_as_named_and_in_the_named_virtualenv() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        assert_eq!(
            named_runner("Run the test suite with pytest and make it pass", ws).as_deref(),
            Some("python3 -m pytest -q")
        );
        std::fs::create_dir_all(ws.join(".venv/bin")).unwrap();
        assert_eq!(
            named_runner("Run the tests with pytest in the .venv virtualenv.", ws).as_deref(),
            Some(".venv/bin/python -m pytest -q")
        );
        assert_eq!(
            named_runner("Run the tests with pytest.", ws).as_deref(),
            Some("python3 -m pytest -q"),
            "a virtualenv the goal does not name is not assumed"
        );
        assert_eq!(
            named_runner("`python3 -m pytest -q` must pass", ws),
            None,
            "quoted: the quoted command is the check"
        );
        assert_eq!(
            named_runner("Make cargo test pass.", ws).as_deref(),
            Some("cargo test")
        );
        assert_eq!(named_runner("Fix the tests.", ws), None);
    }

    #[test]
    fn an_example_line_gives_the_shape_of_the_files_lines() {
        let goal = "Write report.txt with the number of lines of each .log file in logs/: one `name: count` line per file, such as `server.log: 12`, sorted by file name.";
        let (file, shape) = file_shape(goal).unwrap();
        assert_eq!(file, "report.txt");
        let shape = Regex::new(&format!(
            "^{}$",
            shape
                .replace("[[:space:]]", r"\s")
                .replace("[^[:space:]]", r"[^\s]")
        ))
        .unwrap();
        for line in ["server.log: 12", "my-app.log: 0", "a.log: 1,204"] {
            assert!(shape.is_match(line), "{line}");
        }
        for line in ["server.log 12", "server.log: twelve", "total: 3 files"] {
            assert!(!shape.is_match(line), "{line}");
        }
        assert_eq!(file_shape("Write report.txt, sorted."), None, "no example");
        assert_eq!(
            file_shape("Give me one list of all the packages the files in requirements/ ask for. Write packages.txt with one project name per line, each name once, sorted in plain ASCII order. Comments, blank lines and option lines (the ones starting with `-`, like `-r base.txt`) are not packages."),
            None,
            "an example of lines the goal denies"
        );
        assert!(
            file_shape("Write report.txt with one line per file, like `a.log: 3`, skipping files that are not logs.").is_some(),
            "a denial in a later clause about other things"
        );
        assert_eq!(
            file_shape("Write packages.txt with one name per line. Only the name: drop version specifiers, extras such as `[binary]` and comments."),
            None,
            "an example of what to leave out"
        );
        assert_eq!(
            file_shape("Write urls.txt with each URL, one per line, sorted (plain byte order, like `LC_ALL=C sort`)."),
            None,
            "a command is not a line's shape"
        );
        assert_eq!(
            file_shape("Write hits.txt, one line per page (sorted like `sort -n`), in the form `index.html 12`."),
            Some(("hits.txt".to_string(), "[^[:space:]]+[[:space:]]+-?[0-9]+([.,][0-9]+)*".to_string()))
        );
        let (file, shape) = file_shape("Write errors_by_hour.txt with one line per hour, oldest first, in the form `2024-03-04 22:00 5` (date, hour, count).").unwrap();
        assert_eq!(file, "errors_by_hour.txt");
        assert_eq!(
            shape,
            "-?[0-9]+([.,][0-9]+)*--?[0-9]+([.,][0-9]+)*--?[0-9]+([.,][0-9]+)*[[:space:]]+-?[0-9]+([.,][0-9]+)*:-?[0-9]+([.,][0-9]+)*[[:space:]]+-?[0-9]+([.,][0-9]+)*",
            "a date's dashes are separators"
        );
        assert_eq!(
            file_shape("Create emails.txt with one address per line, like `ann@example.com`.")
                .map(|(f, _)| f)
                .as_deref(),
            Some("emails.txt")
        );
    }

    #[test]
    fn the_file_shape_check_runs_in_bash() {
        let dir = tempfile::tempdir().unwrap();
        let goal = "Write out.txt: one line per user, such as `alice: 3`.";
        let checks = clause_checks(goal, dir.path());
        assert_eq!(checks.len(), 1);
        let run = |text: &str| {
            std::fs::write(dir.path().join("out.txt"), text).unwrap();
            bash(dir.path(), &checks[0].command).status.success()
        };
        assert!(run("alice: 3\nbob-2: 10\n"));
        assert!(!run("alice: 3\nbob 10\n"));
        assert!(!run(""));
        // A shape that starts with a number (which may be negative)
        // starts with `-`: grep must not read it as an option (found on
        // dev: every file passed).
        let hours = clause_checks(
            "Write hours.txt with one line per hour, in the form `2024-03-04 22:00 5`.",
            dir.path(),
        );
        let hour = |text: &str| {
            std::fs::write(dir.path().join("hours.txt"), text).unwrap();
            bash(dir.path(), &hours[0].command).status.success()
        };
        assert!(hour("2024-03-04 22:00 5\n2024-03-05 09:00 1\n"));
        assert!(!hour("2024-03-05 09:10:35 1\n"));
        assert!(!hour("22:00 5\n"));
        assert!(matches!(
            checks[0].source,
            CheckSource::Clause { proves: false, .. }
        ));
    }

    #[test]
    fn single_quoting_survives_any_text() {
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!("printf %s {}", single_quote("a'b $(c) `d`")))
            .output()
            .unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), "a'b $(c) `d`");
    }
}
