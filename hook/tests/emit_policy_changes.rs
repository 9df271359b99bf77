//! Faults in time: a policy changed under the hook's map while it decides, a decision that
//! never ends, hooks racing an in-place rewrite, and a parent that blocked the deadline's
//! signal. Each gate still answers deny (or decides from the intact pair) and leaves a record.

mod common;

use std::path::Path;

use common::*;

/// A copy of the compiled pair (and stamp) of `good` in `dir`; returns the policy path.
fn copy_pair(good: &Path, dir: &Path) -> std::path::PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let json = dir.join("animus-policy.json");
    std::fs::copy(good, &json).unwrap();
    for f in [
        engine::sidecar::sidecar_path_for,
        engine::sidecar::stamp_path_for,
    ] {
        std::fs::copy(f(good), f(&json)).unwrap();
    }
    // Written an hour ago: a write now is a change of time whatever the clock's tick.
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for path in [json.clone(), engine::sidecar::sidecar_path_for(&json)] {
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(past)
            .unwrap();
    }
    json
}

/// A sidecar truncated under the hook's map raised SIGBUS: an empty answer, which the harness
/// reads as a hook error and lets the call run, and no record. A sidecar rewritten in place
/// under the map (a `cp` over it; the compiler renames) was read as it changed, after it was
/// verified. Now both make the gate deny, and the log has the call. The call is one the policy
/// defers (`git status`), so the previous code answered nothing.
#[test]
fn a_sidecar_changed_under_the_map_answers_deny_and_records() {
    let (dir, project, state, good) = trader_dir("sigbus").parts();
    let status = payload("PreToolUse.Bash.git-status.json");
    for (fault, says, stderr_says) in [
        (
            "truncate-sidecar",
            "crashed on a fatal signal",
            "crashed on SIGBUS",
        ),
        (
            "rewrite-sidecar",
            "was changed in place while this call was decided",
            "",
        ),
        // Not a policy change, the same answer: a stack overflow faults with no stack left,
        // and its handler runs on the alternate signal stack — `animus-hook-emit` starts
        // without the Rust runtime, so that stack is the gate's own.
        (
            "stack-overflow",
            "crashed on a fatal signal",
            "crashed on SIGSEGV",
        ),
    ] {
        for (i, bin) in [bin(), lean_bin()].into_iter().enumerate() {
            let policy = copy_pair(&good, &dir.join(format!("{fault}-{i}")));
            let session = format!("{fault}-{i}");
            let run = run_bin(
                bin,
                &gate_args(&session, &project, &policy),
                Some(&status),
                &[
                    ("ANIMUS_CONFIG_DIR", state.to_str().unwrap()),
                    ("ANIMUS_HOOK_FAULT", fault),
                ],
            );
            let name = format!("{fault} {bin}");
            assert_eq!(run.code, Some(0), "{name}: {}", run.stderr);
            assert!(run.stderr.contains(stderr_says), "{name}: {}", run.stderr);
            let v: serde_json::Value = serde_json::from_str(&run.stdout)
                .unwrap_or_else(|e| panic!("{name}: {e}: {:?}", run.stdout));
            assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
            let reason = v["hookSpecificOutput"]["permissionDecisionReason"]
                .as_str()
                .unwrap();
            assert!(reason.contains(says), "{name}: {reason}");
            let log = only_scope_log(&state, &session);
            assert_eq!(log.lines().count(), 1, "{name}: {log}");
            let record: serde_json::Value = serde_json::from_str(log.trim()).unwrap();
            assert_eq!(record["decision"], "deny", "{name}");
            assert_eq!(record["gate"], true);
            assert_eq!(record["tool_name"], "Bash");
            assert!(
                record["error"].as_str().unwrap().contains(says),
                "{name}: {record}"
            );
            assert_eq!(record["payload_bytes"], status.len());
        }
    }
}

/// A decision that never ends: the deadline answers deny, and the call still leaves its record
/// (before, the deadline answered and the log had nothing of the call).
#[test]
fn a_hung_decision_is_denied_by_the_deadline_and_recorded() {
    let (_dir, project, state, policy) = trader_dir("hung").parts();
    let status = payload("PreToolUse.Bash.git-status.json");
    for (i, bin) in [bin(), lean_bin()].into_iter().enumerate() {
        let session = format!("hung-{i}");
        let run = run_bin(
            bin,
            &gate_args(&session, &project, &policy),
            Some(&status),
            &[
                ("ANIMUS_CONFIG_DIR", state.to_str().unwrap()),
                ("ANIMUS_HOOK_FAULT", "hang-deciding"),
                ("ANIMUS_HOOK_DEADLINE_MS", "500"),
            ],
        );
        assert_eq!(run.code, Some(0), "{bin}: {}", run.stderr);
        let v: serde_json::Value = serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("{bin}: {e}: {:?}", run.stdout));
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny");
        assert!(
            v.to_string().contains("no decision within 500 ms"),
            "{bin}: {v}"
        );
        let log = only_scope_log(&state, &session);
        assert_eq!(log.lines().count(), 1, "{bin}: {log:?}");
        let record: serde_json::Value = serde_json::from_str(log.trim()).unwrap();
        assert_eq!(record["decision"], "deny", "{bin}");
        assert_eq!(record["tool_name"], "Bash");
        assert!(
            record["error"]
                .as_str()
                .unwrap()
                .contains("did not finish deciding"),
            "{bin}: {record}"
        );
        assert_eq!(record["payload_bytes"], status.len());
    }
}

/// Hooks running while another process rewrites the sidecar in place (truncating it, then
/// writing it back, as `cp` over it does): every run answers exactly one decision line, never an
/// empty answer (SIGBUS) and never a silent defer (a decision read from a half-written page).
/// The rewrites are 10 ms apart: a file's times have a clock tick's resolution, so two writes
/// within one tick of the hook's load could leave it no trace (see the note at
/// `CompiledPolicy::unchanged_since_load`).
#[test]
fn hooks_racing_an_in_place_rewrite_always_answer() {
    use std::io::Write;
    use std::sync::atomic::{AtomicBool, Ordering};
    let (dir, project, _, good) = trader_dir("rewrite-race").parts();
    let policy = copy_pair(&good, &dir.join("pair"));
    let sidecar = engine::sidecar::sidecar_path_for(&policy);
    let bytes = std::fs::read(&sidecar).unwrap();
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    let writer = {
        let (stop, sidecar, bytes) = (stop.clone(), sidecar.clone(), bytes.clone());
        std::thread::spawn(move || {
            let mut rounds = 0u32;
            while !stop.load(Ordering::SeqCst) {
                let mut f = std::fs::OpenOptions::new()
                    .write(true)
                    .open(&sidecar)
                    .unwrap();
                f.set_len(64).unwrap();
                f.write_all(&bytes).unwrap();
                rounds += 1;
                std::thread::sleep(std::time::Duration::from_millis(10));
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            rounds
        })
    };
    let state = dir.join("state");
    let mut denies = 0;
    let mut crashes = 0;
    let mut changed = 0;
    for i in 0..40 {
        let run = run_bin(
            if i % 2 == 0 { bin() } else { lean_bin() },
            &gate_args("race", &project, &policy),
            Some(&payload("PreToolUse.Bash.trade-live.json")),
            &[("ANIMUS_CONFIG_DIR", state.to_str().unwrap())],
        );
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        assert_eq!(
            run.stdout.lines().count(),
            1,
            "run {i}: {:?} {}",
            run.stdout,
            run.stderr
        );
        let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        // The call is denied by the policy itself, or fail closed: never anything else.
        assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny", "{v}");
        denies += 1;
        crashes += usize::from(run.stderr.contains("crashed on SIGBUS"));
        changed += usize::from(run.stdout.contains("changed in place"));
    }
    stop.store(true, Ordering::SeqCst);
    let rounds = writer.join().unwrap();
    assert_eq!(denies, 40);
    assert!(rounds > 0);
    println!(
        "40 runs against {rounds} in-place rewrites: {crashes} answered a SIGBUS with a deny, \
         {changed} a change under the map"
    );
}

/// A parent that hands the hook SIGALRM blocked (the mask survives exec) and never closes
/// stdin still gets a deny when the deadline passes: the hook unblocks the signal it relies on.
#[test]
fn the_deadline_fires_even_when_the_parent_blocked_sigalrm() {
    use std::os::unix::process::CommandExt;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let (dir, project, _, policy) = trader_dir("sigalrm").parts();
    for bin in [bin(), lean_bin()] {
        let mut cmd = Command::new(bin);
        cmd.args(gate_args("sigalrm", &project, &policy))
            .env("ANIMUS_CONFIG_DIR", dir.join("state"))
            .env("ANIMUS_HOOK_DEADLINE_MS", "500")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        // SAFETY: sigprocmask is async-signal-safe, as pre_exec requires.
        unsafe {
            cmd.pre_exec(|| {
                let mut set: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut set);
                libc::sigaddset(&mut set, libc::SIGALRM);
                libc::sigprocmask(libc::SIG_BLOCK, &set, std::ptr::null_mut());
                Ok(())
            });
        }
        let mut child = cmd.spawn().unwrap();
        let stdin = child.stdin.take().unwrap(); // held open, never written
        let started = Instant::now();
        let finished = loop {
            if child.try_wait().unwrap().is_some() {
                break true;
            }
            if started.elapsed() > Duration::from_secs(10) {
                let _ = child.kill();
                break false;
            }
            std::thread::sleep(Duration::from_millis(5));
        };
        let output = child.wait_with_output().unwrap();
        drop(stdin);
        assert!(
            finished,
            "{bin}: no answer within 10 s with SIGALRM blocked"
        );
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            stdout.contains("\"permissionDecision\":\"deny\"")
                && stdout.contains("no decision within 500 ms"),
            "{bin}: {stdout}"
        );
    }
}
