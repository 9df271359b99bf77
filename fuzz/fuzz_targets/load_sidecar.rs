//! Fuzz the sidecar loader: arbitrary bytes as the sidecar of a fixed policy JSON. Loading
//! must return `Ok` or a `LoadError`, never panic; and whatever loads must decide without
//! panicking.
//!
//! Seeds: `animus-hook compile` output (`*.sidecar`) in `fuzz/corpus/load_sidecar/`. Random
//! mutations almost always fail the digest; the loader's header checks before the digest and
//! its exact `Truncated`/`Corrupt` distinction are what this exercises, plus the decide path
//! for inputs that pass (the seeds themselves).
#![no_main]

use engine::{Call, CompiledPolicy};
use libfuzzer_sys::fuzz_target;

/// The JSON the seeds were compiled from is irrelevant to the loader's safety: a sidecar
/// for any other JSON is rejected as stale after every other check ran.
const POLICY_JSON: &[u8] = include_bytes!("../policy.json");

fuzz_target!(|data: &[u8]| {
    if let Ok(policy) = CompiledPolicy::from_bytes(data, POLICY_JSON) {
        let input = serde_json::json!({ "command": "git push --force origin main", "file_path": "/etc/passwd" });
        let _ = policy.decide(Call {
            event: "PreToolUse",
            tool_name: "Bash",
            tool_input: &input,
            places: Default::default(),
        });
    }
});
