//! The phrases of a goal that the clause rules read: quoted values, the
//! file the goal asks to be written and the order of its lines, programs
//! said to print, quoted messages and whose they are, path words; and the
//! one way a value from the goal goes into a command (single-quoted).

use std::sync::LazyLock;

use regex::Regex;

/// A quoted value: '...', "...", `...` or “...” (the inside is group 1, 2,
/// 3 or 4).
pub(crate) const QUOTED_TEXT: &str = r#"(?:'([^'\n]*)'|"([^"\n]*)"|`([^`\n]*)`|“([^”\n]*)”)"#;

/// A program the goal says prints something, before the verb: a
/// backticked command (group 1) or a `./path` (group 2), then up to three
/// words such as "should", "then", "now". Every "prints" rule starts so.
/// The program may be named first and its output after a clause about
/// it, in the same sentence: "`python3 trips.py` gets the night trains
/// wrong: it should print ..." (found on dev: that output had no check,
/// and the planner's own check of it could never pass).
pub(crate) const PROGRAM_PRINTS: &str = r"(?i)(?:`([^`\n]+)`|(\./[A-Za-z0-9_./-]+))(?:,)?\s+(?:[^`\n.;:!?]{1,80}[:;,]\s+it\s+)?(?:(?:should|must|will|then|now|again|only|correctly|which|that|to)\s+){0,3}";

/// The verbs of printing, after [`PROGRAM_PRINTS`].
pub(crate) const PRINT_VERB: &str = r"(?:print|prints|output|outputs|display|displays|echo|echoes)";

/// "message 'M'", "message to 'M'", "message: 'M'", "message of 'M'".
static MESSAGE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)\bmessage\s*(?:(?:is|of|to|reading|saying|as)\s+|:\s*)?{QUOTED_TEXT}"
    ))
    .ok()
});

/// A file the goal asks to be written: "write report.txt", "create a file
/// named out/list.txt", "save it to totals.csv", "into emails.txt".
static OUTPUT_FILE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:write|writes|create|creates|produce|produces|generate|generates|save|saves|put|store)\b(?:\s+(?:it|them|the|a|an|new|file|files|named|called|result|results|list|report|output|in|into|to|as)\b)*\s+`?([A-Za-z0-9_][A-Za-z0-9_./-]*\.[A-Za-z0-9]{1,5})`?",
    )
    .ok()
});

/// A file named as where the result goes, with no verb before it: "in a
/// new file TODO.md", "into a file named out.txt".
static INTO_NEW_FILE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:in|into|to)\s+(?:a\s+)?(?:new\s+)?file\s+(?:named\s+|called\s+)?`?([A-Za-z0-9_][A-Za-z0-9_./-]*\.[A-Za-z0-9]{1,5})`?",
    )
    .ok()
});

/// "Collect every address in tickets/ into emails.txt", "gather the
/// totals into report.txt": a verb that gathers, then (within the
/// sentence) "into" and the file.
static GATHER_INTO: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:collect|collects|gather|gathers|extract|extracts|copy|copies|dump|dumps|list|lists|merge|merges|combine|combines|put|puts)\b[^.;:!?\n]{0,160}?\binto\s+`?([A-Za-z0-9_][A-Za-z0-9_./-]*\.[A-Za-z0-9]{1,5})`?",
    )
    .ok()
});

/// "Convert products.csv to products.json", "turn notes.yaml into
/// notes.json": the file converted to is the one written.
static CONVERT_TO: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:convert|converts|turn|turns|transform|transforms|export|exports)\b\s+`?[A-Za-z0-9_./-]+`?\s+(?:in)?to\s+(?:a\s+)?(?:new\s+)?(?:file\s+)?(?:named\s+|called\s+)?`?([A-Za-z0-9_][A-Za-z0-9_./-]*\.[A-Za-z0-9]{1,5})`?",
    )
    .ok()
});

/// "biggest total first", "highest first", "in descending order", "from
/// the largest to": the numbers go down.
static DESCENDING: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:biggest|largest|highest|greatest|top)\b(?:\s+[a-z]+){0,2}\s+first\b|\bmost\s+(?:[a-z]+\s+)?first\b|\bdescending\b|\bdecreasing\b|\bfrom\s+(?:the\s+)?(?:biggest|largest|highest|greatest|most)\b",
    )
    .ok()
});

/// "smallest first", "lowest price first", "in ascending order", "from
/// the fewest to": the numbers go up.
static ASCENDING: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:smallest|lowest|fewest|least|cheapest)\b(?:\s+[a-z]+){0,2}\s+first\b|\bascending\b|\bincreasing\b|\bfrom\s+(?:the\s+)?(?:smallest|lowest|fewest|least|cheapest)\b",
    )
    .ok()
});

/// The first file the goal asks to be written ([`OUTPUT_FILE`]), when its
/// path is safe to put in a command.
pub(crate) fn output_file(goal: &str) -> Option<String> {
    let captures = OUTPUT_FILE
        .as_ref()?
        .captures(goal)
        .or_else(|| INTO_NEW_FILE.as_ref()?.captures(goal))
        .or_else(|| CONVERT_TO.as_ref()?.captures(goal))
        .or_else(|| GATHER_INTO.as_ref()?.captures(goal))?;
    let file = captures.get(1)?.as_str().trim_end_matches('.').to_string();
    safe_path(&file).then_some(file)
}

/// Extensions of files a goal asks to be computed from data.
const DATA_EXTENSIONS: &[&str] = &[
    "csv", "tsv", "txt", "json", "jsonl", "ndjson", "yaml", "yml", "md", "xml", "html", "ini",
    "toml", "log", "dat",
];

/// Words of a goal about a file that should be there and is not ("No
/// such file: data/in.csv"): the file is not one to write.
static NOT_THERE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)no\s+such\s+file|not\s+found|does\s*n[o']t\s+exist|can\s*n[o']?t\s+(?:open|find|read)|could\s*n[o']t\s+(?:open|find|read)").ok()
});

/// The file the goal asks to be written, read at a run's start (while
/// `workspace` holds only what the user gave): [`output_file`], else the
/// one data file the goal names that `workspace` does not hold, when it
/// also names one it holds. A goal names its answer's file in more ways
/// than the phrase rules read ("count the signups from signups.jsonl into
/// signups_by_month.txt", "make me a restock list from inventory.json:
/// reorder.csv with columns ...", "I need a clean copy in
/// subscribers_clean.csv"); found on dev: three new data tasks named their
/// file so, got no artifact plan, and the planner edited the data instead.
pub(crate) fn asked_file(goal: &str, workspace: &std::path::Path) -> Option<String> {
    if let Some(file) = output_file(goal) {
        return Some(file);
    }
    if NOT_THERE.as_ref().is_none_or(|regex| regex.is_match(goal)) {
        return None;
    }
    let mut named: Vec<&str> = path_words(goal)
        .filter(|word| {
            std::path::Path::new(word)
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| DATA_EXTENSIONS.contains(&e.to_ascii_lowercase().as_str()))
        })
        .collect();
    named.sort_unstable();
    named.dedup();
    let (held, new): (Vec<&str>, Vec<&str>) = named
        .into_iter()
        .partition(|word| workspace.join(word).exists());
    match (held.is_empty(), new.as_slice()) {
        (false, [file]) => Some((*file).to_string()),
        _ => None,
    }
}

/// The order a file's numbers go in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Each line's number is at most the one before.
    Descending,
    /// Each line's number is at least the one before.
    Ascending,
}

/// The file the goal asks to be written and the order the goal gives its
/// lines, when it gives exactly one ("most recent first" is about time,
/// not a number on the line: no order).
pub fn file_order(goal: &str) -> Option<(String, Order)> {
    file_order_in(goal, output_file(goal)?)
}

/// [`file_order`] of `file`, the file the goal asks for.
pub(crate) fn file_order_in(goal: &str, file: String) -> Option<(String, Order)> {
    if goal.to_lowercase().contains("most recent") {
        return None;
    }
    let down = DESCENDING.as_ref()?.is_match(goal);
    let up = ASCENDING.as_ref()?.is_match(goal);
    match (down, up) {
        (true, false) => Some((file, Order::Descending)),
        (false, true) => Some((file, Order::Ascending)),
        _ => None,
    }
}

/// An apostrophe between two letters or digits ("Sam's", "don't"):
/// inside a word, never a quote.
static APOSTROPHE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"([[:alnum:]])'([[:alnum:]])").ok());

/// What stands for an apostrophe while quotes are found: a character a
/// goal does not hold.
const APOSTROPHE_MARK: char = '\u{1f}';

/// The texts `text` quotes ([`QUOTED_TEXT`]), trimmed and not empty, in
/// order; an apostrophe inside a word opens or closes no quote ("Sam's
/// commit 'Fix it'" quotes `Fix it`; "'Don't panic'" quotes `Don't
/// panic`).
pub(crate) fn quoted_texts(text: &str) -> Vec<String> {
    let (Some(apostrophe), Some(quoted)) = (APOSTROPHE.as_ref(), QUOTED.as_ref()) else {
        return Vec::new();
    };
    let marked = apostrophe.replace_all(text, format!("${{1}}{APOSTROPHE_MARK}${{2}}").as_str());
    // Twice, for "it's'" style runs where matches would overlap.
    let marked = apostrophe.replace_all(&marked, format!("${{1}}{APOSTROPHE_MARK}${{2}}").as_str());
    quoted
        .captures_iter(&marked)
        .filter_map(|captures| quoted_value(&captures, 1))
        .map(|value| value.replace(APOSTROPHE_MARK, "'").trim().to_string())
        .filter(|value| !value.is_empty())
        .collect()
}

/// The commit of `log` (lines of `id<TAB>subject`, as `git log
/// --format=%H%x09%s` prints them) whose subject a quoted text of `goal`
/// is, as (id, subject): the first quoted text that is one wins.
pub(crate) fn subject_named(goal: &str, log: &str) -> Option<(String, String)> {
    let commits: Vec<(&str, &str)> = log
        .lines()
        .filter_map(|line| line.split_once('\t'))
        .collect();
    quoted_texts(goal).into_iter().find_map(|quoted| {
        commits
            .iter()
            .find(|(_, subject)| subject.trim() == quoted)
            .map(|(id, subject)| (id.to_string(), subject.to_string()))
    })
}

/// The words of `goal` that may be commit ids: 7 to 40 hex digits.
pub(crate) fn commit_id_words(goal: &str) -> Vec<&str> {
    COMMIT_ID
        .as_ref()
        .map(|regex| regex.find_iter(goal).map(|m| m.as_str()).collect())
        .unwrap_or_default()
}

/// A word of 7 to 40 hex digits.
static COMMIT_ID: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"\b[0-9a-f]{7,40}\b").ok());

/// [`QUOTED_TEXT`] alone.
static QUOTED: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(QUOTED_TEXT).ok());

/// The value of a [`QUOTED_TEXT`] match starting at capture group `first`.
pub(crate) fn quoted_value(captures: &regex::Captures<'_>, first: usize) -> Option<String> {
    (first..first + 4).find_map(|i| captures.get(i).map(|m| m.as_str().to_string()))
}

/// Whether `text` is a bare file name (`calc.py`), not a command: a
/// backticked file name before "prints" is the program's source, which
/// cannot be run as it is.
pub(crate) fn is_file_name(text: &str) -> bool {
    !text.contains(char::is_whitespace)
        && !text.starts_with("./")
        && text
            .rsplit_once('.')
            .is_some_and(|(stem, ext)| !stem.is_empty() && SOURCE_EXTENSIONS.contains(&ext))
}

/// The extensions of program sources: a word ending in one names a
/// source file ([`is_file_name`]).
const SOURCE_EXTENSIONS: &[&str] = &[
    "py", "js", "mjs", "cjs", "ts", "go", "c", "h", "cc", "cpp", "rs", "sh", "bash", "rb", "pl",
];

/// Where a sentence ends: `.`, `!` or `?` and a space, or a line break.
pub(crate) static SENTENCE_END: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"[.!?](?:\s+|$)|\n").ok());

/// "tag", "tags", "tagged": a message after it is the tag's.
static TAG_WORD: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)\btag(?:s|ged)?\b").ok());

/// "commit", "commits", "committed": a message after it is a commit's.
static COMMIT_WORD: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)\bcommit(?:s|ted)?\b").ok());

/// How close after "tag" a "commit" is the commit tagged ("tag the
/// current commit"), not one made.
const TAGGED_COMMIT_CHARS: usize = 24;

/// What a quoted message in a goal belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum MessageOwner {
    /// A commit (or nothing said).
    Commit,
    /// A tag: "tag" is nearer before it in its sentence than "commit".
    Tag,
}

/// The goal's quoted messages ("message 'M'", "message: `M`"), not empty,
/// in order, each with what it belongs to: the nearest of "tag" and
/// "commit" before it in its sentence.
pub(crate) fn quoted_messages(goal: &str) -> Vec<(String, MessageOwner)> {
    let (Some(regex), Some(tag_word), Some(commit_word)) =
        (MESSAGE.as_ref(), TAG_WORD.as_ref(), COMMIT_WORD.as_ref())
    else {
        return Vec::new();
    };
    regex
        .captures_iter(goal)
        .filter_map(|c| {
            let start = c.get(0).map_or(0, |m| m.start());
            // A sentence ends at `.`, `!` or `?` before a space (not
            // inside `v1.1.0`), or at a line break.
            let sentence_start = SENTENCE_END
                .as_ref()
                .and_then(|re| re.find_iter(&goal[..start]).last())
                .map_or(0, |m| m.end());
            let before = &goal[sentence_start..start];
            let last = |word: &Regex| word.find_iter(before).last().map(|m| m.start());
            let owner = match (last(tag_word), last(commit_word)) {
                (Some(tag), Some(commit)) if tag > commit => MessageOwner::Tag,
                // "tag the current commit …": the commit is what is tagged.
                (Some(tag), Some(commit)) if commit - tag <= TAGGED_COMMIT_CHARS => {
                    MessageOwner::Tag
                }
                (Some(_), None) => MessageOwner::Tag,
                _ => MessageOwner::Commit,
            };
            let message = quoted_value(&c, 1).filter(|m| !m.trim().is_empty())?;
            Some((message, owner))
        })
        .collect()
}

/// The words of `text` that may name workspace paths: split at spaces,
/// quotes, brackets and punctuation, without a sentence's final `.`, `!`
/// or `?`, a leading `./` or a glob's tail (`docs/*.md` names `docs/`);
/// only those [`safe_path`] accepts (a trailing `/` allowed).
pub(crate) fn path_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| c.is_whitespace() || ",;:()`'\"".contains(c))
        .map(|word| word.split('*').next().unwrap_or_default())
        .map(|word| {
            word.trim_end_matches(['.', '!', '?'])
                .trim_start_matches("./")
        })
        .filter(|word| safe_path(word.trim_end_matches('/')))
}

/// A workspace-relative path with nothing a shell would expand.
pub(crate) fn safe_path(path: &str) -> bool {
    !path.is_empty()
        && !path.starts_with(['-', '/'])
        && !path.split('/').any(|part| part == "..")
        && path
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-/".contains(c))
}

/// `text` as one single-quoted shell word.
pub fn single_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apostrophes_inside_words_are_not_quotes() {
        assert_eq!(
            quoted_texts("Sam's commit 'Fix rounding of totals' isn't on main."),
            ["Fix rounding of totals"]
        );
        assert_eq!(
            quoted_texts("Revert 'Don't panic' and `ls`."),
            ["Don't panic", "ls"]
        );
        assert_eq!(quoted_texts("say \"hi\" or ''"), ["hi"]);
    }
}
