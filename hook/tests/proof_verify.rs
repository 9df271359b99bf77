//! `animus-hook verify` on sessions recorded through the real `emit`: a whole session passes;
//! an edited byte, a removed record, a cut end, another anchor and an ungated finished call
//! each fail, naming the place.

mod common;
mod proof_common;

use common::*;
use proof_common::*;
use test_support::assert_has;
use test_support::write_file;

#[test]
fn a_recorded_session_verifies_and_says_so() {
    let s = Session::recorded("verify-whole");
    let run = s.hook(&["verify", s.log().to_str().unwrap()]);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.starts_with('✓'), "{}", run.stdout);
    assert_has(
        &run.stdout,
        "51 records (seq 1..51), sealed; 40 gate decisions, 10 finished calls",
    );
    // By session id and project, and by directory, alike.
    let by_id = s.hook(&[
        "verify",
        "--session",
        &s.id,
        "--project-root",
        s.project.to_str().unwrap(),
    ]);
    assert_eq!((by_id.code, &by_id.stdout), (Some(0), &run.stdout));
    let dir = s.log().parent().unwrap().to_path_buf();
    let by_dir = s.hook(&["verify", dir.to_str().unwrap()]);
    assert_eq!(by_dir.code, Some(0), "{}", by_dir.stdout);
    // The whole state root: every log under it.
    let by_root = s.hook(&["verify", s.state.to_str().unwrap()]);
    assert_eq!((by_root.code, &by_root.stdout), (Some(0), &run.stdout));
    let (code, report) = verify_json(&s, &s.log());
    assert_eq!(code, Some(0));
    assert_eq!(report["ok"], true);
    assert_eq!(report["records"], 51);
    assert_eq!(report["sealed"], true);
    // The head digest is the last line's SHA-256.
    let last = s.lines().pop().unwrap();
    let head = animus_hook::sha256::hex(&animus_hook::sha256::sha256(
        last.trim_end_matches('\n').as_bytes(),
    ));
    assert_eq!(report["head"], head);
}

#[test]
fn every_record_matches_the_record_schema() {
    let s = Session::recorded("verify-schema");
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("schemas/session-record.v1.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    for line in s.lines() {
        let record: serde_json::Value = serde_json::from_str(&line).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&record)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{errors:?}\n{line}");
        // The chain members come first, in this order.
        assert!(line.starts_with("{\"v\":1,\"seq\":"), "{line}");
    }
    let anchor: serde_json::Value =
        serde_json::from_slice(&std::fs::read(s.log().with_extension("anchor")).unwrap()).unwrap();
    let anchor_schema = jsonschema::validator_for(&schema["$defs"]["anchor"]).unwrap();
    assert!(anchor_schema.is_valid(&anchor), "{anchor}");
    let mode = |p: &std::path::Path| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(p).unwrap().permissions().mode() & 0o777
    };
    assert_eq!(mode(&s.log().with_extension("anchor")), 0o600);
}

#[test]
fn one_edited_byte_in_a_middle_record_is_named() {
    let s = Session::recorded("verify-edit");
    let mut lines = s.lines();
    // A digit of the timestamp of line 25: still a well-formed record.
    let at = lines[24].find("\"ts\":\"").unwrap() + 22;
    let mut bytes = lines[24].clone().into_bytes();
    bytes[at] = if bytes[at] == b'1' { b'2' } else { b'1' };
    lines[24] = String::from_utf8(bytes).unwrap();
    s.write_lines(&lines);
    let (report, first) = first_problem(&s, &s.log());
    assert_eq!(
        (first["kind"].as_str(), first["line"].as_u64()),
        (Some("edited"), Some(25)),
        "{report}"
    );
    assert_eq!(first["seq"], 25);
    assert_eq!(report["problems"].as_array().unwrap().len(), 1, "{report}");
    let run = s.hook(&["verify", s.log().to_str().unwrap()]);
    assert_eq!(run.code, Some(1));
    assert_has(&run.stdout, "line 25 (seq 25) was edited");
}

#[test]
fn a_removed_record_is_named() {
    let s = Session::recorded("verify-remove");
    let mut lines = s.lines();
    // A gate decision whose call has no PostToolUse (only one problem follows).
    let n = line_of(&lines, "\"tool_use_id\":\"toolu_proof_05\"");
    lines.remove(n - 1);
    s.write_lines(&lines);
    let (report, first) = first_problem(&s, &s.log());
    assert_eq!(first["kind"], "removed", "{report}");
    assert_eq!(first["line"].as_u64(), Some(n as u64));
    assert!(
        first["message"]
            .as_str()
            .unwrap()
            .contains(&format!("seq {n} is missing")),
        "{report}"
    );
}

#[test]
fn a_log_cut_by_its_last_three_records_is_named() {
    let s = Session::recorded("verify-cut");
    let mut lines = s.lines();
    lines.truncate(lines.len() - 3);
    s.write_lines(&lines);
    let (report, first) = first_problem(&s, &s.log());
    assert_eq!(
        (first["kind"].as_str(), first["seq"].as_u64()),
        (Some("unsealed"), Some(48)),
        "{report}"
    );
    assert_eq!(report["sealed"], false);
    // Cut mid-line: the torn line is reported too.
    let mut text = lines.concat();
    text.truncate(text.len() - 40);
    std::fs::write(s.log(), text).unwrap();
    let (code, report) = verify_json(&s, &s.log());
    assert_eq!(code, Some(1));
    assert_eq!(report["problems"][0]["kind"], "torn", "{report}");
    assert_eq!(report["problems"][0]["line"], 48);
}

#[test]
fn an_anchor_that_disagrees_or_is_gone_fails() {
    let s = Session::recorded("verify-anchor");
    let anchor = s.log().with_extension("anchor");
    let text = std::fs::read_to_string(&anchor).unwrap();
    std::fs::write(&anchor, text.replace("\"v\":1", "\"v\":1 ")).unwrap();
    let (code, report) = verify_json(&s, &s.log());
    assert_eq!(code, Some(1));
    assert_eq!(
        (
            report["problems"][0]["kind"].as_str(),
            report["problems"][0]["line"].as_u64()
        ),
        (Some("anchor"), Some(1)),
        "{report}"
    );
    std::fs::remove_file(&anchor).unwrap();
    let (code, report) = verify_json(&s, &s.log());
    assert_eq!(code, Some(1));
    assert_eq!(report["problems"][0]["kind"], "anchor");
}

#[test]
fn a_finished_call_the_gate_never_saw_is_named() {
    let mut s = Session::new("verify-ungated");
    for i in 0..3 {
        s.call(i);
    }
    // A call the hook was never asked about: only its PostToolUse is recorded.
    let mut ghost: serde_json::Value =
        serde_json::from_slice(&payload("PreToolUse.Bash.git-status.json")).unwrap();
    ghost["hook_event_name"] = "PostToolUse".into();
    ghost["tool_use_id"] = "toolu_never_gated".into();
    s.emit("PostToolUse", &serde_json::to_vec(&ghost).unwrap(), false);
    s.end();
    let (code, report) = verify_json(&s, &s.log());
    assert_eq!(code, Some(1));
    let problems = report["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{report}");
    assert_eq!(problems[0]["kind"], "ungated");
    assert_eq!(problems[0]["tool_use_id"], "toolu_never_gated");
    let run = s.hook(&["verify", s.log().to_str().unwrap()]);
    assert_has(&run.stdout, "`toolu_never_gated` has no gate decision");
}

/// The record the deadline writes for a call that never finished deciding (from a signal
/// handler) is chained like every other.
#[test]
fn the_deadline_record_is_chained_too() {
    let mut s = Session::new("verify-deadline");
    s.call(0);
    let args = gate_args(&s.id, &s.project, &s.policy);
    let run = run_hook(
        &args.iter().map(String::as_str).collect::<Vec<_>>(),
        Some(&payload("PreToolUse.Bash.git-status.json")),
        &[
            s.env()[0],
            ("ANIMUS_HOOK_FAULT", "hang-deciding"),
            ("ANIMUS_HOOK_DEADLINE_MS", "300"),
        ],
    );
    assert_has(&run.stdout, "deny");
    s.call(1);
    s.end();
    let lines = s.lines();
    assert_has(&lines[2], "did not finish deciding");
    let run = s.hook(&["verify", s.log().to_str().unwrap()]);
    assert_eq!(run.code, Some(0), "{}", run.stdout);
}

#[test]
fn usage_and_unreadable_inputs() {
    let s = Session::new("verify-usage");
    let run = s.hook(&["verify"]);
    assert_eq!(run.code, Some(2));
    let missing = s.dir.join("nope.jsonl");
    let run = s.hook(&["verify", missing.to_str().unwrap()]);
    assert_eq!(run.code, Some(2));
    assert_has(&run.stderr, "nope.jsonl");
}

/// The anchor is reached like the log: a symbolic link planted in its place is refused (the
/// gate denies naming it), never followed.
#[test]
fn a_link_planted_at_the_anchor_is_refused() {
    let mut s = Session::new("verify-anchor-link");
    s.call(0);
    let sessions = s.log().parent().unwrap().to_path_buf();
    let victim = write_file(&s.dir, "victim", "mine\n");
    s.id = "planted".into();
    let anchor = sessions.join("planted.anchor");
    std::os::unix::fs::symlink(&victim, &anchor).unwrap();
    let run = s.emit(
        "PreToolUse",
        &payload("PreToolUse.Bash.git-status.json"),
        true,
    );
    assert_has(&run.stdout, "\"permissionDecision\":\"deny\"");
    assert_has(&run.stdout, "is a symbolic link");
    assert_has(&run.stdout, "planted.anchor");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "mine\n");
}
