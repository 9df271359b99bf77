//! Bad input gets a clear error naming file:line:column and what was expected.

use compiler::load_profile_str;
use test_support::assert_has;
use test_support::assert_starts;

/// [`error_of`] agent `a`.
fn error_of_a(yaml: &str) -> String {
    error_of(yaml, "a")
}

fn error_of(yaml: &str, agent: &str) -> String {
    let result = load_profile_str(yaml, "cfg.yaml".into(), agent)
        .and_then(|p| compiler::compile_profile(&p));
    match result {
        Ok(c) => panic!("expected an error, compiled {:?}", c.policy),
        Err(e) => e.to_string(),
    }
}

#[test]
fn invalid_yaml() {
    let e = error_of_a("agents:\n  a:\n    tool_policy:\n      deny: [Bash\n");
    assert!(e.starts_with("cfg.yaml:4:13: error: "), "{e}");
}

#[test]
fn wrong_type() {
    let e = error_of_a("agents:\n  a:\n    tool_policy:\n      deny: Bash\n");
    assert_eq!(e, "cfg.yaml:4:13: error: wrong type: expected a list here");
    let e = error_of_a(
        "agents:\n  a:\n    hooks:\n      policy_rules:\n        - id: x\n          decision: 3\n",
    );
    assert!(e.starts_with("cfg.yaml:6:21: error: "), "{e}");
}

#[test]
fn unknown_key_inside_hooks_and_tool_policy() {
    let e = error_of_a(
        "agents:\n  a:\n    hooks:\n      policy_rules:\n        - id: x\n          decision: deny\n          colour: red\n",
    );
    assert_starts(
        &e,
        "cfg.yaml:7:11: error: unknown key `colour` (expected one of id, events",
    );
    let e = error_of_a("agents:\n  a:\n    hooks:\n      pre_tool: []\n");
    assert!(
        e.contains(
            "cfg.yaml:4:7: error: unknown key `pre_tool` (expected one of policy_rules, observers"
        ),
        "{e}"
    );
    let e = error_of_a("agents:\n  a:\n    tool_policy:\n      prompt: [Bash]\n");
    assert!(
        e.contains(
            "cfg.yaml:4:7: error: unknown key `prompt` (expected one of meaning, allow, deny, ask"
        ),
        "{e}"
    );
}

#[test]
fn invalid_regex_points_at_the_regex() {
    let yaml = "agents:\n  a:\n    hooks:\n      policy_rules:\n        - id: x\n          decision: deny\n          input_matchers:\n            - field: command\n              regex: 'deploy (prod'\n";
    let e = error_of(yaml, "a");
    assert_eq!(
        e,
        "cfg.yaml:9:22: error: rule `x`: invalid regex `deploy (prod`: unclosed group"
    );
    let e = error_of(&yaml.replace("deploy (prod", r"\brm\b"), "a");
    assert_starts(
        &e,
        "cfg.yaml:9:22: error: rule `x`: invalid regex `\\brm\\b`: the Unicode word boundary",
    );
}

#[test]
fn empty_events_unknown_events_and_actions() {
    let e = error_of_a(
        "agents:\n  a:\n    hooks:\n      policy_rules:\n        - id: x\n          events: []\n          decision: deny\n",
    );
    assert_starts(&e, "cfg.yaml:6:19: error: rule `x`: `events` is empty");
    let e = error_of_a(
        "agents:\n  a:\n    hooks:\n      policy_rules:\n        - id: x\n          events: [PostToolUse]\n          decision: deny\n",
    );
    assert_has(
        &e,
        "cfg.yaml:6:20: error: rule `x`: `PostToolUse` is not a gate event",
    );
    let e = error_of_a(
        "agents:\n  a:\n    hooks:\n      observers:\n        - events: ['Stop; rm -rf ~']\n          action: record\n",
    );
    assert_starts(
        &e,
        "cfg.yaml:5:20: error: observer event `Stop; rm -rf ~` is not a harness hook event",
    );
    let e = error_of_a(
        "agents:\n  a:\n    hooks:\n      observers:\n        - events: [Stop]\n          action: run\n",
    );
    assert_eq!(
        e,
        "cfg.yaml:6:19: error: unknown value `run` (expected one of record)"
    );
    let e = error_of_a(
        "agents:\n  a:\n    hooks:\n      observers:\n        - events: []\n          action: record\n",
    );
    assert_starts(&e, "cfg.yaml:5:19: error: observer `events` is empty");
}

#[test]
fn missing_agent_lists_the_ids_that_exist() {
    let e = error_of(
        "agents:\n  alpha: {}\n  beta: {model: x}\nagent_profiles:\n  gamma: {}\n",
        "delta",
    );
    assert_eq!(
        e,
        "cfg.yaml: error: no agent `delta` in `agents` or `agent_profiles`; the agents defined here are: agents.alpha, agents.beta, agent_profiles.gamma"
    );
    let e = error_of_a("name: empty\n");
    assert_has(&e, "defines no `agents` or `agent_profiles` section");
}

#[test]
fn ids_are_unique_and_the_kernel_prefix_is_reserved() {
    let e = error_of_a(
        "agents:\n  a:\n    hooks:\n      policy_rules:\n        - {id: x, decision: deny}\n        - {id: x, decision: ask}\n",
    );
    assert_eq!(
        e.lines().next().unwrap(),
        "cfg.yaml:6:16: error: duplicate rule id `x` (first defined at cfg.yaml:5:16)"
    );
    let e = error_of_a(
        "agents:\n  a:\n    hooks:\n      policy_rules:\n        - {id: 'tool_policy.deny:Bash', decision: deny}\n",
    );
    assert_has(&e, "reserved prefix");
}

#[test]
fn unmodelled_argument_forms_are_errors_naming_the_entry() {
    let e = error_of_a(
        "agents:\n  a:\n    tool_policy:\n      deny:\n        - Bash\n        - Read(./.env)\n        - WebFetch(https://example.com)\n        - mcp__github__x(repo)\n",
    );
    let lines: Vec<&str> = e.lines().collect();
    assert_eq!(lines.len(), 2, "{e}");
    assert!(
        lines[0].starts_with(
            "cfg.yaml:7:11: error: tool_policy.deny entry `WebFetch(https://example.com)` has the argument"
        ),
        "{e}"
    );
    assert!(
        lines[1].starts_with(
            "cfg.yaml:8:11: error: tool_policy.deny entry `mcp__github__x(repo)` uses an argument form"
        ),
        "{e}"
    );
}

#[test]
fn everything_outside_the_selected_profile_is_ignored() {
    let yaml = "version: 9\nagents:\n  other:\n    tool_policy: {deny: 3, bogus: 1}\n  a:\n    model: x\n    prompt: {anything: [1, 2]}\n    tool_policy: {deny: [Bash]}\n";
    let profile = load_profile_str(yaml, "cfg.yaml".into(), "a").unwrap();
    assert_eq!(profile.tool_policy.deny[0].value, "Bash");
    // A config without `hooks:` loads unchanged.
    assert!(profile.policy_rules.is_empty() && profile.observers.is_empty());
}

#[test]
fn json_configs_get_the_same_locations() {
    let json = "{\n  \"agents\": {\n    \"a\": {\n      \"hooks\": {\"policy_rules\": [{\"id\": \"x\", \"decision\": \"deny\", \"oops\": 1}]}\n    }\n  }\n}\n";
    let e = error_of(json, "a");
    assert!(e.starts_with("cfg.yaml:4:"), "{e}");
    assert_has(&e, "unknown key `oops`");
}

#[test]
fn an_overlong_reason_is_an_error_at_its_place() {
    let long = "x".repeat(1025);
    let yaml = format!(
        "agents:\n  a:\n    hooks:\n      policy_rules:\n        - id: r\n          decision: deny\n          reason: {long}\n"
    );
    let e = error_of(&yaml, "a");
    assert_starts(
        &e,
        "cfg.yaml:7:19: error: rule `r`: the reason is 1025 bytes",
    );
    assert!(
        e.len() < 600,
        "the error quotes only the start of the reason: {e}"
    );
    let ok = format!(
        "agents:\n  a:\n    hooks:\n      policy_rules:\n        - id: r\n          decision: deny\n          reason: {}\n",
        "x".repeat(1024)
    );
    load_profile_str(&ok, "cfg.yaml".into(), "a")
        .and_then(|p| compiler::compile_profile(&p))
        .unwrap();
}

/// A profile whose author rule and tool_policy carry inline examples.
fn with_examples(rule_examples: &str, policy_examples: &str) -> String {
    format!(
        "agents:\n  a:\n    tool_policy:\n      deny: [\"Bash(curl:*)\"]\n      examples:\n{policy_examples}    hooks:\n      policy_rules:\n        - id: no-prod\n          tools: [Bash]\n          input_matchers:\n            - field: command\n              regex: 'deploy .*--env(=| )prod'\n          decision: deny\n          examples:\n{rule_examples}"
    )
}

#[test]
fn inline_examples_that_hold_compile() {
    let yaml = with_examples(
        "            match: [\"deploy web --env prod\", \"echo x && deploy api --env=prod\"]\n            not_match: [\"deploy web --env staging\", {tool: Read, input: {file_path: /x}}]\n",
        "        - command: \"curl -s https://example.com\"\n          expect: deny\n        - command: \"deploy web --env=prod\"\n          expect: deny\n        - call: {tool: Read, input: {file_path: /home/user/project/README.md}}\n          expect: defer\n",
    );
    let profile = load_profile_str(&yaml, "cfg.yaml".into(), "a").unwrap();
    assert_eq!(profile.examples.len(), 3);
    assert_eq!(profile.policy_rules[0].examples_match.len(), 2);
    compiler::compile_profile(&profile).unwrap();
}

#[test]
fn a_failing_inline_example_is_an_error_at_the_example() {
    let e = error_of(
        &with_examples(
            "            match:\n              - \"deploy web --env staging\"\n            not_match:\n              - \"deploy web --env prod\"\n",
            "        - command: \"git status\"\n          expect: deny\n",
        ),
        "a",
    );
    let lines: Vec<&str> = e.lines().collect();
    assert_eq!(lines.len(), 3, "every failing example, each once: {e}");
    assert_has(
        &e,
        "cfg.yaml:18:17: error: rule `no-prod`: the `match` example Bash: deploy web --env staging does not match it",
    );
    assert_has(
        &e,
        "cfg.yaml:20:17: error: rule `no-prod`: the `not_match` example Bash: deploy web --env prod matches it",
    );
    assert_has(
        &e,
        "cfg.yaml:6:11: error: tool_policy example Bash: git status: expected deny, got defer (the policy default)",
    );
}

#[test]
fn a_malformed_inline_example_names_its_place() {
    let e = error_of(
        &with_examples("            match: [42]\n", "        - command: ls\n"),
        "a",
    );
    assert!(
        e.contains("cfg.yaml:6:11"),
        "the example without `expect`: {e}"
    );
    let e = error_of(
        &with_examples(
            "            match: [42]\n",
            "        - command: ls\n          expect: defer\n",
        ),
        "a",
    );
    assert_has(
        &e,
        "cfg.yaml:17:21: error: rule `no-prod`: an example is a Bash command",
    );
}

/// An author regex found by no literal of two bytes or more is searched in every text of its
/// field, every call: a warning at the rule (AH209), with the way out; one that starts with a
/// word is not.
#[test]
fn a_regex_without_a_literal_is_a_warning_at_its_rule() {
    let rule = |id: &str, regex: &str| {
        format!(
            "        - id: {id}\n          tools: [Bash]\n          decision: ask\n          input_matchers:\n            - field: command\n              regex: '{regex}'\n"
        )
    };
    let yaml = format!(
        "agents:\n  a:\n    hooks:\n      policy_rules:\n{}{}{}",
        rule("folded", r"(?i)git config core\.hookspath"),
        rule("kept", r"git config (?i:core\.hookspath)"),
        rule("classes", r"[a-z]+ [0-9]+"),
    );
    let profile = load_profile_str(&yaml, "cfg.yaml".into(), "a").unwrap();
    let compiled = compiler::compile_profile(&profile).unwrap();
    let found: Vec<String> = compiled
        .warnings
        .iter()
        .filter(|d| d.code == compiler::diagnostic::Code::RegexWithoutLiteral)
        .map(ToString::to_string)
        .collect();
    assert_eq!(found.len(), 2, "{found:#?}");
    assert_starts(
        &found[0],
        "cfg.yaml:5:11: warning: rule `folded`, matcher on `command`",
    );
    assert_starts(
        &found[1],
        "cfg.yaml:17:11: warning: rule `classes`, matcher on `command`",
    );
    assert_has(&found[0], "every text of the field, every call");
}
