//! `animus-hook lint`: what in a profile cannot mean what its author meant.
//!
//! `compile` and `lint` share one severity table: what can never fire is an error in both —
//! a deny the author relies on that protects nothing. A tool name that is a near miss of a
//! Claude tool's (`bash(rm:*)`, `Reed(./.env)`, `tools: [bash]`) is refused by the loader and
//! `lower_entry` with the name meant; an author rule whose matcher reads a field none of its
//! tools has, or whose regex matches nothing, is an error of `compile`
//! ([`never_firing_author_rule`]). A profile with an error does not compile, so `lint` reports
//! it as `compile` does. Any other unknown tool name is a warning in both: it may be another
//! harness's tool kept under its own name (an opencode custom tool). `lint`'s own findings
//! are warnings: allow entries a deny or ask entry shadows (they never grant), duplicate author
//! rules, allows so broad an allowlist guards nothing, plus what `compile` warns about
//! (repeated entries, author rules the merge downgrades, unknown tool names).
//! Each finding names `file:line:column` and says what to do.

use engine::Decision;
use engine::semantics::glob_matches;

use crate::Compiled;
use crate::diagnostic::{Code, Diagnostic, Location, Severity, quote};
use crate::lower::normalise::{SHORTEST_USEFUL_LITERAL, shortest_index_literal};
use crate::profile::{AgentProfile, AuthorRule};
use crate::tool_policy::{CLAUDE_TOOLS, known_fields};

/// Every finding about `profile` (compiled as `compiled`), errors first, each in file order.
pub fn lint(profile: &AgentProfile, compiled: &Compiled) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    duplicate_author_rules(&profile.policy_rules, &mut out);
    let policy = &profile.tool_policy;
    for allow in &policy.allow {
        if let Some((list, by)) = [("deny", &policy.deny), ("ask", &policy.ask)]
            .into_iter()
            .find_map(|(list, entries)| {
                entries
                    .iter()
                    .find(|d| shadows(&d.value, &allow.value))
                    .map(|d| (list, d))
            })
        {
            out.push(
                Diagnostic::warning(
                    Some(allow.location.clone()),
                    format!(
                        "tool_policy.allow entry `{}` never grants: tool_policy.{list} entry `{}` \
                         (at {}) covers every call it does",
                        quote(&allow.value),
                        quote(&by.value),
                        by.location
                    ),
                )
                .with_code(Code::ShadowedAllow)
                .with_help(format!(
                    "remove the allow entry, or narrow the {list} entry"
                )),
            );
        }
        if compiled.policy.default_decision == Decision::Deny && everything(&allow.value) {
            out.push(
                Diagnostic::warning(
                    Some(allow.location.clone()),
                    format!(
                        "tool_policy.allow entry `{}` allows every call of `{}`: the allowlist \
                         guards nothing there",
                        quote(&allow.value),
                        quote(tool_of(&allow.value))
                    ),
                )
                .with_code(Code::AllowEverything)
                .with_help(
                    "list the commands the agent needs (Bash(git status:*), Bash(cargo test:*))",
                ),
            );
        }
    }
    // What compile warns about (repeated entries, downgraded author rules, unknown tools),
    // unless an error here already names that place.
    let errors_at: Vec<Option<Location>> = out
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| d.location.clone())
        .collect();
    out.extend(
        compiled
            .warnings
            .iter()
            .filter(|w| !errors_at.contains(&w.location))
            .cloned(),
    );
    // Errors first, then warnings; each group in file order.
    out.sort_by_key(|d| {
        let at = d.location.as_ref().map(|l| (l.line, l.column));
        (d.severity != Severity::Error, at)
    });
    out
}

/// An author regex (`on: text` or `text_and_segments`) found by no literal of two bytes or
/// more that every match holds: the literal index cannot skip a text for it, so its automaton
/// runs on every text of its field, every call (what a `(?i)` over a whole regex, or a regex of
/// classes and one space, makes). It decides right, slowly: a warning, with the way out.
pub(crate) fn regex_without_literal(rule: &AuthorRule, out: &mut Vec<Diagnostic>) {
    for matcher in rule.input_matchers.iter().filter(|m| m.is_regex()) {
        let Some(shortest) = shortest_index_literal(&matcher.pattern) else {
            continue;
        };
        if shortest >= SHORTEST_USEFUL_LITERAL {
            continue;
        }
        let found_by = if shortest == 0 {
            "holds no literal every match contains".to_string()
        } else {
            format!("is found by a literal of {shortest} byte")
        };
        out.push(
            Diagnostic::warning(
                Some(rule.location.clone()),
                format!(
                    "rule `{}`, matcher on `{}`: the regex `{}` {found_by}, so it is searched \
                     in every text of the field, every call",
                    quote(&rule.id),
                    quote(&matcher.field),
                    quote(&matcher.pattern)
                ),
            )
            .with_code(Code::RegexWithoutLiteral)
            .with_help(
                "start or anchor it with a word every match holds (`git config`, not `(?i)git \
                 config`: keep a `(?i)` to the part that needs it), or write its spellings out",
            ),
        );
    }
}

/// An author rule that can never fire: a matcher on a field no tool of the rule has, or a
/// regex that matches nothing (errors); a tool glob that matches no Claude tool and no MCP
/// tool (a warning: it may be another harness's tool). `compile` reports these.
pub(crate) fn never_firing_author_rule(rule: &AuthorRule, out: &mut Vec<Diagnostic>) {
    let id = quote(&rule.id);
    let dead: Vec<&String> = rule
        .tools
        .iter()
        .filter(|glob| !glob_may_match_a_tool(glob))
        .collect();
    // A name that is no Claude or MCP tool may be another harness's tool kept under its own
    // name (an opencode custom tool): a warning. A near miss of a Claude tool's name (`bash`)
    // was refused by the loader.
    for glob in dead {
        out.push(
            Diagnostic::warning(
                Some(rule.location.clone()),
                format!(
                    "rule `{id}`: tool `{}` matches no Claude tool and no MCP tool: it fires only \
                     for a tool of that name (another harness's own tool)",
                    quote(glob)
                ),
            ).with_code(Code::UnknownTool)
            .with_help("tools are case-sensitive: Bash, Read, WebFetch, mcp__server__tool, or a glob such as mcp__github__*"),
        );
    }
    // The fields of the rule's tools, when every tool is a Claude tool named exactly.
    let fields: Option<Vec<&str>> = (!rule.tools.is_empty())
        .then(|| {
            rule.tools
                .iter()
                .map(|t| known_fields(t))
                .collect::<Option<Vec<Vec<&str>>>>()
                .map(|lists| lists.concat())
        })
        .flatten();
    for matcher in &rule.input_matchers {
        let top = matcher.field.split('.').next().unwrap_or("");
        if let Some(fields) = &fields
            && !fields.contains(&top)
        {
            out.push(
                Diagnostic::error(
                    Some(rule.location.clone()),
                    format!(
                        "rule `{id}` never fires: no tool it applies to ({}) has a field `{}`",
                        rule.tools.join(", "),
                        quote(top)
                    ),
                )
                .with_code(Code::FieldNotOnTool)
                .with_help(format!("the fields are: {}", fields.join(", "))),
            );
        }
        if matches_nothing(&matcher.pattern) {
            out.push(
                Diagnostic::error(
                    Some(rule.location.clone()),
                    format!(
                        "rule `{id}` never fires: the regex `{}` on `{}` matches no text at all",
                        quote(&matcher.pattern),
                        quote(&matcher.field)
                    ),
                )
                .with_code(Code::RegexMatchesNothing)
                .with_help("a class such as [^\\s\\S] or [a&&b] is empty; write the text to match"),
            );
        }
    }
}

/// Later author rules identical (tools, events, matchers, decision) to an earlier one.
fn duplicate_author_rules(rules: &[AuthorRule], out: &mut Vec<Diagnostic>) {
    for (i, rule) in rules.iter().enumerate() {
        if let Some(first) = rules[..i].iter().find(|r| {
            r.tools == rule.tools
                && r.events == rule.events
                && r.input_matchers == rule.input_matchers
                && r.decision == rule.decision
        }) {
            out.push(
                Diagnostic::warning(
                    Some(rule.location.clone()),
                    format!(
                        "rule `{}` duplicates rule `{}` (at {}): same tools, events, matchers and \
                         decision",
                        quote(&rule.id),
                        quote(&first.id),
                        first.location
                    ),
                )
                .with_code(Code::DuplicateRule)
                .with_help("remove one of them"),
            );
        }
    }
}

/// The tool of a permission entry (`Bash(git:*)` → `Bash`).
fn tool_of(entry: &str) -> &str {
    entry.split_once('(').map_or(entry, |(tool, _)| tool)
}

/// The argument of a permission entry, `None` for the bare tool (`Tool(*)` and `Tool(**)` are
/// the bare tool too).
fn argument_of(entry: &str) -> Option<&str> {
    entry
        .split_once('(')
        .and_then(|(_, rest)| rest.strip_suffix(')'))
        .filter(|arg| !matches!(*arg, "*" | "**" | ""))
}

/// May a rule's tool glob match some tool: a Claude tool, or an MCP tool (`mcp__s__t`)?
fn glob_may_match_a_tool(glob: &str) -> bool {
    if CLAUDE_TOOLS.iter().any(|tool| glob_matches(glob, tool)) {
        return true;
    }
    // An MCP tool: the glob's literal start must be able to begin `mcp__…`.
    let literal = glob.split('*').next().unwrap_or("");
    if glob.contains('*') {
        "mcp__".starts_with(literal) || literal.starts_with("mcp__")
    } else {
        literal.starts_with("mcp__") && literal.len() > "mcp__".len()
    }
}

/// Does the deny or ask entry `deny` cover every call the allow entry `allow` covers?
fn shadows(deny: &str, allow: &str) -> bool {
    if deny == "*" || deny == allow {
        return true;
    }
    if tool_of(deny) != tool_of(allow) {
        return false;
    }
    let Some(denied) = argument_of(deny) else {
        return true;
    };
    let Some(allowed) = argument_of(allow) else {
        return false;
    };
    if !matches!(tool_of(deny), "Bash" | "PowerShell") {
        return false;
    }
    // `P:*` and `P *` deny every command starting with the word(s) P.
    let Some(prefix) = denied
        .strip_suffix(":*")
        .or_else(|| denied.strip_suffix(" *"))
        .filter(|p| !p.contains('*'))
    else {
        return false;
    };
    let allowed = allowed
        .strip_suffix(":*")
        .or_else(|| allowed.strip_suffix(" *"))
        .unwrap_or(allowed);
    !allowed.contains('*')
        && (allowed == prefix
            || allowed
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with(' ')))
}

/// Does the allow entry grant every call of every tool, or every shell command (`*`, `Bash`,
/// `Bash(*)`, `PowerShell`)? A bare file or web tool is an ordinary grant; a bare shell runs
/// anything.
fn everything(allow: &str) -> bool {
    allow == "*"
        || (matches!(tool_of(allow), "Bash" | "PowerShell") && argument_of(allow).is_none())
}

/// Does `regex` match no text at all (an empty language: `[^\s\S]`, `a\bb`)?
fn matches_nothing(regex: &str) -> bool {
    crate::regex_check::parse(regex).is_ok_and(|hir| hir.properties().minimum_len().is_none())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shadowing() {
        assert!(shadows("Bash", "Bash(git status:*)"));
        assert!(shadows("Bash(*)", "Bash(ls)"));
        assert!(shadows("Bash(git:*)", "Bash(git push:*)"));
        assert!(shadows("Bash(git push *)", "Bash(git push --force)"));
        assert!(shadows("Bash(git:*)", "Bash(git)"));
        assert!(!shadows("Bash(git:*)", "Bash(gitk:*)"));
        assert!(!shadows("Bash(git push:*)", "Bash(git:*)"));
        assert!(!shadows("Bash(git:*)", "Read"));
        assert!(!shadows("Read(./x)", "Read"));
        assert!(shadows("*", "Read(./x)"));
        assert!(
            !shadows("Bash(* --force)", "Bash(git push --force)"),
            "not modelled: no claim"
        );
    }

    #[test]
    fn broad_allows() {
        assert!(everything("*"));
        assert!(everything("Bash"));
        assert!(everything("Bash(*)"));
        assert!(!everything("Bash(git status:*)"));
        assert!(!everything("Read"));
    }

    #[test]
    fn tools_and_regexes() {
        assert!(glob_may_match_a_tool("Bash"));
        assert!(glob_may_match_a_tool("*Edit"));
        assert!(glob_may_match_a_tool("mcp__github__*"));
        assert!(glob_may_match_a_tool("m*"));
        assert!(glob_may_match_a_tool("*"));
        assert!(!glob_may_match_a_tool("bash"));
        assert!(!glob_may_match_a_tool("Bsh"));
        assert!(!glob_may_match_a_tool("mcp__"));
        assert!(matches_nothing(r"[^\s\S]"));
        assert!(!matches_nothing("git push"));
        assert!(!matches_nothing(""));
    }
}
