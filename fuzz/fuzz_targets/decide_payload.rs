//! Fuzz deciding: arbitrary bytes as a hook payload, decided under a fixed policy by both
//! evaluators — the reference evaluator (the JSON policy, regexes compiled with `regex`) and
//! the compiled sidecar. Neither may panic, and they must agree: same decision, reason,
//! deciding rule and matched rules.
//!
//! Seeds: the payloads in `corpus/payloads/` (copy them to `fuzz/corpus/decide_payload/`).
//! The stable, bounded version of this target runs in `cargo test`
//! (`compiler/tests/fuzz_smoke/`, `odd_payloads_are_decided_alike_by_both_evaluators`).
#![no_main]

use std::sync::OnceLock;

use engine::reference::ReferenceEvaluator;
use engine::{Call, CompiledPolicy, HookPolicy};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// A profile whose rules reach every matcher kind, view and tool table (the same shapes as
/// `RICH_PROFILE` in `compiler/tests/fuzz_smoke/`).
const PROFILE: &str = include_str!("../profile.yaml");

fn policies() -> &'static (HookPolicy, CompiledPolicy) {
    static POLICIES: OnceLock<(HookPolicy, CompiledPolicy)> = OnceLock::new();
    POLICIES.get_or_init(|| {
        let profile = compiler::load_profile_str(PROFILE, "profile.yaml".into(), "a")
            .unwrap_or_else(|e| panic!("{e}"));
        let policy = compiler::compile_profile(&profile)
            .unwrap_or_else(|e| panic!("{e}"))
            .policy;
        let json = policy.to_json();
        let sidecar = compiler::lower::build_sidecar(&policy, json.as_bytes())
            .unwrap_or_else(|e| panic!("{e}"));
        let compiled = CompiledPolicy::from_bytes(&sidecar, json.as_bytes()).unwrap();
        (policy, compiled)
    })
}

fuzz_target!(|data: &[u8]| {
    // What the hook does first: parse, and take a non-empty string tool name (anything else is
    // denied before a policy is consulted).
    let Ok(payload) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    // Path rules resolve against the payload's working directory, as in the hook.
    let places = engine::paths::Places {
        cwd: payload.get("cwd").and_then(Value::as_str),
        ..Default::default()
    };
    let Some(call) = Call::from_payload(&payload, places) else {
        return;
    };
    let (policy, compiled) = policies();
    let reference = ReferenceEvaluator::new(policy).unwrap();
    assert_eq!(compiled.decide(call), reference.decide(call));
});
