//! Runs the real Codex CLI (`codex exec`) headless against [`MockApi`], wired exactly as
//! `animus-hook inject --provider codex` wires it, in a throwaway HOME, CODEX_HOME and project.
//!
//! # Keeping Codex offline (measured on 0.169.0)
//!
//! - The model provider is a custom `responses` provider whose `base_url` is the mock
//!   (`-c model_provider=mock -c model_providers.mock={…}`); its `env_key` variable is the
//!   only credential needed (any value). No login, no `auth.json`.
//! - `--disable plugins` stops the curated-plugin sync (`github.com`, `api.github.com`, a
//!   `git ls-remote`, `chatgpt.com`); `-c analytics.enabled=false` stops `ab.chatgpt.com`. With
//!   both, `strace` showed connections to the mock's port only. `exec` makes no update check.
//! - `HTTPS_PROXY`/`HTTP_PROXY`/`ALL_PROXY` point at the mock, which refuses and logs anything
//!   that is not a model call: every test asserts the log holds nothing else.
//! - `-m gpt-5.5`: a model Codex knows, so it offers its real tool set (`apply_patch`
//!   included); `-s workspace-write`: commands really run, inside Codex's bundled bubblewrap.
//! - `CODEX_HOME` must exist. The process starts from an empty environment.
//!
//! A run is bounded: Codex is spawned in its own process group and the whole group (hooks, the
//! MCP server, tool processes) is killed when the deadline passes.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::Ordering;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use test_support::pinned_cli::{PinnedCli, VersionWord};

pub use crate::common::{Launch, SessionDirs, animus_hook, repo_root};
use crate::common::{inject, run_bounded};
use crate::mock_responses::MockApi;
use test_support::process::kill_group;

/// The CLI version the suite was written against (and `scripts/install-codex-cli.sh` installs).
pub const CODEX_VERSION: &str = "0.169.0";
/// Deadline for one CLI run. A normal run takes about a second; a hung hook adds its timeout.
pub const RUN_DEADLINE: Duration = Duration::from_secs(90);
/// The variable the mock provider reads its API key from.
const KEY_VAR: &str = "ANIMUS_E2E_MOCK_KEY";
const PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// The Codex CLI: `$ANIMUS_CODEX_BIN`, else the native binary inside the npm package's
/// platform dependency, in the cache that `scripts/install-codex-cli.sh` fills.
pub static CODEX: PinnedCli = PinnedCli {
    name: "the Codex CLI",
    bin_var: "ANIMUS_CODEX_BIN",
    install_script: "scripts/install-codex-cli.sh",
    version: CODEX_VERSION,
    // "codex-cli 0.169.0"
    version_word: VersionWord::Last,
    cached: || {
        let (platform, triple) = match std::env::consts::ARCH {
            "x86_64" => ("linux-x64", "x86_64-unknown-linux-musl"),
            "aarch64" => ("linux-arm64", "aarch64-unknown-linux-musl"),
            _ => return None,
        };
        Some(format!(
            ".cache/codex/node_modules/@openai/codex-{platform}/vendor/{triple}/bin/codex"
        ))
    },
    // CODEX_HOME must exist.
    probe_env: |command, home| {
        command
            .env("HOME", home)
            .env("CODEX_HOME", home)
            .env("PATH", PATH);
    },
    found: OnceLock::new(),
};

pub fn codex() -> PathBuf {
    CODEX.path()
}

impl Launch {
    /// The value of the `-c` flag that sets `key` (`hooks.state`, `hooks.PreToolUse`, …).
    pub fn config_flag(&self, key: &str) -> Option<&str> {
        self.args
            .windows(2)
            .filter(|w| w[0] == "-c")
            .find_map(|w| w[1].strip_prefix(key)?.strip_prefix('='))
    }

    /// Only the `-c` flags (for `codex app-server`, which takes them too).
    pub fn config_flags(&self) -> Vec<String> {
        self.args
            .windows(2)
            .filter(|w| w[0] == "-c")
            .flat_map(|w| w.iter().cloned())
            .collect()
    }
}

/// One guarded session's directories (HOME, the project, the run dir, the state root), with
/// CODEX_HOME inside HOME.
pub struct Sandbox {
    pub dirs: SessionDirs,
    pub codex_home: PathBuf,
}

test_support::deref_session_dirs!(Sandbox);

impl Sandbox {
    pub fn new(name: &str) -> Sandbox {
        let dirs = SessionDirs::new(name, "e2e-codex-");
        Sandbox {
            codex_home: dirs.scratch.dir("home/.codex"),
            dirs,
        }
    }

    /// `animus-hook inject --provider codex` for `profile`/`agent`, with `launch` as the launch
    /// arguments (the prompt last). `hook_bin` overrides the hook binary inject would resolve.
    pub fn inject(
        &self,
        profile: &Path,
        agent: &str,
        launch: &[String],
        hook_bin: Option<&Path>,
    ) -> Launch {
        let Launch { args, env } = inject(
            "codex",
            profile,
            agent,
            &self.dirs,
            hook_bin,
            launch,
            |command| {
                command.arg("--prompt-last");
            },
        );
        assert_eq!(
            args.last().map(String::as_str),
            launch.last().map(String::as_str),
            "the prompt stays last"
        );
        let launch = Launch { args, env };
        assert!(
            launch.config_flag("hooks.PreToolUse").is_some()
                && launch.config_flag("hooks.state").is_some(),
            "inject wires the gate and its trust as -c flags: {launch:?}"
        );
        launch
    }

    /// A directory holding `codex-linux-sandbox`, a link to the CLI, for `PATH`. Where
    /// bubblewrap is installed, Codex 0.169.0 runs every sandboxed command as `bwrap …
    /// codex-linux-sandbox …`, found on `PATH`; it puts that alias on `PATH` itself under
    /// `CODEX_HOME`, but refuses to when `CODEX_HOME` is under the temp dir, as every test's is
    /// (measured: "Refusing to create helper binaries under temporary dir", then `bwrap: execvp
    /// codex-linux-sandbox: No such file or directory` for every command). A user's
    /// `~/.codex` gets the alias from Codex.
    fn sandbox_helper_dir(&self) -> PathBuf {
        let dir = self.home.join(".codex-sandbox-helper");
        let link = dir.join("codex-linux-sandbox");
        if !link.exists() {
            std::fs::create_dir_all(&dir).unwrap();
            std::os::unix::fs::symlink(codex(), &link).unwrap();
        }
        dir
    }

    /// The environment every Codex process of this session gets (on top of an empty one).
    fn base_env(&self, mock: Option<&MockApi>) -> Vec<(String, String)> {
        let mut env: Vec<(String, String)> = [
            (
                "PATH",
                format!("{}:{PATH}", self.sandbox_helper_dir().display()),
            ),
            ("HOME", self.home.display().to_string()),
            ("CODEX_HOME", self.codex_home.display().to_string()),
            ("SHELL", "/bin/bash".to_owned()),
            ("LANG", "C.UTF-8".to_owned()),
            (KEY_VAR, "sk-e2e-offline-mock".to_owned()),
            ("ANIMUS_CONFIG_DIR", self.state_dir.display().to_string()),
            ("NO_PROXY", "127.0.0.1,localhost".to_owned()),
            ("no_proxy", "127.0.0.1,localhost".to_owned()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        let proxy = mock.map_or_else(|| "http://127.0.0.1:9".to_owned(), MockApi::proxy_url);
        for var in [
            "HTTPS_PROXY",
            "https_proxy",
            "HTTP_PROXY",
            "http_proxy",
            "ALL_PROXY",
            "all_proxy",
        ] {
            env.push((var.to_owned(), proxy.clone()));
        }
        env
    }

    /// Run Codex with `launch` in the project dir against `mock`, with `extra_env` on top (the
    /// hooks inherit it), and wait (bounded) for it to end.
    pub fn run_codex(
        &self,
        mock: &MockApi,
        launch: &Launch,
        extra_env: &[(&str, &str)],
    ) -> Outcome {
        let mut command = Command::new(codex());
        command
            .args(&launch.args)
            .current_dir(&self.project)
            .env_clear()
            .envs(self.base_env(Some(mock)))
            .envs(launch.env.iter().map(|(k, v)| (k, v)))
            .envs(extra_env.iter().copied())
            .stdin(Stdio::null());
        let finished = run_bounded(&mut command, RUN_DEADLINE, "codex");
        Outcome {
            status: finished.status,
            stdout: finished.stdout,
            stderr: finished.stderr,
        }
    }

    /// Ask `codex app-server` (JSON-RPC on stdio: `initialize`, `initialized`, `hooks/list`)
    /// which hooks the `-c` flags of `launch` define and how Codex trusts each one. Returns the
    /// `hooks/list` result.
    pub fn list_hooks(&self, launch: &Launch) -> Value {
        let mut command = Command::new(codex());
        command
            .arg("app-server")
            .args(["--disable", "plugins", "-c", "analytics.enabled=false"])
            .args(launch.config_flags())
            .current_dir(&self.project)
            .env_clear()
            .envs(self.base_env(None))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0);
        let mut child = command.spawn().expect("spawn codex app-server");
        let pgid = child.id();
        let mut stdin = child.stdin.take().unwrap();
        let project = self.project.display().to_string();
        for message in [
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                   "params": {"clientInfo": {"name": "animus-e2e", "version": "0.1"}}}),
            json!({"jsonrpc": "2.0", "method": "initialized"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "hooks/list",
                   "params": {"cwds": [project]}}),
        ] {
            writeln!(stdin, "{message}").unwrap();
        }
        stdin.flush().unwrap();
        // Read until the answer to request 2 (stdin stays open until then: closing it ends the
        // server). A watchdog kills the group if it never comes.
        let stdout = child.stdout.take().unwrap();
        let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let watchdog = {
            let done = std::sync::Arc::clone(&done);
            thread::spawn(move || {
                let started = Instant::now();
                while !done.load(Ordering::SeqCst) {
                    if started.elapsed() > RUN_DEADLINE {
                        kill_group(pgid);
                        return;
                    }
                    thread::sleep(Duration::from_millis(20));
                }
            })
        };
        let mut answer = None;
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            let Ok(message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if message["id"] == 2 {
                answer = Some(message);
                break;
            }
        }
        done.store(true, Ordering::SeqCst);
        drop(stdin);
        kill_group(pgid);
        let _ = child.wait();
        let _ = watchdog.join();
        let answer = answer.expect("codex app-server answered hooks/list");
        assert!(answer["error"].is_null(), "hooks/list failed: {answer:#}");
        answer["result"].clone()
    }
}

/// How one CLI run ended.
#[derive(Debug)]
pub struct Outcome {
    pub status: ExitStatus,
    /// `codex exec` prints the last agent message on stdout.
    pub stdout: String,
    /// The transcript, with `hook: <Event> <Completed|Blocked|Failed>` lines.
    pub stderr: String,
}

impl Outcome {
    /// Assert the run completed normally (Codex exits 0 even when a hook blocked a call).
    pub fn completed(&self) -> &Self {
        assert!(self.status.success(), "codex failed: {self:#?}");
        self
    }

    /// How many `hook: <event> <status>` lines the transcript has.
    pub fn hook_lines(&self, event: &str, status: &str) -> usize {
        let line = format!("hook: {event} {status}");
        self.stderr.lines().filter(|l| l.trim() == line).count()
    }
}
