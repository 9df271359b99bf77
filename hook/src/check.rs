//! `animus-hook check`: what would happen to one payload.

use std::io::Read;
use std::process::ExitCode;

use engine::Outcome;
use engine::harness::Harness;

use crate::cli::CheckArgs;
use crate::stdout::{out, outln};
use animus_hook::harness_call;
use animus_hook::payload::parse_gate_payload;
use animus_hook::policy_source::{LoadedPolicy, PolicyError};

/// Why one call could not be decided (`check`, `explain`).
#[derive(Debug, thiserror::Error)]
pub enum DecideError {
    #[error(transparent)]
    Policy(#[from] PolicyError),
    #[error("cannot read stdin: {0}")]
    Stdin(std::io::Error),
    /// The payload is not a gate payload, or names no tool.
    #[error(transparent)]
    NotAGatePayload(#[from] gate::payload::PayloadError),
    /// The payload could not be decided for its harness (gate's error).
    #[error(transparent)]
    Call(#[from] gate::harness_call::CallError<PolicyError>),
}

pub fn run(args: CheckArgs) -> ExitCode {
    match check(&args) {
        Ok((outcome, evaluator, harness)) => {
            if args.json {
                let json = serde_json::json!({
                    "decision": outcome.decision,
                    "reason": outcome.reason,
                    "deciding_rule": outcome.deciding_rule,
                    "matched": outcome.matched,
                    "harness": harness.as_str(),
                    "harness_answer": harness_answer(harness, outcome.decision),
                    "evaluator": evaluator,
                });
                outln!("{json}");
            } else {
                out!("{}", render(&outcome, evaluator, harness));
            }
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("animus-hook check: {message}");
            ExitCode::FAILURE
        }
    }
}

fn check(args: &CheckArgs) -> Result<(Outcome, &'static str, Harness), DecideError> {
    let loaded = LoadedPolicy::load(&args.policy)?;
    let mut stdin = Vec::new();
    std::io::stdin()
        .read_to_end(&mut stdin)
        .map_err(DecideError::Stdin)?;
    let payload = parse_gate_payload(&stdin)?;
    let value: serde_json::Value =
        serde_json::from_slice(&stdin).map_err(gate::payload::PayloadError::NotJson)?;
    let harness = harness_call::detect(
        args.provider,
        args.event.as_deref().or(payload.hook_event_name.as_deref()),
        Some(&value),
    );
    let event = args
        .event
        .as_deref()
        .or(payload.hook_event_name.as_deref())
        .unwrap_or(harness.gate_events()[0].0);
    let home = animus_hook::places::home_dir();
    let cwd = payload.cwd.as_deref().filter(|c| c.starts_with('/'));
    let places = engine::Places {
        cwd,
        home: home.as_deref(),
        project_root: args
            .project_root
            .as_deref()
            .and_then(|p| p.to_str())
            .or(cwd),
    };
    let outcome = harness_call::decide(harness, event, &value, places, &args.policy, |call| {
        loaded.decide(call)
    })?;
    Ok((outcome, loaded.evaluator(), harness))
}

/// The human-readable report.
pub fn render(outcome: &Outcome, evaluator: &str, harness: Harness) -> String {
    let mut out = format!(
        "decision: {}\nreason: {}\n",
        outcome.decision, outcome.reason
    );
    out.push_str(&format!(
        "harness answer: {}\n",
        harness_answer(harness, outcome.decision)
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
pub fn harness_answer(harness: Harness, decision: engine::Decision) -> &'static str {
    match decision {
        engine::Decision::Deny => "deny",
        engine::Decision::Ask if !harness.can_ask() => {
            "deny (the harness cannot ask: the reason says a human must run the call)"
        }
        engine::Decision::Ask => "ask",
        engine::Decision::Allow => {
            "none: covered by the allow entries; the grant is left to the harness's own permission rules"
        }
        engine::Decision::Defer => "none: the harness's own permission flow decides",
    }
}
