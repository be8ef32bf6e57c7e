//! A model's answer, whatever it holds: the JSON extraction, the plan,
//! review and check-plan parsers, the fenced-code extraction and the
//! splice of an edit's replacement give a value or an error, never a
//! panic; a splice keeps the lines outside its span.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use rebound_agent::edit::{extract_code, resolve_target, splice, EditSpan};
use rebound_agent::{PlanWithCheck, Review};

/// A file with three definitions, and the span of the middle one.
const ORIGINAL: &str = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return b - a\n\n\ndef mul(a, b):\n    return a * b\n";

fn span() -> &'static EditSpan {
    static SPAN: OnceLock<EditSpan> = OnceLock::new();
    SPAN.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("rebound-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temp dir");
        std::fs::write(dir.join("calc.py"), ORIGINAL).expect("the file");
        resolve_target(&dir, "calc.py", "sub", None).expect("the span of sub")
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = rebound_llm::extract_json(&text);
    let _ = rebound_llm::parse::<serde_json::Value>(&text);
    let _ = rebound_llm::parse::<PlanWithCheck>(&text);
    let _ = rebound_llm::parse::<Review>(&text);
    if let Ok(code) = extract_code(&text) {
        if let Ok(spliced) = splice(ORIGINAL, span(), &code) {
            assert!(spliced.starts_with("def add(a, b):\n    return a + b\n"));
            assert!(spliced.ends_with("def mul(a, b):\n    return a * b\n"));
        }
    }
});
