//! Decisions on the real CLI: a deny, a defer and an ask on the shell, an edit outside the
//! allowed paths, a read deny, an MCP call, what the session log records, and `--pure`.

use std::fs;

use serde_json::json;

use super::driver::Sandbox;
use super::fixtures::*;
use super::mock::Script;
use test_support::assert_has;

/// What every plugin block starts with when the hook could not give an answer.
pub const FAIL_CLOSED: &str =
    "animus-hook could not decide this call, so it is blocked (fail closed): ";

pub fn denied_command_does_not_run_and_the_model_sees_why() {
    let sandbox = with_trade_script(Sandbox::new("decisions"));
    let script = Script::new()
        .call("call_paper", "bash", bash("./trade --paper"))
        .call("call_live", "bash", bash("./trade --live --size 1"))
        .call("call_big", "bash", bash("./trade --paper --size big"))
        .final_text("decisions done");
    let (mock, outcome) = guarded_run(&sandbox, "guard", script);

    // Deferred: the hook abstains, opencode runs it, the model gets its output.
    assert_eq!(decided(&sandbox, "call_paper").0, "defer");
    assert_eq!(mock.tool_message("call_paper"), "traded: --paper\n");
    // Denied: not run, the reason (the plugin's throw) is the tool's result, verbatim.
    let reason = assert_denied(&sandbox, &mock, "call_live");
    assert_eq!(
        reason,
        "Denied by tool_policy.deny entry `Bash(* --live*)`."
    );
    assert!(outcome.stderr.contains(&reason), "{outcome:#?}");
    // An ask (recorded as the policy decided it) reaches opencode as a deny (a plugin cannot
    // ask) whose reason names the human.
    let (decision, rule, reason) = decided(&sandbox, "call_big");
    assert_eq!(
        (decision.as_str(), rule.as_str()),
        ("ask", "e2e-oc-ask-big-orders")
    );
    assert_eq!(
        mock.tool_message("call_big"),
        format!(
            "{reason} (the policy asks a human to approve this call, and opencode cannot ask: \
             a human must run it)"
        )
    );
    assert_eq!(trades(&sandbox), ["--paper"], "only the deferred order ran");
}

pub fn records_every_gate_and_observer_event() {
    let sandbox = with_trade_script(Sandbox::new("records"));
    let script = Script::new()
        .call("call_paper", "bash", bash("./trade --paper"))
        .call("call_live", "bash", bash("./trade --live"))
        .final_text("records done");
    let (mock, _) = guarded_run(&sandbox, "guard", script);
    assert_eq!(trades(&sandbox), ["--paper"]);
    assert_denied(&sandbox, &mock, "call_live");

    let log = sandbox.session_log();
    let events = test_support::records::events(&log);
    for record in &log {
        assert_eq!(record["session"], sandbox.session_id.as_str(), "{record:#}");
        assert_eq!(record["harness"], "opencode", "{record:#}");
    }
    // The gate, on every call, with the call's arguments and the decision.
    let paper = record(&log, "tool.execute.before", "call_paper");
    assert_eq!(paper["gate"], true);
    assert_eq!(paper["tool_name"], "bash");
    assert_eq!(paper["payload"]["tool_input"]["command"], "./trade --paper");
    assert_eq!(
        paper["payload"]["cwd"],
        sandbox.project.display().to_string()
    );
    assert!(
        paper["payload"]["session_id"]
            .as_str()
            .is_some_and(|s| s.starts_with("ses_")),
        "the payload carries opencode's own session id: {paper:#}"
    );
    assert_decision(&log, "tool.execute.before", "call_live", "deny");
    // The observer after a call that ran (a blocked call has none), with its arguments and
    // result.
    let after = record(&log, "tool.execute.after", "call_paper");
    assert_eq!(after["gate"], false);
    assert_eq!(after["payload"]["tool_input"]["command"], "./trade --paper");
    assert_eq!(
        after["payload"]["tool_response"]["output"],
        "traded: --paper\n"
    );
    assert_eq!(records(&log, "tool.execute.after").len(), 1, "{events:?}");
    // The session going idle at the end.
    assert!(!records(&log, "session.idle").is_empty(), "{events:?}");
    let position = |event: &str, id: &str| {
        log.iter()
            .position(|r| r["event"] == event && r["tool_use_id"] == id)
            .unwrap()
    };
    assert!(
        position("tool.execute.before", "call_paper")
            < position("tool.execute.after", "call_paper")
    );
    assert!(
        position("tool.execute.after", "call_paper") < position("tool.execute.before", "call_live")
    );
    assert_eq!(events.last(), Some(&"session.idle"), "{events:?}");
}

pub fn edit_outside_the_allowed_path_is_blocked() {
    let sandbox = Sandbox::new("edits");
    let p = sandbox.project.display().to_string();
    fs::create_dir_all(sandbox.project.join("src")).unwrap();
    fs::create_dir_all(sandbox.project.join("lib")).unwrap();
    fs::write(sandbox.project.join("src/a.txt"), "alpha\n").unwrap();
    fs::write(sandbox.project.join("notes.txt"), "notes\n").unwrap();
    let outside = sandbox.scratch.root.join("outside.txt");
    let read = |path: String| json!({"filePath": path});
    let edit = |path: String, old: &str, new: &str| json!({"filePath": path, "oldString": old, "newString": new});
    let write = |path: String| json!({"filePath": path, "content": "written by the e2e mock\n"});
    let script = Script::new()
        .call("call_read_a", "read", read(format!("{p}/src/a.txt")))
        .call(
            "call_edit_a",
            "edit",
            edit(format!("{p}/src/a.txt"), "alpha", "ALPHA"),
        )
        .call("call_read_notes", "read", read(format!("{p}/notes.txt")))
        .call(
            "call_edit_notes",
            "edit",
            edit(format!("{p}/notes.txt"), "notes", "NOTES"),
        )
        .call("call_write_new", "write", write(format!("{p}/src/new.txt")))
        .call(
            "call_write_dotdot",
            "write",
            write(format!("{p}/src/../lib/x.txt")),
        )
        .call(
            "call_write_outside",
            "write",
            write(outside.display().to_string()),
        )
        .final_text("edits done");
    let (mock, _) = guarded_run(&sandbox, "editor", script);

    // Inside `src/`: covered by `Edit(src/**)`, the hook abstains and opencode edits.
    assert_eq!(decided(&sandbox, "call_edit_a").0, "allow");
    assert_eq!(
        fs::read_to_string(sandbox.project.join("src/a.txt")).unwrap(),
        "ALPHA\n",
        "the covered edit ran: {:#?}",
        mock.tool_messages()
    );
    assert_eq!(decided(&sandbox, "call_write_new").0, "allow");
    assert!(sandbox.project.join("src/new.txt").is_file());
    // Outside it: the allowlist's default denies, and nothing changes.
    assert_denied(&sandbox, &mock, "call_edit_notes");
    assert_eq!(
        fs::read_to_string(sandbox.project.join("notes.txt")).unwrap(),
        "notes\n"
    );
    // `src/../lib/x.txt` is `lib/x.txt`: not covered.
    assert_denied(&sandbox, &mock, "call_write_dotdot");
    assert!(!sandbox.project.join("lib/x.txt").exists());
    // Outside the project. (The gate runs before opencode's own external_directory check,
    // whose headless auto-reject would end the session: here the session goes on.)
    assert_denied(&sandbox, &mock, "call_write_outside");
    assert!(!outside.exists());
}

pub fn read_deny_keeps_the_content_from_the_model() {
    let sandbox = Sandbox::new("reads");
    let p = sandbox.project.display().to_string();
    fs::write(sandbox.project.join("public.txt"), "PUBLIC-e2e\n").unwrap();
    fs::write(sandbox.project.join("secret.txt"), "SECRET-e2e\n").unwrap();
    let script = Script::new()
        .call(
            "call_public",
            "read",
            json!({"filePath": format!("{p}/public.txt")}),
        )
        .call(
            "call_secret",
            "read",
            json!({"filePath": format!("{p}/secret.txt")}),
        )
        .final_text("reads done");
    let (mock, _) = guarded_run(&sandbox, "guard", script);
    assert!(
        mock.tool_message("call_public").contains("PUBLIC-e2e"),
        "the allowed read reached the model: {:#?}",
        mock.tool_messages()
    );
    let reason = assert_denied(&sandbox, &mock, "call_secret");
    assert_has(&reason, "Read(./secret.txt)");
    assert!(
        !mock.model_saw("SECRET-e2e"),
        "the secret reached the model"
    );
}

pub fn mcp_tool_call_is_gated() {
    let mut sandbox = Sandbox::new("mcp");
    let calls = sandbox.scratch.root.join("mcp-calls.jsonl");
    let server = std::env::current_exe().unwrap();
    sandbox.mcp = json!({"e2e": {
        "type": "local",
        "command": [server.display().to_string(), "--mcp-echo-server", calls.display().to_string()],
        "enabled": true,
    }});
    let script = Script::new()
        .call("call_hello", "e2e_echo", json!({"text": "hello"}))
        .call(
            "call_forbidden",
            "e2e_echo",
            json!({"text": "forbidden words"}),
        )
        .final_text("mcp done");
    let (mock, _) = guarded_run(&sandbox, "guard", script);
    assert!(
        mock.offered_tools().iter().any(|t| t == "e2e_echo"),
        "opencode offers the MCP tool as <server>_<tool>: {:?}",
        mock.offered_tools()
    );
    assert_eq!(mock.tool_message("call_hello"), "echo: hello");
    let reason = assert_denied(&sandbox, &mock, "call_forbidden");
    assert_eq!(reason, "The e2e MCP server may not echo forbidden text.");
    let ran = fs::read_to_string(&calls).unwrap_or_default();
    assert_eq!(
        ran.lines().collect::<Vec<_>>(),
        [r#"{"text":"hello"}"#],
        "only the allowed call reached the server"
    );
    let log = sandbox.session_log();
    assert_eq!(
        record(&log, "tool.execute.before", "call_forbidden")["deciding_rule"],
        "e2e-oc-no-forbidden-echo"
    );
}

/// `--pure` (and `OPENCODE_PURE=1`, which is all the flag sets) starts opencode without any
/// external plugin, the guard included: a denied command runs and nothing is recorded. The
/// launcher must own opencode's arguments and environment (a residual risk, documented).
pub fn pure_mode_runs_without_the_guard() {
    for (name, extra, env) in [
        ("pure-flag", &["--pure"][..], &[][..]),
        ("pure-env", &[][..], &[("OPENCODE_PURE", "1")][..]),
    ] {
        let sandbox = with_trade_script(Sandbox::new(name));
        let launch = sandbox.inject(&profile(), "guard", extra, None);
        let script = Script::new()
            .call("call_live", "bash", bash("./trade --live --size 1"))
            .final_text("pure done");
        let (mock, _) = run(&sandbox, &launch, script, env);
        assert_eq!(
            trades(&sandbox),
            ["--live --size 1"],
            "{name}: the denied order ran unguarded"
        );
        assert_eq!(mock.tool_message("call_live"), "traded: --live --size 1\n");
        assert!(
            sandbox.session_log().is_empty(),
            "{name}: the guard never ran"
        );
    }
}

/// The agent cannot reach the files that load or configure the guard: the project's
/// `.opencode/` (a plugin there would run in-process, before ours) and `opencode.json`, and
/// the session's own plugin (outside the project: the gate answers before opencode's
/// external-directory check, whose headless auto-reject would end the session).
pub fn self_protection_keeps_the_agent_off_opencode_config() {
    let sandbox = Sandbox::new("self-protection");
    let p = sandbox.project.display().to_string();
    let write = |path: String| json!({"filePath": path, "content": "// written by the e2e mock\n"});
    let script = Script::new()
        .call("call_ok", "write", write(format!("{p}/ok.txt")))
        .call(
            "call_plugin",
            "write",
            write(format!("{p}/.opencode/plugins/evil.js")),
        )
        .call("call_config", "write", write(format!("{p}/opencode.json")))
        .call(
            "call_guard",
            "write",
            write(sandbox.plugin_path().display().to_string()),
        )
        .final_text("protection done");
    let (mock, _) = guarded_run(&sandbox, "guard", script);
    assert!(
        sandbox.project.join("ok.txt").is_file(),
        "{:#?}",
        mock.tool_messages()
    );
    for call in ["call_plugin", "call_config", "call_guard"] {
        assert_denied(&sandbox, &mock, call);
    }
    assert!(!sandbox.project.join(".opencode").exists());
    assert!(!sandbox.project.join("opencode.json").exists());
    let guard = fs::read_to_string(sandbox.plugin_path()).unwrap();
    assert!(guard.starts_with("// Generated by `animus-hook inject --provider opencode`"));
    assert!(!guard.contains("written by the e2e mock"));
}

/// What a project may configure does not unload the guard: a project config with an empty
/// `plugin` list, a project plugin of the same file name (a no-op), and opencode's switches
/// for project config and built-in plugins. (Only `--pure`/`OPENCODE_PURE` do:
/// [`pure_mode_runs_without_the_guard`].)
pub fn project_config_does_not_unload_the_guard() {
    let sandbox = with_trade_script(Sandbox::new("project-config"));
    let dot = sandbox.project.join(".opencode");
    super::driver::seed_config_dir(&dot);
    fs::create_dir_all(dot.join("plugins")).unwrap();
    fs::write(
        dot.join("plugins/animus-guard.js"),
        "export const AnimusGuard = async () => ({});\n",
    )
    .unwrap();
    fs::write(sandbox.project.join("opencode.json"), r#"{"plugin": []}"#).unwrap();
    fs::write(dot.join("opencode.json"), r#"{"plugin": []}"#).unwrap();
    let launch = sandbox.inject(&profile(), "guard", &[], None);
    let script = Script::new()
        .call("call_paper", "bash", bash("./trade --paper"))
        .call("call_live", "bash", bash("./trade --live --size 1"))
        .final_text("project done");
    let env = [
        ("OPENCODE_DISABLE_PROJECT_CONFIG", "1"),
        ("OPENCODE_DISABLE_DEFAULT_PLUGINS", "1"),
    ];
    let (mock, _) = run(&sandbox, &launch, script, &env);
    assert_eq!(mock.tool_message("call_paper"), "traded: --paper\n");
    assert_denied(&sandbox, &mock, "call_live");
    assert_eq!(trades(&sandbox), ["--paper"]);
    assert!(
        !dot.join("package.json").exists(),
        "opencode ran npm install in .opencode"
    );
}
