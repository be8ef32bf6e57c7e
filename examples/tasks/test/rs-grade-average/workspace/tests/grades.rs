use grades::{average, letter};

#[test]
fn average_of_whole_numbers() {
    assert_eq!(average(&[90, 85, 77]), Some(84.0));
}

#[test]
fn average_keeps_the_fraction() {
    assert_eq!(average(&[70, 81]), Some(75.5));
    assert_eq!(average(&[1, 2, 2]), Some(5.0 / 3.0));
}

#[test]
fn average_of_nothing() {
    assert_eq!(average(&[]), None);
}

#[test]
fn letters() {
    assert_eq!(letter(95), 'A');
    assert_eq!(letter(80), 'B');
    assert_eq!(letter(42), 'F');
}
