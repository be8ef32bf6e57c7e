# A partly filled last page is still a page: round up.
sed -i 's|^    total / per_page$|    total.div_ceil(per_page)|' src/lib.rs
