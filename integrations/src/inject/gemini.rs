//! Gemini CLI: hooks in the user settings of a Gemini home made for the session
//! (`GEMINI_CLI_HOME=<session>/gemini-home`), run by Gemini through `bash -c`.
//!
//! Why not the system settings file (`GEMINI_CLI_SYSTEM_SETTINGS_PATH`): Gemini CLI 0.61.0
//! loads a system settings or system defaults file only when root owns it and every directory
//! above it, and nobody else may write them; otherwise it warns and runs without it — with no
//! hooks. So for any user but root that vector leaves the session unguarded (measured).
//!
//! The session's Gemini home holds `.gemini/settings.json`: the user's own settings (from
//! `$GEMINI_CLI_HOME/.gemini/` or `~/.gemini/`) with the hooks added and `hooksConfig.enabled`
//! set; every other entry of the user's `.gemini/` (credentials, history, trusted folders,
//! extensions) and `~/.agents` are symbolic links to the user's own, so the session is the
//! user's Gemini with a guard, and nothing of the user's is written.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use super::{Site, Wiring, session_events};
use compiler::diagnostic::{Diagnostic, Errors};

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
pub(crate) const KERNEL_OBSERVERS: &[&str] = &["AfterTool", "SessionStart", "SessionEnd"];
/// Events whose groups take a tool `matcher`.
pub(crate) const TOOL_EVENTS: &[&str] = &["BeforeTool", "AfterTool"];
/// Milliseconds Gemini gives a gate hook; `emit` answers on its own well before (10 s).
pub const GATE_TIMEOUT_MS: u64 = 30_000;
/// Milliseconds Gemini gives a record-only hook.
pub const OBSERVER_TIMEOUT_MS: u64 = 15_000;
/// The variable naming the directory Gemini CLI takes for the home (its `.gemini/` and
/// `.agents/` live there).
pub const HOME_ENV: &str = "GEMINI_CLI_HOME";
/// The session's Gemini home, inside the session directory.
pub const HOME_DIR_NAME: &str = "gemini-home";

pub(crate) fn wiring(site: &Site<'_>, warnings: &mut Vec<Diagnostic>) -> Result<Wiring, Errors> {
    let (hook, session_dir, profile, env) = (site.hook, site.session_dir, site.profile, site.env);
    let home = session_dir.join(HOME_DIR_NAME);
    let path = home.join(".gemini").join("settings.json");
    let user_home = user_home(env, &home)?;
    let mut settings = user_settings(&user_home)?;
    // A name nobody can write down before the session: Gemini merges every layer's
    // `hooksConfig.disabled` list of hook names, so a project or user setting naming a fixed
    // name would switch the guard off, and no system setting can undo it (measured on 0.61.0).
    let name = format!("animus-hook-{}", unpredictable_suffix()?);
    let events = session_events(
        hook.harness,
        profile,
        (GEMINI_HOOK_EVENTS, KERNEL_OBSERVERS),
        warnings,
    );
    let object = settings.as_object_mut().expect("checked to be an object");
    let hooks = object
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(hooks) = hooks else {
        return Err(error(format!(
            "the user settings' `hooks` is not an object; fix `{}` first",
            user_home.join(".gemini/settings.json").display()
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
                return Err(error(format!(
                    "a hook event in `{}` is not a list",
                    user_home.join(".gemini/settings.json").display()
                )));
            }
        }
    }
    // On at the user layer (the project's settings are not read under `--skip-trust`; an
    // administrator's system settings still have the last word).
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
            HOME_ENV.to_string(),
            home.to_str()
                .ok_or_else(|| error("the session dir is not UTF-8".into()))?
                .to_string(),
        )],
        links: user_entries(&user_home, &home)?,
        files: vec![(path, super::pretty_json(&settings))],
    })
}

/// 16 hex digits from the kernel's random source.
pub(crate) fn unpredictable_suffix() -> Result<String, Errors> {
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

/// The home Gemini CLI would use without us: `$GEMINI_CLI_HOME`, else `$HOME`.
fn user_home(env: &dyn Fn(&str) -> Option<OsString>, ours: &Path) -> Result<PathBuf, Errors> {
    let home = env(HOME_ENV)
        .filter(|v| !v.is_empty())
        .or_else(|| env("HOME").filter(|v| !v.is_empty()))
        .map(PathBuf::from)
        .ok_or_else(|| {
            error(
                "neither GEMINI_CLI_HOME nor HOME is set: cannot find the user's Gemini settings"
                    .into(),
            )
        })?;
    if home == ours {
        return Err(error(format!(
            "{HOME_ENV} already names this session's Gemini home (`{}`): launch inject from \
             the user's own environment",
            ours.display()
        )));
    }
    Ok(home)
}

/// The user's own settings (`<home>/.gemini/settings.json`, JSON with comments), or none.
fn user_settings(home: &Path) -> Result<Value, Errors> {
    let source = home.join(".gemini").join("settings.json");
    let text = match std::fs::read_to_string(&source) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(json!({})),
        Err(e) => {
            return Err(error(format!(
                "cannot read the user's Gemini settings `{}` (the session's settings start from \
                 them): {e}",
                source.display()
            )));
        }
    };
    let node = compiler::jsonc::parse(&text).map_err(|e| {
        error(format!(
            "{}:{}:{}: the user's Gemini settings are not valid JSON: {}",
            source.display(),
            e.line,
            e.column,
            e.message
        ))
    })?;
    let value = node.to_json();
    if !value.is_object() {
        return Err(error(format!(
            "{}: the user's Gemini settings are not a JSON object",
            source.display()
        )));
    }
    Ok(value)
}

/// Links in the session's Gemini home to everything of the user's but the settings:
/// `.gemini/<entry>` for each entry of the user's `.gemini/`, and `.agents`.
fn user_entries(user_home: &Path, home: &Path) -> Result<Vec<(PathBuf, PathBuf)>, Errors> {
    let mut links = Vec::new();
    let gemini = user_home.join(".gemini");
    match std::fs::read_dir(&gemini) {
        Ok(entries) => {
            for entry in entries {
                let entry =
                    entry.map_err(|e| error(format!("cannot list `{}`: {e}", gemini.display())))?;
                if entry.file_name() == "settings.json" {
                    continue;
                }
                links.push((home.join(".gemini").join(entry.file_name()), entry.path()));
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(error(format!("cannot list `{}`: {e}", gemini.display()))),
    }
    let agents = user_home.join(".agents");
    if agents.exists() {
        links.push((home.join(".agents"), agents));
    }
    links.sort();
    Ok(links)
}
