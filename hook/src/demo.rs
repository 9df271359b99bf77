//! `animus-hook demo`: the guard's main job on an embedded default.
//!
//! Compiles the bundled example profiles (the spec's trader, an allowlist reviewer) into a
//! temporary directory — `animus-policy.json` and its sidecar, exactly as `compile` writes them —
//! loads them the way `emit` does, and decides over bundled real Claude Code payloads, printing
//! each decision and its reason.

use std::process::ExitCode;

use animus_hook::policy_source::LoadedPolicy;
use engine::Call;
use serde_json::Value;

use crate::stdout::outln;
use animus_hook::payload::parse_gate_payload;

macro_rules! bundled {
    ($($path:literal),* $(,)?) => { &[$(($path, include_str!(concat!("../../corpus/", $path)))),*] };
}

const PROFILES: &[(&str, &str, &str)] = &[
    (
        "trader",
        "profiles/trader.yaml",
        include_str!("../../corpus/profiles/trader.yaml"),
    ),
    (
        "reviewer",
        "profiles/allowlist.yaml",
        include_str!("../../corpus/profiles/allowlist.yaml"),
    ),
];

const PAYLOADS: &[(&str, &str)] = bundled![
    "payloads/PreToolUse.Bash.trade-live.json",
    "payloads/PreToolUse.Bash.submit-order.json",
    "payloads/PreToolUse.Bash.deploy-prod-eq.json",
    "payloads/PreToolUse.Bash.deploy-prod-space.json",
    "payloads/PreToolUse.Bash.deploy-prod-continuation.json",
    "payloads/PreToolUse.Bash.git-status.json",
    "payloads/PreToolUse.Bash.git-diff.json",
    "payloads/PreToolUse.Bash.git-push-force.json",
    "payloads/PreToolUse.Bash.json",
    "payloads/PreToolUse.Read.json",
    "payloads/PreToolUse.Read.dotenv.json",
    "payloads/PreToolUse.Write.json",
    "payloads/PreToolUse.Edit.json",
    "payloads/PreToolUse.Glob.json",
    "payloads/PreToolUse.Grep.json",
    "payloads/PreToolUse.WebFetch.json",
    "payloads/PreToolUse.mcp__e2e__echo.json",
    "payloads/PermissionRequest.Bash.json",
    "payloads/PermissionRequest.Write.json",
];

pub fn run() -> ExitCode {
    let dir = std::env::temp_dir().join(format!("animus-hook-demo-{}", std::process::id()));
    let status = run_in(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    status
}

fn run_in(dir: &std::path::Path) -> ExitCode {
    for (agent, path, text) in PROFILES {
        let compiled =
            match compiler::load_profile_str(text, format!("corpus/{path}").into(), agent)
                .and_then(|profile| compiler::compile_profile(&profile))
            {
                Ok(compiled) => compiled,
                Err(errors) => {
                    eprintln!("animus-hook demo: bundled profile failed to compile:\n{errors}");
                    return ExitCode::FAILURE;
                }
            };
        let policy = &compiled.policy;
        outln!(
            "profile `{agent}` (corpus/{path}): {} rules, default {}",
            policy.rules.len(),
            policy.default_decision
        );
        for warning in &compiled.warnings {
            outln!("  {}", warning.to_string().replace('\n', "\n  "));
        }
        let loaded = match compiler::write_policy_artifacts(&dir.join(agent), &compiled)
            .map_err(|e| e.to_string())
            .and_then(|policy_path| LoadedPolicy::load(&policy_path).map_err(|e| e.to_string()))
        {
            Ok(loaded) => loaded,
            Err(e) => {
                eprintln!("animus-hook demo: {e}");
                return ExitCode::FAILURE;
            }
        };
        outln!(
            "  (decided by the {} evaluator, policy {})",
            loaded.evaluator(),
            loaded.digest()
        );
        for (name, text) in PAYLOADS {
            let payload = match parse_gate_payload(text.as_bytes()) {
                Ok(p) => p,
                Err(e) => {
                    eprintln!("animus-hook demo: bundled payload {name}: {e}");
                    return ExitCode::FAILURE;
                }
            };
            let event = payload.hook_event_name.as_deref().unwrap_or("PreToolUse");
            // Path rules are anchored as `emit` anchors them: the payload's `cwd`, the home the
            // bundled payloads were captured in, the project at the `cwd`.
            let raw: serde_json::Value = serde_json::from_str(text).unwrap_or_default();
            let cwd = raw.get("cwd").and_then(serde_json::Value::as_str);
            let call = Call {
                event,
                tool_name: &payload.tool_name,
                tool_input: &payload.tool_input,
                places: animus_hook::places::of_payload(&raw, Some("/home/user"), cwd),
            };
            let outcome = match loaded.decide(call) {
                Ok(outcome) => outcome,
                Err(e) => {
                    eprintln!("animus-hook demo: {e}");
                    return ExitCode::FAILURE;
                }
            };
            outln!(
                "  {event:<17} {:<15} {:<34} -> {:<5}  {}",
                payload.tool_name,
                summarize(&payload.tool_input),
                outcome.decision,
                outcome.reason
            );
        }
        outln!();
    }
    ExitCode::SUCCESS
}

/// The argument a person recognises a call by, on one short line.
fn summarize(input: &Value) -> String {
    let text = ["command", "file_path", "url", "pattern"]
        .iter()
        .find_map(|k| input.get(k).and_then(Value::as_str).map(str::to_string))
        .unwrap_or_else(|| input.to_string());
    let one_line = text.replace('\n', "⏎");
    if one_line.chars().count() > 32 {
        format!("{}…", one_line.chars().take(31).collect::<String>())
    } else {
        one_line
    }
}
