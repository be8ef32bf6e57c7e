//! Gregorian calendar helpers.

/// Whether `year` is a leap year.
pub fn is_leap_year(year: u32) -> bool {
    year % 4 == 0 && year % 100 != 0
}

/// The number of days in `month` (1 to 12) of `year`.
pub fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 => {
            if is_leap_year(year) {
                29
            } else {
                28
            }
        }
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The number of days in `year`.
pub fn days_in_year(year: u32) -> u32 {
    (1..=12).map(|month| days_in_month(year, month)).sum()
}
