use wordfreq::{most_common, word_counts};

#[test]
fn counts_words_ignoring_case() {
    let counts = word_counts("the cat saw The dog");
    assert_eq!(counts["the"], 2);
    assert_eq!(counts["cat"], 1);
    assert_eq!(counts.len(), 4);
}

#[test]
fn most_common_word() {
    assert_eq!(most_common("a b a c a b"), Some(("a".to_string(), 3)));
}

#[test]
fn most_common_of_nothing() {
    assert_eq!(most_common("   "), None);
}
