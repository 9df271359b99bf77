//! `animus-hook install --harness opencode` on the real CLI (issue 28): the guard plugin in the
//! user's global opencode config, then `opencode run` started normally — no
//! `OPENCODE_CONFIG_DIR`, no launcher. `git reset --hard HEAD~3` is blocked with the core
//! pack's reason, `git status` runs, and the decision is recorded under opencode's own session
//! id in the project's scope.

use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use super::driver::{Launch, PROMPT, Sandbox, animus_hook};
use super::fixtures::*;
use super::mock::Script;

fn git(project: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=e2e", "-c", "user.email=e2e@example.com"])
        .args(args)
        .current_dir(project)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn installed_plugin_stops_git_reset_in_a_normally_started_session() {
    let sandbox = Sandbox::new("installed");
    let install = Command::new(animus_hook())
        .args(["install", "--harness", "opencode"])
        .current_dir(&sandbox.home)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", &sandbox.home)
        .env("XDG_CONFIG_HOME", sandbox.home.join(".config"))
        .env("ANIMUS_CONFIG_DIR", &sandbox.state_dir)
        .output()
        .expect("animus-hook runs");
    assert!(
        install.status.success(),
        "{}",
        String::from_utf8_lossy(&install.stderr)
    );
    let plugin = sandbox
        .home
        .join(".config/opencode/plugins/animus-guard.js");
    assert!(plugin.is_file());

    let project = &sandbox.project;
    git(project, &["init", "-q"]);
    for n in 1..=4 {
        fs::write(project.join("work.txt"), format!("commit {n}\n")).unwrap();
        git(project, &["add", "work.txt"]);
        git(project, &["commit", "-q", "-m", &format!("c{n}")]);
    }
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
    assert_eq!(
        git(project, &["rev-list", "--count", "HEAD"]).trim(),
        "4",
        "the branch did not move"
    );
    assert!(project.join("status.txt").is_file(), "git status ran");

    let logs: Vec<_> = fs::read_dir(&sandbox.state_dir)
        .unwrap()
        .flatten()
        .filter(|scope| scope.file_name().to_string_lossy().starts_with("project-"))
        .flat_map(|scope| {
            fs::read_dir(scope.path().join("sessions"))
                .into_iter()
                .flatten()
                .flatten()
        })
        .map(|log| log.path())
        .filter(|log| log.extension().is_some_and(|ext| ext == "jsonl"))
        .collect();
    assert_eq!(
        logs.len(),
        1,
        "one session log in the project's scope: {logs:?}"
    );
    let records: Vec<Value> = fs::read_to_string(&logs[0])
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let reset = record(&records, "tool.execute.before", "call_reset");
    assert_eq!(reset["decision"], "deny");
    assert_eq!(reset["deciding_rule"], "pack.core.git:reset-hard");
    assert_eq!(reset["harness"], "opencode");
    assert_eq!(reset["payload"]["session_id"], reset["session"]);
}
