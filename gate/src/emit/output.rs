//! The harness's decision shapes (Claude Code), one line each.

use engine::Decision;

/// Longest reason sent to the harness (Claude caps hook output strings at 10,000 characters).
pub const MAX_REASON_CHARS: usize = 2000;

/// The stdout line for `decision` on gate `event`, or `None` to abstain (print nothing).
///
/// - `PreToolUse`: deny/ask → `hookSpecificOutput.permissionDecision` + reason;
///   allow/defer → nothing.
/// - `PermissionRequest`: deny → `decision.behavior = "deny"` with `message`; ask, allow and
///   defer → nothing.
///
/// **An allow is never printed.** An explicit allow from a hook makes Claude skip its own
/// permission checks, and Claude refuses more than any rule matcher shows (paths outside the
/// project, `find -exec`, output redirection, unresolvable variables). So a call the policy's
/// allow entries cover is abstained on, and Claude grants it from the same entries, which
/// `inject` writes into the session settings as Claude's own `permissions`.
pub fn harness_line(event: &str, decision: Decision, reason: &str) -> Option<String> {
    let reason = json_string(&bounded_reason(reason));
    let line = match (event, decision) {
        (_, Decision::Defer | Decision::Allow) | ("PermissionRequest", Decision::Ask) => {
            return None;
        }
        ("PermissionRequest", Decision::Deny) => format!(
            r#"{{"hookSpecificOutput":{{"hookEventName":"PermissionRequest","decision":{{"behavior":"deny","message":{reason}}}}}}}"#
        ),
        (_, decision) => format!(
            r#"{{"hookSpecificOutput":{{"hookEventName":"PreToolUse","permissionDecision":"{}","permissionDecisionReason":{reason}}}}}"#,
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
            harness_line("PreToolUse", Decision::Deny, "no").unwrap(),
            "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"no\"}}\n"
        );
        assert_eq!(harness_line("PreToolUse", Decision::Defer, "x"), None);
        assert_eq!(harness_line("PermissionRequest", Decision::Ask, "x"), None);
        assert_eq!(harness_line("PreToolUse", Decision::Allow, "x"), None);
        assert_eq!(
            harness_line("PermissionRequest", Decision::Allow, "x"),
            None
        );
        assert_eq!(
            harness_line("PermissionRequest", Decision::Deny, "no").unwrap(),
            "{\"hookSpecificOutput\":{\"hookEventName\":\"PermissionRequest\",\"decision\":{\"behavior\":\"deny\",\"message\":\"no\"}}}\n"
        );
        let long = "é".repeat(5000);
        let line = harness_line("PreToolUse", Decision::Deny, &long).unwrap();
        assert!(line.len() < 5000 * 2);
        let parsed: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert!(
            parsed["hookSpecificOutput"]["permissionDecisionReason"]
                .as_str()
                .unwrap()
                .ends_with('…')
        );
        let tricky = harness_line("PreToolUse", Decision::Ask, "say \"hi\"\n\\").unwrap();
        let parsed: serde_json::Value = serde_json::from_str(&tricky).unwrap();
        assert_eq!(
            parsed["hookSpecificOutput"]["permissionDecisionReason"],
            "say \"hi\"\n\\"
        );
    }
}
