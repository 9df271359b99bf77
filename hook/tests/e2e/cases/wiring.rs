//! The generated settings are what the CLI loads, beside the user's own hooks; and the kill
//! switch is the one way to run without them.

use std::fs;

use serde_json::{Value, json};

use crate::e2e::driver::Sandbox;
use crate::e2e::fixtures::*;
use crate::e2e::mock_api::Script;

pub fn settings_file_is_loaded_beside_user_project_hooks() {
    let sandbox = with_trade_script(Sandbox::new("canary"));
    // The user's own project hook, in shell form: it appends each PreToolUse payload it sees.
    fs::create_dir_all(sandbox.project.join(".claude")).unwrap();
    fs::write(
        sandbox.project.join(".claude/settings.json"),
        json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{
            "type": "command",
            "command": "cat >> \"$CLAUDE_PROJECT_DIR/user-hook.log\" && echo >> \"$CLAUDE_PROJECT_DIR/user-hook.log\"",
        }]}]}})
        .to_string(),
    )
    .unwrap();
    let script = Script::new()
        .tool_call("toolu_paper", "Bash", bash("./trade --paper"))
        .tool_call("toolu_canary", "Bash", bash("./trade --note animus-canary"));
    let (mock, outcome) = guarded_run(
        &sandbox,
        "e2e/gates.yaml",
        "canary",
        &["--allowedTools", "Bash"],
        script,
    );

    assert_blocked_with(
        &outcome,
        &mock,
        "toolu_canary",
        "Canary: the animus settings file is loaded (e2e).",
    );
    assert_eq!(trades(&sandbox), ["--paper"]);
    let seen: Vec<Value> = fs::read_to_string(sandbox.project.join("user-hook.log"))
        .expect("the user's project hook ran")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ids: Vec<&Value> = seen.iter().map(|p| &p["tool_use_id"]).collect();
    assert_eq!(
        ids,
        [&json!("toolu_paper"), &json!("toolu_canary")],
        "the user's hook saw both calls"
    );
}

pub fn kill_switch_runs_unguarded() {
    // `ANIMUS_DISABLE_HARNESS_HOOKS` is the one way to run a guarded profile unguarded: inject
    // writes nothing and leaves the arguments alone, and the live order then runs.
    let sandbox = with_trade_script(Sandbox::new("kill-switch"));
    let launch = launch(&["--allowedTools", "Bash"]);
    let args = sandbox.inject_with_kill_switch(&profile("trader.yaml"), "trader", &launch);
    assert_eq!(
        args, launch,
        "the kill switch leaves the launch arguments as they were"
    );
    assert_eq!(
        fs::read_dir(&sandbox.session_dir).unwrap().count(),
        0,
        "and writes no file"
    );

    let script = Script::new().tool_call("toolu_live", "Bash", bash("./trade --live"));
    let (mock, outcome) = run(&sandbox, &args, script);
    outcome.completed();
    assert!(!mock.tool_result("toolu_live").is_error);
    assert_eq!(trades(&sandbox), ["--live"]);
    assert!(sandbox.session_log().is_empty(), "no hook ran");
}
