//! Small helpers for a gradebook.

/// The mean of `scores`, or `None` when there are none.
pub fn average(scores: &[u32]) -> Option<f64> {
    if scores.is_empty() {
        return None;
    }
    let total: u32 = scores.iter().sum();
    Some(total / scores.len())
}

/// The letter grade for a score out of 100.
pub fn letter(score: u32) -> char {
    match score {
        90..=100 => 'A',
        80..=89 => 'B',
        70..=79 => 'C',
        60..=69 => 'D',
        _ => 'F',
    }
}
