//! Programs the harness writes itself for a goal that converts one data
//! file into another ("Create config/app.json with exactly the same data
//! as config/app.yaml", "convert products.csv to products.json"): read
//! the source with Python's own reader of its format (JSON, YAML, TOML,
//! CSV), write the target with the writer of its format. They are a
//! script step's first candidates, before any model call, and like every
//! candidate they run in a scratch copy and are kept only when the checks
//! pass there; with no check to judge them they are not used (a CSV's
//! values may be meant as text or as numbers, and only a check can say).
//! Found on dev: the model wrote YAML into a `.json` file in five samples
//! in a row.

use std::path::Path;

/// A data format the programs read or write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Json,
    Yaml,
    Toml,
    Csv,
}

impl Format {
    /// The format of `file`, by its extension.
    fn of(file: &str) -> Option<Format> {
        let extension = Path::new(file).extension()?.to_str()?.to_ascii_lowercase();
        Some(match extension.as_str() {
            "json" => Format::Json,
            "yaml" | "yml" => Format::Yaml,
            "toml" => Format::Toml,
            "csv" => Format::Csv,
            _ => return None,
        })
    }

    /// Python that reads the file at the path in `src` into `data`.
    fn reader(self) -> &'static str {
        match self {
            Format::Json => "import json\nwith open(src, encoding='utf-8') as f:\n    data = json.load(f)\n",
            Format::Yaml => "import yaml\nwith open(src, encoding='utf-8') as f:\n    data = yaml.safe_load(f)\n",
            Format::Toml => "import tomllib\nwith open(src, 'rb') as f:\n    data = tomllib.load(f)\n",
            Format::Csv => "import csv\nwith open(src, newline='', encoding='utf-8') as f:\n    data = list(csv.DictReader(f))\n",
        }
    }

    /// Python that writes `data` to the path in `dst`; `None` for a
    /// format with no writer in Python's standard library (TOML).
    fn writer(self) -> Option<&'static str> {
        Some(match self {
            Format::Json => "import json\nwith open(dst, 'w', encoding='utf-8') as f:\n    json.dump(data, f, indent=2, ensure_ascii=False)\n    f.write('\\n')\n",
            Format::Yaml => "import yaml\nwith open(dst, 'w', encoding='utf-8') as f:\n    yaml.safe_dump(data, f, sort_keys=False, allow_unicode=True)\n",
            Format::Csv => "import csv\nrows = data if isinstance(data, list) else [data]\nfields = []\nfor row in rows:\n    for key in row:\n        if key not in fields:\n            fields.append(key)\nwith open(dst, 'w', newline='', encoding='utf-8') as f:\n    out = csv.DictWriter(f, fieldnames=fields)\n    out.writeheader()\n    out.writerows(rows)\n",
            Format::Toml => return None,
        })
    }
}

/// CSV values as numbers where they are written as numbers are (`12`,
/// `-3`, `24.9`, `1e3`; not `00417`, whose leading zeros a number would
/// lose), `true`/`false` as booleans, the other values as text; with
/// `YES_NO` set, `yes`/`no` as booleans too.
const TYPED_CSV: &str = "import re\ndef typed(value):\n    if value is None:\n        return value\n    text = value.strip()\n    lower = text.lower()\n    if lower in ('true', 'false') or (YES_NO and lower in ('yes', 'no')):\n        return lower in ('true', 'yes')\n    if re.fullmatch(r'-?(0|[1-9][0-9]*)', text):\n        return int(text)\n    if re.fullmatch(r'-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][-+]?[0-9]+)?', text):\n        return float(text)\n    return value\ndata = [{key: typed(value) for key, value in row.items()} for row in data]\n";

/// The programs that convert the goal's source data file into its output
/// file, most likely first: `source` and `output` are workspace-relative
/// paths; empty when either format is not one of these or the output's
/// has no writer. From CSV, the values typed (numbers, `true`/`false`)
/// come first, then with `yes`/`no` as booleans too, then all as text.
pub(crate) fn conversion_programs(source: &str, output: &str) -> Vec<String> {
    let (Some(from), Some(to)) = (Format::of(source), Format::of(output)) else {
        return Vec::new();
    };
    let Some(writer) = to.writer() else {
        return Vec::new();
    };
    if from == to {
        return Vec::new();
    }
    let paths = format!(
        "src = {}\ndst = {}\nimport os\nif os.path.dirname(dst):\n    os.makedirs(os.path.dirname(dst), exist_ok=True)\n",
        python_string(source),
        python_string(output)
    );
    let plain = format!("{paths}{}{writer}", from.reader());
    if from == Format::Csv && to != Format::Csv {
        let typed = |yes_no: &str| {
            format!(
                "{paths}{}YES_NO = {yes_no}\n{TYPED_CSV}{writer}",
                from.reader()
            )
        };
        vec![typed("False"), typed("True"), plain]
    } else {
        vec![plain]
    }
}

/// The data file the goal converts into `output`: the first other file
/// the goal names that is in the workspace and in one of the formats.
pub(crate) fn conversion_source(goal: &str, output: &str, workspace: &Path) -> Option<String> {
    crate::checks::clauses::path_words(goal)
        .filter(|word| *word != output && Format::of(word).is_some())
        .find(|word| workspace.join(word).is_file())
        .map(str::to_string)
}

/// `text` as a Python string literal.
fn python_string(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "''".to_string())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn run(root: &Path, program: &str) -> std::process::Output {
        std::fs::write(root.join("convert.py"), program).unwrap();
        crate::checks::test_bash(root, "python3 convert.py")
    }

    #[test]
    fn yaml_with_anchors_becomes_the_same_json() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir(root.join("config")).unwrap();
        std::fs::write(
            root.join("config/app.yaml"),
            "defaults: &d\n  retries: 3\nup:\n  <<: *d\n  url: http://x\n",
        )
        .unwrap();
        let goal = "Create config/app.json with exactly the same data as config/app.yaml.";
        let source = conversion_source(goal, "config/app.json", root).unwrap();
        assert_eq!(source, "config/app.yaml");
        let programs = conversion_programs(&source, "config/app.json");
        assert_eq!(programs.len(), 1);
        let out = run(root, &programs[0]);
        if String::from_utf8_lossy(&out.stderr).contains("No module named 'yaml'") {
            eprintln!("skipped: PyYAML is not installed");
            return;
        }
        assert!(out.status.success(), "{out:?}");
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(root.join("config/app.json")).unwrap())
                .unwrap();
        assert_eq!(
            json,
            serde_json::json!({"defaults": {"retries": 3}, "up": {"retries": 3, "url": "http://x"}})
        );
    }

    #[test]
    fn csv_becomes_json_typed_first_then_as_text() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join("p.csv"),
            "sku,name,price,stock,active\n00417,pen,1.5,10,yes\n",
        )
        .unwrap();
        let programs = conversion_programs("p.csv", "out/p.json");
        assert_eq!(programs.len(), 3);
        let read = |program: &str| -> serde_json::Value {
            let out = run(root, program);
            assert!(out.status.success(), "{out:?}");
            serde_json::from_str(&std::fs::read_to_string(root.join("out/p.json")).unwrap())
                .unwrap()
        };
        // Leading zeros keep a value text.
        assert_eq!(
            read(&programs[0]),
            serde_json::json!([{"sku": "00417", "name": "pen", "price": 1.5, "stock": 10, "active": "yes"}])
        );
        assert_eq!(
            read(&programs[1]),
            serde_json::json!([{"sku": "00417", "name": "pen", "price": 1.5, "stock": 10, "active": true}])
        );
        assert_eq!(
            read(&programs[2]),
            serde_json::json!([{"sku": "00417", "name": "pen", "price": "1.5", "stock": "10", "active": "yes"}])
        );
    }

    #[test]
    fn no_program_for_the_same_format_unknown_ones_or_toml_output() {
        assert!(conversion_programs("a.json", "b.json").is_empty());
        assert!(conversion_programs("a.txt", "b.json").is_empty());
        assert!(conversion_programs("a.json", "b.toml").is_empty());
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            conversion_source("Convert a.yaml to b.json", "b.json", dir.path()),
            None
        );
    }
}
