//! A TOML file a bad merge left with a table declared twice or a setting
//! written twice, made valid by keeping each setting once: a repeated
//! table's settings join the first table of that name, and a setting
//! repeated with the same value is dropped. A setting repeated with a
//! different value is a choice the harness does not make (`None`), and
//! arrays of tables (`[[x]]`) and settings that span lines are left to
//! the other repairs. Found on dev: `Cannot overwrite a value` on a
//! `pyproject.toml` with a doubled `[tool.pytest.ini_options]` and a
//! doubled `line-length`; the model rewrote the whole file five times
//! and never kept every setting.

use std::collections::BTreeMap;

/// `text` with its repeated tables merged and repeated settings dropped,
/// when that makes it valid TOML; `None` when it is valid already, or
/// the merge cannot do it without choosing between two values.
pub(crate) fn merge_duplicates(text: &str) -> Option<String> {
    if text.parse::<toml::Table>().is_ok() {
        return None;
    }
    let sections = sections(text)?;
    let mut merged: Vec<Section<'_>> = Vec::new();
    let mut changed = false;
    for section in sections {
        match merged
            .iter_mut()
            .find(|m| m.header.is_some() && m.name == section.name)
        {
            Some(first) => {
                changed = true;
                // The first table's trailing blank lines stay after the
                // settings that join it.
                let blanks = first
                    .lines
                    .iter()
                    .rev()
                    .take_while(|l| l.trim().is_empty())
                    .count();
                let at = first.lines.len() - blanks;
                let joining: Vec<&str> = section
                    .lines
                    .iter()
                    .copied()
                    .filter(|l| !l.trim().is_empty())
                    .collect();
                first.lines.splice(at..at, joining);
            }
            None => merged.push(section),
        }
    }
    let mut out = String::with_capacity(text.len());
    for section in &mut merged {
        let mut seen: BTreeMap<String, toml::Value> = BTreeMap::new();
        let mut kept: Vec<&str> = Vec::new();
        for line in &section.lines {
            if let Some((key, value)) = setting(line) {
                let value = value?;
                match seen.get(&key) {
                    Some(earlier) if *earlier == value => {
                        changed = true;
                        continue;
                    }
                    Some(_) => return None,
                    None => {
                        seen.insert(key, value);
                    }
                }
            }
            kept.push(line);
        }
        if let Some(header) = section.header {
            out.push_str(header);
        }
        for line in kept {
            out.push_str(line);
        }
    }
    (changed && out.parse::<toml::Table>().is_ok()).then_some(out)
}

/// The lines under one table header (or before the first).
struct Section<'t> {
    /// The header line, with its line end (`None` before the first).
    header: Option<&'t str>,
    /// The table's name, spaces removed (empty before the first).
    name: String,
    /// Its lines, each with its line end.
    lines: Vec<&'t str>,
}

/// `text` cut at its table headers; `None` when it has an array of
/// tables (`[[x]]`), whose repeats are meant.
fn sections(text: &str) -> Option<Vec<Section<'_>>> {
    let mut sections = vec![Section {
        header: None,
        name: String::new(),
        lines: Vec::new(),
    }];
    for line in text.split_inclusive('\n') {
        let content = line.trim();
        if content.starts_with("[[") {
            return None;
        }
        if let Some(name) = table_name(content) {
            sections.push(Section {
                header: Some(line),
                name,
                lines: Vec::new(),
            });
        } else if let Some(section) = sections.last_mut() {
            section.lines.push(line);
        }
    }
    Some(sections)
}

/// The name of a `[table]` header line, spaces removed.
fn table_name(content: &str) -> Option<String> {
    let inner = content.strip_prefix('[')?;
    let (name, rest) = inner.split_once(']')?;
    let rest = rest.trim();
    (rest.is_empty() || rest.starts_with('#'))
        .then(|| name.chars().filter(|c| !c.is_whitespace()).collect())
}

/// A `key = value` line's key (spaces removed) and its value read as
/// TOML (`Some(None)` when the value does not read on its own line: it
/// spans lines, or is broken); `None` for any other line.
fn setting(line: &str) -> Option<(String, Option<toml::Value>)> {
    let content = line.trim();
    if content.is_empty() || content.starts_with('#') || content.starts_with('[') {
        return None;
    }
    let (key, _) = content.split_once('=')?;
    let key: String = key.chars().filter(|c| !c.is_whitespace()).collect();
    let value = format!("v = {}", content[content.find('=')? + 1..].trim())
        .parse::<toml::Table>()
        .ok()
        .and_then(|mut table| table.remove("v"));
    Some((key, value))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn repeated_tables_join_and_repeated_settings_go() {
        let text = "[project]\nname = \"x\"\n\n[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\n\n[tool.ruff]\nline-length = 100\nline-length = 100\n\n[tool.pytest.ini_options]\nmarkers = [\"slow\"]\n";
        let merged = merge_duplicates(text).unwrap();
        assert_eq!(
            merged,
            "[project]\nname = \"x\"\n\n[tool.pytest.ini_options]\ntestpaths = [\"tests\"]\nmarkers = [\"slow\"]\n\n[tool.ruff]\nline-length = 100\n\n"
        );
        let table: toml::Table = merged.parse().unwrap();
        assert_eq!(
            table["tool"]["pytest"]["ini_options"]["markers"][0].as_str(),
            Some("slow")
        );
    }

    #[test]
    fn two_values_arrays_of_tables_and_valid_files_are_left_alone() {
        assert_eq!(merge_duplicates("[a]\nx = 1\nx = 2\n"), None);
        assert_eq!(merge_duplicates("[a]\nx = 1\n[a]\nx = 2\n"), None);
        assert_eq!(
            merge_duplicates("[[bin]]\nname = \"a\"\n[[bin]]\nname = \"a\"\n[a]\n[a]\n"),
            None
        );
        assert_eq!(merge_duplicates("[a]\nx = 1\n"), None);
        // A broken value is not this repair's to fix.
        assert_eq!(merge_duplicates("[a]\nx = mail-relay\nx = 1\n"), None);
    }
}
