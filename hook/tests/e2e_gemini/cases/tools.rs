//! File tools and MCP: `write_file` and `replace` outside the allowed path are blocked (and a
//! `..` does not stretch the path), inside they run; an MCP call is gated by its canonical
//! name and input.

use std::fs;
use test_support::make_dir;

use serde_json::json;

use crate::e2e_gemini::driver::Sandbox;
use crate::e2e_gemini::fixtures::*;
use crate::e2e_gemini::mock_gemini::Script;

pub fn edit_outside_the_allowed_path_is_blocked() {
    let sandbox = Sandbox::new("edit-paths");
    let src = make_dir(&sandbox.project, "src");
    fs::write(src.join("inside.txt"), "old inside\n").unwrap();
    fs::write(sandbox.project.join("outside.txt"), "old outside\n").unwrap();
    let replace = |path: &str, old: &str| json!({"file_path": path, "old_string": old, "new_string": "new", "instruction": "e2e"});
    let script = Script::new()
        .call(
            "write_file",
            json!({"file_path": "src/written.txt", "content": "ok\n"}),
        )
        .call(
            "write_file",
            json!({"file_path": "notes.txt", "content": "no\n"}),
        )
        .call(
            "write_file",
            json!({"file_path": "src/../escaped.txt", "content": "no\n"}),
        )
        .call("replace", replace("src/inside.txt", "old inside"))
        .call("replace", replace("outside.txt", "old outside"))
        .call(
            "replace",
            replace(
                sandbox.project.join("src/../outside.txt").to_str().unwrap(),
                "old outside",
            ),
        );
    let (mock, _) = guarded_run(&sandbox, &gemini_profile(), "gemini", script);
    assert!(
        mock.response(0)["output"]
            .as_str()
            .is_some_and(|o| o.contains("written.txt")),
        "the write under src/ ran: {:#?}",
        mock.response(0)
    );
    assert_eq!(fs::read_to_string(src.join("written.txt")).unwrap(), "ok\n");
    for (index, path) in [(1, "notes.txt"), (2, "escaped.txt")] {
        assert_blocked_with(&mock, index, UNLISTED);
        assert!(!sandbox.project.join(path).exists(), "{path} was written");
    }
    assert!(
        mock.error(3).is_none(),
        "the edit under src/ ran: {:#?}",
        mock.response(3)
    );
    assert_eq!(fs::read_to_string(src.join("inside.txt")).unwrap(), "new\n");
    assert_blocked_with(&mock, 4, UNLISTED);
    assert_blocked_with(&mock, 5, UNLISTED);
    assert_eq!(
        fs::read_to_string(sandbox.project.join("outside.txt")).unwrap(),
        "old outside\n",
        "the file outside src/ was edited"
    );
    let log = sandbox.session_log();
    assert_decision(&log, "file_path", "notes.txt", "deny");
    assert_decision(&log, "file_path", "src/inside.txt", "allow");
}

/// The suite's own binary is the MCP server (`--mcp-echo-server`), named `e2e` in the user
/// settings: Gemini calls its tools `mcp_e2e_echo` and `mcp_e2e_shout`.
pub fn mcp_call_is_gated() {
    let sandbox = Sandbox::new("mcp");
    let calls_file = sandbox.scratch.root.join("mcp-calls.jsonl");
    sandbox.user_settings(json!({"mcpServers": {"e2e": {
        "command": std::env::current_exe().unwrap(),
        "args": ["--mcp-echo-server", calls_file],
        "trust": false,
    }}}));
    let script = Script::new()
        .call("mcp_e2e_echo", json!({"text": "hello"}))
        .call("mcp_e2e_echo", json!({"text": "forbidden words"}))
        .call("mcp_e2e_shout", json!({"text": "not on the allowlist"}));
    let (mock, _) = guarded_run(&sandbox, &gemini_profile(), "gemini", script);
    assert!(
        mock.response(0).to_string().contains("echo: hello"),
        "the allowed MCP call ran: {:#?}",
        mock.response(0)
    );
    assert_blocked_with(&mock, 1, "The e2e MCP server may not echo forbidden text.");
    assert_blocked_with(&mock, 2, UNLISTED);
    let calls = fs::read_to_string(&calls_file).unwrap_or_default();
    assert_eq!(
        calls.lines().collect::<Vec<_>>(),
        [r#"{"text":"hello"}"#],
        "only the allowed call reached the server"
    );
    let log = sandbox.session_log();
    let denied = gate_record(&log, "text", "forbidden words");
    assert_eq!(denied["decision"], "deny", "{denied:#}");
    assert_eq!(
        denied["deciding_rule"], "e2e-no-forbidden-echo",
        "{denied:#}"
    );
    assert_eq!(denied["tool_name"], "mcp_e2e_echo", "{denied:#}");
}
