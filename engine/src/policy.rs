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

use crate::pattern_error::PatternError;

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
///
/// On the wire (`hook-policy.v1`) it is one of four shapes, told apart by their keys:
///
/// | JSON | [`MatchOn`] | matches when |
/// |---|---|---|
/// | `{"field","regex"}` | [`MatchOn::Text`] | the regex occurs in the field's text (the spec's form) |
/// | `{"field","regex","also_segments":true}` | [`MatchOn::TextAndSegments`] | … in the text or in any normalised segment of it as a shell command |
/// | `{"field","segment"}` | [`MatchOn::Segment`] | any normalised segment matches the Claude-syntax pattern (deny/ask entries) |
/// | `{"field","covers"}` | [`MatchOn::Cover`] | the rule *covers* segments strictly; a call is covered when every segment is covered by some rule (allow entries) |
/// | `{"field","path"}` | [`MatchOn::Path`] | any spelling of the field's file path matches the Claude path glob (deny/ask `Read(…)`, `Edit(…)`) |
/// | `{"field","resolved_path"}` | [`MatchOn::ResolvedPath`] | the path with symlinks resolved matches the glob (allow `Read(…)`, `Edit(…)`) |
/// | `{"field","command_path"}` | [`MatchOn::CommandPath`] | some word of the shell command, read as a path, matches the glob (deny/ask `Read(…)`, `Edit(…)` on `Bash`) |
/// | `{"field","name"}` | [`MatchOn::Name`] | the whole value (a leading `/` aside) is the name, or with `name:*` starts with it (`Skill(…)`, `Agent(…)`) |
/// | `{"field","domain"}` | [`MatchOn::Domain`] | the URL's host is the domain or one below it (deny/ask `WebFetch(domain:…)`) |
/// | `{"field","exact_domain"}` | [`MatchOn::ExactDomain`] | the URL's host matches the domain as Claude matches it (allow) |
///
/// The segment forms are defined in [`crate::shell`] and [`crate::semantics`], the path forms
/// in [`crate::paths`], the domain forms in [`crate::web`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "WireMatcher", into = "WireMatcher")]
pub struct InputMatcher {
    /// Dot path into `tool_input` (`command`, `file_path`, `a.b`).
    pub field: String,
    /// What the pattern is tested against, and how.
    pub on: MatchOn,
    /// A Rust `regex` (searched unanchored, `.` matching newlines) for [`MatchOn::Text`] and
    /// [`MatchOn::TextAndSegments`]; a Claude permission pattern (`git push:*`, `* --live*`)
    /// for [`MatchOn::Segment`] and [`MatchOn::Cover`].
    pub pattern: String,
}

/// How an [`InputMatcher`]'s pattern is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum MatchOn {
    /// The regex, unanchored, over the field's raw text (the spec's semantics).
    Text,
    /// The regex, unanchored, over the raw text and over each normalised segment: quoting,
    /// wrappers and compound syntax cannot hide a match. Author rules on `Bash.command`.
    TextAndSegments,
    /// A Claude pattern, matched against every normalised segment (generous: wrappers
    /// peeled, program basenames): matches when any segment matches.
    Segment,
    /// A Claude pattern, matched strictly (program as written): the rule covers a segment;
    /// only allow rules carry it, alone.
    Cover,
    /// A Claude path glob ([`crate::paths::PathGlob`]), matched against every spelling of the
    /// field's path: as given, normalised, resolved (deny and ask).
    Path,
    /// A Claude path glob, matched against the resolved path only (allow).
    ResolvedPath,
    /// A Claude path glob, matched against every word of a shell command read as a path
    /// ([`crate::paths::command_path_texts`]): a `Read(…)` or `Edit(…)` deny also stops
    /// `cat .env` (deny and ask).
    CommandPath,
    /// A Claude name (`Skill(commit)`, `Skill(commit:*)`, `Agent(Explore)`): the field's whole
    /// value, a leading `/` aside, is the name, or (`name:*`) starts with it.
    Name,
    /// A Claude domain ([`crate::web::DomainPattern`]), matched against the host of the
    /// field's URL and the domains it lies below (deny and ask).
    Domain,
    /// A Claude domain, matched against the URL's host exactly as Claude does (allow).
    ExactDomain,
}

impl MatchOn {
    /// Every view, in sidecar code order.
    pub const ALL: [MatchOn; 10] = [
        MatchOn::Text,
        MatchOn::TextAndSegments,
        MatchOn::Segment,
        MatchOn::Cover,
        MatchOn::Path,
        MatchOn::ResolvedPath,
        MatchOn::CommandPath,
        MatchOn::Name,
        MatchOn::Domain,
        MatchOn::ExactDomain,
    ];

    /// The wire key holding the pattern.
    pub fn wire_key(self) -> &'static str {
        match self {
            MatchOn::Text | MatchOn::TextAndSegments => "regex",
            MatchOn::Segment => "segment",
            MatchOn::Cover => "covers",
            MatchOn::Path => "path",
            MatchOn::ResolvedPath => "resolved_path",
            MatchOn::CommandPath => "command_path",
            MatchOn::Name => "name",
            MatchOn::Domain => "domain",
            MatchOn::ExactDomain => "exact_domain",
        }
    }
}

impl InputMatcher {
    /// The spec's matcher: `regex` searched in the field's text.
    pub fn regex(field: impl Into<String>, regex: impl Into<String>) -> InputMatcher {
        InputMatcher {
            field: field.into(),
            on: MatchOn::Text,
            pattern: regex.into(),
        }
    }

    /// Is the pattern a regex (as opposed to a Claude pattern)?
    pub fn is_regex(&self) -> bool {
        matches!(self.on, MatchOn::Text | MatchOn::TextAndSegments)
    }

    /// The view of the field the evaluators search and the regex they search in it, for every
    /// kind of pattern: a regex as written; a Claude command pattern as
    /// [`ClaudePattern::deny_lowering`](crate::semantics::ClaudePattern::deny_lowering) (deny,
    /// ask) or [`ClaudePattern::segment_regex`](crate::semantics::ClaudePattern::segment_regex)
    /// (covers); a path glob as [`PathGlob::regex`](crate::paths::PathGlob::regex); a domain as
    /// [`DomainPattern::regex`](crate::web::DomainPattern::regex). The error is a sentence
    /// about the pattern.
    pub fn search_regex(&self) -> Result<(MatchOn, String), PatternError> {
        use crate::semantics::ClaudePattern;
        Ok(match self.on {
            MatchOn::Text | MatchOn::TextAndSegments => (self.on, self.pattern.clone()),
            MatchOn::Segment => ClaudePattern::parse(&self.pattern)?.deny_lowering(),
            MatchOn::Cover => (
                MatchOn::Cover,
                ClaudePattern::parse(&self.pattern)?.segment_regex(),
            ),
            MatchOn::Path | MatchOn::ResolvedPath | MatchOn::CommandPath => (
                self.on,
                crate::paths::PathGlob::parse(&self.pattern)?
                    .regex(self.on != MatchOn::ResolvedPath),
            ),
            MatchOn::Name => (MatchOn::Name, crate::semantics::name_regex(&self.pattern)?),
            MatchOn::Domain | MatchOn::ExactDomain => (
                self.on,
                crate::web::DomainPattern::parse(&self.pattern)?.regex(self.on == MatchOn::Domain),
            ),
        })
    }
}

/// The JSON shape of an [`InputMatcher`].
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct WireMatcher {
    field: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    regex: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    also_segments: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    segment: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    covers: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    resolved_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    command_path: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    domain: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    exact_domain: Option<String>,
}

/// An input matcher whose JSON does not say what to match one way.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum MatcherShapeError {
    /// None or several of the pattern keys.
    #[error(
        "input matcher on `{field}` must have exactly one of `regex`, `segment`, `covers`, \
         `path`, `resolved_path`, `command_path`, `name`, `domain`, `exact_domain`, found {found}"
    )]
    NotExactlyOnePattern {
        /// The matcher's field.
        field: String,
        /// How many pattern keys it has.
        found: usize,
    },
    /// `also_segments` beside a key other than `regex`.
    #[error("input matcher on `{field}`: `also_segments` goes with `regex` only")]
    AlsoSegmentsWithoutRegex {
        /// The matcher's field.
        field: String,
    },
}

impl TryFrom<WireMatcher> for InputMatcher {
    type Error = MatcherShapeError;
    fn try_from(w: WireMatcher) -> Result<Self, MatcherShapeError> {
        let mut present: Vec<(MatchOn, String)> = [
            (MatchOn::Text, w.regex),
            (MatchOn::Segment, w.segment),
            (MatchOn::Cover, w.covers),
            (MatchOn::Path, w.path),
            (MatchOn::ResolvedPath, w.resolved_path),
            (MatchOn::CommandPath, w.command_path),
            (MatchOn::Name, w.name),
            (MatchOn::Domain, w.domain),
            (MatchOn::ExactDomain, w.exact_domain),
        ]
        .into_iter()
        .filter_map(|(on, pattern)| pattern.map(|p| (on, p)))
        .collect();
        if present.len() != 1 {
            return Err(MatcherShapeError::NotExactlyOnePattern {
                field: w.field,
                found: present.len(),
            });
        }
        let (mut on, pattern) = present.remove(0);
        if w.also_segments {
            if on != MatchOn::Text {
                return Err(MatcherShapeError::AlsoSegmentsWithoutRegex { field: w.field });
            }
            on = MatchOn::TextAndSegments;
        }
        Ok(InputMatcher {
            field: w.field,
            on,
            pattern,
        })
    }
}

impl From<InputMatcher> for WireMatcher {
    fn from(m: InputMatcher) -> WireMatcher {
        let mut w = WireMatcher {
            field: m.field,
            regex: None,
            also_segments: m.on == MatchOn::TextAndSegments,
            segment: None,
            covers: None,
            path: None,
            resolved_path: None,
            command_path: None,
            name: None,
            domain: None,
            exact_domain: None,
        };
        let slot = match m.on {
            MatchOn::Text | MatchOn::TextAndSegments => &mut w.regex,
            MatchOn::Segment => &mut w.segment,
            MatchOn::Cover => &mut w.covers,
            MatchOn::Path => &mut w.path,
            MatchOn::ResolvedPath => &mut w.resolved_path,
            MatchOn::CommandPath => &mut w.command_path,
            MatchOn::Name => &mut w.name,
            MatchOn::Domain => &mut w.domain,
            MatchOn::ExactDomain => &mut w.exact_domain,
        };
        *slot = Some(m.pattern);
        w
    }
}

/// Why a policy file could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyError {
    /// Not valid JSON, or not the `hook-policy.v1` shape (unknown field, wrong type, …).
    #[error("line {line}, column {column}: {message}")]
    Malformed {
        line: usize,
        column: usize,
        message: String,
    },
    /// Well-formed but not version 1.
    #[error("unsupported policy version {0}; this animus-hook reads version {POLICY_VERSION}")]
    UnsupportedVersion(u32),
    /// Two rules share an id.
    #[error("duplicate rule id `{0}`")]
    DuplicateRuleId(String),
    /// An event name that is not a gate event.
    #[error(
        "rule `{rule}`: event `{event}` is not a gate event (expected one of {})",
        GATE_EVENTS.join(", ")
    )]
    UnknownEvent { rule: String, event: String },
    /// A structurally valid rule that cannot be evaluated (empty id, empty field, …).
    #[error("rule `{rule}`: {message}")]
    InvalidRule { rule: String, message: String },
}

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
            if rule.input_matchers.iter().any(|m| m.on == MatchOn::Cover)
                && (rule.decision != Decision::Allow || rule.input_matchers.len() != 1)
            {
                return Err(PolicyError::InvalidRule {
                    rule: rule.id.clone(),
                    message: "a `covers` matcher must be the only matcher of an `allow` rule"
                        .into(),
                });
            }
            for m in rule.input_matchers.iter().filter(|m| !m.is_regex()) {
                if let Err(why) = m.search_regex() {
                    return Err(PolicyError::InvalidRule {
                        rule: rule.id.clone(),
                        message: format!("matcher on `{}`: {why}", m.field),
                    });
                }
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
