//! Mutants of a Makefile that names an object no source makes: the
//! linker's `cannot find textstats.o` or make's `No rule to make target
//! 'textstats.o'`, while `textstats.c` does not exist and `text.c` does,
//! with no rule or variable naming `text.o`. The mutant names the object
//! (and a missing source of the same stem) after the workspace's source
//! file most alike in name, beside the Makefile; the checks judge it, and
//! only one that makes every check pass is kept. Found on dev: the model
//! "fixed" such a Makefile by deleting the program's rule.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

use super::mutate::Mutant;
use crate::checks::CheckResult;
use crate::localize::is_makefile;

/// `cannot find textstats.o`, `No rule to make target 'textstats.o'`: the
/// object's stem is group 1 or 2.
static MISSING_OBJECT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"cannot find ([A-Za-z0-9_./-]+)\.o\b|No rule to make target [`'‘]([A-Za-z0-9_./-]+)\.o['’]",
    )
    .ok()
});

/// Source extensions an object is compiled from.
const SOURCES: &[&str] = &["c", "cc", "cpp", "cxx"];

/// How alike two stems must be (normalized Damerau–Levenshtein, or one
/// the start of the other) for one to stand for the other.
const MIN_SIMILARITY: f64 = 0.4;

/// The object mutants of `file` (a Makefile a failing check runs, its
/// text `original`) for the checks' `results`: for each object the
/// build's output says is missing, one mutant per likely source.
pub(crate) fn object_mutants(
    workspace: &Path,
    file: &str,
    original: &str,
    results: &[CheckResult],
) -> Vec<Mutant> {
    let Some(regex) = MISSING_OBJECT.as_ref() else {
        return Vec::new();
    };
    if !is_makefile(file) {
        return Vec::new();
    }
    let dir = Path::new(file).parent().unwrap_or(Path::new(""));
    let mut mutants = Vec::new();
    for result in super::build_flags::failing_builds(results, workspace, file) {
        for captures in regex.captures_iter(&result.output) {
            let Some(stem) = captures.get(1).or_else(|| captures.get(2)) else {
                continue;
            };
            let stem = stem.as_str();
            let has_source = SOURCES
                .iter()
                .any(|ext| workspace.join(dir).join(format!("{stem}.{ext}")).is_file());
            if has_source {
                continue;
            }
            for source in likely_sources(workspace, dir, stem, original) {
                if let Some(text) = renamed(original, stem, &source) {
                    let change = format!("{file}: `{stem}.o` → `{source}.o`");
                    if !mutants.iter().any(|m: &Mutant| m.text == text) {
                        mutants.push(Mutant { text, change });
                    }
                }
            }
        }
    }
    mutants
}

/// The stems of the source files beside the Makefile that no `.o` of it
/// names yet, most alike `stem` first.
fn likely_sources(workspace: &Path, dir: &Path, stem: &str, makefile: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(workspace.join(dir)) else {
        return Vec::new();
    };
    let mut found: Vec<(f64, String)> = entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().to_string();
            let (source, ext) = name.rsplit_once('.')?;
            SOURCES.contains(&ext).then(|| source.to_string())
        })
        .filter(|source| !mentions(makefile, &format!("{source}.o")))
        .map(|source| {
            let (a, b) = (stem.to_lowercase(), source.to_lowercase());
            let prefix = a.starts_with(&b) || b.starts_with(&a);
            let score = strsim::normalized_damerau_levenshtein(&a, &b).max(if prefix {
                MIN_SIMILARITY
            } else {
                0.0
            });
            (score, source)
        })
        .filter(|(score, _)| *score >= MIN_SIMILARITY)
        .collect();
    found.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    found.into_iter().map(|(_, source)| source).collect()
}

/// Whether `text` has `word` as a whole word (not inside a longer name).
fn mentions(text: &str, word: &str) -> bool {
    Regex::new(&format!(
        r"(?:^|[^A-Za-z0-9_./-]){}(?:$|[^A-Za-z0-9_])",
        regex::escape(word)
    ))
    .is_ok_and(|r| r.is_match(text))
}

/// `makefile` with `stem.o` and `stem.c` (any source extension) named
/// after `source`; `None` when nothing changes.
fn renamed(makefile: &str, stem: &str, source: &str) -> Option<String> {
    let regex = Regex::new(&format!(
        r"(^|[^A-Za-z0-9_./-]){}\.(o|c|cc|cpp|cxx)\b",
        regex::escape(stem)
    ))
    .ok()?;
    let text = regex
        .replace_all(makefile, |c: &regex::Captures<'_>| {
            format!("{}{source}.{}", &c[1], &c[2])
        })
        .to_string();
    (text != makefile).then_some(text)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const MAKEFILE: &str = "CC = gcc\nOBJS = main.o textstats.o\n\nwordstat: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n\nmain.o: main.c text.h\ntextstats.o: text.c text.h\n";

    fn failing(output: &str) -> CheckResult {
        CheckResult {
            command: "make".to_string(),
            passed: false,
            exit_code: Some(2),
            output: output.to_string(),
            duration_ms: 0,
        }
    }

    #[test]
    fn an_object_no_source_makes_is_named_after_the_likely_source() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("Makefile"), MAKEFILE).unwrap();
        for file in ["main.c", "text.c", "text.h"] {
            std::fs::write(root.join(file), "").unwrap();
        }
        let output = "gcc -o wordstat main.o textstats.o\n/usr/bin/ld: cannot find textstats.o: No such file or directory\ncollect2: error: ld returned 1 exit status\n";
        let mutants = object_mutants(root, "Makefile", MAKEFILE, &[failing(output)]);
        assert_eq!(mutants.len(), 1, "{mutants:?}");
        assert_eq!(
            mutants[0].text,
            "CC = gcc\nOBJS = main.o text.o\n\nwordstat: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n\nmain.o: main.c text.h\ntext.o: text.c text.h\n"
        );
        let make = "make: *** No rule to make target 'textstats.o', needed by 'wordstat'.  Stop.\n";
        assert_eq!(
            object_mutants(root, "Makefile", MAKEFILE, &[failing(make)]).len(),
            1
        );
    }

    #[test]
    fn no_mutant_when_the_source_exists_or_nothing_is_alike() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("Makefile"), MAKEFILE).unwrap();
        std::fs::write(root.join("main.c"), "").unwrap();
        std::fs::write(root.join("zzz.c"), "").unwrap();
        let output = "/usr/bin/ld: cannot find textstats.o: No such file or directory\n";
        assert!(object_mutants(root, "Makefile", MAKEFILE, &[failing(output)]).is_empty());
        std::fs::write(root.join("textstats.c"), "").unwrap();
        assert!(object_mutants(root, "Makefile", MAKEFILE, &[failing(output)]).is_empty());
        assert!(object_mutants(root, "build.sh", MAKEFILE, &[failing(output)]).is_empty());
    }
}
