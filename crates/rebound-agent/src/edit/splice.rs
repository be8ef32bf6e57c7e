//! Splicing a replacement into a file: the span's lines are replaced, with
//! what models get wrong forgiven (line numbers copied from a numbered
//! window, indentation lost, the whole file given back) and the file's
//! line ends kept.

use std::collections::HashMap;

use super::{EditError, EditSpan};

/// How much of the file outside the span a replacement must repeat to be
/// taken for the whole file, in percent of its non-blank lines.
const WHOLE_FILE_PERCENT: usize = 80;

/// `file_text` with `span`'s lines replaced by `replacement` (the code of
/// a model's answer). For a new file (`span.exists` false) the result is
/// the replacement. The replacement is re-indented to the span's
/// indentation; line numbers copied from a numbered window are dropped; a
/// replacement that repeats the rest of the file replaces the whole file.
/// A result equal to `file_text` is [`EditError::NoChange`]; a `file_text`
/// whose span lines are not `span.text` is [`EditError::Stale`].
pub fn splice(file_text: &str, span: &EditSpan, replacement: &str) -> Result<String, EditError> {
    let replacement = replacement.replace("\r\n", "\n");
    let mut lines: Vec<&str> = replacement.split('\n').collect();
    while lines.last().is_some_and(|line| line.trim().is_empty()) {
        lines.pop();
    }
    if lines.is_empty() {
        return Err(EditError::Unusable("the replacement is empty".to_string()));
    }
    let lines = strip_line_numbers(lines, &span.text);
    let tabbed;
    let lines = if super::makefile::is_makefile(&span.file) {
        tabbed = super::makefile::recipe_tabs(&lines);
        tabbed.iter().map(String::as_str).collect()
    } else {
        lines
    };
    if !span.exists {
        return Ok(lines.join("\n") + "\n");
    }
    let eol = if uses_crlf(file_text) { "\r\n" } else { "\n" };
    let file_lines: Vec<&str> = file_text.split_inclusive('\n').collect();
    let stale = || EditError::Stale {
        file: span.file.clone(),
    };
    let start = usize::try_from(span.start_line.saturating_sub(1)).map_err(|_| stale())?;
    let end = usize::try_from(span.end_line).map_err(|_| stale())?;
    let original = file_lines.get(start..end).ok_or_else(stale)?;
    if original.concat() != span.text {
        return Err(stale());
    }
    let before = &file_lines[..start];
    let after = &file_lines[end..];
    let mut result = String::with_capacity(file_text.len() + replacement.len());
    if span.is_insertion() && !looks_like_whole_file(before, after, &lines, original) {
        // New code after the last line, a blank line between.
        result.push_str(file_text);
        if !file_text.is_empty() && !file_text.ends_with('\n') {
            result.push_str(eol);
        }
        if before.last().is_some_and(|line| !line.trim().is_empty()) {
            result.push_str(eol);
        }
        result.push_str(&lines.join(eol));
        result.push_str(eol);
        return Ok(result);
    }
    if looks_like_whole_file(before, after, &lines, original) {
        result.push_str(&lines.join(eol));
        if file_text.ends_with('\n') || file_text.is_empty() {
            result.push_str(eol);
        }
    } else {
        result.push_str(&before.concat());
        result.push_str(&reindent(&lines, &span.text).join(eol));
        if span.text.ends_with('\n') || span.text.is_empty() || !after.is_empty() {
            result.push_str(eol);
        }
        result.push_str(&after.concat());
    }
    if result == file_text {
        return Err(EditError::NoChange);
    }
    Ok(result)
}

/// Whether `text`'s first line ends with `\r\n`.
fn uses_crlf(text: &str) -> bool {
    text.find('\n').is_some_and(|at| text[..at].ends_with('\r'))
}

/// `lines` without the line numbers of a numbered window (` 4 | code`,
/// `4: code`), when every non-blank line has one, the numbers go up, and
/// the `original` code is not itself numbered that way.
fn strip_line_numbers<'a>(lines: Vec<&'a str>, original: &str) -> Vec<&'a str> {
    let numbered = |lines: &[&str]| {
        let mut last = 0;
        let mut any = false;
        for line in lines.iter().filter(|l| !l.trim().is_empty()) {
            match numbered_line(line) {
                Some((number, _)) if number > last => {
                    last = number;
                    any = true;
                }
                _ => return false,
            }
        }
        any
    };
    let original: Vec<&str> = original.lines().collect();
    if !numbered(&lines) || numbered(&original) {
        return lines;
    }
    lines
        .into_iter()
        .map(|line| numbered_line(line).map_or("", |(_, code)| code))
        .collect()
}

/// The number and the code of a numbered line (` 4 | code`, ` 5 |`,
/// `4: code`).
fn numbered_line(line: &str) -> Option<(u64, &str)> {
    let trimmed = line.trim_start();
    let digits = trimmed.chars().take_while(char::is_ascii_digit).count();
    let number = trimmed[..digits].parse().ok()?;
    let rest = &trimmed[digits..];
    let code = rest.strip_prefix(" |").or_else(|| rest.strip_prefix(':'))?;
    if code.is_empty() {
        return Some((number, ""));
    }
    code.strip_prefix(' ').map(|code| (number, code))
}

/// `lines` moved so that their first non-blank line has the indentation of
/// `original`'s (its whitespace, tabs or spaces), every line by as much;
/// blank lines are emptied.
fn reindent(lines: &[&str], original: &str) -> Vec<String> {
    let wanted = first_indent(original.lines());
    let given = first_indent(lines.iter().copied());
    if wanted == given {
        return lines.iter().map(|line| (*line).to_string()).collect();
    }
    let strip = given.chars().count();
    lines
        .iter()
        .map(|line| {
            if line.trim().is_empty() {
                return String::new();
            }
            let removable = line
                .chars()
                .take(strip)
                .take_while(|c| *c == ' ' || *c == '\t')
                .count();
            format!("{wanted}{}", &line[removable..])
        })
        .collect()
}

/// The leading whitespace of the first non-blank line.
fn first_indent<'a>(mut lines: impl Iterator<Item = &'a str>) -> &'a str {
    lines
        .find(|line| !line.trim().is_empty())
        .map_or("", |line| {
            &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
        })
}

/// Whether `replacement` is the whole file rather than the span
/// (`original`): the file has code outside the span, the replacement has
/// more lines than the span, holds the file's first non-blank line before
/// the span and its last after it, and [`WHOLE_FILE_PERCENT`] of its
/// non-blank lines outside the span.
fn looks_like_whole_file(
    before: &[&str],
    after: &[&str],
    replacement: &[&str],
    original: &[&str],
) -> bool {
    let non_blank = |lines: &[&str]| -> Vec<String> {
        lines
            .iter()
            .map(|l| l.trim().to_string())
            .filter(|l| !l.is_empty())
            .collect()
    };
    let outside: Vec<String> = non_blank(before)
        .into_iter()
        .chain(non_blank(after))
        .collect();
    let given = non_blank(replacement);
    if outside.is_empty() || given.len() <= non_blank(original).len() {
        return false;
    }
    let mut pool: HashMap<&str, usize> = HashMap::new();
    for line in &given {
        *pool.entry(line).or_default() += 1;
    }
    let anchors = [non_blank(before).first(), non_blank(after).last()]
        .into_iter()
        .flatten()
        .all(|line| pool.contains_key(line.as_str()));
    let mut matched = 0;
    for line in &outside {
        if let Some(count) = pool.get_mut(line.as_str()).filter(|c| **c > 0) {
            *count -= 1;
            matched += 1;
        }
    }
    anchors && matched * 100 >= outside.len() * WHOLE_FILE_PERCENT
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    const CALC: &str = "class Calc:\n    def add(self, a, b):\n        return a - b\n\n    def sub(self, a, b):\n        return a - b\n";

    fn span(file_text: &str, start_line: u32, end_line: u32) -> EditSpan {
        let text: String = file_text
            .split_inclusive('\n')
            .skip(start_line as usize - 1)
            .take((end_line + 1 - start_line) as usize)
            .collect();
        EditSpan {
            file: "calc.py".into(),
            start_line,
            end_line,
            label: format!("lines {start_line}-{end_line}"),
            text,
            language: None,
            exists: true,
        }
    }

    #[test]
    fn a_method_given_at_column_zero_is_reindented() {
        let add = span(CALC, 2, 3);
        let fixed = splice(CALC, &add, "def add(self, a, b):\n    return a + b\n").unwrap();
        assert_eq!(fixed, CALC.replacen("a - b", "a + b", 1));
        let tabs = "class C:\n\tdef f(self):\n\t\treturn 1\n";
        let fixed = splice(tabs, &span(tabs, 2, 3), "def f(self):\n\treturn 2").unwrap();
        assert_eq!(fixed, "class C:\n\tdef f(self):\n\t\treturn 2\n");
        let over = splice(
            CALC,
            &add,
            "        def add(self, a, b):\n            return 0\n",
        )
        .unwrap();
        assert!(
            over.contains("\n    def add(self, a, b):\n        return 0\n\n"),
            "{over}"
        );
    }

    #[test]
    fn copied_line_numbers_are_dropped() {
        let add = span(CALC, 2, 3);
        let numbered = " 2 |     def add(self, a, b):\n 3 |         return a + b\n";
        assert_eq!(
            splice(CALC, &add, numbered).unwrap(),
            CALC.replacen("a - b", "a + b", 1)
        );
        let colons = "2:     def add(self, a, b):\n3:\n4:         return a + b\n";
        assert_eq!(
            splice(CALC, &add, colons).unwrap(),
            CALC.replacen("        return a - b", "\n        return a + b", 1)
        );
        let data = "table = {\n    1: 'a',\n    2: 'b',\n}\n";
        let kept = splice(data, &span(data, 2, 3), "    1: 'x',\n    2: 'b',\n").unwrap();
        assert_eq!(kept, "table = {\n    1: 'x',\n    2: 'b',\n}\n");
    }

    #[test]
    fn crlf_files_stay_crlf() {
        let text = "def f():\r\n    return 1\r\n\r\ndef g():\r\n    return 2\r\n";
        let fixed = splice(text, &span(text, 4, 5), "def g():\n    return 3\n").unwrap();
        assert_eq!(
            fixed,
            "def f():\r\n    return 1\r\n\r\ndef g():\r\n    return 3\r\n"
        );
    }

    #[test]
    fn the_final_newline_follows_the_original() {
        let text = "a = 1\nb = 2";
        assert_eq!(
            splice(text, &span(text, 2, 2), "b = 3\n").unwrap(),
            "a = 1\nb = 3"
        );
        assert_eq!(
            splice(text, &span(text, 1, 1), "a = 0").unwrap(),
            "a = 0\nb = 2"
        );
    }

    #[test]
    fn a_whole_file_answer_replaces_the_file() {
        let text =
            "import os\n\n\ndef f():\n    return 1\n\n\ndef g():\n    return 2\n\n\nprint(g())\n";
        let whole = text.replace("return 2", "return 3");
        let fixed = splice(text, &span(text, 8, 9), &whole).unwrap();
        assert_eq!(fixed, whole);
        let rust = "fn a() {\n}\n\nfn b() {\n}\n";
        let fixed = splice(rust, &span(rust, 1, 2), "fn a() {\n    let _ = 1;\n}\n").unwrap();
        assert_eq!(
            fixed, "fn a() {\n    let _ = 1;\n}\n\nfn b() {\n}\n",
            "a closing brace alone is not the rest of the file"
        );
    }

    #[test]
    fn the_same_code_is_no_change() {
        let add = span(CALC, 2, 3);
        assert_eq!(
            splice(CALC, &add, "def add(self, a, b):\n    return a - b\n"),
            Err(EditError::NoChange)
        );
        assert_eq!(splice(CALC, &add, CALC), Err(EditError::NoChange));
    }

    #[test]
    fn a_new_file_is_the_code() {
        let new = EditSpan {
            file: "new.py".into(),
            start_line: 1,
            end_line: 0,
            label: "a new file".into(),
            text: String::new(),
            language: None,
            exists: false,
        };
        assert_eq!(splice("", &new, "x = 1").unwrap(), "x = 1\n");
        let empty = EditSpan {
            exists: true,
            ..new.clone()
        };
        assert_eq!(splice("", &empty, "x = 1\n").unwrap(), "x = 1\n");
        assert_eq!(
            splice("", &new, "\n  \n"),
            Err(EditError::Unusable("the replacement is empty".into()))
        );
    }

    #[test]
    fn a_changed_file_is_stale() {
        let add = span(CALC, 2, 3);
        let changed = CALC.replace("return a - b", "return 0");
        assert_eq!(
            splice(&changed, &add, "def add(self, a, b):\n    return a + b\n"),
            Err(EditError::Stale {
                file: "calc.py".into()
            })
        );
        assert_eq!(
            splice("x = 1\n", &add, "y = 2\n"),
            Err(EditError::Stale {
                file: "calc.py".into()
            })
        );
    }
}
