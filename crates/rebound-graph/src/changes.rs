//! The update between two values of one state ([`crate::State::changes`]):
//! what a subgraph sharing its parent's state hands back to the parent.
//!
//! This file and `state.rs` use each other on purpose: it is the body of
//! the `State` trait's default `changes`, and it reads the trait's fields
//! and merge rules; one concern, kept apart from the trait for length.

use serde_json::{Map, Value};

use crate::{FieldSet, MergeRule, State};

/// The JSON key under which a derived update lists its overwritten fields
/// (as [`FieldSet`] bits); absent when it overwrites nothing.
pub(crate) const OVERWRITTEN_KEY: &str = "__overwritten";

/// The state as a JSON object.
fn encode<S: State>(state: &S) -> Result<Map<String, Value>, String> {
    match serde_json::to_value(state) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err("the state does not encode as a JSON object".to_string()),
        Err(e) => Err(format!("the state cannot be encoded: {e}")),
    }
}

/// See [`State::changes`].
pub(crate) fn changes<S: State>(before: &S, after: &S) -> Result<S::Update, String> {
    let old = encode(before)?;
    let new = encode(after)?;
    let mut update = Map::new();
    let mut overwritten = FieldSet::EMPTY;
    for (index, (field, rule)) in S::FIELDS.iter().zip(S::MERGE_RULES).enumerate() {
        let (was, is) = (old.get(*field), new.get(*field));
        if was == is {
            continue;
        }
        let Some(is) = is else {
            return Err(format!("field {field:?} is missing from the encoded state"));
        };
        let value = match (rule, was, is) {
            (MergeRule::Replace, _, _) => is.clone(),
            // Items added after the old ones: appended, as a node would.
            (MergeRule::Append, Some(Value::Array(was)), Value::Array(is))
                if is.starts_with(was) =>
            {
                Value::Array(is[was.len()..].to_vec())
            }
            _ => {
                overwritten.insert(index);
                is.clone()
            }
        };
        update.insert((*field).to_string(), value);
    }
    if !overwritten.is_empty() {
        update.insert(OVERWRITTEN_KEY.to_string(), Value::from(overwritten.bits()));
    }
    let update: S::Update = serde_json::from_value(Value::Object(update))
        .map_err(|e| format!("the changes do not fit the state's update type: {e}"))?;
    if S::overwritten(&update) != overwritten {
        let fields: Vec<&str> = overwritten.names(S::FIELDS).collect();
        return Err(format!(
            "fields {fields:?} changed in a way their merge rules cannot express, and the \
             state's update type cannot overwrite (derive `State` to get overwrites)"
        ));
    }
    Ok(update)
}
