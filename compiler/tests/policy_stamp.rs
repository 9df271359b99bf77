//! The sidecar's binding to `animus-policy.json` on disk: the compiler records the JSON file's
//! identity so the hook need not hash it, and every change to the file still makes the pair
//! stale unless the content is exactly the compiled one.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use engine::sidecar::{LoadError, sidecar_path_for};
use engine::{Call, CompiledPolicy, Decision};

const PROFILE: &str = "agents:\n  t:\n    tool_policy:\n      deny: [\"Bash(* --live*)\"]\n";

fn compiled_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("animus-stamp-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let profile = compiler::load_profile_str(PROFILE, "p.yaml".into(), "t").unwrap();
    let compiled = compiler::compile_profile(&profile).unwrap();
    compiler::write_policy_artifacts(&dir, &compiled).unwrap();
    dir
}

fn decides_live_deny(policy: &CompiledPolicy) -> bool {
    let input = serde_json::json!({"command": "trade --live"});
    policy
        .decide(Call {
            event: "PreToolUse",
            tool_name: "Bash",
            tool_input: &input,
        })
        .decision
        == Decision::Deny
}

#[test]
fn the_written_pair_carries_the_json_identity() {
    let dir = compiled_dir("identity");
    let json_path = dir.join("animus-policy.json");
    let sidecar = std::fs::read(sidecar_path_for(&json_path)).unwrap();
    let stamp = engine::sidecar::PolicyStamp::of(&std::fs::metadata(&json_path).unwrap());
    assert!(!stamp.is_none());
    assert_eq!(
        &sidecar[80..112],
        &stamp.to_bytes(),
        "the stamp is the renamed JSON's identity"
    );
    assert!(decides_live_deny(
        &CompiledPolicy::load(&json_path).unwrap()
    ));
    // No temporary file is left behind.
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
}

#[test]
fn a_touched_or_copied_json_with_the_same_bytes_still_loads_by_digest() {
    let dir = compiled_dir("touched");
    let json_path = dir.join("animus-policy.json");
    let file = std::fs::File::options()
        .write(true)
        .open(&json_path)
        .unwrap();
    file.set_modified(SystemTime::now() + Duration::from_secs(5))
        .unwrap();
    drop(file);
    assert!(decides_live_deny(
        &CompiledPolicy::load(&json_path).unwrap()
    ));

    let copy = dir.join("copy");
    std::fs::create_dir_all(&copy).unwrap();
    std::fs::copy(&json_path, copy.join("animus-policy.json")).unwrap();
    std::fs::copy(
        sidecar_path_for(&json_path),
        sidecar_path_for(&copy.join("animus-policy.json")),
    )
    .unwrap();
    assert!(decides_live_deny(
        &CompiledPolicy::load(&copy.join("animus-policy.json")).unwrap()
    ));
}

#[test]
fn any_edit_of_the_json_on_disk_makes_the_pair_stale() {
    let dir = compiled_dir("edited");
    let json_path = dir.join("animus-policy.json");
    let original = std::fs::read_to_string(&json_path).unwrap();
    // Same length, rewritten in place (same inode, new mtime).
    let edited = original.replace("\"deny\"", "\"ask\"\u{20}");
    assert_eq!(edited.len(), original.len());
    std::fs::write(&json_path, &edited).unwrap();
    assert!(matches!(
        CompiledPolicy::load(&json_path),
        Err(LoadError::Stale)
    ));
    // Replaced by a new file (new inode) with other content.
    std::fs::remove_file(&json_path).unwrap();
    std::fs::write(&json_path, original.replace("--live", "--paper")).unwrap();
    assert!(matches!(
        CompiledPolicy::load(&json_path),
        Err(LoadError::Stale)
    ));
    // Restored byte for byte: the digest vouches for it again.
    std::fs::write(&json_path, &original).unwrap();
    assert!(decides_live_deny(
        &CompiledPolicy::load(&json_path).unwrap()
    ));
}
