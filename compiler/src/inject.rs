//! `inject_harness_hooks`: turn an agent profile into an enforced claude session.
//!
//! For the `claude` provider it
//! 1. compiles the profile into `<session_dir>/animus-policy.json` (+ its sidecar),
//! 2. writes `<session_dir>/animus-hooks.settings.json`, a settings file holding only a `hooks`
//!    block that routes every wired event to `animus-hook emit`, and
//! 3. returns the launch arguments with `--settings <path>` inserted ahead of the prompt.
//!
//! It never writes to `~/.claude` or any shared settings: `--settings` is an additive layer
//! (hook lists concatenate), so the user's own hooks keep running beside ours.
//!
//! ## The settings block
//!
//! - Gate events `PreToolUse` and `PermissionRequest` run
//!   `animus-hook emit --event <E> --session <id> --project-root <root> --policy <policy>` with
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
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::diagnostic::{Diagnostic, Errors};
use crate::events::CLAUDE_HOOK_EVENTS;
use crate::profile::{AgentProfile, ObserverAction};
use crate::providers::{HookConfigVector, harness_hook_config_vector};
use crate::session::validate_session_id;

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
const TOOL_EVENTS: [&str; 5] = [
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
    /// Files written; `args` carry `--settings`.
    Injected {
        args: Vec<String>,
        policy_path: PathBuf,
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
    if vector != HookConfigVector::Settings {
        return Ok(Injection::NotGenerated { vector, args });
    }
    let error = |message: String| Errors::one(Diagnostic::error(None, message));
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
    prepare_session_dir(request.session_dir).map_err(error)?;
    let session_dir =
        std::path::absolute(request.session_dir).map_err(|e| error(format!("session dir: {e}")))?;

    let compiled = crate::compile_profile(request.profile)?;
    let policy_path =
        crate::write_policy_artifacts_protecting(&session_dir, &compiled, &[&hook_binary])?;
    let settings = claude_settings(
        &hook_binary,
        request.session_id,
        &project_root,
        &policy_path,
        request.profile,
    )?;
    let settings_path = session_dir.join(SETTINGS_FILE_NAME);
    let mut text = serde_json::to_string_pretty(&settings).expect("settings serialize");
    text.push('\n');
    crate::artifact::write_atomic(&settings_path, text.as_bytes())
        .map_err(|e| error(format!("cannot write `{}`: {e}", settings_path.display())))?;

    let mut args = args;
    let at = request.prompt_index.unwrap_or(args.len());
    let settings_arg = settings_path
        .to_str()
        .ok_or_else(|| error("the settings path is not UTF-8".into()))?;
    args.splice(at..at, ["--settings".to_string(), settings_arg.to_string()]);
    Ok(Injection::Injected {
        args,
        policy_path,
        settings_path,
        hook_binary,
        warnings: compiled.warnings,
    })
}

/// Create the session directory `0700` (with any missing parents), or check an existing one:
/// it holds the policy every hook of the session reads, so it must be a directory this user
/// owns that neither its group nor others may write (they could swap the policy for theirs).
fn prepare_session_dir(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| format!("cannot create session dir `{}`: {e}", dir.display()))?;
    let metadata = std::fs::metadata(dir)
        .map_err(|e| format!("cannot inspect session dir `{}`: {e}", dir.display()))?;
    if !metadata.is_dir() {
        return Err(format!(
            "session dir `{}` is not a directory",
            dir.display()
        ));
    }
    engine::ownership::check_owner_and_mode(&metadata, dir, false)
        .map_err(|e| format!("refusing the session dir: {e}"))
}

/// The `hooks` settings block for claude.
pub fn claude_settings(
    hook_binary: &Path,
    session_id: &str,
    project_root: &Path,
    policy_path: &Path,
    profile: &AgentProfile,
) -> Result<Value, Errors> {
    let utf8 = |p: &Path, what: &str| {
        p.to_str().map(str::to_string).ok_or_else(|| {
            Errors::one(Diagnostic::error(
                None,
                format!("the {what} path is not UTF-8"),
            ))
        })
    };
    let (command, root, policy) = (
        utf8(hook_binary, "hook binary")?,
        utf8(project_root, "project root")?,
        utf8(policy_path, "policy")?,
    );
    let mut observers: Vec<&str> = KERNEL_OBSERVER_EVENTS.to_vec();
    for observer in &profile.observers {
        match observer.action {
            ObserverAction::Record => {}
        }
        for event in &observer.events {
            if !CLAUDE_HOOK_EVENTS.contains(&event.as_str()) {
                return Err(Errors::one(Diagnostic::error(
                    Some(observer.location.clone()),
                    format!(
                        "observer event `{}` is not a harness hook event",
                        event.escape_debug()
                    ),
                )));
            }
            // A gate event is already recorded by its gate entry.
            if !engine::GATE_EVENTS.contains(&event.as_str())
                && !observers.contains(&event.as_str())
            {
                observers.push(event);
            }
        }
    }
    let entry = |event: &str, gate: bool| -> Value {
        let mut args = vec![
            "emit",
            "--event",
            event,
            "--session",
            session_id,
            "--project-root",
            &root,
        ];
        if gate {
            args.extend(["--policy", &policy]);
        }
        let mut handler = json!({
            "type": "command",
            "command": command,
            "args": args,
            "timeout": if gate { GATE_TIMEOUT_SECS } else { OBSERVER_TIMEOUT_SECS },
        });
        if gate {
            handler["onFailure"] = json!("block");
        }
        let mut group = json!({ "hooks": [handler] });
        if TOOL_EVENTS.contains(&event) {
            group["matcher"] = json!("*");
        }
        json!([group])
    };
    let mut hooks = serde_json::Map::new();
    // The gate events; their entries carry `--policy` and `"onFailure": "block"`.
    for event in engine::GATE_EVENTS {
        hooks.insert(event.to_string(), entry(event, true));
    }
    for event in observers {
        hooks.insert(event.to_string(), entry(event, false));
    }
    Ok(json!({
        "hooks": hooks,
        "permissions": claude_permissions(&profile.tool_policy, Some(project_root)),
    }))
}

/// Claude's built-in tools, what a seed-only `*` in `tool_policy.allow` stands for (Claude
/// skips `*` in an allow list).
pub const CLAUDE_BUILTIN_TOOLS: &[&str] = &[
    "Agent",
    "Bash",
    "Edit",
    "Glob",
    "Grep",
    "LS",
    "MultiEdit",
    "NotebookEdit",
    "NotebookRead",
    "Read",
    "Task",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
    "Write",
];

/// The profile's `tool_policy` as Claude's own `permissions` block.
///
/// The hook never answers an explicit allow: a call the allow entries cover is abstained on,
/// and Claude grants it from these same entries with its own checks (paths outside the
/// project, `find -exec`, redirections, …). Entries pass through as written, except where
/// Claude would read them differently:
/// - a bare `*` in `allow` becomes [`CLAUDE_BUILTIN_TOOLS`] (Claude skips `*` in an allow
///   list; MCP tools are granted only by their own `mcp__<server>` entries);
/// - other allow entries whose tool part is a glob Claude does not accept in an allow list
///   (a `*` anywhere but after a literal `mcp__<server>__`) are left out: Claude then
///   prompts for those calls, which is stricter, never looser.
pub fn claude_permissions(
    tool_policy: &crate::profile::ToolPolicy,
    project_root: Option<&Path>,
) -> Value {
    let entries = |list: &[crate::profile::Located<String>]| -> Vec<String> {
        list.iter()
            .map(|l| anchored_at_project(&l.value, project_root))
            .collect()
    };
    let mut allow = Vec::new();
    for entry in &tool_policy.allow {
        let entry = entry.value.as_str();
        let tool = entry.split('(').next().unwrap_or(entry);
        if tool == "*" && !entry.contains('(') {
            allow.extend(CLAUDE_BUILTIN_TOOLS.iter().map(|t| t.to_string()));
        } else if !tool.contains('*') || claude_accepts_allow_glob(tool) {
            allow.push(anchored_at_project(entry, project_root));
        }
    }
    allow.dedup();
    json!({
        "allow": allow,
        "ask": entries(&tool_policy.ask),
        "deny": entries(&tool_policy.deny),
    })
}

use crate::tool_policy::claude_accepts_allow_glob;

/// `Read(/src/**)` as `Read(//<project root>/src/**)`: claude anchors a `/x` path rule at the
/// directory of the settings file that holds it (measured on 2.1.328 for `--settings`), and
/// the session's settings file lives in the session directory, not the project. Written
/// absolute (`//`), the entry means for claude what it means to the hook: below the project
/// root. Any other entry is returned as written.
fn anchored_at_project(entry: &str, project_root: Option<&Path>) -> String {
    let Some(root) = project_root.and_then(Path::to_str) else {
        return entry.to_string();
    };
    match crate::tool_policy::root_relative_path_entry(entry) {
        Some((tool, relative)) => format!("{tool}(/{}/{relative})", root.trim_end_matches('/')),
        None => entry.to_string(),
    }
}

/// Run `binary --version` once and accept only this project's hook of this version: its first
/// line is `animus-hook <version>` or `animus-hook-emit <version>`. A binary that answers
/// anything else (`/bin/true` answers nothing) would make every gate a no-op, or speak another
/// protocol; a wrapper must pass `--version` through. Bounded by a 5 s deadline.
pub fn verify_hook_binary(binary: &Path) -> Result<(), Errors> {
    let error = |why: String| {
        Errors::one(
            Diagnostic::error(
                None,
                format!(
                    "the hook binary `{}` is not animus-hook {}: {why}",
                    binary.display(),
                    env!("CARGO_PKG_VERSION")
                ),
            )
            .with_help(
                "name the animus-hook built from this checkout (scripts/build-hook.sh), or a \
                 wrapper that passes `--version` through to it",
            ),
        )
    };
    let mut child = std::process::Command::new(binary)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| error(format!("it cannot be run ({e})")))?;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(5))
            }
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(error("`--version` did not answer within 5 s".into()));
            }
            Err(e) => return Err(error(format!("it cannot be waited for ({e})"))),
        }
    };
    let mut out = String::new();
    if let Some(stdout) = child.stdout.take() {
        use std::io::Read;
        let _ = stdout.take(4096).read_to_string(&mut out);
    }
    let first = out.lines().next().unwrap_or("").trim();
    let version = env!("CARGO_PKG_VERSION");
    let accepted = [
        format!("animus-hook {version}"),
        format!("animus-hook-emit {version}"),
    ];
    if status.success() && accepted.iter().any(|a| a == first) {
        Ok(())
    } else {
        Err(error(format!(
            "`--version` answered {:?} (exit {})",
            first.chars().take(80).collect::<String>(),
            status
                .code()
                .map_or_else(|| "by a signal".to_string(), |c| c.to_string())
        )))
    }
}

/// The file name of the lean twin of `animus-hook` that runs only `emit`.
pub const LEAN_EMIT_BINARY: &str = "animus-hook-emit";

/// The binary the harness entries run: `animus-hook-emit` when it sits, executable, beside a
/// resolved `animus-hook` (same build, same `emit` code, without the compiler linked in, so it
/// starts faster on every tool call), otherwise `hook_binary` itself. A binary with any other
/// name (a wrapper the user chose) is kept as it is.
pub fn lean_emit_binary(hook_binary: PathBuf) -> PathBuf {
    if hook_binary
        .file_name()
        .is_none_or(|name| name != "animus-hook")
    {
        return hook_binary;
    }
    let lean = hook_binary.with_file_name(LEAN_EMIT_BINARY);
    match std::fs::metadata(&lean) {
        Ok(m) if is_executable_file(&m) => lean,
        _ => hook_binary,
    }
}

/// A regular file with an execute bit set.
fn is_executable_file(metadata: &std::fs::Metadata) -> bool {
    metadata.is_file() && metadata.permissions().mode() & 0o111 != 0
}

/// Find `animus-hook`: the explicit argument, `ANIMUS_HOOK_BIN`, the sibling of the running
/// executable, then `PATH`. The result exists, is a file and is executable — a session is never
/// launched with a gate that cannot run.
pub fn resolve_hook_binary(
    explicit: Option<&Path>,
    env: &dyn Fn(&str) -> Option<OsString>,
) -> Result<PathBuf, Errors> {
    let error = |message: String| Errors::one(Diagnostic::error(None, message));
    let check = |path: &Path, source: &str| -> Result<PathBuf, Errors> {
        match std::fs::metadata(path) {
            Ok(m) if is_executable_file(&m) => std::path::absolute(path)
                .map_err(|e| error(format!("animus-hook from {source}: {e}"))),
            Ok(_) => Err(error(format!(
                "animus-hook from {source} (`{}`) is not an executable file",
                path.display()
            ))),
            Err(e) => Err(error(format!(
                "animus-hook from {source} (`{}`) cannot be used: {e}",
                path.display()
            ))),
        }
    };
    if let Some(path) = explicit {
        return check(path, "the explicit argument");
    }
    if let Some(path) = env(HOOK_BINARY_ENV).filter(|v| !v.is_empty()) {
        return check(Path::new(&path), HOOK_BINARY_ENV);
    }
    if let Some(sibling) = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|d| d.join("animus-hook")))
        .filter(|sibling| sibling.is_file())
    {
        return check(&sibling, "beside the running executable");
    }
    if let Some(path) = env("PATH") {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join("animus-hook");
            if candidate.is_file() {
                return check(&candidate, "PATH");
            }
        }
    }
    Err(error(format!(
        "cannot find the animus-hook binary (not given explicitly, {HOOK_BINARY_ENV} unset, not beside the running \
         executable, not on PATH); refusing to launch a session whose gate cannot run \
         (set {KILL_SWITCH_ENV}=1 to run unguarded on purpose)"
    )))
}
