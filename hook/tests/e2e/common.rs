//! What the four end-to-end suites (Claude Code, Codex CLI, Gemini CLI, opencode) share about
//! the hook under test: its binary, inject's launch, a private copy of the hook to break, and
//! the `./trade` marker script. What does not know the hook (throwaway directories, the session
//! log, a bounded run) is in the `animus-test-support` crate, re-exported here.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use test_support::make_dir;

use serde_json::Value;

pub use test_support::process::run_bounded;
pub use test_support::repo_root;
pub use test_support::scratch::SessionDirs;

/// The `animus-hook` binary cargo built for this test.
pub fn animus_hook() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_animus-hook"))
}

/// What `animus-hook inject --json` prints: the launch arguments and the environment to set.
#[derive(Clone, Debug)]
pub struct Launch {
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
}

/// Run `animus-hook inject --provider <provider> … --json -- <launch>` for the session of
/// `dirs`, the kill switch and `ANIMUS_HOOK_BIN` removed from its environment; `configure` adds
/// what the suite needs (`--prompt-last`, environment). Fails the test unless inject succeeds.
pub fn inject(
    provider: &str,
    profile: &Path,
    agent: &str,
    dirs: &SessionDirs,
    hook_bin: Option<&Path>,
    launch: &[String],
    configure: impl FnOnce(&mut Command),
) -> Launch {
    let mut command = Command::new(animus_hook());
    command
        .args(["inject", "--provider", provider, "--config"])
        .arg(profile)
        .args(["--agent", agent, "--session-dir"])
        .arg(&dirs.session_dir)
        .args(["--session-id", &dirs.session_id, "--project-root"])
        .arg(&dirs.project)
        .arg("--json")
        .env_remove("ANIMUS_DISABLE_HARNESS_HOOKS")
        .env_remove("ANIMUS_HOOK_BIN");
    if let Some(hook_bin) = hook_bin {
        command.arg("--hook-binary").arg(hook_bin);
    }
    configure(&mut command);
    let output = command
        .arg("--")
        .args(launch)
        .output()
        .expect("run animus-hook inject");
    assert!(
        output.status.success(),
        "animus-hook inject failed ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let printed: Value = serde_json::from_slice(&output.stdout).expect("inject --json prints JSON");
    Launch {
        args: serde_json::from_value(printed["args"].clone()).expect("args: [strings]"),
        env: printed["env"]
            .as_object()
            .expect("env: {name: value}")
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    v.as_str().expect("env values are strings").to_owned(),
                )
            })
            .collect(),
    }
}

/// A private copy of `animus-hook` in the session's scratch `bin/` for inject to wire in, so a
/// test can break it. (Named `animus-hook` with no `animus-hook-emit` beside it, so inject
/// wires the copy itself.)
pub fn private_hook_copy(dirs: &SessionDirs) -> PathBuf {
    let bin = make_dir(&dirs.scratch.root, "bin");
    let copy = bin.join("animus-hook");
    test_support::process::copy_executable(&animus_hook(), &copy);
    copy
}

/// Replace the file at `path` with an executable `script`.
pub fn replace_with_script(path: &Path, script: &str) {
    fs::remove_file(path).unwrap();
    test_support::process::write_executable(path, script.as_bytes());
}

/// `./trade` in the session's project: appends its arguments to `trades.log` (the marker that
/// it ran) and prints `traded: <arguments>`.
pub fn install_trade_script(dirs: &SessionDirs) {
    let path = dirs.project.join("trade");
    test_support::process::write_executable(
        &path,
        b"#!/bin/sh\necho \"$*\" >> \"$(dirname \"$0\")/trades.log\"\necho \"traded: $*\"\n",
    );
}

/// `sandbox` with `./trade` installed in its project (see [`install_trade_script`]).
pub fn with_trade_script<S: std::ops::Deref<Target = SessionDirs>>(sandbox: S) -> S {
    install_trade_script(&sandbox);
    sandbox
}

/// The arguments of every `./trade` that ran in the session's project, in order.
pub fn trades(dirs: &SessionDirs) -> Vec<String> {
    fs::read_to_string(dirs.project.join("trades.log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// A shell tool call's arguments as the models of Claude Code, Gemini CLI and opencode send
/// them: the command and a description.
pub fn shell_call(command: &str) -> Value {
    serde_json::json!({"command": command, "description": "scripted by the e2e mock"})
}

/// `animus-hook <args>` as the user runs it in the session's HOME (the same state root as the
/// CLI's hooks), from an empty environment plus `extra_env`; it must succeed.
pub fn animus_as_user(
    dirs: &SessionDirs,
    args: &[&str],
    extra_env: &[(&str, &Path)],
) -> std::process::Output {
    test_support::process::succeed(
        Command::new(animus_hook())
            .args(args)
            .current_dir(&dirs.home)
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("HOME", &dirs.home)
            .env("ANIMUS_CONFIG_DIR", &dirs.state_dir)
            .envs(extra_env.iter().copied()),
    )
}

/// The JSON file at `relative` (to the repository root), parsed: a recorded table. Fails naming
/// the file.
pub fn read_repo_json<T: serde::de::DeserializeOwned>(relative: &str) -> T {
    let path = repo_root().join(relative);
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The gate's refusal when the session's `file` (`animus-policy.sidecar`, `animus-policy.json`)
/// is not the one it pinned: fail closed, naming the pin and the file's digest.
pub fn assert_pin_refusal(refusal: &str, file: &str) {
    let digest = format!("{file}` has SHA-256");
    for part in ["(fail closed)", "not the one this session pinned", &digest] {
        test_support::assert_has(refusal, part);
    }
}
