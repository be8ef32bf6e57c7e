//! Word frequencies.

use std::collections::HashMap;

/// Counts how often each word occurs in `text`, ignoring case.
pub fn word_counts(text: &str) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for word in text.split_whitespace() {
        *counts.entry(word.to_lowercase()).or_insert(0) += 1;
    }
    counts
}

/// Returns the most frequent word and its count, or `None` for empty text.
pub fn most_common(text: &str) -> Option<(String, usize)> {
    let mut best: Option<(String, usize)> = None;
    for (word, count) in word_counts(text) {
        if best.map_or(true, |(_, n)| count > n) {
            best = Some((word, count));
        }
    }
    best
}
