//! The session log records every event the wiring subscribes to, gate and observers, with the
//! harness named and the payload as Gemini sent it.

use crate::e2e_gemini::driver::Sandbox;
use crate::e2e_gemini::fixtures::*;
use crate::e2e_gemini::mock_gemini::Script;
use test_support::records::assert_events;

pub fn records_every_event_of_a_run() {
    let sandbox = with_trade_script(Sandbox::new("records"));
    let script = Script::new()
        .call("run_shell_command", shell("./trade --paper --size 7"))
        .call("run_shell_command", shell("./trade --live --size 7"));
    let (_mock, outcome) = trader_run(&sandbox, script);
    let log = sandbox.session_log();
    // In order: the start, each call's gate, the tool's after-record for the call that ran,
    // the end. (A denied call has no AfterTool: Gemini fires it only for a tool that ran.)
    assert_events(
        &log,
        "SessionStart BeforeTool AfterTool BeforeTool SessionEnd",
    );
    let gemini_session = outcome.result.as_ref().unwrap()["session_id"].clone();
    for record in &log {
        assert_eq!(record["harness"], "gemini", "{record:#}");
        assert_eq!(record["session"], sandbox.session_id.as_str(), "{record:#}");
        assert_eq!(
            record["payload"]["hook_event_name"], record["event"],
            "{record:#}"
        );
        assert_eq!(
            record["payload"]["session_id"], gemini_session,
            "{record:#}"
        );
        assert_eq!(
            record["gate"],
            record["event"] == "BeforeTool",
            "{record:#}"
        );
        assert!(record["error"].is_null(), "{record:#}");
    }
    let after = records(&log, "AfterTool")[0];
    assert_eq!(
        after["payload"]["tool_input"]["command"],
        "./trade --paper --size 7"
    );
    assert!(
        after["payload"]["tool_response"]
            .to_string()
            .contains("traded: --paper --size 7"),
        "{after:#}"
    );
    assert_eq!(
        records(&log, "SessionStart")[0]["payload"]["source"],
        "startup"
    );
    assert_eq!(records(&log, "SessionEnd")[0]["payload"]["reason"], "exit");
}
