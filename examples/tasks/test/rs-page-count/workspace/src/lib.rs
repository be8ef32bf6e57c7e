//! Splitting a list of results into pages for display.

/// How many pages `total` items fill when each page holds `per_page` items.
pub fn page_count(total: usize, per_page: usize) -> usize {
    assert!(per_page > 0, "per_page must be positive");
    total / per_page
}

/// The items of page `page` (numbered from 1), empty past the last page.
pub fn page<T>(items: &[T], page: usize, per_page: usize) -> &[T] {
    if page == 0 || page > page_count(items.len(), per_page) {
        return &[];
    }
    let start = (page - 1) * per_page;
    let end = (start + per_page).min(items.len());
    &items[start..end]
}
