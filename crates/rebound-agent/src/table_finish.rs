//! The harness finishes the table a script step's program wrote to the
//! form the goal states ([`crate::checks::table::Table`]): what the goal
//! says of the table's form is mechanical, and a small model gets it
//! wrong while computing the rows right. Found on dev: a restock list
//! written without its header line (then, shown the check that said so,
//! with `;` between its fields), and readings whose dates came out as
//! `2024-01-03T00:00:00` in three candidates in a row.
//!
//! Only what the goal fixes and the rows leave no doubt about is
//! finished: fields split by another common separator when every row then
//! has the header's count; a header that differs in case, spaces or
//! underscores written as the goal gives it; the header line added when
//! the first line is a row (it has a number where every row has one, and
//! none of the header's names); midnight timestamps in an ISO-date column
//! cut to their date; the rows sorted by the goal's keys (as its check
//! compares them). A table the program did not write, a different header,
//! rows of another length: left as they are, for the checks to report.
//!
//! The finishing is Python appended to the program (after its own lines,
//! so a traceback's line numbers stay the program's), run when the program
//! gets to its end; it says on stderr what it changed. The checks still
//! judge the result, and the rows' values are the program's alone.

use crate::checks::table::{table_spec, Table};

/// The Python that finishes the table: `finish(path, spec)`.
const FINISH_PROGRAM: &str = r#"
def _rebound_finish_table(path, spec):
    import csv as _csv, io as _io, re as _re, sys as _sys
    try:
        with open(path, newline="", encoding="utf-8-sig") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError):
        return
    want, sep = spec["header"], spec["delimiter"]
    def parse(d):
        try:
            return [r for r in _csv.reader(_io.StringIO(text), delimiter=d) if any(c.strip() for c in r)]
        except _csv.Error:
            return None
    rows = parse(sep)
    if not rows:
        return
    notes = []
    if len(want) > 1 and all(len(r) == 1 for r in rows):
        for other in [";", "\t", "|", ","]:
            alt = parse(other) if other != sep else None
            if alt and all(len(r) == len(want) for r in alt):
                rows = alt
                notes.append("fields separated by %r as the goal asks, not %r" % (sep, other))
                break
    def norm(v):
        return _re.sub(r"[\s_-]+", "", v.strip().lower())
    def number(v):
        try:
            return float(v)
        except ValueError:
            return None
    head = [c.strip() for c in rows[0]]
    if head != want:
        numeric = [i for i in range(len(want)) if rows[1:] and all(len(r) == len(want) and number(r[i].strip()) is not None for r in rows[1:])]
        if [norm(c) for c in head] == [norm(c) for c in want]:
            rows[0] = list(want)
            notes.append("the header written as the goal gives it")
        elif len(head) == len(want) and not set(map(norm, head)) & set(map(norm, want)) and any(number(head[i]) is not None for i in numeric):
            rows.insert(0, list(want))
            notes.append("the header line the goal gives added")
        else:
            return
    body = rows[1:]
    if any(len(r) != len(want) for r in body):
        return
    for name in spec["iso_dates"]:
        i = want.index(name)
        for r in body:
            if i < len(r):
                m = _re.fullmatch(r"(\d{4}-\d{2}-\d{2})[T ]00:00(?::00(?:\.0+)?)?", r[i].strip())
                if m:
                    r[i] = m.group(1)
                    if "midnight times cut from ISO dates" not in notes:
                        notes.append("midnight times cut from ISO dates")
    keys = []
    for key in spec["keys"]:
        if key["column"] is None:
            if key["dated"]:
                fits = lambda v: _re.match(r"\d{4}-\d{2}", v) is not None
            else:
                fits = lambda v: number(v) is not None
            found = [i for i in range(len(want)) if body and all(i < len(r) and fits(r[i].strip()) for r in body)]
            if len(found) != 1:
                break
            keys.append((found[0], key["descending"], key["text"]))
        else:
            keys.append((want.index(key["column"]), key["descending"], key["text"]))
    def value(row, i, text):
        v = row[i].strip() if i < len(row) else ""
        n = None if text else number(v)
        return (0, n, "") if n is not None else (1, 0, v)
    before = [list(r) for r in body]
    for i, descending, text in reversed(keys):
        body.sort(key=lambda r: value(r, i, text), reverse=descending)
    if body != before:
        notes.append("rows sorted as the goal orders them")
    if not notes:
        return
    with open(path, "w", newline="", encoding="utf-8") as f:
        _csv.writer(f, delimiter=sep, lineterminator="\n").writerows([rows[0]] + body)
    print("rebound finished %s as the goal's table: %s" % (path, "; ".join(notes)), file=_sys.stderr)
"#;

/// The Python lines appended to a script step's program when the goal
/// asks for `table`: they finish it once the program has run to its end.
pub(crate) fn finishing_epilogue(table: &Table) -> String {
    format!(
        "\n{FINISH_PROGRAM}\ntry:\n    _rebound_finish_table({}, __import__('json').loads({}))\nexcept Exception as _error:\n    __import__('sys').stderr.write('rebound could not finish the table: %r\\n' % (_error,))\n",
        python_string(&table.file),
        python_string(&table_spec(table).to_string()),
    )
}

/// `text` as a Python string literal (JSON's escapes are Python's too).
fn python_string(text: &str) -> String {
    serde_json::Value::String(text.to_string()).to_string()
}

/// The shell command that runs the finishing alone on the table in the
/// current directory (for tests and for a user reading the code).
#[cfg(test)]
fn finishing_command(table: &Table) -> String {
    format!(
        "python3 -c {}",
        crate::checks::shell_quote(&finishing_epilogue(table))
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::checks::table::{table_check, table_goal};
    use crate::checks::test_bash as bash;

    const RESTOCK: &str = "Make me a restock list from inventory.json: reorder.csv with columns sku,name,shortfall for every item whose stock is below its reorder_at level. Largest shortfall first, and by sku when equal.";
    const READINGS: &str = "Convert messwerte.csv into readings.csv: comma separated, header `date,sensor,temperature_c`, ISO dates (2024-01-03), sorted by date and then by sensor name.";

    fn table_in(goal: &str, data: &str) -> (tempfile::TempDir, Table) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(data), "x\n").unwrap();
        let table = table_goal(goal, dir.path()).unwrap();
        (dir, table)
    }

    /// Writes `content` as the table, finishes it, and gives the file's
    /// text, the finishing's stderr, and whether the table check passes.
    fn finish(dir: &std::path::Path, table: &Table, content: &str) -> (String, String, bool) {
        std::fs::write(dir.join(&table.file), content).unwrap();
        let finished = bash(dir, &finishing_command(table));
        let err = String::from_utf8_lossy(&finished.stderr).to_string();
        assert!(finished.status.success(), "{err}");
        let text = std::fs::read_to_string(dir.join(&table.file)).unwrap();
        let check = bash(dir, &table_check(table));
        (text, err, check.status.success())
    }

    #[test]
    fn a_table_without_its_header_and_out_of_order_is_finished() {
        let (dir, table) = table_in(RESTOCK, "inventory.json");
        let (text, said, passes) = finish(
            dir.path(),
            &table,
            "BR-1050,\"Paper filters, size 4\",50\nAB-1,Kettle,7\nAA-9,Cups,50\n",
        );
        assert_eq!(
            text,
            "sku,name,shortfall\nAA-9,Cups,50\nBR-1050,\"Paper filters, size 4\",50\nAB-1,Kettle,7\n"
        );
        assert!(
            said.contains("the header line the goal gives added"),
            "{said}"
        );
        assert!(said.contains("rows sorted"), "{said}");
        assert!(passes);
    }

    #[test]
    fn another_separator_a_header_s_case_and_midnight_times_are_finished() {
        let (dir, table) = table_in(READINGS, "messwerte.csv");
        let (text, said, passes) = finish(
            dir.path(),
            &table,
            "Date;Sensor;Temperature_C\n2024-01-03T00:00:00;b;1.5\n2024-01-03T00:00:00;a;2.0\n",
        );
        assert_eq!(
            text,
            "date,sensor,temperature_c\n2024-01-03,a,2.0\n2024-01-03,b,1.5\n"
        );
        assert!(said.contains("separated by ','"), "{said}");
        assert!(said.contains("midnight"), "{said}");
        assert!(passes);
    }

    #[test]
    fn a_right_table_a_different_header_and_text_rows_are_left_as_they_are() {
        let (dir, table) = table_in(RESTOCK, "inventory.json");
        let right = "sku,name,shortfall\nAA-9,Cups,50\nAB-1,Kettle,7\n";
        let (text, said, passes) = finish(dir.path(), &table, right);
        assert_eq!((text.as_str(), said.as_str(), passes), (right, "", true));
        // Another header: the check says so; nothing is guessed.
        let other = "item,title,missing\nAB-1,Kettle,7\nAA-9,Cups,50\n";
        let (text, _, passes) = finish(dir.path(), &table, other);
        assert_eq!((text.as_str(), passes), (other, false));
        // A first line with no number is not taken for a row.
        let words = "AB-1,Kettle,many\nAA-9,Cups,50\n";
        let (text, _, passes) = finish(dir.path(), &table, words);
        assert_eq!((text.as_str(), passes), (words, false));
        // A missing file: nothing is written.
        std::fs::remove_file(dir.path().join("reorder.csv")).unwrap();
        let finished = bash(dir.path(), &finishing_command(&table));
        assert!(finished.status.success());
        assert!(finished.stderr.is_empty());
        assert!(!dir.path().join("reorder.csv").exists());
    }
}
