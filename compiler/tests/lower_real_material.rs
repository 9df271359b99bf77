//! The automaton engine agrees with the reference evaluator on real material: every entry of
//! `../shared/corpus-real/permission-lists/*.json` (`permissions.allow`, `.ask` and `.deny`) that the
//! compiler can lower, used once as deny rules and once as allow rules, evaluated over every
//! real hook payload in `tool-calls/pretooluse-hook-inputs.jsonl` and every command in
//! `commands/*.jsonl` (as a `Bash` call).

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use engine::reference::ReferenceEvaluator;
use engine::{CompiledPolicy, Decision, HookPolicy, HookPolicyRule};
use serde_json::{Value, json};
use test_support::shared::shared_dir;

/// Every distinct lowerable entry of every list, in a stable order.
fn real_entries(shared: &Path) -> Vec<String> {
    let mut entries = BTreeSet::new();
    for file in std::fs::read_dir(shared.join("corpus-real/permission-lists")).unwrap() {
        let text = std::fs::read_to_string(file.unwrap().path()).unwrap();
        let list: Value = serde_json::from_str(&text).unwrap();
        for key in ["allow", "ask", "deny"] {
            if let Some(items) = list["permissions"][key].as_array() {
                entries.extend(items.iter().filter_map(Value::as_str).map(String::from));
            }
        }
    }
    entries
        .into_iter()
        .filter(|entry| compiler::tool_policy::lower_entry(entry, Decision::Deny).is_ok())
        .collect()
}

fn policy_of(entries: &[String], decision: Decision) -> HookPolicy {
    HookPolicy {
        version: 1,
        default_decision: if decision == Decision::Allow {
            Decision::Deny
        } else {
            Decision::Defer
        },
        rules: entries
            .iter()
            .flat_map(|entry| {
                let lowered = compiler::tool_policy::lower_entry(entry, decision).unwrap();
                lowered
                    .parts
                    .into_iter()
                    .enumerate()
                    .map(move |(i, part)| HookPolicyRule {
                        id: format!("{decision}:{entry} #{i}"),
                        events: vec![],
                        tools: part.tools,
                        input_matchers: part.input_matchers,
                        decision,
                        reason: format!("{decision} by `{entry}`"),
                    })
            })
            .collect(),
    }
}

/// `(tool_name, tool_input, cwd)` of every real call and command.
fn real_calls(shared: &Path) -> Vec<(String, Value, String)> {
    let mut calls = Vec::new();
    let payloads =
        std::fs::read_to_string(shared.join("corpus-real/tool-calls/pretooluse-hook-inputs.jsonl"))
            .unwrap();
    for line in payloads.lines().filter(|l| !l.trim().is_empty()) {
        let payload: Value = serde_json::from_str(line).unwrap();
        let tool = payload["tool_name"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        let cwd = payload["cwd"]
            .as_str()
            .filter(|c| c.starts_with('/'))
            .unwrap_or("/home/user/project")
            .to_string();
        calls.push((tool, payload["tool_input"].clone(), cwd));
    }
    for file in ["nl2bash.jsonl", "tldr-examples.jsonl"] {
        let text = std::fs::read_to_string(shared.join("corpus-real/commands").join(file)).unwrap();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let record: Value = serde_json::from_str(line).unwrap();
            if let Some(command) = record["command"].as_str() {
                calls.push((
                    "Bash".to_string(),
                    json!({ "command": command }),
                    "/home/user/project".to_string(),
                ));
            }
        }
    }
    calls
}

/// Each policy is decided by the reference evaluator and by the automaton engine on its own:
/// the same entries mean different things as deny (any segment matches) and as allow (every
/// segment covered).
fn assert_agree_on(policies: &[HookPolicy], calls: &[(String, Value, String)]) -> usize {
    let compiled: Vec<CompiledPolicy> = policies
        .iter()
        .map(|policy| {
            let json = policy.to_json();
            let sidecar = compiler::lower::build_sidecar(policy, json.as_bytes())
                .unwrap_or_else(|e| panic!("{e}"));
            CompiledPolicy::from_bytes(&sidecar, json.as_bytes()).unwrap()
        })
        .collect();
    let references: Vec<ReferenceEvaluator> = policies
        .iter()
        .map(|p| ReferenceEvaluator::new(p).unwrap())
        .collect();
    let with_input_matches = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for chunk in calls.chunks(calls.len().div_ceil(2).max(1)) {
            let (compiled, references, counter) = (&compiled, &references, &with_input_matches);
            scope.spawn(move || {
                for (tool, input, cwd) in chunk {
                    // Path rules anchor at the call's cwd (the payload's, else a project
                    // directory), the home of its user and the project root.
                    let call = common::call_in(tool, input, cwd);
                    let matched = references[0].matching_rules(call);
                    if matched
                        .iter()
                        .any(|&i| !policies[0].rules[i].input_matchers.is_empty())
                    {
                        counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                    for (reference, compiled) in references.iter().zip(compiled) {
                        let expected = reference.decide(call);
                        let actual = compiled.decide(call);
                        assert_eq!(actual, expected, "tool {tool} input {input}");
                    }
                }
            });
        }
    });
    with_input_matches.into_inner()
}

#[test]
fn real_permission_lists_agree_with_the_reference_on_real_calls() {
    let Some(shared) = shared_dir("real_permission_lists_agree_with_the_reference_on_real_calls")
    else {
        return;
    };
    let entries = real_entries(&shared);
    assert!(
        entries.len() > 2000,
        "expected thousands of lowerable entries, got {}",
        entries.len()
    );
    let calls = real_calls(&shared);
    assert!(
        calls.len() > 30_000,
        "expected the whole corpus, got {} calls",
        calls.len()
    );
    let policies = [
        policy_of(&entries, Decision::Deny),
        policy_of(&entries, Decision::Allow),
    ];
    let fired = assert_agree_on(&policies, &calls);
    // A differential test where no argument pattern ever fires would prove little.
    assert!(
        fired > calls.len() / 10,
        "only {fired} of {} calls matched a rule with an input matcher",
        calls.len()
    );
    println!(
        "{} rules as deny and as allow, {} calls, {fired} matching an argument pattern: \
         automaton == reference",
        entries.len(),
        calls.len()
    );
}

/// `explain` (what `animus-hook explain` prints) tells the truth on real material: with every
/// pack enabled, the rules it lists as matched are the ones the evaluator matches, each with a
/// hit for every matcher inside its text, and every near miss has a matcher that missed.
#[test]
fn explain_agrees_with_the_decision_on_real_calls() {
    let Some(shared) = shared_dir("explain_agrees_with_the_decision_on_real_calls") else {
        return;
    };
    let policy = common::packs_policy(None);
    let evaluator = ReferenceEvaluator::new(&policy).unwrap();
    // Every real tool call, and every tenth real command.
    let calls: Vec<_> = real_calls(&shared)
        .into_iter()
        .enumerate()
        .filter(|(i, (tool, input, _))| {
            tool != "Bash" || input.get("description").is_some() || i % 10 == 0
        })
        .map(|(_, call)| call)
        .collect();
    let mut hits = 0;
    for (tool, input, cwd) in &calls {
        let call = common::call_in(tool, input, cwd);
        let explanation = evaluator.explain(call);
        let listed: Vec<usize> = explanation.matched.iter().map(|r| r.index).collect();
        assert_eq!(listed, evaluator.matching_rules(call), "{tool} {input}");
        for rule in &explanation.matched {
            for hit in &rule.hits {
                let hit = hit.as_ref().unwrap_or_else(|| {
                    panic!(
                        "{tool} {input}: {} matched without a hit",
                        policy.rules[rule.index].id
                    )
                });
                assert!(hit.start <= hit.end && hit.text.get(hit.start..hit.end).is_some());
                hits += 1;
            }
        }
        for rule in &explanation.near {
            assert!(
                rule.hits.iter().any(Option::is_none),
                "{tool} {input}: {} is a near miss with every matcher matched",
                policy.rules[rule.index].id
            );
        }
    }
    assert!(
        hits > 0,
        "no rule matched any of {} real calls",
        calls.len()
    );
    println!("{} real calls explained, {hits} matcher hits", calls.len());
}
