# Two get_mut borrows of the same map cannot be alive at once: check first,
# then update one account at a time.
python3 - <<'PY'
path = "src/lib.rs"
src = open(path).read()
old = src[src.index("        let source = self"):src.index("        Ok(())\n    }\n}")]
new = '''        let available = self
            .balance(from)
            .ok_or_else(|| format!("no account named {from}"))?;
        if !self.accounts.contains_key(to) {
            return Err(format!("no account named {to}"));
        }
        if available < amount {
            return Err(format!("{from} has only {available} cents"));
        }
        *self.accounts.get_mut(from).unwrap() -= amount;
        *self.accounts.get_mut(to).unwrap() += amount;
'''
open(path, "w").write(src.replace(old, new))
PY
