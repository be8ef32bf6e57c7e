//! Rename mutants: a name a failure says is not defined, replaced by the
//! most similar name the project defines, everywhere the project's code
//! (not its tests) uses it; and likewise a key a mapping lacks
//! (`KeyError: 'phone_number'`), replaced in the code's string literals
//! by the most similar key of the project's JSON data or code.
//!
//! A function renamed in one module and still called by its old name in
//! others (`ImportError: cannot import name 'word_count'`, rustc's
//! `cannot find function`, gcc's `implicit declaration of function`) is a
//! common bug that a small model fixes badly: it edits one caller of
//! several, or renames the definition back. The harness knows the missing
//! name ([`crate::localize::undefined_name`]), the names the project
//! defines (tree-sitter definitions) and every use of the missing name
//! (tree-sitter identifiers, never text in strings or comments); the
//! checks judge each candidate, and only one that makes every check pass
//! is kept.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::localize::{
    in_rust_test, is_test_file, named_definitions, preorder, source_files, undefined_name, Failure,
    Language, NameKind, Parsers, UndefinedName,
};

/// A rename of one name in several files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Rename {
    /// The files changed: path relative to the workspace, original text,
    /// text with the rename made; by path.
    pub(crate) files: Vec<RenamedFile>,
    /// What changed, for a user: ``renamed `word_count` → `count_words` in
    /// reading.py, report.py``.
    pub(crate) change: String,
}

/// One file of a [`Rename`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RenamedFile {
    /// Its path relative to the workspace root.
    pub(crate) file: String,
    /// Its text before the rename.
    pub(crate) original: String,
    /// Its text after.
    pub(crate) renamed: String,
}

/// How similar two names must be ([`similarity`]) for one to replace the
/// other.
const MIN_SIMILARITY: f64 = 0.6;

/// The most files one rename may change: a name used that widely is not
/// a stale reference to fix blindly.
const MAX_RENAMED_FILES: usize = 20;

/// The most bytes the files of one rename may hold (it is journaled).
const MAX_RENAMED_BYTES: usize = 256 * 1024;

/// The most undefined names looked at among the failures.
const MAX_NAMES: usize = 2;

/// The rename mutants for the undefined names of `failures` in
/// `workspace`, most likely first, at most `limit`: for each missing name
/// that no code of the project defines, the defined names most similar
/// to it (in the module the failure names first, then by similarity;
/// the tool's own suggestion counts as defined), each applied to every
/// non-test source file that uses the missing name.
pub(crate) fn renames(workspace: &Path, failures: &[Failure], limit: usize) -> Vec<Rename> {
    let mut missing: Vec<UndefinedName> = Vec::new();
    for name in failures.iter().filter_map(undefined_name) {
        if missing.len() < MAX_NAMES && missing.iter().all(|m| m.name != name.name) {
            missing.push(name);
        }
    }
    if missing.is_empty() || limit == 0 {
        return Vec::new();
    }
    let project = Project::read(workspace, &missing);
    let mut found = Vec::new();
    for name in &missing {
        let known = match name.kind {
            NameKind::Identifier => project.defined.contains_key(&name.name),
            NameKind::Key => project.data_keys.contains(&name.name),
        };
        if known {
            continue;
        }
        let uses = project.uses(name);
        for replacement in candidates(name, &project) {
            if found.len() >= limit {
                return found;
            }
            if let Some(rename) = rename(name, &uses, &replacement) {
                found.push(rename);
            }
        }
    }
    found
}

/// The rename `goal` asks for, made in the project's code (not its
/// tests): every identifier named as the old name, the definition
/// included, becomes the new name. `None` when the goal asks for none,
/// the project does not define the old name or defines the new one
/// already, or the rename would touch too much. Found on dev: asked to
/// rename a function and its callers, the model edited one caller per
/// step and never the definition.
pub(crate) fn goal_rename(workspace: &Path, goal: &str) -> Option<Rename> {
    let (from, to) = crate::checks::rename::rename_names(goal)?;
    let name = UndefinedName {
        name: from,
        kind: NameKind::Identifier,
        module: None,
        suggestion: None,
    };
    let project = Project::read(workspace, std::slice::from_ref(&name));
    if !project.defined.contains_key(&name.name) || project.defined.contains_key(&to) {
        return None;
    }
    let protected = crate::checks::clauses::protected_files(goal, workspace);
    rename(&name, &project.uses(&name), &to)
        .filter(|rename| !rename.files.iter().any(|f| protected.contains(&f.file)))
}

/// What one walk of the workspace tells about the missing names.
struct Project {
    /// Every name the project's code (not its tests) defines, with the
    /// files (stem, language) that define it.
    defined: BTreeMap<String, BTreeSet<(String, Language)>>,
    /// The non-test source files that mention a missing name, parsed.
    users: Vec<User>,
    /// The keys of the objects in the project's JSON files (read only when
    /// a key is missing).
    data_keys: BTreeSet<String>,
    /// The short strings of the project's code (`"phone"` of
    /// `user["phone"]`): keys it uses (read only when a key is missing).
    code_keys: BTreeSet<String>,
}

/// A non-test source file that mentions a missing name.
struct User {
    /// Its path relative to the workspace root.
    file: String,
    language: Language,
    source: String,
    tree: tree_sitter::Tree,
}

/// Where one file uses a missing name: its byte ranges.
struct Uses<'p> {
    user: &'p User,
    ranges: Vec<std::ops::Range<usize>>,
}

/// The most keys collected from the project's data and code.
const MAX_KEYS: usize = 10_000;

impl Project {
    /// Walks `workspace` once.
    fn read(workspace: &Path, missing: &[UndefinedName]) -> Project {
        let mut parsers = Parsers::default();
        let mut defined: BTreeMap<String, BTreeSet<(String, Language)>> = BTreeMap::new();
        let mut users = Vec::new();
        let mut data_keys = BTreeSet::new();
        let mut code_keys = BTreeSet::new();
        let keys = missing.iter().any(|m| m.kind == NameKind::Key);
        for file in source_files(workspace) {
            if is_test_file(&file.relative) {
                continue;
            }
            if file.language == Language::Json {
                if let Some(value) = keys
                    .then(|| serde_json::from_str::<serde_json::Value>(&file.source).ok())
                    .flatten()
                {
                    collect_keys(&value, &mut data_keys);
                }
                continue;
            }
            let Ok(tree) = parsers.parse(file.language, &file.source) else {
                continue;
            };
            if keys {
                for range in string_ranges(tree.root_node(), &file.source, None) {
                    if code_keys.len() >= MAX_KEYS {
                        break;
                    }
                    if let Some(text) = file.source.get(range).filter(|t| t.len() <= 64) {
                        code_keys.insert(text.to_string());
                    }
                }
            }
            let stem = Path::new(&file.relative)
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or_default()
                .to_string();
            for (node, span) in named_definitions(&tree, &file.source, file.language) {
                if file.language == Language::Rust && in_rust_test(node, &file.source) {
                    continue;
                }
                defined
                    .entry(span.name)
                    .or_default()
                    .insert((stem.clone(), file.language));
            }
            if missing.iter().any(|m| file.source.contains(&m.name)) {
                users.push(User {
                    file: file.relative,
                    language: file.language,
                    source: file.source,
                    tree,
                });
            }
        }
        Project {
            defined,
            users,
            data_keys,
            code_keys,
        }
    }

    /// Where the project's code uses `missing`: identifiers named so, or
    /// for a key the string literals that are it.
    fn uses(&self, missing: &UndefinedName) -> Vec<Uses<'_>> {
        let from = missing.name.as_str();
        self.users
            .iter()
            .map(|user| {
                let root = user.tree.root_node();
                let ranges = match missing.kind {
                    NameKind::Identifier => {
                        identifier_ranges(root, &user.source, user.language, from)
                    }
                    NameKind::Key => string_ranges(root, &user.source, Some(from)),
                };
                Uses { user, ranges }
            })
            .filter(|uses| !uses.ranges.is_empty())
            .collect()
    }
}

/// `missing` renamed to `to` where it is used (`uses`); `None` when it is
/// used nowhere, or in too many files or bytes.
fn rename(missing: &UndefinedName, uses: &[Uses<'_>], to: &str) -> Option<Rename> {
    let bytes: usize = uses.iter().map(|u| u.user.source.len()).sum();
    if uses.is_empty() || uses.len() > MAX_RENAMED_FILES || bytes > MAX_RENAMED_BYTES {
        return None;
    }
    let files: Vec<RenamedFile> = uses
        .iter()
        .map(|Uses { user, ranges }| {
            let mut renamed = user.source.clone();
            for range in ranges.iter().rev() {
                renamed.replace_range(range.clone(), to);
            }
            RenamedFile {
                file: user.file.clone(),
                original: user.source.clone(),
                renamed,
            }
        })
        .collect();
    let names: Vec<&str> = files.iter().map(|f| f.file.as_str()).collect();
    let what = match missing.kind {
        NameKind::Identifier => "renamed",
        NameKind::Key => "renamed the key",
    };
    Some(Rename {
        change: format!("{what} `{}` → `{to}` in {}", missing.name, names.join(", ")),
        files,
    })
}

/// The defined names that may replace `missing`, most likely first.
fn candidates(missing: &UndefinedName, project: &Project) -> Vec<String> {
    let languages: BTreeSet<Language> = project
        .users
        .iter()
        .filter(|user| user.source.contains(&missing.name))
        .map(|user| user.language)
        .collect();
    let module = missing
        .module
        .as_deref()
        .and_then(|m| m.rsplit(['.', ':']).next());
    let known: Vec<(bool, &str)> = match missing.kind {
        NameKind::Identifier => project
            .defined
            .iter()
            .filter(|(_, sites)| sites.iter().any(|(_, l)| languages.contains(l)))
            .map(|(name, sites)| {
                let in_module = module.is_some_and(|m| sites.iter().any(|(stem, _)| stem == m));
                (in_module, name.as_str())
            })
            .collect(),
        // The data's keys first: the data is what the code reads.
        NameKind::Key => project
            .data_keys
            .iter()
            .map(|key| (true, key.as_str()))
            .chain(project.code_keys.iter().map(|key| (false, key.as_str())))
            .collect(),
    };
    let mut scored: Vec<(bool, f64, &str)> = known
        .into_iter()
        .map(|(first, name)| (first, similarity(&missing.name, name), name))
        .chain(
            missing
                .suggestion
                .as_deref()
                .map(|s| (true, similarity(&missing.name, s).max(MIN_SIMILARITY), s)),
        )
        .filter(|(_, score, name)| *score >= MIN_SIMILARITY && *name != missing.name)
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(b.2)));
    let mut names: Vec<String> = Vec::new();
    for (_, _, name) in scored {
        if !names.iter().any(|n| n == name) {
            names.push(name.to_string());
        }
    }
    names
}

/// How alike two names are, from 0 to 1: the better of their spelling
/// (Damerau–Levenshtein, ignoring case) and their words (`word_count` and
/// `count_words` share every word, a plural `s` aside).
fn similarity(a: &str, b: &str) -> f64 {
    let spelled = strsim::normalized_damerau_levenshtein(&a.to_lowercase(), &b.to_lowercase());
    let (words_a, words_b) = (words(a), words(b));
    let union = words_a.union(&words_b).count();
    let worded = if union == 0 {
        0.0
    } else {
        #[allow(clippy::cast_precision_loss)]
        let ratio = words_a.intersection(&words_b).count() as f64 / union as f64;
        ratio
    };
    // One name's words all in the other's (`phone`, `phone_number`).
    let within = !words_a.is_empty()
        && !words_b.is_empty()
        && (words_a.is_subset(&words_b) || words_b.is_subset(&words_a));
    let within = if within { SUBSET_SIMILARITY } else { 0.0 };
    spelled.max(worded).max(within)
}

/// The [`similarity`] of names one of which has all the other's words.
const SUBSET_SIMILARITY: f64 = 0.7;

/// Every key of the objects in `value`, at most [`MAX_KEYS`].
fn collect_keys(value: &serde_json::Value, keys: &mut BTreeSet<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, inner) in map {
                if keys.len() >= MAX_KEYS {
                    return;
                }
                keys.insert(key.clone());
                collect_keys(inner, keys);
            }
        }
        serde_json::Value::Array(items) => {
            for item in items {
                collect_keys(item, keys);
            }
        }
        _ => {}
    }
}

/// The byte ranges of the contents of the string literals under `root`
/// (the text between the quotes, with no escape or interpolation in
/// it), those equal to `only` when given, outside Rust test code.
fn string_ranges(
    root: tree_sitter::Node<'_>,
    source: &str,
    only: Option<&str>,
) -> Vec<std::ops::Range<usize>> {
    leaves(root, |node| {
        matches!(node.kind(), "string_content" | "string_fragment")
            && node.parent().is_some_and(|string| {
                let mut cursor = string.walk();
                let plain = string.children(&mut cursor).all(|part| {
                    !matches!(
                        part.kind(),
                        "interpolation" | "escape_sequence" | "template_substitution"
                    )
                });
                plain
            })
            && only.is_none_or(|text| source.get(node.byte_range()) == Some(text))
            && !in_rust_test(node, source)
    })
}

/// The words of a name (`snake_case`, `camelCase`, `PascalCase`),
/// lowercase, a plural `s` dropped.
fn words(name: &str) -> BTreeSet<String> {
    let mut words = BTreeSet::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        let boundary = c == '_' || (c.is_uppercase() && previous_lower);
        if boundary && !word.is_empty() {
            words.insert(singular(&word));
            word.clear();
        }
        if c != '_' {
            word.extend(c.to_lowercase());
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
    }
    if !word.is_empty() {
        words.insert(singular(&word));
    }
    words
}

/// `word` without a plural `s` (`words` → `word`; `is` stays).
fn singular(word: &str) -> String {
    match word.strip_suffix('s') {
        Some(stem) if stem.len() >= 3 && !stem.ends_with('s') => stem.to_string(),
        _ => word.to_string(),
    }
}

/// The byte ranges of the identifiers named `name` under `root`, in
/// order: leaves of an identifier kind (`identifier`, `field_identifier`,
/// `property_identifier`…), outside Rust test code.
fn identifier_ranges(
    root: tree_sitter::Node<'_>,
    source: &str,
    language: Language,
    name: &str,
) -> Vec<std::ops::Range<usize>> {
    leaves(root, |node| {
        node.kind().ends_with("identifier")
            && source.get(node.byte_range()) == Some(name)
            && !(language == Language::Rust && in_rust_test(node, source))
    })
}

/// The byte ranges of the leaves under `root` that `keep` keeps, in
/// order.
fn leaves(
    root: tree_sitter::Node<'_>,
    keep: impl Fn(tree_sitter::Node<'_>) -> bool,
) -> Vec<std::ops::Range<usize>> {
    let mut ranges = Vec::new();
    preorder(root, |node| {
        if node.child_count() == 0 && keep(node) {
            ranges.push(node.byte_range());
        }
    });
    ranges
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::localize::FailureKind;

    fn write(root: &Path, files: &[(&str, &str)]) {
        for (path, text) in files {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
    }

    fn failure(message: &str) -> Failure {
        Failure::new(FailureKind::UnittestFailure, message)
    }

    #[test]
    fn names_alike_in_spelling_or_words() {
        assert!(similarity("word_count", "count_words") >= 0.99);
        assert!(similarity("calcualte", "calculate") >= MIN_SIMILARITY);
        assert!(similarity("wordCount", "count_words") >= 0.99);
        assert!(similarity("word_count", "count_lines") < MIN_SIMILARITY);
        assert!(similarity("total", "subtotal_price") < MIN_SIMILARITY);
    }

    #[test]
    fn a_renamed_function_is_renamed_in_every_module_that_uses_it() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            &[
                (
                    "textstats.py",
                    "def count_words(text):\n    return len(text.split())\n\n\ndef count_lines(text):\n    return 1\n",
                ),
                (
                    "report.py",
                    "from textstats import count_lines, word_count\n\n\ndef summary(t):\n    # word_count is the old name\n    return f\"{word_count(t)} words, 'word_count'\"\n",
                ),
                (
                    "reading.py",
                    "import textstats\n\n\ndef minutes(t):\n    return textstats.word_count(t) // 200\n",
                ),
                (
                    "test_docs.py",
                    "from textstats import word_count\n",
                ),
            ],
        );
        let failures = [failure(
            "ImportError: cannot import name 'word_count' from 'textstats' (/w/textstats.py)",
        )];
        let found = renames(dir.path(), &failures, 3);
        assert_eq!(found.len(), 1, "{found:?}");
        let rename = &found[0];
        assert_eq!(
            rename.change,
            "renamed `word_count` → `count_words` in reading.py, report.py"
        );
        assert_eq!(
            rename.files[1].renamed,
            "from textstats import count_lines, count_words\n\n\ndef summary(t):\n    # word_count is the old name\n    return f\"{count_words(t)} words, 'word_count'\"\n"
        );
        assert_eq!(
            rename.files[0].renamed,
            "import textstats\n\n\ndef minutes(t):\n    return textstats.count_words(t) // 200\n"
        );
    }

    #[test]
    fn the_rename_the_goal_asks_for_is_made_in_the_code_not_the_tests() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            &[
                ("orders.py", "def calc_total(items):\n    return sum(items)\n"),
                ("checkout.py", "from orders import calc_total\n\n\ndef pay(items):\n    return calc_total(items)  # calc_total\n"),
                ("test_orders.py", "from orders import order_total\n"),
            ],
        );
        let goal = "Rename calc_total in orders.py to order_total and update its callers; don't change test_orders.py.";
        let rename = goal_rename(dir.path(), goal).unwrap();
        let files: Vec<(&str, &str)> = rename
            .files
            .iter()
            .map(|f| (f.file.as_str(), f.renamed.as_str()))
            .collect();
        assert_eq!(
            files,
            vec![
                ("checkout.py", "from orders import order_total\n\n\ndef pay(items):\n    return order_total(items)  # calc_total\n"),
                ("orders.py", "def order_total(items):\n    return sum(items)\n"),
            ]
        );
        // A protected caller: no rename; the new name taken: none either.
        assert_eq!(
            goal_rename(
                dir.path(),
                "Rename calc_total to order_total; do not change checkout.py."
            ),
            None
        );
        write(dir.path(), &[("util.py", "def order_total():\n    pass\n")]);
        assert_eq!(goal_rename(dir.path(), goal), None);
    }

    #[test]
    fn a_name_the_project_defines_or_nothing_resembles_is_not_renamed() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            &[
                (
                    "a.py",
                    "def word_count(t):\n    return 0\n\n\ndef count_words(t):\n    return 1\n",
                ),
                ("b.py", "from a import word_count, zzz\n"),
            ],
        );
        let defined = [failure(
            "ImportError: cannot import name 'word_count' from 'a'",
        )];
        assert_eq!(renames(dir.path(), &defined, 3), []);
        let unlike = [failure("ImportError: cannot import name 'zzz' from 'a'")];
        assert_eq!(renames(dir.path(), &unlike, 3), []);
        assert_eq!(
            renames(dir.path(), &[failure("AssertionError: 1 != 2")], 3),
            []
        );
    }

    #[test]
    fn rust_code_is_renamed_but_not_its_tests() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            &[(
                "src/lib.rs",
                "pub fn count_words(t: &str) -> usize { t.len() }\n\npub fn report(t: &str) -> usize { word_count(t) }\n\n#[cfg(test)]\nmod tests {\n    fn f() { super::word_count(\"\"); }\n}\n",
            )],
        );
        let failures = [Failure::new(
            FailureKind::RustCompileError,
            "cannot find function `word_count` in this scope",
        )];
        let found = renames(dir.path(), &failures, 3);
        assert_eq!(found.len(), 1);
        assert!(found[0].files[0].renamed.contains(
            "{ count_words(t) }\n\n#[cfg(test)]\nmod tests {\n    fn f() { super::word_count"
        ));
    }

    #[test]
    fn the_tools_own_suggestion_is_tried() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            &[(
                "cart.py",
                "def total(items):\n    subtotal = sum(items)\n    return subtotl\n",
            )],
        );
        let failures = [failure(
            "NameError: name 'subtotl' is not defined. Did you mean: 'subtotal'?",
        )];
        let found = renames(dir.path(), &failures, 3);
        assert_eq!(found.len(), 1);
        assert_eq!(
            found[0].files[0].renamed,
            "def total(items):\n    subtotal = sum(items)\n    return subtotal\n"
        );
    }

    #[test]
    fn a_missing_key_is_renamed_to_the_datas_key() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            &[
                (
                    "users.json",
                    "[{\"name\": \"Ada\", \"phone\": \"555\", \"active\": true}]",
                ),
                (
                    "users.py",
                    "def line(user):\n    return f\"{user['name']} ({user['phone_number']})\"\n\n\ndef label():\n    return 'phone_number: {}'\n",
                ),
            ],
        );
        let failures = [failure("KeyError: 'phone_number'")];
        let found = renames(dir.path(), &failures, 3);
        assert_eq!(
            found[0].change,
            "renamed the key `phone_number` → `phone` in users.py"
        );
        assert_eq!(
            found[0].files[0].renamed,
            "def line(user):\n    return f\"{user['name']} ({user['phone']})\"\n\n\ndef label():\n    return 'phone_number: {}'\n"
        );
        let present = [failure("KeyError: 'active'")];
        assert_eq!(renames(dir.path(), &present, 3), []);
    }
}
