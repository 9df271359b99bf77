//! The JSON Schemas in `schemas/` are usable and agree with the code.

mod common;

use serde_json::Value;

fn schema(name: &str) -> Value {
    serde_json::from_str(
        &std::fs::read_to_string(common::repo_root().join("schemas").join(name)).unwrap(),
    )
    .unwrap()
}

#[test]
fn profile_fixtures_validate_against_the_profile_schema() {
    let validator = jsonschema::validator_for(&schema("agent-profile.v1.json")).unwrap();
    for (file, section, agent) in [
        ("trader.yaml", "agent_profiles", "trader"),
        ("allowlist.yaml", "agent_profiles", "reviewer"),
        ("runtime-config.json", "agents", "trader"),
    ] {
        let text = std::fs::read_to_string(common::repo_root().join("corpus/profiles").join(file))
            .unwrap();
        let doc: Value = serde_saphyr::from_str(&text).unwrap();
        let profile = &doc[section][agent];
        let errors: Vec<String> = validator
            .iter_errors(profile)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{file}: {errors:?}");
    }
    // And it rejects what the loader rejects.
    for bad in [
        serde_json::json!({"hooks": {"pre_tool": []}}),
        serde_json::json!({"hooks": {"policy_rules": [{"id": "x", "decision": "deny", "events": []}]}}),
        serde_json::json!({"hooks": {"observers": [{"events": ["Stop; rm -rf ~"], "action": "record"}]}}),
        serde_json::json!({"hooks": {"observers": [{"events": ["Stop"], "action": "shell"}]}}),
        serde_json::json!({"tool_policy": {"deny": "Bash"}}),
        serde_json::json!({"tool_policy": {"examples": [{"command": "ls"}]}}),
        serde_json::json!({"tool_policy": {"examples": [{"command": "ls", "call": {"tool": "Read"}, "expect": "deny"}]}}),
        serde_json::json!({"tool_policy": {"examples": [{"command": "ls", "expect": "maybe"}]}}),
        serde_json::json!({"hooks": {"policy_rules": [{"id": "x", "decision": "deny", "examples": {"match": [42]}}]}}),
        serde_json::json!({"toolPolicy": {"deny": ["Bash"]}}),
        serde_json::json!({"tool_polcy": {"deny": ["Bash"]}}),
        serde_json::json!({"Tool-Policy": {"deny": ["Bash"]}}),
        serde_json::json!({"pack": ["core"]}),
        serde_json::json!({"Hooks": {}}),
        serde_json::json!({"deny": ["Bash"]}),
        serde_json::json!({"tool_policy": {"meaning": "claud"}}),
    ] {
        assert!(!validator.is_valid(&bad), "schema accepted {bad}");
        // The loader rejects it too.
        let yaml = format!("agents:\n  a: {bad}\n");
        assert!(
            compiler::load_profile_str(&yaml, "bad.yaml".into(), "a").is_err(),
            "the loader accepted {bad}"
        );
    }
    // Every key the schema names as a mistake, the loader refuses too.
    let s = schema("agent-profile.v1.json");
    for key in s["propertyNames"]["not"]["anyOf"][0]["enum"]
        .as_array()
        .unwrap()
    {
        let yaml = format!("agents:\n  a:\n    {}: []\n", key.as_str().unwrap());
        assert!(
            compiler::load_profile_str(&yaml, "bad.yaml".into(), "a").is_err(),
            "the loader accepted `{key}`"
        );
    }
    for good in [
        serde_json::json!({"model": "x", "tools": ["a"], "tool_policy": {"meaning": "claude", "allow": ["Read"]}}),
        serde_json::json!({"tool_policy": {"meaning": "allowlist"}, "packs": ["core"], "hooks": {}}),
    ] {
        assert!(validator.is_valid(&good), "schema rejected {good}");
        let yaml = format!("agents:\n  a: {good}\n");
        compiler::load_profile_str(&yaml, "good.yaml".into(), "a")
            .unwrap_or_else(|e| panic!("the loader rejected {good}: {e}"));
    }
}

/// The strings of the `enum` at `pointer` in `schema`.
fn enum_at(schema: &serde_json::Value, pointer: &str) -> Vec<String> {
    let listed = schema.pointer(pointer).and_then(|v| v.as_array());
    let listed = listed.unwrap_or_else(|| panic!("no enum at {pointer}"));
    listed
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn observer_event_list_matches_the_code() {
    let profile = schema("agent-profile.v1.json");
    let listed = enum_at(&profile, "/$defs/observer/properties/events/items/enum");
    assert_eq!(listed, compiler::events::CLAUDE_HOOK_EVENTS);
    let policy = schema("hook-policy.v1.json");
    let gate = enum_at(&policy, "/$defs/rule/properties/events/items/enum");
    assert_eq!(gate, engine::GATE_EVENTS);
}

#[test]
fn the_policy_schema_rejects_malformed_policies() {
    let validator = jsonschema::validator_for(&schema("hook-policy.v1.json")).unwrap();
    let good = serde_json::json!({"version": 1, "default_decision": "defer", "rules": [
        {"id": "r", "events": [], "tools": ["Bash"], "input_matchers": [{"field": "command", "regex": "x"}],
         "decision": "deny", "reason": "r"}]});
    assert!(validator.is_valid(&good));
    for (path, value) in [
        ("/version", serde_json::json!(2)),
        ("/default_decision", serde_json::json!("block")),
        ("/rules/0/extra", serde_json::json!(true)),
        ("/rules/0/events", serde_json::json!(["PostToolUse"])),
    ] {
        let mut bad = good.clone();
        let (parent, key) = path.rsplit_once('/').unwrap();
        bad.pointer_mut(if parent.is_empty() { "" } else { parent })
            .unwrap()[key] = value;
        assert!(!validator.is_valid(&bad), "schema accepted {bad}");
    }
}
