//! Runs the real opencode CLI headless (`opencode run "<prompt>" </dev/null`) against
//! [`MockApi`], wired exactly as `animus-hook inject --provider opencode` wires it, in a
//! throwaway HOME and project directory.
//!
//! # Keeping the CLI offline (measured on 1.18.33)
//!
//! The CLI starts from an empty environment (`env_clear`) plus:
//! - `OPENCODE_CONFIG_CONTENT`: a provider `mock` through the bundled
//!   `@ai-sdk/openai-compatible` (no download) whose `baseURL` is the mock, `model` and
//!   `small_model` (the title) on it, `autoupdate: false`, `share: "disabled"`, and the MCP
//!   server of a test when it has one.
//! - `OPENCODE_DISABLE_MODELS_FETCH=1`: otherwise every run fetches the models.dev catalogue.
//!   `OPENCODE_DISABLE_AUTOUPDATE`, `OPENCODE_DISABLE_SHARE` and
//!   `OPENCODE_DISABLE_LSP_DOWNLOAD` too, should a path reach them.
//! - `HOME` and the four `XDG_*_HOME`: fresh directories. opencode `npm install`s its plugin
//!   SDK into every config directory that has no `node_modules/` and no lock naming
//!   `@opencode-ai/plugin` (a network fetch, ~40 s): inject seeds the session's
//!   `OPENCODE_CONFIG_DIR`; [`Sandbox::new`] seeds the global `$XDG_CONFIG_HOME/opencode`, and
//!   a test that makes a project `.opencode/` seeds it with [`seed_config_dir`].
//! - The environment `inject --json` printed (`OPENCODE_CONFIG_DIR`), and `ANIMUS_CONFIG_DIR`
//!   (where `emit` keeps the session log; the plugin passes opencode's environment on).
//! - `PATH`, `SHELL=/bin/bash`, `LANG`: for the bash tool.
//!
//! With that, the only sockets it opens go to the mock (checked with `strace` when the suite
//! was written). glob and grep would download ripgrep: no test calls them.
//!
//! A run is bounded: the CLI is spawned in its own process group and the whole group is killed
//! when the deadline passes. (The plugin starts each hook in a process group of its own, so
//! a hook that outlives its run is the plugin's to kill, which a test checks.)

use std::fs;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::{Value, json};

pub use super::common::{Launch, SessionDirs, animus_hook, repo_root};
use super::common::{inject, run_bounded};
use super::mock::MockApi;
use test_support::pinned_cli::{PinnedCli, VersionWord};

/// The CLI version the suite was written against (and `scripts/install-opencode-cli.sh`
/// installs).
pub const OPENCODE_VERSION: &str = "1.18.33";
/// Deadline for one CLI run. A run takes 5-15 s; a hook timeout adds its own 30 s.
pub const RUN_DEADLINE: Duration = Duration::from_secs(120);
/// The prompt of every run.
pub const PROMPT: &str = "Run the scripted tool calls.";

/// The opencode CLI: `$ANIMUS_OPENCODE_BIN`, else the cache that
/// `scripts/install-opencode-cli.sh` fills.
pub static OPENCODE: PinnedCli = PinnedCli {
    name: "the opencode CLI",
    bin_var: "ANIMUS_OPENCODE_BIN",
    install_script: "scripts/install-opencode-cli.sh",
    version: OPENCODE_VERSION,
    version_word: VersionWord::First,
    cached: || Some(".cache/opencode/node_modules/opencode-ai/bin/opencode.exe".into()),
    probe_env: |command, home| {
        command
            .envs(home_env(home))
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("OPENCODE_DISABLE_MODELS_FETCH", "1")
            .env("OPENCODE_DISABLE_AUTOUPDATE", "1");
    },
    found: OnceLock::new(),
};

/// `HOME` and the XDG base directories under `home`.
fn home_env(home: &Path) -> Vec<(&'static str, PathBuf)> {
    vec![
        ("HOME", home.to_path_buf()),
        ("XDG_CONFIG_HOME", home.join(".config")),
        ("XDG_DATA_HOME", home.join(".local/share")),
        ("XDG_CACHE_HOME", home.join(".cache")),
        ("XDG_STATE_HOME", home.join(".local/state")),
    ]
}

/// Make `dir` look like a config directory whose plugin SDK is installed, so opencode does
/// not `npm install` into it (the same two files inject writes into the session's).
pub fn seed_config_dir(dir: &Path) {
    fs::create_dir_all(dir.join("node_modules")).unwrap();
    fs::write(
        dir.join("package-lock.json"),
        r#"{"packages":{"":{"dependencies":{"@opencode-ai/plugin":"*"}}}}"#,
    )
    .unwrap();
}

/// One guarded session's directories (HOME, the project, the run dir, the state root).
pub struct Sandbox {
    pub dirs: SessionDirs,
    /// The MCP servers for `OPENCODE_CONFIG_CONTENT`'s `mcp` (none unless a test adds one).
    pub mcp: Value,
}

test_support::deref_session_dirs!(Sandbox);

impl Sandbox {
    pub fn new(name: &str) -> Sandbox {
        let dirs = SessionDirs::new(name, "e2e-oc-");
        for (_, path) in home_env(&dirs.home) {
            fs::create_dir_all(path).unwrap();
        }
        seed_config_dir(&dirs.home.join(".config/opencode"));
        Sandbox {
            dirs,
            mcp: json!({}),
        }
    }

    /// `animus-hook inject --provider opencode` over `profile`/`agent` for `opencode run
    /// <extra…> <prompt>`. `hook_bin` overrides the hook binary inject would resolve.
    pub fn inject(
        &self,
        profile: &Path,
        agent: &str,
        extra: &[&str],
        hook_bin: Option<&Path>,
    ) -> Launch {
        let mut run: Vec<String> = vec!["run".into()];
        run.extend(extra.iter().map(|e| e.to_string()));
        run.push(PROMPT.into());
        let Launch { args, env } = inject(
            "opencode",
            profile,
            agent,
            &self.dirs,
            hook_bin,
            &run,
            |command| {
                command
                    .arg("--prompt-last")
                    .env_remove("OPENCODE_CONFIG_DIR");
            },
        );
        assert_eq!(
            env,
            [(
                "OPENCODE_CONFIG_DIR".to_owned(),
                self.config_dir().display().to_string()
            )],
            "inject loads the guard through the session's config dir"
        );
        assert!(self.plugin_path().is_file(), "inject wrote the plugin");
        Launch { args, env }
    }

    /// The session's opencode config dir (`OPENCODE_CONFIG_DIR`).
    pub fn config_dir(&self) -> PathBuf {
        self.session_dir.join("opencode")
    }

    pub fn plugin_path(&self) -> PathBuf {
        self.config_dir().join("plugins/animus-guard.js")
    }

    /// `OPENCODE_CONFIG_CONTENT` for `mock`.
    fn config_content(&self, mock: &MockApi) -> String {
        json!({
            "$schema": "https://opencode.ai/config.json",
            "provider": {"mock": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "Mock",
                "options": {"baseURL": mock.base_url(), "apiKey": "e2e-offline-mock"},
                "models": {"m": {"name": "m", "tool_call": true}},
            }},
            "model": "mock/m",
            "small_model": "mock/m",
            "autoupdate": false,
            "share": "disabled",
            "mcp": self.mcp,
        })
        .to_string()
    }

    /// Run opencode with `launch` in the project dir against `mock`, plus `extra_env`, and
    /// wait (bounded) for it to end.
    pub fn run_opencode(
        &self,
        opencode: &Path,
        mock: &MockApi,
        launch: &Launch,
        extra_env: &[(&str, &str)],
    ) -> Outcome {
        let mut command = self.cli_command(opencode, &launch.args, "/usr/local/bin:/usr/bin:/bin");
        command
            .envs(home_env(&self.home))
            .env("OPENCODE_CONFIG_CONTENT", self.config_content(mock))
            .env("OPENCODE_DISABLE_MODELS_FETCH", "1")
            .env("OPENCODE_DISABLE_AUTOUPDATE", "1")
            .env("OPENCODE_DISABLE_SHARE", "1")
            .env("OPENCODE_DISABLE_LSP_DOWNLOAD", "1")
            .envs(launch.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .envs(extra_env.iter().copied());
        let finished = run_bounded(&mut command, RUN_DEADLINE, "opencode");
        Outcome {
            status: finished.status,
            elapsed: finished.elapsed,
            stdout: finished.stdout,
            stderr: finished.stderr,
        }
    }
}

/// How one CLI run ended.
#[derive(Debug)]
pub struct Outcome {
    pub status: ExitStatus,
    pub elapsed: Duration,
    /// The model's final text.
    pub stdout: String,
    /// The banner, each tool's line and the errors tools (or the plugin) raised.
    pub stderr: String,
}

impl Outcome {
    /// The run ended normally with the model's last words on stdout: a blocked call does not
    /// end the session (opencode exits 0 whatever its tools did).
    pub fn completed(&self, last_words: &str) {
        assert!(self.status.success(), "opencode failed: {self:#?}");
        assert!(
            self.stdout.contains(last_words),
            "the session went on to the model's last turn ({last_words:?}): {self:#?}"
        );
    }
}
