//! A pack's `match` / `not_match` examples, decided against the rule that carries them.

use engine::{Call, Decision, HookPolicy, Places};

use super::{Pack, lower_rule};
use crate::diagnostic::{Diagnostic, Errors, quote};

/// The places examples are decided in: a project in a home directory.
pub const EXAMPLE_PLACES: Places<'static> = Places {
    cwd: Some("/home/user/project"),
    home: Some("/home/user"),
    project_root: Some("/home/user/project"),
};

/// Decide every example of every rule of `pack` against that rule alone: a `match` example
/// must get the rule's decision, a `not_match` example none. Each failure is an error at the
/// example.
pub fn check_examples(pack: &Pack) -> Result<(), Errors> {
    let mut errors = Vec::new();
    for rule in &pack.rules {
        let policy = HookPolicy {
            version: engine::policy::POLICY_VERSION,
            default_decision: Decision::Defer,
            rules: lower_rule(pack, rule).into_iter().map(|(r, _)| r).collect(),
        };
        let evaluator = match engine::reference::ReferenceEvaluator::new(&policy) {
            Ok(e) => e,
            Err(e) => {
                errors.push(Diagnostic::error(
                    Some(rule.location.clone()),
                    format!(
                        "rule `{}` cannot be compiled: {}",
                        rule.id,
                        quote(&e.message)
                    ),
                ));
                continue;
            }
        };
        let decide = |command: &str| {
            let input = serde_json::json!({ "command": command });
            evaluator
                .decide(Call {
                    event: "PreToolUse",
                    tool_name: "Bash",
                    tool_input: &input,
                    places: EXAMPLE_PLACES,
                })
                .decision
        };
        let matching = rule.examples_match.iter().map(|e| (e, true));
        let not_matching = rule.examples_not_match.iter().map(|e| (e, false));
        for (example, matches) in matching.chain(not_matching) {
            let got = decide(&example.value);
            let value = quote(&example.value);
            let wrong = if matches {
                (got != rule.decision).then(|| {
                    format!(
                        "the `match` example `{value}` gets {got}, not {}",
                        rule.decision
                    )
                })
            } else {
                (got != Decision::Defer)
                    .then(|| format!("the `not_match` example `{value}` is matched ({got})"))
            };
            if let Some(wrong) = wrong {
                errors.push(Diagnostic::error(
                    Some(example.location.clone()),
                    format!("{}:{}: {wrong}", pack.name, rule.id),
                ));
            }
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Errors(errors))
    }
}
