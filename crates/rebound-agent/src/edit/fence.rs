//! Reading a model's answer: the code of its first fenced block.

use super::EditError;

/// The longest answer read, in bytes.
pub const MAX_ANSWER_BYTES: usize = 200 * 1024;

/// The code of the first fenced block of a model's answer (```` ``` ```` or
/// `~~~`, three or more, with or without a language tag, indented or not),
/// with a final newline. An answer with no block, an unclosed one, an
/// empty one, or over [`MAX_ANSWER_BYTES`] is [`EditError::Unusable`].
pub fn extract_code(answer: &str) -> Result<String, EditError> {
    if answer.len() > MAX_ANSWER_BYTES {
        return Err(EditError::Unusable(format!(
            "it is longer than {} KB",
            MAX_ANSWER_BYTES / 1024
        )));
    }
    let mut lines = answer
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l));
    let Some(fence) = lines.by_ref().find_map(Fence::opening) else {
        return Err(EditError::Unusable(
            "it has no fenced code block".to_string(),
        ));
    };
    let mut code: Vec<&str> = Vec::new();
    let mut closed = false;
    for line in lines {
        if fence.is_closed_by(line) {
            closed = true;
            break;
        }
        code.push(fence.unindent(line));
    }
    if !closed {
        return Err(EditError::Unusable(
            "the answer's code block is not closed".to_string(),
        ));
    }
    if code.iter().all(|line| line.trim().is_empty()) {
        return Err(EditError::Unusable("the replacement is empty".to_string()));
    }
    let mut text = code.join("\n");
    text.push('\n');
    Ok(text)
}

/// An opening code fence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fence {
    /// `` ` `` or `~`.
    marker: char,
    /// How many of them (3 or more).
    length: usize,
    /// The spaces before it.
    indent: usize,
}

impl Fence {
    /// The fence `line` opens, if it opens one.
    fn opening(line: &str) -> Option<Fence> {
        let trimmed = line.trim_start_matches([' ', '\t']);
        let marker = trimmed.chars().next().filter(|c| matches!(c, '`' | '~'))?;
        let length = trimmed.chars().take_while(|c| *c == marker).count();
        let info = &trimmed[length * marker.len_utf8()..];
        // A backtick fence's language tag has no backtick (```x``` is code
        // in a line, not a fence).
        if length < 3 || (marker == '`' && info.contains('`')) {
            return None;
        }
        Some(Fence {
            marker,
            length,
            indent: line.len() - trimmed.len(),
        })
    }

    /// Whether `line` closes this fence: the same marker, at least as many,
    /// and nothing else.
    fn is_closed_by(&self, line: &str) -> bool {
        let trimmed = line.trim();
        trimmed.chars().count() >= self.length && trimmed.chars().all(|c| c == self.marker)
    }

    /// `line` without up to the fence's indentation.
    fn unindent<'a>(&self, line: &'a str) -> &'a str {
        let spaces = line
            .chars()
            .take(self.indent)
            .take_while(|c| *c == ' ' || *c == '\t')
            .count();
        &line[spaces..]
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn unusable(reason: &str) -> Result<String, EditError> {
        Err(EditError::Unusable(reason.to_string()))
    }

    #[test]
    fn the_first_block_is_taken() {
        let answer = "Here it is:\n```python\ndef f():\n    return 1\n```\nand\n```\nx\n```\n";
        assert_eq!(
            extract_code(answer),
            Ok("def f():\n    return 1\n".to_string())
        );
        assert_eq!(extract_code("```\nx = 1\n```"), Ok("x = 1\n".to_string()));
    }

    #[test]
    fn tildes_long_fences_and_indented_fences() {
        assert_eq!(
            extract_code("~~~rust\nfn f() {}\n~~~\n"),
            Ok("fn f() {}\n".to_string())
        );
        assert_eq!(
            extract_code("````md\n```\ninner\n```\n````\n"),
            Ok("```\ninner\n```\n".to_string())
        );
        assert_eq!(
            extract_code("1. the fix:\n   ```py\n   if x:\n       y()\n   ```\n"),
            Ok("if x:\n    y()\n".to_string())
        );
        assert_eq!(
            extract_code("```py\r\nx = 1\r\n```\r\n"),
            Ok("x = 1\n".to_string())
        );
    }

    #[test]
    fn unusable_answers() {
        assert_eq!(
            extract_code("```python\ndef f():\n    return 1\n"),
            unusable("the answer's code block is not closed")
        );
        assert_eq!(
            extract_code("def f():\n    return 1\n"),
            unusable("it has no fenced code block")
        );
        assert_eq!(
            extract_code("``` x ```"),
            unusable("it has no fenced code block")
        );
        assert_eq!(
            extract_code("```\n\n  \n```\n"),
            unusable("the replacement is empty")
        );
        let long = format!("```\n{}\n```\n", "x".repeat(MAX_ANSWER_BYTES));
        assert_eq!(extract_code(&long), unusable("it is longer than 200 KB"));
        let error = extract_code("nothing").unwrap_err().to_string();
        assert!(error.contains("one fenced block"), "{error}");
    }
}
