//! The compiled policy model: `animus-policy.json`, schema `hook-policy.v1`.
//!
//! ```
//! use engine::{HookPolicy, Decision};
//! let json = r#"{"version":1,"default_decision":"defer","rules":[
//!   {"id":"no-live","events":[],"tools":["Bash"],
//!    "input_matchers":[{"field":"command","regex":".* --live.*"}],
//!    "decision":"deny","reason":"live trading needs a human"}]}"#;
//! let policy = HookPolicy::from_json(json).unwrap();
//! assert_eq!(policy.rules[0].decision, Decision::Deny);
//! assert_eq!(HookPolicy::from_json(&policy.to_json()).unwrap(), policy);
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};

/// The only policy format version this engine reads.
pub const POLICY_VERSION: u32 = 1;

/// The events a policy can gate. Rules name a subset of these in `events`.
pub const GATE_EVENTS: [&str; 2] = ["PreToolUse", "PermissionRequest"];

/// A verdict, ordered by restrictiveness: `Deny > Ask > Allow > Defer`.
///
/// `Ord` follows that order, so the most restrictive of several decisions is their `max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decision {
    /// Abstain: the harness's own permission flow decides.
    Defer,
    /// Approve without prompting (the harness still applies its own deny/ask rules).
    Allow,
    /// Force a prompt (acts as deny in headless runs).
    Ask,
    /// Block the call.
    Deny,
}

impl Decision {
    /// All decisions, least restrictive first.
    pub const ALL: [Decision; 4] = [
        Decision::Defer,
        Decision::Allow,
        Decision::Ask,
        Decision::Deny,
    ];

    /// The lowercase wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Defer => "defer",
            Decision::Allow => "allow",
            Decision::Ask => "ask",
            Decision::Deny => "deny",
        }
    }
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A compiled policy: what `animus-hook` evaluates for every gate event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HookPolicy {
    /// Format version; always [`POLICY_VERSION`].
    pub version: u32,
    /// The decision for a call no non-defer rule matched.
    pub default_decision: Decision,
    /// Every rule, kernel rules first. Order never changes a decision.
    pub rules: Vec<HookPolicyRule>,
}

/// One rule of a compiled policy.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HookPolicyRule {
    /// Stable, unique identifier (kernel rules: `tool_policy.deny:<entry>`).
    pub id: String,
    /// Gate events the rule applies to; empty = every gate event.
    #[serde(default)]
    pub events: Vec<String>,
    /// Tool-name globs (`*` = any run of characters); empty = every tool.
    #[serde(default)]
    pub tools: Vec<String>,
    /// Conditions on `tool_input`, all of which must hold.
    #[serde(default)]
    pub input_matchers: Vec<InputMatcher>,
    /// The verdict when the rule matches.
    pub decision: Decision,
    /// Why: shown to the model on deny, to the user on ask/allow.
    pub reason: String,
}

/// A condition on one field of `tool_input`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputMatcher {
    /// Dot path into `tool_input` (`command`, `file_path`, `a.b`).
    pub field: String,
    /// Rust `regex` syntax, searched unanchored, `.` matching newlines.
    pub regex: String,
}

/// Why a policy file could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PolicyError {
    /// Not valid JSON, or not the `hook-policy.v1` shape (unknown field, wrong type, …).
    Malformed {
        line: usize,
        column: usize,
        message: String,
    },
    /// Well-formed but not version 1.
    UnsupportedVersion(u32),
    /// Two rules share an id.
    DuplicateRuleId(String),
    /// An event name that is not a gate event.
    UnknownEvent { rule: String, event: String },
    /// A structurally valid rule that cannot be evaluated (empty id, empty field, …).
    InvalidRule { rule: String, message: String },
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PolicyError::Malformed {
                line,
                column,
                message,
            } => {
                write!(f, "line {line}, column {column}: {message}")
            }
            PolicyError::UnsupportedVersion(v) => write!(
                f,
                "unsupported policy version {v}; this animus-hook reads version {POLICY_VERSION}"
            ),
            PolicyError::DuplicateRuleId(id) => write!(f, "duplicate rule id `{id}`"),
            PolicyError::UnknownEvent { rule, event } => write!(
                f,
                "rule `{rule}`: event `{event}` is not a gate event (expected one of {})",
                GATE_EVENTS.join(", ")
            ),
            PolicyError::InvalidRule { rule, message } => write!(f, "rule `{rule}`: {message}"),
        }
    }
}

impl std::error::Error for PolicyError {}

impl HookPolicy {
    /// Parse and validate a policy document (strict: unknown fields are errors).
    pub fn from_json(text: &str) -> Result<HookPolicy, PolicyError> {
        let policy: HookPolicy =
            serde_json::from_str(text).map_err(|e| PolicyError::Malformed {
                line: e.line(),
                column: e.column(),
                message: e.to_string(),
            })?;
        policy.validate()?;
        Ok(policy)
    }

    /// Structural checks serde cannot express. Regexes are checked by the evaluator that
    /// compiles them.
    pub fn validate(&self) -> Result<(), PolicyError> {
        if self.version != POLICY_VERSION {
            return Err(PolicyError::UnsupportedVersion(self.version));
        }
        let mut seen = std::collections::HashSet::new();
        for rule in &self.rules {
            if rule.id.is_empty() {
                return Err(PolicyError::InvalidRule {
                    rule: rule.id.clone(),
                    message: "empty rule id".into(),
                });
            }
            if !seen.insert(rule.id.as_str()) {
                return Err(PolicyError::DuplicateRuleId(rule.id.clone()));
            }
            if let Some(event) = rule
                .events
                .iter()
                .find(|e| !GATE_EVENTS.contains(&e.as_str()))
            {
                return Err(PolicyError::UnknownEvent {
                    rule: rule.id.clone(),
                    event: event.clone(),
                });
            }
            if let Some(m) = rule
                .input_matchers
                .iter()
                .find(|m| !crate::semantics::is_valid_field_path(&m.field))
            {
                return Err(PolicyError::InvalidRule {
                    rule: rule.id.clone(),
                    message: format!(
                        "input matcher field `{}` is not a dot path of non-empty names",
                        m.field
                    ),
                });
            }
            if rule.tools.iter().any(String::is_empty) {
                return Err(PolicyError::InvalidRule {
                    rule: rule.id.clone(),
                    message: "empty tool glob".into(),
                });
            }
        }
        Ok(())
    }

    /// The canonical JSON text (pretty, stable field order, trailing newline).
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("a HookPolicy always serializes");
        text.push('\n');
        text
    }
}
