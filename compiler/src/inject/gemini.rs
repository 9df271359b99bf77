//! Gemini CLI: hooks in a system settings file named by `GEMINI_CLI_SYSTEM_SETTINGS_PATH`
//! (the highest-precedence settings layer; hook lists concatenate with the user's and the
//! project's), run by Gemini through `bash -c`.
//!
//! The file this writes *replaces* the system settings the CLI would otherwise read
//! (`/etc/gemini-cli/settings.json`, or the file the variable already names), so it starts
//! from that file's settings and adds to them: an administrator's settings are kept, not lost.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::{HookCommand, Wiring, observer_events};
use crate::diagnostic::{Diagnostic, Errors};
use crate::profile::AgentProfile;

/// Gemini CLI's hook events (0.61.0).
pub const GEMINI_HOOK_EVENTS: &[&str] = &[
    "SessionStart",
    "SessionEnd",
    "BeforeAgent",
    "AfterAgent",
    "BeforeModel",
    "AfterModel",
    "BeforeToolSelection",
    "BeforeTool",
    "AfterTool",
    "PreCompress",
    "Notification",
];
/// Recorded in every session.
const KERNEL_OBSERVERS: &[&str] = &["AfterTool", "SessionStart", "SessionEnd"];
/// Events whose groups take a tool `matcher`.
const TOOL_EVENTS: &[&str] = &["BeforeTool", "AfterTool"];
/// Milliseconds Gemini gives a gate hook; `emit` answers on its own well before (10 s).
pub const GATE_TIMEOUT_MS: u64 = 30_000;
/// Milliseconds Gemini gives a record-only hook.
pub const OBSERVER_TIMEOUT_MS: u64 = 15_000;
/// The variable naming the system settings file.
pub const SYSTEM_SETTINGS_ENV: &str = "GEMINI_CLI_SYSTEM_SETTINGS_PATH";
/// Where Gemini CLI reads system settings on Linux when the variable is unset.
pub const DEFAULT_SYSTEM_SETTINGS: &str = "/etc/gemini-cli/settings.json";
/// The settings file written into the session directory.
pub const SETTINGS_FILE_NAME: &str = "animus-gemini.settings.json";

pub(crate) fn wiring(
    hook: &HookCommand,
    session_dir: &Path,
    profile: &AgentProfile,
    env: &dyn Fn(&str) -> Option<OsString>,
    warnings: &mut Vec<Diagnostic>,
) -> Result<Wiring, Errors> {
    let path = session_dir.join(SETTINGS_FILE_NAME);
    let mut settings = system_settings(env, &path)?;
    // A name nobody can write down before the session: Gemini merges every layer's
    // `hooksConfig.disabled` list of hook names, so a project or user setting naming a fixed
    // name would switch the guard off, and no system setting can undo it (measured on 0.61.0).
    let name = format!("animus-hook-{}", unpredictable_suffix()?);
    let mut events: Vec<(String, bool)> = hook
        .harness
        .gate_events()
        .iter()
        .map(|(event, _)| (event.to_string(), true))
        .collect();
    events.extend(
        observer_events(
            hook.harness,
            profile,
            GEMINI_HOOK_EVENTS,
            KERNEL_OBSERVERS,
            warnings,
        )
        .into_iter()
        .map(|e| (e, false)),
    );
    let object = settings.as_object_mut().expect("checked to be an object");
    let hooks = object
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(hooks) = hooks else {
        return Err(error(format!(
            "the system settings' `hooks` is not an object; fix `{}` first",
            system_settings_source(env).display()
        )));
    };
    for (event, gate) in events {
        let mut group = json!({
            "hooks": [{
                "type": "command",
                "name": name,
                "command": hook.shell_line(
                    &event,
                    gate,
                    if gate { GATE_TIMEOUT_MS } else { OBSERVER_TIMEOUT_MS } / 1000,
                ),
                "timeout": if gate { GATE_TIMEOUT_MS } else { OBSERVER_TIMEOUT_MS },
            }]
        });
        if TOOL_EVENTS.contains(&event.as_str()) {
            group["matcher"] = json!("*");
        }
        match hooks.entry(event).or_insert_with(|| json!([])) {
            Value::Array(groups) => groups.push(group),
            _ => {
                return Err(error(
                    "a hook event in the system settings is not a list".into(),
                ));
            }
        }
    }
    // The system layer has the last word on `hooksConfig.enabled`: a project's
    // `.gemini/settings.json` cannot switch the session's hooks off.
    let hooks_config = object
        .entry("hooksConfig")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(config) = hooks_config {
        config.insert("enabled".into(), Value::Bool(true));
    } else {
        *hooks_config = json!({ "enabled": true });
    }
    Ok(Wiring {
        flags_first: true,
        // Hooks register only in a trusted folder: the session's project is trusted for this
        // run (the flag writes nothing to the user's trusted-folders list).
        flags: vec!["--skip-trust".into()],
        env: vec![(
            SYSTEM_SETTINGS_ENV.to_string(),
            path.to_str()
                .ok_or_else(|| error("the settings path is not UTF-8".into()))?
                .to_string(),
        )],
        files: vec![(path, super::pretty_json(&settings))],
    })
}

/// 16 hex digits from the kernel's random source.
fn unpredictable_suffix() -> Result<String, Errors> {
    use std::io::Read;
    let mut bytes = [0u8; 8];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(|e| error(format!("cannot read /dev/urandom for the hook's name: {e}")))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

fn error(message: String) -> Errors {
    Errors::one(Diagnostic::error(None, message))
}

/// The system settings file the CLI would read without us.
fn system_settings_source(env: &dyn Fn(&str) -> Option<OsString>) -> PathBuf {
    env(SYSTEM_SETTINGS_ENV)
        .filter(|v| !v.is_empty())
        .map_or_else(|| PathBuf::from(DEFAULT_SYSTEM_SETTINGS), PathBuf::from)
}

/// The settings to start from: those of the system settings file the CLI would read (none when
/// it does not exist, or when it is the file written here), as a JSON object.
fn system_settings(env: &dyn Fn(&str) -> Option<OsString>, ours: &Path) -> Result<Value, Errors> {
    let source = system_settings_source(env);
    if source == ours {
        return Ok(json!({}));
    }
    let text = match std::fs::read_to_string(&source) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(json!({})),
        Err(e) => {
            return Err(error(format!(
                "cannot read Gemini CLI's system settings `{}` (the session's settings replace \
                 them, so they must be kept): {e}",
                source.display()
            )));
        }
    };
    let node = crate::jsonc::parse(&text).map_err(|e| {
        error(format!(
            "{}:{}:{}: Gemini CLI's system settings are not valid JSON: {}",
            source.display(),
            e.line,
            e.column,
            e.message
        ))
    })?;
    let value = node.to_json();
    if !value.is_object() {
        return Err(error(format!(
            "{}: Gemini CLI's system settings are not a JSON object",
            source.display()
        )));
    }
    Ok(value)
}
