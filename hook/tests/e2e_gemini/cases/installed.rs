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
use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::e2e_gemini::driver::{Launch, Sandbox, animus_hook, launch_args, write_json};
use crate::e2e_gemini::fixtures::*;
use crate::e2e_gemini::mock_gemini::{MockGemini, Script};

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

pub fn installed_hooks_stop_git_reset_in_a_normally_started_session() {
    let sandbox = Sandbox::new("installed");
    let install = Command::new(animus_hook())
        .args(["install", "--harness", "gemini"])
        .current_dir(&sandbox.home)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", &sandbox.home)
        .env("ANIMUS_CONFIG_DIR", &sandbox.state_dir)
        .output()
        .expect("animus-hook runs");
    assert!(
        install.status.success(),
        "{}",
        String::from_utf8_lossy(&install.stderr)
    );
    // The user trusts this project (as Gemini's trust dialog records it).
    write_json(
        &sandbox.home.join(".gemini/trustedFolders.json"),
        &json!({ sandbox.project.to_str().unwrap(): "TRUST_FOLDER" }),
    );
    let project = &sandbox.project;
    git(project, &["init", "-q"]);
    for n in 1..=4 {
        fs::write(project.join("work.txt"), format!("commit {n}\n")).unwrap();
        git(project, &["add", "work.txt"]);
        git(project, &["commit", "-q", "-m", &format!("c{n}")]);
    }
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
    assert_eq!(git(project, &["rev-list", "--count", "HEAD"]).trim(), "4");
}
