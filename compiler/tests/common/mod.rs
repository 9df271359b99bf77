//! Helpers shared by the compiler's integration tests.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::OnceLock;

use engine::reference::ReferenceEvaluator;
use engine::{Call, HookPolicy, Outcome};

/// The repository root.
pub fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A `PreToolUse` call of `tool` with `tool_input` made in `cwd`, which is also the project
/// root, by a user whose home is `/home/user`.
pub fn call_in<'a>(tool: &'a str, tool_input: &'a serde_json::Value, cwd: &'a str) -> Call<'a> {
    Call {
        event: "PreToolUse",
        tool_name: tool,
        tool_input,
        places: engine::Places {
            cwd: Some(cwd),
            home: Some("/home/user"),
            project_root: Some(cwd),
        },
    }
}

/// A `PreToolUse` call of `tool` with `tool_input`, made nowhere in particular.
pub fn pre_tool_use<'a>(tool: &'a str, tool_input: &'a serde_json::Value) -> Call<'a> {
    Call {
        event: "PreToolUse",
        tool_name: tool,
        tool_input,
        places: Default::default(),
    }
}

/// Load and compile `agent` from a corpus profile.
pub fn compile_corpus_profile(file: &str, agent: &str) -> compiler::Compiled {
    let path = repo_root().join("corpus/profiles").join(file);
    let profile = compiler::load_profile_file(&path, agent).unwrap_or_else(|e| panic!("{e}"));
    let compiled = compiler::compile_profile(&profile).unwrap_or_else(|e| panic!("{e}"));
    assert_schema_valid(&compiled.policy);
    compiled
}

fn policy_schema() -> &'static jsonschema::Validator {
    static SCHEMA: OnceLock<jsonschema::Validator> = OnceLock::new();
    SCHEMA.get_or_init(|| {
        let text =
            std::fs::read_to_string(repo_root().join("schemas/hook-policy.v1.json")).unwrap();
        jsonschema::validator_for(&serde_json::from_str(&text).unwrap()).unwrap()
    })
}

/// Every compiled policy the tests see goes through here.
pub fn assert_schema_valid(policy: &HookPolicy) {
    let instance = serde_json::to_value(policy).unwrap();
    let errors: Vec<String> = policy_schema()
        .iter_errors(&instance)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "compiled policy violates schemas/hook-policy.v1.json: {errors:#?}"
    );
}

/// Decide a tool call with the reference evaluator.
pub fn decide(policy: &HookPolicy, event: &str, tool: &str, input: serde_json::Value) -> Outcome {
    let evaluator = ReferenceEvaluator::new(policy).unwrap();
    evaluator.decide(Call {
        event,
        tool_name: tool,
        tool_input: &input,
        places: Default::default(),
    })
}

/// Decide a Bash command under PreToolUse.
pub fn decide_bash(policy: &HookPolicy, command: &str) -> Outcome {
    decide(
        policy,
        "PreToolUse",
        "Bash",
        serde_json::json!({ "command": command }),
    )
}

/// Entries as a profile's `tool_policy` list holds them, each at `t.yaml:1:1`.
pub fn located(entries: &[&str]) -> Vec<compiler::profile::Located<String>> {
    entries
        .iter()
        .map(|e| compiler::profile::Located {
            value: e.to_string(),
            location: compiler::diagnostic::Location {
                file: "t.yaml".into(),
                line: 1,
                column: 1,
            },
        })
        .collect()
}

/// A policy of `tool_policy` entries, as `compile_tool_policy` lowers them, with its automaton
/// engine built from the sidecar (the policy checked against the schema on the way).
pub fn compile_entries(
    tool_policy: &compiler::profile::ToolPolicy,
) -> Result<(HookPolicy, engine::CompiledPolicy), compiler::diagnostic::Errors> {
    let (default_decision, rules) =
        compiler::compile::compile_tool_policy(tool_policy, &mut Vec::new())?;
    let policy = HookPolicy {
        version: 1,
        default_decision,
        rules,
    };
    assert_schema_valid(&policy);
    let json = policy.to_json();
    let sidecar = compiler::lower::build_sidecar(&policy, json.as_bytes()).unwrap();
    let compiled = engine::CompiledPolicy::from_bytes(&sidecar, json.as_bytes()).unwrap();
    Ok((policy, compiled))
}

/// The policy of a profile enabling `packs` (`"[core]"`) and nothing else; `None` for every
/// built-in pack.
#[allow(dead_code)]
pub fn packs_policy(packs: Option<&str>) -> HookPolicy {
    let list = packs.map_or_else(compiler::packs::every_pack_list, String::from);
    let profile = compiler::load_profile_str(
        &format!("agents:\n  p:\n    packs: {list}\n"),
        "packs.yaml".into(),
        "p",
    )
    .unwrap();
    compiler::compile_profile(&profile).unwrap().policy
}
