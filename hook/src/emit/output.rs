//! The harness's decision shapes (Claude Code), one line each.

use engine::Decision;

/// Longest reason sent to the harness (Claude caps hook output strings at 10,000 characters).
pub const MAX_REASON_CHARS: usize = 2000;

/// The stdout line for `decision` on gate `event`, or `None` to abstain (print nothing).
///
/// - `PreToolUse`: deny/ask/allow → `hookSpecificOutput.permissionDecision` + reason;
///   defer → nothing.
/// - `PermissionRequest`: deny → `decision.behavior = "deny"` with `message`; allow →
///   `decision.behavior = "allow"`; ask/defer → nothing.
pub fn harness_line(event: &str, decision: Decision, reason: &str) -> Option<String> {
    let reason = json_string(&bounded_reason(reason));
    let line = match (event, decision) {
        (_, Decision::Defer) | ("PermissionRequest", Decision::Ask) => return None,
        ("PermissionRequest", Decision::Deny) => format!(
            r#"{{"hookSpecificOutput":{{"hookEventName":"PermissionRequest","decision":{{"behavior":"deny","message":{reason}}}}}}}"#
        ),
        ("PermissionRequest", Decision::Allow) => {
            r#"{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}"#.to_string()
        }
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
