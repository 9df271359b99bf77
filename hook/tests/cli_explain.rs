//! `animus-hook explain` as an author runs it: on the bundled trader profile, with the call on
//! stdin or on the command line, in text and JSON, and on bad input.

mod common;

use std::path::{Path, PathBuf};
use test_support::make_dir;

use common::{compile_profile, payload, run_cli, run_hook, temp_dir};
use test_support::assert_has;

fn explain(policy: &Path, extra: &[&str], stdin: &[u8]) -> common::Run {
    let mut args = vec!["explain", "--policy", policy.to_str().unwrap()];
    args.extend_from_slice(extra);
    run_hook(&args, Some(stdin), &[])
}

/// A fresh directory `name` with the trader profile compiled in it: the directory and the
/// policy.
fn trader_in(name: &str) -> (common::TempDir, PathBuf) {
    let dir = temp_dir(name);
    let policy = compile_profile("trader.yaml", "trader", &dir);
    (dir, policy)
}

#[test]
fn a_deny_names_its_rule_where_it_matched_and_the_segments() {
    let (_dir, policy) = trader_in("explain-deny");
    let run = explain(
        &policy,
        &["--command", "echo start && git reset --hard HEAD~1"],
        b"",
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let out = &run.stdout;
    assert_has(out, "decision: deny");
    assert_has(out, "deciding rule: pack.core.git:reset-hard");
    // The matcher, the text it matched in (a segment, not the raw command) and the span.
    assert!(
        out.contains(
            "command [regex] matched bytes 0..17 of \"git reset --hard HEAD~1\": \"git reset --hard \""
        ),
        "{out}"
    );
    assert_has(out, "  1. echo start\n  2. git reset --hard HEAD~1\n");
    assert_has(out, "time: load ");
    assert!(!out.contains("near misses"), "only on request: {out}");
}

#[test]
fn a_payload_on_stdin_is_explained_as_the_hook_decides_it() {
    let (_dir, policy) = trader_in("explain-stdin");
    let run = explain(
        &policy,
        &["--json"],
        &payload("PreToolUse.Bash.trade-live.json"),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["decision"], "deny", "{v}");
    assert_eq!(v["harness_answer"], "deny", "{v}");
    assert_eq!(
        v["deciding_rule"], "tool_policy.deny:Bash(* --live*)",
        "{v}"
    );
    assert_eq!(v["disagreement"], serde_json::Value::Null, "{v}");
    let matched = v["matched"].as_array().unwrap();
    let live = matched
        .iter()
        .find(|r| r["id"] == "tool_policy.deny:Bash(* --live*)")
        .unwrap();
    let hit = &live["matchers"][0]["matched"];
    assert_eq!(hit["text"], "trade --live", "{v}");
    assert_eq!(
        (hit["start"].as_u64(), hit["end"].as_u64()),
        (Some(0), Some(12))
    );
    assert_eq!(v["command"]["segments"][0]["generous"][0], "trade --live");
    assert!(v["time_us"]["decide"].is_u64(), "{v}");
    assert!(v.get("near").is_none(), "{v}");
}

#[test]
fn near_misses_show_what_did_not_match() {
    let (_dir, policy) = trader_in("explain-near");
    let run = explain(
        &policy,
        &["--command", "deploy web --env staging", "--near", "--json"],
        b"",
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["decision"], "defer", "{v}");
    assert_eq!(v["matched"], serde_json::json!([]), "{v}");
    let near = v["near"].as_array().unwrap();
    let deploy = near.iter().find(|r| r["id"] == "no-prod-deploy").unwrap();
    assert_eq!(deploy["matchers"][0]["pattern"], "deploy .*--env(=| )prod");
    assert_eq!(deploy["matchers"][0]["matched"], serde_json::Value::Null);
    // Rules for other tools do not apply, so they are no near miss.
    assert!(
        !near
            .iter()
            .any(|r| r["id"].as_str().unwrap().contains("Read(")),
        "{v}"
    );
}

#[test]
fn a_path_rule_shows_the_path_text_with_its_base_named() {
    let (dir, policy) = trader_in("explain-path");
    let project = make_dir(&dir, "project");
    let env = project.join(".env");
    let input = serde_json::json!({ "file_path": env }).to_string();
    let run = explain(
        &policy,
        &[
            "--tool",
            "Read",
            "--input",
            &input,
            "--cwd",
            project.to_str().unwrap(),
        ],
        b"",
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_has(&run.stdout, "decision: ask");
    assert_has(
        &run.stdout,
        "file_path [path] matched bytes 0..7 of \"<cwd>/.env/\"",
    );
}

#[test]
fn bad_input_is_a_clear_error_and_writes_nothing() {
    let (dir, policy) = trader_in("explain-bad");
    let before: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();

    // Usage errors: exit 2 with the usage.
    for (args, says) in [
        (
            vec!["--command", "ls", "--tool", "Read"],
            "'--command <CMD>' cannot be used with '--tool <NAME>'",
        ),
        (vec!["--tool", "Read"], "--input <JSON>"),
        (vec!["--input", "{}"], "--tool <NAME>"),
        (
            vec!["--tool", "Read", "--input", "{nope"],
            "for '--input <JSON>': not JSON",
        ),
        (
            vec!["--tool", "Read", "--input", "[1]"],
            "not a JSON object",
        ),
        (vec!["--bogus"], "unexpected argument '--bogus'"),
    ] {
        let run = explain(&policy, &args, b"");
        assert_eq!(run.code, Some(2), "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(says), "{args:?}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{args:?}: {}", run.stdout);
    }
    let run = run_cli(&["explain", "--command", "ls"]);
    assert_eq!(run.code, Some(2));
    assert_has(&run.stderr, "required arguments were not provided");
    assert_has(&run.stderr, "--policy <FILE>");

    // Errors about the input: exit 1, naming the file or the payload's fault.
    let missing = dir.join("nowhere/animus-policy.json");
    let run = explain(&missing, &["--command", "ls"], b"");
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert_has(&run.stderr, "nowhere/animus-policy.json");
    let run = explain(&policy, &[], b"not json");
    assert_eq!(run.code, Some(1));
    assert_has(&run.stderr, "payload is not JSON");
    let run = explain(&policy, &[], br#"{"tool_input":{}}"#);
    assert_eq!(run.code, Some(1));
    assert_has(&run.stderr, "no `tool_name`");

    // A policy of another version.
    let other = make_dir(&dir, "other");
    let text = std::fs::read_to_string(&policy).unwrap();
    std::fs::write(
        other.join("animus-policy.json"),
        text.replacen("\"version\": 1", "\"version\": 99", 1),
    )
    .unwrap();
    let run = explain(&other.join("animus-policy.json"), &["--command", "ls"], b"");
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert_has(&run.stderr, "animus-hook explain:");
    assert!(run.stdout.is_empty(), "{}", run.stdout);

    let after: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(
        before.len() + 1,
        after.len(),
        "only the test's own `other` dir was added"
    );
}

#[test]
fn explain_has_its_own_help() {
    let run = run_cli(&["explain", "--help"]);
    assert_eq!(run.code, Some(0));
    assert_has(
        &run.stdout,
        "Usage: animus-hook explain [OPTIONS] --policy <FILE>",
    );
    assert!(
        !run.stdout.contains("animus-hook compile"),
        "{}",
        run.stdout
    );
}
