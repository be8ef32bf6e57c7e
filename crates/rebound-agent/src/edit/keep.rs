//! What a replacement must keep: the definitions of the code it replaces,
//! and the keys and values of a data file whose syntax it repairs.
//! A small model asked to add or change one function often gives back
//! only that function; spliced over a whole file or class, that would
//! silently delete the rest. A definition may go only when the change
//! names it (a rename or a removal the instruction asks for).

use crate::localize::{named_definitions, parse_source, Language, Span};

/// The names defined in `before` (a file's text before an edit) that
/// `after` (its text after) no longer defines and `mentioned` (the step's instruction
/// and the goal) does not name as a word: the definitions the replacement
/// would drop. Empty when `file`'s language has no grammar or either side
/// does not parse.
pub fn dropped_definitions(file: &str, before: &str, after: &str, mentioned: &str) -> Vec<String> {
    let Some(language) = Language::from_path(file) else {
        return Vec::new();
    };
    let (Some(names_before), Some(names_after)) = (names(language, before), names(language, after))
    else {
        return Vec::new();
    };
    let words: Vec<&str> = mentioned
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    let mut dropped: Vec<String> = names_before
        .into_iter()
        .filter(|name| !names_after.contains(name))
        .filter(|name| !words.contains(&name.as_str()))
        .collect();
    dropped.dedup();
    dropped
}

/// The names of the definitions in `source`, in order; `None` when it
/// does not parse.
fn names(language: Language, source: &str) -> Option<Vec<String>> {
    Some(
        spans(language, source)?
            .into_iter()
            .map(|span| span.name)
            .collect(),
    )
}

/// The named definitions in `source`, in order (outermost first); `None`
/// when it does not parse.
fn spans(language: Language, source: &str) -> Option<Vec<Span>> {
    let tree = parse_source(language, source)?;
    if tree.root_node().has_error() {
        return None;
    }
    Some(
        named_definitions(&tree, source, language)
            .into_iter()
            .map(|(_, span)| span)
            .filter(|span| !span.name.is_empty())
            .collect(),
    )
}

/// Whether `after`, a rewrite of a whole file, lost most of `before`: more
/// than half of its non-blank lines are gone and it has fewer than half as
/// many. A model asked to change a line of a file it was given whole
/// sometimes answers with only the part it changed.
pub fn lost_most_lines(before: &str, after: &str) -> bool {
    let (was, now) = (content_lines(before), content_lines(after));
    let gone = was.iter().filter(|line| !now.contains(line)).count();
    was.len() >= 4 && gone * 2 > was.len() && now.len() * 2 < was.len()
}

/// Whether `after` only deletes lines of `before`: it has fewer non-blank
/// lines, and each of them is a line of `before` (trimmed). Where no
/// check can judge an edit, such a candidate is refused unless the step
/// asks for a removal ([`asks_removal`]). Found on dev: with no check, a
/// rewrite of a whole program that deleted the three lines printing its
/// list was applied as the fix of a wrong sort order.
pub(crate) fn only_deletes(before: &str, after: &str) -> bool {
    let (was, now) = (content_lines(before), content_lines(after));
    now.len() < was.len() && now.iter().all(|line| was.contains(line))
}

/// The non-blank lines of `text`, trimmed: what the line comparisons of
/// a rewrite count.
fn content_lines(text: &str) -> Vec<&str> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect()
}

/// Whether `text` (a step's instruction and the goal) asks for something
/// to go: "remove", "delete", "drop", "strip".
pub(crate) fn asks_removal(text: &str) -> bool {
    let lower = text.to_lowercase();
    lower.split(|c: char| !c.is_alphanumeric()).any(|word| {
        matches!(
            word,
            "remove" | "removes" | "delete" | "deletes" | "drop" | "drops" | "strip" | "strips"
        )
    })
}

/// What a candidate would lose, in words (empty when nothing): the
/// definitions `instruction` does not name ([`dropped_definitions`]); when
/// `whole_file` was rewritten, most of its lines ([`lost_most_lines`]);
/// when the edit repairs a file that did not parse (`repair`), the data
/// file's words ([`changed_data_words`]).
pub(crate) fn losses(
    file: &str,
    before: &str,
    after: &str,
    instruction: &str,
    whole_file: bool,
    repair: bool,
) -> Vec<String> {
    let mut lost = dropped_definitions(file, before, after, instruction);
    if whole_file && lost_most_lines(before, after) {
        lost.push("most of the file's lines".to_string());
    }
    if repair {
        lost.extend(changed_data_words(file, before, after, instruction));
    }
    lost
}

/// A replacement that would drop the span's definitions, read as an
/// addition beside it: `span_text` kept, `code` after it, one blank line
/// between. A small model asked to add a function (`median`) to a file
/// often rewrites the definition it was shown (`mean`) into the new one;
/// the instruction was an addition. Returns the code to splice over the
/// span, or `None` when `code` defines no name `before` (the file's text)
/// lacks: then it is a rewrite, and dropping is refused as before.
pub(crate) fn as_addition(file: &str, before: &str, span_text: &str, code: &str) -> Option<String> {
    let language = Language::from_path(file)?;
    let defined_before = names(language, before)?;
    let defined_by_code = names(language, code)?;
    defined_by_code
        .iter()
        .any(|name| !defined_before.contains(name))
        .then(|| format!("{}\n\n{}", span_text.trim_end(), code.trim_end()))
}

/// A replacement of a larger span (a whole file) that is only some of
/// its definitions, rewritten, read as those definitions' rewrites: each
/// outermost definition of `code` replaces the one definition of its
/// name and kind in `before` (the file's text), with the comment lines
/// just above it in `code` kept unless `before` has them there already;
/// everything else in the file stays. A small model asked to fix a file
/// given whole often answers with the one function it fixed (found on
/// dev: a right `money` function refused as "drops most of the file").
/// `None` when `code` defines nothing, a name `before` lacks (see
/// [`as_addition`]) or has twice, or either side does not parse.
pub(crate) fn as_definition_rewrites(file: &str, before: &str, code: &str) -> Option<String> {
    let language = Language::from_path(file)?;
    let (in_file, in_code) = (spans(language, before)?, spans(language, code)?);
    // The outermost definitions of the code (a method's class, not the
    // method), in order.
    let mut outermost: Vec<&Span> = Vec::new();
    for span in &in_code {
        if !outermost
            .iter()
            .any(|o| o.start_line <= span.start_line && span.end_line <= o.end_line)
        {
            outermost.push(span);
        }
    }
    if outermost.is_empty() {
        return None;
    }
    let code_lines: Vec<&str> = code.lines().collect();
    let mut lines: Vec<String> = before.lines().map(str::to_string).collect();
    let mut replacements: Vec<(usize, usize, Vec<String>)> = Vec::new();
    let mut previous_end = 0usize;
    for span in outermost {
        let mut same = in_file
            .iter()
            .filter(|f| f.name == span.name && f.kind == span.kind);
        let (Some(target), None) = (same.next(), same.next()) else {
            return None;
        };
        let (start, end) = (target.start_line as usize, target.end_line as usize);
        // The code's lines from after the previous definition: comments
        // above this one belong to it.
        let from = previous_end;
        let mut segment: Vec<&str> = code_lines
            .get(from..span.end_line as usize)?
            .iter()
            .copied()
            .skip_while(|l| l.trim().is_empty())
            .collect();
        previous_end = span.end_line as usize;
        // Leading lines the file already has right above the definition.
        let above = &lines[..start.saturating_sub(1)];
        let lead = (span.start_line as usize).saturating_sub(from + 1);
        let lead = lead.min(segment.len());
        let kept_lead = segment[..lead]
            .iter()
            .rev()
            .zip(above.iter().rev())
            .take_while(|(a, b)| a.trim() == b.trim())
            .count();
        segment.drain(lead - kept_lead..lead);
        replacements.push((start, end, segment.iter().map(|l| l.to_string()).collect()));
    }
    replacements.sort_by_key(|(start, _, _)| std::cmp::Reverse(*start));
    for (start, end, with) in replacements {
        lines.splice(start - 1..end, with);
    }
    let mut text = lines.join("\n");
    if before.ends_with('\n') {
        text.push('\n');
    }
    (text != before).then_some(text)
}

/// Extensions of data files, whose words are their keys and values.
const DATA_FILES: &[&str] = &["json", "toml", "yaml", "yml", "ini", "cfg"];

/// Whether `file` is a data file (JSON, TOML, YAML, INI), by its
/// extension: its words are keys and values a repair must keep.
pub fn is_data_file(file: &str) -> bool {
    let extension = std::path::Path::new(file)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default()
        .to_ascii_lowercase();
    DATA_FILES.contains(&extension.as_str())
}

/// The words (runs of letters, digits and `_`) a repair of the data file
/// `file` added or lost between `before` and `after`, each with `+` or
/// `-`, except words `mentioned` (the step's instruction) names: fixing a
/// data file's syntax moves punctuation, quotes and indentation, never
/// its keys and values. Empty for other files.
pub fn changed_data_words(file: &str, before: &str, after: &str, mentioned: &str) -> Vec<String> {
    if !is_data_file(file) {
        return Vec::new();
    }
    let count = |text: &str| {
        let mut counts: std::collections::BTreeMap<String, i64> = Default::default();
        for word in words(text) {
            *counts.entry(word.to_string()).or_default() += 1;
        }
        counts
    };
    let (was, now) = (count(before), count(after));
    let allowed: Vec<&str> = words(mentioned).collect();
    let mut changed = Vec::new();
    for word in was
        .keys()
        .chain(now.keys().filter(|w| !was.contains_key(*w)))
    {
        let difference = now.get(word).copied().unwrap_or(0) - was.get(word).copied().unwrap_or(0);
        if difference != 0 && !allowed.contains(&word.as_str()) {
            let sign = if difference > 0 { '+' } else { '-' };
            changed.push(format!("{sign}{word}"));
        }
    }
    changed
}

/// The words of `text`: runs of letters, digits and `_`.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    const STATS: &str = "def mean(values):\n    return sum(values) / len(values)\n\n\ndef spread(values):\n    return max(values) - min(values)\n";

    #[test]
    fn a_new_definition_in_place_of_the_shown_one_is_an_addition() {
        let span = "def mean(values):\n    return sum(values) / len(values)\n";
        let median = "def median(values):\n    ordered = sorted(values)\n    return ordered[len(ordered) // 2]\n";
        let added = as_addition("stats.py", STATS, span, median).unwrap();
        assert!(added.starts_with(span.trim_end()), "{added}");
        assert!(
            added.ends_with("return ordered[len(ordered) // 2]"),
            "{added}"
        );
        assert!(added.contains("\n\ndef median"), "{added}");
        // A rewrite of the shown definition defines nothing new.
        let rewrite = "def mean(values):\n    return sum(values) / max(len(values), 1)\n";
        assert_eq!(as_addition("stats.py", STATS, span, rewrite), None);
        // Code in no known language, or that does not parse: no reading.
        assert_eq!(as_addition("notes.txt", STATS, span, median), None);
        assert_eq!(as_addition("stats.py", STATS, span, "def median(:\n"), None);
    }

    #[test]
    fn one_definition_given_for_a_whole_file_rewrites_that_definition() {
        let file = "package main\n\nimport \"fmt\"\n\n// money formats cents.\nfunc money(cents int) string {\n\treturn fmt.Sprintf(\"%d.%d\", cents/100, cents%100)\n}\n\nfunc main() {\n\tfmt.Println(money(105))\n}\n";
        let code = "// money formats cents.\nfunc money(cents int) string {\n\treturn fmt.Sprintf(\"%.2f\", float64(cents)/100)\n}\n";
        let rewritten = as_definition_rewrites("main.go", file, code).unwrap();
        assert_eq!(
            rewritten,
            file.replace(
                "\"%d.%d\", cents/100, cents%100",
                "\"%.2f\", float64(cents)/100"
            )
        );
        // Python, a method inside its class given alone.
        let cart = "class Cart:\n    def total(self):\n        return 0\n\n    def add(self, x):\n        pass\n";
        let method = "def total(self):\n    return sum(self.items)\n";
        assert_eq!(
            as_definition_rewrites("cart.py", cart, method),
            None,
            "a function is not the method"
        );
        // A name the file lacks, or nothing defined: no reading.
        assert_eq!(
            as_definition_rewrites("stats.py", STATS, "def median(v):\n    return v\n"),
            None
        );
        assert_eq!(as_definition_rewrites("stats.py", STATS, "x +\n"), None);
    }

    #[test]
    fn a_rewrite_that_keeps_every_definition_drops_none() {
        let after = format!(
            "{STATS}\n\ndef median(values):\n    return sorted(values)[len(values) // 2]\n"
        );
        assert!(dropped_definitions("stats.py", STATS, &after, "Add median").is_empty());
    }

    #[test]
    fn a_rewrite_of_only_the_new_function_drops_the_others() {
        let after = "def median(values):\n    return sorted(values)[len(values) // 2]\n";
        assert_eq!(
            dropped_definitions("stats.py", STATS, after, "Add a median function"),
            ["mean", "spread"]
        );
    }

    #[test]
    fn a_definition_the_change_names_may_go() {
        let after = "def average(values):\n    return sum(values) / len(values)\n\n\ndef spread(values):\n    return max(values) - min(values)\n";
        assert!(dropped_definitions("stats.py", STATS, after, "Rename mean to average").is_empty());
        assert_eq!(
            dropped_definitions("stats.py", STATS, after, "Rename the function"),
            ["mean"]
        );
    }

    #[test]
    fn a_rewrite_that_keeps_only_the_changed_part_lost_most_lines() {
        let script = "#!/usr/bin/env bash\nset -euo pipefail\n\nmkdir -p backup\nfor f in $(ls notes/*.txt); do\n    cp $f backup/\ndone\necho done\n";
        assert!(lost_most_lines(
            script,
            "for f in notes/*; do\n    cp \"$f\" backup/\ndone\n"
        ));
        let fixed = script
            .replace("$(ls notes/*.txt)", "notes/*.txt")
            .replace("cp $f", "cp \"$f\"");
        assert!(!lost_most_lines(script, &fixed));
        assert!(!lost_most_lines("a\nb\n", "c\n"), "too small to tell");
    }

    #[test]
    fn a_data_file_repair_keeps_its_words() {
        let broken = "name = mail-relay\n[server\nport = 2525\n";
        let fixed = "name = \"mail-relay\"\n[server]\nport = 2525\n";
        assert!(changed_data_words("settings.toml", broken, fixed, "Fix it").is_empty());
        let lost = "[server]\nport = 2525\n";
        assert_eq!(
            changed_data_words("settings.toml", broken, lost, "Fix it"),
            ["-mail", "-name", "-relay"]
        );
        let yaml = "when: branch == \"main\"\n";
        let invented = "when: branch in [\"main\", \"feature/*\"]\n";
        assert_eq!(
            changed_data_words(
                "deploy.yml",
                yaml,
                invented,
                "Fix: mapping values are not allowed here; in deploy.yml"
            ),
            ["+feature"],
            "a word the instruction has may change"
        );
        assert!(changed_data_words("notes.txt", "a", "b", "").is_empty());
    }

    #[test]
    fn unknown_languages_and_broken_code_are_not_judged() {
        assert!(dropped_definitions("notes.txt", "a", "b", "").is_empty());
        assert!(dropped_definitions("stats.py", STATS, "def (:\n", "").is_empty());
    }

    #[test]
    fn a_candidate_that_only_deletes_lines_is_told_apart() {
        let before = "fn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n";
        assert!(only_deletes(before, "fn main() {\n    let x = 1;\n}\n"));
        assert!(!only_deletes(before, "fn main() {\n    let x = 2;\n}\n"));
        assert!(!only_deletes(before, before));
        assert!(asks_removal("Remove the debug print"));
        assert!(!asks_removal(
            "Fix the sort order; removal of rows is wrong"
        ));
    }
}
