//! Each decision the hook can give, and what the real CLI does with it.

use std::fs;

use serde_json::json;

use crate::e2e::driver::Sandbox;
use crate::e2e::fixtures::*;
use crate::e2e::mock_api::Script;

pub fn deny_trader_live_order_does_not_run() {
    let sandbox = Sandbox::new("deny");
    let script = Script::new()
        .tool_call("toolu_paper", "Bash", bash("./trade --paper"))
        .tool_call("toolu_live", "Bash", bash("./trade --live"));
    // `--allowedTools Bash` would let both calls run: only the hook stands in the way.
    let (mock, outcome) = trader_run(&sandbox, script);

    assert_blocked_with(
        &outcome,
        &mock,
        "toolu_live",
        "Denied by tool_policy.deny entry `Bash(* --live*)`.",
    );
    assert_eq!(
        trades(&sandbox),
        ["--paper"],
        "the paper order runs, the live one does not"
    );
    assert!(!mock.tool_result("toolu_paper").is_error);
    let log = sandbox.session_log();
    let live = gate_record(&log, "PreToolUse", "toolu_live");
    assert_eq!(live["decision"], "deny");
    assert_eq!(
        live["matched_rules"],
        json!(["tool_policy.deny:Bash(* --live*)"])
    );
    assert_eq!(
        live["evaluator"], "sidecar (verified by stamp)",
        "the hook decided from the sidecar inject wrote, trusting its stamp"
    );
}

pub fn allow_allowlisted_command_runs_without_allowed_tools() {
    let sandbox = Sandbox::new("allow");
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&sandbox.project)
        .status()
        .expect("git is installed");
    assert!(git.success());
    // Issue 17 changed this test. Before, the hook answered `allow` for `git status >
    // status.txt` and the CLI ran it. Now `Bash(git status*)` covers plain `git status`: the
    // hook prints nothing (it never answers allow), and the CLI runs the call because `inject`
    // wrote the same entry into the session settings as the CLI's own `permissions.allow`
    // (there is no `--allowedTools` here). The redirected form is no longer covered (a
    // redirection to a file never is): the policy default of this allowlist, deny, applies —
    // stricter than the CLI — and no file appears.
    let script = Script::new()
        .tool_call("toolu_status", "Bash", bash("git status"))
        .tool_call("toolu_redirect", "Bash", bash("git status > status.txt"));
    let (mock, outcome, tee) = guarded_run_teed(&sandbox, "allowlist.yaml", "reviewer", script);

    outcome.completed();
    let result = mock.tool_result("toolu_status");
    assert!(!result.is_error, "{result:#?}");
    assert!(result.text.contains("On branch"), "{result:#?}");
    assert_blocked_with(
        &outcome,
        &mock,
        "toolu_redirect",
        "Not allowed by this agent's tool policy",
    );
    assert!(!sandbox.project.join("status.txt").exists());
    let log = sandbox.session_log();
    let status = gate_record(&log, "PreToolUse", "toolu_status");
    assert_eq!(status["decision"], "allow");
    assert_eq!(status["left_to_harness"], true);
    assert_eq!(
        tee.printed("PreToolUse", "toolu_status"),
        "",
        "the hook abstained"
    );
    let redirect = gate_record(&log, "PreToolUse", "toolu_redirect");
    assert_eq!(redirect["decision"], "deny");
    assert_eq!(redirect["left_to_harness"], false);
    assert!(
        tee.printed("PreToolUse", "toolu_redirect")
            .contains("\"deny\""),
        "the hook answered deny"
    );
    assert!(
        records(&log, "PermissionRequest").is_empty(),
        "the CLI granted `git status` from its own permissions without asking: {log:#?}"
    );
}

pub fn defer_leaves_the_decision_to_the_cli() {
    // The trader profile neither denies nor allows a paper order: the hook abstains, and the
    // CLI's own permission flow decides — yes with `--allowedTools`, no without.
    let script = || Script::new().tool_call("toolu_paper", "Bash", bash("./trade --paper"));

    let permitted = Sandbox::new("defer-permitted");
    install_trade_script(&permitted);
    let (mock, outcome) = guarded_run(
        &permitted,
        "trader.yaml",
        "trader",
        &["--allowedTools", "Bash(./trade *)"],
        script(),
    );
    outcome.completed();
    assert!(!mock.tool_result("toolu_paper").is_error);
    assert_eq!(trades(&permitted), ["--paper"]);
    assert_decision(
        &permitted.session_log(),
        "PreToolUse",
        "toolu_paper",
        "defer",
    );

    let refused = Sandbox::new("defer-refused");
    install_trade_script(&refused);
    let (mock, outcome) = guarded_run(&refused, "trader.yaml", "trader", &[], script());
    outcome.completed();
    let result = mock.tool_result("toolu_paper");
    assert!(result.is_error, "{result:#?}");
    assert!(
        !result.text.contains("animus"),
        "the CLI, not the hook, refused: {result:#?}"
    );
    assert!(trades(&refused).is_empty());
    let log = refused.session_log();
    assert_decision(&log, "PreToolUse", "toolu_paper", "defer");
    let asked = records(&log, "PermissionRequest");
    assert_eq!(
        asked.len(),
        1,
        "the CLI asked its PermissionRequest hook: {log:#?}"
    );
    assert_eq!(asked[0]["decision"], "defer");
}

pub fn ask_blocks_in_print_mode_with_the_reason() {
    let sandbox = with_trade_script(Sandbox::new("ask"));
    let script = Script::new()
        .tool_call("toolu_small", "Bash", bash("./trade --size small"))
        .tool_call("toolu_big", "Bash", bash("./trade --size big"));
    let (mock, outcome) = guarded_run(
        &sandbox,
        "e2e/gates.yaml",
        "asker",
        &["--allowedTools", "Bash"],
        script,
    );

    assert_blocked_with(
        &outcome,
        &mock,
        "toolu_big",
        "Big orders need a human to confirm (e2e ask).",
    );
    assert_eq!(trades(&sandbox), ["--size small"]);
    assert_decision(&sandbox.session_log(), "PreToolUse", "toolu_big", "ask");
}

pub fn permission_request_deny_is_obeyed() {
    let sandbox = with_trade_script(Sandbox::new("permission-deny"));
    let script = Script::new().tool_call("toolu_order", "Bash", bash("./trade --paper"));
    let (mock, outcome) = guarded_run(&sandbox, "e2e/gates.yaml", "permission-denier", &[], script);

    assert_blocked_with(
        &outcome,
        &mock,
        "toolu_order",
        "Orders need the desk's sign-off (e2e PermissionRequest deny).",
    );
    assert!(trades(&sandbox).is_empty());
    let log = sandbox.session_log();
    assert_decision(&log, "PreToolUse", "toolu_order", "defer");
    let asked = records(&log, "PermissionRequest");
    assert_eq!(asked.len(), 1, "{log:#?}");
    assert_eq!(asked[0]["decision"], "deny");
    assert_eq!(
        asked[0]["payload"]["tool_input"]["command"],
        "./trade --paper"
    );
}

pub fn permission_request_never_grants_past_a_user_ask_rule() {
    let sandbox = with_trade_script(Sandbox::new("permission-allow"));
    // The profile allows `./trade …`, and the user has an `ask` rule for it. The hook never
    // answers allow — not at PreToolUse, not at PermissionRequest — so the user's ask rule
    // stands: the CLI asks, nobody can answer in `-p`, and the call is refused. (When the hook
    // answered allow at PermissionRequest, it granted past the user's own rule.)
    fs::create_dir_all(sandbox.home.join(".claude")).unwrap();
    fs::write(
        sandbox.home.join(".claude/settings.json"),
        json!({"permissions": {"ask": ["Bash(./trade *)"]}}).to_string(),
    )
    .unwrap();
    let script = Script::new().tool_call("toolu_order", "Bash", bash("./trade --paper"));
    let (mock, outcome, tee) =
        guarded_run_teed(&sandbox, "e2e/gates.yaml", "permission-allower", script);

    outcome.completed();
    let result = mock.tool_result("toolu_order");
    assert!(result.is_error, "{result:#?}");
    assert!(trades(&sandbox).is_empty());
    let log = sandbox.session_log();
    let pre = gate_record(&log, "PreToolUse", "toolu_order");
    assert_eq!(pre["decision"], "allow");
    assert_eq!(pre["left_to_harness"], true);
    let asked = records(&log, "PermissionRequest");
    assert_eq!(
        asked.len(),
        1,
        "the user's ask rule made the CLI ask: {log:#?}"
    );
    assert_eq!(asked[0]["decision"], "allow");
    assert_eq!(asked[0]["left_to_harness"], true);
    // Nothing printed at either event: no allow the CLI could obey.
    assert_eq!(tee.printed("PreToolUse", "toolu_order"), "");
    let permission_calls = tee.calls("PermissionRequest");
    assert_eq!(permission_calls.len(), 1);
    assert_eq!(
        permission_calls[0].1, "",
        "the hook abstained at PermissionRequest"
    );
}
