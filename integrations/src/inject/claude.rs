//! Claude Code: a settings file passed with `--settings` (hooks in exec form, gates with
//! `"onFailure": "block"`, and the profile's `tool_policy` as Claude's own `permissions`).

use std::path::Path;

use serde_json::{Value, json};

use super::{GATE_TIMEOUT_SECS, KERNEL_OBSERVER_EVENTS, OBSERVER_TIMEOUT_SECS, TOOL_EVENTS};
use compiler::diagnostic::{Diagnostic, Errors};
use compiler::events::CLAUDE_HOOK_EVENTS;
use compiler::profile::{AgentProfile, ObserverAction};

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
    let observers = claude_observer_events(profile)?;
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
    for event in &observers {
        hooks.insert(event.to_string(), entry(event, false));
    }
    Ok(json!({
        "hooks": hooks,
        "permissions": claude_permissions(&profile.tool_policy, Some(project_root)),
    }))
}

/// The events claude records without deciding: the kernel's ([`KERNEL_OBSERVER_EVENTS`]) and
/// every event the profile's observers name (a gate event is recorded by its gate already). An
/// event claude does not have is an error at the observer's place.
pub fn claude_observer_events(profile: &AgentProfile) -> Result<Vec<String>, Errors> {
    let mut observers: Vec<String> = KERNEL_OBSERVER_EVENTS.map(String::from).to_vec();
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
            if !engine::GATE_EVENTS.contains(&event.as_str()) && !observers.contains(event) {
                observers.push(event.clone());
            }
        }
    }
    Ok(observers)
}

/// The profile's `tool_policy` as Claude's own `permissions` block: what it grants in Claude is
/// never more than what the profile's own entries grant there.
///
/// The hook never answers an explicit allow: a call the allow entries cover is abstained on,
/// and Claude grants it from these same entries with its own checks (paths outside the
/// project, `find -exec`, redirections, …). So an allow entry exported here is a grant Claude
/// acts on, and one Claude would read more widely than the profile means would make the
/// guarded session looser than Claude alone under the same list. Entries pass through as
/// written (the user's own grants mean in Claude what they meant there), except:
/// - a bare `*` in `allow` is never exported. Claude ignores `*` in an allow list, so a list
///   holding it grants nothing more in Claude; the hook's own reading of `*` in a seed profile
///   (no default deny) stays the hook's, and Claude prompts for what no other entry grants.
///   (Inject once wrote it as Claude's built-in tools, bare `Bash` included: on a real list
///   with `*`, commands Claude alone refuses — `chown -R …`, `ssh-keygen -f ~/.ssh/id_rsa` —
///   ran under the guard.)
/// - any other allow entry whose tool part is a glob (`*Edit`, `mcp__*`): Claude accepts a `*`
///   there only after a literal `mcp__<server>__`; the rest are left out (Claude then prompts,
///   which is stricter, never looser).
/// - `/x` path entries are anchored at the project root ([`anchored_at_project`]): Claude reads
///   `/x` below the settings file's own directory, the session dir; written absolute, the entry
///   reaches in Claude what it reaches in the hook, nothing wider.
///
/// `Bash(*)`, `Read(**)`, `Edit(*)` and the like are exported as written: Claude reads them as
/// the profile does (`corpus/claude-oracle`, scenario `odd-star-allow`). `ask` and `deny`
/// entries only ever narrow what Claude runs; they are exported whole (a `*` among them
/// included: Claude ignores it, the hook does not).
pub fn claude_permissions(
    tool_policy: &compiler::profile::ToolPolicy,
    project_root: Option<&Path>,
) -> Value {
    let entries = |list: &[compiler::profile::Located<String>]| -> Vec<String> {
        list.iter()
            .map(|l| anchored_at_project(&l.value, project_root))
            .collect()
    };
    let mut allow: Vec<String> = Vec::new();
    for entry in &tool_policy.allow {
        let entry = entry.value.as_str();
        if exported_as_grant(entry) {
            let entry = anchored_at_project(entry, project_root);
            if !allow.contains(&entry) {
                allow.push(entry);
            }
        }
    }
    json!({
        "allow": allow,
        "ask": entries(&tool_policy.ask),
        "deny": entries(&tool_policy.deny),
    })
}

/// May the allow entry `entry` be written into Claude's own `allow` list: does it grant in
/// Claude at most what it grants in the profile? Not a bare `*`, nor another tool glob Claude
/// does not accept in an allow list.
pub fn exported_as_grant(entry: &str) -> bool {
    let tool = entry.split('(').next().unwrap_or(entry);
    !tool.contains('*') || (tool != "*" && claude_accepts_allow_glob(tool))
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
    match compiler::tool_policy::root_relative_path_entry(entry) {
        Some((tool, relative)) => format!("{tool}(/{}/{relative})", root.trim_end_matches('/')),
        None => entry.to_string(),
    }
}

use compiler::tool_policy::claude_accepts_allow_glob;
