//! What a replacement must keep: the definitions of the code it replaces.
//! A small model asked to add or change one function often gives back
//! only that function; spliced over a whole file or class, that would
//! silently delete the rest. A definition may go only when the change
//! names it (a rename or a removal the instruction asks for).

use crate::localize::{named_definitions, parse_source, Language};

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
    let tree = parse_source(language, source)?;
    if tree.root_node().has_error() {
        return None;
    }
    Some(
        named_definitions(&tree, source, language)
            .into_iter()
            .map(|(_, span)| span.name)
            .filter(|name| !name.is_empty())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const STATS: &str = "def mean(values):\n    return sum(values) / len(values)\n\n\ndef spread(values):\n    return max(values) - min(values)\n";

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
    fn unknown_languages_and_broken_code_are_not_judged() {
        assert!(dropped_definitions("notes.txt", "a", "b", "").is_empty());
        assert!(dropped_definitions("stats.py", STATS, "def (:\n", "").is_empty());
    }
}
