//! Helpers shared by the hook's integration tests: run the real binary with a bounded wait.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use test_support::{make_dir, write_file};

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_animus-hook")
}

/// A fresh directory for one test, removed with everything in it when dropped
/// (`tempfile`'s, usable as a `Path`).
pub struct TempDir(tempfile::TempDir);

impl std::ops::Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        self.0.path()
    }
}

impl AsRef<Path> for TempDir {
    fn as_ref(&self) -> &Path {
        self.0.path()
    }
}

/// A fresh directory for one test (see [`TempDir`]).
pub fn temp_dir(name: &str) -> TempDir {
    TempDir(
        tempfile::Builder::new()
            .prefix(&format!("animus-test-{name}-"))
            .tempdir()
            .unwrap(),
    )
}

/// `<hook> compile --config <config> --agent <agent> --out-dir <out>` with `env`: the run,
/// whatever its exit (its warnings are on stderr).
pub fn compile_run(
    hook: &str,
    config: &Path,
    agent: &str,
    out: &Path,
    env: &[(&str, &str)],
) -> Run {
    let args = compile_argv(config.to_str().unwrap(), agent, out);
    run_bin(hook, &args, Some(b""), env)
}

/// `compile --config <config> --agent <agent> --out-dir <out>`.
pub fn compile_argv<'a>(config: &'a str, agent: &'a str, out: &'a Path) -> [&'a str; 7] {
    let out = out.to_str().unwrap();
    [
        "compile",
        "--config",
        config,
        "--agent",
        agent,
        "--out-dir",
        out,
    ]
}

/// Compile agent `agent` of `config` into `out`, which must succeed; returns the policy path.
pub fn compile_config(config: &Path, agent: &str, out: &Path) -> PathBuf {
    let run = compile_run(bin(), config, agent, out, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    out.join("animus-policy.json")
}

/// Compile a corpus profile into `dir`; returns the policy path.
pub fn compile_profile(file: &str, agent: &str, dir: &Path) -> PathBuf {
    compile_config(&repo().join("corpus/profiles").join(file), agent, dir)
}

/// A scratch directory holding an empty `project/`, `trader.yaml` compiled into `run/`, and
/// where the state root goes (`state/`, not created: the hook makes it).
pub struct TraderDir {
    pub dir: TempDir,
    pub project: PathBuf,
    pub state: PathBuf,
    pub policy: PathBuf,
}

impl TraderDir {
    /// The directory (removed on drop), the project, the state root and the policy.
    pub fn parts(self) -> (TempDir, PathBuf, PathBuf, PathBuf) {
        (self.dir, self.project, self.state, self.policy)
    }
}

pub fn trader_dir(name: &str) -> TraderDir {
    let dir = temp_dir(name);
    let project = make_dir(&dir, "project");
    TraderDir {
        state: dir.join("state"),
        policy: compile_profile("trader.yaml", "trader", &dir.join("run")),
        project,
        dir,
    }
}

/// The log of `session` in the one scope under the state root `state` (empty when there is
/// none yet).
pub fn only_scope_log(state: &Path, session: &str) -> String {
    let scope = std::fs::read_dir(state)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::read_to_string(scope.join(format!("sessions/{session}.jsonl"))).unwrap_or_default()
}

pub struct Run {
    pub stdout: String,
    pub stderr: String,
    pub code: Option<i32>,
    pub elapsed: Duration,
}

/// Liveness bound for one hook run: far above any real run; only a hang reaches it.
pub const HANG: Duration = Duration::from_secs(30);

/// The lean twin that runs only `emit` (`src/emit_main.rs`).
pub fn lean_bin() -> &'static str {
    env!("CARGO_BIN_EXE_animus-hook-emit")
}

/// `emit --event PreToolUse --session <session> --project-root <project> --policy <policy>`:
/// the gate as inject wires it.
pub fn gate_args(session: &str, project: &Path, policy: &Path) -> Vec<String> {
    emit_args("PreToolUse", session, project, Some(policy))
}

/// `emit --event <event> --session <session> --project-root <project>`, and `--policy
/// <policy>` when given.
pub fn emit_args(event: &str, session: &str, project: &Path, policy: Option<&Path>) -> Vec<String> {
    let mut args = [
        "emit",
        "--event",
        event,
        "--session",
        session,
        "--project-root",
        project.to_str().unwrap(),
    ]
    .map(String::from)
    .to_vec();
    if let Some(policy) = policy {
        args.extend(["--policy".into(), policy.to_str().unwrap().into()]);
    }
    args
}

/// Run `animus-hook` with `args`, `stdin` (None = leave stdin open and never write), extra env.
pub fn run_hook(args: &[&str], stdin: Option<&[u8]>, env: &[(&str, &str)]) -> Run {
    run_bin(bin(), args, stdin, env)
}

/// Run `animus-hook emit …` and `animus-hook-emit emit …` alike; both must print the same bytes
/// and exit alike. Returns the first run. (Each run records its own event.)
pub fn run_emit_both<S: AsRef<str> + std::fmt::Debug>(
    args: &[S],
    stdin: Option<&[u8]>,
    env: &[(&str, &str)],
) -> Run {
    assert_eq!(args.first().map(AsRef::as_ref), Some("emit"));
    let full = run_bin(bin(), args, stdin, env);
    let lean = run_bin(lean_bin(), args, stdin, env);
    assert_eq!(
        (&full.stdout, full.code),
        (&lean.stdout, lean.code),
        "animus-hook-emit must answer exactly as animus-hook emit for {args:?}"
    );
    full
}

/// Run `bin` with `args`, `stdin` (None = leave stdin open and never write), extra env.
pub fn run_bin<S: AsRef<str> + std::fmt::Debug>(
    bin: &str,
    args: &[S],
    stdin: Option<&[u8]>,
    env: &[(&str, &str)],
) -> Run {
    let started = Instant::now();
    let mut cmd = Command::new(bin);
    cmd.args(args.iter().map(AsRef::as_ref))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let mut pipe = child.stdin.take().unwrap();
    let writer = match stdin {
        Some(bytes) => {
            let bytes = bytes.to_vec();
            Some(std::thread::spawn(move || {
                let _ = pipe.write_all(&bytes);
                drop(pipe);
            }))
        }
        None => {
            // Hold stdin open (never closed) until the child is gone.
            std::thread::spawn(move || {
                std::thread::sleep(HANG);
                drop(pipe);
            });
            None
        }
    };
    // Both outputs are drained while the child runs: one larger than a pipe's buffer (64 KiB)
    // would otherwise block it, and the run would look hung.
    let drain = |mut from: Box<dyn std::io::Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = from.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > HANG {
            let _ = child.kill();
            panic!("animus-hook {args:?} hung for {HANG:?}");
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    if let Some(w) = writer {
        let _ = w.join();
    }
    Run {
        stdout: String::from_utf8(stdout.join().unwrap()).unwrap(),
        stderr: String::from_utf8_lossy(&stderr.join().unwrap()).into_owned(),
        code: status.code(),
        elapsed: started.elapsed(),
    }
}

/// A corpus payload's bytes.
pub fn payload(name: &str) -> Vec<u8> {
    std::fs::read(repo().join("corpus/payloads").join(name)).unwrap()
}

/// A scratch `project/` and `home/`, each with `.claude/` in it, beside the places `state/`
/// (the state root, which the hook makes) and `run/` (the session directory).
pub struct AgentHome {
    pub dir: TempDir,
    pub project: PathBuf,
    pub home: PathBuf,
    pub state: PathBuf,
    pub run: PathBuf,
}

impl AgentHome {
    pub fn new(name: &str) -> AgentHome {
        let dir = temp_dir(name);
        let (project, home) = (dir.join("project"), dir.join("home"));
        for d in [&project, &home] {
            std::fs::create_dir_all(d.join(".claude")).unwrap();
        }
        AgentHome {
            state: dir.join("state"),
            run: dir.join("run"),
            project,
            home,
            dir,
        }
    }

    /// The test's `ANIMUS_CONFIG_DIR` (the state root) and `HOME`.
    pub fn env(&self) -> [(&'static str, &str); 2] {
        [
            ("ANIMUS_CONFIG_DIR", self.state.to_str().unwrap()),
            ("HOME", self.home.to_str().unwrap()),
        ]
    }

    /// Agent `yolo`, allowing `tools` (`Bash, Read, …`), compiled by `hook` into `run/` under
    /// [`AgentHome::env`]: the run, which must succeed.
    pub fn compile_yolo(&self, hook: &str, tools: &str) -> Run {
        let profile = write_file(
            &self.dir,
            "everything.yaml",
            format!("agent_profiles:\n  yolo:\n    tool_policy:\n      allow: [{tools}]\n"),
        );
        let compiled = compile_run(hook, &profile, "yolo", &self.run, &self.env());
        assert_eq!(compiled.code, Some(0), "{}", compiled.stderr);
        compiled
    }

    /// The compiled policy in `run/`.
    pub fn policy(&self) -> PathBuf {
        self.run.join("animus-policy.json")
    }
}

/// A Claude gate's answer: `None` for no output (left to claude), else the reason of the deny
/// it must be.
pub fn deny_reason(stdout: &str) -> Option<String> {
    if stdout.is_empty() {
        return None;
    }
    let v: serde_json::Value = serde_json::from_str(stdout).unwrap();
    assert_eq!(v["hookSpecificOutput"]["permissionDecision"], "deny", "{v}");
    Some(
        v["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .to_string(),
    )
}

/// `animus-hook <args>` with an empty stdin and no extra environment.
pub fn run_cli(args: &[&str]) -> Run {
    run_hook(args, Some(b""), &[])
}
