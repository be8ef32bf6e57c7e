//! The whole part of a JSON answer the token limit cut off: the answer
//! closed after the last array element that was complete, so a plan cut
//! in its fourth step keeps its first three. Crates that repair LLM JSON
//! (`llm_json`, `json_partial`) close the cut value itself — half a
//! command, half a file name — which is worse than leaving it out; this
//! keeps whole elements only.

/// Most cut points tried, from the last one back.
const MAX_CUTS: usize = 4;

/// The texts of `text` (a JSON value cut off at its end) closed after each
/// of its last complete array elements, the latest first. Empty when the
/// text is not the start of an object or array, or no array element in it
/// is complete.
pub(crate) fn whole_elements(text: &str) -> Vec<String> {
    let start = match text.find(['{', '[']) {
        Some(start) => start,
        None => return Vec::new(),
    };
    let mut cuts: Vec<(usize, Vec<u8>)> = Vec::new();
    let mut stack: Vec<u8> = Vec::new();
    let mut in_string = false;
    let mut escaped = false;
    for (offset, byte) in text.as_bytes()[start..].iter().enumerate() {
        let at = start + offset;
        if in_string {
            match (escaped, byte) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => {
                    in_string = false;
                    if stack.last() == Some(&b'[') {
                        cuts.push((at + 1, stack.clone()));
                    }
                }
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => stack.push(*byte),
            b'}' | b']' => {
                stack.pop();
                if stack.is_empty() {
                    // The value is whole: nothing was cut.
                    return Vec::new();
                }
                if stack.last() == Some(&b'[') {
                    cuts.push((at + 1, stack.clone()));
                }
            }
            _ => {}
        }
    }
    cuts.iter()
        .rev()
        .take(MAX_CUTS)
        .map(|(end, open)| {
            let mut closed = text[..*end].to_string();
            closed.extend(
                open.iter()
                    .rev()
                    .map(|b| if *b == b'[' { ']' } else { '}' }),
            );
            closed
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn a_cut_plan_keeps_its_whole_steps() {
        let cut = r#"{"check": "make test", "steps": [{"kind": "run", "command": "make"}, {"kind": "edit", "file": "a.c", "target": "ma"#;
        let closed = whole_elements(cut);
        assert_eq!(
            closed[0],
            r#"{"check": "make test", "steps": [{"kind": "run", "command": "make"}]}"#
        );
        let value: serde_json::Value = serde_json::from_str(&closed[0]).unwrap();
        assert_eq!(value["steps"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn quotes_and_brackets_inside_strings_are_text() {
        let cut =
            r#"{"steps": [{"command": "echo \"]}\" [x]"}, {"command": "grep -q '{' a"}, {"comm"#;
        let closed = whole_elements(cut);
        let value: serde_json::Value = serde_json::from_str(&closed[0]).unwrap();
        assert_eq!(value["steps"][1]["command"], "grep -q '{' a");
        assert_eq!(value["steps"][0]["command"], "echo \"]}\" [x]");
    }

    #[test]
    fn nothing_to_keep_when_whole_or_cut_before_any_element() {
        assert!(whole_elements(r#"{"steps": [{"a": 1}]}"#).is_empty());
        assert!(whole_elements(r#"{"check": "python3 -c 'print(1)"#).is_empty());
        assert!(whole_elements("no json here").is_empty());
        // Strings in an array are elements too; the last cut comes first.
        let closed = whole_elements(r#"{"tags": ["a", "b", "c"#);
        assert_eq!(
            closed,
            vec![r#"{"tags": ["a", "b"]}"#, r#"{"tags": ["a"]}"#]
        );
    }
}
