//! `inject_harness_hooks`: turn an agent profile into an enforced session of a harness.
//!
//! For every harness it compiles the profile into `<session_dir>/animus-policy.json` (+ its
//! sidecar), writes the harness's wiring into the session directory, and returns the launch
//! arguments with the harness's flags inserted and the environment to launch with:
//!
//! - Claude Code ([`claude`]): `animus-hooks.settings.json`, passed with `--settings`;
//! - Codex CLI ([`codex`]): `-c hooks.<Event>=…` flags with their trust (and the same hooks
//!   as TOML in `animus-codex-hooks.toml`, for reading);
//! - Gemini CLI ([`gemini`]): `gemini-home/.gemini/settings.json`, the settings of a session
//!   Gemini home named by `GEMINI_CLI_HOME`, and `--skip-trust`;
//! - opencode ([`opencode`]): `opencode/plugins/animus-guard.js`, through `OPENCODE_CONFIG_DIR`.
//!
//! It never writes to the user's own settings of any harness: each vector is a layer of the
//! session's launch alone, and hook lists concatenate, so the user's own hooks keep running.
//!
//! ## The Claude settings block
//!
//! - Gate events `PreToolUse` and `PermissionRequest` run
//!   `animus-hook emit --event <E> --session <id> --project-root <root> --policy <policy>
//!   --policy-digest sha256:<hex>` (the policy's pin, `engine::sidecar::stamp`) with
//!   `"onFailure": "block"`: claude otherwise fails **open** when a hook crashes, times out or
//!   is missing (measured on 2.1.328).
//! - `PostToolUse`, `PostToolUseFailure`, `PermissionDenied`, `Stop`, `SessionStart`,
//!   `SessionEnd` and every author observer event run the
//!   same without `--policy` (record-only, never a gate, no `onFailure`).
//! - Every entry uses the exec form (`command` + `args`): no path or id is ever shell-parsed.
//!   Tool events match every tool (`"matcher": "*"`).
//! - Observer events are checked against the harness's event list and the action against the
//!   built-in actions, so an author can never place text of their own in a command.
//!
//! ## Kill switch
//!
//! `ANIMUS_DISABLE_HARNESS_HOOKS` set to any non-empty value makes injection a complete no-op:
//! no files, no flags. It is the only way to run a guarded provider unguarded.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use compiler::diagnostic::{Diagnostic, Errors};
use compiler::profile::AgentProfile;
use compiler::providers::{HookConfigVector, harness_hook_config_vector};
use compiler::session::validate_session_id;
use engine::harness::Harness;

/// The settings file's name inside the session directory.
pub const SETTINGS_FILE_NAME: &str = "animus-hooks.settings.json";
/// The kill switch.
pub const KILL_SWITCH_ENV: &str = "ANIMUS_DISABLE_HARNESS_HOOKS";
/// Names the `animus-hook` binary explicitly (after an explicit argument).
pub const HOOK_BINARY_ENV: &str = "ANIMUS_HOOK_BIN";
/// Seconds claude gives a gate hook. `emit` answers (deny) on its own well before: its
/// watchdog fires after 10 s.
pub const GATE_TIMEOUT_SECS: u64 = 30;
/// Seconds claude gives a record-only hook.
pub const OBSERVER_TIMEOUT_SECS: u64 = 15;
/// Observability events always wired: a failed call (`PostToolUseFailure`) and one the harness
/// refused (`PermissionDenied`) leave a trace too, not only their gate record.
pub const KERNEL_OBSERVER_EVENTS: [&str; 6] = [
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionDenied",
    "Stop",
    "SessionStart",
    "SessionEnd",
];
/// Events whose hook matcher selects tools.
pub(crate) const TOOL_EVENTS: [&str; 5] = [
    "PreToolUse",
    "PermissionRequest",
    "PostToolUse",
    "PostToolUseFailure",
    "PermissionDenied",
];

/// Everything `inject_harness_hooks` needs.
#[derive(Clone, Debug)]
pub struct InjectRequest<'a> {
    /// The provider tool (`claude`, `codex`, … or a path to it).
    pub provider: &'a str,
    /// The per-session run directory (created if missing).
    pub session_dir: &'a Path,
    /// The session id passed to every hook.
    pub session_id: &'a str,
    /// The project root passed to every hook.
    pub project_root: &'a Path,
    /// The resolved agent profile.
    pub profile: &'a AgentProfile,
    /// The provider's launch arguments.
    pub launch_args: &'a [String],
    /// Index of the prompt in `launch_args`, if there is one: `--settings` goes just before it.
    pub prompt_index: Option<usize>,
    /// An explicit `animus-hook` binary (wins over `ANIMUS_HOOK_BIN`, the sibling and `PATH`).
    pub hook_binary: Option<&'a Path>,
    /// Also put the guard's files out of the agent's reach with the harness's own sandbox
    /// (`inject --sandbox`, see [`sandbox`]).
    pub sandbox: bool,
}

/// What injection did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Injection {
    /// The kill switch is set: nothing written, arguments unchanged.
    Disabled { args: Vec<String> },
    /// The provider has no generated vector yet: nothing written, arguments unchanged.
    NotGenerated {
        vector: HookConfigVector,
        args: Vec<String>,
    },
    /// Files written; `args` carry the harness's flags (`--settings`, `-c …`), and `env` must
    /// be set when launching it.
    Injected {
        args: Vec<String>,
        env: Vec<(String, String)>,
        policy_path: PathBuf,
        /// The harness configuration written: the Claude or Gemini CLI settings, the opencode
        /// plugin, the Codex hooks (as TOML, for reading: Codex takes them as `-c` flags).
        settings_path: PathBuf,
        hook_binary: PathBuf,
        warnings: Vec<Diagnostic>,
    },
}

impl Injection {
    /// The launch arguments to use.
    pub fn args(&self) -> &[String] {
        match self {
            Injection::Disabled { args }
            | Injection::NotGenerated { args, .. }
            | Injection::Injected { args, .. } => args,
        }
    }
}

/// Inject with the process environment.
pub fn inject_harness_hooks(request: &InjectRequest<'_>) -> Result<Injection, Errors> {
    inject_harness_hooks_with_env(request, &|name| std::env::var_os(name))
}

/// Inject, reading environment variables through `env` (for tests and embedders).
pub fn inject_harness_hooks_with_env(
    request: &InjectRequest<'_>,
    env: &dyn Fn(&str) -> Option<OsString>,
) -> Result<Injection, Errors> {
    let args = request.launch_args.to_vec();
    if env(KILL_SWITCH_ENV).is_some_and(|v| !v.is_empty()) {
        return Ok(Injection::Disabled { args });
    }
    let vector = harness_hook_config_vector(request.provider);
    let harness = match vector {
        HookConfigVector::Settings => Harness::Claude,
        HookConfigVector::HooksJson => Harness::Codex,
        HookConfigVector::GeminiHooks => Harness::Gemini,
        HookConfigVector::JsPlugin => Harness::Opencode,
        HookConfigVector::None => return Ok(Injection::NotGenerated { vector, args }),
    };
    let error = |message: String| Errors::one(Diagnostic::error(None, message));
    if request.sandbox && harness != Harness::Claude {
        return Err(error(format!(
            "`--sandbox` is for claude: {} has no sandbox whose settings can deny writes to the \
             guard's files inside what it lets the agent write (see the README's \"The OS \
             boundary\")",
            harness.as_str()
        )));
    }
    validate_session_id(request.session_id)
        .map_err(|e| error(format!("cannot inject harness hooks: {e}")))?;
    if let Some(i) = request.prompt_index.filter(|&i| i >= args.len()) {
        return Err(error(format!(
            "prompt index {i} is past the {} launch arguments",
            args.len()
        )));
    }
    let hook_binary = lean_emit_binary(resolve_hook_binary(request.hook_binary, env)?);
    verify_hook_binary(&hook_binary)?;
    // The hook resolves the same root for every event; a missing one would make every gate deny.
    let project_root = std::fs::canonicalize(request.project_root).map_err(|e| {
        error(format!(
            "project root `{}` cannot be used: {e}",
            request.project_root.display()
        ))
    })?;
    prepare_session_dir(request.session_dir).map_err(|e| error(e.to_string()))?;
    let session_dir =
        std::path::absolute(request.session_dir).map_err(|e| error(format!("session dir: {e}")))?;

    let compiled = compiler::compile_profile(request.profile)?;
    let policy_path =
        compiler::write_policy_artifacts_protecting(&session_dir, &compiled, &[&hook_binary])?;
    let utf8 = |p: &Path, what: &str| {
        p.to_str()
            .map(str::to_string)
            .ok_or_else(|| error(format!("the {what} path is not UTF-8")))
    };
    // The pin every gate command carries: the policy as written now, and no other.
    let policy_digest = engine::sidecar::stamp::pin_of(&policy_path).map_err(|e| {
        error(format!(
            "cannot pin the policy written to `{}`: {e}",
            policy_path.display()
        ))
    })?;
    let hook = HookCommand {
        harness,
        binary: utf8(&hook_binary, "hook binary")?,
        session_id: request.session_id.to_string(),
        project_root: utf8(&project_root, "project root")?,
        policy: utf8(&policy_path, "policy")?,
        policy_digest,
        from_payload: false,
    };
    let mut warnings = compiled.warnings;
    let site = Site {
        hook: &hook,
        session_dir: &session_dir,
        profile: request.profile,
        env,
    };
    let wiring = match harness {
        Harness::Claude => {
            let mut settings = claude_settings(
                &hook_binary,
                request.session_id,
                &project_root,
                (&policy_path, &hook.policy_digest),
                request.profile,
            )?;
            if request.sandbox {
                let places = sandbox::guard_places(&session_dir, &hook_binary, &project_root, env)
                    .map_err(|e| error(e.to_string()))?;
                settings["sandbox"] = sandbox::claude_sandbox(&places);
            }
            let path = session_dir.join(SETTINGS_FILE_NAME);
            Wiring {
                flags: vec!["--settings".into(), utf8(&path, "settings")?],
                flags_first: false,
                links: Vec::new(),
                env: Vec::new(),
                files: vec![(path, pretty_json(&settings))],
            }
        }
        Harness::Codex => codex::wiring(&site, &mut warnings)?,
        Harness::Gemini => gemini::wiring(&site, &mut warnings)?,
        Harness::Opencode => opencode::wiring(&site, &mut warnings)?,
    };
    for (path, bytes) in &wiring.files {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| error(format!("cannot create `{}`: {e}", dir.display())))?;
        }
        compiler::artifact::write_atomic(path, bytes)
            .map_err(|e| error(format!("cannot write `{}`: {e}", path.display())))?;
    }
    for (link, target) in &wiring.links {
        make_link(link, target).map_err(|e| error(e.to_string()))?;
    }
    let settings_path = wiring
        .files
        .first()
        .map(|(path, _)| path.clone())
        .ok_or_else(|| error("internal error: the wiring wrote no file".into()))?;
    let mut args = args;
    let at = if wiring.flags_first {
        0
    } else {
        request.prompt_index.unwrap_or(args.len())
    };
    args.splice(at..at, wiring.flags);
    Ok(Injection::Injected {
        args,
        env: wiring.env,
        policy_path,
        settings_path,
        hook_binary,
        warnings,
    })
}

/// Make `link` point at `target`, replacing a link that is there (a session dir injected
/// again); anything else in the way is an error, never overwritten.
fn make_link(link: &Path, target: &Path) -> Result<(), SessionDirError> {
    if let Some(dir) = link.parent() {
        std::fs::create_dir_all(dir).map_err(|source| SessionDirError::Io {
            action: "create",
            path: dir.to_path_buf(),
            source,
        })?;
    }
    match std::fs::symlink_metadata(link) {
        Ok(m) if m.file_type().is_symlink() => {
            std::fs::remove_file(link).map_err(|source| SessionDirError::Io {
                action: "replace the link",
                path: link.to_path_buf(),
                source,
            })?
        }
        Ok(_) => {
            return Err(SessionDirError::InTheWay {
                link: link.to_path_buf(),
                target: target.to_path_buf(),
            });
        }
        Err(_) => {}
    }
    std::os::unix::fs::symlink(target, link).map_err(|source| SessionDirError::Link {
        link: link.to_path_buf(),
        target: target.to_path_buf(),
        source,
    })
}

/// Why a session directory (or a link in it) could not be made or trusted; each names the path.
#[derive(Debug, thiserror::Error)]
pub enum SessionDirError {
    /// A system call on `path` failed; `action` says what was being done.
    #[error("cannot {action} `{}`: {source}", .path.display())]
    Io {
        /// What was being done (`create session dir`, `replace the link`, …).
        action: &'static str,
        /// The path.
        path: std::path::PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// Something other than a link where a link must go.
    #[error("`{}` is in the way of a link to `{}`", .link.display(), .target.display())]
    InTheWay {
        /// Where the link goes.
        link: std::path::PathBuf,
        /// What it would point at.
        target: std::path::PathBuf,
    },
    /// The link cannot be made.
    #[error("cannot link `{}` to `{}`: {source}", .link.display(), .target.display())]
    Link {
        /// Where the link goes.
        link: std::path::PathBuf,
        /// What it would point at.
        target: std::path::PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The session dir is a file.
    #[error("session dir `{}` is not a directory", .0.display())]
    NotADirectory(std::path::PathBuf),
    /// Someone else's, or writable by others.
    #[error("refusing the session dir: {0}")]
    NotOwned(#[from] engine::ownership::OwnershipError),
}

/// What a harness's wiring is made from: the hook's command, the session's directory, the
/// agent's profile and the environment the session starts in.
pub(crate) struct Site<'a> {
    pub hook: &'a HookCommand,
    pub session_dir: &'a Path,
    pub profile: &'a AgentProfile,
    pub env: &'a dyn Fn(&str) -> Option<OsString>,
}

/// What one harness needs: the flags inserted ahead of the prompt, the environment to launch
/// with, and the files to write (the first is the one reported as the harness's settings).
pub(crate) struct Wiring {
    pub flags: Vec<String>,
    /// The flags go first rather than ahead of the prompt (Gemini's `-p` takes the prompt as
    /// its value, so nothing may come between them).
    pub flags_first: bool,
    pub env: Vec<(String, String)>,
    pub files: Vec<(PathBuf, Vec<u8>)>,
    /// Symbolic links to make: (the link, what it points to).
    pub links: Vec<(PathBuf, PathBuf)>,
}

pub(crate) fn pretty_json(value: &serde_json::Value) -> Vec<u8> {
    let mut text = serde_json::to_string_pretty(value).expect("JSON values serialize");
    text.push('\n');
    text.into_bytes()
}

/// How a harness runs `animus-hook emit` for one event.
pub(crate) struct HookCommand {
    pub harness: Harness,
    pub binary: String,
    pub session_id: String,
    pub project_root: String,
    pub policy: String,
    /// The policy's pin (`sha256:<hex>` of its stamp), carried by every gate.
    pub policy_digest: String,
    /// `emit --from-payload` instead of `--session` and `--project-root` (an installed hook
    /// serves every session: `install`).
    pub from_payload: bool,
}

impl HookCommand {
    /// The hook `install` writes for `harness`: `emit --from-payload`, serving every session.
    pub fn installed(
        harness: Harness,
        (binary, policy, policy_digest): (&str, &str, &str),
    ) -> Self {
        HookCommand {
            harness,
            binary: binary.into(),
            session_id: String::new(),
            project_root: String::new(),
            policy: policy.into(),
            policy_digest: policy_digest.into(),
            from_payload: true,
        }
    }

    /// `emit`'s arguments for `event`; a gate also names the policy.
    pub fn args(&self, event: &str, gate: bool) -> Vec<String> {
        let mut args: Vec<String> = [
            "emit",
            "--provider",
            self.harness.as_str(),
            "--event",
            event,
        ]
        .map(String::from)
        .into();
        if self.from_payload {
            args.push(install::FROM_PAYLOAD.into());
        } else {
            args.extend(
                [
                    "--session",
                    &self.session_id,
                    "--project-root",
                    &self.project_root,
                ]
                .map(String::from),
            );
        }
        if gate {
            args.extend([
                "--policy".to_string(),
                self.policy.clone(),
                "--policy-digest".to_string(),
                self.policy_digest.clone(),
            ]);
        }
        args
    }

    /// The command as one shell line, for harnesses that run hooks through a shell (Codex and
    /// Gemini CLI: `bash -c`). Every word is single-quoted. Both harnesses let a call run when
    /// a hook fails (a crash, a non-zero exit, their own timeout, output they cannot read) —
    /// except on exit 2 with a reason on stderr. So a gate's line runs the hook under
    /// `timeout` (a few seconds inside the harness's own `timeout_secs`), takes its answer, and
    /// passes it on only when the hook exited 0 and answered nothing or a JSON object; any
    /// other outcome exits 2 with the reason on stderr: a block.
    pub fn shell_line(&self, event: &str, gate: bool, timeout_secs: u64) -> String {
        let mut command = shell_quote(&self.binary);
        for arg in self.args(event, gate) {
            command.push(' ');
            command.push_str(&shell_quote(&arg));
        }
        if !gate {
            return command;
        }
        let limit = timeout_secs.saturating_sub(GATE_TIMEOUT_MARGIN_SECS).max(1);
        format!(
            "out=$(timeout -k 2 {limit} {command}); rc=$?; if [ \"$rc\" -ne 0 ]; then [ \
             \"$rc\" -eq 124 ] && rc=\"124: no answer within {limit} s\"; echo \"animus-hook \
             could not decide this call (the hook failed with exit $rc), so it is blocked (fail \
             closed)\" >&2; exit 2; fi; case \
             \"$out\" in '') ;; '{{\"'*'}}') printf '%s\\n' \"$out\" ;; *) echo \"animus-hook \
             answered something that is not a decision, so the call is blocked (fail closed)\" \
             >&2; exit 2 ;; esac"
        )
    }
}

/// How much sooner than the harness's timeout a shell-run gate is killed, so that the kill is
/// ours (a block) and not the harness's (which runs the call).
pub const GATE_TIMEOUT_MARGIN_SECS: u64 = 5;

/// `text` as one single-quoted shell word.
pub(crate) fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// Create the session directory `0700` (with any missing parents), or check an existing one:
/// it holds the policy every hook of the session reads, so it must be a directory this user
/// owns that neither its group nor others may write (they could swap the policy for theirs).
pub fn prepare_session_dir(dir: &Path) -> Result<(), SessionDirError> {
    use std::os::unix::fs::DirBuilderExt;
    let io = |action| {
        move |source| SessionDirError::Io {
            action,
            path: dir.to_path_buf(),
            source,
        }
    };
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(io("create session dir"))?;
    let metadata = std::fs::metadata(dir).map_err(io("inspect session dir"))?;
    if !metadata.is_dir() {
        return Err(SessionDirError::NotADirectory(dir.to_path_buf()));
    }
    Ok(engine::ownership::check_owner_and_mode(
        &metadata, dir, false,
    )?)
}

mod binary;
pub mod claude;
pub mod codex;
pub mod gemini;
pub mod install;
pub mod opencode;
pub mod sandbox;
pub mod settings_doc;

pub use binary::{LEAN_EMIT_BINARY, lean_emit_binary, resolve_hook_binary, verify_hook_binary};
pub use claude::{claude_observer_events, claude_permissions, claude_settings, exported_as_grant};

/// Every event a harness's session hooks: its gates (`true`), then [`observer_events`].
pub(crate) fn session_events(
    harness: Harness,
    profile: &AgentProfile,
    (native, kernel): (&[&str], &[&str]),
    warnings: &mut Vec<Diagnostic>,
) -> Vec<(String, bool)> {
    let gates = harness
        .gate_events()
        .iter()
        .map(|(e, _)| (e.to_string(), true));
    let observers = observer_events(harness, profile, native, kernel, warnings);
    gates
        .chain(observers.into_iter().map(|e| (e, false)))
        .collect()
}

/// The events a harness records without deciding: `kernel` (always) and every event the
/// profile's observers name that the harness has (`native`). An observer event the harness
/// does not have is a warning, not an error: the profile may be written for another harness.
pub(crate) fn observer_events(
    harness: Harness,
    profile: &AgentProfile,
    native: &[&str],
    kernel: &[&str],
    warnings: &mut Vec<Diagnostic>,
) -> Vec<String> {
    let mut events: Vec<String> = kernel.iter().map(|e| e.to_string()).collect();
    for observer in &profile.observers {
        for event in &observer.events {
            let gate = harness.canonical_event(event).is_some();
            if !native.contains(&event.as_str()) {
                warnings.push(Diagnostic::warning(
                    Some(observer.location.clone()),
                    format!(
                        "observer event `{}` is not a {} hook event; it is not recorded in \
                         this session",
                        event.escape_debug(),
                        harness.as_str()
                    ),
                ));
            } else if !gate && !events.contains(event) {
                events.push(event.clone());
            }
        }
    }
    events
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// Run a gate's shell line with the hook replaced by `script`: (exit code, stdout, stderr).
    fn run_gate(script: &str, timeout_secs: u64) -> (Option<i32>, String, String) {
        let dir = tempfile::tempdir().unwrap();
        let hook = dir.path().join("hook's bin");
        std::fs::write(&hook, format!("#!/bin/sh\n{script}\n")).unwrap();
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
        let command = HookCommand {
            harness: Harness::Codex,
            binary: hook.to_str().unwrap().into(),
            session_id: "s".into(),
            project_root: "/p".into(),
            policy: "/p/animus-policy.json".into(),
            policy_digest: format!("sha256:{}", "0".repeat(64)),
            from_payload: false,
        };
        let line = command.shell_line("PreToolUse", true, timeout_secs);
        let out = std::process::Command::new("bash")
            .args(["-c", &line])
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    #[test]
    fn a_gate_line_passes_on_a_decision_and_blocks_everything_else() {
        let deny = r#"{"decision":"deny","reason":"no"}"#;
        assert_eq!(
            run_gate(&format!("echo '{deny}'"), 30),
            (Some(0), format!("{deny}\n"), String::new())
        );
        // The arguments reach the hook as given.
        let (code, out, _) = run_gate(
            r#"[ "$1 $2 $3 $5" = "emit --provider codex PreToolUse" ] || exit 9"#,
            30,
        );
        assert_eq!((code, out.as_str()), (Some(0), ""));
        for (script, why) in [
            ("echo 'not a decision'", "not a decision"),
            ("echo '{\"decision\":'; exit 0", "not a decision"),
            ("exit 1", "exit 1)"),
            ("kill -SEGV $$", "exit 139)"),
            (
                "echo '{\"decision\":\"deny\",\"reason\":\"x\"}'; exit 3",
                "exit 3)",
            ),
            ("sleep 30", "exit 124: no answer within 1 s)"),
        ] {
            let started = std::time::Instant::now();
            let (code, out, err) = run_gate(script, 6);
            assert_eq!(code, Some(2), "{script}: {out} {err}");
            assert!(
                err.contains(why) && err.contains("(fail closed)"),
                "{script}: {err}"
            );
            assert!(
                started.elapsed() < std::time::Duration::from_secs(5),
                "{script}"
            );
        }
        // A hook that is not there blocks too.
        let dir = tempfile::tempdir().unwrap();
        let command = HookCommand {
            harness: Harness::Gemini,
            binary: dir.path().join("missing").to_str().unwrap().into(),
            session_id: "s".into(),
            project_root: "/p".into(),
            policy: "/p/p.json".into(),
            policy_digest: format!("sha256:{}", "0".repeat(64)),
            from_payload: false,
        };
        let out = std::process::Command::new("bash")
            .args(["-c", &command.shell_line("BeforeTool", true, 30)])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("exit 127)"));
        // Observers run the hook as it is: nothing to block.
        assert!(
            !command
                .shell_line("AfterTool", false, 15)
                .contains("timeout")
        );
    }
}
