//! A tiny in-memory ledger of account balances (in cents).

use std::collections::HashMap;

#[derive(Debug, Default)]
pub struct Bank {
    accounts: HashMap<String, u64>,
}

impl Bank {
    pub fn new() -> Self {
        Self::default()
    }

    /// Opens an account with an initial balance.
    pub fn open(&mut self, name: &str, balance: u64) {
        self.accounts.insert(name.to_string(), balance);
    }

    /// The balance of `name`, if the account exists.
    pub fn balance(&self, name: &str) -> Option<u64> {
        self.accounts.get(name).copied()
    }

    /// Moves `amount` from `from` to `to`. Fails, changing nothing, when an
    /// account does not exist or `from` does not have enough money.
    pub fn transfer(&mut self, from: &str, to: &str, amount: u64) -> Result<(), String> {
        let source = self
            .accounts
            .get_mut(from)
            .ok_or_else(|| format!("no account named {from}"))?;
        let target = self
            .accounts
            .get_mut(to)
            .ok_or_else(|| format!("no account named {to}"))?;
        if *source < amount {
            return Err(format!("{from} has only {source} cents"));
        }
        *source -= amount;
        *target += amount;
        Ok(())
    }
}
