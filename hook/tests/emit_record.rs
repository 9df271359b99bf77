//! Recording: every event, gate or observer, becomes one intact JSON line in the session log,
//! including under 1,000 concurrent hook processes.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use test_support::make_dir;

use common::*;
use test_support::assert_has;

fn session_log(state: &Path, session: &str) -> PathBuf {
    let scopes: Vec<_> = std::fs::read_dir(state)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(scopes.len(), 1, "{scopes:?}");
    scopes[0].join("sessions").join(format!("{session}.jsonl"))
}

fn lines(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn records_carry_what_the_issue_asks_for() {
    let dir = temp_dir("record");
    let (project, state) = (make_dir(&dir, "my project"), dir.join("state"));
    let policy = compile_profile("trader.yaml", "trader", &dir.join("run"));
    let env = [("ANIMUS_CONFIG_DIR", state.to_str().unwrap())];
    let p = project.to_str().unwrap();
    let gate = [
        "emit",
        "--event",
        "PreToolUse",
        "--session",
        "s-1",
        "--project-root",
        p,
        "--policy",
        policy.to_str().unwrap(),
    ];
    run_hook(
        &gate,
        Some(&payload("PreToolUse.Bash.trade-live.json")),
        &env,
    );
    let mut big: serde_json::Value =
        serde_json::from_slice(&payload("PreToolUse.Write.json")).unwrap();
    big["tool_input"]["content"] = "z".repeat(100_000).into();
    run_hook(
        &[
            "emit",
            "--event",
            "PostToolUse",
            "--session",
            "s-1",
            "--project-root",
            p,
        ],
        Some(&serde_json::to_vec(&big).unwrap()),
        &env,
    );
    run_hook(
        &[
            "emit",
            "--event",
            "Stop",
            "--session",
            "s-1",
            "--project-root",
            p,
        ],
        Some(b"not json"),
        &env,
    );

    // The layout: <state>/<sanitized-name>-<12 hex of sha256(canonical path)>/sessions/<id>.jsonl
    let log = session_log(&state, "s-1");
    let scope = log
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let (name, digest) = scope.rsplit_once('-').unwrap();
    assert_eq!(name, "my-project");
    assert_eq!(digest.len(), 12);
    assert!(digest.chars().all(|c| c.is_ascii_hexdigit()));
    assert!(
        !log.starts_with(&project),
        "state must live outside the working tree"
    );

    let records = lines(&log);
    assert_eq!(records.len(), 3);
    let r = &records[0];
    assert_eq!(r["event"], "PreToolUse");
    assert_eq!(r["session"], "s-1");
    assert_eq!(r["tool_name"], "Bash");
    assert_eq!(r["tool_use_id"], "toolu_mock_281265a138cd4cf7");
    assert_eq!(r["decision"], "deny");
    assert_eq!(
        r["matched_rules"],
        serde_json::json!(["tool_policy.deny:Bash(* --live*)"])
    );
    assert!(r["policy_digest"].as_str().unwrap().contains(':'));
    assert!(r["decide_us"].is_u64());
    assert_eq!(
        r["evaluator"], "sidecar (verified by stamp)",
        "a freshly compiled policy is trusted by its stamp, not hashed"
    );
    assert!(r["ts"].as_str().unwrap().ends_with('Z'));
    assert_eq!(r["payload"]["tool_input"]["command"], "trade --live");
    assert_eq!(r["payload_truncated"], false);
    // The exact bytes the decision was made on: their length and SHA-256.
    let sent = payload("PreToolUse.Bash.trade-live.json");
    assert_eq!(r["payload_bytes"], sent.len());
    assert_eq!(
        r["payload_sha256"].as_str().unwrap().len(),
        64,
        "{}",
        r["payload_sha256"]
    );
    let w = &records[1];
    assert_eq!(
        (
            w["event"].as_str(),
            w["decision"].is_null(),
            w["gate"].as_bool()
        ),
        (Some("PostToolUse"), true, Some(false))
    );
    assert_eq!(w["payload_truncated"], true);
    let cut = w["payload"]["tool_input"]["content"].as_str().unwrap();
    assert_has(cut, "…[truncated");
    // A cut says the full length and carries the full string's digest.
    assert!(
        cut.contains(" bytes, sha256 "),
        "{}",
        &cut[cut.len() - 120..]
    );
    assert!(
        w["payload"]["tool_input"]["content"]
            .as_str()
            .unwrap()
            .len()
            < 3000
    );
    let s = &records[2];
    assert_eq!(s["event"], "Stop");
    assert!(s["error"].as_str().unwrap().contains("not JSON"), "{s}");
}

#[test]
fn one_thousand_concurrent_hooks_write_one_thousand_intact_lines() {
    let dir = temp_dir("concurrency");
    let (project, state) = (make_dir(&dir, "project"), dir.join("state"));
    let policy = compile_profile("trader.yaml", "trader", &dir.join("run"));
    let payloads = [
        payload("PreToolUse.Bash.trade-live.json"),
        payload("PreToolUse.Read.json"),
        payload("PreToolUse.Write.json"),
    ];
    const TOTAL: usize = 1000;
    const AT_ONCE: usize = 50;
    for wave in 0..TOTAL / AT_ONCE {
        let children: Vec<_> = (0..AT_ONCE)
            .map(|i| {
                let n = wave * AT_ONCE + i;
                let mut cmd = Command::new(bin());
                cmd.args([
                    "emit",
                    "--event",
                    "PreToolUse",
                    "--session",
                    "shared",
                    "--project-root",
                ])
                .arg(&project)
                .env("ANIMUS_CONFIG_DIR", &state)
                .stdin(Stdio::piped())
                .stdout(Stdio::null())
                .stderr(Stdio::null());
                if n.is_multiple_of(2) {
                    cmd.arg("--policy").arg(&policy);
                }
                let mut child = cmd.spawn().unwrap();
                let mut body: serde_json::Value =
                    serde_json::from_slice(&payloads[n % payloads.len()]).unwrap();
                body["tool_use_id"] = format!("toolu_{n}").into();
                use std::io::Write;
                child
                    .stdin
                    .take()
                    .unwrap()
                    .write_all(&serde_json::to_vec(&body).unwrap())
                    .unwrap();
                child
            })
            .collect();
        for mut c in children {
            assert!(c.wait().unwrap().success());
        }
    }
    let text = std::fs::read_to_string(session_log(&state, "shared")).unwrap();
    let records: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("torn line {e}: {l}")))
        .collect();
    assert_eq!(records.len(), TOTAL);
    let mut ids: Vec<String> = records
        .iter()
        .map(|r| r["tool_use_id"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), TOTAL, "every event recorded exactly once");
    // One chain: no two hooks linked to the same record (the tip is read under the lock).
    let log = session_log(&state, "shared");
    let verified = run_cli(&["verify", "--open", "--json", log.to_str().unwrap()]);
    assert_eq!(verified.code, Some(0), "{}", verified.stdout);
    let report: serde_json::Value = serde_json::from_str(verified.stdout.trim()).unwrap();
    assert_eq!(report["last_seq"], TOTAL);
}

/// A torn last line (a crash or the agent cut the log) does not swallow the next record: the
/// next record starts on a fresh line and says where the torn one is, which stays as it was.
#[test]
fn a_torn_last_line_is_kept_and_reported_by_the_next_record() {
    let dir = temp_dir("record-torn");
    let (project, state) = (make_dir(&dir, "p"), dir.join("state"));
    let env = [("ANIMUS_CONFIG_DIR", state.to_str().unwrap())];
    let args = [
        "emit",
        "--event",
        "Stop",
        "--session",
        "torn",
        "--project-root",
        project.to_str().unwrap(),
    ];
    run_hook(&args, Some(b"{\"hook_event_name\":\"Stop\"}"), &env);
    let log = session_log(&state, "torn");
    let whole = std::fs::read(&log).unwrap();
    // Cut the record in the middle, as a crash or the agent would.
    let cut = whole.len() / 2;
    std::fs::write(&log, &whole[..cut]).unwrap();
    run_hook(&args, Some(b"{\"hook_event_name\":\"Stop\"}"), &env);
    run_hook(&args, Some(b"{\"hook_event_name\":\"Stop\"}"), &env);
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(lines[0].as_bytes(), &whole[..cut], "the torn line is kept");
    let next: serde_json::Value = serde_json::from_str(lines[1]).unwrap();
    assert_eq!(next["event"], "Stop");
    assert_eq!(next["torn_line"]["ends_at"], cut);
    assert_eq!(next["torn_line"]["starts_at"], 0);
    let after: serde_json::Value = serde_json::from_str(lines[2]).unwrap();
    assert!(after.get("torn_line").is_none(), "{after}");
    assert!(text.ends_with('\n'));
}
