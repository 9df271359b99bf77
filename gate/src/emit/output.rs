//! The decision shapes of each harness, one line each.

use engine::Decision;
use engine::harness::Harness;

/// Longest reason sent to the harness (Claude caps hook output strings at 10,000 characters).
pub const MAX_REASON_CHARS: usize = 2000;

/// The stdout line for `decision` on gate `event` of `harness`, or `None` to abstain (print
/// nothing).
///
/// - Claude Code and Codex CLI, `PreToolUse`: deny/ask → `hookSpecificOutput.permissionDecision`
///   with its reason; allow/defer → nothing. Codex has no ask: an ask is a deny saying a human
///   must run the call (its `ask` would be "unsupported", which Codex treats as a failed hook
///   and runs the call).
/// - `PermissionRequest`: deny → `decision.behavior = "deny"` with `message`; ask, allow and
///   defer → nothing (the harness asks its human, or refuses where nobody can answer).
/// - Gemini CLI, `BeforeTool`: deny → `{"decision":"deny","reason":…}`; ask is a deny (its
///   `ask` hangs a headless run); allow/defer → nothing (a hook cannot approve past Gemini's
///   policy engine anyway).
/// - opencode, through the plugin `inject` writes: deny → `{"decision":"deny","reason":…}`,
///   which the plugin throws; ask is a deny (a plugin cannot ask); allow/defer → nothing.
///
/// **An allow is never printed.** An explicit allow from a hook makes Claude skip its own
/// permission checks, and Claude refuses more than any rule matcher shows (paths outside the
/// project, `find -exec`, output redirection, unresolvable variables). So a call the policy's
/// allow entries cover is abstained on, and Claude grants it from the same entries, which
/// `inject` writes into the session settings as Claude's own `permissions`.
pub fn harness_line(
    harness: Harness,
    event: &str,
    decision: Decision,
    reason: &str,
) -> Option<String> {
    let (decision, reason) = match decision {
        Decision::Ask if !harness.can_ask() && event != "PermissionRequest" => (
            Decision::Deny,
            format!(
                "{reason} (the policy asks a human to approve this call, and {} cannot ask: a \
                 human must run it)",
                harness.as_str()
            ),
        ),
        _ if reason.trim().is_empty() => (decision, "denied by the animus-hook policy".into()),
        _ => (decision, reason.to_string()),
    };
    let reason = json_string(&bounded_reason(&reason));
    let line = match (harness, event, decision) {
        (_, _, Decision::Defer | Decision::Allow) | (_, "PermissionRequest", Decision::Ask) => {
            return None;
        }
        (Harness::Claude | Harness::Codex, "PermissionRequest", Decision::Deny) => format!(
            r#"{{"hookSpecificOutput":{{"hookEventName":"PermissionRequest","decision":{{"behavior":"deny","message":{reason}}}}}}}"#
        ),
        (Harness::Claude | Harness::Codex, _, decision) => format!(
            r#"{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","permissionDecision":"{}","permissionDecisionReason":{reason}}}}}"#,
            decision.as_str()
        ),
        (Harness::Gemini | Harness::Opencode, _, decision) => format!(
            r#"{{"decision":"{}","reason":{reason}}}"#,
            decision.as_str()
        ),
    };
    Some(line + "\n")
}

fn json_string(text: &str) -> String {
    serde_json::Value::String(text.to_string()).to_string()
}

fn bounded_reason(reason: &str) -> String {
    if reason.chars().count() <= MAX_REASON_CHARS {
        reason.to_string()
    } else {
        let cut: String = reason.chars().take(MAX_REASON_CHARS - 1).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert_eq!(
            harness_line(Harness::Claude, "PreToolUse", Decision::Deny, "no").unwrap(),
            "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"no\"}}\n"
        );
        // The hook never answers allow, and defers by saying nothing; a PermissionRequest
        // gets no answer but a deny.
        for (event, decision) in [
            ("PreToolUse", Decision::Defer),
            ("PermissionRequest", Decision::Ask),
            ("PreToolUse", Decision::Allow),
            ("PermissionRequest", Decision::Allow),
        ] {
            assert_eq!(
                harness_line(Harness::Claude, event, decision, "x"),
                None,
                "{event} {decision:?}"
            );
        }
        assert_eq!(
            harness_line(Harness::Claude, "PermissionRequest", Decision::Deny, "no").unwrap(),
            "{\"hookSpecificOutput\":{\"hookEventName\":\"PermissionRequest\",\"decision\":{\"behavior\":\"deny\",\"message\":\"no\"}}}\n"
        );
        let long = "é".repeat(5000);
        let line = harness_line(Harness::Claude, "PreToolUse", Decision::Deny, &long).unwrap();
        assert!(line.len() < 5000 * 2);
        let parsed: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert!(
            parsed["hookSpecificOutput"]["permissionDecisionReason"]
                .as_str()
                .unwrap()
                .ends_with('…')
        );
        let tricky = harness_line(
            Harness::Claude,
            "PreToolUse",
            Decision::Ask,
            "say \"hi\"\n\\",
        )
        .unwrap();
        let parsed: serde_json::Value = serde_json::from_str(&tricky).unwrap();
        assert_eq!(
            parsed["hookSpecificOutput"]["permissionDecisionReason"],
            "say \"hi\"\n\\"
        );
    }

    #[test]
    fn shapes_of_other_harnesses() {
        use Decision::{Allow, Ask, Defer, Deny};
        use Harness::{Codex, Gemini, Opencode};
        // The answer's JSON, or None when the hook says nothing.
        let answer = |harness, event, decision, reason| {
            harness_line(harness, event, decision, reason)
                .map(|line| serde_json::from_str::<serde_json::Value>(&line).unwrap())
        };
        // Codex: Claude's deny shape; an ask is a deny naming the human.
        let codex = answer(Codex, "PreToolUse", Ask, "why").unwrap();
        let out = &codex["hookSpecificOutput"];
        assert_eq!(out["permissionDecision"], "deny");
        let reason = out["permissionDecisionReason"].as_str().unwrap();
        assert!(reason.starts_with("why (") && reason.contains("a human must run it"));
        assert_eq!(answer(Codex, "PermissionRequest", Ask, "x"), None);
        // Codex rejects a deny with an empty reason (a failed hook: it runs the call).
        let empty = answer(Codex, "PreToolUse", Deny, " ").unwrap();
        assert_eq!(
            empty["hookSpecificOutput"]["permissionDecisionReason"],
            "denied by the animus-hook policy"
        );
        // Gemini: {decision, reason}; its ask hangs a headless run, so an ask is a deny.
        let gemini = answer(Gemini, "BeforeTool", Ask, "r").unwrap();
        assert_eq!(gemini["decision"], "deny");
        let reason = gemini["reason"].as_str().unwrap();
        assert!(reason.contains("a human must run it"), "{reason}");
        assert_eq!(
            answer(Gemini, "BeforeTool", Deny, "r"),
            Some(serde_json::json!({"decision": "deny", "reason": "r"}))
        );
        assert_eq!(answer(Gemini, "BeforeTool", Allow, "r"), None);
        // opencode: the plugin's shape; no ask.
        let opencode = answer(Opencode, "tool.execute.before", Ask, "r").unwrap();
        assert_eq!(opencode["decision"], "deny");
        assert_eq!(answer(Opencode, "tool.execute.before", Defer, "r"), None);
    }
}
