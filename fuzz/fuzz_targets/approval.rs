//! The approval policy on arbitrary command lines: it never panics, and a
//! line it allows under `on-risk` is plainly safe by the second,
//! independent judge ([`rebound_oracle::plainly_safe`]).
#![no_main]

use libfuzzer_sys::fuzz_target;
use rebound_tools::approval::{ApprovalMode, ApprovalPolicy, Verdict};

fuzz_target!(|data: &[u8]| {
    let Ok(line) = std::str::from_utf8(data) else {
        return;
    };
    let policy = ApprovalPolicy::new(ApprovalMode::OnRisk).with_workspace("/work/ws");
    if let Verdict::Allow = policy.assess(line) {
        if let Err(why) = rebound_oracle::plainly_safe(line) {
            panic!("the policy allows {line:?}, but {why}");
        }
    }
});
