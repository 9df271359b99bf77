//! The session log cannot be redirected: the agent the hook watches runs as the same user and
//! can plant links, FIFOs and loose modes in the state directory. Each plant below made the
//! previous hook write its records through it (into any file the user can write, or into
//! `/dev/null`) or block; now a gate denies naming the path, an observer prints nothing, and
//! the planted target is left as it was.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use test_support::make_dir;
use test_support::write_file;

use common::*;
use test_support::assert_has;

const SESSION: &str = "planted";

struct Setup {
    _dir: TempDir,
    project: PathBuf,
    state: PathBuf,
    policy: PathBuf,
    /// `<state>/<scope>`.
    scope: PathBuf,
    /// A file the user owns that a redirected log would write into (`~/.bashrc`).
    victim: PathBuf,
}

fn setup(name: &str) -> Setup {
    let dir = temp_dir(name);
    let project = make_dir(&dir, "project");
    let state = dir.join("state");
    let policy = compile_profile("trader.yaml", "trader", &dir.join("run"));
    let scope = state.join(animus_hook::record::repo_scope(&project).unwrap());
    let victim = write_file(&dir, "bashrc", "# my shell rc\n");
    Setup {
        project,
        state,
        policy,
        scope,
        victim,
        _dir: dir,
    }
}

/// Make `<scope>/sessions/` as a first hook would, 0700.
fn make_sessions(s: &Setup) -> PathBuf {
    let sessions = make_dir(&s.scope, "sessions");
    for d in [&s.state, &s.scope, &sessions] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    sessions
}

/// Run the gate (both binaries) and the observer on a deferred call; returns the gate's deny
/// reason, asserting the observer printed nothing.
fn gate_reason(s: &Setup) -> String {
    let status = payload("PreToolUse.Bash.git-status.json");
    let env = [("ANIMUS_CONFIG_DIR", s.state.to_str().unwrap())];
    let mut args = gate_args(SESSION, &s.project, &s.policy);
    let run = run_emit_both(&args, Some(&status), &env);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {:?} {}", run.stdout, run.stderr));
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny", "{v}");
    let reason = v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap()
        .to_string();
    args.truncate(7);
    args[2] = "PostToolUse".into();
    let observer = run_emit_both(&args, Some(&status), &env);
    assert_eq!(
        (observer.code, observer.stdout.as_str()),
        (Some(0), ""),
        "the observer stays silent"
    );
    assert_has(&observer.stderr, "not recorded");
    reason
}

fn assert_victim_untouched(s: &Setup) {
    assert_eq!(
        std::fs::read_to_string(&s.victim).unwrap(),
        "# my shell rc\n",
        "a record was written through the plant"
    );
}

#[test]
fn the_unplanted_layout_records_and_defers() {
    let s = setup("state-clean");
    let status = payload("PreToolUse.Bash.git-status.json");
    let args = gate_args(SESSION, &s.project, &s.policy);
    let run = run_emit_both(
        &args,
        Some(&status),
        &[("ANIMUS_CONFIG_DIR", s.state.to_str().unwrap())],
    );
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (Some(0), ""),
        "{}",
        run.stderr
    );
    let log = s.scope.join("sessions").join(format!("{SESSION}.jsonl"));
    assert_eq!(std::fs::read_to_string(&log).unwrap().lines().count(), 2);
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&log), 0o600);
    for d in [&s.state, &s.scope, &s.scope.join("sessions")] {
        assert_eq!(mode(d), 0o700, "{}", d.display());
    }
}

#[test]
fn a_symbolic_link_at_the_log_is_refused() {
    let s = setup("state-log-link");
    let sessions = make_sessions(&s);
    let log = sessions.join(format!("{SESSION}.jsonl"));
    std::os::unix::fs::symlink(&s.victim, &log).unwrap();
    let reason = gate_reason(&s);
    assert_has(&reason, "is a symbolic link");
    assert!(reason.contains(log.to_str().unwrap()), "{reason}");
    assert_victim_untouched(&s);
}

#[test]
fn a_link_to_dev_null_is_refused() {
    let s = setup("state-dev-null");
    let sessions = make_sessions(&s);
    std::os::unix::fs::symlink("/dev/null", sessions.join(format!("{SESSION}.jsonl"))).unwrap();
    let reason = gate_reason(&s);
    assert_has(&reason, "is a symbolic link");
}

#[test]
fn a_symbolic_link_at_a_directory_is_refused() {
    // At `sessions/`: the records would land in the attacker's directory of choice.
    let s = setup("state-sessions-link");
    std::fs::create_dir_all(&s.scope).unwrap();
    let elsewhere = s.state.parent().unwrap().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, s.scope.join("sessions")).unwrap();
    let reason = gate_reason(&s);
    assert_has(&reason, "is not a directory");
    assert_has(&reason, "sessions");
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    // At the repo scope.
    let s = setup("state-scope-link");
    std::fs::create_dir_all(&s.state).unwrap();
    std::fs::set_permissions(&s.state, std::fs::Permissions::from_mode(0o700)).unwrap();
    let elsewhere = s.state.parent().unwrap().join("elsewhere");
    std::fs::create_dir_all(elsewhere.join("sessions")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &s.scope).unwrap();
    let reason = gate_reason(&s);
    assert_has(&reason, "is not a directory");
    assert_eq!(
        std::fs::read_dir(elsewhere.join("sessions"))
            .unwrap()
            .count(),
        0
    );
}

#[test]
fn a_hard_link_at_the_log_is_refused() {
    let s = setup("state-hard-link");
    let sessions = make_sessions(&s);
    std::fs::hard_link(&s.victim, sessions.join(format!("{SESSION}.jsonl"))).unwrap();
    let reason = gate_reason(&s);
    assert_has(&reason, "hard links");
    assert_victim_untouched(&s);
}

#[test]
fn a_fifo_at_the_log_answers_at_once() {
    let s = setup("state-fifo");
    let sessions = make_sessions(&s);
    let fifo = sessions.join(format!("{SESSION}.jsonl"));
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let started = std::time::Instant::now();
    let reason = gate_reason(&s);
    assert_has(&reason, "not a regular file");
    // Four runs (two gates, two observers); a blocked open would wait for the 10 s deadline.
    assert!(started.elapsed() < std::time::Duration::from_secs(8));
}

#[test]
fn loose_modes_are_refused() {
    for (which, mode, says) in [
        ("root", 0o777, "writable by others"),
        ("root", 0o770, "writable by its group"),
        ("sessions", 0o757, "writable by others"),
        ("log", 0o622, "writable by"),
    ] {
        let s = setup(&format!("state-mode-{which}-{mode:o}"));
        let sessions = make_sessions(&s);
        let log = sessions.join(format!("{SESSION}.jsonl"));
        std::fs::write(&log, "").unwrap();
        let path = match which {
            "root" => s.state.clone(),
            "sessions" => sessions.clone(),
            _ => log.clone(),
        };
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        let reason = gate_reason(&s);
        assert!(reason.contains(says), "{which} {mode:o}: {reason}");
        assert!(reason.contains(path.to_str().unwrap()), "{reason}");
        assert_eq!(
            std::fs::read_to_string(&log).unwrap(),
            "",
            "nothing recorded"
        );
    }
}
