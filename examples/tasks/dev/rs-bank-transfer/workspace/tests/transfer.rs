use bank::Bank;

fn sample() -> Bank {
    let mut bank = Bank::new();
    bank.open("alice", 5_000);
    bank.open("bob", 1_200);
    bank
}

#[test]
fn moves_money_between_accounts() {
    let mut bank = sample();
    bank.transfer("alice", "bob", 2_000).unwrap();
    assert_eq!(bank.balance("alice"), Some(3_000));
    assert_eq!(bank.balance("bob"), Some(3_200));
}

#[test]
fn refuses_overdraft_and_changes_nothing() {
    let mut bank = sample();
    assert!(bank.transfer("bob", "alice", 1_201).is_err());
    assert_eq!(bank.balance("alice"), Some(5_000));
    assert_eq!(bank.balance("bob"), Some(1_200));
}

#[test]
fn unknown_target_changes_nothing() {
    let mut bank = sample();
    assert!(bank.transfer("alice", "carol", 100).is_err());
    assert_eq!(bank.balance("alice"), Some(5_000));
    assert_eq!(bank.balance("carol"), None);
}

#[test]
fn unknown_source_is_an_error() {
    let mut bank = sample();
    assert!(bank.transfer("dave", "bob", 100).is_err());
    assert_eq!(bank.balance("bob"), Some(1_200));
}
