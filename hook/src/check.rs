//! `animus-hook check`: what would happen to one payload.

use std::io::Read;
use std::process::ExitCode;

use engine::{Call, Outcome};

use crate::cli::CheckArgs;
use animus_hook::payload::parse_gate_payload;
use animus_hook::policy_source::LoadedPolicy;

pub fn run(args: CheckArgs) -> ExitCode {
    match check(&args) {
        Ok((outcome, evaluator)) => {
            if args.json {
                let json = serde_json::json!({
                    "decision": outcome.decision,
                    "reason": outcome.reason,
                    "deciding_rule": outcome.deciding_rule,
                    "matched": outcome.matched,
                    "harness_answer": harness_answer(outcome.decision),
                    "evaluator": evaluator,
                });
                println!("{json}");
            } else {
                print!("{}", render(&outcome, evaluator));
            }
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("animus-hook check: {message}");
            ExitCode::FAILURE
        }
    }
}

fn check(args: &CheckArgs) -> Result<(Outcome, &'static str), String> {
    let loaded = LoadedPolicy::load(&args.policy)?;
    let mut stdin = Vec::new();
    std::io::stdin()
        .read_to_end(&mut stdin)
        .map_err(|e| format!("cannot read stdin: {e}"))?;
    let payload = parse_gate_payload(&stdin)?;
    let event = args
        .event
        .as_deref()
        .or(payload.hook_event_name.as_deref())
        .unwrap_or("PreToolUse");
    let home = animus_hook::places::home_dir();
    let cwd = payload.cwd.as_deref().filter(|c| c.starts_with('/'));
    let call = Call {
        event,
        tool_name: &payload.tool_name,
        tool_input: &payload.tool_input,
        places: engine::Places {
            cwd,
            home: home.as_deref(),
            project_root: args
                .project_root
                .as_deref()
                .and_then(|p| p.to_str())
                .or(cwd),
        },
    };
    Ok((loaded.decide(call)?, loaded.evaluator()))
}

/// The human-readable report.
pub fn render(outcome: &Outcome, evaluator: &str) -> String {
    let mut out = format!(
        "decision: {}\nreason: {}\n",
        outcome.decision, outcome.reason
    );
    out.push_str(&format!(
        "harness answer: {}\n",
        harness_answer(outcome.decision)
    ));
    match &outcome.deciding_rule {
        Some(id) => out.push_str(&format!("deciding rule: {id}\n")),
        None => out.push_str("deciding rule: (none: the policy default)\n"),
    }
    if outcome.matched.is_empty() {
        out.push_str("matched rules: (none)\n");
    } else {
        out.push_str("matched rules:\n");
        for id in &outcome.matched {
            out.push_str(&format!("  - {id}\n"));
        }
    }
    out.push_str(&format!("evaluator: {evaluator}\n"));
    out
}

/// What `emit` answers Claude for `decision`: an allow is never printed (the covered call is
/// left to Claude's own permission rules, which carry the same entries).
pub fn harness_answer(decision: engine::Decision) -> &'static str {
    match decision {
        engine::Decision::Deny => "deny",
        engine::Decision::Ask => "ask",
        engine::Decision::Allow => {
            "none: covered by the allow entries; the grant is left to the harness's own permission rules"
        }
        engine::Decision::Defer => "none: the harness's own permission flow decides",
    }
}
