//! A JSON schema's text with each object's properties in the order its
//! `required` list gives them.
//!
//! A grammar built from a schema (llama.cpp's JSON-schema converter) makes
//! the model write an object's properties in the order the schema's text
//! lists them. `serde_json`'s map sorts keys by name, so without this a
//! model writes `description` before `kind` because of the alphabet. Here
//! the `required` list is the order: a schema that puts `kind` first in
//! it is answered kind first. Properties not in `required` follow, by
//! name.

use serde_json::Value;

/// `schema` as compact JSON text, each `properties` object in the order of
/// its sibling `required` list, then the rest by name.
///
/// ```
/// let schema = serde_json::json!({
///     "type": "object",
///     "properties": {"description": {"type": "string"}, "kind": {"const": "edit"}},
///     "required": ["kind", "description"]
/// });
/// let text = rebound_llm::schema_text_in_required_order(&schema);
/// assert!(text.find("\"kind\"").unwrap() < text.find("\"description\"").unwrap());
/// ```
pub fn schema_text_in_required_order(schema: &Value) -> String {
    let mut out = String::new();
    write(schema, &mut out);
    out
}

fn write(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let required: Vec<&str> = map
                .get("required")
                .and_then(Value::as_array)
                .map(|names| names.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            out.push('{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                match (key.as_str(), item) {
                    ("properties", Value::Object(properties)) => {
                        write_properties(properties, &required, out)
                    }
                    _ => write(item, out),
                }
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write(item, out);
            }
            out.push(']');
        }
        leaf => out.push_str(&leaf.to_string()),
    }
}

/// The properties named in `required` first, in its order, then the others.
fn write_properties(
    properties: &serde_json::Map<String, Value>,
    required: &[&str],
    out: &mut String,
) {
    let first = required
        .iter()
        .filter_map(|name| properties.get_key_value(*name));
    let rest = properties
        .iter()
        .filter(|(name, _)| !required.contains(&name.as_str()));
    out.push('{');
    for (i, (name, schema)) in first.chain(rest).enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&Value::String(name.clone()).to_string());
        out.push(':');
        write(schema, out);
    }
    out.push('}');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn properties_follow_the_required_order_at_every_depth_and_the_text_is_the_same_json() {
        let schema = json!({
            "type": "object",
            "properties": {
                "steps": {"type": "array", "items": {"anyOf": [{
                    "type": "object",
                    "properties": {
                        "command": {"type": "string"},
                        "description": {"type": "string"},
                        "kind": {"enum": ["run", "observe"]},
                        "note": {"type": "string"}
                    },
                    "required": ["kind", "description", "command"]
                }]}},
                "check": {"type": "string", "pattern": "^\"a\"$"}
            },
            "required": ["check", "steps"]
        });
        let text = schema_text_in_required_order(&schema);
        let at = |needle: &str| text.find(needle).unwrap();
        assert!(at("\"check\"") < at("\"steps\""));
        assert!(at("\"kind\"") < at("\"description\""));
        assert!(at("\"description\"") < at("\"command\""));
        assert!(at("\"command\":{") < at("\"note\""), "unrequired last");
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, schema, "only the order changed");
    }

    #[test]
    fn a_property_named_properties_is_not_mistaken_for_the_keyword() {
        let schema = json!({
            "properties": {"properties": {"type": "object", "properties": {"b": {}, "a": {}}, "required": ["b"]}},
            "required": ["properties"]
        });
        let text = schema_text_in_required_order(&schema);
        assert!(
            text.find("\"b\"").unwrap() < text.find("\"a\"").unwrap(),
            "{text}"
        );
        assert_eq!(serde_json::from_str::<Value>(&text).unwrap(), schema);
    }
}
