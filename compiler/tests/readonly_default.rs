//! Claude's read-only knowledge where an allowlist default-denies (issue 25 item 3): a Bash
//! command the read-only model recognises (`engine::readonly`) and no rule matched is abstained
//! on, not denied by the default — in both evaluators alike — and never where a deny, ask or
//! pack rule matches, nor where the default is not deny.

mod common;

use common::{compile_entries, located, pre_tool_use};
use compiler::profile::ToolPolicy;
use engine::reference::ReferenceEvaluator;
use engine::{Decision, Outcome};

fn both(tool_policy: &ToolPolicy, tool: &str, input: serde_json::Value) -> Outcome {
    let (policy, compiled) = compile_entries(tool_policy).unwrap();
    let call = pre_tool_use(tool, &input);
    let reference = ReferenceEvaluator::new(&policy).unwrap().decide(call);
    let automaton = compiled.decide(call);
    assert_eq!(reference, automaton, "{tool} {input}");
    reference
}

fn bash(tool_policy: &ToolPolicy, command: &str) -> Decision {
    both(tool_policy, "Bash", serde_json::json!({"command": command})).decision
}

fn allowlist(allow: &[&str], ask: &[&str], deny: &[&str]) -> ToolPolicy {
    ToolPolicy {
        allow: located(allow),
        ask: located(ask),
        deny: located(deny),
        ..ToolPolicy::default()
    }
}

#[test]
fn a_read_only_command_no_rule_matched_is_abstained_on() {
    let policy = allowlist(&["Bash(cargo test:*)"], &[], &[]);
    for command in [
        "ls -la",
        "git status",
        "find src -type f | sort",
        "cat README.md",
    ] {
        let outcome = both(&policy, "Bash", serde_json::json!({"command": command}));
        assert_eq!(outcome.decision, Decision::Defer, "{command}");
        assert_eq!(outcome.deciding_rule, None);
        assert_eq!(outcome.reason, engine::semantics::READ_ONLY_REASON);
    }
    // What the model does not recognise keeps the default.
    for command in [
        "rm -rf build",
        "find . -delete",
        "cat /etc/passwd",
        "ls > out",
        "git push",
    ] {
        assert_eq!(bash(&policy, command), Decision::Deny, "{command}");
    }
    // Other tools keep the default.
    let read = both(
        &policy,
        "Read",
        serde_json::json!({"file_path": "/p/README.md"}),
    );
    assert_eq!(read.decision, Decision::Deny);
}

#[test]
fn a_deny_or_ask_rule_still_answers() {
    let policy = allowlist(
        &["Bash(cargo test:*)"],
        &["Bash(git log:*)"],
        &["Bash(cat secrets:*)", "Read(./.env)"],
    );
    assert_eq!(bash(&policy, "cat secrets"), Decision::Deny);
    assert_eq!(bash(&policy, "cat .env"), Decision::Deny);
    assert_eq!(bash(&policy, "git log -5"), Decision::Ask);
    assert_eq!(bash(&policy, "git status"), Decision::Defer);
}

#[test]
fn only_the_default_is_softened() {
    // `*` (a seed's "no default deny"): the `*` rule decides, not the model.
    let policy = allowlist(&["*"], &[], &["Bash(rm:*)"]);
    let outcome = both(&policy, "Bash", serde_json::json!({"command": "ls -la"}));
    assert_eq!(outcome.decision, Decision::Allow);
    assert!(outcome.deciding_rule.is_some());
    assert_eq!(bash(&policy, "rm -rf x"), Decision::Deny);
    // A default other than deny is left as it is.
    let input = serde_json::json!({"command": "ls"});
    let call = pre_tool_use("Bash", &input);
    for default in [Decision::Ask, Decision::Defer, Decision::Allow] {
        let outcome =
            engine::semantics::fold_rules::<&engine::policy::HookPolicyRule>(default, Vec::new());
        assert_eq!(
            engine::semantics::read_only_default(outcome.clone(), call),
            outcome
        );
    }
}
