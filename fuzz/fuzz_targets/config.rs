//! A `rebound.toml`, whatever it holds: a parsed file or an error naming
//! what is wrong, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let _ = rebound_workspace::config::parse_file(std::path::Path::new("rebound.toml"), text);
});
