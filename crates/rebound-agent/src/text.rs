//! Text budgets: cutting a text to a length, and estimating its tokens
//! without the model's tokenizer.

/// Keeps the head and the tail of `text` within `max` characters, with a
/// marker for what was cut.
pub(crate) fn shorten(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_string();
    }
    let head_len = max / 3;
    let tail_len = max - head_len;
    let head: String = text.chars().take(head_len).collect();
    let tail: String = text.chars().skip(count - tail_len).collect();
    format!(
        "{head}\n[... {} characters cut ...]\n{tail}",
        count - head_len - tail_len
    )
}

/// Roughly how many tokens `text` is for a Qwen-style tokenizer: each digit
/// is a token of its own, other text about three characters a token (measured
/// on planner prompts: 1,246 estimated for 1,206 counted by the model).
/// Used to budget prompts without the model's tokenizer at hand (an
/// estimate, on the high side for code and prose).
pub(crate) fn estimate_tokens(text: &str) -> usize {
    let digits = text.chars().filter(char::is_ascii_digit).count();
    let others = text.chars().count() - digits;
    digits + others.div_ceil(3)
}

#[cfg(test)]
mod tests {
    use super::{estimate_tokens, shorten};

    #[test]
    fn digits_count_as_a_token_each() {
        assert_eq!(estimate_tokens("abcdef"), 2);
        assert_eq!(estimate_tokens("2024-05-01"), 8 + 1);
        assert_eq!(estimate_tokens("x"), 1);
        assert_eq!(estimate_tokens(""), 0);
    }

    #[test]
    fn shorten_keeps_head_and_tail() {
        let text = format!("{}{}", "a".repeat(100), "b".repeat(100));
        let short = shorten(&text, 30);
        assert!(short.starts_with("aaaaaaaaaa"));
        assert!(short.ends_with(&"b".repeat(20)));
        assert!(short.contains("170 characters cut"));
        assert_eq!(shorten("short", 30), "short");
    }
}
