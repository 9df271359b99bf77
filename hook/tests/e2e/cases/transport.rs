//! The CLI's non-streaming fallback reaches the gate like a streamed turn.

use crate::e2e::driver::Sandbox;
use crate::e2e::fixtures::*;
use crate::e2e::mock_api::{Script, is_streaming};

pub fn non_streaming_fallback_is_gated_too() {
    let sandbox = Sandbox::new("fallback");
    let script =
        Script::new()
            .break_first_stream()
            .tool_call("toolu_live", "Bash", bash("./trade --live"));
    let (mock, outcome) = trader_run(&sandbox, script);

    assert!(
        mock.model_calls().iter().any(|r| !is_streaming(r)),
        "the broken stream made the CLI retry without streaming"
    );
    assert_blocked_with(
        &outcome,
        &mock,
        "toolu_live",
        "Denied by tool_policy.deny entry `Bash(* --live*)`.",
    );
    assert!(trades(&sandbox).is_empty());
}
