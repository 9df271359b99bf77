//! The session log records every event Codex fires, gates and observers, each as one whole
//! line tagged with the harness.

use serde_json::Value;
use test_support::records::assert_events;

use crate::driver::Sandbox;
use crate::fixtures::*;
use crate::mock_responses::{Item, Script};

pub fn records_every_event_of_a_run() {
    let sandbox = with_trade_script(Sandbox::new("recording"));
    let script = Script::new()
        .exec("call_paper", "./trade --paper")
        .exec("call_live", "./trade --live");
    let (mock, outcome) = guarded_run(&sandbox, "codex-allowlist", &[], script);
    outcome.completed();
    assert_not_blocked(&mock, "call_paper");
    assert_blocked(&mock, "call_live", "Live orders are denied");
    let log = sandbox.session_log();
    assert_events(
        &log,
        "SessionStart UserPromptSubmit PreToolUse PostToolUse PreToolUse Stop SessionEnd",
    );
    for record in &log {
        assert_eq!(record["harness"], "codex", "{record:#}");
        assert_eq!(record["session"], sandbox.session_id.as_str(), "{record:#}");
        assert!(record["error"].is_null(), "{record:#}");
        let gate = record["event"] == "PreToolUse";
        assert_eq!(record["gate"], gate, "{record:#}");
        assert_eq!(record["decision"].is_null(), !gate, "{record:#}");
    }
    let prompt = &records(&log, "UserPromptSubmit")[0]["payload"];
    assert_eq!(prompt["prompt"], PROMPT);
    let post = gate_record(&log, "PostToolUse", "call_paper");
    assert!(
        post["payload"]["tool_response"]
            .as_str()
            .is_some_and(|r| r.contains("traded: --paper")),
        "{post:#}"
    );
    assert_eq!(
        gate_record(&log, "PreToolUse", "call_live")["reason"],
        "Live orders are denied (codex e2e)."
    );
    let stop = &records(&log, "Stop")[0]["payload"];
    assert_eq!(stop["last_assistant_message"], "all done");
    // Each record's payload is what Codex sent the hook.
    let start: &Value = &records(&log, "SessionStart")[0]["payload"];
    assert_eq!(start["source"], "startup");
    assert_eq!(start["cwd"], sandbox.project.display().to_string());
}

/// Two calls in one model turn (Codex runs them in parallel, and so their hooks): each gets
/// its own decision and its own whole record.
pub fn records_two_parallel_calls_intact() {
    let sandbox = with_trade_script(Sandbox::new("parallel"));
    let exec = |call_id: &str, command: &str| Item::Call {
        call_id: call_id.to_owned(),
        name: "exec_command".to_owned(),
        namespace: None,
        arguments: serde_json::json!({ "cmd": command }),
    };
    let script = Script::new().turn(vec![
        exec("call_live", "./trade --live"),
        exec("call_paper", "./trade --paper"),
    ]);
    let (mock, outcome) = guarded_run(&sandbox, "codex-allowlist", &[], script);
    outcome.completed();
    assert_blocked(&mock, "call_live", "Live orders are denied (codex e2e).");
    assert!(assert_not_blocked(&mock, "call_paper").contains("traded: --paper"));
    assert_eq!(trades(&sandbox), ["--paper"]);
    let log = sandbox.session_log();
    assert_decision(&log, "PreToolUse", "call_live", "deny");
    assert_decision(&log, "PreToolUse", "call_paper", "allow");
    gate_record(&log, "PostToolUse", "call_paper");
    assert_eq!(records(&log, "PostToolUse").len(), 1, "{log:#?}");
}
