//! A harness's tool call decided as the canonical calls it stands for ([`engine::harness`]):
//! each is decided with its own working directory, the strictest outcome answers, and what the
//! harness itself makes unsafe is denied whatever the policy says. `emit` and `check` decide
//! through this one function.

use engine::harness::{self, Harness};
use engine::{Call, Decision, Outcome, Places};
use serde_json::Value;

use crate::payload::PayloadError;

/// Why a harness's call could not be decided; `E` is the error of deciding one canonical call
/// (the policy's). On the hook's path each is a deny.
#[derive(Debug, thiserror::Error)]
pub enum CallError<E> {
    /// The payload names no usable tool.
    #[error(transparent)]
    Payload(#[from] PayloadError),
    /// The event is not one the harness gates on.
    #[error("`{event}` is not a gate event of {harness}")]
    NotAGateEvent {
        /// The event given.
        event: String,
        /// The harness's name.
        harness: &'static str,
    },
    /// The harness's call stood for no canonical call that reached a decision.
    #[error("no decision was reached")]
    NoDecision,
    /// Deciding a canonical call failed.
    #[error(transparent)]
    Decide(E),
}

impl<E> CallError<E> {
    /// The canonical gate event `event` is for `harness`, or why there is none.
    pub fn gate_event(harness: Harness, event: &str) -> Result<&'static str, Self> {
        harness
            .canonical_event(event)
            .ok_or_else(|| CallError::NotAGateEvent {
                event: event.to_string(),
                harness: harness.as_str(),
            })
    }
}

/// The harness a call comes from: `provider` when given; else the harness whose gate event
/// `event` names (`BeforeTool`: Gemini CLI; `tool.execute.before`: opencode); else Codex when
/// the payload carries Codex's `turn_id` (Codex shares Claude's event names and deny shape,
/// and differs for an ask, which it cannot take); else Claude Code.
pub fn detect(provider: Option<Harness>, event: Option<&str>, payload: Option<&Value>) -> Harness {
    if let Some(harness) = provider {
        return harness;
    }
    let event = event.unwrap_or("");
    if let Some(harness) = [Harness::Gemini, Harness::Opencode]
        .into_iter()
        .find(|h| h.canonical_event(event).is_some())
    {
        return harness;
    }
    match payload {
        Some(p) if p.get("turn_id").is_some() => Harness::Codex,
        _ => Harness::Claude,
    }
}

/// Decide `tool_name`/`tool_input` of `payload`, a call of `harness` on its gate `event`, with
/// `decide_one` deciding each canonical call under the policy at `policy_path`. A shell call
/// that would reach the guard itself (its policy, records, binaries, a harness's hook settings)
/// or start a coding agent without its guard is denied whatever the policy says
/// ([`engine::guard::shell_refusal`]).
pub fn decide<E>(
    harness: Harness,
    event: &str,
    payload: &Value,
    places: Places<'_>,
    policy_path: &std::path::Path,
    mut decide_one: impl FnMut(Call<'_>) -> Result<Outcome, E>,
) -> Result<Outcome, CallError<E>> {
    let tool_name = crate::payload::tool_name(payload)?;
    let null = Value::Null;
    let tool_input = payload.get("tool_input").unwrap_or(&null);
    let canonical_event = CallError::gate_event(harness, event)?;
    // Gemini names the MCP server beside the call, which settles how `mcp_a_b_c` splits.
    let mcp_server = payload
        .get("mcp_context")
        .and_then(|c| c.get("server_name"))
        .and_then(Value::as_str);
    let calls = harness::canonical_calls(harness, tool_name, tool_input, mcp_server);
    let mut outcomes = Vec::with_capacity(calls.len());
    let mut guard = None;
    for call in &calls {
        let cwd = call
            .cwd
            .as_deref()
            .map(|dir| crate::places::working_directory(places.cwd, dir));
        let places = Places {
            cwd: match &cwd {
                Some(dir) => dir.as_deref(),
                None => places.cwd,
            },
            ..places
        };
        let absolute = (harness != Harness::Claude)
            .then(|| absolute_file_path(&call.tool_input, places))
            .flatten();
        let outcome = decide_one(Call {
            event: canonical_event,
            tool_name: &call.tool_name,
            tool_input: absolute.as_ref().unwrap_or(&call.tool_input),
            places,
        })
        .map_err(CallError::Decide)?;
        // opencode's as-given reading of an `a_b` name: a rule's decision, never the default.
        if call.only_when_a_rule_decides && outcome.deciding_rule.is_none() {
            continue;
        }
        outcomes.push(outcome);
        if matches!(&*call.tool_name, "Bash" | "Monitor" | "PowerShell")
            && let Some(command) = call.tool_input.get("command").and_then(Value::as_str)
        {
            let guard = guard.get_or_insert_with(|| crate::guard_places::of(policy_path));
            if let Some(refusal) = engine::guard::shell_refusal(command, places, guard) {
                outcomes.push(Outcome {
                    decision: Decision::Deny,
                    reason: refusal.reason,
                    deciding_rule: Some(refusal.rule.to_string()),
                    matched: vec![refusal.rule.to_string()],
                });
            }
        }
    }
    let mut outcome = harness::combine(outcomes).ok_or(CallError::NoDecision)?;
    // A deny the policy gave keeps its own reason.
    if outcome.decision != Decision::Deny
        && let Some(reason) = harness::harness_refusal(harness, tool_name, tool_input)
    {
        outcome.decision = Decision::Deny;
        outcome.reason = reason;
        outcome.deciding_rule = Some(format!("animus.harness:{}", harness.as_str()));
    }
    Ok(outcome)
}

/// `input` with its `file_path` made absolute, when it is not: Claude Code expands `~` and
/// makes every path absolute before its hooks run, and rules are written for that (a regex on
/// `file_path`); the other harnesses pass the model's spelling (`src/x.rs`, `~/.ssh/config`).
/// `None` when there is nothing to change or nothing to anchor it to.
fn absolute_file_path(input: &Value, places: Places<'_>) -> Option<Value> {
    let path = input.get("file_path")?.as_str()?;
    let absolute = if path.starts_with('/') {
        return None;
    } else if let Some(rest) = path.strip_prefix("~/") {
        format!("{}/{rest}", places.home?.trim_end_matches('/'))
    } else if path == "~" {
        places.home?.to_string()
    } else {
        format!("{}/{path}", places.cwd?.trim_end_matches('/'))
    };
    let mut out = input.clone();
    out["file_path"] = Value::String(absolute);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn file_paths_are_made_absolute_as_claude_gives_them() {
        let places = Places {
            cwd: Some("/work/p/"),
            home: Some("/home/u"),
            project_root: Some("/work/p"),
        };
        let path = |p: &str| {
            absolute_file_path(&json!({"file_path": p, "content": "x"}), places)
                .map(|v| v["file_path"].as_str().unwrap().to_string())
        };
        assert_eq!(path("src/a.rs").as_deref(), Some("/work/p/src/a.rs"));
        assert_eq!(
            path("~/.ssh/config").as_deref(),
            Some("/home/u/.ssh/config")
        );
        assert_eq!(path("~").as_deref(), Some("/home/u"));
        assert_eq!(path("/etc/hosts"), None);
        assert_eq!(absolute_file_path(&json!({"command": "ls"}), places), None);
        let nowhere = Places {
            cwd: None,
            home: None,
            project_root: None,
        };
        assert_eq!(
            absolute_file_path(&json!({"file_path": "a"}), nowhere),
            None
        );
    }
}
