//! Compilation: an [`AgentProfile`] becomes one [`HookPolicy`].
//!
//! In order (order never changes a decision — deny wins — but it keeps output stable):
//!
//! 1. `tool_policy.deny` → deny rules, `tool_policy.ask` → ask rules (a `Bash(P)` entry
//!    matches when any normalised segment of the command matches `P`);
//! 2. `tool_policy.allow` → allow rules (a `Bash(P)` entry *covers* segments; a call is
//!    allowed only when every segment is covered, and the allow is left to the harness);
//! 3. the author's `hooks.policy_rules`, tightened: `deny` is kept; `ask` is kept only when
//!    stricter than the default (dropped under an allowlist); `allow` is downgraded to `defer`.
//!
//! Every downgrade or drop is a warning naming the rule and its location. `default_decision` is
//! `deny` when `tool_policy.allow` is non-empty (an allowlist), else `defer`.
//!
//! Kernel rule ids are derived from the entry (`tool_policy.deny:Bash(* --live*)`), so they
//! are stable across compiles and unique; the `tool_policy.` prefix is reserved.

use std::collections::HashSet;

use engine::policy::MatchOn;
use engine::policy::POLICY_VERSION;
use engine::{Decision, HookPolicy, HookPolicyRule};

use crate::diagnostic::{Diagnostic, Errors};
use crate::profile::{AgentProfile, AuthorRule, Located, ToolPolicy};
use crate::tool_policy::lower_entry;

/// Rule ids starting with this are compiled from `tool_policy`; authors may not use it.
pub const KERNEL_ID_PREFIX: &str = "tool_policy.";

/// A compiled policy and what the compiler wants the user to know about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compiled {
    /// The policy to write as `animus-policy.json`.
    pub policy: HookPolicy,
    /// Downgraded or dropped author rules, duplicate entries, ….
    pub warnings: Vec<Diagnostic>,
}

/// Compile a whole profile.
pub fn compile_profile(profile: &AgentProfile) -> Result<Compiled, Errors> {
    let mut warnings = Vec::new();
    let (default_decision, mut rules) = compile_tool_policy(&profile.tool_policy, &mut warnings)?;
    for author in &profile.policy_rules {
        if let Some(rule) = tighten_author_rule(author, default_decision, &mut warnings) {
            rules.push(rule);
        }
    }
    let policy = HookPolicy {
        version: POLICY_VERSION,
        default_decision,
        rules,
    };
    // The loader already checked every author regex and id; this is the last line of defence
    // that what we write is exactly what the engine will accept.
    policy.validate().map_err(|e| {
        Diagnostic::error(
            Some(profile.location.clone()),
            format!("internal: compiled policy invalid: {e}"),
        )
    })?;
    engine::reference::ReferenceEvaluator::new(&policy).map_err(|e| {
        Diagnostic::error(
            Some(profile.location.clone()),
            format!("internal: compiled regex invalid: {e}"),
        )
    })?;
    Ok(Compiled { policy, warnings })
}

/// Lower `tool_policy` to its default decision and kernel rules (deny rules first). Every
/// entry that cannot be lowered is reported, each naming the entry and its location.
pub fn compile_tool_policy(
    tool_policy: &ToolPolicy,
    warnings: &mut Vec<Diagnostic>,
) -> Result<(Decision, Vec<HookPolicyRule>), Errors> {
    let default_decision = if tool_policy.allow.is_empty() {
        Decision::Defer
    } else {
        Decision::Deny
    };
    let mut rules = Vec::new();
    let mut errors = Vec::new();
    for (list, entries, decision) in [
        ("deny", &tool_policy.deny, Decision::Deny),
        ("ask", &tool_policy.ask, Decision::Ask),
        ("allow", &tool_policy.allow, Decision::Allow),
    ] {
        let mut seen = HashSet::new();
        for Located {
            value: entry,
            location,
        } in entries
        {
            if !seen.insert(entry.as_str()) {
                warnings.push(Diagnostic::warning(
                    Some(location.clone()),
                    format!("tool_policy.{list} entry `{entry}` is listed more than once; the duplicate is ignored"),
                ));
                continue;
            }
            match lower_entry(entry, decision) {
                Ok(lowered) => {
                    if let Some(note) = lowered.note {
                        warnings.push(Diagnostic::warning(
                            Some(location.clone()),
                            format!("tool_policy.{list} entry `{entry}` {note}"),
                        ));
                    }
                    let reason = match decision {
                        Decision::Deny => format!("Denied by tool_policy.deny entry `{entry}`."),
                        Decision::Ask => {
                            format!("tool_policy.ask entry `{entry}` requires approval.")
                        }
                        _ => format!(
                            "Covered by tool_policy.allow entry `{entry}`; the grant is left to \
                             the harness's own permission rules, which carry the same entries."
                        ),
                    };
                    for (i, part) in lowered.parts.into_iter().enumerate() {
                        // One entry, several rules (a `Read(…)` entry on each file tool's
                        // field): ` #2`, ` #3` cannot end an entry, so ids stay unique.
                        let id = if i == 0 {
                            format!("{KERNEL_ID_PREFIX}{list}:{entry}")
                        } else {
                            format!("{KERNEL_ID_PREFIX}{list}:{entry} #{}", i + 1)
                        };
                        rules.push(HookPolicyRule {
                            id,
                            events: Vec::new(),
                            tools: part.tools,
                            input_matchers: part.input_matchers,
                            decision,
                            reason: reason.clone(),
                        });
                    }
                }
                Err(why) => errors.push(Diagnostic::error(
                    Some(location.clone()),
                    format!("tool_policy.{list} entry `{entry}` {why}"),
                )),
            }
        }
    }
    if errors.is_empty() {
        Ok((default_decision, rules))
    } else {
        Err(Errors(errors))
    }
}

/// Apply the tighten-only law to one author rule: `None` when it is dropped.
fn tighten_author_rule(
    author: &AuthorRule,
    default_decision: Decision,
    warnings: &mut Vec<Diagnostic>,
) -> Option<HookPolicyRule> {
    let id = &author.id;
    let decision = match author.decision {
        Decision::Deny => Decision::Deny,
        Decision::Ask if Decision::Ask > default_decision => Decision::Ask,
        Decision::Ask => {
            warnings.push(
                Diagnostic::warning(
                    Some(author.location.clone()),
                    format!(
                        "rule `{id}`: decision `ask` dropped: the policy default is `{default_decision}` \
                         (tool_policy.allow is an allowlist), and an author ask would loosen it to a prompt"
                    ),
                )
                .with_help("use `deny`, or add the call to tool_policy.allow"),
            );
            return None;
        }
        Decision::Allow => {
            warnings.push(
                Diagnostic::warning(
                    Some(author.location.clone()),
                    format!(
                        "rule `{id}`: decision `allow` downgraded to `defer`: author rules may only tighten \
                         the policy (an author allow could bypass the harness prompt)"
                    ),
                )
                .with_help("grant access through tool_policy.allow instead"),
            );
            Decision::Defer
        }
        Decision::Defer => Decision::Defer,
    };
    let reason = author.reason.clone().unwrap_or_else(|| match decision {
        Decision::Deny => format!("Denied by policy rule `{id}`."),
        Decision::Ask => format!("Policy rule `{id}` requires approval."),
        _ => format!("Policy rule `{id}` abstains."),
    });
    // On a shell command, an author regex also searches each normalised segment: quoting,
    // wrappers and compound syntax cannot hide from it (it can only tighten).
    let on_bash = author.tools.is_empty()
        || author
            .tools
            .iter()
            .any(|glob| engine::semantics::glob_matches(glob, "Bash"));
    let input_matchers = author
        .input_matchers
        .iter()
        .map(|m| {
            let mut m = m.clone();
            if on_bash && m.field == "command" && m.on == MatchOn::Text {
                m.on = MatchOn::TextAndSegments;
            }
            m
        })
        .collect();
    Some(HookPolicyRule {
        id: id.clone(),
        events: author.events.clone().unwrap_or_default(),
        tools: author.tools.clone(),
        input_matchers,
        decision,
        reason,
    })
}
