//! `run_shell_command`: a denied command does not run and the model is told why; a deferred or
//! allowed one runs (and is the control that the fixture works).

use crate::e2e_gemini::driver::Sandbox;
use crate::e2e_gemini::fixtures::*;
use crate::e2e_gemini::mock_gemini::Script;

/// The spec's trader profile (deny-list, default defer): a paper order is deferred to the
/// CLI, which runs it; a live order is denied by the kernel guardrail.
pub fn shell_deny_does_not_run_and_the_model_sees_the_reason() {
    let sandbox = with_trade_script(Sandbox::new("shell-deny"));
    let script = Script::new()
        .call("run_shell_command", shell("./trade --paper"))
        .call("run_shell_command", shell("./trade --live --size 1"));
    let (mock, _) = trader_run(&sandbox, script);
    assert_ran_with(&mock, 0, "traded: --paper");
    assert_blocked_with(
        &mock,
        1,
        "Denied by tool_policy.deny entry `Bash(* --live*)`.",
    );
    assert_eq!(trades(&sandbox), ["--paper"], "only the paper order ran");

    let log = sandbox.session_log();
    let paper = gate_record(&log, "command", "./trade --paper");
    assert_eq!(paper["decision"], "defer", "{paper:#}");
    assert_eq!(paper["left_to_harness"], true, "{paper:#}");
    let live = gate_record(&log, "command", "./trade --live --size 1");
    assert_eq!(live["decision"], "deny", "{live:#}");
    assert_eq!(
        live["deciding_rule"], "tool_policy.deny:Bash(* --live*)",
        "{live:#}"
    );
}

/// An allowlist (default deny): a covered command is abstained on and runs; an uncovered one,
/// and a compound command with an uncovered part, get the default deny and do not run; the
/// explicit deny keeps its reason.
pub fn allowlist_runs_covered_commands_only() {
    let sandbox = with_trade_script(Sandbox::new("allowlist"));
    let script = Script::new()
        .call("run_shell_command", shell("./trade --paper --size 1"))
        .call("run_shell_command", shell("./trade --size 2"))
        .call(
            "run_shell_command",
            shell("./trade --paper --size 3 && ./trade --size 4"),
        )
        .call("run_shell_command", shell("./trade --paper --live"));
    let (mock, _) = guarded_run(&sandbox, &gemini_profile(), "gemini", script);
    assert_ran_with(&mock, 0, "traded: --paper --size 1");
    assert_blocked_with(&mock, 1, UNLISTED);
    assert_blocked_with(&mock, 2, UNLISTED);
    assert_blocked_with(
        &mock,
        3,
        "Denied by tool_policy.deny entry `Bash(* --live*)`.",
    );
    assert_eq!(
        trades(&sandbox),
        ["--paper --size 1"],
        "only the covered order ran"
    );

    let log = sandbox.session_log();
    let covered = gate_record(&log, "command", "./trade --paper --size 1");
    assert_eq!(covered["decision"], "allow", "{covered:#}");
    for command in [
        "./trade --size 2",
        "./trade --paper --size 3 && ./trade --size 4",
    ] {
        assert_eq!(gate_record(&log, "command", command)["decision"], "deny");
    }
}

/// Two calls in one model turn (Gemini runs them as a batch): each is gated on its own, the
/// denied one does not run, the other does, and both records are whole lines.
pub fn parallel_calls_in_one_turn_are_gated_each() {
    let sandbox = with_trade_script(Sandbox::new("parallel"));
    let script = Script::new().parallel(&[
        ("run_shell_command", shell("./trade --live --size 9")),
        ("run_shell_command", shell("./trade --paper --size 5")),
    ]);
    let (mock, _) = trader_run(&sandbox, script);
    assert_blocked_with(
        &mock,
        0,
        "Denied by tool_policy.deny entry `Bash(* --live*)`.",
    );
    assert_ran_with(&mock, 1, "traded: --paper --size 5");
    assert_eq!(trades(&sandbox), ["--paper --size 5"]);
    let log = sandbox.session_log();
    assert_decision(&log, "command", "./trade --live --size 9", "deny");
    assert_decision(&log, "command", "./trade --paper --size 5", "defer");
}
