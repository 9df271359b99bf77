//! `animus-hook explain`: why one call is decided as it is. The decision of the evaluator the
//! hook uses (the sidecar's automaton), every rule that matched with the text and byte span
//! each of its matchers matched, the command's parsed segments, optionally the rules that
//! applied but did not match, and the time spent loading and deciding.
//!
//! The per-matcher detail comes from the reference evaluator, which both evaluators are
//! tested to agree with; should they disagree on this call, `explain` says so and exits 1.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use engine::paths::{CWD_TAG, HOME_TAG, PROJECT_TAG, ROOT_TAG};
use engine::policy::{InputMatcher, MatchOn};
use engine::reference::{ExplainedRule, Explanation, ReferenceEvaluator};
use engine::{Call, HookPolicy, Outcome};
use serde_json::{Value, json};

use crate::stdout::{out, outln};
use animus_hook::payload::parse_gate_payload;
use animus_hook::policy_source::{LoadedPolicy, PolicyError, read_policy_json};

use crate::check::DecideError;

/// What the call is: a payload on stdin, or built from the command line.
pub enum CallSource {
    /// A hook payload (Claude's PreToolUse/PermissionRequest shape) on stdin.
    Stdin,
    /// `--command`: a Bash call.
    Command(String),
    /// `--tool` and `--input`.
    Tool { name: String, input: Value },
}

pub struct ExplainArgs {
    pub policy: PathBuf,
    pub event: Option<String>,
    pub project_root: Option<PathBuf>,
    /// The call's working directory for `--command` and `--tool` (default: the current one).
    pub cwd: Option<PathBuf>,
    pub source: CallSource,
    pub near: bool,
    pub json: bool,
}

pub fn run(args: ExplainArgs) -> ExitCode {
    match explain(&args) {
        Ok(report) => {
            if args.json {
                outln!("{}", report.json(args.near));
            } else {
                out!("{}", report.text(args.near));
            }
            if report.disagreement().is_some() {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(message) => {
            eprintln!("animus-hook explain: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Everything `explain` found.
struct Report {
    policy: HookPolicy,
    outcome: Outcome,
    evaluator: &'static str,
    reference: Outcome,
    explanation: Explanation,
    tool_name: String,
    command: Option<String>,
    load: Duration,
    decide: Duration,
}

fn explain(args: &ExplainArgs) -> Result<Report, DecideError> {
    let started = Instant::now();
    let loaded = LoadedPolicy::load(&args.policy)?;
    let load = started.elapsed();
    // The rules themselves, for the per-matcher detail (the sidecar holds only automata).
    let (policy, _) = read_policy_json(&args.policy)?;

    let (event, tool_name, tool_input, cwd) = match &args.source {
        CallSource::Stdin => {
            let mut stdin = Vec::new();
            std::io::stdin()
                .read_to_end(&mut stdin)
                .map_err(DecideError::Stdin)?;
            let payload = parse_gate_payload(&stdin)?;
            (
                payload.hook_event_name,
                payload.tool_name,
                payload.tool_input,
                payload.cwd,
            )
        }
        CallSource::Command(command) => (
            None,
            "Bash".to_string(),
            json!({ "command": command }),
            None,
        ),
        CallSource::Tool { name, input } => (None, name.clone(), input.clone(), None),
    };
    let cwd = match (&args.source, cwd, &args.cwd) {
        (_, _, Some(given)) => Some(given.to_string_lossy().into_owned()),
        (CallSource::Stdin, cwd, None) => cwd,
        (_, _, None) => std::env::current_dir()
            .ok()
            .map(|d| d.to_string_lossy().into_owned()),
    };
    let event = args
        .event
        .clone()
        .or(event)
        .unwrap_or_else(|| "PreToolUse".into());
    let home = animus_hook::places::home_dir();
    let cwd = cwd.filter(|c| c.starts_with('/'));
    let call = Call {
        event: &event,
        tool_name: &tool_name,
        tool_input: &tool_input,
        places: engine::Places {
            cwd: cwd.as_deref(),
            home: home.as_deref(),
            project_root: args
                .project_root
                .as_deref()
                .and_then(|p| p.to_str())
                .or(cwd.as_deref()),
        },
    };
    let started = Instant::now();
    let outcome = loaded.decide(call)?;
    let decide = started.elapsed();
    let reference =
        ReferenceEvaluator::new(&policy).map_err(|e| PolicyError::Evaluator(e.to_string()))?;
    let explanation = reference.explain(call);
    let reference = reference.decide(call);
    let command = tool_input
        .get("command")
        .and_then(Value::as_str)
        .map(String::from);
    Ok(Report {
        policy,
        outcome,
        evaluator: loaded.evaluator(),
        reference,
        explanation,
        tool_name,
        command,
        load,
        decide,
    })
}

impl Report {
    /// The two evaluators' decisions when they differ (a bug in one of them).
    fn disagreement(&self) -> Option<String> {
        (self.outcome.decision != self.reference.decision
            || self.outcome.deciding_rule != self.reference.deciding_rule)
            .then(|| {
                format!(
                    "the {} decided {} by {}, the reference evaluator {} by {}: a bug, please \
                     report it with this call",
                    self.evaluator,
                    self.outcome.decision,
                    self.outcome
                        .deciding_rule
                        .as_deref()
                        .unwrap_or("the default"),
                    self.reference.decision,
                    self.reference
                        .deciding_rule
                        .as_deref()
                        .unwrap_or("the default"),
                )
            })
    }

    fn text(&self, near: bool) -> String {
        let mut out = crate::check::render(
            &self.outcome,
            self.evaluator,
            engine::harness::Harness::Claude,
        );
        if let Some(problem) = self.disagreement() {
            out.push_str(&format!("WARNING: {problem}\n"));
        }
        if !self.explanation.matched.is_empty() {
            out.push_str("where they matched:\n");
            for rule in &self.explanation.matched {
                self.render_rule(&mut out, rule, false);
            }
        }
        if let Some(command) = &self.command {
            let analysis = engine::shell::analyse(command);
            out.push_str(&format!(
                "segments of the {} command (as the rules read it):\n",
                self.tool_name
            ));
            if let Some(why) = &analysis.unparseable {
                out.push_str(&format!(
                    "  (it did not parse: {why}; split at every operator, for deny and ask only)\n"
                ));
            }
            for (i, segment) in analysis.segments.iter().enumerate() {
                let first = segment.generous.first().map_or("", String::as_str);
                out.push_str(&format!("  {}. {}\n", i + 1, first));
                for text in segment.generous.iter().skip(1) {
                    out.push_str(&format!("       also read as: {text}\n"));
                }
                if segment.strict.is_empty() {
                    out.push_str("       no allow rule can cover it\n");
                }
                if segment.deny_only {
                    out.push_str(
                        "       found inside inline code or a script: deny and ask only\n",
                    );
                }
            }
        }
        if near {
            if self.explanation.near.is_empty() {
                out.push_str("near misses: (none: no other rule applies to this event and tool)\n");
            } else {
                out.push_str("near misses (event and tool apply, a matcher did not match):\n");
                for rule in &self.explanation.near {
                    self.render_rule(&mut out, rule, true);
                }
            }
        }
        out.push_str(&format!(
            "time: load {}, decide {} ({})\n",
            micros(self.load),
            micros(self.decide),
            self.evaluator
        ));
        out
    }

    fn render_rule(&self, out: &mut String, explained: &ExplainedRule, near: bool) {
        let rule = &self.policy.rules[explained.index];
        out.push_str(&format!("  - {} ({})\n", rule.id, rule.decision));
        if rule.input_matchers.is_empty() {
            out.push_str("      no input matcher: the tool alone decides\n");
        }
        if near && explained.hits.iter().all(Option::is_some) {
            out.push_str(
                "      (every matcher matched a segment: a `covers` rule grants only when every \
                 segment of the call is covered)\n",
            );
        }
        for (matcher, hit) in rule.input_matchers.iter().zip(&explained.hits) {
            match hit {
                Some(hit) => out.push_str(&format!(
                    "      {} [{}] matched bytes {}..{} of {}: {}\n",
                    matcher.field,
                    matcher.on.wire_key(),
                    hit.start,
                    hit.end,
                    shown(&hit.text, matcher.on),
                    shown(hit.text.get(hit.start..hit.end).unwrap_or(""), matcher.on),
                )),
                None if near => out.push_str(&format!(
                    "      {} [{}] did not match: {}\n",
                    matcher.field,
                    matcher.on.wire_key(),
                    pattern(matcher)
                )),
                // A `covers` rule covers the call as a whole (every segment by some rule).
                None => out.push_str(&format!(
                    "      {} [{}] {}\n",
                    matcher.field,
                    matcher.on.wire_key(),
                    pattern(matcher)
                )),
            }
        }
    }

    fn json(&self, near: bool) -> Value {
        let rules = |list: &[ExplainedRule]| -> Vec<Value> {
            list.iter()
                .map(|explained| {
                    let rule = &self.policy.rules[explained.index];
                    let matchers: Vec<Value> = rule
                        .input_matchers
                        .iter()
                        .zip(&explained.hits)
                        .map(|(m, hit)| {
                            json!({
                                "field": m.field,
                                "on": m.on.wire_key(),
                                "pattern": m.pattern,
                                "matched": hit.as_ref().map(|h| json!({
                                    "text": h.text, "start": h.start, "end": h.end,
                                })),
                            })
                        })
                        .collect();
                    json!({ "id": rule.id, "decision": rule.decision, "matchers": matchers })
                })
                .collect()
        };
        let segments = self.command.as_deref().map(|command| {
            let analysis = engine::shell::analyse(command);
            json!({
                "unparseable": analysis.unparseable,
                "segments": analysis.segments.iter().map(|s| json!({
                    "generous": s.generous,
                    "strict": s.strict,
                    "deny_only": s.deny_only,
                })).collect::<Vec<_>>(),
            })
        });
        let mut out = json!({
            "decision": self.outcome.decision,
            "reason": self.outcome.reason,
            "deciding_rule": self.outcome.deciding_rule,
            "harness_answer": crate::check::harness_answer(
                engine::harness::Harness::Claude,
                self.outcome.decision,
            ),
            "evaluator": self.evaluator,
            "matched": rules(&self.explanation.matched),
            "command": segments,
            "disagreement": self.disagreement(),
            "time_us": { "load": self.load.as_micros() as u64, "decide": self.decide.as_micros() as u64 },
        });
        if near {
            out["near"] = Value::Array(rules(&self.explanation.near));
        }
        out
    }
}

/// A matcher's pattern as written in the policy.
fn pattern(matcher: &InputMatcher) -> String {
    shown(&matcher.pattern, MatchOn::Text)
}

/// `text` of view `on` quoted: a path text's tag named (`<home>/.ssh/id_rsa/`), the mark a
/// strict segment text carries when it is not the whole command said in words, other control
/// characters escaped.
fn shown(text: &str, on: MatchOn) -> String {
    let paths = matches!(
        on,
        MatchOn::Path | MatchOn::ResolvedPath | MatchOn::CommandPath
    );
    let (text, part) = match text.strip_suffix(engine::shell::NOT_WHOLE) {
        Some(rest) if on == MatchOn::Cover => (rest.trim_end(), " (a part of the command)"),
        _ => (text, ""),
    };
    let mut out = String::from("\"");
    for c in text.chars() {
        match c {
            ROOT_TAG if paths => out.push_str("<root>"),
            HOME_TAG if paths => out.push_str("<home>"),
            PROJECT_TAG if paths => out.push_str("<project>"),
            CWD_TAG if paths => out.push_str("<cwd>"),
            '"' => out.push_str("\\\""),
            c if c.is_control() => out.extend(c.escape_default()),
            c => out.push(c),
        }
    }
    out.push('"');
    out.push_str(part);
    out
}

fn micros(d: Duration) -> String {
    format!("{:.1} µs", d.as_secs_f64() * 1e6)
}
