//! `animus-hook install --harness opencode` on the real CLI (issue 28): the guard plugin in the
//! user's global opencode config, then `opencode run` started normally — no
//! `OPENCODE_CONFIG_DIR`, no launcher. `git reset --hard HEAD~3` is blocked with the core
//! pack's reason, `git status` runs, and the decision is recorded under opencode's own session
//! id in the project's scope.

use super::common::animus_as_user;
use test_support::process::{commit_count, git_history};
use test_support::records::assert_fields;
use test_support::scratch::project_session_log;

use super::driver::{Launch, PROMPT, Sandbox};
use super::fixtures::*;
use super::mock::Script;

pub fn installed_plugin_stops_git_reset_in_a_normally_started_session() {
    let sandbox = Sandbox::new("installed");
    animus_as_user(
        &sandbox,
        &["install", "--harness", "opencode"],
        &[("XDG_CONFIG_HOME", &sandbox.home.join(".config"))],
    );
    let plugin = sandbox
        .home
        .join(".config/opencode/plugins/animus-guard.js");
    assert!(plugin.is_file());

    let project = &sandbox.project;
    git_history(project, 4);
    let script = Script::new()
        .call(
            "call_status",
            "bash",
            bash("git status --short > status.txt"),
        )
        .call("call_reset", "bash", bash("git reset --hard HEAD~3"))
        .final_text("installed done");
    // Started normally: no OPENCODE_CONFIG_DIR, no session flags.
    let launch = Launch {
        args: vec!["run".into(), PROMPT.into()],
        env: Vec::new(),
    };
    let (mock, outcome) = run(&sandbox, &launch, script, &[]);
    let told = mock.tool_message("call_reset");
    assert!(told.contains("core.git:reset-hard"), "{told}: {outcome:#?}");
    assert_eq!(commit_count(project), 4, "the branch did not move");
    assert!(project.join("status.txt").is_file(), "git status ran");

    let records = project_session_log(&sandbox.state_dir);
    let reset = record(&records, "tool.execute.before", "call_reset");
    let rule = "pack.core.git:reset-hard";
    assert_fields(
        reset,
        serde_json::json!({"decision": "deny", "deciding_rule": rule, "harness": "opencode"}),
    );
    assert_eq!(reset["payload"]["session_id"], reset["session"]);
}
