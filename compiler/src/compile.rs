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
//! `deny` when `tool_policy.allow` is non-empty (an allowlist) and `tool_policy.meaning` is
//! `allowlist` (the default), else `defer`: under `meaning: claude` (what `import` writes) a
//! call no entry names goes to the harness's own flow, and a bare `*` allow is ignored, as
//! claude ignores it.
//!
//! Kernel rule ids are derived from the entry (`tool_policy.deny:Bash(* --live*)`), so they
//! are stable across compiles and unique; the `tool_policy.` prefix is reserved.

use std::collections::HashSet;

use engine::policy::MatchOn;
use engine::policy::POLICY_VERSION;
use engine::{Decision, HookPolicy, HookPolicyRule};

use crate::diagnostic::{Code, Diagnostic, Errors, Location, quote};
use crate::profile::{AgentProfile, AuthorRule, Located, Meaning, ToolPolicy};
use crate::tool_policy::lower_entry;

/// At most this many duplicate entries of one list are each named in a warning; the rest are
/// counted in one (a generated list can repeat an entry millions of times).
const MAX_DUPLICATE_WARNINGS: usize = 100;

/// Rule ids starting with this are compiled from `tool_policy`; authors may not use it.
pub const KERNEL_ID_PREFIX: &str = "tool_policy.";

/// A compiled policy and what the compiler wants the user to know about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compiled {
    /// The policy to write as `animus-policy.json`.
    pub policy: HookPolicy,
    /// Downgraded or dropped author rules, duplicate entries, ….
    pub warnings: Vec<Diagnostic>,
    /// Where each rule of `policy` was written (`locations[i]` for `policy.rules[i]`): the
    /// `tool_policy` entry or the author rule. Lowering names it when a rule's automaton
    /// cannot be built. Empty for a policy that did not come from a profile.
    pub locations: Vec<Location>,
}

impl Compiled {
    /// The policy lowered to a sidecar image within the default budgets; an automaton that
    /// cannot be built is an error where its rule was written.
    pub fn lower(&self) -> Result<engine::sidecar::SidecarImage, Diagnostic> {
        crate::lower::lower_policy_located(
            &self.policy,
            &crate::lower::Budgets::default(),
            &self.locations,
        )
    }
}

/// Compile a whole profile.
pub fn compile_profile(profile: &AgentProfile) -> Result<Compiled, Errors> {
    let mut warnings = Vec::new();
    let (default_decision, located) =
        compile_tool_policy_located(&profile.tool_policy, &mut warnings)?;
    let (mut rules, mut locations): (Vec<_>, Vec<_>) = located.into_iter().unzip();
    // Enabled packs: kernel rules, after tool_policy's and before the authors' (order never
    // changes a decision). Their examples are checked here: a pack whose examples fail does
    // not compile.
    if !profile.packs.is_empty() {
        let catalogue = crate::packs::catalogue()?;
        let mut failures = Vec::new();
        for pack in crate::packs::resolve(&catalogue, &profile.packs)? {
            if let Err(e) = crate::packs::check_examples(pack) {
                failures.extend(e.0);
            }
            for rule in &pack.rules {
                for (mut r, location) in crate::packs::lower_rule(pack, rule) {
                    // The law author asks obey: under an allowlist (default deny) an ask would
                    // turn an unlisted call's deny into a prompt. A pack's ask denies there
                    // instead (dropping it would let a listed call through unasked).
                    if r.decision == Decision::Ask && Decision::Ask <= default_decision {
                        r.decision = Decision::Deny;
                    }
                    rules.push(r);
                    locations.push(location);
                }
            }
        }
        if !failures.is_empty() {
            return Err(Errors(failures));
        }
    }
    for author in &profile.policy_rules {
        if let Some(rule) = tighten_author_rule(author, default_decision, &mut warnings) {
            rules.push(rule);
            locations.push(author.location.clone());
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
            format!(
                "internal: compiled policy invalid: {}",
                quote(&e.to_string())
            ),
        )
    })?;
    // A matcher the regex compiler refuses (over its size limit, which a long entry of many
    // `*` can reach) is the entry's error, at the entry.
    let evaluator = engine::reference::ReferenceEvaluator::new(&policy).map_err(|e| {
        let at = policy.rules.iter().position(|rule| rule.id == e.rule);
        Diagnostic::error(
            Some(at.map_or(&profile.location, |i| &locations[i]).clone()),
            format!(
                "rule `{}`, matcher on `{}`: cannot be compiled: {}",
                quote(&e.rule),
                quote(&e.field),
                quote(&e.message)
            ),
        )
        .with_help("simplify the entry or regex, or split it into several")
    })?;
    // The profile's own examples: a failing one is an error at the example.
    let mut failures = Vec::new();
    for author in &profile.policy_rules {
        let mut findings = Vec::new();
        crate::lint::never_firing_author_rule(author, &mut findings);
        crate::lint::regex_without_literal(author, &mut findings);
        for finding in findings {
            match finding.severity {
                crate::Severity::Error => failures.push(finding),
                _ => warnings.push(finding),
            }
        }
        check_author_examples(author, &mut failures);
    }
    for case in &profile.examples {
        let got = evaluator.decide(case.call());
        if got.decision != case.expect {
            failures.push(
                Diagnostic::error(
                    Some(case.location.clone()),
                    format!(
                        "tool_policy example {}: expected {}, got {} ({})",
                        quote(&case.name),
                        case.expect,
                        got.decision,
                        got.deciding_rule
                            .map_or("the policy default".to_string(), |id| format!(
                                "rule `{id}`"
                            ))
                    ),
                )
                .with_code(Code::FailingExample),
            );
        }
    }
    if !failures.is_empty() {
        return Err(Errors(failures));
    }
    drop(evaluator);
    Ok(Compiled {
        policy,
        warnings,
        locations,
    })
}

/// Lower `tool_policy` to its default decision and kernel rules (deny rules first). Every
/// entry that cannot be lowered is reported, each naming the entry and its location.
pub fn compile_tool_policy(
    tool_policy: &ToolPolicy,
    warnings: &mut Vec<Diagnostic>,
) -> Result<(Decision, Vec<HookPolicyRule>), Errors> {
    let (default_decision, rules) = compile_tool_policy_located(tool_policy, warnings)?;
    Ok((
        default_decision,
        rules.into_iter().map(|(rule, _)| rule).collect(),
    ))
}

/// [`compile_tool_policy`], each rule with the location of its entry.
fn compile_tool_policy_located(
    tool_policy: &ToolPolicy,
    warnings: &mut Vec<Diagnostic>,
) -> Result<(Decision, Vec<(HookPolicyRule, Location)>), Errors> {
    // Under Claude's meaning a call no entry names goes to the harness's own flow, whatever
    // the allow list holds; a seed profile's non-empty allow list is an allowlist.
    let default_decision = match tool_policy.meaning {
        Meaning::Allowlist if !tool_policy.allow.is_empty() => Decision::Deny,
        _ => Decision::Defer,
    };
    let mut rules = Vec::new();
    let mut errors = Vec::new();
    for (list, entries, decision) in [
        ("deny", &tool_policy.deny, Decision::Deny),
        ("ask", &tool_policy.ask, Decision::Ask),
        ("allow", &tool_policy.allow, Decision::Allow),
    ] {
        let mut seen = HashSet::new();
        let mut duplicates = 0usize;
        let mut unnamed_from = None;
        for Located {
            value: entry,
            location,
        } in entries
        {
            if !seen.insert(entry.as_str()) {
                duplicates += 1;
                if duplicates <= MAX_DUPLICATE_WARNINGS {
                    warnings.push(Diagnostic::warning(
                        Some(location.clone()),
                        format!("tool_policy.{list} entry `{}` is listed more than once; the duplicate is ignored", quote(entry)),
                    ).with_code(Code::DuplicateEntry));
                } else if unnamed_from.is_none() {
                    unnamed_from = Some(location.clone());
                }
                continue;
            }
            if decision == Decision::Allow && entry == "*" && tool_policy.meaning == Meaning::Claude
            {
                warnings.push(Diagnostic::warning(
                    Some(location.clone()),
                    "tool_policy.allow entry `*` is ignored under `meaning: claude`, as claude \
                     ignores a bare `*` in an allow list: it grants nothing, and there is no \
                     default deny for it to lift (unlisted calls already go to the harness's \
                     own flow)"
                        .to_string(),
                ).with_code(Code::IgnoredEntry));
                continue;
            }
            match lower_entry(entry, decision) {
                Ok(lowered) => {
                    if let Some(note) = lowered.note {
                        warnings.push(
                            Diagnostic::warning(
                                Some(location.clone()),
                                format!(
                                    "tool_policy.{list} entry `{}` {}",
                                    quote(entry),
                                    bounded(&note)
                                ),
                            )
                            .with_code(Code::EntryNote),
                        );
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
                        rules.push((
                            HookPolicyRule {
                                id,
                                events: Vec::new(),
                                tools: part.tools,
                                input_matchers: part.input_matchers,
                                decision,
                                reason: reason.clone(),
                            },
                            location.clone(),
                        ));
                    }
                }
                Err(why) => errors.push(
                    Diagnostic::error(
                        Some(location.clone()),
                        format!(
                            "tool_policy.{list} entry `{}` {}",
                            quote(entry),
                            bounded(&why.to_string())
                        ),
                    )
                    .with_code(Code::InvalidEntry),
                ),
            }
        }
        if let Some(location) = unnamed_from {
            warnings.push(Diagnostic::warning(
                Some(location),
                format!(
                    "tool_policy.{list} lists {} more duplicate entries from here on, also ignored",
                    duplicates - MAX_DUPLICATE_WARNINGS
                ),
            ).with_code(Code::DuplicateEntry));
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
                ).with_code(Code::DowngradedRule)
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
                ).with_code(Code::DowngradedRule)
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
    Some(HookPolicyRule {
        id: id.clone(),
        events: author.events.clone().unwrap_or_default(),
        tools: author.tools.clone(),
        input_matchers: author_matchers(author),
        decision,
        reason,
    })
}

/// An author rule's matchers as compiled. On a shell command, an author regex also searches
/// each normalised segment: quoting, wrappers and compound syntax cannot hide from it (it can
/// only tighten).
fn author_matchers(author: &AuthorRule) -> Vec<engine::InputMatcher> {
    let on_bash = author.tools.is_empty()
        || author
            .tools
            .iter()
            .any(|glob| engine::semantics::glob_matches(glob, "Bash"));
    author
        .input_matchers
        .iter()
        .map(|m| {
            let mut m = m.clone();
            if on_bash && m.field == "command" && m.on == MatchOn::Text {
                m.on = MatchOn::TextAndSegments;
            }
            m
        })
        .collect()
}

/// An author rule's `examples`: each `match` call must match the rule (its tools, events and
/// matchers, whatever its decision becomes), each `not_match` call must not. Decided where
/// pack examples are ([`crate::packs::EXAMPLE_PLACES`]).
fn check_author_examples(author: &AuthorRule, errors: &mut Vec<Diagnostic>) {
    if author.examples_match.is_empty() && author.examples_not_match.is_empty() {
        return;
    }
    let policy = HookPolicy {
        version: POLICY_VERSION,
        default_decision: Decision::Defer,
        rules: vec![HookPolicyRule {
            id: author.id.clone(),
            events: author.events.clone().unwrap_or_default(),
            tools: author.tools.clone(),
            input_matchers: author_matchers(author),
            decision: Decision::Deny,
            reason: String::new(),
        }],
    };
    // A rule that cannot be compiled is reported as such, once, by the caller.
    let Ok(evaluator) = engine::reference::ReferenceEvaluator::new(&policy) else {
        return;
    };
    let event = author
        .events
        .as_ref()
        .and_then(|events| events.first())
        .map_or("PreToolUse", String::as_str);
    let matches = |(tool, input): &(String, serde_json::Value)| {
        let call = engine::Call {
            event,
            tool_name: tool,
            tool_input: input,
            places: crate::packs::EXAMPLE_PLACES,
        };
        evaluator.decide(call).decision == Decision::Deny
    };
    for (examples, must_match) in [
        (&author.examples_match, true),
        (&author.examples_not_match, false),
    ] {
        for example in examples {
            if matches(&example.value) != must_match {
                let (tool, input) = &example.value;
                errors.push(
                    Diagnostic::error(
                        Some(example.location.clone()),
                        format!(
                            "rule `{}`: the {} example {} {}",
                            quote(&author.id),
                            if must_match { "`match`" } else { "`not_match`" },
                            crate::cases::summary(tool, input),
                            if must_match {
                                "does not match it"
                            } else {
                                "matches it"
                            }
                        ),
                    )
                    .with_code(Code::FailingExample),
                );
            }
        }
    }
}

/// A lowering note or error as a diagnostic carries it: the notes quote parts of the entry
/// (its tool, its argument), which may be up to [`crate::profile::MAX_ENTRY_BYTES`] long. The
/// longest note written in full is a few hundred bytes; anything longer is cut.
fn bounded(text: &str) -> std::borrow::Cow<'_, str> {
    const MAX_NOTE_BYTES: usize = 1024;
    crate::diagnostic::clip(text, MAX_NOTE_BYTES)
}
