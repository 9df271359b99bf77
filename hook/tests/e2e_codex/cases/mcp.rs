//! MCP tools: the model calls `echo` in the namespace `mcp__e2e`, hooks see `mcp__e2e__echo`.
//! The server is this test binary (`--mcp-echo-server`), which logs every call it runs.

use serde_json::json;

use crate::driver::Sandbox;
use crate::fixtures::*;
use crate::mock_responses::Script;
use test_support::assert_has;

pub fn mcp_call_is_gated() {
    let sandbox = Sandbox::new("mcp");
    let calls = sandbox.scratch.root.join("mcp-calls.jsonl");
    let script = Script::new()
        .mcp("call_hi", "e2e", "echo", json!({"text": "hi"}))
        .mcp(
            "call_forbidden",
            "e2e",
            "echo",
            json!({"text": "forbidden words"}),
        )
        .mcp("call_shout", "e2e", "shout", json!({"text": "loud"}));
    let flags = mcp_server_flags(&calls, true);
    let (mock, outcome) = guarded_run(&sandbox, "codex-allowlist", &flags, script);
    outcome.completed();
    let hi = assert_not_blocked(&mock, "call_hi");
    assert_has(&hi, "echo: hi");
    let forbidden = assert_blocked(
        &mock,
        "call_forbidden",
        "The e2e MCP server may not echo forbidden text (codex e2e).",
    );
    assert!(forbidden.ends_with("Tool: mcp__e2e__echo"), "{forbidden}");
    // `shout` is not on the allowlist.
    assert_blocked(&mock, "call_shout", DEFAULT_DENY);
    assert_eq!(
        mcp_calls(&calls),
        [json!({"text": "hi"})],
        "only the allowed call reached the server"
    );

    let log = sandbox.session_log();
    let hi = gate_record(&log, "PreToolUse", "call_hi");
    assert_eq!(hi["tool_name"], "mcp__e2e__echo");
    assert_eq!(hi["decision"], "allow");
    assert_eq!(
        gate_record(&log, "PreToolUse", "call_forbidden")["deciding_rule"],
        "e2e-codex-no-forbidden-echo"
    );
    assert_decision(&log, "PreToolUse", "call_shout", "deny");
}

/// Without advance approval, Codex asks the PermissionRequest hooks (after PreToolUse let the
/// call through). Our gate denies there when a rule says so; otherwise it abstains (it never
/// answers allow) and Codex refuses the call itself, as `exec` has nobody to ask.
pub fn mcp_permission_request_reaches_the_gate() {
    let sandbox = with_trade_script(Sandbox::new("mcp-permission"));
    let calls = sandbox.scratch.root.join("mcp-calls.jsonl");
    let script = Script::new()
        .mcp(
            "call_signoff",
            "e2e",
            "echo",
            json!({"text": "needs-sign-off"}),
        )
        .mcp("call_hi", "e2e", "echo", json!({"text": "hi"}))
        .exec("call_paper", "./trade --paper");
    let flags = mcp_server_flags(&calls, false);
    let (mock, outcome) = guarded_run(&sandbox, "codex-allowlist", &flags, script);
    outcome.completed();
    let signoff = mock.tool_output("call_signoff").text;
    assert_has(
        &signoff,
        "This echo needs the desk's sign-off (codex e2e PermissionRequest deny).",
    );
    let hi = mock.tool_output("call_hi").text;
    assert!(
        hi.contains("requires approval"),
        "Codex refused it itself: {hi}"
    );
    assert!(!hi.contains("sign-off"), "{hi}");
    assert!(
        mcp_calls(&calls).is_empty(),
        "no MCP call ran: {:?}",
        mcp_calls(&calls)
    );
    // The control: this session runs what it may.
    assert_not_blocked(&mock, "call_paper");
    assert_eq!(trades(&sandbox), ["--paper"]);

    let log = sandbox.session_log();
    for call in ["call_signoff", "call_hi"] {
        let pre = gate_record(&log, "PreToolUse", call);
        assert_eq!(pre["decision"], "allow", "{pre:#}");
        assert_eq!(pre["left_to_harness"], true, "{pre:#}");
    }
    // PermissionRequest payloads carry no tool_use_id: match them by input.
    let permission: Vec<_> = records(&log, "PermissionRequest")
        .into_iter()
        .map(|r| {
            (
                r["payload"]["tool_input"]["text"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                r["decision"].as_str().unwrap_or_default().to_owned(),
                r["gate"].clone(),
            )
        })
        .collect();
    assert_eq!(
        permission,
        [
            ("needs-sign-off".to_owned(), "deny".to_owned(), json!(true)),
            ("hi".to_owned(), "allow".to_owned(), json!(true)),
        ],
        "{log:#?}"
    );
}
