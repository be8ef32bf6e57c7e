//! Mutants of a Makefile that makes a header but compiles its user first:
//! the compiler's `fatal error: version.h: No such file or directory` for
//! `main.c`, while the Makefile has a rule for `version.h` (generated from
//! `VERSION`) and the rule for `main.o` does not list it
//! ([`crate::localize::header_rule_gap`]). The mutant adds the header to
//! that rule's prerequisites, so make makes it first (and again when its
//! own prerequisites change); the checks judge it. Found on dev: edits of
//! the protected source the compiler named, none of the Makefile.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::mutate::Mutant;
use crate::checks::CheckResult;
use crate::localize::{header_rule_gap, is_makefile, missing_header};

/// A compiler's error line: the source file is group 1.
static ERROR_SOURCE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^([A-Za-z0-9_./-]+\.(?:c|cc|cpp|cxx)):\d+:").ok());

/// The prerequisite mutants of `file` (a Makefile a failing check runs,
/// its text `original`) for the checks' `results`: one per header the
/// build missed that the Makefile makes after the object that needs it.
pub(crate) fn header_mutants(
    workspace: &Path,
    file: &str,
    original: &str,
    results: &[CheckResult],
) -> Vec<Mutant> {
    let Some(source_of) = ERROR_SOURCE.as_ref() else {
        return Vec::new();
    };
    if !is_makefile(file) {
        return Vec::new();
    }
    let mut mutants: Vec<Mutant> = Vec::new();
    for result in super::build_flags::failing_builds(results, workspace, file) {
        for line in result.output.lines() {
            let (Some(header), Some(source)) = (
                missing_header(line),
                source_of.captures(line).and_then(|c| c.get(1)),
            ) else {
                continue;
            };
            let Some((object, _)) = header_rule_gap(original, &header, source.as_str()) else {
                continue;
            };
            let Some(text) = with_prerequisite(original, object, &header) else {
                continue;
            };
            if !mutants.iter().any(|m| m.text == text) {
                mutants.push(Mutant {
                    change: format!(
                        "{file} line {object}: `{header}` added to the rule's prerequisites"
                    ),
                    text,
                });
            }
        }
    }
    mutants
}

/// `text` with `prerequisite` added to the rule on `line` (1-based),
/// before a `;` recipe or a `#` comment on that line.
fn with_prerequisite(text: &str, line: u32, prerequisite: &str) -> Option<String> {
    let index = usize::try_from(line).ok()?.checked_sub(1)?;
    let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    let rule = lines.get(index)?;
    let end = rule.find([';', '#']).unwrap_or(rule.len());
    let (head, tail) = rule.split_at(end);
    lines[index] = format!(
        "{} {prerequisite}{}{tail}",
        head.trim_end(),
        if tail.is_empty() { "" } else { " " }
    );
    Some(lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAKEFILE: &str = "prog: main.o\n\tcc -o $@ main.o\n\nmain.o: main.c util.h # the program\n\tcc -c main.c\n\nversion.h: VERSION\n\tprintf x > $@\n";

    #[test]
    fn the_generated_header_becomes_a_prerequisite_of_its_user() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("Makefile"), MAKEFILE).unwrap();
        let failing = CheckResult {
            command: "make".to_string(),
            passed: false,
            exit_code: Some(2),
            output:
                "cc -c main.c\nmain.c:3:10: fatal error: version.h: No such file or directory\n"
                    .to_string(),
            duration_ms: 1,
        };
        let mutants = header_mutants(root, "Makefile", MAKEFILE, std::slice::from_ref(&failing));
        assert_eq!(mutants.len(), 1, "{mutants:?}");
        assert!(
            mutants[0]
                .text
                .contains("main.o: main.c util.h version.h # the program\n"),
            "{}",
            mutants[0].text
        );
        // Once it is listed, there is nothing to add.
        assert!(header_mutants(
            root,
            "Makefile",
            &mutants[0].text,
            std::slice::from_ref(&failing)
        )
        .is_empty());
        assert!(header_mutants(root, "main.c", MAKEFILE, &[failing]).is_empty());
    }
}
