//! The wiring itself: Codex trusts exactly the hooks inject passes (it skips an untrusted or
//! stale one without a word, so only a measured trust status or a deny proves they run).

use serde_json::Value;

use crate::driver::Sandbox;
use crate::fixtures::*;
use crate::mock_responses::{MockApi, Script};

/// Every object in `value` that has a `trustStatus` (the hooks in a `hooks/list` result).
fn listed_hooks(value: &Value, out: &mut Vec<Value>) {
    match value {
        Value::Object(map) => {
            if map.contains_key("trustStatus") {
                out.push(value.clone());
            }
            map.values().for_each(|v| listed_hooks(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| listed_hooks(v, out)),
        _ => {}
    }
}

/// `PreToolUse` as `pre_tool_use` (the event part of Codex's trust key).
fn snake_case(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('_');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

pub fn every_injected_hook_is_trusted_by_codex() {
    let sandbox = Sandbox::new("trust");
    let mock = MockApi::start(Script::new()).unwrap();
    let launch = sandbox.inject(
        &profile(),
        "codex-allowlist",
        &launch_args(&mock, &[]),
        None,
    );
    // The events inject wired, from its `-c hooks.<Event>=…` flags.
    let mut wired: Vec<String> = launch
        .config_flags()
        .iter()
        .filter_map(|flag| {
            flag.strip_prefix("hooks.")?
                .split_once('=')
                .map(|(e, _)| e.to_owned())
        })
        .filter(|event| event != "state")
        .map(|event| format!("/<session-flags>/config.toml:{}:0:0", snake_case(&event)))
        .collect();
    wired.sort();
    for gate in ["pre_tool_use", "permission_request"] {
        let key = format!("/<session-flags>/config.toml:{gate}:0:0");
        assert!(wired.contains(&key), "inject wires {gate}: {wired:?}");
    }
    let mut hooks = Vec::new();
    listed_hooks(&sandbox.list_hooks(&launch), &mut hooks);
    let mut listed: Vec<String> = hooks
        .iter()
        .map(|h| h["key"].as_str().unwrap_or_default().to_owned())
        .collect();
    listed.sort();
    assert_eq!(
        listed, wired,
        "Codex lists exactly the injected hooks: {hooks:#?}"
    );
    for hook in &hooks {
        assert_eq!(
            hook["trustStatus"], "trusted",
            "Codex would skip this hook silently: {hook:#}"
        );
    }
}

/// What makes a wrong hash dangerous, measured: Codex skips a gate whose trust hash does not
/// match its definition, without a warning, and the call runs. (So a change in how Codex hashes
/// hooks would switch every gate off silently; the deny tests of this suite are what catch it,
/// together with `every_injected_hook_is_trusted_by_codex`.)
pub fn wrong_trust_hash_makes_codex_skip_the_gate_silently() {
    let sandbox = Sandbox::new("stale-trust");
    install_trade_script(&sandbox);
    let script = Script::new().exec("call_live", "./trade --live");
    let (mock, outcome) = guarded_run_with(
        &sandbox,
        "codex-allowlist",
        &[],
        None,
        |_, launch| {
            let state = launch
                .args
                .iter_mut()
                .find(|a| a.starts_with("hooks.state="))
                .unwrap();
            let key = "\"/<session-flags>/config.toml:pre_tool_use:0:0\"={trusted_hash=\"sha256:";
            let at = state.find(key).expect("the gate's trust entry") + key.len();
            state.replace_range(at..at + 64, &"0".repeat(64));
        },
        &[],
        script,
    );
    outcome.completed();
    assert_not_blocked(&mock, "call_live");
    assert_eq!(trades(&sandbox), ["--live"], "the untrusted gate still ran");
    assert_eq!(outcome.hook_lines("PreToolUse", "Blocked"), 0);
    assert!(
        !outcome.stderr.contains("hook: PreToolUse"),
        "Codex said something about the skipped gate: {}",
        outcome.stderr
    );
    let log = sandbox.session_log();
    assert!(records(&log, "PreToolUse").is_empty(), "{log:#?}");
    // The other hooks, still trusted, ran.
    assert_eq!(records(&log, "SessionStart").len(), 1, "{log:#?}");
}
