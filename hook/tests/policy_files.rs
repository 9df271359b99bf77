//! The files a session's gate trusts: the compiled policy (written `0644` whatever the umask,
//! since the hook refuses one its group could rewrite) and the session directory `inject`
//! puts it in (created `0700`; an existing one others may write, or another user's, refused).

mod common;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Command;
use test_support::make_dir;

use common::*;
use test_support::assert_has;

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().mode() & 0o7777
}

/// A user whose umask is `002` (common where every user has a group of their own) compiles a
/// policy the hook then refuses if it is written with the umask's modes.
#[test]
fn a_policy_compiled_under_a_group_umask_is_usable() {
    let dir = temp_dir("umask-002");
    let out = dir.join("run");
    let project = make_dir(&dir, "project");
    let status = Command::new("sh")
        .arg("-c")
        .arg("umask 002 && exec \"$0\" compile --config \"$1\" --agent trader --out-dir \"$2\"")
        .arg(bin())
        .arg(repo().join("corpus/profiles/trader.yaml"))
        .arg(&out)
        .status()
        .unwrap();
    assert!(status.success());
    let policy = out.join("animus-policy.json");
    for file in [
        policy.clone(),
        engine::sidecar::sidecar_path_for(&policy),
        engine::sidecar::stamp_path_for(&policy),
    ] {
        assert_eq!(mode(&file), 0o644, "{}", file.display());
    }
    let state = dir.join("state");
    let run = run_emit_both(
        &gate_args("umask", &project, &policy),
        Some(&payload("PreToolUse.Bash.trade-live.json")),
        &[("ANIMUS_CONFIG_DIR", state.to_str().unwrap())],
    );
    assert_has(&run.stdout, "\"permissionDecision\":\"deny\"");
    assert!(!run.stdout.contains("fail closed"), "{}", run.stdout);
}

fn inject(session_dir: &Path, project: &Path) -> std::process::Output {
    Command::new(bin())
        .args(["inject", "--provider", "claude", "--config"])
        .arg(repo().join("corpus/profiles/trader.yaml"))
        .args(["--agent", "trader", "--session-dir"])
        .arg(session_dir)
        .args(["--session-id", "s1", "--project-root"])
        .arg(project)
        .args([
            "--hook-binary",
            lean_bin(),
            "--prompt-last",
            "--",
            "-p",
            "hi",
        ])
        .output()
        .unwrap()
}

#[test]
fn inject_makes_the_session_dir_private_and_refuses_a_shared_one() {
    let dir = temp_dir("inject-session-dir");
    let project = make_dir(&dir, "project");
    // A new one (and its missing parents) is created 0700.
    let fresh = dir.join("a/b/session");
    let out = inject(&fresh, &project);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(mode(&fresh), 0o700);
    // An existing one others or its group may write is refused, and nothing is written in it.
    for loose in [0o777, 0o775, 0o1777] {
        let shared = dir.join(format!("shared-{loose:o}"));
        std::fs::create_dir_all(&shared).unwrap();
        std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(loose)).unwrap();
        let out = inject(&shared, &project);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{loose:o}: {stderr}");
        assert!(
            stderr.contains("refusing the session dir"),
            "{loose:o}: {stderr}"
        );
        assert!(stderr.contains(shared.to_str().unwrap()), "{stderr}");
        assert_eq!(std::fs::read_dir(&shared).unwrap().count(), 0, "{loose:o}");
    }
    // Another user's (only root can hand a directory to another user).
    let foreign = make_dir(&dir, "foreign");
    if std::os::unix::fs::chown(&foreign, Some(4242), None).is_ok() {
        let out = inject(&foreign, &project);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{stderr}");
        assert_has(&stderr, "is owned by uid 4242");
    } else {
        println!("SKIPPED (not root): the foreign-owner session dir");
    }
}
