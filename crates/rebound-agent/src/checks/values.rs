//! The new values a goal asks for: "the currency should be USD instead of
//! EUR", "must be `8080` instead of `80`", "change the port from 80 to
//! 8080". A check that never looks for such a value (it runs the program,
//! or the file is only non-empty) cannot show it was set, so it cannot
//! verify the finish ([`super::Evidence::uncovered`]). Found on test as a
//! false success: config.ini was copied from its example, the agent's
//! check `python3 report.py` passed, and the currency was still EUR.

use std::sync::LazyLock;

use regex::Regex;

/// A value as a goal writes one: quoted or backticked text, a number, or
/// a word in capitals (`USD`, `INFO`).
const VALUE: &str =
    r#"(`[^`\n]{1,60}`|"[^"\n]{1,60}"|'[^'\n]{1,60}'|-?\d+(?:\.\d+)?|[A-Z][A-Z0-9_]{1,30})"#;

/// "should be Y instead of Z", "must be Y rather than Z": `Y` is group 1.
static INSTEAD: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(&format!(
        r"\b(?:should|must|needs?\s+to|has\s+to|have\s+to|is\s+to)\s+(?:be|become|read|say|use|show)\s+{VALUE}\s+(?:instead\s+of|rather\s+than|not)\b"
    ))
    .ok()
});

/// "from Z to Y" (after change/set/switch/update/raise/lower): `Y` is
/// group 2.
static FROM_TO: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i:\b(?:change|changed|set|switch|update|raise|lower|bump|move)\b)(?:[^.;\n]|\.\S){{0,60}}?\bfrom\s+{VALUE}\s+to\s+{VALUE}"
    ))
    .ok()
});

/// The new values `goal` asks for, without their quotes, in order.
pub fn new_values(goal: &str) -> Vec<String> {
    let mut values: Vec<String> = Vec::new();
    let found = INSTEAD
        .iter()
        .flat_map(|r| r.captures_iter(goal).filter_map(|c| c.get(1)))
        .chain(
            FROM_TO
                .iter()
                .flat_map(|r| r.captures_iter(goal).filter_map(|c| c.get(2))),
        );
    for value in found {
        let value = value
            .as_str()
            .trim_matches(|c| c == '`' || c == '"' || c == '\'')
            .to_string();
        if !value.trim().is_empty() && !values.contains(&value) {
            values.push(value);
        }
    }
    values
}

#[cfg(test)]
mod tests {
    use super::new_values;

    #[test]
    fn the_values_a_goal_asks_for_are_read() {
        assert_eq!(
            new_values("Create config.ini from config.example.ini with the same settings, except that the currency should be USD instead of EUR."),
            vec!["USD"]
        );
        assert_eq!(
            new_values("The port must be `8080` instead of `80`."),
            vec!["8080"]
        );
        assert_eq!(
            new_values("Change the log level in app.toml from \"debug\" to \"info\"."),
            vec!["info"]
        );
        assert_eq!(
            new_values("Set the timeout from 30 to 45 seconds"),
            vec!["45"]
        );
    }

    #[test]
    fn a_symptom_or_a_plain_sentence_asks_for_no_value() {
        assert!(new_values("It prints prices like \"$3.5\" instead of \"$3.50\".").is_empty());
        assert!(new_values("Requests wait 2500 seconds instead of 2.5.").is_empty());
        assert!(new_values("Copy the files from docs to site.").is_empty());
        assert!(new_values("It should be fast instead of slow.").is_empty());
    }
}
