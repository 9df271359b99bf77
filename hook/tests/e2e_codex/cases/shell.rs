//! Shell commands (`exec_command`, which hooks see as `Bash {command}`): a deny does not run
//! and the model sees the reason; a covered or deferred command runs; an ask is a deny that
//! names the human (Codex has no ask).

use serde_json::json;
use test_support::records::assert_fields;

use crate::driver::Sandbox;
use crate::fixtures::*;
use crate::mock_responses::{LAST_SESSION_ID, Script};
use test_support::assert_has;

pub fn denied_command_does_not_run_and_allowed_one_does() {
    let sandbox = with_trade_script(Sandbox::new("shell-allowlist"));
    let script = Script::new()
        .exec("call_live", "./trade --live --size 1")
        .exec("call_paper", "./trade --paper --size 1")
        .exec("call_and", "./trade --paper && ./trade --live")
        .exec("call_rm", "rm -f trade");
    let (mock, outcome) = guarded_run(&sandbox, "codex-allowlist", &[], script);
    outcome.completed();
    assert_eq!(outcome.stdout.trim(), "all done", "{outcome:#?}");

    let live = assert_blocked(&mock, "call_live", "Live orders are denied (codex e2e).");
    assert!(live.ends_with("Command: ./trade --live --size 1"), "{live}");
    let paper = assert_not_blocked(&mock, "call_paper");
    assert!(
        paper.contains("Process exited with code 0") && paper.contains("traded: --paper --size 1"),
        "{paper}"
    );
    // A compound command is denied when any part is.
    assert_blocked(&mock, "call_and", "Live orders are denied (codex e2e).");
    // Anything the allowlist does not cover gets its default deny.
    assert_blocked(&mock, "call_rm", DEFAULT_DENY);
    assert!(
        sandbox.project.join("trade").exists(),
        "rm ran past the gate"
    );
    assert_eq!(trades(&sandbox), ["--paper --size 1"]);
    assert_eq!(
        outcome.hook_lines("PreToolUse", "Blocked"),
        3,
        "{}",
        outcome.stderr
    );

    let log = sandbox.session_log();
    let live = gate_record(&log, "PreToolUse", "call_live");
    assert_eq!(live["decision"], "deny");
    assert_eq!(live["deciding_rule"], "e2e-codex-no-live-orders");
    assert_eq!(live["tool_name"], "Bash");
    let paper = gate_record(&log, "PreToolUse", "call_paper");
    let rule = "tool_policy.allow:Bash(./trade --paper:*)";
    assert_fields(
        paper,
        json!({"decision": "allow", "left_to_harness": true, "deciding_rule": rule}),
    );
    assert_decision(&log, "PreToolUse", "call_rm", "deny");
    // PostToolUse fires for the call that ran, and only for it.
    let post: Vec<_> = records(&log, "PostToolUse")
        .iter()
        .map(|r| r["tool_use_id"].clone())
        .collect();
    assert_eq!(post, [json!("call_paper")], "{log:#?}");
}

pub fn deferred_command_runs_and_ask_is_a_deny_naming_a_human() {
    let sandbox = with_trade_script(Sandbox::new("shell-defer"));
    let script = Script::new()
        .exec("call_paper", "./trade --paper")
        .exec("call_big", "./trade --paper --size big")
        .exec("call_live", "./trade --live")
        .exec("call_pwd", "pwd");
    let (mock, outcome) = guarded_run(&sandbox, "codex-defer", &[], script);
    outcome.completed();
    assert!(assert_not_blocked(&mock, "call_paper").contains("traded: --paper"));
    let big = assert_blocked(
        &mock,
        "call_big",
        "Big orders need a human to confirm (codex e2e ask).",
    );
    assert_has(&big, "a human must run it");
    assert_blocked(
        &mock,
        "call_live",
        "Live orders are denied (codex e2e, defer profile).",
    );
    let pwd = assert_not_blocked(&mock, "call_pwd");
    assert!(
        pwd.contains(&sandbox.project.display().to_string()),
        "{pwd}"
    );
    assert_eq!(trades(&sandbox), ["--paper"]);

    let log = sandbox.session_log();
    let paper = gate_record(&log, "PreToolUse", "call_paper");
    assert_eq!(paper["decision"], "defer");
    assert_decision(&log, "PreToolUse", "call_big", "ask");
    assert_decision(&log, "PreToolUse", "call_live", "deny");
}

/// Codex 0.169.0's `write_stdin` fires no PreToolUse, so input typed into a command started
/// with a tty is never gated (measured: the model starts `bash --norc`, then types the very
/// order the gate denies when run directly, and it ran). So under Codex a program that would
/// read commands from a terminal is denied whatever the policy says: the shell never starts,
/// and what is typed next has nowhere to go.
///
/// The shell would run under `-s danger-full-access` (in this container, under
/// `workspace-write`, Codex cannot start a tty command at all).
pub fn write_stdin_has_no_terminal_to_feed() {
    let sandbox = with_trade_script(Sandbox::new("write-stdin"));
    let script = Script::new()
        // The control: the same order, run directly, is denied in this session.
        .exec("call_direct", "./trade --live")
        .exec_with(
            "call_shell",
            json!({"cmd": "bash --norc", "tty": true, "yield_time_ms": 500}),
        )
        .call(
            "call_typed",
            "write_stdin",
            json!({"session_id": LAST_SESSION_ID, "chars": "./trade --live\nexit\n", "yield_time_ms": 1000}),
        );
    let full_access = ["-s".to_owned(), "danger-full-access".to_owned()];
    let (mock, outcome) = guarded_run(&sandbox, "codex-defer", &full_access, script);
    outcome.completed();
    assert_blocked(&mock, "call_direct", "Live orders are denied");
    assert_blocked(&mock, "call_shell", "Codex's write_stdin tool");
    assert!(trades(&sandbox).is_empty(), "{:?}", trades(&sandbox));
    let log = sandbox.session_log();
    let shell = gate_record(&log, "PreToolUse", "call_shell");
    assert_eq!(shell["decision"], "deny");
    assert_eq!(shell["deciding_rule"], "animus.harness:codex");
}
