//! `animus-hook diff A.json B.json`: which rules two compiled policies add, remove or change,
//! and for each change a witness call the two decide differently ([`compiler::diff`]).
//! Exit status as diff(1): 0 when the policies are the same, 1 when they differ, 2 on trouble.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use animus_hook::policy_source::{PolicyError, read_policy_json};

use crate::stdout::{out, outln};
use compiler::diff::{PolicyDiff, WitnessCall, diff};
use engine::{Decision, HookPolicy, HookPolicyRule};
use serde_json::{Value, json};

#[derive(clap::Args)]
pub struct DiffArgs {
    /// The policy before (animus-policy.json)
    #[arg(value_name = "BEFORE")]
    pub before: PathBuf,
    /// The policy after
    #[arg(value_name = "AFTER")]
    pub after: PathBuf,
    /// JSON lines of calls to try as witnesses too (hook payloads, or `{"command": …}`)
    #[arg(long, value_name = "FILE")]
    pub calls: Option<PathBuf>,
    /// Leave out the built-in self-protection rules (they name the policy's directory)
    #[arg(long)]
    pub without_self_protection: bool,
    /// One JSON document
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: DiffArgs) -> ExitCode {
    let result = (|| -> Result<PolicyDiff, DiffError> {
        let mut before = load(&args.before)?;
        let mut after = load(&args.after)?;
        if args.without_self_protection {
            for policy in [&mut before, &mut after] {
                policy.rules.retain(|r| {
                    !r.id
                        .starts_with(compiler::self_protection::SELF_PROTECTION_ID_PREFIX)
                });
            }
        }
        let extra = match &args.calls {
            Some(path) => load_calls(path)?,
            None => Vec::new(),
        };
        diff(&before, &after, &extra).map_err(DiffError::Witness)
    })();
    let found = match result {
        Ok(found) => found,
        Err(message) => {
            eprintln!("animus-hook diff: {message}");
            return ExitCode::from(2);
        }
    };
    if args.json {
        outln!("{}", as_json(&found));
    } else {
        out!("{}", as_text(&found));
    }
    if found.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Why two policies could not be compared.
#[derive(Debug, thiserror::Error)]
enum DiffError {
    #[error(transparent)]
    Policy(#[from] PolicyError),
    #[error("cannot read calls `{}`: {source}", path.display())]
    ReadCalls {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}:{line}: not a hook payload or a {{\"command\": …}} record", path.display())]
    NotACall { path: PathBuf, line: usize },
    /// A policy's regex does not compile for the witness search.
    #[error(transparent)]
    Witness(#[from] compiler::diff::DiffError),
}

fn load(path: &Path) -> Result<HookPolicy, PolicyError> {
    read_policy_json(path).map(|(policy, _)| policy)
}

fn load_calls(path: &Path) -> Result<Vec<WitnessCall>, DiffError> {
    let text = std::fs::read_to_string(path).map_err(|source| DiffError::ReadCalls {
        path: path.to_path_buf(),
        source,
    })?;
    let mut calls = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let bad = || DiffError::NotACall {
            path: path.to_path_buf(),
            line: i + 1,
        };
        let value: Value = serde_json::from_str(line).map_err(|_| bad())?;
        if let Some(tool) = value.get("tool_name").and_then(Value::as_str) {
            calls.push((
                tool.to_string(),
                value.get("tool_input").cloned().unwrap_or(json!({})),
            ));
        } else if let Some(command) = value.get("command").and_then(Value::as_str) {
            calls.push(("Bash".into(), json!({ "command": command })));
        } else {
            return Err(bad());
        }
    }
    Ok(calls)
}

fn rule_line(sign: char, rule: &HookPolicyRule) -> String {
    let tools = if rule.tools.is_empty() {
        "every tool".to_string()
    } else {
        rule.tools.join(", ")
    };
    let matchers: Vec<String> = rule
        .input_matchers
        .iter()
        .map(|m| format!("{} [{}] {:?}", m.field, m.on.wire_key(), m.pattern))
        .collect();
    let on = if matchers.is_empty() {
        String::new()
    } else {
        format!(" where {}", matchers.join(" and "))
    };
    format!("{sign} {} ({}): {tools}{on}\n", rule.id, rule.decision)
}

fn outcome(decision: Decision, rule: &Option<String>) -> String {
    match rule {
        Some(id) => format!("{decision} (rule `{id}`)"),
        None => format!("{decision} (the policy default)"),
    }
}

fn call_line((tool, input): &WitnessCall) -> String {
    match input.get("command").and_then(Value::as_str) {
        Some(command) if tool == "Bash" => format!("Bash: {command}"),
        _ => format!("{tool}: {input}"),
    }
}

fn as_text(found: &PolicyDiff) -> String {
    let mut out = String::new();
    if let Some((before, after)) = found.default_decision {
        out.push_str(&format!("default decision: {before} -> {after}\n"));
    }
    for rule in &found.added {
        out.push_str(&rule_line('+', rule));
    }
    for rule in &found.removed {
        out.push_str(&rule_line('-', rule));
    }
    for (old, new, parts) in &found.changed {
        let mut what = parts.join(", ");
        if old.decision != new.decision {
            what = what.replacen(
                "decision",
                &format!("decision {} -> {}", old.decision, new.decision),
                1,
            );
        }
        out.push_str(&format!("~ {}: {what}\n", new.id));
    }
    let searched: Vec<Option<&str>> = found
        .added
        .iter()
        .chain(&found.removed)
        .map(|r| Some(r.id.as_str()))
        .chain(
            found
                .changed
                .iter()
                .filter(|(_, _, parts)| parts != &["reason"])
                .map(|(_, new, _)| Some(new.id.as_str())),
        )
        .chain(found.default_decision.map(|_| None))
        .collect();
    if !searched.is_empty() {
        out.push_str("witnesses (a call the two policies decide differently):\n");
        for rule in searched {
            let label = rule.unwrap_or("the default decision");
            match found.witnesses.iter().find(|w| w.rule.as_deref() == rule) {
                Some(w) => out.push_str(&format!(
                    "  {label}: {}\n      before: {}\n      after:  {}\n",
                    call_line(&w.call),
                    outcome(w.before.0, &w.before.1),
                    outcome(w.after.0, &w.after.1)
                )),
                None => out.push_str(&format!(
                    "  {label}: none found (the search is not exhaustive: add real calls with --calls)\n"
                )),
            }
        }
    }
    out.push_str(&format!(
        "{} added, {} removed, {} changed, {} witnesses{}\n",
        found.added.len(),
        found.removed.len(),
        found.changed.len(),
        found.witnesses.len(),
        if found.is_empty() {
            ": the policies are the same"
        } else {
            ""
        }
    ));
    out
}

fn as_json(found: &PolicyDiff) -> Value {
    let ids = |rules: &[HookPolicyRule]| -> Vec<Value> {
        rules
            .iter()
            .map(|r| json!({"id": r.id, "decision": r.decision}))
            .collect()
    };
    json!({
        "same": found.is_empty(),
        "default_decision": found.default_decision.map(|(b, a)| json!({"before": b, "after": a})),
        "added": ids(&found.added),
        "removed": ids(&found.removed),
        "changed": found.changed.iter().map(|(old, new, parts)| json!({
            "id": new.id, "parts": parts, "before": old.decision, "after": new.decision,
        })).collect::<Vec<_>>(),
        "witnesses": found.witnesses.iter().map(|w| json!({
            "rule": w.rule,
            "tool_name": w.call.0,
            "tool_input": w.call.1,
            "before": {"decision": w.before.0, "deciding_rule": w.before.1},
            "after": {"decision": w.after.0, "deciding_rule": w.after.1},
        })).collect::<Vec<_>>(),
    })
}
