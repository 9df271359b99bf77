//! Runs the real Gemini CLI headless against [`MockGemini`], wired exactly as
//! `animus-hook inject --provider gemini` wires it, in a throwaway HOME and project directory.
//!
//! # Keeping the CLI offline (measured on 0.61.0, Node 20)
//!
//! The CLI starts from an empty environment (`env_clear`) plus:
//! - `GEMINI_API_KEY` (any value) and `GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:<port>`: every
//!   model call goes to the mock (plain http is accepted).
//! - `HOME`: a fresh directory whose `.gemini/settings.json` selects API-key auth (without
//!   `security.auth.selectedType: "gemini-api-key"` the base URL makes the CLI pick the
//!   `gateway` auth type and exit 41), and turns telemetry, usage statistics, auto-update and
//!   its notification off. The CLI writes its chats under `HOME/.gemini/tmp/`, nothing outside.
//! - `-m gemini-2.5-flash`: without it the default model first asks a router model, a side
//!   request. With it, the only request is one streaming call per model turn (the mock fails a
//!   test on anything else). `strace -f -e trace=connect` on a run showed only `AF_UNIX`
//!   sockets and connects to the mock's port: no DNS, no telemetry, no update check.
//! - `GEMINI_CLI_NO_RELAUNCH=true`: the CLI runs in this process instead of re-spawning Node
//!   with a larger heap (saves a second per run; hooks see the same variable either way).
//! - `ANIMUS_CONFIG_DIR`: where `animus-hook emit` keeps the session log (the CLI passes its
//!   whole environment to hooks).
//! - `PATH` as the suite got it (the `gemini` launcher is `#!/usr/bin/env node`), `SHELL`,
//!   `LANG`.
//!
//! # Where the hooks live: a session Gemini home
//!
//! inject points `GEMINI_CLI_HOME` at `<session>/gemini-home`, whose `.gemini/settings.json`
//! is the user's settings (this HOME's) plus the hooks; the rest of the user's `.gemini/` is
//! linked. (A system settings file would be skipped unless root owns it and every directory
//! above it — Gemini CLI 0.61.0 checks — so the sandboxes live under the system temp dir, a
//! world-writable sticky directory, on purpose: the wiring must not depend on where it is.)
//!
//! # Gemini's own permissions: `--policy`
//!
//! Headless, the CLI offers a write or shell tool only when its policy allows it. The suite
//! passes `--policy <file>` granting exactly the tools its cases call (shell with
//! redirection, `write_file`, `replace`, `read_file`, every `mcp_*` tool), the way an operator
//! would grant a headless agent its tools; the rest of the default headless policy stays. So
//! the CLI itself would run every scripted call: any call that does not run was stopped by
//! our hook, and a hook failure that failed open shows as the tool running. (`--yolo` would
//! do as well here; the policy file is the narrower grant.)
//!
//! A run is bounded: the CLI is spawned in its own process group and the whole group (hooks,
//! the MCP server, tool processes) is killed when the deadline passes.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::ExitStatus;
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::{Value, json};

use super::mock_gemini::{API_KEY, MODEL, MockGemini};
pub use crate::common::{Launch, SessionDirs, animus_hook, repo_root};
use crate::common::{inject, run_bounded};
use test_support::pinned_cli::{PinnedCli, VersionWord};
pub use test_support::scratch::write_json;

/// The CLI version the suite was written against (and `scripts/install-gemini-cli.sh` installs).
pub const GEMINI_CLI_VERSION: &str = "0.61.0";
/// Deadline for one CLI run. A normal run takes 3–6 s; a hung gate adds up to its 25 s kill.
pub const RUN_DEADLINE: Duration = Duration::from_secs(90);
/// The settings file inject writes, inside the session dir.
pub const SETTINGS_FILE: &str = "gemini-home/.gemini/settings.json";

/// The user settings every run starts from: API-key auth, nothing phoning home.
pub fn base_user_settings() -> Value {
    json!({
        "security": {"auth": {"selectedType": "gemini-api-key"}},
        "privacy": {"usageStatisticsEnabled": false},
        "telemetry": {"enabled": false},
        "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
    })
}

/// The Gemini CLI: `$ANIMUS_GEMINI_BIN`, else the cache that `scripts/install-gemini-cli.sh`
/// fills.
pub static GEMINI: PinnedCli = PinnedCli {
    name: "the Gemini CLI",
    bin_var: "ANIMUS_GEMINI_BIN",
    install_script: "scripts/install-gemini-cli.sh",
    version: GEMINI_CLI_VERSION,
    version_word: VersionWord::Last,
    cached: || Some(".cache/gemini-cli/node_modules/.bin/gemini".into()),
    probe_env: |command, home| {
        write_json(&home.join(".gemini/settings.json"), &base_user_settings());
        command
            .env("HOME", home)
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("GEMINI_CLI_NO_RELAUNCH", "true");
    },
    found: OnceLock::new(),
};

/// One guarded session's directories (HOME, the project, the run dir, the state root).
pub struct Sandbox {
    pub dirs: SessionDirs,
    /// `--policy` for the CLI: grants the tools the cases call.
    pub gemini_policy: PathBuf,
}

/// Gemini's own policy for every run (see the module documentation).
const GEMINI_POLICY: &str = r#"[[rule]]
toolName = "run_shell_command"
decision = "allow"
priority = 100
allowRedirection = true

[[rule]]
toolName = ["write_file", "replace", "read_file"]
decision = "allow"
priority = 100

[[rule]]
toolName = "mcp_*"
decision = "allow"
priority = 100
"#;

test_support::deref_session_dirs!(Sandbox);

impl Sandbox {
    pub fn new(name: &str) -> Sandbox {
        let dirs = SessionDirs::new(name, "e2e-gemini-");
        for dir in [&dirs.home, &dirs.project, &dirs.state_dir] {
            fs::set_permissions(dir, fs::Permissions::from_mode(0o755)).unwrap();
        }
        // inject makes the session dir itself.
        fs::remove_dir(&dirs.session_dir).unwrap();
        write_json(
            &dirs.home.join(".gemini/settings.json"),
            &base_user_settings(),
        );
        let gemini_policy = dirs.scratch.root.join("gemini-policy.toml");
        fs::write(&gemini_policy, GEMINI_POLICY).unwrap();
        Sandbox {
            dirs,
            gemini_policy,
        }
    }

    /// Add to (or replace keys of) the user settings in HOME.
    pub fn user_settings(&self, extra: Value) {
        let path = self.home.join(".gemini/settings.json");
        let mut settings: Value =
            serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        for (key, value) in extra.as_object().unwrap() {
            settings[key] = value.clone();
        }
        write_json(&path, &settings);
    }

    pub fn settings_path(&self) -> PathBuf {
        self.session_dir.join(SETTINGS_FILE)
    }

    /// `animus-hook inject --provider gemini` for `profile`/`agent` with `launch` as the launch
    /// arguments. `hook_bin` overrides the hook binary inject would resolve.
    pub fn inject(
        &self,
        profile: &Path,
        agent: &str,
        launch: &[String],
        hook_bin: Option<&Path>,
    ) -> Launch {
        let launch = inject(
            "gemini",
            profile,
            agent,
            &self.dirs,
            hook_bin,
            launch,
            |command| {
                command
                    .env_remove("GEMINI_CLI_HOME")
                    // The user whose Gemini settings the session starts from.
                    .env("HOME", &self.home);
            },
        );
        assert_eq!(
            launch.args.first().map(String::as_str),
            Some("--skip-trust"),
            "inject trusts the folder for this run, first: {launch:?}"
        );
        assert_eq!(
            launch.env,
            vec![(
                "GEMINI_CLI_HOME".to_string(),
                self.session_dir
                    .join("gemini-home")
                    .to_str()
                    .unwrap()
                    .to_string()
            )],
            "inject names the session's Gemini home"
        );
        launch
    }

    /// Run `gemini <launch>` in the project dir against `mock` and wait (bounded) for it.
    pub fn run_gemini(
        &self,
        gemini: &Path,
        mock: &MockGemini,
        launch: &Launch,
        extra_env: &[(&str, &str)],
    ) -> Outcome {
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut command = self.cli_command(gemini, &launch.args, path);
        command
            .env("GEMINI_API_KEY", API_KEY)
            .env("GOOGLE_GEMINI_BASE_URL", mock.base_url())
            .env("GEMINI_CLI_NO_RELAUNCH", "true")
            .envs(launch.env.iter().map(|(k, v)| (k, v)))
            .envs(extra_env.iter().copied());
        let finished = run_bounded(&mut command, RUN_DEADLINE, "gemini");
        let result = serde_json::from_str(finished.stdout.trim()).ok();
        Outcome {
            status: finished.status,
            elapsed: finished.elapsed,
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
    pub elapsed: Duration,
    #[allow(dead_code)] // shown in failure messages
    pub stdout: String,
    #[allow(dead_code)] // shown in failure messages
    pub stderr: String,
    /// The `--output-format json` object: `{session_id, response, stats}`.
    pub result: Option<Value>,
}

impl Outcome {
    /// The result object, asserting the run completed normally (exit 0, a final answer).
    pub fn completed(&self) -> &Value {
        assert!(self.status.success(), "gemini failed: {self:#?}");
        let result = self
            .result
            .as_ref()
            .unwrap_or_else(|| panic!("gemini printed no JSON result: {self:#?}"));
        assert!(
            result["response"]
                .as_str()
                .is_some_and(|r| r.starts_with("FINAL: ")),
            "the run ends on the mock's final answer: {self:#?}"
        );
        result
    }
}

/// The launch arguments every case uses (before inject adds its own): the model, Gemini's
/// policy, JSON output, and the prompt (the mock's script does not depend on it).
pub fn launch_args(sandbox: &Sandbox) -> Vec<String> {
    [
        "-m",
        MODEL,
        "--policy",
        sandbox.gemini_policy.to_str().unwrap(),
        "--output-format",
        "json",
        "-p",
        "Run the scripted tool calls.",
    ]
    .map(String::from)
    .into()
}
