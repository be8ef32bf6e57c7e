//! The files a goal says to keep as they are: "do not change
//! test_calc.py", "without touching spread.c", "leave inventory.json as
//! it is", "temps.csv must stay as it is". The executor puts such a file
//! back after any step that changed it ([`crate::protect`]), and the
//! planner is told not to edit it.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::phrases::{path_words, SENTENCE_END};

/// Text of one sentence: a dot only inside a word (a file name), never a
/// sentence's end.
const IN_SENTENCE: &str = r"(?:[^.;!?\n]|\.[A-Za-z0-9_/])";

/// What a kept file is left as: "untouched", "alone", "as it is",
/// "unchanged", "intact", "the same", "unmodified".
const AS_IT_IS: &str = r"(?:untouched|alone|unchanged|intact|unmodified|the\s+same|as\s+(?:it|they)\s+(?:is|are|was|were|stands?))\b";

/// "leave X as it is", "please leave X itself untouched", "keep X
/// unchanged", "leave X alone": the object is group 1. Found on dev: three
/// new data tasks said "leave subscribers.csv itself untouched", "leave
/// inventory.json as it is", "leave workouts.txt alone", nothing protected
/// them, and the planner's edits rewrote the data the answer is computed
/// from.
static LEAVE_AS_IT_IS: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)\b(?:leave|leaves|keep|keeps)\s+({IN_SENTENCE}+?)\s+(?:itself\s+|themselves\s+)?{AS_IT_IS}"
    ))
    .ok()
});

/// "temps.csv must stay as it is", "the tests should remain unchanged",
/// "scores.csv has to stay untouched": the object (group 1) is the text
/// of the sentence before the verb.
static STAYS_AS_IT_IS: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)({IN_SENTENCE}+?)\s+(?:itself\s+|themselves\s+)?(?:must|should|has\s+to|have\s+to|needs?\s+to|is\s+to|are\s+to|will|can)\s+(?:stay|remain|be\s+left|be\s+kept)\s+{AS_IT_IS}"
    ))
    .ok()
});

/// Words of an object that keeps only part of a file: "leave the rest
/// of config.json unchanged" asks for a change to config.json.
const PART_WORDS: &[&str] = &["rest", "other", "others", "else", "remaining", "remainder"];

/// "do not change X", "without touching X", "don't modify X or Y": the
/// object of the clause is group 1.
static KEEP_UNCHANGED: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:do\s+not|don't|dont|never|without|must\s+not|should\s+not)\s+(?:change|changing|touch|touching|modify|modifying|edit|editing|alter|altering)\s+(.+?)(?:[.;!?](?:\s|$)|\n|$)",
    )
    .ok()
});

/// Files listed at most from a protected directory.
const MAX_PROTECTED_FILES: usize = 200;

/// The workspace files the goal says not to change ("do not change
/// test_calc.py", "without touching spread.c or the tests/ directory"):
/// each word of such a clause that names a file of `workspace`, or every
/// file of a directory it names, relative and sorted. Words that name
/// nothing in the workspace are ignored.
pub fn protected_files(goal: &str, workspace: &Path) -> Vec<String> {
    let mut files: Vec<String> = Vec::new();
    for object in kept_as_they_are(goal) {
        let words = lowercase_words(object);
        if !words.iter().any(|w| PART_WORDS.contains(&w.as_str())) && !names_a_property(&words) {
            files.extend(named_files(object, workspace));
        }
    }
    let Some(regex) = KEEP_UNCHANGED.as_ref() else {
        return finish(files);
    };
    for captures in regex.captures_iter(goal) {
        let Some(object) = captures.get(1) else {
            continue;
        };
        // "without changing them", "don't touch it": the files its
        // sentence names before the clause (found on dev: "so that
        // main.py and test_inventory.py work as they are, without
        // changing them" protected nothing, and main.py was edited).
        let words = lowercase_words(object.as_str());
        if names_a_property(&words) {
            // "without changing any of its settings": the file's values
            // are to stay (the values rule compares them), not its text
            // (found on dev: json-syntax's config.json was protected, and
            // the harness's repair of its syntax never planned).
            continue;
        }
        let pronoun = words.first().is_some_and(|w| {
            matches!(
                w.as_str(),
                "it" | "them" | "these" | "those" | "either" | "both" | "any"
            )
        }) && !path_words(object.as_str()).any(|word| workspace.join(word).exists());
        let object_text = if pronoun {
            let start = captures.get(0).map_or(0, |m| m.start());
            let sentence_start = SENTENCE_END
                .as_ref()
                .and_then(|re| re.find_iter(&goal[..start]).last())
                .map_or(0, |m| m.end());
            &goal[sentence_start..start]
        } else {
            object.as_str()
        };
        files.extend(named_files(object_text, workspace));
    }
    finish(files)
}

/// `files` sorted, once each, at most [`MAX_PROTECTED_FILES`].
fn finish(mut files: Vec<String>) -> Vec<String> {
    files.sort();
    files.dedup();
    files.truncate(MAX_PROTECTED_FILES);
    files
}

/// The objects of the goal's "leave X as it is" and "X must stay as it
/// is" clauses.
fn kept_as_they_are(goal: &str) -> Vec<&str> {
    [&LEAVE_AS_IT_IS, &STAYS_AS_IT_IS]
        .into_iter()
        .filter_map(|regex| regex.as_ref())
        .flat_map(|regex| regex.captures_iter(goal))
        .filter_map(|captures| captures.get(1).map(|m| m.as_str()))
        .collect()
}

/// The words of `text`, lowercase.
fn lowercase_words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The workspace files `text` names: by path (every file of a named
/// directory) or by kind ([`kind_named_files`]).
fn named_files(text: &str, workspace: &Path) -> Vec<String> {
    let mut files = kind_named_files(text, workspace);
    for word in path_words(text) {
        let path = workspace.join(word);
        if path.is_file() {
            files.push(word.to_string());
        } else if path.is_dir() {
            let mut inside = Vec::new();
            files_under(workspace, &path, &mut inside);
            files.extend(inside);
        }
    }
    files
}

/// Whether a protecting clause's object (`words`, lowercase) names a
/// property of a file rather than a file: "its settings", "any of its
/// values", "their keys" — a possessive and a noun other than the file's
/// contents or text.
fn names_a_property(words: &[String]) -> bool {
    let rest = match words {
        [any, of, rest @ ..] if any == "any" && of == "of" => rest,
        rest => rest,
    };
    match rest {
        [possessive, noun, ..] if possessive == "its" || possessive == "their" => !matches!(
            noun.as_str(),
            "content" | "contents" | "text" | "file" | "files" | "code" | "source" | "lines"
        ),
        _ => false,
    }
}

/// Words that name files by their kind rather than their name ("the
/// example config", "the sample data", "the templates").
const KIND_WORDS: &[&str] = &["example", "sample", "template"];

/// The workspace files a protecting clause names by kind (`text` says
/// "the example config" and `digest.ini.example` is there): each file
/// whose name has one of [`KIND_WORDS`] the text uses (or its plural) as
/// a part between dots, dashes or underscores. Found on dev: "don't
/// change digest.py, the example config or the logs" protected
/// digest.py and logs/, and a script rewrote `digest.ini.example`.
fn kind_named_files(text: &str, workspace: &Path) -> Vec<String> {
    let lower = text.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .map(|word| word.strip_suffix('s').unwrap_or(word))
        .filter(|word| KIND_WORDS.contains(word))
        .collect();
    if words.is_empty() {
        return Vec::new();
    }
    let mut all = Vec::new();
    files_under(workspace, workspace, &mut all);
    all.into_iter()
        .filter(|file| {
            let name = file.rsplit('/').next().unwrap_or(file).to_lowercase();
            name.split(['.', '-', '_'])
                .any(|part| words.contains(&part.strip_suffix('s').unwrap_or(part)))
        })
        .collect()
}

/// The files under `dir` (relative to `root`), hidden ones left out.
fn files_under(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if out.len() >= MAX_PROTECTED_FILES {
            return;
        }
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        if path.is_dir() {
            files_under(root, &path, out);
        } else if let Ok(relative) = path.strip_prefix(root) {
            out.push(relative.to_string_lossy().to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn files_the_goal_says_not_to_change_are_found_in_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::write(ws.join("spread.c"), "").unwrap();
        std::fs::write(ws.join("test_calc.py"), "").unwrap();
        std::fs::create_dir_all(ws.join("tests/unit")).unwrap();
        std::fs::write(ws.join("tests/unit/test_a.py"), "").unwrap();
        assert_eq!(
            protected_files("Fix the build, without touching spread.c.", ws),
            vec!["spread.c"]
        );
        assert_eq!(
            protected_files("Fix calc.py; do not change `test_calc.py` or tests/.", ws),
            vec!["test_calc.py", "tests/unit/test_a.py"]
        );
        assert!(protected_files("Do not change the API. Fix spread.c.", ws).is_empty());
        assert!(protected_files("don't touch ../etc/passwd", ws).is_empty());
        // A pronoun: the files its sentence names before it.
        assert_eq!(
            protected_files("Fix it so that spread.c and test_calc.py work as they are, without changing them. Fix calc.py.", ws),
            vec!["spread.c", "test_calc.py"]
        );
        assert!(protected_files("Fix spread.c. Do not change it.", ws).is_empty());
        // A property of a file, not the file.
        assert!(protected_files(
            "Fix the syntax of spread.c without changing any of its settings.",
            ws
        )
        .is_empty());
        // Files named by their kind.
        std::fs::write(ws.join("digest.ini.example"), "").unwrap();
        std::fs::write(ws.join("sample_orders.csv"), "").unwrap();
        assert_eq!(
            protected_files(
                "Fix it. Don't change spread.c, the example config or the tests.",
                ws
            ),
            vec!["digest.ini.example", "spread.c", "tests/unit/test_a.py"]
        );
        assert_eq!(
            protected_files("Leave it; do not modify the samples.", ws),
            vec!["sample_orders.csv"]
        );
        assert!(
            protected_files("Do not change the config.", ws).is_empty(),
            "a kind word is needed"
        );
    }

    #[test]
    fn files_left_as_they_are_are_protected() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        for file in [
            "subscribers.csv",
            "inventory.json",
            "temps.csv",
            "workouts.txt",
            "config.json",
        ] {
            std::fs::write(ws.join(file), "").unwrap();
        }
        let cases = [
            ("Dedupe it into clean.csv. Please leave subscribers.csv itself untouched.", vec!["subscribers.csv"]),
            ("Make me a restock list from inventory.json: reorder.csv. Leave inventory.json as it is.", vec!["inventory.json"]),
            ("Fix streak.js. Leave workouts.txt alone.", vec!["workouts.txt"]),
            ("Please fix the script; temps.csv must stay as it is.", vec!["temps.csv"]),
            ("Fix it. The files temps.csv and workouts.txt should remain unchanged.", vec!["temps.csv", "workouts.txt"]),
            ("Keep config.json unchanged and fix the parser.", vec!["config.json"]),
        ];
        for (goal, want) in cases {
            assert_eq!(protected_files(goal, ws), want, "{goal}");
        }
        // A part of a file kept is a change to the file.
        assert!(protected_files(
            "Set the port to 8080 and leave the rest of config.json unchanged.",
            ws
        )
        .is_empty());
        assert!(protected_files(
            "Set the port in config.json; its other values must stay the same.",
            ws
        )
        .is_empty());
        // Nothing the workspace holds, or not a file at all.
        assert!(protected_files("Leave the output format as it is.", ws).is_empty());
        assert!(protected_files("Fix spread.c. Leave it alone afterwards.", ws).is_empty());
    }
}
