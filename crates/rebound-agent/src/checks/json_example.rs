//! A goal that shows an element of the JSON file it asks for ("Convert
//! products.csv to products.json ... The first element should be:
//! {"sku": "00417", "price": 24.9, ...}"): the written file must hold that
//! element, value for value and type for type (`24.9` is not `"24.90"`,
//! `true` is not `1`), first when the goal says "first". Weak, like the
//! other shape rules: one right element does not make the rest right, so
//! it must pass for a finish but cannot verify one alone. Found on dev: a
//! conversion kept every value a string, and with no check the run
//! finished unverified.

use serde_json::Value;

use super::phrases::{output_file, single_quote};

/// The rule's name.
pub const RULE_JSON_EXAMPLE: &str = "JSON example";

/// The longest example read, in characters.
const MAX_EXAMPLE_CHARS: usize = 2_000;

/// How far before the example the word "first" may be, in characters.
const FIRST_WINDOW: usize = 80;

/// Where the example must be in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Position {
    /// The file is an array and this is its first element.
    First,
    /// The file is an array holding it, or an object with it as a value,
    /// or the example itself.
    Anywhere,
}

/// The JSON file `goal` asks to be written, the example element it shows
/// (compact JSON) and where it must be: `None` when the goal asks for no
/// `.json` file or shows no JSON object.
pub fn json_example(goal: &str) -> Option<(String, String, Position)> {
    json_example_in(goal, output_file(goal)?)
}

/// [`json_example`] of `file`, the file the goal asks for.
pub(crate) fn json_example_in(goal: &str, file: String) -> Option<(String, String, Position)> {
    if !file.ends_with(".json") {
        return None;
    }
    let (start, value) = first_object(goal)?;
    let before: String = goal[..start]
        .chars()
        .rev()
        .take(FIRST_WINDOW)
        .collect::<String>()
        .chars()
        .rev()
        .collect::<String>()
        .to_lowercase();
    let position = if before.contains("first") {
        Position::First
    } else {
        Position::Anywhere
    };
    Some((file, value.to_string(), position))
}

/// The first balanced `{...}` of `text` that parses as a JSON object, and
/// where it starts.
fn first_object(text: &str) -> Option<(usize, Value)> {
    let mut search = 0;
    while let Some(offset) = text[search..].find('{') {
        let start = search + offset;
        if let Some(end) = balanced_end(&text[start..]) {
            let candidate = &text[start..start + end];
            if candidate.chars().count() <= MAX_EXAMPLE_CHARS {
                if let Ok(value @ Value::Object(_)) = serde_json::from_str::<Value>(candidate) {
                    return Some((start, value));
                }
            }
        }
        search = start + 1;
    }
    None
}

/// The length of the balanced `{...}` at the start of `text` (braces in
/// JSON strings not counted), if it closes.
fn balanced_end(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in text.char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' => depth += 1,
            '}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// The command that passes when `file` holds `example` at `position`,
/// compared as canonical JSON (keys sorted), so types count.
pub fn json_example_check(file: &str, example: &str, position: Position) -> String {
    let (test, wanted) = match position {
        Position::First => (
            "isinstance(d, list) and len(d) > 0 and c(d[0]) == e",
            "the first element",
        ),
        Position::Anywhere => (
            "c(d) == e or (isinstance(d, list) and any(c(x) == e for x in d)) or (isinstance(d, dict) and any(c(x) == e for x in d.values()))",
            "an element",
        ),
    };
    let found = "c(d[0]) if isinstance(d, list) and d else c(d)";
    // On a mismatch it prints both, so that the next attempt sees what
    // differs (a string for a number, a missing key).
    let program = format!(
        "import json, sys\nc = lambda v: json.dumps(v, sort_keys=True)\ne = c(json.loads(sys.argv[2]))\nd = json.load(open(sys.argv[1]))\nok = {test}\nif not ok:\n    print('expected {wanted} (keys sorted): ' + e)\n    print('found: ' + ({found})[:600])\nsys.exit(0 if ok else 1)"
    );
    format!(
        "python3 -c {} {} {}",
        single_quote(&program),
        single_quote(file),
        single_quote(example)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOAL: &str = "Convert products.csv to products.json for the web shop: a JSON array with one object per row. Types: `price` is a number, `active` a boolean. The first element should be:\n\n{\"sku\": \"00417\", \"name\": \"Desk {lamp}\", \"price\": 24.9, \"stock\": 13, \"active\": true}\n\nKeep products.csv as it is.";

    #[test]
    fn the_example_element_and_its_place_are_read() {
        let (file, example, position) = json_example(GOAL).unwrap();
        assert_eq!(file, "products.json");
        assert_eq!(position, Position::First);
        let value: Value = serde_json::from_str(&example).unwrap();
        assert_eq!(value["name"], "Desk {lamp}", "a brace in a string");
        assert_eq!(
            json_example("Write totals.json, e.g. {\"a\": 1}.").map(|(_, _, p)| p),
            Some(Position::Anywhere)
        );
        assert_eq!(json_example("Write totals.json from the data."), None);
        assert_eq!(
            json_example("Write notes.txt like {\"a\": 1}."),
            None,
            "not a JSON file"
        );
        assert_eq!(
            json_example("Write a.json; keep {braces} as they are."),
            None
        );
    }

    #[test]
    fn the_check_compares_values_and_types() {
        let dir = tempfile::tempdir().unwrap();
        let (file, example, position) = json_example(GOAL).unwrap();
        let command = json_example_check(&file, &example, position);
        let run = |text: &str| {
            std::fs::write(dir.path().join("products.json"), text).unwrap();
            passes(&command, dir.path())
        };
        let right = r#"[{"active": true, "name": "Desk {lamp}", "price": 24.9, "sku": "00417", "stock": 13}, {"x": 1}]"#;
        assert!(run(right));
        assert!(
            !run(&right.replace("24.9", "\"24.90\"")),
            "a string is not a number"
        );
        assert!(!run(&right.replace("true", "1")), "1 is not true");
        assert!(
            !run(&right.replace("13", "13.0")),
            "a float is not an integer"
        );
        assert!(
            !run(
                r#"[{"x": 1}, {"active": true, "name": "Desk {lamp}", "price": 24.9, "sku": "00417", "stock": 13}]"#
            ),
            "not first"
        );
        assert!(!run("not json"));
        std::fs::write(
            dir.path().join("products.json"),
            right.replace("24.9", "\"24.90\""),
        )
        .unwrap();
        let shown = crate::checks::test_bash(dir.path(), &command);
        let shown = String::from_utf8_lossy(&shown.stdout);
        assert!(
            shown.contains(r#"found: {"active": true, "name": "Desk {lamp}", "price": "24.90""#),
            "{shown}"
        );
        std::fs::remove_file(dir.path().join("products.json")).unwrap();
        assert!(!passes(&command, dir.path()), "no file");
    }

    /// Whether `command` exits 0 in `dir`.
    fn passes(command: &str, dir: &std::path::Path) -> bool {
        crate::checks::test_bash(dir, command).status.success()
    }
}
