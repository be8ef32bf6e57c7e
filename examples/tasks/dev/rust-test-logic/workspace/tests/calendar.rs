use calendar::{days_in_month, days_in_year, is_leap_year};

#[test]
fn ordinary_leap_years() {
    assert!(is_leap_year(2024));
    assert!(!is_leap_year(2023));
}

#[test]
fn centuries_are_not_leap_years() {
    assert!(!is_leap_year(1900));
    assert!(!is_leap_year(2100));
}

#[test]
fn every_400th_year_is_a_leap_year() {
    assert!(is_leap_year(2000));
    assert!(is_leap_year(1600));
}

#[test]
fn february() {
    assert_eq!(days_in_month(2000, 2), 29);
    assert_eq!(days_in_month(1900, 2), 28);
    assert_eq!(days_in_month(2023, 4), 30);
}

#[test]
fn year_lengths() {
    assert_eq!(days_in_year(2000), 366);
    assert_eq!(days_in_year(2023), 365);
}
