# map_or takes `best` by value, moving it out inside the loop: borrow it instead.
sed -i 's/if best.map_or(true, |(_, n)| count > n) {/if best.as_ref().map_or(true, |(_, n)| count > *n) {/' src/lib.rs
