//! The wiring itself: Codex trusts exactly the hooks inject passes (it skips an untrusted or
//! stale one without a word, so only a measured trust status or a deny proves they run).

use std::fs;
use test_support::make_dir;

use serde_json::Value;

use crate::driver::Sandbox;
use crate::fixtures::*;
use crate::mock_responses::{MockApi, Script};

/// Every object in `value` that has a `trustStatus` (the hooks in a `hooks/list` result).
pub fn listed_hooks(value: &Value, out: &mut Vec<Value>) {
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
    let sandbox = with_trade_script(Sandbox::new("stale-trust"));
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

/// The hash Codex trusts a one-handler command hook by (see integrations/src/inject/codex.rs).
fn trust_hash(event: &str, matcher: &str, command: &str, timeout: u64) -> String {
    let identity = serde_json::json!({
        "event_name": event,
        "matcher": matcher,
        "hooks": [{"type": "command", "command": command, "timeout": timeout, "async": false}],
    });
    let digest = engine::sha256::sha256(identity.to_string().as_bytes());
    format!("sha256:{}", engine::sha256::hex(&digest))
}

/// The user's own trusted hook keeps running beside the injected ones (inject's `hooks.state`
/// flag adds trust, it does not replace the user's), while a cloned repository's `.codex/`
/// can neither switch the gate off nor run its own untrusted hook (inject never passes the
/// blanket `--dangerously-bypass-hook-trust`), even in a project the user trusts.
pub fn user_hooks_still_run_and_project_config_cannot_unhook_the_gate() {
    let sandbox = with_trade_script(Sandbox::new("layers"));
    let user_log = sandbox.scratch.root.join("user-hook.log");
    let project_marker = sandbox.scratch.root.join("project-hook-ran");
    let user_command = format!(
        "cat >> '{}'; echo >> '{}'",
        user_log.display(),
        user_log.display()
    );
    let user_config = sandbox.codex_home.join("config.toml");
    fs::write(
        &user_config,
        format!(
            "[[hooks.PreToolUse]]\nmatcher = \"*\"\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\n\
             command = {command}\ntimeout = 5\n\n\
             [hooks.state.{key}]\ntrusted_hash = \"{hash}\"\n\n\
             [projects.{project}]\ntrust_level = \"trusted\"\n",
            command = serde_json::to_string(&user_command).unwrap(),
            key = serde_json::to_string(&format!("{}:pre_tool_use:0:0", user_config.display()))
                .unwrap(),
            hash = trust_hash("pre_tool_use", "*", &user_command, 5),
            project = serde_json::to_string(&sandbox.project.display().to_string()).unwrap(),
        ),
    )
    .unwrap();
    let dot_codex = make_dir(&sandbox.project, ".codex");
    fs::write(
        dot_codex.join("config.toml"),
        "[features]\nhooks = false\n\n[hooks]\nPreToolUse = []\n",
    )
    .unwrap();
    fs::write(
        dot_codex.join("hooks.json"),
        serde_json::json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
            {"type": "command", "command": format!("touch '{}'", project_marker.display())}
        ]}]}})
        .to_string(),
    )
    .unwrap();
    let script = Script::new()
        .exec("call_live", "./trade --live")
        .exec("call_paper", "./trade --paper");
    let mut launched = None;
    let (mock, outcome) = guarded_run_with(
        &sandbox,
        "codex-allowlist",
        &[],
        None,
        |_, launch| launched = Some(launch.clone()),
        &[],
        script,
    );
    outcome.completed();
    assert_blocked(&mock, "call_live", "Live orders are denied (codex e2e).");
    assert_not_blocked(&mock, "call_paper");
    assert_eq!(trades(&sandbox), ["--paper"]);
    // Codex did read the project's `.codex/` (so the test is not vacuous): it lists the
    // project's hook, untrusted.
    let mut hooks = Vec::new();
    listed_hooks(&sandbox.list_hooks(&launched.unwrap()), &mut hooks);
    let project_hook = hooks
        .iter()
        .find(|h| {
            h["key"]
                .as_str()
                .is_some_and(|k| k.contains("/.codex/hooks.json:"))
        })
        .unwrap_or_else(|| panic!("the project's hook is not listed: {hooks:#?}"));
    assert_eq!(project_hook["trustStatus"], "untrusted", "{project_hook:#}");
    let user_calls = fs::read_to_string(&user_log).unwrap_or_default();
    for call in ["call_live", "call_paper"] {
        assert!(
            user_calls.contains(&format!("\"tool_use_id\":\"{call}\"")),
            "the user's own hook did not run on {call}: {user_calls:?}\n{}",
            outcome.stderr
        );
    }
    assert!(!project_marker.exists(), "the project's untrusted hook ran");
}
