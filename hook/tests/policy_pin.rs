//! The pinned policy (issue 26 item 2): every gate `inject` writes carries the policy's pin
//! (`--policy-digest sha256:<hex>` of its stamp). Another compiled policy put in the session's
//! place, by any means, makes the next gate call a deny naming the mismatch, through the real
//! `animus-hook-emit` and `animus-hook emit` alike; a file merely touched is hashed and still
//! passes.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use test_support::make_dir;

use common::*;
use serde_json::Value;
use test_support::assert_has;
use test_support::process::succeed;

/// Inject a claude session over `trader.yaml` into `dir/run`; returns the gate's arguments as
/// the settings hold them (the binary first) and the policy path.
fn injected_gate(dir: &Path, project: &Path) -> (Vec<String>, PathBuf) {
    let session = dir.join("run");
    succeed(
        Command::new(bin())
            .args(["inject", "--provider", "claude", "--config"])
            .arg(repo().join("corpus/profiles/trader.yaml"))
            .args(["--agent", "trader", "--session-dir"])
            .arg(&session)
            .args(["--session-id", "pin", "--project-root"])
            .arg(project)
            .args(["--hook-binary", lean_bin(), "--json", "--", "-p", "x"])
            .env_remove("ANIMUS_DISABLE_HARNESS_HOOKS"),
    );
    let settings: Value =
        serde_json::from_slice(&std::fs::read(session.join("animus-hooks.settings.json")).unwrap())
            .unwrap();
    let handler = &settings["hooks"]["PreToolUse"][0]["hooks"][0];
    let args: Vec<String> = serde_json::from_value(handler["args"].clone()).unwrap();
    let digest_at = args.iter().position(|a| a == "--policy-digest").unwrap();
    assert!(
        args[digest_at + 1].starts_with("sha256:") && args[digest_at + 1].len() == 7 + 64,
        "{args:?}"
    );
    // Every gate event carries the same pin.
    let permission: Vec<String> = serde_json::from_value(
        settings["hooks"]["PermissionRequest"][0]["hooks"][0]["args"].clone(),
    )
    .unwrap();
    assert!(permission.contains(&args[digest_at + 1]), "{permission:?}");
    (args, session.join("animus-policy.json"))
}

/// The decision the gate printed (`defer` for nothing), and its reason.
fn gate(args: &[String], payload: &[u8], state: &Path) -> (String, String) {
    let run = run_emit_both(
        args,
        Some(payload),
        &[("ANIMUS_CONFIG_DIR", state.to_str().unwrap())],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    if run.stdout.trim().is_empty() {
        return ("defer".into(), String::new());
    }
    let v: Value = serde_json::from_str(&run.stdout).unwrap();
    let out = &v["hookSpecificOutput"];
    (
        out["permissionDecision"].as_str().unwrap().into(),
        out["permissionDecisionReason"]
            .as_str()
            .unwrap_or_default()
            .into(),
    )
}

const FILES: [fn(&Path) -> PathBuf; 3] = [
    |p| p.to_path_buf(),
    engine::sidecar::sidecar_path_for,
    engine::sidecar::stamp_path_for,
];

#[test]
fn another_compiled_policy_in_the_sessions_place_is_a_deny_naming_the_mismatch() {
    let dir = temp_dir("pin");
    let project = make_dir(&dir, "project");
    let state = dir.join("state");
    let (args, policy) = injected_gate(&dir, &project);
    // The gate as written: `git status` is left to claude, a live order denied by its rule.
    let status = payload("PreToolUse.Bash.git-status.json");
    assert_eq!(gate(&args[..], &status, &state).0, "defer");
    let live = payload("PreToolUse.Bash.trade-live.json");
    assert_eq!(gate(&args[..], &live, &state).0, "deny");

    // A permissive policy compiled elsewhere (it leaves the live order to claude) is a genuine
    // compiled pair with a genuine stamp.
    let other = compile_profile("cautious.yaml", "cautious", &dir.join("other"));
    let originals: Vec<Vec<u8>> = FILES
        .iter()
        .map(|f| std::fs::read(f(&policy)).unwrap())
        .collect();
    let restore = |policy: &Path| {
        for (f, bytes) in FILES.iter().zip(&originals) {
            let _ = std::fs::remove_file(f(policy));
            std::fs::write(f(policy), bytes).unwrap();
        }
    };
    type Swap = fn(&Path, &Path);
    let swaps: [(&str, Swap, &str); 4] = [
        // `cp` over all three files: the stamp no longer hashes to the pin.
        (
            "all three copied over",
            |from, to| {
                for f in FILES {
                    std::fs::copy(f(from), f(to)).unwrap();
                }
            },
            "has digest sha256:",
        ),
        // The JSON and sidecar replaced by rename, the pinned stamp left: the files are
        // hashed and are not the stamp's.
        (
            "policy and sidecar renamed in, stamp kept",
            |from, to| {
                for f in &FILES[..2] {
                    let staged = f(to).with_extension("staged");
                    std::fs::copy(f(from), &staged).unwrap();
                    std::fs::rename(&staged, f(to)).unwrap();
                }
            },
            "the pinned stamp records",
        ),
        // Only the sidecar: the pair no longer matches the pin either.
        (
            "sidecar copied over",
            |from, to| {
                let f = engine::sidecar::sidecar_path_for;
                std::fs::copy(f(from), f(to)).unwrap();
            },
            "animus-policy.sidecar` has SHA-256",
        ),
        // No stamp at all: nothing to prove the pair with.
        (
            "stamp deleted",
            |_, to| {
                std::fs::remove_file(engine::sidecar::stamp_path_for(to)).unwrap();
            },
            "is missing or unreadable",
        ),
    ];
    for (name, swap, says) in swaps {
        swap(&other, &policy);
        let (decision, reason) = gate(&args[..], &status, &state);
        assert_eq!(decision, "deny", "{name}: {reason}");
        assert!(
            reason.contains("(fail closed)")
                && reason.contains("the policy is not the one this session pinned")
                && reason.contains(says),
            "{name}: {reason}"
        );
        restore(&policy);
        // Restored byte for byte (new inodes and times): hashed, and passes again.
        assert_eq!(
            gate(&args[..], &status, &state).0,
            "defer",
            "{name}: restored"
        );
    }

    // Without the pin the same swap would have passed: the pin is what stops it.
    for f in FILES {
        std::fs::copy(f(&other), f(&policy)).unwrap();
    }
    let at = args.iter().position(|a| a == "--policy-digest").unwrap();
    let unpinned: Vec<String> = [&args[..at], &args[at + 2..]].concat();
    assert_eq!(gate(&unpinned[..], &live, &state).0, "defer");
    restore(&policy);
}

#[test]
fn a_malformed_pin_is_a_deny() {
    let dir = temp_dir("pin-form");
    let project = make_dir(&dir, "project");
    let state = dir.join("state");
    let (mut args, _) = injected_gate(&dir, &project);
    let at = args.iter().position(|a| a == "--policy-digest").unwrap() + 1;
    let status = payload("PreToolUse.Bash.git-status.json");
    for bad in ["sha256:1234", "xxh3:00", ""] {
        args[at] = bad.into();
        let (decision, reason) = gate(&args[..], &status, &state);
        assert_eq!(decision, "deny", "{bad}");
        assert!(reason.contains("--policy-digest"), "{bad}: {reason}");
    }
    // A well-formed pin of some other policy.
    args[at] = format!("sha256:{}", "ab".repeat(32));
    let (decision, reason) = gate(&args[..], &status, &state);
    assert_eq!(decision, "deny");
    assert_has(&reason, "the gate pins sha256:abab");
}
