//! Claude Code: a settings file passed with `--settings` (hooks in exec form, gates with
//! `"onFailure": "block"`, and the profile's `tool_policy` as Claude's own `permissions`).

use std::path::Path;

use serde_json::{Value, json};

use super::{GATE_TIMEOUT_SECS, KERNEL_OBSERVER_EVENTS, OBSERVER_TIMEOUT_SECS, TOOL_EVENTS};
use crate::diagnostic::{Diagnostic, Errors};
use crate::events::CLAUDE_HOOK_EVENTS;
use crate::profile::{AgentProfile, ObserverAction};

/// The `hooks` settings block for claude; every gate carries the policy's pin
/// (`--policy-digest`, see `engine::sidecar::stamp`).
pub fn claude_settings(
    hook_binary: &Path,
    session_id: &str,
    project_root: &Path,
    (policy_path, policy_digest): (&Path, &str),
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
            args.extend(["--policy", &policy, "--policy-digest", policy_digest]);
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

use crate::tool_policy::claude_accepts_allow_glob;
