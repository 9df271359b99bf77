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
//! let out = eval.decide(Call { event: "PreToolUse", tool_name: "Bash", tool_input: &input });
//! assert_eq!(out.decision, Decision::Deny);
//! assert_eq!(out.matched, ["no-live"]);
//! ```

use regex::{Regex, RegexBuilder};

use crate::policy::HookPolicy;
use crate::semantics::{self, Call, Outcome};

/// Compiled-regex size limit per matcher (the `regex` default is 10 MiB as well).
const REGEX_SIZE_LIMIT: usize = 10 * (1 << 20);

/// Why a matcher regex could not be compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegexError {
    /// The rule holding the matcher.
    pub rule: String,
    /// The matcher's field.
    pub field: String,
    /// The regex compiler's message.
    pub message: String,
}

impl std::fmt::Display for RegexError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "rule `{}`, matcher on `{}`: {}",
            self.rule, self.field, self.message
        )
    }
}

impl std::error::Error for RegexError {}

/// Compile a matcher regex with the engine's flavour (`.` matches newlines).
pub fn compile_matcher_regex(pattern: &str) -> Result<Regex, regex::Error> {
    RegexBuilder::new(pattern)
        .dot_matches_new_line(true)
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
}

/// A policy with every matcher compiled.
#[derive(Debug)]
pub struct ReferenceEvaluator<'p> {
    policy: &'p HookPolicy,
    /// `regexes[rule][matcher]`.
    regexes: Vec<Vec<Regex>>,
}

impl<'p> ReferenceEvaluator<'p> {
    /// Compile every matcher of `policy`.
    pub fn new(policy: &'p HookPolicy) -> Result<Self, RegexError> {
        let regexes = policy
            .rules
            .iter()
            .map(|rule| {
                rule.input_matchers
                    .iter()
                    .map(|m| {
                        compile_matcher_regex(&m.regex).map_err(|e| RegexError {
                            rule: rule.id.clone(),
                            field: m.field.clone(),
                            message: e.to_string(),
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ReferenceEvaluator { policy, regexes })
    }

    /// The policy being evaluated.
    pub fn policy(&self) -> &HookPolicy {
        self.policy
    }

    /// Indices of every rule matching `call`, in policy order.
    pub fn matching_rules(&self, call: Call<'_>) -> Vec<usize> {
        (0..self.policy.rules.len())
            .filter(|&i| self.rule_matches(i, call))
            .collect()
    }

    fn rule_matches(&self, index: usize, call: Call<'_>) -> bool {
        let rule = &self.policy.rules[index];
        semantics::rule_applies(rule, call.event, call.tool_name)
            && rule
                .input_matchers
                .iter()
                .zip(&self.regexes[index])
                .all(|(m, re)| {
                    semantics::lookup(call.tool_input, &m.field)
                        .is_some_and(|v| semantics::any_text(v, &mut |text| re.is_match(text)))
                })
    }

    /// Decide `call`.
    pub fn decide(&self, call: Call<'_>) -> Outcome {
        semantics::fold(self.policy, &self.matching_rules(call))
    }
}
