# Sort by count descending; keep the alphabetical tie-break.
sed -i 's/pairs.sort_by(|a, b| a.1.cmp(&b.1)/pairs.sort_by(|a, b| b.1.cmp(\&a.1)/' src/main.rs
