//! Times for people: UTC timestamps and "how long ago".

/// `2026-05-01 12:03:04 UTC` for milliseconds since the Unix epoch.
pub fn utc(ms: u64) -> String {
    i64::try_from(ms)
        .ok()
        .and_then(chrono::DateTime::from_timestamp_millis)
        .map_or_else(
            || format!("{ms} ms after 1970"),
            |time| time.format("%Y-%m-%d %H:%M:%S UTC").to_string(),
        )
}

/// `12s ago`, `5m ago`, `3h ago`, `2d ago`.
pub fn ago(ms: u64, now_ms: u64) -> String {
    let secs = now_ms.saturating_sub(ms) / 1000;
    match secs {
        0..=59 => format!("{secs}s ago"),
        60..=3599 => format!("{}m ago", secs / 60),
        3600..=86_399 => format!("{}h ago", secs / 3600),
        _ => format!("{}d ago", secs / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc(951_782_400_000), "2000-02-29 00:00:00 UTC");
        assert_eq!(utc(1_767_225_599_000), "2025-12-31 23:59:59 UTC");
        assert_eq!(ago(0, 90_000), "1m ago");
        assert_eq!(ago(0, 3 * 86_400_000), "3d ago");
    }
}
