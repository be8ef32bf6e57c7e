//! What a goal says of a table it asks for (a `.csv` or `.tsv` file): its
//! header ("with the header `ip,bytes`", "columns sku,name,shortfall"),
//! the order of its rows ("sorted by date and then by sensor name",
//! "largest shortfall first, and by sku when equal", "biggest total
//! first, ties ordered by IP as plain text") and ISO dates ("ISO dates
//! (2024-01-03)" in its date columns). One check reads the file as a
//! table (Python's `csv`, so quoted fields are whole) and names the first
//! thing that breaks a clause: the header it has, the two rows out of
//! order, the date that is not ISO.
//!
//! A condition, never evidence alone: a table with the right header and
//! order may still hold the wrong rows. Each clause is read leniently
//! (numbers compared as numbers, the rest as text; a key whose column the
//! goal does not name is the table's one numeric column, and no key when
//! it has several), so a right answer never fails it. Found on dev: four
//! data tasks stated their table's header and order, the programs the
//! model wrote broke them, and only "the file is written" judged them;
//! the numeric-order rule ([`super::phrases::file_order`]) read the
//! header line as a line without a number and could never pass.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::json;

use super::phrases::single_quote;

/// The rule's name.
pub const RULE_TABLE: &str = "table";

/// "with the header `a,b`", "header row: `a,b`", "columns a,b,c",
/// "columns `a`, `b` and `c`": the stated header in backticks (group 1)
/// or as a bare comma-separated list of names (group 2).
static HEADER: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:header(?:\s+(?:row|line))?|columns|column\s+names)\s*(?:of\s+|is\s+|:\s*)?(?:`([^`\n]+)`|([A-Za-z_][A-Za-z0-9_]*(?:\s*,\s*[A-Za-z_][A-Za-z0-9_]*)+))",
    )
    .ok()
});

/// One more backticked name of a listed header: ", `b`", " and `c`".
static MORE_NAMES: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"^\s*(?:,\s*(?:and\s+)?|and\s+)`([^`\n]+)`").ok());

/// "without a header", "no header row": the table has none.
static NO_HEADER: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:no|without(?:\s+a)?|omit(?:\s+the)?|skip(?:\s+the)?)\s+header").ok()
});

/// "sorted by ...", "ordered alphabetically by ...", "sort the rows by
/// ...": what follows "by", to the end of the clause (group 2); group 1
/// is a word between the verb and "by".
static SORTED_BY: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:sorted|ordered|sort(?:ed)?\s+(?:it|them|the\s+rows)|order(?:ed)?\s+(?:it|them|the\s+rows))\s+(?:(\w+)\s+)?by\s+([^.;:\n]+)",
    )
    .ok()
});

/// Where one sort key ends and the next begins: ", then by", " and then
/// ", " then ", " and by".
static NEXT_KEY: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\s*,\s*(?:and\s+)?(?:then\s+)?(?:by\s+)?|\s+(?:and\s+)?then\s+(?:by\s+)?|\s+and\s+(?:by\s+)?")
        .ok()
});

/// "largest shortfall first", "biggest total first", "oldest first": the
/// superlative (group 1) and the words naming the column (group 2).
static SUPERLATIVE_FIRST: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(biggest|largest|highest|greatest|most|smallest|lowest|fewest|least|cheapest|oldest|newest|earliest|latest)\s+((?:[A-Za-z_]+\s+){0,3}?)first\b",
    )
    .ok()
});

/// Words that make a key descending.
static DESCENDING_WORDS: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:descending|decreasing|reversed?|biggest|largest|highest|greatest|most|newest|latest)\b").ok()
});

/// Words that make a key ascending (said of a key that follows one).
static ASCENDING_WORDS: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:ascending|increasing|smallest|lowest|fewest|least|cheapest|oldest|earliest|alphabetical(?:ly)?)\b").ok()
});

/// Words that compare a key as text, not as numbers.
static TEXT_WORDS: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:plain\s+text|as\s+text|as\s+strings?|alphabetical(?:ly)?|byte\s+order)\b")
        .ok()
});

/// Words of a tie: what follows orders rows the key before left equal.
static TIE_WORDS: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)\b(?:ties?|tied|equal|same)\b").ok());

/// "by X" in a tie clause.
static BY: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)\bby\s+([^,;\n]+?)(?:[.;,]\s|[.;,]?$)").ok());

/// "ISO dates", "ISO 8601 dates", "YYYY-MM-DD".
static ISO_DATES: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\bISO(?:[\s-]?8601)?\s+(?:format(?:ted)?\s+)?dates?\b|\bYYYY-MM-DD\b").ok()
});

/// One key of a table's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortKey {
    /// The column, by its header name; `None`: the table's one numeric
    /// column, or its one date column when `dated`.
    pub column: Option<String>,
    /// "oldest first", no column named: the key is the table's dates.
    pub dated: bool,
    /// Biggest first.
    pub descending: bool,
    /// Compared as text even where its values are numbers.
    pub text: bool,
}

/// What a goal says of the table it asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// The file (`.csv` or `.tsv`).
    pub file: String,
    /// Its field separator.
    pub delimiter: char,
    /// The header it must have.
    pub header: Vec<String>,
    /// The order of its rows, first key first (empty: any order).
    pub keys: Vec<SortKey>,
    /// Columns whose values must be ISO dates (or empty).
    pub iso_dates: Vec<String>,
}

/// The table `goal` asks to be written in `workspace` (read at the run's
/// start, [`super::phrases::asked_file`]), when it states the table's
/// header after naming the file and before naming another file of the
/// workspace; `None` otherwise.
pub fn table_goal(goal: &str, workspace: &Path) -> Option<Table> {
    table_goal_for(
        goal,
        workspace,
        &super::phrases::asked_file(goal, workspace)?,
    )
}

/// [`table_goal`] of `file`, the file the goal asks for.
pub(crate) fn table_goal_for(goal: &str, workspace: &Path, file: &str) -> Option<Table> {
    let file = file.to_string();
    let delimiter = match Path::new(&file).extension()?.to_str()? {
        "csv" => ',',
        "tsv" => '\t',
        _ => return None,
    };
    if NO_HEADER.as_ref()?.is_match(goal) {
        return None;
    }
    let after = goal.find(file.as_str())? + file.len();
    let rest = &goal[after..];
    let found = HEADER.as_ref()?.captures(rest)?;
    let start = found.get(0)?.start();
    let between = &rest[..start];
    if super::phrases::path_words(between)
        .any(|word| word.contains('.') && word != file && workspace.join(word).exists())
    {
        return None;
    }
    let header = header_names(&found, &rest[found.get(0)?.end()..], delimiter)?;
    let clauses = &rest[start..];
    let keys = sort_keys(clauses, &header);
    let iso_dates = if ISO_DATES.as_ref()?.is_match(goal) {
        header
            .iter()
            .filter(|name| {
                let lower = name.to_lowercase();
                lower.contains("date") || lower == "day"
            })
            .cloned()
            .collect()
    } else {
        Vec::new()
    };
    Some(Table {
        file,
        delimiter,
        header,
        keys,
        iso_dates,
    })
}

/// The header names of a [`HEADER`] match (`after` is the goal's text
/// after it, for more backticked names).
fn header_names(found: &regex::Captures<'_>, after: &str, delimiter: char) -> Option<Vec<String>> {
    let mut names: Vec<String> = Vec::new();
    let split = |text: &str| -> Vec<String> {
        let separator = if delimiter == '\t' && text.contains('\t') {
            '\t'
        } else {
            ','
        };
        text.split(separator)
            .map(|n| n.trim().to_string())
            .collect()
    };
    if let Some(quoted) = found.get(1) {
        names.extend(split(quoted.as_str()));
        if names.len() == 1 {
            let mut rest = after;
            while let Some(more) = MORE_NAMES.as_ref()?.captures(rest) {
                names.push(more.get(1)?.as_str().trim().to_string());
                rest = &rest[more.get(0)?.end()..];
            }
        }
    } else {
        names.extend(split(found.get(2)?.as_str()));
    }
    let plain = |n: &String| {
        !n.is_empty() && n.chars().count() <= 60 && !n.contains(['`', '\'', '"', '\n'])
    };
    (names.iter().all(plain) && !names.is_empty()).then_some(names)
}

/// The sort keys of `clauses` (the goal after its header) over `header`.
fn sort_keys(clauses: &str, header: &[String]) -> Vec<SortKey> {
    let mut keys = Vec::new();
    let sorted = SORTED_BY.as_ref().and_then(|r| r.captures(clauses));
    let superlative = SUPERLATIVE_FIRST.as_ref().and_then(|r| r.captures(clauses));
    // "biggest total first, ties ordered by IP": the first clause orders,
    // the one after it breaks ties.
    let sorted = sorted.filter(|s| {
        superlative
            .as_ref()
            .is_none_or(|f| s.get(0).map_or(0, |m| m.start()) < f.get(0).map_or(0, |m| m.start()))
    });
    if let Some(found) = sorted {
        let text_all = found.get(1).is_some_and(|word| {
            TEXT_WORDS
                .as_ref()
                .is_some_and(|r| r.is_match(word.as_str()))
        });
        let phrase = found.get(2).map_or("", |m| m.as_str());
        let parts: Vec<&str> = match NEXT_KEY.as_ref() {
            Some(next) => next.split(phrase).collect(),
            None => vec![phrase],
        };
        for part in parts {
            let descending = DESCENDING_WORDS.as_ref().is_some_and(|r| r.is_match(part));
            let ascending = ASCENDING_WORDS.as_ref().is_some_and(|r| r.is_match(part));
            let text = text_all || TEXT_WORDS.as_ref().is_some_and(|r| r.is_match(part));
            match column_named(part, header) {
                Some(column) => keys.push(SortKey {
                    column: Some(column),
                    descending: descending && !ascending,
                    text,
                    dated: false,
                }),
                None => match keys.last_mut() {
                    // "sorted by count, biggest first": the key before.
                    Some(last) if descending != ascending => last.descending = descending,
                    _ => break,
                },
            }
        }
        return keys;
    }
    let Some(found) = superlative else {
        return keys;
    };
    let word = found.get(1).map_or("", |m| m.as_str());
    let named = found.get(2).map_or("", |m| m.as_str());
    let column = column_named(named, header);
    let dated = column.is_none()
        && ["oldest", "newest", "earliest", "latest"].contains(&word.to_lowercase().as_str());
    keys.push(SortKey {
        column,
        descending: DESCENDING_WORDS.as_ref().is_some_and(|r| r.is_match(word)),
        text: false,
        dated,
    });
    // The tie's key, in the rest of the sentence: "..., ties ordered by
    // IP as plain text", "..., and by sku when equal".
    let end = found.get(0).map_or(0, |m| m.end());
    let sentence = clauses[end..]
        .split(". ")
        .next()
        .unwrap_or_default()
        .trim_end_matches('.');
    if TIE_WORDS.as_ref().is_some_and(|r| r.is_match(sentence)) {
        if let Some(by) = BY.as_ref().and_then(|r| r.captures(sentence)) {
            let part = by.get(1).map_or("", |m| m.as_str());
            if let Some(column) = column_named(part, header) {
                keys.push(SortKey {
                    column: Some(column),
                    descending: DESCENDING_WORDS.as_ref().is_some_and(|r| r.is_match(part)),
                    text: TEXT_WORDS.as_ref().is_some_and(|r| r.is_match(part)),
                    dated: false,
                });
            }
        }
    }
    keys
}

/// The header column `part` names, as a whole word (its name, its name
/// with spaces for underscores, or the first part of a name such as
/// `temperature_c`): the one named first.
fn column_named(part: &str, header: &[String]) -> Option<String> {
    let lower = part.to_lowercase();
    let mut best: Option<(usize, &String)> = None;
    for column in header {
        let name = column.to_lowercase();
        let mut forms = vec![name.clone(), name.replace('_', " ")];
        if let Some(head) = name.split('_').next().filter(|h| h.len() >= 3) {
            forms.push(head.to_string());
        }
        for form in forms {
            if let Some(at) = word_position(&lower, &form) {
                if best.is_none_or(|(b, _)| at < b) {
                    best = Some((at, column));
                }
            }
        }
    }
    best.map(|(_, column)| column.clone())
}

/// Where `word` first stands in `text` as a whole word.
fn word_position(text: &str, word: &str) -> Option<usize> {
    if word.is_empty() {
        return None;
    }
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    let mut from = 0;
    while let Some(found) = text[from..].find(word) {
        let at = from + found;
        let end = at + word.len();
        let before = text[..at].chars().next_back().is_none_or(|c| !is_word(c));
        let after = text[end..].chars().next().is_none_or(|c| !is_word(c));
        if before && after {
            return Some(at);
        }
        from = at + word.len().max(1);
    }
    None
}

/// The program that checks a table (argument 1: the file; 2: the spec as
/// JSON). It exits with a message naming the first broken clause.
const TABLE_PROGRAM: &str = r#"import csv, json, re, sys
path, spec = sys.argv[1], json.loads(sys.argv[2])
def fail(message):
    sys.exit(path + ": " + message)
try:
    with open(path, newline="", encoding="utf-8-sig") as f:
        rows = [r for r in csv.reader(f, delimiter=spec["delimiter"]) if any(c.strip() for c in r)]
except (OSError, UnicodeDecodeError, csv.Error) as e:
    fail("cannot be read as a table: " + str(e))
if not rows:
    fail("is empty: the goal asks for a table")
head = [c.strip() for c in rows[0]]
want = spec["header"]
if head != want:
    fail("its header is " + ",".join(head) + "; the goal asks for the header " + ",".join(want))
body = rows[1:]
for n, row in enumerate(body, 2):
    if len(row) != len(head):
        fail("row %d has %d fields, the header %d: %s" % (n, len(row), len(head), spec["delimiter"].join(row)))
for name in spec["iso_dates"]:
    i = head.index(name)
    for n, row in enumerate(body, 2):
        v = row[i].strip()
        if v and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", v):
            fail("row %d: its %s is %s, not an ISO date (YYYY-MM-DD)" % (n, name, v))
def number(v):
    try:
        return float(v)
    except ValueError:
        return None
keys, said = [], []
for key in spec["keys"]:
    if key["column"] is None:
        if key["dated"]:
            fits = lambda v: re.match(r"\d{4}-\d{2}", v) is not None
        else:
            fits = lambda v: number(v) is not None
        found = [i for i in range(len(head)) if body and all(fits(r[i].strip()) for r in body)]
        if len(found) != 1:
            break
        i = found[0]
    else:
        i = head.index(key["column"])
    keys.append((i, key["descending"], key["text"]))
    said.append(head[i] + (" (biggest first)" if key["descending"] else ""))
def value(row, i, text):
    v = row[i].strip()
    n = None if text else number(v)
    return (0, n, "") if n is not None else (1, 0, v)
for n in range(1, len(body)):
    a, b = body[n - 1], body[n]
    for i, descending, text in keys:
        x, y = value(a, i, text), value(b, i, text)
        if x == y:
            continue
        if (x > y) != descending:
            d = spec["delimiter"]
            fail("row %d (%s) must come before row %d (%s): the goal orders the rows by %s" % (n + 2, d.join(b), n + 1, d.join(a), ", then ".join(said)))
        break
"#;

/// The check of `table`: see the module's doc.
pub fn table_check(table: &Table) -> String {
    format!(
        "python3 -c {} {} {}",
        single_quote(TABLE_PROGRAM),
        table.file,
        single_quote(&table_spec(table).to_string())
    )
}

/// `table` as the JSON its check's program reads (and the harness's
/// finishing of a script's table, [`crate::table_finish`]).
pub(crate) fn table_spec(table: &Table) -> serde_json::Value {
    json!({
        "delimiter": table.delimiter.to_string(),
        "header": table.header,
        "keys": table.keys.iter().map(|k| json!({
            "column": k.column,
            "descending": k.descending,
            "text": k.text,
            "dated": k.dated,
        })).collect::<Vec<_>>(),
        "iso_dates": table.iso_dates,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::checks::test_bash as bash;

    const TRAFFIC: &str = "Go through access.log and add up the response size per client IP. Put the result in traffic.csv with the header `ip,bytes`, biggest total first, ties ordered by IP as plain text. Every IP gets a row.";
    const RESTOCK: &str = "Make me a restock list from inventory.json: reorder.csv with columns sku,name,shortfall for every item whose stock is below its reorder_at level. Largest shortfall first, and by sku when equal. Leave inventory.json as it is.";
    const READINGS: &str = "messwerte.csv is an export from a German Excel. Convert it into readings.csv: comma separated, header `date,sensor,temperature_c,humidity_pct`, ISO dates (2024-01-03), decimal points, sorted by date and then by sensor name. Don't change messwerte.csv.";

    fn workspace(files: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for file in files {
            std::fs::write(dir.path().join(file), "x\n").unwrap();
        }
        dir
    }

    fn key(column: Option<&str>, descending: bool, text: bool) -> SortKey {
        SortKey {
            column: column.map(str::to_string),
            descending,
            text,
            dated: false,
        }
    }

    #[test]
    fn a_tables_header_and_order_are_read_from_the_goal() {
        let dir = workspace(&["access.log", "inventory.json", "messwerte.csv"]);
        let table = table_goal(TRAFFIC, dir.path()).unwrap();
        assert_eq!(table.file, "traffic.csv");
        assert_eq!(table.header, ["ip", "bytes"]);
        assert_eq!(
            table.keys,
            [key(None, true, false), key(Some("ip"), false, true)]
        );
        let table = table_goal(RESTOCK, dir.path()).unwrap();
        assert_eq!(
            (table.file.as_str(), table.header.clone()),
            (
                "reorder.csv",
                vec!["sku".into(), "name".into(), "shortfall".into()]
            )
        );
        assert_eq!(
            table.keys,
            [
                key(Some("shortfall"), true, false),
                key(Some("sku"), false, false)
            ]
        );
        let table = table_goal(READINGS, dir.path()).unwrap();
        assert_eq!(
            table.keys,
            [
                key(Some("date"), false, false),
                key(Some("sensor"), false, false)
            ]
        );
        assert_eq!(table.iso_dates, ["date"]);
        let table = table_goal(
            "Write hosts.csv with the columns `host`, `cpus` and `os`, sorted by cpus, biggest first.",
            dir.path(),
        )
        .unwrap();
        assert_eq!(table.header, ["host", "cpus", "os"]);
        assert_eq!(table.keys, [key(Some("cpus"), true, false)]);
        let table = table_goal(
            "Write visits.csv with the header `day,visits`, newest first.",
            dir.path(),
        )
        .unwrap();
        assert_eq!(
            table.keys,
            [SortKey {
                dated: true,
                ..key(None, true, false)
            }]
        );
    }

    #[test]
    fn a_tables_order_is_its_check_not_the_line_order_rule() {
        let dir = workspace(&["access.log"]);
        let rules: Vec<String> = crate::checks::clauses::clause_checks(TRAFFIC, dir.path())
            .into_iter()
            .filter_map(|c| match c.source {
                crate::checks::CheckSource::Clause { rule, proves } => {
                    assert!(!proves, "a condition");
                    Some(rule)
                }
                _ => None,
            })
            .collect();
        assert!(rules.iter().any(|r| r == RULE_TABLE), "{rules:?}");
        assert!(
            !rules
                .iter()
                .any(|r| r == crate::checks::clauses::RULE_FILE_ORDER),
            "{rules:?}"
        );
    }

    #[test]
    fn a_header_said_of_another_file_or_none_is_no_table() {
        let dir = workspace(&["sales.csv"]);
        assert_eq!(
            table_goal(
                "Write totals.txt from sales.csv with the header `a,b`.",
                dir.path()
            ),
            None,
            "not a table file"
        );
        assert_eq!(
            table_goal(
                "Write totals.csv without a header row, columns region,total.",
                dir.path()
            ),
            None
        );
        assert_eq!(
            table_goal(
                "Write totals.csv from sales.csv, which has the columns region,amount.",
                dir.path()
            ),
            None,
            "the header named is the input's"
        );
        assert_eq!(table_goal("Write totals.csv by region.", dir.path()), None);
    }

    #[test]
    fn the_check_names_the_broken_clause_and_passes_a_right_table() {
        let dir = workspace(&["access.log", "inventory.json", "messwerte.csv"]);
        let run = |goal: &str, file: &str, text: &str| {
            let table = table_goal(goal, dir.path()).unwrap();
            std::fs::write(dir.path().join(file), text).unwrap();
            let output = bash(dir.path(), &table_check(&table));
            std::fs::remove_file(dir.path().join(file)).unwrap();
            (
                output.status.success(),
                String::from_utf8_lossy(&output.stderr).trim().to_string(),
            )
        };
        assert_eq!(
            run(
                TRAFFIC,
                "traffic.csv",
                "ip,bytes\n10.0.0.9,500\n10.0.0.10,70\n10.0.0.2,70\n"
            ),
            (true, String::new())
        );
        assert_eq!(
            run(TRAFFIC, "traffic.csv", "ip,bytes\n10.0.0.2,70\n10.0.0.9,500\n"),
            (
                false,
                "traffic.csv: row 3 (10.0.0.9,500) must come before row 2 (10.0.0.2,70): the goal orders the rows by bytes (biggest first), then ip".into()
            )
        );
        assert_eq!(
            run(TRAFFIC, "traffic.csv", "ip,bytes\n10.0.0.2,70\n10.0.0.10,70\n"),
            (
                false,
                "traffic.csv: row 3 (10.0.0.10,70) must come before row 2 (10.0.0.2,70): the goal orders the rows by bytes (biggest first), then ip".into()
            ),
            "ties as plain text"
        );
        assert_eq!(
            run(TRAFFIC, "traffic.csv", "client,bytes\n10.0.0.2,70\n"),
            (
                false,
                "traffic.csv: its header is client,bytes; the goal asks for the header ip,bytes"
                    .into()
            )
        );
        assert_eq!(
            run(
                RESTOCK,
                "reorder.csv",
                "sku,name,shortfall\nB2,\"Bolt, M4\",9\nA1,Nut,3\nC3,Cap,3\n"
            ),
            (true, String::new()),
            "a quoted field with a comma is one field"
        );
        assert_eq!(
            run(
                RESTOCK,
                "reorder.csv",
                "sku,name,shortfall\nA1,Nut,3\nB2,Bolt\n"
            ),
            (
                false,
                "reorder.csv: row 3 has 2 fields, the header 3: B2,Bolt".into()
            )
        );
        assert_eq!(
            run(
                READINGS,
                "readings.csv",
                "date,sensor,temperature_c,humidity_pct\n2024-01-02,a,1.5,\n2024-01-02,b,2.0,40\n2024-01-03,a,1.0,41\n"
            ),
            (true, String::new())
        );
        assert_eq!(
            run(
                READINGS,
                "readings.csv",
                "date,sensor,temperature_c,humidity_pct\n02.01.2024,a,1.5,\n"
            ),
            (
                false,
                "readings.csv: row 2: its date is 02.01.2024, not an ISO date (YYYY-MM-DD)".into()
            )
        );
        assert_eq!(
            run(
                "Write visits.csv with the header `day,visits`, newest first.",
                "visits.csv",
                "day,visits\n2024-02-01,3\n2024-01-31,9\n"
            ),
            (true, String::new()),
            "by the dates, not the one numeric column"
        );
        assert_eq!(
            run(READINGS, "readings.csv", ""),
            (
                false,
                "readings.csv: is empty: the goal asks for a table".into()
            )
        );
    }
}
