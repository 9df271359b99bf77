//! `animus-hook diff`: what changes between two compiled policies, and a witness for it.
//!
//! Rules are compared by id: added, removed, changed (decision, tools, events, matchers or
//! reason). For every rule whose effect may have changed, concrete calls are made from the rule
//! itself — a string its regex matches (read off the regex's syntax tree), a command its Claude
//! pattern matches, a path its glob names, a URL in its domain — and from any calls the caller
//! adds (real commands); each is decided by both policies, and the first that the two decide
//! differently is the rule's witness. A change with no witness found is said so: the search is
//! not exhaustive.

use engine::policy::{HookPolicy, HookPolicyRule, InputMatcher, MatchOn};
use engine::reference::{ReferenceEvaluator, RegexError};
use engine::{Call, Decision, Places};
use regex_syntax::hir::{Class, Hir, HirKind};
use serde_json::{Value, json};

use crate::tool_policy::CLAUDE_TOOLS;

/// Where witness calls happen.
pub const WITNESS_PLACES: Places<'static> = Places {
    cwd: Some("/home/user/project"),
    home: Some("/home/user"),
    project_root: Some("/home/user/project"),
};

/// A call: `(tool, tool_input)`.
pub type WitnessCall = (String, Value);

/// What changed.
#[derive(Debug, Default)]
pub struct PolicyDiff {
    /// `(before, after)` when the default decision changed.
    pub default_decision: Option<(Decision, Decision)>,
    /// Rules only in the second policy.
    pub added: Vec<HookPolicyRule>,
    /// Rules only in the first.
    pub removed: Vec<HookPolicyRule>,
    /// Rules in both, with the parts that differ (`decision`, `tools`, …).
    pub changed: Vec<(HookPolicyRule, HookPolicyRule, Vec<&'static str>)>,
    /// Calls the two policies decide differently, each with both outcomes.
    pub witnesses: Vec<Witness>,
}

/// A call decided differently.
#[derive(Debug)]
pub struct Witness {
    /// The rule whose change it shows (`None`: the default decision).
    pub rule: Option<String>,
    /// The call.
    pub call: WitnessCall,
    /// Decision and deciding rule under the first policy.
    pub before: (Decision, Option<String>),
    /// … and under the second.
    pub after: (Decision, Option<String>),
}

impl PolicyDiff {
    /// Do the two policies differ at all (in any rule or the default)?
    pub fn is_empty(&self) -> bool {
        self.default_decision.is_none()
            && self.added.is_empty()
            && self.removed.is_empty()
            && self.changed.is_empty()
    }
}

/// Why two policies cannot be compared: a regex of one does not compile.
#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    /// In the first policy.
    #[error("the first policy: {0}")]
    First(RegexError),
    /// In the second policy.
    #[error("the second policy: {0}")]
    Second(RegexError),
}

/// Compare `a` with `b`; `extra` calls are tried as witnesses after the rules' own.
pub fn diff(
    a: &HookPolicy,
    b: &HookPolicy,
    extra: &[WitnessCall],
) -> Result<PolicyDiff, DiffError> {
    let eval_a = ReferenceEvaluator::new(a).map_err(DiffError::First)?;
    let eval_b = ReferenceEvaluator::new(b).map_err(DiffError::Second)?;
    let mut out = PolicyDiff::default();
    if a.default_decision != b.default_decision {
        out.default_decision = Some((a.default_decision, b.default_decision));
    }
    let find = |p: &HookPolicy, id: &str| p.rules.iter().find(|r| r.id == id).cloned();
    for rule in &b.rules {
        match find(a, &rule.id) {
            None => out.added.push(rule.clone()),
            Some(old) if old != *rule => {
                let mut parts = Vec::new();
                for (part, differs) in [
                    ("decision", old.decision != rule.decision),
                    ("tools", old.tools != rule.tools),
                    ("events", old.events != rule.events),
                    ("matchers", old.input_matchers != rule.input_matchers),
                    ("reason", old.reason != rule.reason),
                ] {
                    if differs {
                        parts.push(part);
                    }
                }
                out.changed.push((old, rule.clone(), parts));
            }
            Some(_) => {}
        }
    }
    for rule in &a.rules {
        if find(b, &rule.id).is_none() {
            out.removed.push(rule.clone());
        }
    }

    let decide = |eval: &ReferenceEvaluator<'_>, (tool, input): &WitnessCall| {
        let outcome = eval.decide(Call {
            event: "PreToolUse",
            tool_name: tool,
            tool_input: input,
            places: WITNESS_PLACES,
        });
        (outcome.decision, outcome.deciding_rule)
    };
    let mut witness_for = |rule: Option<&str>, calls: Vec<WitnessCall>| {
        for call in calls.into_iter().chain(extra.iter().cloned()) {
            let (before, after) = (decide(&eval_a, &call), decide(&eval_b, &call));
            if before.0 != after.0 {
                out.witnesses.push(Witness {
                    rule: rule.map(String::from),
                    call,
                    before,
                    after,
                });
                return;
            }
        }
    };
    let touched: Vec<(String, Vec<WitnessCall>)> = out
        .added
        .iter()
        .chain(&out.removed)
        .map(|r| (r.id.clone(), calls_for(r)))
        .chain(
            out.changed
                .iter()
                .filter(|(_, _, parts)| parts != &["reason"])
                .map(|(old, new, _)| {
                    let mut calls = calls_for(new);
                    calls.extend(calls_for(old));
                    (new.id.clone(), calls)
                }),
        )
        .collect();
    for (id, calls) in touched {
        witness_for(Some(&id), calls);
    }
    if out.default_decision.is_some() {
        // A call no rule of either policy matches: a tool no rule names.
        witness_for(None, vec![("mcp__animus_diff__probe".into(), json!({}))]);
    }
    Ok(out)
}

/// Calls made from `rule`: each tool it names (or a few, for globs) with an input in which
/// every matcher finds what it looks for.
pub fn calls_for(rule: &HookPolicyRule) -> Vec<WitnessCall> {
    let tools: Vec<String> = if rule.tools.is_empty() {
        vec!["Bash".into()]
    } else {
        rule.tools
            .iter()
            .flat_map(|glob| {
                if !glob.contains('*') {
                    return vec![glob.clone()];
                }
                let mut named: Vec<String> = CLAUDE_TOOLS
                    .iter()
                    .filter(|t| engine::semantics::glob_matches(glob, t))
                    .map(|t| t.to_string())
                    .collect();
                if named.is_empty() {
                    named.push(glob.replace('*', "x"));
                }
                named.truncate(3);
                named
            })
            .collect()
    };
    let mut input = serde_json::Map::new();
    for matcher in &rule.input_matchers {
        let Some(value) = value_for(matcher) else {
            return Vec::new();
        };
        set_field(&mut input, &matcher.field, value);
    }
    tools
        .into_iter()
        .map(|tool| (tool, Value::Object(input.clone())))
        .collect()
}

/// `field` (a dot path) set to `value` in `input`.
fn set_field(input: &mut serde_json::Map<String, Value>, field: &str, value: String) {
    match field.split_once('.') {
        None => {
            input.insert(field.to_string(), Value::String(value));
        }
        Some((head, rest)) => {
            let inner = input.entry(head.to_string()).or_insert_with(|| json!({}));
            if let Value::Object(map) = inner {
                set_field(map, rest, value);
            }
        }
    }
}

/// A field value `matcher` matches.
fn value_for(matcher: &InputMatcher) -> Option<String> {
    let pattern = &matcher.pattern;
    match matcher.on {
        MatchOn::Text | MatchOn::TextAndSegments => regex_witness(pattern),
        MatchOn::Segment | MatchOn::Cover => {
            let body = pattern
                .strip_suffix(":*")
                .or_else(|| pattern.strip_suffix(" *"))
                .unwrap_or(pattern);
            Some(body.replace('*', "x").trim().to_string()).filter(|s| !s.is_empty())
        }
        MatchOn::Path | MatchOn::ResolvedPath => Some(path_witness(pattern)),
        MatchOn::CommandPath => Some(format!("cat {}", path_witness(pattern))),
        MatchOn::Domain | MatchOn::ExactDomain => {
            let host = pattern
                .strip_prefix("*.")
                .map_or(pattern.clone(), |rest| format!("www.{rest}"));
            Some(format!("https://{host}/"))
        }
        MatchOn::Name => Some(pattern.strip_suffix(":*").unwrap_or(pattern).to_string()),
    }
}

/// A path a Claude path glob names, placed as [`WITNESS_PLACES`] places its anchor.
fn path_witness(glob: &str) -> String {
    let (base, rest) = if let Some(rest) = glob.strip_prefix("//") {
        ("", rest)
    } else if let Some(rest) = glob.strip_prefix("~/") {
        ("/home/user", rest)
    } else if let Some(rest) = glob.strip_prefix('/') {
        ("/home/user/project", rest)
    } else {
        (
            "/home/user/project",
            glob.strip_prefix("./").unwrap_or(glob),
        )
    };
    let rest = rest.replace("**", "x").replace(['*', '?'], "x");
    format!("{base}/{}", rest.trim_end_matches('/'))
}

/// A string `regex` matches (searched unanchored, `.` matching newlines), read off its syntax
/// tree: each repetition at its least, the first alternative that gives one, a printable
/// member of each class. `None` when none is found.
pub fn regex_witness(regex: &str) -> Option<String> {
    let hir = crate::regex_check::parse(regex).ok()?;
    let mut out = String::new();
    witness_into(&hir, &mut out)?;
    Some(out)
}

fn witness_into(hir: &Hir, out: &mut String) -> Option<()> {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Some(()),
        HirKind::Literal(literal) => {
            out.push_str(std::str::from_utf8(&literal.0).ok()?);
            Some(())
        }
        HirKind::Class(Class::Unicode(class)) => {
            let ranges = class.ranges();
            // A letter, a digit or a space when the class has one; else its first member.
            let pick = ['a', 'x', '0', ' ', '/', '-']
                .into_iter()
                .find(|c| ranges.iter().any(|r| r.start() <= *c && *c <= r.end()))
                .or_else(|| ranges.first().map(|r| r.start()))?;
            out.push(pick);
            Some(())
        }
        HirKind::Class(Class::Bytes(class)) => {
            let byte = class.ranges().first()?.start();
            out.push(char::from(byte).is_ascii().then_some(char::from(byte))?);
            Some(())
        }
        HirKind::Repetition(rep) => {
            for _ in 0..rep.min {
                witness_into(&rep.sub, out)?;
            }
            Some(())
        }
        HirKind::Capture(capture) => witness_into(&capture.sub, out),
        HirKind::Concat(parts) => parts.iter().try_for_each(|p| witness_into(p, out)),
        HirKind::Alternation(alternatives) => alternatives.iter().find_map(|alt| {
            let mut attempt = String::new();
            witness_into(alt, &mut attempt)?;
            out.push_str(&attempt);
            Some(())
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regex_witnesses_match_their_regex() {
        for regex in [
            "deploy .*--env(=| )prod",
            r"^git(( -C| -c) [^ ]+| -[^ ]+)* reset( [^ ]+)* --(hard|merge)( |$)",
            r"(^|/)\.env$",
            "[A-Z]{3,5}[0-9]+",
            r"\bterraform\s+destroy\b",
        ] {
            let witness = regex_witness(regex).unwrap();
            let re = engine::reference::compile_matcher_regex(regex).unwrap();
            assert!(re.is_match(&witness), "{regex}: {witness:?}");
        }
        assert_eq!(regex_witness("git push").as_deref(), Some("git push"));
    }

    #[test]
    fn paths_sit_at_their_anchor() {
        let project = "/home/user/project";
        for (glob, witness) in [
            ("~/.ssh/id_rsa", "/home/user/.ssh/id_rsa".to_string()),
            ("./secrets/**", format!("{project}/secrets/x")),
            ("//etc/passwd", "/etc/passwd".to_string()),
            (
                "/.claude/settings*.json",
                format!("{project}/.claude/settingsx.json"),
            ),
        ] {
            assert_eq!(path_witness(glob), witness, "{glob}");
        }
    }
}
