//! `animus-hook log`: the recorded gate decisions, filtered, as JSON, summarised and followed.

mod common;
mod proof_common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use test_support::assert_starts;

use common::*;
use proof_common::*;
use serde_json::Value;
use test_support::assert_has;

#[test]
fn log_shows_each_decision_with_its_rule_newest_last() {
    let mut s = Session::new("log-list");
    for i in 0..10 {
        s.call(i);
    }
    let run = s.hook(&["log"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.len(), 10, "{}", run.stdout);
    assert_has(
        lines[1],
        "  s-proof  claude  Bash  trade --live  DENY  tool_policy.deny:Bash(* --live*)  Denied by",
    );
    assert_has(lines[0], "git status  DEFER  (default)");
    let ts: Vec<&str> = lines.iter().map(|l| &l[..20]).collect();
    assert!(ts.windows(2).all(|w| w[0] <= w[1]), "{ts:?}");
    // Filters.
    let run = s.hook(&["log", "--decision", "deny"]);
    assert_eq!(run.stdout.lines().count(), 3, "{}", run.stdout);
    assert!(run.stdout.lines().all(|l| l.contains(" DENY ")));
    let run = s.hook(&["log", "--decision", "deny,ask", "--session", "other"]);
    assert_eq!(run.stdout, "");
    let run = s.hook(&[
        "log",
        "--since",
        "1h",
        "--project",
        s.project.to_str().unwrap(),
    ]);
    assert_eq!(run.stdout.lines().count(), 10, "{}", run.stderr);
    let run = s.hook(&["log", "--since", "2999-01-01T00:00:00Z"]);
    assert_eq!((run.code, run.stdout.as_str()), (Some(0), ""));
    let run = s.hook(&["log", "--since", "yesterday"]);
    assert_eq!(run.code, Some(2));
    assert_has(&run.stderr, "--since `yesterday`");
    // --json: the records as recorded, one a line.
    let run = s.hook(&["log", "--json", "--decision", "deny"]);
    let log_lines = s.lines();
    for line in run.stdout.lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        assert_eq!(record["decision"], "deny");
        assert!(log_lines.iter().any(|l| l.trim_end() == line));
    }
}

#[test]
fn log_stats_count_per_session_and_rule() {
    let mut s = Session::new("log-stats");
    for i in 0..20 {
        s.call(i);
    }
    let run = s.hook(&["log", "--stats"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_starts(&run.stdout, "20 decisions in 1 sessions\n");
    assert_has(&run.stdout, "  s-proof             6     0      0     14");
    assert_has(
        &run.stdout,
        "     2     0  tool_policy.deny:Bash(* --live*)",
    );
    assert_has(&run.stdout, "     2     0  no-prod-deploy");
}

#[test]
fn log_follow_prints_new_decisions_as_they_are_recorded() {
    let mut s = Session::new("log-follow");
    s.call(0);
    let mut child = Command::new(bin())
        .args(["log", "--follow", "--decision", "deny"])
        .env("ANIMUS_CONFIG_DIR", &s.state)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    std::thread::sleep(Duration::from_millis(300));
    s.call(1); // trade --live: denied
    s.call(2); // Read: deferred, filtered out
    let started = Instant::now();
    let line = rx.recv_timeout(Duration::from_secs(10));
    let _ = child.kill();
    let _ = child.wait();
    let line = line.expect("no line within 10 s");
    assert_has(&line, "trade --live  DENY");
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(
        rx.recv_timeout(Duration::from_millis(200)).is_err(),
        "the deferred call is filtered"
    );
}

/// The three commands answer `--help` with their own usage block, and the shell completions
/// know them and their options.
#[test]
fn verify_replay_and_log_answer_help_and_complete() {
    for command in ["verify", "replay", "log"] {
        let run = run_cli(&[command, "--help"]);
        assert_eq!(run.code, Some(0), "{command}: {}", run.stderr);
        assert_has(&run.stdout, &format!("\nUsage: animus-hook {command} "));
        assert_eq!(
            run.stdout.matches("Usage: animus-hook").count(),
            1,
            "{}",
            run.stdout
        );
    }
    let bash = run_cli(&["completions", "bash"]).stdout;
    for expected in [
        "opts=\"-h --session --project-root --open --json --help\"",
        "opts=\"-h --policy --config --agent --baseline --provider --json --stats --help\"",
        "opts=\"-h --session --decision --since --project --follow --json --stats --help\"",
    ] {
        assert!(bash.contains(expected), "{expected}\n{bash}");
    }
    // Usage errors exit 2.
    for args in [
        &["replay", "--config", "x.yaml", "in.jsonl"][..],
        &["log", "--decision", "maybe"],
        &["log", "--stats", "--follow"],
        &["verify", "--project-root", "/tmp"],
    ] {
        let run = run_cli(args);
        assert_eq!(run.code, Some(2), "{args:?}: {}", run.stderr);
    }
}
