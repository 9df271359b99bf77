//! Runs the real Claude Code CLI headless against [`MockApi`], wired exactly as
//! `animus-hook inject` wires it, in a throwaway HOME and project directory.
//!
//! # Keeping the CLI offline and quiet (measured on 2.1.328)
//!
//! The CLI starts from an empty environment (`env_clear`) plus:
//! - `ANTHROPIC_BASE_URL=http://127.0.0.1:<port>`: every model call goes to the mock.
//! - `ANTHROPIC_API_KEY`: any value; without a key `-p` stops before calling the API.
//! - `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`: without it the CLI also probes
//!   `HEAD /api/hello` and resolves its telemetry host through DNS (seen with `strace`); with it
//!   the only sockets it opens go to the mock. `DISABLE_AUTOUPDATER`, `DISABLE_TELEMETRY` and
//!   `DISABLE_ERROR_REPORTING` are set too, for the same reason, should a later version split
//!   them out again.
//! - `HOME`: a fresh directory. The CLI writes `~/.claude.json`, `~/.claude/projects/<slug>/`
//!   (the transcript) and `~/.claude/sessions/` there; nothing outside it.
//! - `ANIMUS_CONFIG_DIR`: where `animus-hook emit` keeps the session log, inherited by hooks.
//! - `PATH`, `SHELL=/bin/bash`, `LANG`: for the Bash tool.
//!
//! A run is bounded: the CLI is spawned in its own process group and the whole group (hooks,
//! the MCP server, tool processes) is killed when the deadline passes.

use std::fs;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::mock_api::MockApi;

/// The CLI version the suite was written against (and `scripts/install-claude-cli.sh` installs).
pub const CLAUDE_CODE_VERSION: &str = "2.1.328";
/// Deadline for one CLI run. A normal run takes about a second; a hook timeout adds its own.
pub const RUN_DEADLINE: Duration = Duration::from_secs(90);

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

pub fn animus_hook() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_animus-hook"))
}

/// Where to find the CLI: `$ANIMUS_CLAUDE_BIN`, else the cache that
/// `scripts/install-claude-cli.sh` fills. `Err` says why it is unusable; `Ok(None)` means it is
/// not installed.
pub fn locate_claude() -> Result<Option<PathBuf>, String> {
    static FOUND: OnceLock<Result<Option<PathBuf>, String>> = OnceLock::new();
    FOUND
        .get_or_init(|| {
            let path = match std::env::var_os("ANIMUS_CLAUDE_BIN").filter(|v| !v.is_empty()) {
                Some(path) => PathBuf::from(path),
                None => repo_root().join(".cache/claude-code/node_modules/@anthropic-ai/claude-code/bin/claude.exe"),
            };
            if !path.is_file() {
                return Ok(None);
            }
            let home = Scratch::new("version");
            let output = Command::new(&path)
                .arg("--version")
                .env_clear()
                .env("HOME", &home.root)
                .env("PATH", "/usr/local/bin:/usr/bin:/bin")
                .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
                .stdin(Stdio::null())
                .output()
                .map_err(|e| format!("cannot run {}: {e}", path.display()))?;
            let version = String::from_utf8_lossy(&output.stdout);
            if version.split_whitespace().next() != Some(CLAUDE_CODE_VERSION) {
                return Err(format!(
                    "{} is version {:?}, the suite needs {CLAUDE_CODE_VERSION} (scripts/install-claude-cli.sh)",
                    path.display(),
                    version.trim()
                ));
            }
            Ok(Some(path))
        })
        .clone()
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
        // Canonical, so paths compare equal to what the CLI (which resolves symlinks) reports.
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

/// One guarded session's directories: HOME, the project (the CLI's cwd), the per-session run
/// dir that `inject` writes into, and the animus state root (`ANIMUS_CONFIG_DIR`).
pub struct Sandbox {
    pub scratch: Scratch,
    pub home: PathBuf,
    pub project: PathBuf,
    pub session_dir: PathBuf,
    pub state_dir: PathBuf,
    pub session_id: String,
}

impl Sandbox {
    pub fn new(name: &str) -> Sandbox {
        let scratch = Scratch::new(name);
        let dir = |sub: &str| {
            let path = scratch.root.join(sub);
            fs::create_dir_all(&path).unwrap();
            path
        };
        let (home, project, session_dir, state_dir) =
            (dir("home"), dir("project"), dir("run"), dir("animus-state"));
        Sandbox {
            session_id: format!("e2e-{name}"),
            scratch,
            home,
            project,
            session_dir,
            state_dir,
        }
    }

    /// `animus-hook inject` for claude over `profile`/`agent`, with `launch` as the launch
    /// arguments (the prompt last). Returns the arguments to start `claude` with. `hook_bin`
    /// overrides the hook binary inject would resolve (the sibling of `animus-hook` itself).
    pub fn inject(
        &self,
        profile: &Path,
        agent: &str,
        launch: &[&str],
        hook_bin: Option<&Path>,
    ) -> Vec<String> {
        let args = self.run_inject(profile, agent, launch, hook_bin, false);
        assert!(
            args.windows(2)
                .any(|w| w[0] == "--settings" && Path::new(&w[1]) == self.settings_path()),
            "inject wires the session's settings file: {args:?}"
        );
        args
    }

    /// `inject` with the kill switch `ANIMUS_DISABLE_HARNESS_HOOKS=1` set.
    pub fn inject_with_kill_switch(
        &self,
        profile: &Path,
        agent: &str,
        launch: &[&str],
    ) -> Vec<String> {
        self.run_inject(profile, agent, launch, None, true)
    }

    fn run_inject(
        &self,
        profile: &Path,
        agent: &str,
        launch: &[&str],
        hook_bin: Option<&Path>,
        kill_switch: bool,
    ) -> Vec<String> {
        let mut command = Command::new(animus_hook());
        command
            .args(["inject", "--provider", "claude", "--config"])
            .arg(profile)
            .args(["--agent", agent, "--session-dir"])
            .arg(&self.session_dir)
            .args(["--session-id", &self.session_id, "--project-root"])
            .arg(&self.project)
            .args(["--prompt-last", "--json"])
            .env_remove("ANIMUS_DISABLE_HARNESS_HOOKS")
            .env_remove("ANIMUS_HOOK_BIN");
        if kill_switch {
            command.env("ANIMUS_DISABLE_HARNESS_HOOKS", "1");
        }
        if let Some(hook_bin) = hook_bin {
            command.arg("--hook-binary").arg(hook_bin);
        }
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
        let printed: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("inject --json prints JSON");
        assert_eq!(
            printed["env"],
            serde_json::json!({}),
            "claude needs no environment"
        );
        serde_json::from_value(printed["args"].clone())
            .expect("inject --json prints {\"args\": [strings…]}")
    }

    pub fn policy_path(&self) -> PathBuf {
        self.session_dir.join("animus-policy.json")
    }

    pub fn settings_path(&self) -> PathBuf {
        self.session_dir.join("animus-hooks.settings.json")
    }

    /// Every record of this session's log (`<state>/<repo-scope>/sessions/<id>.jsonl`). Each
    /// line must be one whole JSON object: a torn or merged line fails the test.
    pub fn session_log(&self) -> Vec<Value> {
        let name = format!("{}.jsonl", self.session_id);
        let logs: Vec<PathBuf> = fs::read_dir(&self.state_dir)
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

    /// Run `claude <args>` in the project dir against `mock` and wait (bounded) for it to end.
    pub fn run_claude(&self, claude: &Path, mock: &MockApi, args: &[String]) -> Outcome {
        let mut command = Command::new(claude);
        command
            .args(args)
            .current_dir(&self.project)
            .env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("HOME", &self.home)
            .env("SHELL", "/bin/bash")
            .env("LANG", "C.UTF-8")
            .env("ANTHROPIC_BASE_URL", mock.base_url())
            .env("ANTHROPIC_API_KEY", "sk-ant-e2e-offline-mock")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_ERROR_REPORTING", "1")
            .env("ANIMUS_CONFIG_DIR", &self.state_dir)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        let started = Instant::now();
        let mut child = command.spawn().expect("spawn claude");
        let pgid = child.id();
        let pipe = |mut reader: Box<dyn Read + Send>| {
            thread::spawn(move || {
                let mut text = Vec::new();
                let _ = reader.read_to_end(&mut text);
                String::from_utf8_lossy(&text).into_owned()
            })
        };
        let stdout = pipe(Box::new(child.stdout.take().unwrap()));
        let stderr = pipe(Box::new(child.stderr.take().unwrap()));
        let (status, timed_out) = loop {
            if let Some(status) = child.try_wait().expect("wait for claude") {
                break (status, false);
            }
            if started.elapsed() > RUN_DEADLINE {
                kill_group(pgid);
                break (child.wait().expect("reap claude"), true);
            }
            thread::sleep(Duration::from_millis(20));
        };
        // Hooks or tools left behind in the group would keep the pipes open.
        kill_group(pgid);
        let stdout = stdout.join().unwrap();
        let stderr = stderr.join().unwrap();
        let result = serde_json::from_str(stdout.trim()).ok();
        let outcome = Outcome {
            status,
            timed_out,
            stdout,
            stderr,
            result,
        };
        assert!(
            !outcome.timed_out,
            "claude did not finish within {RUN_DEADLINE:?}: {outcome:#?}"
        );
        outcome
    }
}

fn kill_group(pgid: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .stderr(Stdio::null())
        .status();
}

/// How one CLI run ended.
#[derive(Debug)]
pub struct Outcome {
    pub status: ExitStatus,
    pub timed_out: bool,
    #[allow(dead_code)] // shown in failure messages
    pub stdout: String,
    #[allow(dead_code)] // shown in failure messages
    pub stderr: String,
    /// The `--output-format json` result object.
    pub result: Option<Value>,
}

impl Outcome {
    /// The result object, asserting the run completed normally.
    pub fn completed(&self) -> &Value {
        let result = self
            .result
            .as_ref()
            .unwrap_or_else(|| panic!("claude printed no JSON result: {self:#?}"));
        assert!(self.status.success(), "claude failed: {self:#?}");
        assert_eq!(result["type"], "result", "{self:#?}");
        result
    }
}
