//! The answer as it is generated: its bytes, where it ends (a stop
//! sequence, `max_tokens`), and the text handed on as it comes.

/// An answer being generated.
pub(crate) struct Answer<'s, 'f> {
    bytes: Vec<u8>,
    /// Tokens taken so far.
    pub(crate) generated: usize,
    max_tokens: usize,
    /// Whether `max_tokens` ended it.
    pub(crate) hit_limit: bool,
    stop: &'s [String],
    /// Bytes held back: they may begin a stop sequence.
    hold: usize,
    emitted: usize,
    on_text: Option<&'f mut dyn FnMut(&str) -> bool>,
    /// Whether the listener stopped listening (`on_text` answered
    /// false): the answer ends where it stood.
    pub(crate) abandoned: bool,
}

impl<'s, 'f> Answer<'s, 'f> {
    /// An empty answer of at most `max_tokens` tokens, ending before any
    /// of `stop`; `on_text`, when given, is handed the text as it comes
    /// and answers whether it still wants more (false ends the answer).
    pub(crate) fn new(
        max_tokens: usize,
        stop: &'s [String],
        on_text: Option<&'f mut dyn FnMut(&str) -> bool>,
    ) -> Self {
        let hold = stop
            .iter()
            .map(String::len)
            .max()
            .unwrap_or(1)
            .saturating_sub(1);
        Answer {
            bytes: Vec::new(),
            generated: 0,
            max_tokens,
            hit_limit: false,
            stop,
            hold,
            emitted: 0,
            on_text,
            abandoned: false,
        }
    }

    /// Takes the next token's text (`piece`); false when the answer ends
    /// with it: a stop sequence appeared (cut off), it was the
    /// `max_tokens`-th token, or the listener wants no more.
    pub(crate) fn push(&mut self, piece: &[u8]) -> bool {
        self.generated += 1;
        self.bytes.extend_from_slice(piece);
        if let Some(end) = stop_position(&self.bytes, self.stop) {
            self.bytes.truncate(end);
            return false;
        }
        if let Some(on_text) = self.on_text.as_mut() {
            let ready = self.bytes.len().saturating_sub(self.hold);
            let (emitted, listening) =
                emit_utf8(&self.bytes[self.emitted.min(ready)..ready], on_text);
            self.emitted += emitted;
            if !listening {
                self.abandoned = true;
                return false;
            }
        }
        if self.generated >= self.max_tokens {
            self.hit_limit = true;
            return false;
        }
        true
    }

    /// The whole text, after handing on what was held back.
    pub(crate) fn finish(mut self) -> String {
        if let Some(on_text) = self.on_text.as_mut() {
            if self.emitted < self.bytes.len() && !self.abandoned {
                on_text(&String::from_utf8_lossy(&self.bytes[self.emitted..]));
            }
        }
        String::from_utf8_lossy(&self.bytes).into_owned()
    }
}

/// Hands the whole UTF-8 characters at the start of `bytes` to `on_text`
/// (nothing when there are none yet); returns how many bytes it handed
/// and whether `on_text` still listens.
fn emit_utf8(bytes: &[u8], on_text: &mut &mut dyn FnMut(&str) -> bool) -> (usize, bool) {
    let valid = match std::str::from_utf8(bytes) {
        Ok(text) => text.len(),
        Err(error) => error.valid_up_to(),
    };
    let mut listening = true;
    if valid > 0 {
        if let Ok(text) = std::str::from_utf8(&bytes[..valid]) {
            listening = on_text(text);
        }
    }
    (valid, listening)
}

/// Where the first stop sequence starts in `bytes`, if one occurs.
fn stop_position(bytes: &[u8], stop: &[String]) -> Option<usize> {
    stop.iter()
        .filter(|s| !s.is_empty())
        .filter_map(|s| bytes.windows(s.len()).position(|w| w == s.as_bytes()))
        .min()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_sequence_ends_the_answer_and_is_cut_off() {
        let stop = vec!["```".to_string()];
        let mut answer = Answer::new(10, &stop, None);
        assert!(answer.push(b"x = 1\n"));
        assert!(!answer.push(b"``` trailing"));
        assert!(!answer.hit_limit);
        assert_eq!(answer.finish(), "x = 1\n");
    }

    #[test]
    fn the_last_token_allowed_ends_it_at_the_limit() {
        let mut answer = Answer::new(2, &[], None);
        assert!(answer.push(b"a"));
        assert!(!answer.push(b"b"));
        assert!(answer.hit_limit);
        assert_eq!(answer.finish(), "ab");
    }

    #[test]
    fn text_that_may_begin_a_stop_sequence_is_held_back() {
        let stop = vec!["END".to_string()];
        let mut seen = String::new();
        let mut on_text = |text: &str| {
            seen.push_str(text);
            true
        };
        let mut answer = Answer::new(10, &stop, Some(&mut on_text));
        answer.push(b"abc");
        answer.push(b"E");
        answer.push("\u{e9}".as_bytes());
        let text = answer.finish();
        assert_eq!(text, "abcE\u{e9}");
        assert_eq!(seen, text);
    }

    #[test]
    fn a_listener_that_wants_no_more_ends_the_answer_where_it_stood() {
        let mut heard = String::new();
        let mut on_text = |text: &str| {
            heard.push_str(text);
            !heard.contains("stop")
        };
        let mut answer = Answer::new(10, &[], Some(&mut on_text));
        assert!(answer.push(b"go on "));
        assert!(!answer.push(b"stop here"));
        assert!(answer.abandoned);
        assert!(!answer.hit_limit);
        assert_eq!(answer.finish(), "go on stop here");
        assert_eq!(heard, "go on stop here", "nothing is handed on after it");
    }
}
