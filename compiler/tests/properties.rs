//! The laws of the policy, stated as properties: order never matters, author rules only
//! tighten, a matched deny always wins.

mod common;

use compiler::{AgentProfile, AuthorRule, Located, Location, ToolPolicy};
use engine::reference::ReferenceEvaluator;
use engine::{Call, Decision, HookPolicy, InputMatcher};
use proptest::prelude::*;
use serde_json::json;

const TOOLS: &[&str] = &[
    "Bash",
    "Read",
    "Write",
    "WebFetch",
    "mcp__github__create_issue",
    "mcp__slack__post",
];
const WORDS: &[&str] = &[
    "git",
    "status",
    "push",
    "--force",
    "--live",
    "trade",
    "deploy",
    "--env=prod",
    "rm",
    "-rf",
    ";",
    "&&",
    "submit-order",
    "\n",
];
const ENTRIES: &[&str] = &[
    "Bash",
    "Read",
    "Write",
    "*",
    "mcp__github__*",
    "mcp__slack",
    "Bash(* --live*)",
    "Bash(git status*)",
    "Bash(rm:*)",
    "Bash(git push *)",
    "Bash(*submit-order*)",
    "Bash(deploy*)",
    "WebFetch",
];
const REGEXES: &[&str] = &[
    "--force",
    "^git",
    "deploy .*--env(=| )prod",
    "rm -rf",
    "(push|pull)",
    "[;&]",
    "live$",
    "a.*b.*c",
    "x[^;]*y",
];

fn location() -> Location {
    Location {
        file: "prop.yaml".into(),
        line: 1,
        column: 1,
    }
}

fn entries() -> impl Strategy<Value = Vec<Located<String>>> {
    prop::collection::vec(prop::sample::select(ENTRIES), 0..5).prop_map(|v| {
        v.into_iter()
            .map(|e| Located {
                value: e.to_string(),
                location: location(),
            })
            .collect()
    })
}

fn author_rules() -> impl Strategy<Value = Vec<AuthorRule>> {
    let rule = (
        prop::sample::select(
            &[
                Decision::Deny,
                Decision::Ask,
                Decision::Allow,
                Decision::Defer,
            ][..],
        ),
        prop::collection::vec(
            prop::sample::select(&["Bash", "Read", "mcp__*", "*"][..]),
            0..3,
        ),
        prop::collection::vec(
            (
                prop::sample::select(&["command", "file_path"][..]),
                prop::sample::select(REGEXES),
            ),
            0..3,
        ),
        prop::option::of(prop::sample::select(
            &["PreToolUse", "PermissionRequest"][..],
        )),
    );
    prop::collection::vec(rule, 0..5).prop_map(|rules| {
        rules
            .into_iter()
            .enumerate()
            .map(|(i, (decision, tools, matchers, event))| AuthorRule {
                id: format!("author-{i}"),
                events: event.map(|e| vec![e.to_string()]),
                tools: tools.iter().copied().map(String::from).collect(),
                // A matcher on a field none of the rule's tools has never fires, which is a
                // compile error: such a rule reads the field its tools have instead.
                input_matchers: matchers
                    .into_iter()
                    .map(|(field, regex): (&str, &str)| {
                        let own = |tool: &str| match tool {
                            "Bash" => Some("command"),
                            "Read" => Some("file_path"),
                            _ => None,
                        };
                        let fields: Option<Vec<&str>> = tools.iter().map(|t| own(t)).collect();
                        let field = match fields {
                            Some(fields) if !fields.is_empty() && !fields.contains(&field) => {
                                fields[0]
                            }
                            _ => field,
                        };
                        InputMatcher::regex(field, regex)
                    })
                    .collect(),
                decision,
                reason: None,
                examples_match: Vec::new(),
                examples_not_match: Vec::new(),
                location: location(),
            })
            .collect()
    })
}

fn profile(
    allow: Vec<Located<String>>,
    deny: Vec<Located<String>>,
    rules: Vec<AuthorRule>,
) -> AgentProfile {
    AgentProfile {
        agent_id: "prop".into(),
        location: location(),
        tool_policy: ToolPolicy {
            allow,
            deny,
            ask: Vec::new(),
            ..ToolPolicy::default()
        },
        policy_rules: rules,
        observers: Vec::new(),
        packs: Vec::new(),
        examples: Vec::new(),
    }
}

fn calls() -> impl Strategy<Value = Vec<(String, String, serde_json::Value)>> {
    let call = (
        prop::sample::select(&["PreToolUse", "PermissionRequest"][..]),
        prop::sample::select(TOOLS),
        prop::collection::vec(prop::sample::select(WORDS), 0..7),
    )
        .prop_map(|(event, tool, words)| {
            let text = words.join(" ");
            (
                event.to_string(),
                tool.to_string(),
                json!({"command": text, "file_path": text}),
            )
        });
    prop::collection::vec(call, 1..12)
}

fn compile(p: &AgentProfile) -> HookPolicy {
    let policy = compiler::compile_profile(p).unwrap().policy;
    common::assert_schema_valid(&policy);
    policy
}

fn outcome(
    policy: &HookPolicy,
    call: &(String, String, serde_json::Value),
) -> (Decision, Vec<String>) {
    let eval = ReferenceEvaluator::new(policy).unwrap();
    let out = eval.decide(Call {
        event: &call.0,
        tool_name: &call.1,
        tool_input: &call.2,
        places: Default::default(),
    });
    let mut matched = out.matched;
    matched.sort();
    (out.decision, matched)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn shuffling_rules_never_changes_a_decision(
        allow in entries(), deny in entries(), rules in author_rules(), calls in calls(), seed in any::<u64>()
    ) {
        let policy = compile(&profile(allow, deny, rules));
        let mut shuffled = policy.clone();
        // A deterministic Fisher–Yates driven by the generated seed.
        let mut state = seed | 1;
        for i in (1..shuffled.rules.len()).rev() {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17;
            shuffled.rules.swap(i, (state % (i as u64 + 1)) as usize);
        }
        for call in &calls {
            prop_assert_eq!(outcome(&policy, call), outcome(&shuffled, call));
        }
    }

    #[test]
    fn author_rules_only_tighten(allow in entries(), deny in entries(), rules in author_rules(), calls in calls()) {
        let kernel_only = compile(&profile(allow.clone(), deny.clone(), Vec::new()));
        let with_authors = compile(&profile(allow, deny, rules));
        prop_assert_eq!(kernel_only.default_decision, with_authors.default_decision);
        for call in &calls {
            let (before, _) = outcome(&kernel_only, call);
            let (after, _) = outcome(&with_authors, call);
            prop_assert!(after >= before, "{:?}: kernel-only {:?}, with author rules {:?}", call, before, after);
        }
    }

    #[test]
    fn a_matched_deny_always_wins(allow in entries(), deny in entries(), rules in author_rules(), calls in calls()) {
        let policy = compile(&profile(allow, deny, rules));
        let eval = ReferenceEvaluator::new(&policy).unwrap();
        for call in &calls {
            let out = eval.decide(Call { event: &call.0, tool_name: &call.1, tool_input: &call.2, places: Default::default() });
            let deny_matched = out.matched.iter().any(|id| {
                policy.rules.iter().any(|r| &r.id == id && r.decision == Decision::Deny)
            });
            if deny_matched {
                prop_assert_eq!(out.decision, Decision::Deny);
            }
            // And the converse: a deny outcome comes from a matched deny or the default.
            if out.decision == Decision::Deny && !deny_matched {
                prop_assert_eq!(policy.default_decision, Decision::Deny);
            }
        }
    }
}
