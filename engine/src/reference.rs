//! The reference evaluator: one `regex::Regex` per matcher and a linear scan over the rules.
//!
//! It is deliberately simple so that it is obviously right: it is the oracle the automaton
//! engine is differentially tested against, and the evaluator used when no sidecar exists.
//!
//! ```
//! use engine::{HookPolicy, Call, Decision, reference::ReferenceEvaluator};
//! let policy = HookPolicy::from_json(r#"{"version":1,"default_decision":"defer","rules":[
//!   {"id":"no-live","tools":["Bash"],"input_matchers":[{"field":"command","regex":" --live"}],
//!    "decision":"deny","reason":"live trading needs a human"}]}"#).unwrap();
//! let eval = ReferenceEvaluator::new(&policy).unwrap();
//! let input = serde_json::json!({"command": "trade --live"});
//! let out = eval.decide(Call::pre_tool_use("Bash", &input, Default::default()));
//! assert_eq!(out.decision, Decision::Deny);
//! assert_eq!(out.matched, ["no-live"]);
//! ```

use regex::{Regex, RegexBuilder};

use crate::policy::{Decision, HookPolicy, MatchOn};
use crate::semantics::{self, Call, ClaudePattern, Outcome};
use crate::shell;

/// Compiled-regex size limit per matcher (the `regex` default is 10 MiB as well).
const REGEX_SIZE_LIMIT: usize = 10 * (1 << 20);

/// Why a matcher regex could not be compiled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("rule `{rule}`, matcher on `{field}`: {message}")]
pub struct RegexError {
    /// The rule holding the matcher.
    pub rule: String,
    /// The matcher's field.
    pub field: String,
    /// The regex compiler's message.
    pub message: String,
}

/// Compile a matcher regex with the engine's flavour (`.` matches newlines).
pub fn compile_matcher_regex(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern)
        .dot_matches_new_line(true)
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
}

/// One matcher, ready to test.
#[derive(Debug)]
enum Test {
    Regex(Regex),
    Pattern(ClaudePattern),
}

/// A policy with every matcher compiled.
#[derive(Debug)]
pub struct ReferenceEvaluator<'p> {
    policy: &'p HookPolicy,
    /// `tests[rule][matcher]`.
    tests: Vec<Vec<Test>>,
}

impl<'p> ReferenceEvaluator<'p> {
    /// Compile every matcher of `policy`.
    pub fn new(policy: &'p HookPolicy) -> Result<Self, RegexError> {
        let tests = policy
            .rules
            .iter()
            .map(|rule| {
                rule.input_matchers
                    .iter()
                    .map(|m| {
                        let error = |message: &dyn std::fmt::Display| RegexError {
                            rule: rule.id.clone(),
                            field: m.field.clone(),
                            message: message.to_string(),
                        };
                        match m.on {
                            MatchOn::Segment | MatchOn::Cover => ClaudePattern::parse(&m.pattern)
                                .map(Test::Pattern)
                                .map_err(|e| error(&e)),
                            _ => {
                                let (_, regex) = m.search_regex().map_err(|e| error(&e))?;
                                compile_matcher_regex(&regex)
                                    .map(Test::Regex)
                                    .map_err(|e| error(&e))
                            }
                        }
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ReferenceEvaluator { policy, tests })
    }

    /// The policy being evaluated.
    pub fn policy(&self) -> &HookPolicy {
        self.policy
    }

    /// Indices of every rule matching `call`, in policy order: the rules whose matchers all
    /// match, and — when none of those denies or asks — the `covers` rules that cover the call
    /// ([`Self::covering_rules`]).
    pub fn matching_rules(&self, call: Call<'_>) -> Vec<usize> {
        let mut analyses = shell::AnalysisCache::new(call.places);
        let mut matched: Vec<usize> = (0..self.policy.rules.len())
            .filter(|&i| !self.is_cover_rule(i) && self.rule_matches(i, call, &mut analyses))
            .collect();
        // Coverage matters only when no deny or ask rule matched.
        if !matched.iter().any(|&i| {
            matches!(
                self.policy.rules[i].decision,
                Decision::Deny | Decision::Ask
            )
        }) {
            matched.extend(self.covering_rules_with(call, &mut analyses));
        }
        matched.sort_unstable();
        matched
    }

    fn is_cover_rule(&self, index: usize) -> bool {
        self.policy.rules[index]
            .input_matchers
            .iter()
            .any(|m| m.on == MatchOn::Cover)
    }

    /// The `covers` rules that cover `call`: for each field such rules look at, the field's
    /// value must be one string that parsed into at least one segment, and every segment must
    /// have a strict text some applicable `covers` rule on that field matches. Then every such
    /// rule matching some segment covers the call.
    pub fn covering_rules(&self, call: Call<'_>) -> Vec<usize> {
        self.covering_rules_with(call, &mut shell::AnalysisCache::new(call.places))
    }

    /// [`Self::covering_rules`] reusing the analyses already made for this call.
    fn covering_rules_with(
        &self,
        call: Call<'_>,
        analyses: &mut shell::AnalysisCache<'_>,
    ) -> Vec<usize> {
        let cover_rules: Vec<(usize, &str, &ClaudePattern)> = (0..self.policy.rules.len())
            .filter(|&i| {
                self.is_cover_rule(i)
                    && semantics::rule_applies(&self.policy.rules[i], call.event, call.tool_name)
            })
            .filter_map(
                |i| match (&self.policy.rules[i].input_matchers[0], &self.tests[i][0]) {
                    (m, Test::Pattern(p)) => Some((i, m.field.as_str(), p)),
                    _ => None,
                },
            )
            .collect();
        let mut fields: Vec<&str> = cover_rules.iter().map(|(_, f, _)| *f).collect();
        fields.sort_unstable();
        fields.dedup();
        let mut covering = Vec::new();
        for field in fields {
            let Some(serde_json::Value::String(command)) =
                semantics::lookup(call.tool_input, field)
            else {
                continue;
            };
            let analysis = analyses.get(command);
            if !analysis.coverable() {
                continue;
            }
            let on_field: Vec<&(usize, &str, &ClaudePattern)> =
                cover_rules.iter().filter(|(_, f, _)| *f == field).collect();
            let mut used: Vec<usize> = Vec::new();
            let every_segment_covered = analysis.covered_segments().all(|segment| {
                let by: Vec<usize> = on_field
                    .iter()
                    .filter(|(_, _, p)| segment.strict.iter().any(|text| p.matches(text)))
                    .map(|(i, _, _)| *i)
                    .collect();
                used.extend(&by);
                !by.is_empty()
            });
            if every_segment_covered {
                covering.extend(used);
            }
        }
        covering.sort_unstable();
        covering.dedup();
        covering
    }

    fn rule_matches(
        &self,
        index: usize,
        call: Call<'_>,
        analyses: &mut shell::AnalysisCache<'_>,
    ) -> bool {
        let rule = &self.policy.rules[index];
        semantics::rule_applies(rule, call.event, call.tool_name)
            && rule
                .input_matchers
                .iter()
                .zip(&self.tests[index])
                .all(|(m, test)| {
                    semantics::lookup(call.tool_input, &m.field).is_some_and(|v| {
                        semantics::any_text(v, &mut |text| match (m.on, test) {
                            (MatchOn::Text, Test::Regex(re)) => re.is_match(text),
                            (MatchOn::TextAndSegments, Test::Regex(re)) => {
                                re.is_match(text)
                                    || analyses
                                        .get(text)
                                        .generous_texts()
                                        .any(|segment| re.is_match(segment))
                            }
                            // A pattern spanning segments (`curl * | bash`) is looked for
                            // anywhere in the raw text and in each segment.
                            (MatchOn::Segment, Test::Pattern(p)) if p.spans_segments() => {
                                p.found_in(text)
                                    || analyses
                                        .get(text)
                                        .generous_texts()
                                        .any(|segment| p.found_in(segment))
                            }
                            (MatchOn::Segment, Test::Pattern(p)) => analyses
                                .get(text)
                                .generous_texts()
                                .any(|segment| p.matches(segment)),
                            (
                                MatchOn::Path
                                | MatchOn::ResolvedPath
                                | MatchOn::CommandPath
                                | MatchOn::Name
                                | MatchOn::Domain
                                | MatchOn::ExactDomain,
                                Test::Regex(re),
                            ) => analyses
                                .view_texts(m.on, text, call.places)
                                .iter()
                                .any(|t| re.is_match(t)),
                            _ => false,
                        })
                    })
                })
    }

    /// Decide `call`.
    pub fn decide(&self, call: Call<'_>) -> Outcome {
        let outcome = semantics::read_only_default(
            semantics::fold(self.policy, &self.matching_rules(call)),
            call,
        );
        if outcome.decision >= Decision::Ask {
            return outcome;
        }
        match self.governing_rule(call) {
            Some((rule, why)) => semantics::at_least_ask(outcome, &why, rule),
            None => outcome,
        }
    }

    /// The first deny or ask rule, in policy order, that applies to `call` and has a matcher
    /// that governs the shell ([`semantics::governs_the_shell`]) on a field whose command the
    /// guard cannot read; with why (that of the field whose path sorts first).
    pub fn governing_rule(&self, call: Call<'_>) -> Option<(&str, String)> {
        let mut analyses = shell::AnalysisCache::new(call.places);
        for rule in &self.policy.rules {
            if !matches!(rule.decision, Decision::Deny | Decision::Ask)
                || !semantics::rule_applies(rule, call.event, call.tool_name)
            {
                continue;
            }
            let mut fields: Vec<&str> = rule
                .input_matchers
                .iter()
                .filter(|m| semantics::governs_the_shell(m.on))
                .map(|m| m.field.as_str())
                .collect();
            fields.sort_unstable();
            for field in fields {
                if let Some(serde_json::Value::String(text)) =
                    semantics::lookup(call.tool_input, field)
                    && let Some(why) = analyses.get(text).unresolvable()
                {
                    return Some((&rule.id, why.to_string()));
                }
            }
        }
        None
    }

    /// Why `call` is decided as it is: every rule that applies to its event and tool, with
    /// where each of its matchers matched (or that it did not). `matched` holds the rules
    /// [`Self::matching_rules`] returns, in policy order; `near` the other applicable rules.
    pub fn explain(&self, call: Call<'_>) -> Explanation {
        let mut analyses = shell::AnalysisCache::new(call.places);
        let matching = self.matching_rules(call);
        let mut explanation = Explanation::default();
        for (index, rule) in self.policy.rules.iter().enumerate() {
            if !semantics::rule_applies(rule, call.event, call.tool_name) {
                continue;
            }
            let hits: Vec<Option<MatcherHit>> = (0..rule.input_matchers.len())
                .map(|m| self.matcher_hit(index, m, call, &mut analyses))
                .collect();
            let explained = ExplainedRule { index, hits };
            if matching.binary_search(&index).is_ok() {
                explanation.matched.push(explained);
            } else {
                explanation.near.push(explained);
            }
        }
        explanation
    }

    /// Where matcher `m` of rule `index` matches `call`: the first text (in the order the
    /// evaluator tries them) it matches and the byte span it matched there, the whole text for
    /// a Claude pattern. A `covers` matcher is shown on the first segment it covers.
    fn matcher_hit(
        &self,
        index: usize,
        m: usize,
        call: Call<'_>,
        analyses: &mut shell::AnalysisCache<'_>,
    ) -> Option<MatcherHit> {
        let matcher = &self.policy.rules[index].input_matchers[m];
        let test = &self.tests[index][m];
        let value = semantics::lookup(call.tool_input, &matcher.field)?;
        let mut hit = None;
        let whole = |text: &str| (0, text.len());
        semantics::any_text(value, &mut |text| {
            let mut candidates: Vec<String> = Vec::new();
            match matcher.on {
                MatchOn::Text => candidates.push(text.to_string()),
                MatchOn::TextAndSegments | MatchOn::Segment => {
                    candidates.push(text.to_string());
                    candidates.extend(analyses.get(text).generous_texts().map(String::from));
                }
                MatchOn::Cover => candidates.extend(
                    analyses
                        .get(text)
                        .covered_segments()
                        .flat_map(|s| s.strict.iter().cloned()),
                ),
                _ => candidates.extend(
                    analyses
                        .view_texts(matcher.on, text, call.places)
                        .iter()
                        .cloned(),
                ),
            }
            for (i, candidate) in candidates.into_iter().enumerate() {
                let span = match (matcher.on, test) {
                    (_, Test::Regex(re)) => re.find(&candidate).map(|f| (f.start(), f.end())),
                    // As `rule_matches` reads a pattern: one spanning segments is looked for
                    // anywhere, in the raw text (candidate 0) too; any other matches a whole
                    // segment.
                    (MatchOn::Segment, Test::Pattern(p)) => {
                        let found = if p.spans_segments() {
                            p.found_in(&candidate)
                        } else {
                            i > 0 && p.matches(&candidate)
                        };
                        found.then(|| whole(&candidate))
                    }
                    (_, Test::Pattern(p)) => p.matches(&candidate).then(|| whole(&candidate)),
                };
                if let Some((start, end)) = span {
                    hit = Some(MatcherHit {
                        text: candidate,
                        start,
                        end,
                    });
                    return true;
                }
            }
            false
        });
        hit
    }
}

/// [`ReferenceEvaluator::explain`]'s answer.
#[derive(Clone, Debug, Default)]
pub struct Explanation {
    /// The rules that matched, in policy order.
    pub matched: Vec<ExplainedRule>,
    /// The rules whose event and tool apply but that did not match.
    pub near: Vec<ExplainedRule>,
}

/// One rule of an [`Explanation`].
#[derive(Clone, Debug)]
pub struct ExplainedRule {
    /// The rule's index in the policy.
    pub index: usize,
    /// Per input matcher, in order: where it matched, if it did.
    pub hits: Vec<Option<MatcherHit>>,
}

/// Where one matcher matched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatcherHit {
    /// The text it matched in: the field's text, a normalised segment, or a path, domain or
    /// name text of the field (see [`MatchOn`]).
    pub text: String,
    /// Byte offset of the match in `text`.
    pub start: usize,
    /// Byte offset just past the match.
    pub end: usize,
}
