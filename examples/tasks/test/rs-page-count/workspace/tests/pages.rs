use pager::{page, page_count};

#[test]
fn exact_multiple() {
    assert_eq!(page_count(9, 3), 3);
    assert_eq!(page_count(20, 10), 2);
}

#[test]
fn partial_last_page_counts() {
    assert_eq!(page_count(10, 3), 4);
    assert_eq!(page_count(1, 25), 1);
}

#[test]
fn no_items_no_pages() {
    assert_eq!(page_count(0, 5), 0);
}

#[test]
fn pages_of_a_list() {
    let items: Vec<u32> = (1..=7).collect();
    assert_eq!(page(&items, 1, 3), &[1, 2, 3]);
    assert_eq!(page(&items, 3, 3), &[7]);
    assert!(page(&items, 4, 3).is_empty());
    assert!(page(&items, 0, 3).is_empty());
}
