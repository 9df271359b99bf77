//! Tools beyond Bash: each reaches the gate with the input the real CLI sends, and a deny
//! blocks it while a sibling call to the same tool runs.

use std::fs;
use std::path::Path;
use test_support::assert_has;

use serde_json::json;

use crate::e2e::driver::Sandbox;
use crate::e2e::fixtures::*;
use crate::e2e::mock_api::{Block, MockApi, Script};

fn tools_run(sandbox: &Sandbox, extra: &[&str], script: Script) -> MockApi {
    let (mock, outcome) = guarded_run(sandbox, "e2e/gates.yaml", "tools", extra, script);
    outcome.completed();
    mock
}

pub fn write_deny_blocks_the_write() {
    let sandbox = Sandbox::new("write");
    let (allowed, blocked) = (
        sandbox.project.join("allowed.txt"),
        sandbox.project.join("blocked.txt"),
    );
    let write = |path: &Path| json!({"file_path": path, "content": "written by the e2e mock\n"});
    let script = Script::new()
        .tool_call("toolu_write_ok", "Write", write(&allowed))
        .tool_call("toolu_write_blocked", "Write", write(&blocked));
    let mock = tools_run(&sandbox, &["--allowedTools", "Write"], script);

    assert!(
        allowed.is_file(),
        "the allowed write ran: {:#?}",
        mock.tool_results()
    );
    assert!(!blocked.exists(), "the denied write did not run");
    assert_refused_result(
        &mock,
        "toolu_write_blocked",
        "Writing blocked.txt is denied (e2e).",
    );
    let log = sandbox.session_log();
    let pre = gate_record(&log, "PreToolUse", "toolu_write_blocked");
    assert_eq!(pre["decision"], "deny");
    assert_eq!(pre["payload"]["tool_input"], write(&blocked));
}

pub fn edit_deny_blocks_the_edit() {
    let sandbox = Sandbox::new("edit");
    let (notes, guarded) = (
        sandbox.project.join("notes.txt"),
        sandbox.project.join("guarded.txt"),
    );
    for path in [&notes, &guarded] {
        fs::write(path, "alpha\n").unwrap();
    }
    // The CLI refuses to edit a file it has not read in the session: read both first.
    let edit =
        |path: &Path| json!({"file_path": path, "old_string": "alpha", "new_string": "omega"});
    let script = Script::new()
        .turn(vec![
            Block::tool_use("toolu_read_notes", "Read", json!({"file_path": notes})),
            Block::tool_use("toolu_read_guarded", "Read", json!({"file_path": guarded})),
        ])
        .tool_call("toolu_edit_ok", "Edit", edit(&notes))
        .tool_call("toolu_edit_blocked", "Edit", edit(&guarded));
    let mock = tools_run(&sandbox, &["--allowedTools", "Read,Edit"], script);

    assert_eq!(
        fs::read_to_string(&notes).unwrap(),
        "omega\n",
        "the allowed edit ran: {:#?}",
        mock.tool_results()
    );
    assert_eq!(
        fs::read_to_string(&guarded).unwrap(),
        "alpha\n",
        "the denied edit did not run"
    );
    assert_refused_result(
        &mock,
        "toolu_edit_blocked",
        "Editing guarded.txt is denied (e2e).",
    );
    let log = sandbox.session_log();
    let pre = gate_record(&log, "PreToolUse", "toolu_edit_blocked");
    assert_eq!(pre["decision"], "deny");
    // The CLI fills in `replace_all` before hooks see the input.
    assert_eq!(
        pre["payload"]["tool_input"],
        json!({"file_path": guarded, "old_string": "alpha", "new_string": "omega", "replace_all": false})
    );
}

pub fn read_deny_keeps_the_content_from_the_model() {
    let sandbox = Sandbox::new("read");
    let (public, secret) = (
        sandbox.project.join("public.txt"),
        sandbox.project.join("secret.txt"),
    );
    fs::write(&public, "public-e2e-content\n").unwrap();
    fs::write(&secret, "TOPSECRET-e2e-content\n").unwrap();
    let script = Script::new()
        .tool_call("toolu_read_public", "Read", json!({"file_path": public}))
        .tool_call("toolu_read_secret", "Read", json!({"file_path": secret}));
    let mock = tools_run(&sandbox, &["--allowedTools", "Read"], script);

    assert_has(
        &mock.tool_result("toolu_read_public").text,
        "public-e2e-content",
    );
    assert_refused_result(
        &mock,
        "toolu_read_secret",
        "Reading secret.txt is denied (e2e).",
    );
    for request in mock.model_calls() {
        assert!(
            !request
                .body
                .as_ref()
                .unwrap()
                .to_string()
                .contains("TOPSECRET"),
            "the secret reached the model"
        );
    }
    let log = sandbox.session_log();
    let pre = gate_record(&log, "PreToolUse", "toolu_read_secret");
    assert_eq!(pre["decision"], "deny");
    assert_eq!(pre["payload"]["tool_input"], json!({"file_path": secret}));
}

pub fn mcp_tool_deny_blocks_the_call() {
    let sandbox = Sandbox::new("mcp");
    let calls = sandbox.scratch.root.join("mcp-calls.jsonl");
    let server = std::env::current_exe().unwrap();
    let mcp_config = json!({"mcpServers": {"e2e": {
        "command": server,
        "args": ["--mcp-echo-server", calls],
    }}})
    .to_string();
    let script = Script::new()
        .tool_call("toolu_echo_ok", "mcp__e2e__echo", json!({"text": "hello"}))
        .tool_call(
            "toolu_echo_blocked",
            "mcp__e2e__echo",
            json!({"text": "forbidden words"}),
        );
    let mock = tools_run(
        &sandbox,
        &[
            "--mcp-config",
            &mcp_config,
            "--allowedTools",
            "mcp__e2e__echo",
        ],
        script,
    );

    let received = fs::read_to_string(&calls).unwrap_or_default();
    assert_eq!(
        received.trim(),
        r#"{"text":"hello"}"#,
        "only the allowed call reached the server"
    );
    assert_has(&mock.tool_result("toolu_echo_ok").text, "echo: hello");
    let result = mock.tool_result("toolu_echo_blocked");
    assert!(
        result.is_error
            && result
                .text
                .contains("The e2e MCP server may not echo forbidden text."),
        "{result:#?}"
    );
    let log = sandbox.session_log();
    let pre = gate_record(&log, "PreToolUse", "toolu_echo_blocked");
    assert_eq!(pre["decision"], "deny");
    assert_eq!(pre["tool_name"], "mcp__e2e__echo");
    assert_eq!(
        pre["payload"]["tool_input"],
        json!({"text": "forbidden words"})
    );
}
