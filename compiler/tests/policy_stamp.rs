//! `animus-policy.stamp`: the compiler vouches for the pair it wrote so the hook need not hash
//! it, and every change to either file — even in the same clock tick as the compile — still
//! makes the loader hash, and so reject, anything that is not exactly the compiled pair.

mod common;

use common::pre_tool_use;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};
use test_support::make_dir;

use engine::sidecar::{
    FileIdentity, LoadError, Stamp, Verification, sidecar_path_for, stamp_path_for,
};
use engine::{CompiledPolicy, Decision};

const PROFILE: &str = "agents:\n  t:\n    tool_policy:\n      deny: [\"Bash(* --live*)\"]\n";

struct Compiled {
    /// Removed when the test ends.
    _temp: tempfile::TempDir,
    dir: PathBuf,
    json: PathBuf,
}

fn compiled(name: &str) -> Compiled {
    let temp = tempfile::Builder::new()
        .prefix(&format!("animus-stamp-{name}-"))
        .tempdir()
        .unwrap();
    // A directory the compiler creates, inside the temporary one.
    let dir = temp.path().join("out");
    let profile = compiler::load_profile_str(PROFILE, "p.yaml".into(), "t").unwrap();
    let compiled = compiler::compile_profile(&profile).unwrap();
    let json = compiler::write_policy_artifacts(&dir, &compiled).unwrap();
    Compiled {
        _temp: temp,
        dir,
        json,
    }
}

fn decides_live_deny(policy: &CompiledPolicy) -> bool {
    let input = serde_json::json!({"command": "trade --live"});
    let outcome = policy.decide(pre_tool_use("Bash", &input));
    outcome.decision == Decision::Deny
        && outcome.matched == ["tool_policy.deny:Bash(* --live*)"]
        && outcome.reason.contains("Bash(* --live*)")
}

fn loads_by(path: &Path) -> Verification {
    let policy = CompiledPolicy::load(path).unwrap();
    assert!(decides_live_deny(&policy));
    policy.verification()
}

/// Overwrite one byte in place (same inode, same length).
fn flip_in_place(path: &Path, at: usize) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[at] ^= 0x01;
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .and_then(|mut f| std::io::Write::write_all(&mut f, &bytes))
        .unwrap();
}

#[test]
fn the_compiler_stamps_exactly_the_pair_it_wrote() {
    let c = compiled("identity");
    let stamp = Stamp::read(&stamp_path_for(&c.json)).expect("a stamp is written");
    let identity = |p: &Path| FileIdentity::of(&std::fs::metadata(p).unwrap());
    assert_eq!(stamp.policy, identity(&c.json));
    assert_eq!(stamp.sidecar, identity(&sidecar_path_for(&c.json)));
    let sidecar = std::fs::read(sidecar_path_for(&c.json)).unwrap();
    assert_eq!(&stamp.sidecar_digest[..], &sidecar[16..32]);
    assert_eq!(
        stamp.policy_digest,
        engine::sidecar::digest(&std::fs::read(&c.json).unwrap())
    );
    assert_eq!(loads_by(&c.json), Verification::Stamp);
    // No temporary or probe file is left behind.
    let mut names: Vec<_> = std::fs::read_dir(&c.dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "animus-policy.json",
            "animus-policy.sidecar",
            "animus-policy.stamp"
        ]
    );
}

#[test]
fn a_touched_copied_or_unstamped_pair_with_the_same_bytes_loads_by_digest() {
    let c = compiled("touched");
    let file = std::fs::File::options().write(true).open(&c.json).unwrap();
    file.set_modified(SystemTime::now() + Duration::from_secs(5))
        .unwrap();
    drop(file);
    assert_eq!(loads_by(&c.json), Verification::Digest);

    let copy = make_dir(&c.dir, "copy");
    let copied = copy.join("animus-policy.json");
    for path in [
        c.json.clone(),
        sidecar_path_for(&c.json),
        stamp_path_for(&c.json),
    ] {
        std::fs::copy(&path, copy.join(path.file_name().unwrap())).unwrap();
    }
    assert_eq!(loads_by(&copied), Verification::Digest);

    std::fs::remove_file(stamp_path_for(&copied)).unwrap();
    assert_eq!(loads_by(&copied), Verification::Digest);
    std::fs::write(stamp_path_for(&copied), b"not a stamp").unwrap();
    assert_eq!(loads_by(&copied), Verification::Digest);
}

#[test]
fn an_edit_right_after_the_compile_is_never_hidden_by_the_stamp() {
    // The edits below land within milliseconds of the compile, inside the same coarse
    // file-system clock tick unless the compiler waited for it to pass before stamping.
    for round in 0..5 {
        let c = compiled(&format!("racy-json-{round}"));
        let original = std::fs::read_to_string(&c.json).unwrap();
        let edited = original.replace("\"deny\"", "\"ask\"\u{20}");
        assert_eq!(edited.len(), original.len());
        std::fs::write(&c.json, &edited).unwrap();
        assert!(matches!(
            CompiledPolicy::load(&c.json),
            Err(LoadError::Stale)
        ));

        let c = compiled(&format!("racy-sidecar-{round}"));
        let sidecar = sidecar_path_for(&c.json);
        let len = std::fs::metadata(&sidecar).unwrap().len() as usize;
        flip_in_place(&sidecar, len - 1);
        assert!(matches!(
            CompiledPolicy::load(&c.json),
            Err(LoadError::Corrupt)
        ));
    }
}

#[test]
fn any_edit_of_the_json_on_disk_makes_the_pair_stale_until_restored() {
    let c = compiled("edited");
    let original = std::fs::read_to_string(&c.json).unwrap();
    // Replaced by a new file (new inode) with other content.
    std::fs::remove_file(&c.json).unwrap();
    std::fs::write(&c.json, original.replace("--live", "--paper")).unwrap();
    assert!(matches!(
        CompiledPolicy::load(&c.json),
        Err(LoadError::Stale)
    ));
    // Restored byte for byte: the digest vouches for it again (the stamp no longer does).
    std::fs::write(&c.json, &original).unwrap();
    assert_eq!(loads_by(&c.json), Verification::Digest);
}

#[test]
fn a_stamp_never_vouches_for_another_compile() {
    // Two compiles of different policies into two directories; swapping their stamps must
    // not make either pair trusted without hashing (identities differ).
    let a = compiled("swap-a");
    let b = compiled("swap-b");
    std::fs::copy(stamp_path_for(&b.json), stamp_path_for(&a.json)).unwrap();
    assert_eq!(loads_by(&a.json), Verification::Digest);
}
