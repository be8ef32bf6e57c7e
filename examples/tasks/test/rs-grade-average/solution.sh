# Divide as floating point, not as integers of two different types.
sed -i 's|    Some(total / scores.len())|    Some(f64::from(total) / scores.len() as f64)|' src/lib.rs
