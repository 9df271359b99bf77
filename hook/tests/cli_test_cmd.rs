//! `animus-hook test`: policy test cases run as an author runs them.

mod common;

use std::path::Path;
use test_support::assert_starts;
use test_support::write_file;

use common::{repo, temp_dir};
use test_support::assert_has;

/// `animus-hook test …` run in `dir`.
fn test_in(dir: &Path, args: &[&str]) -> common::Run {
    let mut full = vec!["test"];
    full.extend_from_slice(args);
    let output = std::process::Command::new(common::bin())
        .args(&full)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    common::Run {
        stdout: String::from_utf8(output.stdout).unwrap(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        code: output.status.code(),
        elapsed: std::time::Duration::ZERO,
    }
}

fn trader_args(cases: &str) -> Vec<String> {
    vec![
        "--config".into(),
        repo()
            .join("corpus/profiles/trader.yaml")
            .display()
            .to_string(),
        "--agent".into(),
        "trader".into(),
        cases.into(),
    ]
}

fn strs(v: &[String]) -> Vec<&str> {
    v.iter().map(String::as_str).collect()
}

#[test]
fn the_bundled_cases_pass_and_nothing_is_written() {
    let dir = temp_dir("test-cmd-pass");
    let cases = repo().join("corpus/cases/trader.cases.yaml");
    let run = test_in(&dir, &strs(&trader_args(cases.to_str().unwrap())));
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert_starts(&run.stdout, "16 passed, 0 failed");
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        0,
        "test writes nothing"
    );
}

const FAILING_CASES: &str = "- command: trade --live\n  expect: deny\n\
         - name: wrong on purpose\n  command: git status\n  expect: deny\n\
         - command: git reset --hard\n  expect: allow\n";

#[test]
fn a_failing_case_is_one_line_at_its_place_and_exits_1() {
    let dir = temp_dir("test-cmd-fail");
    let cases = write_file(&dir, "cases.yaml", FAILING_CASES);
    let run = test_in(&dir, &strs(&trader_args(cases.to_str().unwrap())));
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", run.stdout);
    assert!(
        lines[0].ends_with(
            "cases.yaml:3:3: FAILED wrong on purpose: expected deny, got defer (the policy default)"
        ),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].ends_with(
            "cases.yaml:6:3: FAILED Bash: git reset --hard: expected allow, got deny (rule \
             `pack.core.git:reset-hard`)"
        ),
        "{}",
        lines[1]
    );
    assert!(lines[2].starts_with("1 passed, 2 failed"), "{}", lines[2]);
}

const BAD_CASES: &str =
    "- command: ls\n  expect: perhaps\n- call: {tool: Read}\n  command: ls\n  expect: deny\n";

#[test]
fn a_malformed_case_file_runs_nothing_and_says_where() {
    let dir = temp_dir("test-cmd-bad");
    let good = repo().join("corpus/cases/trader.cases.yaml");
    let bad = write_file(&dir, "bad.yaml", BAD_CASES);
    let mut args = trader_args(good.to_str().unwrap());
    args.push(bad.display().to_string());
    let run = test_in(&dir, &strs(&args));
    assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
    assert!(run.stdout.is_empty(), "no case runs: {}", run.stdout);
    assert_has(&run.stderr, "bad.yaml:2:11");
    assert_has(&run.stderr, "`expect: perhaps` is not a decision");
    assert!(
        run.stderr.contains("bad.yaml:3:3"),
        "every mistake: {}",
        run.stderr
    );
    assert_has(&run.stderr, "no case was run");

    let missing = dir.join("nowhere.yaml");
    let run = test_in(&dir, &strs(&trader_args(missing.to_str().unwrap())));
    assert_eq!(run.code, Some(1));
    assert_has(&run.stderr, "nowhere.yaml");

    let empty = write_file(&dir, "empty.yaml", "[]\n");
    let run = test_in(&dir, &strs(&trader_args(empty.to_str().unwrap())));
    assert_eq!(run.code, Some(1));
    assert_has(&run.stderr, "no case");
}

#[test]
fn usage_and_profile_errors() {
    let dir = temp_dir("test-cmd-usage");
    let run = test_in(&dir, &["--config", "x.yaml", "--agent", "a"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert_has(&run.stderr, "<CASES_YAML>");
    let run = test_in(&dir, &["--agent", "a", "c.yaml"]);
    assert_eq!(run.code, Some(2));
    assert_has(&run.stderr, "--config");

    let cases = repo().join("corpus/cases/trader.cases.yaml");
    let mut args = trader_args(cases.to_str().unwrap());
    args[3] = "nobody".into();
    let run = test_in(&dir, &strs(&args));
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    assert_has(&run.stderr, "nobody");
    assert!(run.stdout.is_empty(), "{}", run.stdout);
}

const JSON_CASES: &str = "- command: \"git reset --hard HEAD~1\"\n  expect: deny\n\
         - name: wrongly allowed\n  command: \"git reset --hard HEAD~1\"\n  expect: allow\n";

/// `test --json`: one JSON document with the counts and each failure at its place.
#[test]
fn json_reports_counts_and_failures() {
    let dir = temp_dir("test-cmd-json");
    let cases = write_file(&dir, "c.yaml", JSON_CASES);
    let mut args = trader_args(cases.to_str().unwrap());
    args.insert(4, "--json".into());
    let run = test_in(&dir, &strs(&args));
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).expect("one JSON document");
    assert_eq!(doc["agent"], "trader");
    assert_eq!(doc["passed"], 1);
    assert_eq!(doc["failed"], 1);
    let failure = &doc["failures"][0];
    assert_eq!(failure["name"], "wrongly allowed");
    assert_eq!(failure["expected"], "allow");
    assert_eq!(failure["got"], "deny");
    assert_eq!(failure["line"], 3);
    assert!(failure["file"].as_str().unwrap().ends_with("c.yaml"));
    assert_starts(
        failure["message"].as_str().unwrap(),
        "expected allow, got deny",
    );

    let all = repo().join("corpus/cases/trader.cases.yaml");
    let mut args = trader_args(all.to_str().unwrap());
    args.insert(4, "--json".into());
    let run = test_in(&dir, &strs(&args));
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(doc["failed"], 0);
    assert!(doc["passed"].as_u64().unwrap() > 0);
    assert_eq!(doc["failures"], serde_json::json!([]));
}
