//! The session log: every lifecycle event of a run, and parallel calls intact.

use crate::e2e::driver::Sandbox;
use crate::e2e::fixtures::*;
use crate::e2e::mock_api::{Block, Script};

pub fn records_every_lifecycle_event_of_a_run() {
    let sandbox = Sandbox::new("lifecycle");
    let script = Script::new().tool_call("toolu_order", "Bash", bash("./trade --paper"));
    let (mock, outcome) = trader_run(&sandbox, script);
    outcome.completed();
    assert!(!mock.tool_result("toolu_order").is_error);

    let log = sandbox.session_log();
    let events = test_support::records::events(&log);
    for event in [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "Stop",
        "SessionEnd",
    ] {
        assert_eq!(
            events.iter().filter(|e| **e == event).count(),
            1,
            "one {event} record expected, events: {events:?}"
        );
    }
    let position = |event: &str| events.iter().position(|e| *e == event).unwrap();
    assert!(position("SessionStart") < position("PreToolUse"));
    assert!(position("PreToolUse") < position("PostToolUse"));
    assert!(position("PostToolUse") < position("SessionEnd"));
    for record in &log {
        assert_eq!(record["session"], sandbox.session_id.as_str(), "{record:#}");
    }
    let post = records(&log, "PostToolUse")[0];
    assert_eq!(post["tool_use_id"], "toolu_order");
    assert_eq!(post["payload"]["tool_input"]["command"], "./trade --paper");
}

pub fn records_two_parallel_tool_calls_intact() {
    let sandbox = Sandbox::new("parallel");
    let script = Script::new().turn(vec![
        Block::text("Two orders at once."),
        Block::tool_use("toolu_left", "Bash", bash("./trade --paper left")),
        Block::tool_use("toolu_right", "Bash", bash("./trade --paper right")),
    ]);
    let (mock, outcome) = trader_run(&sandbox, script);
    outcome.completed();
    for id in ["toolu_left", "toolu_right"] {
        assert!(!mock.tool_result(id).is_error);
    }
    let mut ran = trades(&sandbox);
    ran.sort();
    assert_eq!(ran, ["--paper left", "--paper right"]);

    let log = sandbox.session_log();
    for (id, command) in [
        ("toolu_left", "./trade --paper left"),
        ("toolu_right", "./trade --paper right"),
    ] {
        let pre = gate_record(&log, "PreToolUse", id);
        assert_eq!(pre["tool_name"], "Bash");
        assert_eq!(pre["payload"]["tool_input"]["command"], command);
        assert_eq!(pre["decision"], "defer");
        let post: Vec<_> = records(&log, "PostToolUse")
            .into_iter()
            .filter(|r| r["tool_use_id"] == id)
            .collect();
        assert_eq!(post.len(), 1, "{log:#?}");
    }
}
