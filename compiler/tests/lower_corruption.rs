//! A damaged, stale or foreign sidecar is rejected with a precise error, exhaustively on a
//! small sidecar: every byte flipped, every truncation, the JSON edited after compile. The
//! loader never panics and never decides with bytes it could not vouch for.

mod common;

use common::pre_tool_use;
use std::path::PathBuf;
use test_support::make_dir;

use engine::sidecar::{LoadError, sidecar_path_for};
use engine::{CompiledPolicy, Decision};

const PROFILE: &str = r#"
agent_profiles:
  trader:
    tool_policy:
      deny: ["Bash(* --live*)", "Bash(rm -rf:*)"]
      allow: ["Bash(git status:*)", "Read", "mcp__github"]
    hooks:
      policy_rules:
        - id: no-prod
          tools: [Bash]
          input_matchers: [{field: command, regex: "(?i)deploy.*prod"}]
          decision: deny
          reason: prod needs a human
"#;

/// Compile the test profile into `dir`; returns the policy path.
fn compile_into(dir: &tempfile::TempDir, profile: &str) -> PathBuf {
    let config = dir.path().join("workflow.yaml");
    std::fs::write(&config, profile).unwrap();
    let (path, _) = compiler::compile_to_dir(&config, "trader", &dir.path().join("out")).unwrap();
    path
}

fn small_pair() -> (Vec<u8>, Vec<u8>) {
    let profile = compiler::load_profile_str(PROFILE, "workflow.yaml".into(), "trader").unwrap();
    let compiled = compiler::compile_profile(&profile).unwrap();
    let json = compiled.policy.to_json().into_bytes();
    let sidecar = compiler::lower::build_sidecar(&compiled.policy, &json).unwrap();
    (sidecar, json)
}

fn decide_live(policy: &CompiledPolicy) -> Decision {
    let input = serde_json::json!({ "command": "trade --live now" });
    policy.decide(pre_tool_use("Bash", &input)).decision
}

#[test]
fn the_intact_pair_loads_and_decides() {
    let (sidecar, json) = small_pair();
    let policy = CompiledPolicy::from_bytes(&sidecar, &json).unwrap();
    assert_eq!(decide_live(&policy), Decision::Deny);
    assert_eq!(policy.default_decision(), Decision::Deny);
    assert_eq!(policy.policy_digest().len(), 32);
}

#[test]
fn flipping_any_byte_is_rejected_precisely() {
    let (sidecar, json) = small_pair();
    for offset in 0..sidecar.len() {
        for mask in [0x01u8, 0x80, 0xff] {
            let mut damaged = sidecar.clone();
            damaged[offset] ^= mask;
            let error = CompiledPolicy::from_bytes(&damaged, &json)
                .expect_err(&format!("byte {offset} ^ {mask:#x} was accepted"));
            let expected = match offset {
                0..8 => matches!(error, LoadError::NotASidecar),
                8..12 => matches!(error, LoadError::UnsupportedFormat { .. }),
                // A flipped length field makes the damage look like truncation when it grows.
                _ => matches!(error, LoadError::Corrupt | LoadError::Truncated { .. }),
            };
            assert!(
                expected,
                "byte {offset} ^ {mask:#x}: unexpected error {error}"
            );
            assert!(!error.to_string().is_empty());
        }
    }
}

#[test]
fn truncating_at_any_offset_is_rejected_as_truncated() {
    let (sidecar, json) = small_pair();
    for len in 0..sidecar.len() {
        match CompiledPolicy::from_bytes(&sidecar[..len], &json) {
            Err(LoadError::Truncated { expected, found }) => {
                assert_eq!(found, len as u64);
                assert!(expected > found, "{expected} <= {found}");
            }
            Err(other) => panic!("truncated to {len}: expected Truncated, got {other}"),
            Ok(_) => panic!("truncated to {len}: accepted"),
        }
    }
    let mut longer = sidecar.clone();
    longer.push(0);
    assert!(matches!(
        CompiledPolicy::from_bytes(&longer, &json),
        Err(LoadError::Corrupt)
    ));
}

#[test]
fn editing_the_json_after_compile_makes_the_sidecar_stale() {
    let (sidecar, json) = small_pair();
    for offset in 0..json.len() {
        let mut edited = json.clone();
        edited[offset] ^= 0x20;
        // An edit that leaves valid JSON is a stale pair; one that breaks the JSON is said as
        // damage.
        let parses = serde_json::from_slice::<serde_json::Value>(&edited).is_ok();
        match CompiledPolicy::from_bytes(&sidecar, &edited) {
            Err(LoadError::Stale) if parses => {}
            Err(LoadError::PolicyDamaged { .. }) if !parses => {}
            Err(other) => panic!("edit at {offset} (valid JSON: {parses}): got {other}"),
            Ok(_) => panic!("edit at {offset}: accepted"),
        }
    }
    let mut appended = json.clone();
    appended.extend_from_slice(b"\n");
    let error = CompiledPolicy::from_bytes(&sidecar, &appended)
        .err()
        .unwrap();
    assert!(error.to_string().contains("stale"), "{error}");
}

#[test]
fn compile_to_dir_writes_a_pair_the_hook_loads() {
    let dir = tempfile::tempdir().unwrap();
    let path = compile_into(&dir, PROFILE);
    assert!(sidecar_path_for(&path).is_file());
    let policy = CompiledPolicy::load(&path).unwrap();
    assert_eq!(decide_live(&policy), Decision::Deny);
}

#[test]
fn a_crash_between_the_two_writes_fails_closed() {
    // Simulate the crash: the new sidecar lands, the old JSON stays.
    let dir = tempfile::tempdir().unwrap();
    let path = compile_into(&dir, PROFILE);
    let old_json = std::fs::read(&path).unwrap();
    compile_into(&dir, &PROFILE.replace("--live", "--paper"));
    std::fs::write(&path, old_json).unwrap();
    let error = CompiledPolicy::load(&path).unwrap_err();
    assert!(matches!(error, LoadError::Stale), "{error}");
}

#[test]
fn missing_and_foreign_files_name_the_cause() {
    let dir = tempfile::tempdir().unwrap();
    let path = compile_into(&dir, PROFILE);
    let sidecar_path = sidecar_path_for(&path);

    std::fs::write(
        &sidecar_path,
        b"{\"not\": \"a sidecar\", \"padding\": \"................\"}",
    )
    .unwrap();
    let error = CompiledPolicy::load(&path).unwrap_err();
    assert!(matches!(error, LoadError::NotASidecar), "{error}");

    std::fs::write(&sidecar_path, b"").unwrap();
    let error = CompiledPolicy::load(&path).unwrap_err();
    assert!(
        matches!(error, LoadError::Truncated { found: 0, .. }),
        "{error}"
    );

    std::fs::remove_file(&sidecar_path).unwrap();
    let error = CompiledPolicy::load(&path).unwrap_err();
    assert!(matches!(error, LoadError::SidecarMissing { .. }), "{error}");
    assert!(
        error.to_string().contains("animus-policy.sidecar"),
        "{error}"
    );

    let error = CompiledPolicy::load(&dir.path().join("nope.json")).unwrap_err();
    assert!(
        matches!(error, LoadError::PolicyUnreadable { .. }),
        "{error}"
    );
}

/// The fuzz target's policy compiles and its sidecar loads and decides; with
/// `ANIMUS_WRITE_FUZZ_SEED=1` the sidecar is written as the fuzz seed.
#[test]
fn writes_the_fuzz_seed() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz");
    let json = std::fs::read(root.join("policy.json")).unwrap();
    let policy = engine::HookPolicy::from_json(std::str::from_utf8(&json).unwrap()).unwrap();
    let sidecar = compiler::lower::build_sidecar(&policy, &json).unwrap();
    let compiled = CompiledPolicy::from_bytes(&sidecar, &json).unwrap();
    let input = serde_json::json!({ "command": "git push origin --force" });
    let outcome = compiled.decide(pre_tool_use("Bash", &input));
    assert_eq!(outcome.matched, ["no-force-push"]);
    if std::env::var_os("ANIMUS_WRITE_FUZZ_SEED").is_some() {
        let dir = make_dir(&root, "corpus/load_sidecar");
        std::fs::write(dir.join("seed.sidecar"), &sidecar).unwrap();
    }
}
