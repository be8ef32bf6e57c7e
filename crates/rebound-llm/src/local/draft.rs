//! Prompt-lookup drafting: the tokens an answer will likely write next,
//! guessed from the text it has seen, with no second model. An edit's
//! answer is mostly a copy of the code it was shown, and a plan repeats
//! the file and function names of its prompt: after the last few tokens
//! written, the tokens that followed the same few tokens earlier (in the
//! prompt or the answer) are a draft the model then checks in one batch.

/// The longest run of last tokens looked up.
const NGRAM_MAX: usize = 4;

/// The shortest run of last tokens looked up (shorter runs match too
/// often to predict much: measured, drafts after 2-token matches cost more
/// than they saved).
const NGRAM_MIN: usize = 3;

/// Up to `max` tokens that followed the most recent earlier occurrence of
/// the longest suffix of `history` (of [`NGRAM_MAX`] down to [`NGRAM_MIN`]
/// tokens); empty when none occurs earlier.
pub(crate) fn lookup<T: PartialEq + Copy>(history: &[T], max: usize) -> Vec<T> {
    let len = history.len();
    if max == 0 {
        return Vec::new();
    }
    for n in (NGRAM_MIN..=NGRAM_MAX).rev() {
        if len <= n {
            continue;
        }
        let suffix = &history[len - n..];
        let found = (0..len - n)
            .rev()
            .find(|&start| &history[start..start + n] == suffix);
        if let Some(start) = found {
            let from = start + n;
            let to = (from + max).min(len);
            return history[from..to].to_vec();
        }
    }
    Vec::new()
}

/// How many tokens to draft next: twice as many after a draft accepted
/// whole, half as many after one rejected at its first token, between 1
/// and [`MAX_DRAFT`].
pub(crate) fn next_length(current: usize, drafted: usize, accepted: usize) -> usize {
    if drafted == 0 {
        current
    } else if accepted == drafted {
        (current * 2).min(MAX_DRAFT)
    } else if accepted == 0 {
        (current / 2).max(1)
    } else {
        current
    }
}

/// The most tokens drafted at once. On a 2-core CPU a batch of five
/// tokens costs about 3.5 single-token steps, so long drafts lose more on
/// their rejected tail than they win (measured: at most 16 gave 1.02x on
/// an edit, at most 4 gave 1.18x).
pub(crate) const MAX_DRAFT: usize = 4;

/// Tokens drafted at first.
pub(crate) const FIRST_DRAFT: usize = 4;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tokens_after_the_last_earlier_match_are_drafted() {
        // "def add ( a , b ) : return a + b" ... "def add ("
        let history = [1, 2, 3, 4, 5, 6, 7, 8, 9, 4, 10, 6, 0, 1, 2, 3];
        assert_eq!(lookup(&history, 3), vec![4, 5, 6]);
        assert_eq!(lookup(&history, 100), history[3..].to_vec());
        assert_eq!(lookup(&history, 0), Vec::<i32>::new());
    }

    #[test]
    fn the_longest_suffix_and_the_most_recent_match_win() {
        // [7, 8] occurs twice; the suffix [9, 7, 8] once, earlier.
        let history = [9, 7, 8, 1, 7, 8, 2, 9, 7, 8];
        assert_eq!(lookup(&history, 1), vec![1]);
        let history = [5, 6, 7, 8, 1, 6, 7, 8, 2, 3, 6, 7, 8];
        assert_eq!(lookup(&history, 2), vec![2, 3], "the most recent [6, 7, 8]");
    }

    #[test]
    fn nothing_is_drafted_without_an_earlier_match() {
        assert!(lookup(&[1, 2, 3, 4], 4).is_empty());
        assert!(lookup(&[1], 4).is_empty());
        // One or two tokens alone are not looked up.
        assert!(lookup(&[1, 2, 5, 1], 4).is_empty());
        assert!(lookup(&[1, 2, 5, 1, 2], 4).is_empty());
    }

    #[test]
    fn the_draft_grows_when_accepted_and_shrinks_when_rejected() {
        assert_eq!(next_length(2, 2, 2), 4);
        assert_eq!(next_length(4, 4, 4), MAX_DRAFT);
        assert_eq!(next_length(4, 4, 0), 2);
        assert_eq!(next_length(1, 1, 0), 1);
        assert_eq!(next_length(4, 4, 2), 4);
        assert_eq!(next_length(4, 0, 0), 4);
    }
}
