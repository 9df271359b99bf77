//! The benchmark shapes decide exactly as the reference evaluator does — in particular the
//! issue's 1,000 adversarial `a.*b.*c` / `x[^;]*y` rules, which must compile and "still decide
//! correctly". Calls: real commands plus, for every rule, a command built to match it.

use animus_benches::{
    adversarial_policy, author_policy, commands, compile, real_list_policy, word_pair_policy,
};
use engine::reference::ReferenceEvaluator;
use engine::{Call, CompiledPolicy, HookPolicy};
use serde_json::json;

/// A command containing the literal pieces of `regex` in order (for `a.*b.*c` and `x[^;]*y`).
fn witness(regex: &str) -> String {
    regex
        .replace("[^;]*", " ")
        .replace(".*", " and then ")
        .replace('\\', "")
}

/// A command matching the Claude pattern `pattern` (`git status:*`, `*a b*`).
fn pattern_witness(pattern: &str) -> String {
    pattern
        .trim_end_matches(":*")
        .replace('*', " and then ")
        .trim()
        .to_string()
}

fn assert_agree(policy: &HookPolicy) {
    let (json, sidecar) = compile(policy);
    let compiled = CompiledPolicy::from_bytes(&sidecar, json.as_bytes()).unwrap();
    let reference = ReferenceEvaluator::new(policy).unwrap();
    let mut inputs: Vec<String> = commands().into_iter().step_by(17).collect();
    inputs.extend(policy.rules.iter().step_by(3).flat_map(|r| {
        r.input_matchers.iter().map(|m| {
            if m.is_regex() {
                witness(&m.pattern)
            } else {
                pattern_witness(&m.pattern)
            }
        })
    }));
    let mut matched_calls = 0;
    for command in &inputs {
        let input = json!({ "command": command });
        let call = Call::pre_tool_use("Bash", &input, Default::default());
        let expected = reference.decide(call);
        assert_eq!(compiled.decide(call), expected, "command {command:?}");
        matched_calls += usize::from(!expected.matched.is_empty());
    }
    assert!(
        matched_calls > inputs.len() / 10,
        "only {matched_calls} of {} calls matched",
        inputs.len()
    );
}

#[test]
fn a_thousand_adversarial_rules_decide_like_the_reference() {
    let policy = adversarial_policy(1000);
    let (_, sidecar) = compile(&policy);
    assert!(sidecar.len() <= 16 << 20, "sidecar {} bytes", sidecar.len());
    assert_agree(&policy);
}

#[test]
fn the_other_benchmark_shapes_decide_like_the_reference() {
    assert_agree(&word_pair_policy(1000));
    assert_agree(&real_list_policy(1000));
    assert_agree(&author_policy(300));
}
