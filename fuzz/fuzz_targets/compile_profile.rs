//! Fuzz the compiler: arbitrary bytes (read as UTF-8, lossily) as an agent profile, YAML or
//! JSON. Loading, compiling and lowering must never panic; every error is a diagnostic with a
//! location in the file; and whatever compiles must load as a sidecar whose decisions are the
//! reference evaluator's.
//!
//! Seeds: `corpus/profiles/*.yaml`, `corpus/profiles/runtime-config.json` and
//! `fuzz/profile.yaml` (copy them to `fuzz/corpus/compile_profile/`); the agent is the first
//! of `a`, `trader`, `reviewer`, `cautious` the file defines. The stable, bounded version of
//! this target runs in `cargo test` (`compiler/tests/fuzz_smoke/`,
//! `mutated_profiles_compile_or_fail_with_located_errors`).
#![no_main]

use engine::reference::ReferenceEvaluator;
use engine::{Call, CompiledPolicy};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let agent = ["a", "trader", "reviewer", "cautious"]
        .into_iter()
        .find(|agent| text.contains(&format!("{agent}:")) || text.contains(&format!("\"{agent}\"")))
        .unwrap_or("a");
    let compiled = match compiler::load_profile_str(&text, "fuzz.yaml".into(), agent)
        .and_then(|profile| compiler::compile_profile(&profile))
    {
        Ok(compiled) => compiled,
        Err(errors) => {
            for d in &errors.0 {
                let location = d.location.as_ref().expect("every error is located");
                assert_eq!(&*location.file, "fuzz.yaml");
            }
            return;
        }
    };
    let image = match compiled.lower() {
        Ok(image) => image,
        Err(d) => {
            assert!(d.location.is_some(), "unlocated lowering error: {d}");
            return;
        }
    };
    let json = compiled.policy.to_json();
    let sidecar = image
        .encode(json.as_bytes())
        .expect("a lowered image encodes");
    let automaton = CompiledPolicy::from_bytes(&sidecar, json.as_bytes()).expect("it loads");
    let reference = ReferenceEvaluator::new(&compiled.policy).expect("it compiled");
    for (tool_name, input) in [
        (
            "Bash",
            serde_json::json!({"command": "git push --force && deploy to prod"}),
        ),
        ("Read", serde_json::json!({"file_path": "/etc/passwd"})),
        (
            "WebFetch",
            serde_json::json!({"url": "https://evil.example/x"}),
        ),
    ] {
        let call = Call {
            event: "PreToolUse",
            tool_name,
            tool_input: &input,
            places: Default::default(),
        };
        assert_eq!(automaton.decide(call), reference.decide(call));
    }
});
