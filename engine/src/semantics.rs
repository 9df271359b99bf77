//! What a rule match means and how matched rules fold into an outcome — stated once.
//!
//! Every evaluator (the reference evaluator, the automaton engine) decides *which* matchers
//! matched in its own way, then calls [`rule_applies`] for the event/tool part and [`fold`]
//! for the outcome, so the semantics cannot drift between them.

use crate::pattern_error::PatternError;

use serde_json::Value;

use crate::policy::{Decision, HookPolicy, HookPolicyRule};

/// One tool call to decide.
#[derive(Clone, Copy, Debug)]
pub struct Call<'a> {
    /// The hook event (`PreToolUse`, `PermissionRequest`).
    pub event: &'a str,
    /// The harness's tool name (`Bash`, `mcp__github__create_issue`).
    pub tool_name: &'a str,
    /// The tool's arguments as the harness sent them.
    pub tool_input: &'a Value,
    /// Where the call happens: the directories path rules are anchored to.
    pub places: crate::paths::Places<'a>,
}

impl<'a> Call<'a> {
    /// A `PreToolUse` call of `tool_name` with `tool_input`, made in `places`.
    pub fn pre_tool_use(
        tool_name: &'a str,
        tool_input: &'a Value,
        places: crate::paths::Places<'a>,
    ) -> Call<'a> {
        Call {
            event: "PreToolUse",
            tool_name,
            tool_input,
            places,
        }
    }

    /// The call a hook payload makes, as the hook reads it before deciding: a string
    /// `tool_name` (without one the payload is denied before any policy is consulted), the
    /// event (`PreToolUse` when absent) and the input (null when absent), made in `places`.
    pub fn from_payload(payload: &'a Value, places: crate::paths::Places<'a>) -> Option<Call<'a>> {
        static NULL: Value = Value::Null;
        Some(Call {
            event: payload
                .get("hook_event_name")
                .and_then(Value::as_str)
                .unwrap_or("PreToolUse"),
            tool_name: payload.get("tool_name").and_then(Value::as_str)?,
            tool_input: payload.get("tool_input").unwrap_or(&NULL),
            places,
        })
    }
}

/// The result of deciding one call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The verdict.
    pub decision: Decision,
    /// Why: the deciding rule's reason, or a sentence about the default.
    pub reason: String,
    /// The rule that decided, or `None` when the default decided.
    pub deciding_rule: Option<String>,
    /// Every matched rule id, in policy order (including `defer` rules).
    pub matched: Vec<String>,
}

/// Does `glob` match `name` as a whole? `*` matches any run of characters (including none);
/// every other character matches itself, case-sensitively.
pub fn glob_matches(glob: &str, name: &str) -> bool {
    let (g, n) = (glob.as_bytes(), name.as_bytes());
    // Iterative wildcard matching with single-star backtracking: O(|g|·|n|) worst case.
    let (mut gi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if gi < g.len() && g[gi] == b'*' {
            star = Some((gi, ni));
            gi += 1;
        } else if gi < g.len() && g[gi] == n[ni] {
            gi += 1;
            ni += 1;
        } else if let Some((sg, sn)) = star {
            gi = sg + 1;
            ni = sn + 1;
            star = Some((sg, sn + 1));
        } else {
            return false;
        }
    }
    g[gi..].iter().all(|&c| c == b'*')
}

/// A Claude permission pattern: the argument of a `Bash(…)` entry, as Claude reads it.
///
/// - A trailing `:*` (legacy) or ` *` makes a **word prefix**: the rest must match the start
///   of the segment, followed by whitespace or the segment's end (`ls *` matches `ls` and
///   `ls -la`, not `lsof`).
/// - Any other `*` matches any run of characters; without `*` the whole segment must match.
/// - Runs of whitespace in the pattern count as one space, as in a normalised segment.
///
/// ```
/// use engine::semantics::ClaudePattern;
/// let p = ClaudePattern::parse("git status:*").unwrap();
/// assert!(p.matches("git status") && p.matches("git status -s"));
/// assert!(!p.matches("git statusx") && !p.matches("xgit status"));
/// assert!(ClaudePattern::parse("* --live*").unwrap().matches("trade --live"));
/// assert!(!ClaudePattern::parse("git push").unwrap().matches("git push -f"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaudePattern {
    /// The pattern without its word-prefix suffix, whitespace collapsed.
    body: String,
    /// Ends at a word boundary (`:*`, ` *`).
    word_prefix: bool,
}

impl ClaudePattern {
    /// Read a pattern; the error is a sentence about it.
    pub fn parse(pattern: &str) -> Result<ClaudePattern, PatternError> {
        if pattern.trim().is_empty() {
            return Err(PatternError::Empty { what: "pattern" });
        }
        if let Some(c) = pattern
            .chars()
            .find(|c| c.is_control() && !c.is_whitespace())
        {
            return Err(PatternError::ControlCharacter {
                what: "pattern",
                character: c,
            });
        }
        let collapsed = pattern.split_whitespace().collect::<Vec<_>>().join(" ");
        let word_body = pattern
            .strip_suffix(":*")
            .or_else(|| pattern.strip_suffix(" *"))
            .map(|rest| rest.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|rest| !rest.is_empty() && !rest.ends_with('*'));
        Ok(match word_body {
            Some(body) => ClaudePattern {
                body,
                word_prefix: true,
            },
            None => ClaudePattern {
                body: collapsed,
                word_prefix: false,
            },
        })
    }

    /// Does the pattern match every segment (`*`, `**`)?
    pub fn matches_everything(&self) -> bool {
        !self.word_prefix && self.body.bytes().all(|b| b == b'*')
    }

    /// Does the pattern match one normalised segment? The definition; the automaton engine
    /// runs [`ClaudePattern::segment_regex`] instead and is tested against this.
    pub fn matches(&self, segment: &str) -> bool {
        if !self.word_prefix {
            return glob_matches(&self.body, segment);
        }
        if !self.body.contains('*') {
            // The common shape (`git status:*`): one comparison.
            return segment
                .strip_prefix(self.body.as_str())
                .is_some_and(|rest| rest.chars().next().is_none_or(char::is_whitespace));
        }
        segment
            .char_indices()
            .filter(|(_, c)| c.is_whitespace())
            .map(|(i, _)| i)
            .chain([segment.len()])
            .any(|end| glob_matches(&self.body, &segment[..end]))
    }

    /// Does the pattern hold a shell operator (`curl * | bash`, `> /etc/passwd`, `a; b`)? Such
    /// a pattern describes more than one segment, or a redirection, which no segment text
    /// holds: as a deny or ask it is also looked for in the raw command ([`Self::found_in`]),
    /// so it still fires. (As an allow it covers nothing: stricter.)
    pub fn spans_segments(&self) -> bool {
        self.body.contains(['|', ';', '&', '<', '>', '`', '\n']) || self.body.contains("$(")
    }

    /// Does `text` contain a match anywhere (a leading and a trailing `*` implied; a word
    /// prefix still ends at whitespace or the end)?
    pub fn found_in(&self, text: &str) -> bool {
        let body = format!("*{}", self.body);
        if !self.word_prefix {
            return glob_matches(&format!("{body}*"), text);
        }
        text.char_indices()
            .filter(|(_, c)| c.is_whitespace())
            .map(|(i, _)| i)
            .chain([text.len()])
            .any(|end| glob_matches(&body, &text[..end]))
    }

    /// The regex the automaton engine searches for a deny or ask pattern, and the field view
    /// it searches: [`Self::segment_regex`] over the anchored segment texts, or, for a pattern
    /// that spans segments, the unanchored [`Self::found_in`] form over the raw text and each
    /// segment ([`MatchOn::TextAndSegments`](crate::policy::MatchOn::TextAndSegments)).
    pub fn deny_lowering(&self) -> (crate::policy::MatchOn, String) {
        if !self.spans_segments() {
            return (crate::policy::MatchOn::Segment, self.segment_regex());
        }
        let pieces: Vec<String> = self
            .body
            .split('*')
            .filter(|piece| !piece.is_empty())
            .map(escape_literal)
            .collect();
        let mut regex = pieces.join(".*");
        if self.word_prefix {
            regex.push_str("(?:\\s.*)?$");
        }
        (crate::policy::MatchOn::TextAndSegments, regex)
    }

    /// The regex the automaton engine searches for this pattern in a segment text that starts
    /// with [`crate::shell::SEGMENT_START`] (a byte no normalised segment contains), so a
    /// pattern anchored at the segment's start becomes a plain literal the literal index finds:
    /// `git status:*` → `\x01git status(?:\s.*)?$`, `* --live*` → ` --live`.
    pub fn segment_regex(&self) -> String {
        let mut out = String::new();
        if !self.body.starts_with('*') {
            out.push_str("\\x01");
        }
        let pieces: Vec<&str> = self.body.split('*').collect();
        let last = pieces.len() - 1;
        for (i, piece) in pieces.iter().enumerate() {
            if i > 0 && !(i == last && piece.is_empty()) && !(i == 1 && pieces[0].is_empty()) {
                out.push_str(".*");
            }
            out.push_str(&escape_literal(piece));
        }
        if self.word_prefix {
            out.push_str("(?:\\s.*)?$");
        } else if !self.body.ends_with('*') {
            out.push('$');
        }
        out
    }
}

/// The regex a [`MatchOn::Name`](crate::policy::MatchOn::Name) matcher searches in
/// [`name_texts`]: `commit` → `\x01commit$` (the whole name), `commit:*` → `\x01commit` (any
/// name starting with it, as claude's plain prefix). The error is a sentence.
pub fn name_regex(pattern: &str) -> Result<String, PatternError> {
    let (name, prefix) = match pattern.strip_suffix(":*") {
        Some(name) => (name, true),
        None => (pattern, false),
    };
    if name.is_empty() {
        return Err(PatternError::Empty { what: "name" });
    }
    if let Some(c) = name.chars().find(|c| c.is_control()) {
        return Err(PatternError::ControlCharacter {
            what: "name",
            character: c,
        });
    }
    let name = escape_literal(name.strip_prefix('/').unwrap_or(name));
    Ok(if prefix {
        format!("\\x01{name}")
    } else {
        format!("\\x01{name}$")
    })
}

/// The texts a name matcher searches: the value behind
/// [`SEGMENT_START`](crate::shell::SEGMENT_START), and without one leading `/` (claude reads
/// the skill `/beta` as `beta`). A value holding a control character offers none.
pub fn name_texts(value: &str) -> Vec<String> {
    if value.chars().any(char::is_control) {
        return Vec::new();
    }
    let mut texts = vec![format!("\u{1}{value}")];
    if let Some(bare) = value.strip_prefix('/') {
        texts.push(format!("\u{1}{bare}"));
    }
    texts
}

/// Escape the characters special in a regex outside a character class, and only those, so the
/// regex reads like the pattern it came from.
pub fn escape_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(
            c,
            '\\' | '.' | '+' | '*' | '?' | '(' | ')' | '|' | '[' | ']' | '{' | '}' | '^' | '$'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The event and tool part of a match: `events` empty or containing `event`, and `tools` empty
/// or one glob matching `tool_name`.
pub fn rule_applies(rule: &HookPolicyRule, event: &str, tool_name: &str) -> bool {
    (rule.events.is_empty() || rule.events.iter().any(|e| e == event))
        && (rule.tools.is_empty() || rule.tools.iter().any(|g| glob_matches(g, tool_name)))
}

/// Is `path` a dot path of non-empty segments?
pub fn is_valid_field_path(path: &str) -> bool {
    !path.is_empty() && path.split('.').all(|s| !s.is_empty())
}

/// Resolve a dot path in `tool_input`.
pub fn lookup<'v>(tool_input: &'v Value, path: &str) -> Option<&'v Value> {
    path.split('.')
        .try_fold(tool_input, |v, seg| v.as_object()?.get(seg))
}

/// Call `test` on each text a field value offers to a matcher until it returns `true`:
/// a string is its own text, a number or boolean its JSON text, an array each element in turn
/// (recursively); `null` and objects offer nothing. Returns whether any test succeeded.
pub fn any_text(value: &Value, test: &mut dyn FnMut(&str) -> bool) -> bool {
    match value {
        Value::String(s) => test(s),
        Value::Number(n) => test(&n.to_string()),
        Value::Bool(b) => test(if *b { "true" } else { "false" }),
        Value::Array(items) => items.iter().any(|item| any_text(item, test)),
        Value::Null | Value::Object(_) => false,
    }
}

/// What the fold needs to know about one rule, whichever evaluator holds it: the automaton
/// engine reads rules out of the sidecar's rule table, the reference evaluator out of the
/// [`HookPolicy`].
pub trait RuleView {
    /// The rule's verdict.
    fn decision(&self) -> Decision;
    /// The rule's id.
    fn id(&self) -> &str;
    /// The rule's reason.
    fn reason(&self) -> &str;
}

/// `RuleView` for a type with `decision`, `id` and `reason` fields (the policy's rules, the
/// compiled evaluator's fired ones).
macro_rules! rule_view {
    ($rule:ty) => {
        impl $crate::semantics::RuleView for $rule {
            fn decision(&self) -> $crate::policy::Decision {
                self.decision
            }
            fn id(&self) -> &str {
                &self.id
            }
            fn reason(&self) -> &str {
                &self.reason
            }
        }
    };
}
pub(crate) use rule_view;

rule_view!(HookPolicyRule);

impl<T: RuleView + ?Sized> RuleView for &T {
    fn decision(&self) -> Decision {
        (**self).decision()
    }
    fn id(&self) -> &str {
        (**self).id()
    }
    fn reason(&self) -> &str {
        (**self).reason()
    }
}

/// Fold matched rules (indices into `policy.rules`, any order) into the outcome.
///
/// The decision is the most restrictive among matched non-`defer` rules, else the default.
/// The reason comes from the first rule in policy order carrying the winning decision.
pub fn fold(policy: &HookPolicy, matched: &[usize]) -> Outcome {
    let matched = matched.iter().map(|&i| (i, &policy.rules[i])).collect();
    fold_rules(policy.default_decision, matched)
}

/// [`fold`] over rules held anywhere: `matched` pairs each matched rule's position in policy
/// order with a view of it, in any order, duplicates allowed.
pub fn fold_rules<R: RuleView>(
    default_decision: Decision,
    mut matched: Vec<(usize, R)>,
) -> Outcome {
    matched.sort_unstable_by_key(|(i, _)| *i);
    matched.dedup_by_key(|(i, _)| *i);
    let winner = matched
        .iter()
        .filter(|(_, r)| r.decision() != Decision::Defer)
        .max_by(|(ia, a), (ib, b)| a.decision().cmp(&b.decision()).then(ib.cmp(ia)));
    let matched_ids = matched.iter().map(|(_, r)| r.id().to_string()).collect();
    match winner {
        Some((_, rule)) => Outcome {
            decision: rule.decision(),
            reason: rule.reason().to_string(),
            deciding_rule: Some(rule.id().to_string()),
            matched: matched_ids,
        },
        None => Outcome {
            decision: default_decision,
            reason: default_reason(default_decision),
            deciding_rule: None,
            matched: matched_ids,
        },
    }
}

/// Does a deny or ask rule with a matcher on this view govern the shell? Claude patterns
/// matched against a command's segments and author regexes over them do: such a rule reads
/// the commands a shell runs, so a command whose text it cannot read
/// ([`crate::shell::Analysis::unresolvable`]) escapes it. Path and domain views do not.
pub fn governs_the_shell(view: crate::policy::MatchOn) -> bool {
    matches!(
        view,
        crate::policy::MatchOn::Segment | crate::policy::MatchOn::TextAndSegments
    )
}

/// `outcome`, raised to `ask` when it is weaker: the command runs text the guard cannot read
/// (`why`), and `governing_rule` (the first deny or ask rule, in policy order, that applies to
/// the call and matches the field through the shell analysis) would have judged it. A deny or
/// ask already decided stands; without a governing rule nothing changes (no evaluator calls
/// this then).
pub fn at_least_ask(outcome: Outcome, why: &str, governing_rule: &str) -> Outcome {
    if outcome.decision >= Decision::Ask {
        return outcome;
    }
    Outcome {
        decision: Decision::Ask,
        reason: format!(
            "The guard cannot read what this command runs: {why}. Rule `{governing_rule}` \
             governs shell commands, so a command it cannot check needs a human's approval."
        ),
        deciding_rule: None,
        matched: outcome.matched,
    }
}

/// The default deny of an allowlist, where no rule asked for it and Claude runs the call
/// unasked: when `outcome` is the policy's default (no rule decided) and that default is deny,
/// and the call is a Bash command the read-only model recognises ([`crate::readonly`]), the
/// evaluator abstains (`defer`) instead, and Claude applies its own checks. Never where a rule
/// decided: a deny, ask, pack or self-protection rule that matches still answers. The one
/// definition for both evaluators.
pub fn read_only_default(outcome: Outcome, call: Call<'_>) -> Outcome {
    if outcome.deciding_rule.is_some() || outcome.decision != Decision::Deny {
        return outcome;
    }
    let read_only = call.tool_name == "Bash"
        && call
            .tool_input
            .get("command")
            .and_then(Value::as_str)
            .is_some_and(crate::readonly::recognises);
    if !read_only {
        return outcome;
    }
    Outcome {
        decision: Decision::Defer,
        reason: READ_ONLY_REASON.into(),
        deciding_rule: None,
        matched: outcome.matched,
    }
}

/// Why a read-only command was not denied by an allowlist's default.
pub const READ_ONLY_REASON: &str = "No rule matched; the command is read-only by Claude Code's \
    own measure (corpus/claude-readonly), so the allowlist's default deny is not applied and \
    Claude decides.";

/// The event part of [`rule_applies`] as bits, for evaluators that precompute it: one bit per
/// entry of [`GATE_EVENTS`](crate::GATE_EVENTS) plus one for any other event. A rule with an
/// empty `events` list applies to every event, gate or not, so its mask has every bit set.
pub fn event_mask(events: &[String]) -> u8 {
    if events.is_empty() {
        return ALL_EVENTS_MASK;
    }
    events.iter().fold(0, |mask, e| mask | event_bit(e))
}

/// The bit of `event` in an [`event_mask`]. A rule applies to an event when
/// `event_mask(&rule.events) & event_bit(event) != 0`.
pub fn event_bit(event: &str) -> u8 {
    match crate::GATE_EVENTS.iter().position(|g| *g == event) {
        Some(i) => 1 << i,
        None => 1 << crate::GATE_EVENTS.len(),
    }
}

/// The mask of a rule with no `events` list.
pub const ALL_EVENTS_MASK: u8 = (1 << (crate::GATE_EVENTS.len() + 1)) - 1;

/// The reason given when no rule decided.
pub fn default_reason(default: Decision) -> String {
    match default {
        Decision::Deny => {
            "Not allowed by this agent's tool policy (allowlist: unlisted tools are denied).".into()
        }
        other => format!("No policy rule matched; the policy default is {other}."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glob_semantics() {
        assert!(glob_matches("Bash", "Bash"));
        assert!(!glob_matches("Bash", "bash"));
        assert!(!glob_matches("Bash", "BashX"));
        assert!(glob_matches("*", ""));
        assert!(glob_matches("mcp__github__*", "mcp__github__create_issue"));
        assert!(!glob_matches("mcp__github__*", "mcp__gitlab__x"));
        assert!(glob_matches("*Edit", "NotebookEdit"));
        assert!(glob_matches("a*b*c", "aXbYbZc"));
        assert!(!glob_matches("a*b*c", "aXbYbZ"));
    }

    #[test]
    fn field_texts() {
        let input = serde_json::json!({"a": {"b": ["x", 3, true, null, {"c": "y"}]}, "n": null});
        let mut seen = Vec::new();
        let v = lookup(&input, "a.b").unwrap();
        any_text(v, &mut |t| {
            seen.push(t.to_string());
            false
        });
        assert_eq!(seen, ["x", "3", "true"]);
        assert!(lookup(&input, "a.c").is_none());
        assert!(!any_text(lookup(&input, "n").unwrap(), &mut |_| true));
    }

    #[test]
    fn event_masks_agree_with_rule_applies() {
        let lists: [Vec<String>; 4] = [
            vec![],
            vec!["PreToolUse".into()],
            vec!["PermissionRequest".into()],
            vec!["PreToolUse".into(), "PermissionRequest".into()],
        ];
        for events in lists {
            let rule = HookPolicyRule {
                id: "r".into(),
                events: events.clone(),
                tools: vec![],
                input_matchers: vec![],
                decision: Decision::Deny,
                reason: String::new(),
            };
            for event in ["PreToolUse", "PermissionRequest", "PostToolUse", ""] {
                assert_eq!(
                    event_mask(&events) & event_bit(event) != 0,
                    rule_applies(&rule, event, "Bash"),
                    "{events:?} {event}"
                );
            }
        }
    }
}
