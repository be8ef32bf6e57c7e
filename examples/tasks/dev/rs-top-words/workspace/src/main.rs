//! Prints the three most common words of words.txt.

use std::collections::HashMap;
use std::fs;

fn count_words(text: &str) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for raw in text.split_whitespace() {
        let word = raw
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        if !word.is_empty() {
            *counts.entry(word).or_insert(0) += 1;
        }
    }
    counts
}

fn top(counts: &HashMap<String, usize>, n: usize) -> Vec<(&str, usize)> {
    let mut pairs: Vec<(&str, usize)> = counts.iter().map(|(w, c)| (w.as_str(), *c)).collect();
    pairs.sort_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(b.0)));
    pairs.truncate(n);
    pairs
}

fn main() {
    let text = fs::read_to_string("words.txt").expect("cannot read words.txt");
    let counts = count_words(&text);
    for (word, count) in top(&counts, 3) {
        println!("{word}: {count}");
    }
}
