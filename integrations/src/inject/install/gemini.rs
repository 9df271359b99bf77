//! `install --harness gemini`: the guard's hooks in the user's own Gemini CLI settings
//! (`$GEMINI_CLI_HOME/.gemini/settings.json`, else `~/.gemini/settings.json`).
//!
//! The entries are those `inject --provider gemini` puts in a session's settings — the gate on
//! `BeforeTool` as the shell line that blocks on any failure, observers on `AfterTool`,
//! `SessionStart` and `SessionEnd` — running `emit --from-payload` (Gemini's payloads carry
//! `session_id` and `cwd`). Every handler carries one random name (Gemini merges the
//! `hooksConfig.disabled` lists of every layer by name, so a fixed name could be switched off
//! from a cloned project's settings); a re-install keeps the name it finds. `hooksConfig.enabled`
//! is set `true`; what it was before is kept in the manifest, and `uninstall` puts it back.
//!
//! Gemini registers hooks only in a folder the user trusts: in a folder it does not trust, the
//! guard does not run (the README's residual risks; `doctor` cannot see per-folder trust).

use compiler::jsonc::{Node, Value};

use super::super::gemini::{GATE_TIMEOUT_MS, KERNEL_OBSERVERS, OBSERVER_TIMEOUT_MS, TOOL_EVENTS};
use super::super::settings_doc::{node, object, string};
use super::super::{HookCommand, gemini::unpredictable_suffix};
use super::{SettingsDoc, ShapeError, hooks_mut, push_group, remove_ours_keeping};
use compiler::Errors;

/// The name our handlers carry in `doc`, if an earlier install left one.
pub fn existing_name(doc: &SettingsDoc) -> Option<String> {
    super::our_handlers(doc)
        .into_iter()
        .find_map(|(_, handler)| {
            handler
                .to_json()
                .get("name")
                .and_then(serde_json::Value::as_str)
                .map(String::from)
        })
}

/// A fresh hook name: `animus-hook-<16 random hex digits>`.
pub fn fresh_name() -> Result<String, Errors> {
    unpredictable_suffix().map(|suffix| format!("animus-hook-{suffix}"))
}

/// `hooksConfig.enabled` as the file has it now (`None`: not set).
pub fn hooks_enabled(doc: &SettingsDoc) -> Option<serde_json::Value> {
    doc.to_json().get("hooksConfig")?.get("enabled").cloned()
}

/// `doc` with our Gemini entries (an earlier install's replaced) and `hooksConfig.enabled`.
pub fn add_ours(
    doc: &mut SettingsDoc,
    command: (&str, &str, &str),
    name: &str,
) -> Result<(), ShapeError> {
    remove_ours_keeping(doc, true);
    let hook = HookCommand::installed(engine::harness::Harness::Gemini, command);
    let mut groups = vec![("BeforeTool".to_string(), true)];
    groups.extend(KERNEL_OBSERVERS.iter().map(|e| (e.to_string(), false)));
    let events = hooks_mut(doc)?;
    for (event, gate) in groups {
        let timeout = if gate {
            GATE_TIMEOUT_MS
        } else {
            OBSERVER_TIMEOUT_MS
        };
        let handler = object(vec![
            ("type", string("command")),
            ("name", string(name)),
            (
                "command",
                string(&hook.shell_line(&event, gate, timeout / 1000)),
            ),
            ("timeout", node(Value::Number(timeout.to_string()))),
        ]);
        let mut fields = Vec::new();
        if TOOL_EVENTS.contains(&event.as_str()) {
            fields.push(("matcher", string("*")));
        }
        fields.push(("hooks", node(Value::Array(vec![handler]))));
        push_group(events, event, object(fields))?;
    }
    set_enabled(doc, Some(&serde_json::Value::Bool(true)))
}

/// Set `hooksConfig.enabled` to `value`, or remove it (and a `hooksConfig` left empty) for
/// `None`.
pub fn set_enabled(
    doc: &mut SettingsDoc,
    value: Option<&serde_json::Value>,
) -> Result<(), ShapeError> {
    let members = doc.members_mut();
    let at = members.iter().rposition(|(k, _)| k == "hooksConfig");
    let Some(value) = value else {
        if let Some(at) = at
            && let Value::Object(config) = &mut members[at].1.value
        {
            config.retain(|(k, _)| k != "enabled");
            if config.is_empty() {
                members.remove(at);
            }
        }
        return Ok(());
    };
    let value: Node = compiler::jsonc::parse(&value.to_string()).expect("JSON");
    match at {
        Some(at) => match &mut members[at].1.value {
            Value::Object(config) => match config.iter_mut().rev().find(|(k, _)| k == "enabled") {
                Some((_, existing)) => *existing = value,
                None => config.push(("enabled".into(), value)),
            },
            _ => return Err(ShapeError::HooksConfigNotAnObject),
        },
        None => members.push(("hooksConfig".into(), object(vec![("enabled", value)]))),
    }
    Ok(())
}

/// A Gemini gate's shell line back into the hook's binary and arguments (the single-quoted
/// words after `timeout -k 2 <n>`), for `doctor`.
pub fn gate_of_shell_line(line: &str) -> Option<(String, Vec<String>)> {
    let rest = line.strip_prefix("out=$(timeout -k 2 ")?;
    let rest = rest.split_once(' ')?.1;
    let mut words = Vec::new();
    let mut chars = rest.chars().peekable();
    loop {
        match chars.next()? {
            '\'' => {
                let mut word = String::new();
                loop {
                    match chars.next()? {
                        '\'' if chars.peek() == Some(&'\\') => {
                            // `'\''`: a quote inside the word.
                            chars.next();
                            chars.next();
                            chars.next();
                            word.push('\'');
                        }
                        '\'' => break,
                        c => word.push(c),
                    }
                }
                words.push(word);
            }
            ' ' => {}
            ')' => break,
            _ => return None,
        }
    }
    let mut words = words.into_iter();
    let binary = words.next()?;
    Some((binary, words.collect()))
}
