//! Choosing the next token from a call's logits: the largest (greedy), the
//! largest a filter such as a grammar allows, or one drawn from the most
//! likely with a seeded random stream. Pure functions of the logits, so
//! they are tested here without a model.

/// The tokens sampling chooses among: the most likely ones (top-k).
pub(super) const SAMPLING_TOP_K: usize = 40;

/// How many of the most likely tokens greedy decoding offers a grammar that
/// refused the most likely one, before it filters the whole vocabulary.
pub(super) const GRAMMAR_TOP_K: usize = 64;

/// SplitMix64: a tiny, fixed random stream, so a seed gives the same
/// tokens on every platform and with every version of every crate (a
/// general-purpose RNG crate does not promise that for its default
/// generators).
pub(super) struct SplitMix64(pub(super) u64);

impl SplitMix64 {
    /// The next number in `[0, 1)`.
    fn next_unit(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The `k` entries with the largest values, largest first, the first of
/// equal values first: the first `k` in that order, so an entry is left
/// out only after every entry before it (non-finite values left out).
pub(super) fn top_k(values: impl Iterator<Item = (usize, f32)>, k: usize) -> Vec<(usize, f32)> {
    let mut all: Vec<(usize, f32)> = values.filter(|(_, v)| v.is_finite()).collect();
    let k = k.min(all.len());
    if k == 0 {
        return Vec::new();
    }
    let order = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    all.select_nth_unstable_by(k - 1, order);
    all.truncate(k);
    all.sort_by(order);
    all
}

/// The index of the largest of `logits` that `allow` keeps (the first of
/// equal ones). `allow` returns the entries of its candidates it allows,
/// in their order. The [`GRAMMAR_TOP_K`] largest are offered first; only
/// when none of them is allowed is every entry offered (which, for a
/// grammar, takes far longer: measured, 23–41 ms to check the 1.5B model's
/// ~150,000 tokens, against 1–2 ms for the top 64).
pub(super) fn best_allowed_by(
    logits: &[f32],
    mut allow: impl FnMut(&[(usize, f32)]) -> Vec<(usize, f32)>,
) -> Option<usize> {
    // The top values are the first in the order "largest, then first":
    // the first allowed among them is the first allowed of all.
    let top = top_k(logits.iter().copied().enumerate(), GRAMMAR_TOP_K);
    if let Some(&(index, _)) = allow(&top).first() {
        return Some(index);
    }
    let all: Vec<(usize, f32)> = logits.iter().copied().enumerate().collect();
    argmax(
        allow(&all)
            .into_iter()
            .filter(|(_, logit)| logit.is_finite()),
    )
}

/// One index of `candidates` (largest logit first), drawn with
/// probabilities `softmax(logit / temperature)`.
pub(super) fn draw(
    candidates: &[(usize, f32)],
    temperature: f32,
    random: &mut SplitMix64,
) -> Option<usize> {
    let (_, best) = *candidates.first()?;
    let weights: Vec<f64> = candidates
        .iter()
        .map(|&(_, logit)| f64::from((logit - best) / temperature).exp())
        .collect();
    let total: f64 = weights.iter().sum();
    let mut point = random.next_unit() * total;
    for (&(index, _), weight) in candidates.iter().zip(&weights) {
        if point < *weight {
            return Some(index);
        }
        point -= weight;
    }
    candidates.last().map(|&(index, _)| index)
}

/// The index of the largest value (the first of equal ones).
pub(super) fn argmax(values: impl Iterator<Item = (usize, f32)>) -> Option<usize> {
    let mut best: Option<(usize, f32)> = None;
    for (i, value) in values {
        if best.is_none_or(|(_, b)| value > b) {
            best = Some((i, value));
        }
    }
    best.map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What filtering every entry finds: the first of the largest allowed.
    fn brute_force(logits: &[f32], allowed: &[bool]) -> Option<usize> {
        argmax(
            logits
                .iter()
                .copied()
                .enumerate()
                .filter(|&(i, v)| allowed[i] && v.is_finite()),
        )
    }

    proptest! {
        /// The shortcut through the top values finds what the whole
        /// vocabulary would, ties included (values from a small set and few
        /// allowed, so the top's edge often cuts through equal values).
        #[test]
        fn best_allowed_is_what_the_whole_vocabulary_gives(
            entries in proptest::collection::vec((0u8..4, proptest::bool::weighted(0.05)), 1..400)
        ) {
            let logits: Vec<f32> = entries.iter().map(|&(v, _)| f32::from(v)).collect();
            let allowed: Vec<bool> = entries.iter().map(|&(_, a)| a).collect();
            let found = best_allowed_by(&logits, |candidates| {
                candidates.iter().copied().filter(|&(i, _)| allowed[i]).collect()
            });
            prop_assert_eq!(found, brute_force(&logits, &allowed));
        }
    }

    /// What `best_allowed_by` finds over the values 0..1000 (the largest
    /// last) when `allowed` says which indices the filter keeps, and the
    /// number of entries it offered the filter each time.
    fn offered(allowed: impl Fn(usize) -> bool) -> (Option<usize>, Vec<usize>) {
        let logits: Vec<f32> = (0..1000u16).map(f32::from).collect();
        let mut offered = Vec::new();
        let found = best_allowed_by(&logits, |candidates| {
            offered.push(candidates.len());
            candidates
                .iter()
                .copied()
                .filter(|&(i, _)| allowed(i))
                .collect()
        });
        (found, offered)
    }

    #[test]
    fn an_allowed_token_among_the_top_spares_the_whole_vocabulary() {
        // The largest two are refused, the third allowed.
        assert_eq!(offered(|i| i == 997), (Some(997), vec![GRAMMAR_TOP_K]));
    }

    #[test]
    fn nothing_allowed_among_the_top_offers_everything() {
        assert_eq!(offered(|i| i < 10), (Some(9), vec![GRAMMAR_TOP_K, 1000]));
        assert_eq!(offered(|_| false), (None, vec![GRAMMAR_TOP_K, 1000]));
    }
}
