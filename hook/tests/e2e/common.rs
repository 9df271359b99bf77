//! What the four end-to-end suites (Claude Code, Codex CLI, Gemini CLI, opencode) share: the
//! repository and the hook binary under test, throwaway directories, the session log, a CLI run
//! bounded in its own process group, inject's launch, and a private copy of the hook to break.
//! Each suite uses part of it.
#![allow(dead_code)]

use std::fs;
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the hook crate sits in the workspace")
        .to_path_buf()
}

/// The `animus-hook` binary cargo built for this test.
pub fn animus_hook() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_animus-hook"))
}

/// A directory under the system temp dir, removed on drop unless `ANIMUS_E2E_KEEP` is set.
pub struct Scratch {
    pub root: PathBuf,
}

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let root = std::env::temp_dir().join(format!(
            "animus-e2e-{}-{}-{name}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(&root).unwrap();
        // Canonical, so paths compare equal to what a CLI (which resolves symlinks) reports.
        Scratch {
            root: root.canonicalize().unwrap(),
        }
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::env::var_os("ANIMUS_E2E_KEEP").is_none() {
            let _ = fs::remove_dir_all(&self.root);
        } else {
            eprintln!("kept {}", self.root.display());
        }
    }
}

/// Every record of session `session_id`'s log under the state root `state_dir`
/// (`<state>/<repo-scope>/sessions/<id>.jsonl`). Each line must be one whole JSON object: a torn
/// or merged line fails the test.
pub fn session_log(state_dir: &Path, session_id: &str) -> Vec<Value> {
    let name = format!("{session_id}.jsonl");
    let logs: Vec<PathBuf> = fs::read_dir(state_dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|scope| scope.path().join("sessions").join(&name))
        .filter(|path| path.is_file())
        .collect();
    assert!(logs.len() <= 1, "one session log expected, found {logs:?}");
    let Some(log) = logs.first() else {
        return Vec::new();
    };
    fs::read_to_string(log)
        .unwrap()
        .lines()
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("torn session log line ({e}): {line}"))
        })
        .collect()
}

/// How a bounded run ended.
#[derive(Debug)]
pub struct Finished {
    pub status: ExitStatus,
    pub timed_out: bool,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
}

/// Run `command` in its own process group with stdout and stderr captured, and wait for it at
/// most `deadline`; then kill the whole group (hooks, MCP servers or tools left behind would
/// keep the pipes open). Fails the test when the deadline passed.
pub fn run_bounded(command: &mut Command, deadline: Duration, what: &str) -> Finished {
    command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let started = Instant::now();
    let mut child = command
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {what}: {e}"));
    let pgid = child.id();
    let stdout = pipe(Box::new(child.stdout.take().unwrap()));
    let stderr = pipe(Box::new(child.stderr.take().unwrap()));
    let (status, timed_out) = loop {
        if let Some(status) = child.try_wait().expect("wait for the CLI") {
            break (status, false);
        }
        if started.elapsed() > deadline {
            kill_group(pgid);
            break (child.wait().expect("reap the CLI"), true);
        }
        thread::sleep(Duration::from_millis(20));
    };
    kill_group(pgid);
    let finished = Finished {
        status,
        timed_out,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
        elapsed: started.elapsed(),
    };
    assert!(
        !finished.timed_out,
        "{what} did not finish within {deadline:?}: {finished:#?}"
    );
    finished
}

fn pipe(mut reader: Box<dyn Read + Send>) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut text = Vec::new();
        let _ = reader.read_to_end(&mut text);
        String::from_utf8_lossy(&text).into_owned()
    })
}

/// SIGKILL every process of group `pgid`.
pub fn kill_group(pgid: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .stderr(Stdio::null())
        .status();
}

/// What `animus-hook inject --json` prints: the launch arguments and the environment to set.
#[derive(Clone, Debug)]
pub struct Launch {
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
}

/// Run `animus-hook inject --provider <provider> … --json -- <launch>`, the kill switch and
/// `ANIMUS_HOOK_BIN` removed from its environment; `configure` adds what the suite needs
/// (`--prompt-last`, environment). Fails the test unless inject succeeds.
#[allow(clippy::too_many_arguments)]
pub fn inject(
    provider: &str,
    profile: &Path,
    agent: &str,
    session_dir: &Path,
    session_id: &str,
    project: &Path,
    hook_bin: Option<&Path>,
    launch: &[String],
    configure: impl FnOnce(&mut Command),
) -> Launch {
    let mut command = Command::new(animus_hook());
    command
        .args(["inject", "--provider", provider, "--config"])
        .arg(profile)
        .args(["--agent", agent, "--session-dir"])
        .arg(session_dir)
        .args(["--session-id", session_id, "--project-root"])
        .arg(project)
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

/// A private copy of `animus-hook` in `dir/bin` for inject to wire in, so a test can break it.
pub fn private_hook_copy(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    fs::create_dir_all(&bin).unwrap();
    let copy = bin.join("animus-hook");
    fs::copy(animus_hook(), &copy).unwrap();
    copy
}

/// Replace the file at `path` with an executable `script`.
pub fn replace_with_script(path: &Path, script: &str) {
    fs::remove_file(path).unwrap();
    fs::write(path, script).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

/// `./trade` in `project`: appends its arguments to `trades.log` (the marker that it ran) and
/// prints `traded: <arguments>`.
pub fn install_trade_script(project: &Path) {
    let path = project.join("trade");
    fs::write(
        &path,
        "#!/bin/sh\necho \"$*\" >> \"$(dirname \"$0\")/trades.log\"\necho \"traded: $*\"\n",
    )
    .unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
}

/// The arguments of every `./trade` that ran in `project`, in order.
pub fn trades(project: &Path) -> Vec<String> {
    fs::read_to_string(project.join("trades.log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}
