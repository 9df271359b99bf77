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

use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::Value;
use test_support::pinned_cli::{PinnedCli, VersionWord};

pub use super::common::{SessionDirs, animus_hook, repo_root};
use super::common::{inject, run_bounded};
use super::mock_api::MockApi;

/// The CLI version the suite was written against (and `scripts/install-claude-cli.sh` installs).
pub const CLAUDE_CODE_VERSION: &str = "2.1.328";
/// Deadline for one CLI run. A normal run takes about a second; a hook timeout adds its own.
pub const RUN_DEADLINE: Duration = Duration::from_secs(90);

/// The Claude Code CLI: `$ANIMUS_CLAUDE_BIN`, else the cache that
/// `scripts/install-claude-cli.sh` fills.
pub static CLAUDE: PinnedCli = PinnedCli {
    name: "the Claude Code CLI",
    bin_var: "ANIMUS_CLAUDE_BIN",
    install_script: "scripts/install-claude-cli.sh",
    version: CLAUDE_CODE_VERSION,
    version_word: VersionWord::First,
    cached: || {
        Some(".cache/claude-code/node_modules/@anthropic-ai/claude-code/bin/claude.exe".into())
    },
    probe_env: |command, home| {
        command
            .env("HOME", home)
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
    },
    found: OnceLock::new(),
};

/// One guarded session's directories (HOME, the project, the run dir, the state root).
pub struct Sandbox {
    pub dirs: SessionDirs,
}

test_support::deref_session_dirs!(Sandbox);

impl Sandbox {
    pub fn new(name: &str) -> Sandbox {
        Sandbox {
            dirs: SessionDirs::new(name, "e2e-"),
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
        let launch: Vec<String> = launch.iter().map(|a| a.to_string()).collect();
        let printed = inject(
            "claude",
            profile,
            agent,
            &self.dirs,
            hook_bin,
            &launch,
            |command| {
                command.arg("--prompt-last");
                if kill_switch {
                    command.env("ANIMUS_DISABLE_HARNESS_HOOKS", "1");
                }
            },
        );
        assert!(printed.env.is_empty(), "claude needs no environment");
        printed.args
    }

    pub fn settings_path(&self) -> PathBuf {
        self.session_dir.join("animus-hooks.settings.json")
    }

    /// `claude <args>` in the project dir against `mock`, offline, from an empty environment
    /// (see the module documentation); `SHELL` is `/bin/bash`.
    pub fn claude_command(&self, claude: &Path, mock: &MockApi, args: &[String]) -> Command {
        let mut command = self.cli_command(claude, args, "/usr/local/bin:/usr/bin:/bin");
        command
            .env("ANTHROPIC_BASE_URL", mock.base_url())
            .env("ANTHROPIC_API_KEY", "sk-ant-e2e-offline-mock")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("DISABLE_TELEMETRY", "1")
            .env("DISABLE_ERROR_REPORTING", "1");
        command
    }

    /// Run `claude <args>` in the project dir against `mock` and wait (bounded) for it to end.
    pub fn run_claude(&self, claude: &Path, mock: &MockApi, args: &[String]) -> Outcome {
        let mut command = self.claude_command(claude, mock, args);
        let finished = run_bounded(&mut command, RUN_DEADLINE, "claude");
        let result = serde_json::from_str(finished.stdout.trim()).ok();
        Outcome {
            status: finished.status,
            stdout: finished.stdout,
            stderr: finished.stderr,
            result,
        }
    }
}

/// How one CLI run ended.
#[derive(Debug)]
pub struct Outcome {
    pub status: ExitStatus,
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
