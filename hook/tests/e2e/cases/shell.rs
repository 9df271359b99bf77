//! Shell-aware matching on the real CLI (issue 17): an allow covers a command only when it
//! covers every segment, and then the hook abstains and the CLI grants the call from the same
//! entries (injected as its own `permissions`), with its own checks; a deny sees every segment
//! however it is spelled.

use std::fs;
use test_support::make_dir;
use test_support::records::assert_fields;

use crate::e2e::driver::Sandbox;
use crate::e2e::fixtures::*;
use crate::e2e::mock_api::Script;

const DEFAULT_DENY: &str =
    "Not allowed by this agent's tool policy (allowlist: unlisted tools are denied).";

pub fn covered_command_runs_through_claudes_own_permissions() {
    let sandbox = with_trade_script(Sandbox::new("covered"));
    // No `--allowedTools`: `./trade` is no read-only command the CLI runs unasked, and `-p`
    // cannot prompt. It runs only because the CLI's own permissions (written by inject from
    // the profile's allow list) grant it; the hook answers nothing.
    let script = Script::new().tool_call("toolu_paper", "Bash", bash("./trade --paper"));
    let (mock, outcome, tee) =
        guarded_run_teed(&sandbox, "e2e/gates.yaml", "shell-allowlist", script);
    outcome.completed();
    assert_eq!(
        tee.printed("PreToolUse", "toolu_paper"),
        "",
        "the hook printed nothing: the CLI's own permissions granted the call"
    );
    let result = mock.tool_result("toolu_paper");
    assert!(!result.is_error, "{result:#?}");
    assert_eq!(trades(&sandbox), ["--paper"]);
    let log = sandbox.session_log();
    let record = gate_record(&log, "PreToolUse", "toolu_paper");
    let rule = "tool_policy.allow:Bash(./trade --paper:*)";
    assert_fields(
        record,
        serde_json::json!({"decision": "allow", "left_to_harness": true, "deciding_rule": rule}),
    );
    assert!(
        records(&log, "PermissionRequest").is_empty(),
        "the CLI granted it from its own permissions without asking: {log:#?}"
    );
}

pub fn compound_command_with_an_uncovered_part_does_not_run() {
    let sandbox = with_trade_script(Sandbox::new("compound"));
    let script = Script::new()
        .tool_call("toolu_paper", "Bash", bash("./trade --paper"))
        .tool_call(
            "toolu_and",
            "Bash",
            bash("./trade --paper && ./trade --live"),
        )
        .tool_call("toolu_semi", "Bash", bash("./trade --paper; touch pwned"))
        .tool_call("toolu_sub", "Bash", bash("./trade --paper $(touch pwned2)"))
        .tool_call(
            "toolu_redirect",
            "Bash",
            bash("./trade --paper > orders.txt"),
        );
    let (mock, outcome) = guarded_run(&sandbox, "e2e/gates.yaml", "shell-allowlist", &[], script);
    for id in ["toolu_and", "toolu_semi", "toolu_sub", "toolu_redirect"] {
        assert_blocked_with(&outcome, &mock, id, DEFAULT_DENY);
        assert_decision(&sandbox.session_log(), "PreToolUse", id, "deny");
    }
    assert!(!mock.tool_result("toolu_paper").is_error);
    assert_eq!(trades(&sandbox), ["--paper"], "only the covered call ran");
    for marker in ["pwned", "pwned2", "orders.txt"] {
        assert!(
            !sandbox.project.join(marker).exists(),
            "{marker} was created"
        );
    }
}

pub fn quoted_deny_does_not_run() {
    let sandbox = with_trade_script(Sandbox::new("quoted-deny"));
    let spellings = [
        "./tr'a'de --li\"\"ve",
        "(./trade --live)",
        "./trade  --live;",
        "./trade\t--live",
        "echo ok && ./trade \\\n  --live",
        "bash -c './trade --live'",
    ];
    let mut script = Script::new().tool_call("toolu_paper", "Bash", bash("./trade --paper"));
    for (i, command) in spellings.iter().enumerate() {
        script = script.tool_call(&format!("toolu_live{i}"), "Bash", bash(command));
    }
    // `--allowedTools Bash` would run them all: only the hook stands in the way.
    let (mock, outcome) = guarded_run(
        &sandbox,
        "e2e/gates.yaml",
        "shell-denier",
        &["--allowedTools", "Bash"],
        script,
    );
    for i in 0..spellings.len() {
        assert_blocked_with(
            &outcome,
            &mock,
            &format!("toolu_live{i}"),
            "Denied by tool_policy.deny entry `Bash(* --live*)`.",
        );
    }
    assert!(!mock.tool_result("toolu_paper").is_error);
    assert_eq!(trades(&sandbox), ["--paper"], "no live order ran");
}

pub fn find_outside_project_is_refused_as_claude_refuses() {
    let sandbox = with_trade_script(Sandbox::new("find"));
    // Files a `find … -delete` the policy covers would remove, one outside the project (beside
    // it, in the test's scratch dir) and one inside: their survival shows the calls did not run.
    let outside_dir = make_dir(&sandbox.scratch.root, "outside");
    fs::write(outside_dir.join("victim.txt"), "keep me").unwrap();
    fs::write(sandbox.project.join("victim.txt"), "keep me").unwrap();
    let delete_outside = format!("find {} -name victim.txt -delete", outside_dir.display());
    let script = Script::new()
        .tool_call("toolu_inside", "Bash", bash("find . -name trade"))
        .tool_call("toolu_outside", "Bash", bash("find / -maxdepth 1 -name x"))
        .tool_call("toolu_delete_outside", "Bash", bash(&delete_outside))
        .tool_call(
            "toolu_delete_inside",
            "Bash",
            bash("find . -name victim.txt -delete"),
        )
        .tool_call(
            "toolu_exec",
            "Bash",
            bash("find . -name trade -exec touch pwned \\;"),
        );
    let (mock, outcome, tee) =
        guarded_run_teed(&sandbox, "e2e/gates.yaml", "shell-allowlist", script);
    outcome.completed();
    let inside = mock.tool_result("toolu_inside");
    assert!(!inside.is_error, "{inside:#?}");
    assert!(inside.text.contains("./trade"), "{inside:#?}");
    // `Bash(find:*)` covers both searches: the hook abstains on both, and the CLI's own
    // checks (it got the rule from inject as its own `permissions.allow`) refuse the search
    // outside the project.
    let outside = mock.tool_result("toolu_outside");
    assert!(outside.is_error, "{outside:#?}");
    // Observed on 2.1.328: "find in '/' was blocked. For security, Claude Code may only
    // search files in the allowed working directories for this session: '…/project'."
    assert!(
        outside.text.contains("was blocked") && !outside.text.contains("Not allowed by this agent"),
        "the CLI, not the hook, refused: {outside:#?}"
    );
    // A covered call with a side effect: `find … -delete` is covered by `Bash(find:*)` (no
    // `-exec`, so no segment of its own), the hook abstains, and the CLI's own check refuses
    // it — inside the project as well as outside. Observed on 2.1.328: "find with '-delete'
    // executes commands or modifies files — cannot be auto-allowed by a Bash(find:*) prefix
    // rule". Both files survive.
    for (id, victim) in [
        ("toolu_delete_outside", outside_dir.join("victim.txt")),
        ("toolu_delete_inside", sandbox.project.join("victim.txt")),
    ] {
        let result = mock.tool_result(id);
        assert!(result.is_error, "{result:#?}");
        assert!(
            result.text.contains("-delete") && !result.text.contains("Not allowed by this agent"),
            "the CLI, not the hook, refused: {result:#?}"
        );
        assert!(victim.exists(), "{id} ran");
    }
    // `-exec touch …` runs `touch`, a segment of its own that no allow entry covers: the hook
    // denies it (the policy default), whatever the CLI would have made of it.
    assert_blocked_with(&outcome, &mock, "toolu_exec", DEFAULT_DENY);
    assert!(!sandbox.project.join("pwned").exists(), "-exec ran");
    let log = sandbox.session_log();
    for id in [
        "toolu_inside",
        "toolu_outside",
        "toolu_delete_outside",
        "toolu_delete_inside",
    ] {
        let record = gate_record(&log, "PreToolUse", id);
        assert_eq!(record["decision"], "allow", "{id}");
        assert_eq!(record["left_to_harness"], true, "{id}");
        assert_eq!(
            tee.printed("PreToolUse", id),
            "",
            "{id}: the hook abstained"
        );
    }
    assert_decision(&log, "PreToolUse", "toolu_exec", "deny");
    // Observed: for each call its own checks refused, the CLI then asked the PermissionRequest
    // hook. The policy covers them all (decision allow), and the hook printed nothing: an
    // answer of allow here would have run them past the CLI's checks.
    let asked = records(&log, "PermissionRequest");
    assert_eq!(asked.len(), 3, "{log:#?}");
    for record in asked {
        assert_eq!(record["decision"], "allow", "{record:#?}");
        assert_eq!(record["left_to_harness"], true, "{record:#?}");
    }
    let permission_calls = tee.calls("PermissionRequest");
    assert_eq!(permission_calls.len(), 3);
    for (payload, printed) in permission_calls {
        assert_eq!(printed, "", "the hook abstained: {payload:#?}");
    }
}
