//! MCP tools: the model calls `echo` in the namespace `mcp__e2e`, hooks see `mcp__e2e__echo`.
//! The server is this test binary (`--mcp-echo-server`), which logs every call it runs.

use serde_json::json;

use crate::driver::Sandbox;
use crate::fixtures::*;
use crate::mock_responses::Script;

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
    let (mock, outcome) = guarded_run(
        &sandbox,
        "codex-allowlist",
        &mcp_server_flags(&calls),
        script,
    );
    outcome.completed();
    let hi = assert_not_blocked(&mock, "call_hi");
    assert!(hi.contains("echo: hi"), "{hi}");
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
    assert_eq!(
        gate_record(&log, "PreToolUse", "call_shout")["decision"],
        "deny"
    );
}
