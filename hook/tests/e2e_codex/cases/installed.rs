//! `animus-hook install --harness codex` on the real CLI (issue 28): the guard's hooks in the
//! user's own `~/.codex/hooks.json`, their trust in `~/.codex/config.toml`, then `codex exec`
//! started normally — no `-c hooks.…` flags, no `--dangerously-bypass-hook-trust`. Codex lists
//! every hook of ours as trusted and the user's own trusted hook still trusted; `git reset
//! --hard HEAD~3` is blocked with the core pack's reason, `git status` runs, the user's hook
//! runs beside ours, the deny is recorded under Codex's own session id in the project's scope,
//! and `uninstall` gives both files back byte for byte.

use std::fs;
use test_support::records::assert_fields;

use serde_json::{Value, json};
use test_support::process::{commit_count, git_history};
use test_support::records::{assert_decision, gate_record};
use test_support::scratch::project_session_log;

use crate::cases::wiring::listed_hooks;
use crate::common::{Launch, animus_as_user};
use crate::driver::Sandbox;
use crate::fixtures::*;
use crate::mock_responses::{MockApi, Script};

/// The user's own hook: it notes that it ran.
const USER_HOOK: &str = "echo ran >> \"$HOME/user-hook-ran\"";

fn hooks_listed(sandbox: &Sandbox) -> Vec<Value> {
    let mut hooks = Vec::new();
    let plain = Launch {
        args: Vec::new(),
        env: Vec::new(),
    };
    listed_hooks(&sandbox.list_hooks(&plain), &mut hooks);
    hooks
}

pub fn installed_hooks_stop_git_reset_in_a_normally_started_session() {
    let sandbox = Sandbox::new("installed");
    let codex_home = fs::canonicalize(&sandbox.codex_home).unwrap();
    // The user's own hook, trusted the way Codex's `/hooks` review records it.
    let hooks_file = codex_home.join("hooks.json");
    let user_hooks = format!(
        "{}\n",
        serde_json::to_string_pretty(&json!({"hooks": {"PreToolUse": [
            {"matcher": "*", "hooks": [{"type": "command", "command": USER_HOOK, "timeout": 10}]}
        ]}}))
        .unwrap()
    );
    fs::write(&hooks_file, &user_hooks).unwrap();
    let listed = hooks_listed(&sandbox);
    assert_eq!(listed.len(), 1, "{listed:#?}");
    let config = format!(
        "# my codex\nmodel = \"gpt-5.5\"\n\n[hooks.state.\"{}:pre_tool_use:0:0\"]\n\
         trusted_hash = {}\n",
        hooks_file.display(),
        listed[0]["currentHash"]
    );
    fs::write(codex_home.join("config.toml"), &config).unwrap();
    assert_eq!(hooks_listed(&sandbox)[0]["trustStatus"], "trusted");

    animus_as_user(&sandbox, &["install", "--harness", "codex"], &[]);
    let listed = hooks_listed(&sandbox);
    assert_eq!(listed.len(), 7, "the user's hook and our six: {listed:#?}");
    for hook in &listed {
        assert_eq!(
            hook["trustStatus"], "trusted",
            "Codex would skip this hook silently: {hook:#}"
        );
    }

    let project = &sandbox.project;
    git_history(project, 4);
    let script = Script::new()
        .exec("call_status", "git status --short > status.txt")
        .exec("call_reset", "git reset --hard HEAD~3");
    let mock = MockApi::start(script).expect("start the mock API");
    // Started normally: the launch names no hook and no trust.
    let launch = Launch {
        args: launch_args(&mock, &[]),
        env: Vec::new(),
    };
    let outcome = sandbox.run_codex(&mock, &launch, &[]);
    assert_offline(&mock, &outcome);
    outcome.completed();
    assert_blocked(&mock, "call_reset", "core.git:reset-hard");
    assert_eq!(commit_count(project), 4, "the branch did not move");
    assert!(project.join("status.txt").is_file(), "git status ran");
    let user_ran = fs::read_to_string(sandbox.home.join("user-hook-ran")).unwrap_or_default();
    assert_eq!(
        user_ran.lines().count(),
        2,
        "the user's hook ran for both calls"
    );
    let records = project_session_log(&sandbox.state_dir);
    let reset = gate_record(&records, "PreToolUse", "call_reset");
    let rule = "pack.core.git:reset-hard";
    assert_fields(
        reset,
        json!({"decision": "deny", "deciding_rule": rule, "harness": "codex"}),
    );
    assert_eq!(reset["payload"]["session_id"], reset["session"]);
    assert_decision(&records, "PreToolUse", "call_status", "defer");

    animus_as_user(&sandbox, &["uninstall", "--harness", "codex"], &[]);
    assert_eq!(fs::read_to_string(&hooks_file).unwrap(), user_hooks);
    assert_eq!(
        fs::read_to_string(codex_home.join("config.toml")).unwrap(),
        config
    );
}
