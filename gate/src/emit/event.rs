//! The record one `emit` run appends to the session log.

use std::path::PathBuf;
use std::time::{Instant, SystemTime};

use engine::Decision;
use engine::harness::Harness;
use serde_json::Value;

use super::{EmitArgs, Evaluation, PayloadFacts, Role, fail_closed_reason};
use crate::record;

/// One line of the session log, without its chain members (`v`, `seq`, `prev`: the writer puts
/// them first, [`record::chain`]). Keys in alphabetical order (the order the log has always
/// had). `schemas/session-record.v1.json` describes the line.
#[derive(serde::Serialize)]
struct EventRecord<'a> {
    decide_us: Option<u128>,
    deciding_rule: Option<&'a str>,
    decision: Option<Decision>,
    elapsed_us: u128,
    error: Option<&'a str>,
    evaluator: Option<&'static str>,
    event: Option<&'a str>,
    gate: bool,
    /// The harness answered (`claude`, `codex`, `gemini`, `opencode`).
    harness: &'static str,
    /// A gate answered nothing: the harness's own permission rules decide (allow: the call
    /// is covered by the policy's allow entries, which the harness carries too; defer).
    left_to_harness: bool,
    matched_rules: &'a [String],
    payload: &'a Value,
    /// The length of the exact stdin bytes.
    payload_bytes: Option<usize>,
    /// Their SHA-256, hex.
    payload_sha256: Option<&'a str>,
    payload_truncated: bool,
    pid: u32,
    policy: Option<String>,
    policy_digest: Option<&'a str>,
    /// The `--project-root` the call was decided in (replay decides it there again).
    project_root: Option<&'a str>,
    reason: Option<std::borrow::Cow<'a, str>>,
    /// A `SessionEnd`: the session is sealed (`verify` fails on records after it, but for a
    /// `SessionStart`, which re-opens a resumed session).
    seal: bool,
    session: &'a str,
    /// The payload's `tool_input` was over the 64 KiB kept whole, and was cut: replay cannot
    /// decide this call again.
    tool_input_truncated: bool,
    tool_name: Option<&'a Value>,
    tool_use_id: Option<&'a Value>,
    ts: String,
}

/// Why this run's event cannot be recorded: a gate denies (fail closed), an observer says so
/// on stderr.
#[derive(Debug, thiserror::Error)]
pub(super) enum LogError {
    /// An argument problem that left no session (`--from-payload`).
    #[error("{0}")]
    Problem(String),
    #[error("missing --session")]
    MissingSession,
    #[error("missing --project-root")]
    MissingProjectRoot,
    #[error(transparent)]
    Record(#[from] record::RecordError),
    #[error("cannot serialize the record: {0}")]
    Serialize(serde_json::Error),
}

/// The session log this run appends to (see [`record::open_session_log`]).
pub(super) fn open_log(args: &EmitArgs) -> Result<(record::SessionLog, PathBuf), LogError> {
    // Under `--from-payload`, a session that could not be taken says why.
    let session = args.session.as_deref().ok_or_else(|| {
        args.problems
            .first()
            .map_or(LogError::MissingSession, |p| LogError::Problem(p.clone()))
    })?;
    let project_root = args
        .project_root
        .as_deref()
        .ok_or(LogError::MissingProjectRoot)?;
    Ok(record::open_session_log(project_root, session)?)
}

/// The record of this run, one serialized line ending in `\n`, its chain members still to be
/// put in front by the writer. `without_payload` leaves the payload itself out (its length and
/// digest stay): the record a fatal signal writes.
pub(super) fn event_record(
    args: &EmitArgs,
    (harness, role): (Harness, &Role),
    payload: Option<&Value>,
    facts: Option<&PayloadFacts>,
    evaluation: &Evaluation,
    started: Instant,
    without_payload: bool,
) -> Result<Vec<u8>, LogError> {
    let session = args.session.as_deref().ok_or(LogError::MissingSession)?;
    // Copied only when something must be cut (rare): the common payload is written as read.
    let bounded = payload
        .filter(|_| !without_payload)
        .map(record::bounded_payload);
    let tool_input_truncated = bounded.as_ref().is_some_and(|b| b.tool_input_truncated);
    let bounded = bounded.and_then(|b| b.copy);
    let (payload_recorded, truncated) = match (&bounded, payload) {
        (_, Some(_)) if without_payload => (&Value::Null, false),
        (Some(copy), _) => (copy, true),
        (None, Some(original)) => (original, false),
        (None, None) => (&Value::Null, false),
    };
    let field = |name: &str| payload.and_then(|p| p.get(name));
    let no_rules: &[String] = &[];
    let (decision, deciding_rule, matched, reason) =
        match (&evaluation.outcome, &evaluation.error, role) {
            (_, Some(e), Role::Gate(_)) => (
                Some(Decision::Deny),
                None,
                no_rules,
                Some(fail_closed_reason(e).into()),
            ),
            (Some(out), None, _) => (
                Some(out.decision),
                out.deciding_rule.as_deref(),
                out.matched.as_slice(),
                Some(out.reason.as_str().into()),
            ),
            _ => (None, None, no_rules, None),
        };
    let record = EventRecord {
        ts: crate::time::rfc3339_utc(SystemTime::now()),
        event: args.event.as_deref(),
        session,
        gate: matches!(role, Role::Gate(_)),
        harness: harness.as_str(),
        left_to_harness: matches!(role, Role::Gate(_))
            && matches!(decision, Some(Decision::Allow | Decision::Defer)),
        tool_name: field("tool_name"),
        tool_use_id: field("tool_use_id"),
        decision,
        deciding_rule,
        matched_rules: matched,
        reason,
        error: evaluation.error.as_deref(),
        policy: args.policy.as_ref().map(|p| p.display().to_string()),
        policy_digest: evaluation.policy_digest.as_deref(),
        project_root: args.project_root.as_deref().and_then(|p| p.to_str()),
        seal: args.event.as_deref() == Some("SessionEnd"),
        tool_input_truncated,
        evaluator: evaluation.evaluator,
        decide_us: evaluation.decide_us,
        elapsed_us: started.elapsed().as_micros(),
        payload_truncated: truncated,
        payload: payload_recorded,
        payload_bytes: facts.map(|f| f.bytes),
        payload_sha256: facts.map(|f| f.sha256.as_str()),
        pid: std::process::id(),
    };
    let mut line = serde_json::to_vec(&record).map_err(LogError::Serialize)?;
    line.push(b'\n');
    Ok(line)
}
