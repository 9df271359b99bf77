//! `animus-hook replay`: recorded calls decided again under a candidate policy, agreeing with
//! `check` on every call.

mod common;
mod proof_common;

use std::collections::BTreeSet;
use std::path::Path;
use test_support::assert_starts;
use test_support::write_file;

use common::*;
use proof_common::*;
use serde_json::Value;
use test_support::assert_has;

/// The trader profile with one more deny: every `git status`.
fn stricter_profile(dir: &Path) -> std::path::PathBuf {
    let text = std::fs::read_to_string(repo().join("corpus/profiles/trader.yaml")).unwrap();
    let stricter = text.replace(
        "        - \"Bash(*submit-order*)\"\n",
        "        - \"Bash(*submit-order*)\"\n        - \"Bash(git status*)\"\n",
    );
    assert_ne!(text, stricter);
    write_file(dir, "stricter.yaml", stricter)
}

fn compile(config: &Path, out: &Path) -> std::path::PathBuf {
    compile_config(config, "trader", out)
}

fn json_lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// What `check` decides for `payload` under `policy`.
fn check(s: &Session, policy: &Path, payload: &Value) -> String {
    let run = run_hook(
        &[
            "check",
            "--policy",
            policy.to_str().unwrap(),
            "--event",
            "PreToolUse",
            "--project-root",
            s.project.to_str().unwrap(),
            "--json",
        ],
        Some(&serde_json::to_vec(payload).unwrap()),
        &s.env(),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let out: Value = serde_json::from_str(&run.stdout).unwrap();
    out["decision"].as_str().unwrap().to_string()
}

/// `replay <flags…> --policy <policy> <input>` in the session.
fn replay(s: &Session, flags: &[&str], policy: &Path, input: &Path) -> Run {
    let mut args = vec!["replay"];
    args.extend_from_slice(flags);
    args.extend([
        "--policy",
        policy.to_str().unwrap(),
        input.to_str().unwrap(),
    ]);
    s.hook(&args)
}

/// The `changed …` lines of replay's text report: one per call whose decision changed.
fn changed_lines(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter(|l| l.starts_with("changed"))
        .collect()
}

#[test]
fn under_the_recorded_policy_nothing_changes() {
    let s = Session::recorded("replay-same");
    let log = s.log();
    let run = replay(&s, &[], &s.policy, &log);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert_eq!(run.stdout, "replayed 40 calls from 1 input: 0 changed\n");
    let run = replay(&s, &["--json"], &s.policy, &log);
    assert_eq!(run.code, Some(0));
    let calls = json_lines(&run.stdout);
    assert_eq!(calls.len(), 40);
    assert!(
        calls
            .iter()
            .all(|c| c["changed"] == false && c["before"] == c["after"])
    );
    // The recorded session holds denies, so "nothing changed" is not "nothing decided".
    assert_eq!(calls.iter().filter(|c| c["after"] == "deny").count(), 12);
}

#[test]
fn one_more_deny_lists_exactly_the_calls_it_denies_and_agrees_with_check() {
    let s = Session::recorded("replay-stricter");
    let candidate = compile(&stricter_profile(&s.dir), &s.dir.join("candidate"));
    let log = s.log();
    let run = replay(&s, &["--json"], &candidate, &log);
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    let calls = json_lines(&run.stdout);
    assert_eq!(calls.len(), 40);
    let changed: BTreeSet<String> = calls
        .iter()
        .filter(|c| c["changed"] == true)
        .map(|c| c["tool_use_id"].as_str().unwrap().to_string())
        .collect();
    let git_status: BTreeSet<String> = s
        .sent
        .iter()
        .filter(|p| p["tool_input"]["command"] == "git status")
        .map(|p| p["tool_use_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(git_status.len(), 4);
    assert_eq!(changed, git_status);
    for c in calls.iter().filter(|c| c["changed"] == true) {
        assert_eq!(
            (c["before"].as_str(), c["after"].as_str()),
            (Some("defer"), Some("deny"))
        );
        assert_eq!(c["rule_after"], "tool_policy.deny:Bash(git status*)");
    }
    // Every decision agrees with `check` on the same payload.
    for (call, sent) in calls.iter().zip(&s.sent) {
        assert_eq!(call["tool_use_id"], sent["tool_use_id"]);
        assert_eq!(
            call["after"].as_str().unwrap(),
            check(&s, &candidate, sent),
            "{call}"
        );
    }
    // The text lists the same calls, one line each, with the rule.
    let run = replay(&s, &[], &candidate, &log);
    assert_eq!(run.code, Some(1));
    let listed = changed_lines(&run.stdout);
    assert_eq!(listed.len(), 4, "{}", run.stdout);
    for line in listed {
        assert_has(
            line,
            "git status  defer -> deny  rule: tool_policy.deny:Bash(git status*)",
        );
    }
    assert!(
        run.stdout
            .ends_with("replayed 40 calls from 1 input: 4 changed\n"),
        "{}",
        run.stdout
    );
    // The candidate as a profile: the same calls change.
    let config = s.dir.join("stricter.yaml");
    let run = s.hook(&[
        "replay",
        "--json",
        "--config",
        config.to_str().unwrap(),
        "--agent",
        "trader",
        log.to_str().unwrap(),
    ]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let by_profile: BTreeSet<String> = json_lines(&run.stdout)
        .iter()
        .filter(|c| c["changed"] == true)
        .map(|c| c["tool_use_id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(by_profile, git_status);
}

/// A looser candidate: the calls it lets through are listed with the rule that denied them.
#[test]
fn a_looser_candidate_names_the_rule_that_decided_before() {
    let s = Session::recorded("replay-looser");
    let text = std::fs::read_to_string(repo().join("corpus/profiles/trader.yaml")).unwrap();
    let looser = text.replace(
        "        - \"Bash(* --live*)\"        # kernel guardrail\n",
        "",
    );
    assert_ne!(text, looser);
    let looser = looser.replace(
        "        - command: \"trade --live --size 1\"\n          expect: deny\n",
        "",
    );
    let config = write_file(&s.dir, "looser.yaml", looser);
    let candidate = compile(&config, &s.dir.join("looser"));
    let run = replay(&s, &[], &candidate, &s.log());
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    let listed = changed_lines(&run.stdout);
    assert_eq!(listed.len(), 4, "{}", run.stdout);
    for line in listed {
        assert!(
            line.contains(
                "Bash  trade --live  deny -> defer  rule: (default; before: \
                 tool_policy.deny:Bash(* --live*))"
            ),
            "{line}"
        );
    }
}

/// A recorded deny that was the fail-closed answer to an error (here: a policy that was not
/// there) changes under a working policy, and says why it was a deny.
#[test]
fn a_fail_closed_deny_is_marked_when_it_changes() {
    let mut s = Session::recorded("replay-failed");
    let real = s.policy.clone();
    s.policy = s.dir.join("gone/animus-policy.json");
    let mut body: Value = serde_json::from_slice(&payload("PreToolUse.Read.json")).unwrap();
    body["tool_use_id"] = "toolu_failed".into();
    let run = s.emit("PreToolUse", &serde_json::to_vec(&body).unwrap(), true);
    assert_has(&run.stdout, "deny");
    let run = replay(&s, &[], &real, &s.log());
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    let listed = changed_lines(&run.stdout);
    assert_eq!(listed.len(), 1, "{}", run.stdout);
    assert_has(listed[0], "toolu_failed  Read");
    assert_has(listed[0], "deny -> defer");
    assert_has(listed[0], "[recorded deny was fail-closed: ");
}

#[test]
fn a_claude_transcript_replays() {
    let s = Session::new("replay-transcript");
    let transcript = repo().join("corpus/transcripts/claude-code.jsonl");
    let candidate = compile(&stricter_profile(&s.dir), &s.dir.join("candidate"));
    // No baseline: nothing to compare, every tool_use decided.
    let run = replay(&s, &["--json"], &s.policy, &transcript);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let calls = json_lines(&run.stdout);
    let ids: Vec<&str> = calls
        .iter()
        .map(|c| c["tool_use_id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "toolu_01GitStatus7dQmP2xYz",
            "toolu_01ReadCargo4kLs9QwErT",
            "toolu_01GrepErr8nBv3CxZaSd",
            "toolu_01EditMain2pQr5StUvWx",
            "toolu_01CargoBuild6yHn1JmKo",
            "toolu_01TradeLive3vBn8MqWeR"
        ]
    );
    assert!(
        calls
            .iter()
            .all(|c| c["before"].is_null() && c["changed"] == false)
    );
    assert_eq!(calls[5]["after"], "deny");
    assert_has(&run.stderr, "6 had no decision to compare");
    assert_has(&run.stderr, "denies 1");
    // A directory is searched for *.jsonl: the same calls.
    let dir = s.hook(&[
        "replay",
        "--json",
        "--policy",
        s.policy.to_str().unwrap(),
        repo().join("corpus/transcripts").to_str().unwrap(),
    ]);
    assert_eq!(
        (dir.code, &dir.stdout),
        (Some(0), &run.stdout),
        "{}",
        dir.stderr
    );
    // Against a baseline: the stricter candidate changes exactly the git status call.
    let run = s.hook(&[
        "replay",
        "--policy",
        candidate.to_str().unwrap(),
        "--baseline",
        s.policy.to_str().unwrap(),
        transcript.to_str().unwrap(),
    ]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let listed = changed_lines(&run.stdout);
    assert_eq!(listed.len(), 1, "{}", run.stdout);
    assert!(listed[0].contains("toolu_01GitStatus7dQmP2xYz  Bash  git status  defer -> deny"));
}

#[test]
fn a_cut_tool_input_is_not_replayable_and_never_guessed() {
    let mut s = Session::new("replay-cut");
    s.call(0);
    let mut big: Value = serde_json::from_slice(&payload("PreToolUse.Write.json")).unwrap();
    big["tool_input"]["content"] = "z".repeat(70_000).into();
    big["tool_use_id"] = "toolu_big".into();
    s.emit("PreToolUse", &serde_json::to_vec(&big).unwrap(), true);
    // Under 64 KiB it is kept whole.
    big["tool_input"]["content"] = "y".repeat(60_000).into();
    big["tool_use_id"] = "toolu_kept".into();
    s.emit("PreToolUse", &serde_json::to_vec(&big).unwrap(), true);
    s.end();
    let lines = s.lines();
    let kept: Value = serde_json::from_str(&lines[line_of(&lines, "toolu_kept") - 1]).unwrap();
    assert_eq!(
        kept["payload"]["tool_input"]["content"]
            .as_str()
            .unwrap()
            .len(),
        60_000
    );
    assert_eq!(kept["tool_input_truncated"], false);
    let run = replay(&s, &["--json"], &s.policy, &s.log());
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let calls = json_lines(&run.stdout);
    let cut = calls
        .iter()
        .find(|c| c["tool_use_id"] == "toolu_big")
        .unwrap();
    assert_eq!(cut["replayable"], false);
    assert!(cut["why"].as_str().unwrap().contains("64 KiB"), "{cut}");
    assert!(cut["after"].is_null());
    let kept = calls
        .iter()
        .find(|c| c["tool_use_id"] == "toolu_kept")
        .unwrap();
    assert_eq!(kept["replayable"], true);
    assert_has(&run.stderr, "1 not replayable");
}

#[test]
fn hook_payloads_replay_with_stats_and_errors_exit_2() {
    let s = Session::new("replay-payloads");
    let file = s.dir.join("payloads.jsonl");
    let mut text = String::new();
    for name in CALLS {
        text.push_str(&String::from_utf8(payload(name)).unwrap().replace('\n', ""));
        text.push('\n');
    }
    // Not a gate event: not a call.
    text.push_str(
        &String::from_utf8(payload("PreToolUse.Read.json"))
            .unwrap()
            .replace("\"PreToolUse\"", "\"PostToolUse\"")
            .replace('\n', ""),
    );
    text.push_str("\nnot json\n");
    std::fs::write(&file, text).unwrap();
    let run = s.hook(&[
        "replay",
        "--stats",
        "--policy",
        s.policy.to_str().unwrap(),
        "--baseline",
        s.policy.to_str().unwrap(),
        file.to_str().unwrap(),
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_starts(
        &run.stdout,
        "replayed 10 calls from 1 input: 0 changed; 1 lines were not JSON\n",
    );
    assert_has(&run.stdout, "decide latency over 10 calls: p50 ");
    assert_has(&run.stdout, "calls/s");
    let missing = s.dir.join("missing.json");
    let run = replay(&s, &[], &missing, &file);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    let run = s.hook(&["replay", "--policy", s.policy.to_str().unwrap()]);
    assert_eq!(run.code, Some(2));
}

/// The real tool calls of `../shared`: every tenth decided by replay as by `check`.
#[test]
fn replay_agrees_with_check_on_real_tool_calls() {
    let Some(shared) =
        test_support::shared::corpus_real("replay_agrees_with_check_on_real_tool_calls")
    else {
        return;
    };
    let s = Session::new("replay-real");
    let file = shared.join("tool-calls/pretooluse-hook-inputs.jsonl");
    // Read while it runs (the shared helper reads after exit; 1,542 lines fill a pipe).
    let out = std::process::Command::new(bin())
        .args(["replay", "--json", "--policy"])
        .arg(&s.policy)
        .arg(&file)
        .env("ANIMUS_CONFIG_DIR", &s.state)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let calls = json_lines(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(calls.len(), 1542, "{stderr}");
    let text = std::fs::read_to_string(&file).unwrap();
    let payloads: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for (i, (call, payload)) in calls.iter().zip(&payloads).enumerate().step_by(10) {
        let run = run_hook(
            &["check", "--policy", s.policy.to_str().unwrap(), "--json"],
            Some(&serde_json::to_vec(payload).unwrap()),
            &s.env(),
        );
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        let out: Value = serde_json::from_str(&run.stdout).unwrap();
        assert_eq!(call["after"], out["decision"], "call {i}: {payload}");
    }
}
