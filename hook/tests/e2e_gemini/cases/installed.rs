//! `animus-hook install --harness gemini` on the real CLI (issue 28): the guard's hooks in the
//! user's own `~/.gemini/settings.json`, then `gemini -p` started normally — no
//! `GEMINI_CLI_HOME`, no `--skip-trust` — in a folder the user trusts (Gemini registers hooks
//! only there). `git reset --hard HEAD~3` is blocked with the core pack's reason, `git status`
//! runs, and the deny is recorded under Gemini's own session id in the project's scope.
//!
//! Measured on 0.61.0 for a folder the user does not trust: headless `gemini -p` refuses to
//! start at all ("not running in a trusted directory", exit 55), and with `--skip-trust` the
//! installed hooks register and block as in a trusted one.

use std::fs;

use crate::common::animus_as_user;
use serde_json::json;
use test_support::process::{commit_count, git_history};
use test_support::scratch::project_session_log;

use crate::e2e_gemini::driver::{Launch, Sandbox, launch_args, write_json};
use crate::e2e_gemini::fixtures::*;
use crate::e2e_gemini::mock_gemini::{MockGemini, Script};

pub fn installed_hooks_stop_git_reset_in_a_normally_started_session() {
    let sandbox = Sandbox::new("installed");
    animus_as_user(&sandbox, &["install", "--harness", "gemini"], &[]);
    // The user trusts this project (as Gemini's trust dialog records it).
    write_json(
        &sandbox.home.join(".gemini/trustedFolders.json"),
        &json!({ sandbox.project.to_str().unwrap(): "TRUST_FOLDER" }),
    );
    let project = &sandbox.project;
    git_history(project, 4);
    let script = Script::new()
        .call(
            "run_shell_command",
            shell("git status --short > status.txt"),
        )
        .call("run_shell_command", shell("git reset --hard HEAD~3"));
    // Started normally: no GEMINI_CLI_HOME, no --skip-trust.
    let launch = Launch {
        args: launch_args(&sandbox),
        env: Vec::new(),
    };
    let mock = MockGemini::start(script).expect("start the mock Gemini API");
    let outcome = sandbox.run_gemini(&gemini(), &mock, &launch, &[]);
    completed(&mock, &outcome);
    assert_blocked_with(&mock, 1, "core.git:reset-hard");
    assert_eq!(commit_count(project), 4, "the branch did not move");
    assert!(project.join("status.txt").is_file(), "git status ran");
    let records = project_session_log(&sandbox.state_dir);
    let reset = gate_record(&records, "command", "git reset --hard HEAD~3");
    assert_eq!(reset["decision"], "deny");
    assert_eq!(reset["deciding_rule"], "pack.core.git:reset-hard");
    assert_eq!(reset["payload"]["session_id"], reset["session"]);

    // An untrusted folder: the CLI does not start headless; with --skip-trust the guard holds.
    fs::remove_file(sandbox.home.join(".gemini/trustedFolders.json")).unwrap();
    let refused = sandbox.run_gemini(
        &gemini(),
        &MockGemini::start(Script::new()).unwrap(),
        &launch,
        &[],
    );
    assert!(!refused.status.success(), "{refused:#?}");
    assert!(
        refused
            .stderr
            .contains("not running in a trusted directory"),
        "{refused:#?}"
    );
    let mut skip = launch_args(&sandbox);
    skip.insert(0, "--skip-trust".into());
    let launch = Launch {
        args: skip,
        env: Vec::new(),
    };
    let mock = MockGemini::start(
        Script::new().call("run_shell_command", shell("git reset --hard HEAD~3")),
    )
    .expect("start the mock Gemini API");
    let outcome = sandbox.run_gemini(&gemini(), &mock, &launch, &[]);
    completed(&mock, &outcome);
    assert_blocked_with(&mock, 0, "core.git:reset-hard");
    assert_eq!(commit_count(project), 4);
}
