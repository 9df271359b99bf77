//! `animus-hook install` on the real CLI (issue 28): the guard installed into a realistic
//! `~/.claude/settings.json` of a scratch HOME, then `claude` started normally — no
//! `--settings`, no launcher — with `--allowedTools Bash`, so only the installed hook stands
//! between the model and `git reset --hard HEAD~3`. `git status` in the same session runs, the
//! user's own `PreToolUse` hook keeps running beside ours, the decision is recorded under the
//! session id Claude gave, and `uninstall` gives the user's file back byte for byte.

use std::fs;
use std::path::Path;
use test_support::make_dir;

use crate::e2e::common::animus_as_user;
use serde_json::{Value, json};
use test_support::process::{commit_count, git_history};
use test_support::scratch::{project_session_log_path, read_log};

use crate::e2e::driver::Sandbox;
use crate::e2e::fixtures::*;
use crate::e2e::mock_api::Script;
use test_support::assert_has;

/// `animus-hook <args>` as the user runs it in the sandbox's HOME (same state root as the CLI).
fn animus(sandbox: &Sandbox, args: &[&str]) -> std::process::Output {
    animus_as_user(sandbox, args, &[])
}

pub fn installed_guard_stops_git_reset_in_a_normally_started_session() {
    let sandbox = Sandbox::new("installed");
    let claude_dir = make_dir(&sandbox.home, ".claude");
    // The user's own hook: it logs every Bash call it sees.
    let user_log = sandbox.scratch.root.join("user-hook.log");
    let user_hook = sandbox.scratch.root.join("user-hook.sh");
    test_support::process::write_executable(
        &user_hook,
        format!(
            "#!/bin/sh\ncat >> '{}'\necho >> '{}'\n",
            user_log.display(),
            user_log.display()
        )
        .as_bytes(),
    );
    let settings = json!({
        "model": "claude-sonnet-4-5",
        "env": {"MY_SETTING": "kept"},
        "permissions": {"allow": ["Read(~/notes/**)"], "deny": ["Bash(curl:*)"]},
        "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": user_hook}
        ]}]}
    });
    let original = format!("{}\n", serde_json::to_string_pretty(&settings).unwrap());
    let settings_path = claude_dir.join("settings.json");
    fs::write(&settings_path, &original).unwrap();

    animus(&sandbox, &["install"]);
    let installed = fs::read_to_string(&settings_path).unwrap();
    let parsed: Value = serde_json::from_str(&installed).unwrap();
    for key in ["model", "env", "permissions"] {
        assert_eq!(parsed[key], settings[key], "{key} kept");
    }
    assert_eq!(
        parsed["hooks"]["PreToolUse"][0],
        settings["hooks"]["PreToolUse"][0]
    );
    assert_eq!(
        parsed["hooks"]["PreToolUse"][1]["hooks"][0]["onFailure"],
        "block"
    );
    animus(&sandbox, &["install"]);
    assert_eq!(
        fs::read_to_string(&settings_path).unwrap(),
        installed,
        "a second install changes nothing"
    );
    let doctor = animus(&sandbox, &["doctor"]);
    assert!(String::from_utf8_lossy(&doctor.stdout).contains("every check passed"));

    // Four commits, so `HEAD~3` exists and the reset would really move the branch.
    let project = &sandbox.project;
    git_history(project, 4);
    fs::write(project.join("work.txt"), "uncommitted work\n").unwrap();
    let script = status_then_reset("git reset --hard HEAD~3");
    // Started normally: the launch arguments carry no `--settings`.
    let args: Vec<String> = owned_launch(&["--allowedTools", "Bash"]);
    assert!(!args.iter().any(|a| a == "--settings"));
    let (mock, outcome) = run(&sandbox, &args, script);
    assert_blocked_with(&outcome, &mock, "toolu_reset", "core.git:reset-hard");
    assert_eq!(
        fs::read_to_string(project.join("work.txt")).unwrap(),
        "uncommitted work\n"
    );
    assert_eq!(commit_count(project), 4, "the branch did not move");
    assert!(!mock.tool_result("toolu_status").is_error);
    assert_eq!(
        fs::read_to_string(project.join("status.txt")).unwrap(),
        " M work.txt\n?? status.txt\n",
        "git status ran"
    );
    // The user's own hook ran beside ours, on both calls.
    let seen = fs::read_to_string(&user_log).unwrap_or_default();
    assert!(
        seen.contains("git status --short") && seen.contains("git reset --hard HEAD~3"),
        "{seen}"
    );

    // The decision was recorded in the project's scope, under Claude's own session id.
    let log = project_session_log_path(&sandbox.state_dir);
    let records = read_log(&log);
    let reset = gate_record(&records, "PreToolUse", "toolu_reset");
    assert_eq!(reset["decision"], "deny");
    assert_eq!(reset["deciding_rule"], "pack.core.git:reset-hard");
    let session = reset["session"].as_str().unwrap();
    assert_eq!(reset["payload"]["session_id"], session);
    // The observers recorded the session around the calls.
    for event in ["SessionStart", "PostToolUse", "SessionEnd"] {
        assert!(
            records.iter().any(|r| r["event"] == event),
            "{event}: {records:#?}"
        );
    }
    // Issue 29: the log the real CLI's session left proves whole (chain, seal, gate liveness),
    // and both it and Claude's own transcript of the session replay under the installed
    // policy with nothing changed.
    let verified = animus(&sandbox, &["verify", log.to_str().unwrap()]);
    assert_has(&String::from_utf8_lossy(&verified.stdout), "sealed");
    let policy = sandbox
        .state_dir
        .join("installed/claude-user/animus-policy.json");
    let policy = policy.to_str().unwrap();
    animus(
        &sandbox,
        &["replay", "--policy", policy, log.to_str().unwrap()],
    );
    let transcript = claude_transcript(&sandbox.home, session);
    let replayed = animus(
        &sandbox,
        &[
            "replay",
            "--policy",
            policy,
            "--baseline",
            policy,
            "--json",
            transcript.to_str().unwrap(),
        ],
    );
    let calls: Vec<Value> = String::from_utf8_lossy(&replayed.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let reset = calls
        .iter()
        .find(|c| c["tool_use_id"] == "toolu_reset")
        .unwrap_or_else(|| panic!("the transcript's reset call replays: {calls:#?}"));
    assert_eq!(reset["before"], "deny", "{reset:#}");
    assert_eq!(reset["after"], "deny", "{reset:#}");
    assert!(calls.iter().any(|c| c["tool_use_id"] == "toolu_status"));

    animus(&sandbox, &["uninstall"]);
    assert_eq!(
        fs::read_to_string(&settings_path).unwrap(),
        original,
        "uninstall gives the file back"
    );
}

/// Item 5 of issue 28, measured on 2.1.328 offline: `install --plugin-dir` writes a plugin
/// (`.claude-plugin/plugin.json`, `hooks/hooks.json`) that `claude --plugin-dir <dir>` loads:
/// its gate stops `git reset --hard HEAD~3` and lets `git status` run; and its
/// `"onFailure": "block"` holds there too: with the hook binary gone, the call is blocked,
/// not run.
pub fn plugin_dir_guards_a_session_that_loads_it() {
    let sandbox = Sandbox::new("plugin");
    let plugin = sandbox.scratch.root.join("animus-guard");
    animus(
        &sandbox,
        &["install", "--plugin-dir", plugin.to_str().unwrap()],
    );
    assert!(plugin.join(".claude-plugin/plugin.json").is_file());
    let hooks = fs::read_to_string(plugin.join("hooks/hooks.json")).unwrap();
    assert_has(&hooks, "--from-payload");
    assert!(
        !sandbox.home.join(".claude/settings.json").exists(),
        "the user's settings untouched"
    );
    let doctor = animus(
        &sandbox,
        &["doctor", "--plugin-dir", plugin.to_str().unwrap()],
    );
    assert!(String::from_utf8_lossy(&doctor.stdout).contains("✓ live gate (plugin)"));
    let project = &sandbox.project;
    git_history(project, 4);
    let run_with_plugin = |sandbox: &Sandbox| {
        let script = status_then_reset("git reset --hard HEAD~3");
        let mut args: Vec<String> = vec!["--plugin-dir".into(), plugin.to_str().unwrap().into()];
        args.extend(
            launch(&["--allowedTools", "Bash"])
                .iter()
                .map(|a| a.to_string()),
        );
        run(sandbox, &args, script)
    };
    let (mock, outcome) = run_with_plugin(&sandbox);
    assert_blocked_with(&outcome, &mock, "toolu_reset", "core.git:reset-hard");
    assert!(!mock.tool_result("toolu_status").is_error);
    assert!(project.join("status.txt").is_file(), "git status ran");
    assert_eq!(commit_count(project), 4);
    // The binary the plugin runs, gone: blocked, because onFailure is "block".
    let hooks = hooks.replace(
        "target/debug/animus-hook-emit\"",
        "target/debug/missing-hook\"",
    );
    assert_has(&hooks, "missing-hook");
    fs::write(plugin.join("hooks/hooks.json"), hooks).unwrap();
    let (mock, outcome) = run_with_plugin(&sandbox);
    assert_blocked_with(
        &outcome,
        &mock,
        "toolu_reset",
        "blocking because onFailure is \"block\"",
    );
    assert_eq!(commit_count(project), 4);
}

/// `install --sandbox` on the real CLI: Claude's own Bash sandbox, from the user's settings,
/// makes the installed policy, the user's settings and the hook binary read-only to a Python
/// script the model runs (its targets come from a file: no command names a guard file, so the
/// parse layer does not see them), and the hook still records from outside the sandbox.
pub fn installed_sandbox_keeps_the_guard_files_byte_identical() {
    if let Some(why) = crate::e2e::cases::os_boundary::sandbox_tools_missing() {
        println!("SKIPPED: {why}");
        return;
    }
    let sandbox = Sandbox::new("installed-sandbox");
    let settings = sandbox.home.join(".claude/settings.json");
    fs::create_dir_all(settings.parent().unwrap()).unwrap();
    fs::write(&settings, "{\n  \"model\": \"claude-sonnet-4-5\"\n}\n").unwrap();
    let hook = crate::e2e::common::private_hook_copy(&sandbox);
    animus(
        &sandbox,
        &[
            "install",
            "--sandbox",
            "--hook-binary",
            hook.to_str().unwrap(),
        ],
    );
    let policy = sandbox
        .state_dir
        .join("installed/claude-user/animus-policy.json");
    let targets = [policy, settings.clone(), hook];
    let before = plant_target_list(&sandbox.project, &targets);
    plant_python_attack(&sandbox.project, "result.txt");
    let script = Script::new().tool_call("toolu_py", "Bash", bash("python3 attack.py"));
    let args: Vec<String> = owned_launch(&["--allowedTools", "Bash"]);
    let (mock, outcome) = run(&sandbox, &args, script);
    outcome.completed();
    for (target, bytes) in targets.iter().zip(&before) {
        assert!(
            &fs::read(target).unwrap() == bytes,
            "{} changed under the sandbox",
            target.display()
        );
    }
    let result = fs::read_to_string(sandbox.project.join("result.txt")).unwrap_or_else(|e| {
        panic!(
            "the script did not run ({e}): {:#?}",
            mock.tool_result("toolu_py")
        )
    });
    assert!(!result.contains(": done"), "{result}");
    assert_has(&result, "Read-only file system");
    assert_eq!(
        fs::read_to_string(&settings)
            .unwrap()
            .matches("--from-payload")
            .count(),
        8
    );
}

/// The transcript the real CLI wrote for `session`: `~/.claude/projects/<project>/<session>.jsonl`.
fn claude_transcript(home: &Path, session: &str) -> std::path::PathBuf {
    let name = format!("{session}.jsonl");
    let projects = home.join(".claude/projects");
    fs::read_dir(&projects)
        .unwrap_or_else(|e| panic!("{}: {e}", projects.display()))
        .flatten()
        .map(|project| project.path().join(&name))
        .find(|path| path.is_file())
        .unwrap_or_else(|| panic!("no transcript {name} under {}", projects.display()))
}
