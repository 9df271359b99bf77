//! `animus-hook replay`: decide recorded calls again under a candidate policy, and show every
//! call whose decision changes — so a policy change can be tried on real sessions before it
//! is rolled out, and a CI can gate it (exit 1 when any decision changes).
//!
//! Each call ([`crate::replay_input`]) is decided exactly as `check` decides a payload: the
//! same harness detection, the same places (the payload's `cwd`, `$HOME`, the recorded project
//! root or else the `cwd`), the same policy loading.
//!
//! ## `before`, `after` and `changed`
//!
//! - `after`: the candidate's decision (`deny`, `ask`, `allow`, `defer`). A call the candidate
//!   cannot decide (no `tool_name` …) is `deny`, as the hook answers it, with its `error`.
//! - `before`: the decision recorded in the session log; for a transcript or payload call,
//!   the `--baseline` policy's decision, or `null` without one. A recorded deny that was the
//!   fail-closed answer to an error (no policy, a bad payload …) carries `recorded_error`, and
//!   its text line says so: that change is the error's absence, not the candidate's doing.
//! - `changed`: `true` exactly when `before` is known and differs from `after`. A call with no
//!   `before` is never `changed` (there is nothing to compare): the summary counts what the
//!   candidate would deny and ask among them, and `--baseline` turns them into comparisons.
//! - A call that cannot be replayed (its tool input was cut, or no payload was recorded) has
//!   `"replayable": false` and its `why`; it is never decided on a guess, and never `changed`.
//!
//! Exit 0 when nothing changed, 1 when any decision changed, 2 on an error (a policy that
//! cannot be loaded, an input that cannot be read).

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use engine::Outcome;
use engine::harness::Harness;
use gate::record::reader::{shorten, subject};
use serde_json::{Value, json};

use crate::replay_input::{Call, Decided, InputError, NotReplayable, read_input};
use crate::stdout::out;
use animus_hook::harness_call;
use animus_hook::policy_source::{LoadedPolicy, PolicyError};

/// Where the candidate policy comes from.
pub enum PolicySource {
    /// A compiled policy (`--policy`).
    Compiled(PathBuf),
    /// A profile (`--config`, `--agent`), compiled into a private temporary directory (its
    /// self-protection rules then guard that directory, not the recorded session's).
    Profile { config: PathBuf, agent: String },
}

pub struct ReplayArgs {
    pub policy: PolicySource,
    pub baseline: Option<PathBuf>,
    pub provider: Option<Harness>,
    pub inputs: Vec<PathBuf>,
    pub json: bool,
    pub stats: bool,
}

pub fn run(args: ReplayArgs) -> ExitCode {
    match replay(&args) {
        Ok(false) => ExitCode::SUCCESS,
        Ok(true) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("animus-hook replay: {e}");
            ExitCode::from(2)
        }
    }
}

/// A policy ready to decide, and the path its self-protection rules are anchored at.
struct Policy {
    loaded: LoadedPolicy,
    path: PathBuf,
    /// The temporary directory a profile was compiled into, removed when done.
    _temp: Option<TempDir>,
}

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Why calls could not be replayed.
#[derive(Debug, thiserror::Error)]
enum ReplayError {
    #[error(transparent)]
    Policy(#[from] PolicyError),
    /// The candidate profile does not compile.
    #[error("{}", crate::diagnostics::render_all(&.0.0))]
    Compile(compiler::Errors),
    #[error(transparent)]
    Input(#[from] InputError),
    #[error("`{}` holds no *.jsonl file", .0.display())]
    NoLogs(PathBuf),
    #[error("name at least one input: a session log, a transcript, or payloads")]
    NoInputs,
}

fn load(source: &PolicySource) -> Result<Policy, ReplayError> {
    match source {
        PolicySource::Compiled(path) => Ok(Policy {
            loaded: LoadedPolicy::load(path)?,
            path: path.clone(),
            _temp: None,
        }),
        PolicySource::Profile { config, agent } => {
            let dir = std::env::temp_dir().join(format!(
                "animus-replay-{}-{}",
                std::process::id(),
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap_or_default()
                    .as_nanos()
            ));
            let temp = TempDir(dir.clone());
            let (path, compiled) =
                compiler::compile_to_dir(config, agent, &dir).map_err(ReplayError::Compile)?;
            for warning in &compiled.warnings {
                eprintln!("{}", crate::diagnostics::render(warning));
            }
            Ok(Policy {
                loaded: LoadedPolicy::load(&path)?,
                path,
                _temp: Some(temp),
            })
        }
    }
}

/// Decide `payload` as `check` does.
fn decide(policy: &Policy, call: &Call, payload: &Value, provider: Option<Harness>) -> Outcome {
    let harness = call
        .harness
        .or(provider)
        .unwrap_or_else(|| harness_call::detect(None, Some(&call.event), Some(payload)));
    let home = animus_hook::places::home_dir();
    let cwd = payload
        .get("cwd")
        .and_then(Value::as_str)
        .filter(|c| c.starts_with('/'));
    let places = engine::Places {
        cwd,
        home: home.as_deref(),
        project_root: call.project_root.as_deref().or(cwd),
    };
    harness_call::decide(harness, &call.event, payload, places, &policy.path, |c| {
        policy.loaded.decide(c)
    })
    .unwrap_or_else(|e| Outcome {
        decision: engine::Decision::Deny,
        reason: format!("animus-hook could not evaluate this call, so it is denied: {e}"),
        deciding_rule: None,
        matched: Vec::new(),
    })
}

fn decided(outcome: &Outcome) -> Decided {
    Decided {
        decision: outcome.decision.to_string(),
        rule: outcome.deciding_rule.clone(),
    }
}

/// Replay every input; whether any decision changed.
fn replay(args: &ReplayArgs) -> Result<bool, ReplayError> {
    if args.inputs.is_empty() {
        return Err(ReplayError::NoInputs);
    }
    let candidate = load(&args.policy)?;
    let baseline = args
        .baseline
        .as_ref()
        .map(|p| load(&PolicySource::Compiled(p.clone())))
        .transpose()?;
    let started = Instant::now();
    let mut calls = Vec::new();
    let mut skipped = 0;
    let mut files = Vec::new();
    for input in &args.inputs {
        if input.is_dir() {
            let found = crate::verify_cmd::jsonl_under(input)?;
            if found.is_empty() {
                return Err(ReplayError::NoLogs(input.clone()));
            }
            files.extend(found);
        } else {
            files.push(input.clone());
        }
    }
    for file in &files {
        let read = read_input(file)?;
        calls.extend(read.calls);
        skipped += read.skipped;
    }
    let mut summary = Summary {
        skipped,
        ..Summary::default()
    };
    let mut latencies: Vec<Duration> = Vec::with_capacity(calls.len());
    let mut out = String::new();
    for call in &calls {
        let payload = match &call.payload {
            Ok(payload) => payload,
            Err(why) => {
                summary.not_replayable += 1;
                out.push_str(&not_replayable(args.json, call, why));
                continue;
            }
        };
        let at = Instant::now();
        let after = decide(&candidate, call, payload, args.provider);
        latencies.push(at.elapsed());
        let before = call.recorded.clone().or_else(|| {
            baseline
                .as_ref()
                .map(|b| decided(&decide(b, call, payload, args.provider)))
        });
        let after_decided = decided(&after);
        let changed = before
            .as_ref()
            .is_some_and(|b| b.decision != after_decided.decision);
        summary.replayed += 1;
        if changed {
            summary.changed += 1;
        }
        if before.is_none() {
            summary.no_before += 1;
            match after_decided.decision.as_str() {
                "deny" => summary.no_before_deny += 1,
                "ask" => summary.no_before_ask += 1,
                _ => {}
            }
        }
        let subject = payload.get("tool_input").and_then(subject);
        if args.json {
            let line = json!({
                "source": call.source,
                "tool_use_id": call.tool_use_id,
                "tool": call.tool,
                "subject": subject,
                "replayable": true,
                "before": before.as_ref().map(|b| &b.decision),
                "after": after_decided.decision,
                "changed": changed,
                "rule_before": before.as_ref().and_then(|b| b.rule.as_ref()),
                "rule_after": after_decided.rule,
                "reason_after": after.reason,
                "recorded_error": call.recorded_error,
            });
            out.push_str(&format!("{line}\n"));
        } else if changed {
            let before_decision = before.as_ref().map_or("-", |b| b.decision.as_str());
            // The rule deciding now; when the default decides now, the one that decided before.
            let rule = match (&after_decided.rule, before_rule(before.as_ref())) {
                (Some(rule), _) => rule.clone(),
                (None, Some(was)) => format!("(default; before: {was})"),
                (None, None) => "(default)".into(),
            };
            // A recorded deny that was the fail-closed answer to an error says so: the change
            // is the error's absence, not the policy's.
            let failed = call
                .recorded_error
                .as_deref()
                .map(|e| format!("  [recorded deny was fail-closed: {}]", shorten(e, 100)))
                .unwrap_or_default();
            out.push_str(&format!(
                "changed  {}  {}  {}  {before_decision} -> {}  rule: {rule}  ({}){failed}\n",
                call.tool_use_id.as_deref().unwrap_or(&call.source),
                call.tool.as_deref().unwrap_or("?"),
                shorten(subject.as_deref().unwrap_or("-"), 80),
                after_decided.decision,
                call.source,
            ));
        }
        if out.len() > 1 << 16 {
            out!("{out}");
            out.clear();
        }
    }
    out!("{out}");
    let elapsed = started.elapsed();
    let text = summary.render(files.len());
    let stats = args.stats.then(|| stats(&latencies, elapsed));
    // With --json, stdout is one object per call: the summary goes to stderr.
    if args.json {
        eprint!("{text}{}", stats.unwrap_or_default());
    } else {
        out!("{text}{}", stats.unwrap_or_default());
    }
    Ok(summary.changed > 0)
}

/// The rule that decided `before`, if one did.
fn before_rule(before: Option<&Decided>) -> Option<&str> {
    before.and_then(|b| b.rule.as_deref())
}

fn not_replayable(json: bool, call: &Call, why: &NotReplayable) -> String {
    if json {
        let line = json!({
            "source": call.source,
            "tool_use_id": call.tool_use_id,
            "tool": call.tool,
            "replayable": false,
            "why": why.to_string(),
            "before": call.recorded.as_ref().map(|b| &b.decision),
            "after": null,
            "changed": false,
        });
        format!("{line}\n")
    } else {
        format!(
            "not replayable  {}  {}  {why}  ({})\n",
            call.tool_use_id.as_deref().unwrap_or("-"),
            call.tool.as_deref().unwrap_or("?"),
            call.source
        )
    }
}

#[derive(Default)]
struct Summary {
    replayed: usize,
    changed: usize,
    no_before: usize,
    no_before_deny: usize,
    no_before_ask: usize,
    not_replayable: usize,
    skipped: usize,
}

impl Summary {
    fn render(&self, inputs: usize) -> String {
        let mut out = format!(
            "replayed {} calls from {inputs} input{}: {} changed",
            self.replayed,
            if inputs == 1 { "" } else { "s" },
            self.changed
        );
        if self.no_before > 0 {
            out.push_str(&format!(
                "; {} had no decision to compare (no record; give --baseline <policy>): the \
                 candidate denies {} and asks {} of them",
                self.no_before, self.no_before_deny, self.no_before_ask
            ));
        }
        if self.not_replayable > 0 {
            out.push_str(&format!("; {} not replayable", self.not_replayable));
        }
        if self.skipped > 0 {
            out.push_str(&format!("; {} lines were not JSON", self.skipped));
        }
        out.push('\n');
        out
    }
}

/// `--stats`: the candidate's decide latency over the replayed calls, and the throughput.
fn stats(latencies: &[Duration], elapsed: Duration) -> String {
    if latencies.is_empty() {
        return "decide latency: no call was replayed\n".into();
    }
    let mut sorted = latencies.to_vec();
    sorted.sort();
    let at =
        |q: f64| sorted[((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len()) - 1];
    let us = |d: Duration| d.as_nanos() as f64 / 1000.0;
    format!(
        "decide latency over {} calls: p50 {:.1} µs, p90 {:.1} µs, p99 {:.1} µs, max {:.1} µs; \
         replay throughput {:.0} calls/s ({:.1} ms in all, reading included)\n",
        sorted.len(),
        us(at(0.50)),
        us(at(0.90)),
        us(at(0.99)),
        us(sorted[sorted.len() - 1]),
        sorted.len() as f64 / elapsed.as_secs_f64().max(1e-9),
        elapsed.as_secs_f64() * 1000.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_pick_the_nearest_rank() {
        let latencies: Vec<Duration> = (1..=100).map(Duration::from_micros).collect();
        let text = stats(&latencies, Duration::from_millis(10));
        assert!(
            text.contains("p50 50.0 µs, p90 90.0 µs, p99 99.0 µs, max 100.0 µs"),
            "{text}"
        );
        assert!(text.contains("10000 calls/s"), "{text}");
    }
}
