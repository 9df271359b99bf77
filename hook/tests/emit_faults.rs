//! The fault matrix: every failure class gives a gate an explicit deny on stdout, exit 0,
//! without hanging; an observer under the same fault prints nothing and exits 0.

mod common;

use std::path::Path;

use common::*;

struct Fault {
    name: &'static str,
    /// Extra args replacing the defaults (`None` = the defaults).
    args: Option<Vec<String>>,
    policy: String,
    session: &'static str,
    stdin: Option<Vec<u8>>,
    env: Vec<(&'static str, String)>,
    /// A fragment the deny reason must contain.
    cause: &'static str,
}

fn faults(dir: &Path, good_policy: &Path) -> Vec<Fault> {
    let write = |name: &str, text: &[u8]| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let good = good_policy.to_str().unwrap().to_string();
    let bash = payload("PreToolUse.Bash.trade-live.json");
    // A call the policy would let through (defer): a failure must still turn it into a deny.
    let status = payload("PreToolUse.Bash.git-status.json");
    let state_file = write("state-is-a-file", b"x");
    let f = |name, policy: &str, stdin: Option<Vec<u8>>, cause| Fault {
        name,
        args: None,
        policy: policy.to_string(),
        session: "faults",
        stdin,
        env: Vec::new(),
        cause,
    };
    // A hand-written JSON policy without its sidecar is refused before it is read: the hook
    // never compiles a policy in-process (`check` still does).
    let mut v = vec![
        f("policy missing", dir.join("missing.json").to_str().unwrap(), Some(bash.clone()), "cannot read policy"),
        f("policy not json", &write("garbage.json", b"{not json"), Some(bash.clone()), "has no sidecar beside it"),
        f("policy unknown field", &write("unknown.json", br#"{"version":1,"default_decision":"defer","rules":[],"x":1}"#), Some(bash.clone()), "has no sidecar beside it"),
        f("policy version", &write("v2.json", br#"{"version":2,"default_decision":"defer","rules":[]}"#), Some(bash.clone()), "has no sidecar beside it"),
        f(
            "policy bad regex",
            &write("regex.json", br#"{"version":1,"default_decision":"defer","rules":[{"id":"r","tools":[],"input_matchers":[{"field":"command","regex":"a("}],"decision":"deny","reason":"r"}]}"#),
            Some(bash.clone()),
            "has no sidecar beside it",
        ),
        f("stdin not json", &good, Some(b"trade --live".to_vec()), "the payload is not JSON"),
        f("stdin empty", &good, Some(Vec::new()), "the payload is not JSON"),
        f("stdin not an object", &good, Some(b"[1,2]".to_vec()), "not a JSON object"),
        f("stdin over cap", &good, Some(vec![b' '; 10 * 1024 * 1024 + 1]), "exceeds the 10 MiB cap"),
        f("missing tool_name", &good, Some(br#"{"hook_event_name":"PreToolUse","tool_input":{"command":"ls"}}"#.to_vec()), "no `tool_name`"),
        f("tool_name not a string", &good, Some(br#"{"tool_name":7,"tool_input":{}}"#.to_vec()), "not a string"),
        f("event mismatch", &good, Some(br#"{"hook_event_name":"PermissionRequest","tool_name":"Bash","tool_input":{}}"#.to_vec()), "is for event `PermissionRequest`"),
        Fault { session: "../../etc", ..f("session traversal", &good, Some(status.clone()), "session id") },
        Fault { session: "a/b", ..f("session separator", &good, Some(status.clone()), "session id") },
        Fault { session: "", ..f("session empty", &good, Some(status.clone()), "session id is empty") },
        Fault {
            env: vec![("ANIMUS_CONFIG_DIR", state_file)],
            ..f("state dir unwritable", &good, Some(status.clone()), "cannot record this call")
        },
        Fault {
            env: vec![("ANIMUS_CONFIG_DIR", "relative/state".into())],
            ..f("state dir relative", &good, Some(status.clone()), "not an absolute path")
        },
        f(
            "hook_event_name not a string",
            &good,
            Some(br#"{"hook_event_name":7,"tool_name":"Bash","tool_input":{"command":"ls"}}"#.to_vec()),
            "`hook_event_name` is not a string",
        ),
        Fault {
            env: vec![("ANIMUS_HOOK_DEADLINE_MS", "700".into())],
            ..f("stdin never closed", &good, None, "no decision within 700 ms")
        },
        Fault { env: vec![("ANIMUS_HOOK_FAULT", "panic".into())], ..f("internal panic", &good, Some(bash.clone()), "internal error") },
    ];
    // Sidecar faults: a copy of the good pair, then damaged.
    let pair = |name: &str, damage: &dyn Fn(&Path, &Path)| -> String {
        let d = dir.join(name);
        std::fs::create_dir_all(&d).unwrap();
        let (json, sidecar) = (
            d.join("animus-policy.json"),
            engine::sidecar::sidecar_path_for(&d.join("animus-policy.json")),
        );
        std::fs::copy(good_policy, &json).unwrap();
        std::fs::copy(engine::sidecar::sidecar_path_for(good_policy), &sidecar).unwrap();
        damage(&json, &sidecar);
        json.to_str().unwrap().to_string()
    };
    let flip = pair("sidecar-flipped", &|_, sidecar| {
        let mut bytes = std::fs::read(sidecar).unwrap();
        let at = bytes.len() / 2;
        bytes[at] ^= 0x40;
        std::fs::write(sidecar, bytes).unwrap();
    });
    let truncated = pair("sidecar-truncated", &|_, sidecar| {
        let bytes = std::fs::read(sidecar).unwrap();
        std::fs::write(sidecar, &bytes[..bytes.len() - 9]).unwrap();
    });
    let stale = pair("sidecar-stale", &|json, _| {
        let text = std::fs::read_to_string(json)
            .unwrap()
            .replace("\"deny\"", "\"allow\"");
        std::fs::write(json, text).unwrap();
    });
    // The JSON damaged after compiling (cut short) is said as damaged, not as stale.
    let damaged = pair("policy-damaged", &|json, _| {
        let bytes = std::fs::read(json).unwrap();
        std::fs::write(json, &bytes[..bytes.len() / 2]).unwrap();
    });
    let not_sidecar = pair("sidecar-garbage", &|_, sidecar| {
        std::fs::write(sidecar, b"hello").unwrap()
    });
    // No sidecar at all: the hook does not compile the JSON in-process, it denies.
    let missing = pair("sidecar-missing", &|json, sidecar| {
        std::fs::remove_file(sidecar).unwrap();
        let _ = std::fs::remove_file(engine::sidecar::stamp_path_for(json));
    });
    v.push(f(
        "sidecar missing",
        &missing,
        Some(status.clone()),
        "has no sidecar beside it",
    ));
    v.push(f(
        "sidecar corrupt",
        &flip,
        Some(status.clone()),
        "sidecar is corrupt",
    ));
    v.push(f(
        "sidecar truncated",
        &truncated,
        Some(status.clone()),
        "sidecar is truncated",
    ));
    v.push(f(
        "sidecar stale",
        &stale,
        Some(status.clone()),
        "sidecar is stale",
    ));
    v.push(f(
        "policy damaged",
        &damaged,
        Some(status.clone()),
        "animus-policy.json is damaged: it is not valid JSON (EOF while parsing",
    ));
    v.push(f(
        "sidecar not a sidecar",
        &not_sidecar,
        Some(status.clone()),
        "cannot be used",
    ));
    // The policy's three files are checked before a byte is read: a FIFO answers at once (it
    // used to block for the whole deadline), and a file its group or others may write, or one
    // owned by another user, is refused (they could rewrite what the hook allows).
    let fifo = pair("policy-fifo", &|json, _| {
        std::fs::remove_file(json).unwrap();
        let c = std::ffi::CString::new(json.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    });
    v.push(f(
        "policy is a FIFO",
        &fifo,
        Some(status.clone()),
        "it is a FIFO, not a regular file",
    ));
    v.push(f(
        "policy is a device",
        "/dev/zero",
        Some(status.clone()),
        "it is a device",
    ));
    let chmod = |path: &Path, mode: u32| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    let loose_policy = pair("policy-0666", &|json, _| chmod(json, 0o666));
    v.push(f(
        "policy writable by others",
        &loose_policy,
        Some(status.clone()),
        "is writable by others (mode 666)",
    ));
    let loose_sidecar = pair("sidecar-0664", &|_, sidecar| chmod(sidecar, 0o664));
    v.push(f(
        "sidecar writable by its group",
        &loose_sidecar,
        Some(status.clone()),
        "is writable by its group (mode 664)",
    ));
    let loose_stamp = pair("stamp-0646", &|json, _| {
        let stamp = engine::sidecar::stamp_path_for(json);
        std::fs::copy(engine::sidecar::stamp_path_for(good_policy), &stamp).unwrap();
        chmod(&stamp, 0o646);
    });
    v.push(f(
        "stamp writable by others",
        &loose_stamp,
        Some(status.clone()),
        "animus-policy.stamp` is writable by others",
    ));
    // Another user's sidecar (only root can hand a file to another user).
    let foreign = pair("sidecar-foreign", &|_, sidecar| {
        let _ = std::os::unix::fs::chown(sidecar, Some(4242), None);
    });
    {
        use std::os::unix::fs::MetadataExt;
        let sidecar = engine::sidecar::sidecar_path_for(Path::new(&foreign));
        if std::fs::metadata(&sidecar).unwrap().uid() == 4242 {
            v.push(f(
                "sidecar owned by another user",
                &foreign,
                Some(status.clone()),
                "is owned by uid 4242",
            ));
        } else {
            println!("SKIPPED (not root): the foreign-owner sidecar fault");
        }
    }
    let mut unknown_flag = f(
        "unknown flag",
        &good,
        Some(bash.clone()),
        "invalid arguments",
    );
    unknown_flag.args = Some(vec!["--frobnicate".into()]);
    v.push(unknown_flag);
    v
}

fn args_for(fault: &Fault, event: &str, with_policy: bool, project: &Path) -> Vec<String> {
    let mut args: Vec<String> = vec![
        "emit".into(),
        "--event".into(),
        event.into(),
        "--session".into(),
        fault.session.into(),
    ];
    args.extend(["--project-root".into(), project.to_str().unwrap().into()]);
    if with_policy {
        args.extend(["--policy".into(), fault.policy.clone()]);
    }
    if let Some(extra) = &fault.args {
        args.extend(extra.iter().cloned());
    }
    args
}

#[test]
fn every_fault_denies_a_gate_and_never_blocks_an_observer() {
    let dir = temp_dir("faults");
    let project = dir.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let state = dir.join("state");
    let policy = compile_profile("trader.yaml", "trader", &dir.join("run"));
    for fault in faults(&dir, &policy) {
        let mut env: Vec<(&str, &str)> = vec![("ANIMUS_CONFIG_DIR", state.to_str().unwrap())];
        env.extend(fault.env.iter().map(|(k, v)| (*k, v.as_str())));
        for event in ["PreToolUse", "PermissionRequest"] {
            let args = args_for(&fault, event, true, &project);
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let stdin = fault.stdin.as_ref().map(|s| {
                // Keep the event consistent except where the mismatch is the fault.
                if fault.name == "event mismatch" && event == "PermissionRequest" {
                    String::from_utf8_lossy(s)
                        .replace("\"PermissionRequest\"", "\"PreToolUse\"")
                        .into_bytes()
                } else if fault.name == "event mismatch" || event == "PreToolUse" {
                    s.clone()
                } else {
                    String::from_utf8_lossy(s)
                        .replace("\"PreToolUse\"", "\"PermissionRequest\"")
                        .into_bytes()
                }
            });
            let run = run_emit_both(&args, stdin.as_deref(), &env);
            let name = format!("{} ({event})", fault.name);
            assert_eq!(run.code, Some(0), "{name}: {}", run.stderr);
            let v: serde_json::Value = serde_json::from_str(&run.stdout)
                .unwrap_or_else(|e| panic!("{name}: {e}: {:?}", run.stdout));
            assert_eq!(run.stdout.lines().count(), 1, "{name}");
            let reason = if event == "PreToolUse" {
                assert_eq!(
                    v["hookSpecificOutput"]["hookEventName"], "PreToolUse",
                    "{name}"
                );
                assert_eq!(
                    v["hookSpecificOutput"]["permissionDecision"], "deny",
                    "{name}"
                );
                v["hookSpecificOutput"]["permissionDecisionReason"]
                    .as_str()
                    .unwrap()
                    .to_string()
            } else {
                assert_eq!(
                    v["hookSpecificOutput"]["hookEventName"], "PermissionRequest",
                    "{name}"
                );
                assert_eq!(
                    v["hookSpecificOutput"]["decision"]["behavior"], "deny",
                    "{name}"
                );
                v["hookSpecificOutput"]["decision"]["message"]
                    .as_str()
                    .unwrap()
                    .to_string()
            };
            let cause = if fault.name == "event mismatch" && event == "PermissionRequest" {
                "is for event `PreToolUse`"
            } else {
                fault.cause
            };
            assert!(reason.contains(cause), "{name}: {reason}");
            assert!(reason.contains("fail closed"), "{name}: {reason}");
            // The reason names the cause without echoing the command line or payload.
            assert!(!reason.contains("trade --live"), "{name}: {reason}");
        }
        // The same fault on an observer event: nothing on stdout, exit 0.
        let args = args_for(&fault, "PostToolUse", false, &project);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = run_emit_both(&args, fault.stdin.as_deref(), &env);
        assert_eq!(
            (run.code, run.stdout.as_str()),
            (Some(0), ""),
            "{} (observer)",
            fault.name
        );
    }
}

#[test]
fn hostile_session_ids_touch_nothing_outside_the_state_directory() {
    let dir = temp_dir("sessions");
    let project = dir.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let state = dir.join("deep/state");
    let policy = compile_profile("trader.yaml", "trader", &dir.join("run"));
    let long = "a".repeat(10 * 1024);
    let before: Vec<_> = walk(&dir);
    for session in ["../../etc", "a/b", "", long.as_str(), "..", "/etc/passwd"] {
        for with_policy in [true, false] {
            let mut args = vec![
                "emit",
                "--event",
                "PreToolUse",
                "--session",
                session,
                "--project-root",
                project.to_str().unwrap(),
            ];
            if with_policy {
                args.extend(["--policy", policy.to_str().unwrap()]);
            }
            let run = run_emit_both(
                &args,
                Some(&payload("PreToolUse.Bash.git-status.json")),
                &[("ANIMUS_CONFIG_DIR", state.to_str().unwrap())],
            );
            assert_eq!(run.code, Some(0));
            if with_policy {
                assert!(
                    run.stdout.contains("\"permissionDecision\":\"deny\""),
                    "{session:?}: {}",
                    run.stdout
                );
                assert!(run.stdout.contains("session id"), "{}", run.stdout);
            } else {
                assert_eq!(run.stdout, "", "{session:?}");
                assert!(run.stderr.contains("session id"), "{}", run.stderr);
            }
        }
    }
    assert_eq!(walk(&dir), before, "a refused session id created files");
    assert!(!dir.join("etc").exists() && !state.exists());
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p.clone());
            }
            out.push(p);
        }
    }
    out.sort();
    out
}

/// `--event` misspelled (`Pretooluse`) with `--policy` does not silently turn the gate into an
/// observer: the hook answers as the gate event it names, with a deny saying what to fix.
#[test]
fn a_misspelled_gate_event_denies_instead_of_observing() {
    let dir = temp_dir("misspelled-event");
    let project = dir.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let state = dir.join("state");
    let policy = compile_profile("trader.yaml", "trader", &dir.join("run"));
    let status = payload("PreToolUse.Bash.git-status.json");
    for (given, gate) in [
        ("Pretooluse", "PreToolUse"),
        ("permission_request", "PermissionRequest"),
    ] {
        let args = [
            "emit",
            "--event",
            given,
            "--session",
            "misspelled",
            "--project-root",
            project.to_str().unwrap(),
            "--policy",
            policy.to_str().unwrap(),
        ];
        let run = run_emit_both(
            &args,
            Some(&status),
            &[("ANIMUS_CONFIG_DIR", state.to_str().unwrap())],
        );
        assert_eq!(run.code, Some(0), "{given}: {}", run.stderr);
        let v: serde_json::Value = serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("{given}: {e}: {:?}", run.stdout));
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], gate, "{given}");
        let text = v.to_string();
        assert!(text.contains("deny"), "{given}: {text}");
        assert!(text.contains("is not a gate event"), "{given}: {text}");
    }
    // A name no gate resembles stays an observer: it records and prints nothing, but
    // `--policy` there is a settings mistake, said on stderr with exit 1.
    let args = [
        "emit",
        "--event",
        "PostToolUse",
        "--session",
        "misspelled",
        "--project-root",
        project.to_str().unwrap(),
        "--policy",
        policy.to_str().unwrap(),
    ];
    let run = run_emit_both(
        &args,
        Some(&status),
        &[("ANIMUS_CONFIG_DIR", state.to_str().unwrap())],
    );
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (Some(1), ""),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("`--policy` is only read by the gate events"),
        "{}",
        run.stderr
    );
    // Recorded all the same: two binaries, two gate runs each above, and these two.
    let scope = std::fs::read_dir(&state)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let log = std::fs::read_to_string(scope.join("sessions/misspelled.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 6, "{log}");
    assert!(
        log.lines()
            .last()
            .unwrap()
            .contains("\"event\":\"PostToolUse\"")
    );
}

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
    let dir = temp_dir("sigbus");
    let project = dir.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let good = compile_profile("trader.yaml", "trader", &dir.join("run"));
    let state = dir.join("state");
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
            let scope = std::fs::read_dir(&state)
                .unwrap()
                .next()
                .unwrap()
                .unwrap()
                .path();
            let log =
                std::fs::read_to_string(scope.join(format!("sessions/{session}.jsonl"))).unwrap();
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
    let dir = temp_dir("hung");
    let project = dir.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let policy = compile_profile("trader.yaml", "trader", &dir.join("run"));
    let state = dir.join("state");
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
        let scope = std::fs::read_dir(&state)
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let log = std::fs::read_to_string(scope.join(format!("sessions/{session}.jsonl")))
            .unwrap_or_default();
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
    let dir = temp_dir("rewrite-race");
    let project = dir.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let good = compile_profile("trader.yaml", "trader", &dir.join("run"));
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
    let dir = temp_dir("sigalrm");
    let project = dir.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let policy = compile_profile("trader.yaml", "trader", &dir.join("run"));
    for bin in [bin(), lean_bin()] {
        let mut cmd = Command::new(bin);
        cmd.args([
            "emit",
            "--event",
            "PreToolUse",
            "--session",
            "sigalrm",
            "--project-root",
            project.to_str().unwrap(),
            "--policy",
            policy.to_str().unwrap(),
        ])
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
