//! Proving a session log whole: the chain from the anchor to the seal, and gate liveness.
//!
//! [`verify`] walks the log once and reports every problem with the line (and `seq`) where it
//! shows, the first one first:
//!
//! - `anchor`: the anchor is missing, the first record does not link to it, or the first
//!   record was written long after the anchor was made ([`MAX_ANCHOR_GAP_SECS`]: the log was
//!   emptied or deleted and written on);
//! - `edited`: a record's line no longer has the digest the next record links to;
//! - `removed`: `seq` jumps (records missing before this line);
//! - `reordered`: `seq` goes back or repeats (records inserted, moved or duplicated);
//! - `not_a_record`, `unchained`, `torn`: a line that is not a record of this format;
//! - `after_seal`: a record after the seal that is not a `SessionStart` (the one documented
//!   re-open: a resumed session starts again after its `SessionEnd`, and is sealed again by
//!   its next one);
//! - `unsealed`: the log ends without a seal (its end was cut, or the session is still open —
//!   `allow_open` accepts that);
//! - `ungated`: a finished tool call (`PostToolUse`, `PostToolUseFailure`, opencode's
//!   `tool.execute.after`) with no gate decision for its `tool_use_id` earlier in the session:
//!   the hook was not called for it (misconfigured, disabled, or a harness bug). Gemini CLI's
//!   `AfterTool` carries no call id, so a Gemini session is proved by the chain alone;
//! - `empty`: no record at all.
//!
//! After a break the walk re-synchronises on the record it stopped at, so one edit is one
//! problem, not one per later record.
//!
//! What the chain cannot prove (an entire tail rewritten with its links, a log emptied to its
//! anchor and written on) is said in [`super::chain`]: keep the head digest elsewhere.

use std::collections::HashSet;

use serde_json::Value;

use super::reader::{Entry, Line, View, lines, parse};
use crate::sha256::{hex, sha256};

/// The events of a finished tool call, which a gate decision must precede: Claude Code's and
/// Codex's, and the opencode plugin's (Gemini CLI's `AfterTool` carries no call id).
pub const FINISHED_CALL_EVENTS: [&str; 3] =
    ["PostToolUse", "PostToolUseFailure", "tool.execute.after"];

/// One thing wrong with a log.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    pub kind: &'static str,
    /// The 1-based line where it shows (0: the log as a whole, or its anchor).
    pub line: usize,
    /// The offset of that line's first byte.
    pub offset: u64,
    /// The `seq` of the record on that line, when it has one.
    pub seq: Option<u64>,
    /// For `ungated`: the call's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    pub message: String,
}

/// What [`verify`] found.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Report {
    /// Records read (chained or not).
    pub records: usize,
    /// The last record's `seq`.
    pub last_seq: Option<u64>,
    /// The log ends sealed.
    pub sealed: bool,
    /// The digest of the last record's line: keep it elsewhere to prove this log later.
    pub head: Option<String>,
    /// Gate decisions and finished calls seen (for the summary).
    pub gate_decisions: usize,
    pub finished_calls: usize,
    pub problems: Vec<Problem>,
}

impl Report {
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Verify `log` against its `anchor` (`None`: the anchor file is missing). With `allow_open`
/// a log that ends without a seal passes (a live session).
pub fn verify(log: &[u8], anchor: Option<&[u8]>, allow_open: bool) -> Report {
    let mut report = Report::default();
    let mut problems = Vec::new();
    let mut expected_prev = match anchor {
        Some(bytes) => Some(hex(&sha256(bytes))),
        None => {
            problems.push(problem(
                "anchor",
                None,
                None,
                "the session's anchor is missing: the first record cannot be proved".into(),
            ));
            None
        }
    };
    let mut expected_seq = 1u64;
    // After a line that is not a record: the next record's seq may skip it.
    let mut slack = false;
    let mut sealed_at: Option<u64> = None;
    let mut gated: HashSet<String> = HashSet::new();
    let mut previous_record: Option<(Line, u64)> = None;
    let all = lines(log);
    for (i, line) in all.iter().enumerate() {
        if !line.terminated {
            problems.push(problem(
                "torn",
                Some(line),
                None,
                format!(
                    "line {} (bytes {}..{}) is torn: it has no newline (a record cut short by a \
                     crash, or the log cut mid-line)",
                    line.number,
                    line.start,
                    line.end()
                ),
            ));
            continue;
        }
        let (seq, prev, record) = match parse(line.bytes) {
            Entry::Chained { seq, prev, record } => (seq, prev, record),
            Entry::Unchained(record) => {
                report.records += 1;
                problems.push(problem(
                    "unchained",
                    Some(line),
                    None,
                    format!(
                        "line {} is a record without chain members (written by an animus-hook \
                         before the chain, or inserted): nothing proves it",
                        line.number
                    ),
                ));
                observe(&record, None, line, &mut gated, &mut report, &mut problems);
                if previous_record.is_none() {
                    // Before any chained record: a log begun before the chain, which the
                    // writer went on from (seq 1, linked to this line).
                    expected_prev = Some(line.digest());
                    expected_seq = 1;
                    slack = false;
                } else {
                    // Inside the chain: inserted, or a record edited out of its format.
                    expected_prev = None;
                    slack = true;
                }
                continue;
            }
            Entry::Invalid(why) => {
                let reported = all.get(i + 1).is_some_and(|next| reports_torn(next, line));
                problems.push(invalid_line_problem(line, &why, reported));
                if !reported {
                    expected_prev = None;
                    slack = true;
                }
                continue;
            }
        };
        report.records += 1;
        let digest = line.digest();
        let seq_ok = seq == expected_seq || (slack && seq == expected_seq + 1);
        let link_ok = expected_prev.as_deref().is_none_or(|e| e == prev);
        if !seq_ok {
            problems.push(sequence_problem(line, seq, expected_seq));
        } else if !link_ok {
            problems.push(link_problem(
                line,
                (seq, &prev),
                previous_record.as_ref(),
                expected_prev.as_deref(),
            ));
        }
        if let Some(sealed) = sealed_at {
            if View(&record).event() == Some("SessionStart") {
                // The documented re-open: a resumed session.
                sealed_at = None;
            } else {
                problems.push(problem(
                    "after_seal",
                    Some(line),
                    Some(seq),
                    format!(
                        "line {} (seq {seq}) follows the seal at seq {sealed}: only a \
                         SessionStart re-opens a sealed session",
                        line.number
                    ),
                ));
            }
        }
        if View(&record).seal() {
            sealed_at = Some(seq);
        }
        observe(
            &record,
            Some(seq),
            line,
            &mut gated,
            &mut report,
            &mut problems,
        );
        if seq == 1
            && previous_record.is_none()
            && let Some(gap) = anchor.and_then(|a| seconds_after_anchor(a, &record))
            && gap > MAX_ANCHOR_GAP_SECS
        {
            problems.push(problem(
                "anchor",
                Some(line),
                Some(seq),
                format!(
                    "line {} (seq 1) was written {gap} s after the session's anchor was \
                     created: the log was emptied or deleted after its first records, and \
                     written on",
                    line.number
                ),
            ));
        }
        expected_prev = Some(digest.clone());
        expected_seq = seq + 1;
        slack = false;
        report.last_seq = Some(seq);
        report.head = Some(digest);
        previous_record = Some((*line, seq));
    }
    report.sealed = sealed_at.is_some();
    problems.extend(end_problem(&report, previous_record.as_ref(), allow_open));
    report.problems = problems;
    report
}

/// A line that does not read as a record: torn (when the next record reports it) or not a
/// record at all.
fn invalid_line_problem(line: &Line, why: &str, reported_torn: bool) -> Problem {
    if reported_torn {
        problem(
            "torn",
            Some(line),
            None,
            format!(
                "line {} (bytes {}..{}) is torn: a record cut short (the next record reports \
                 it)",
                line.number,
                line.start,
                line.end()
            ),
        )
    } else {
        problem(
            "not_a_record",
            Some(line),
            None,
            format!(
                "line {} (byte {}) is not a record ({why}): inserted, or edited past reading",
                line.number, line.start
            ),
        )
    }
}

/// A record whose `seq` is not the one expected: records removed before it, or inserted,
/// reordered or duplicated.
fn sequence_problem(line: &Line, seq: u64, expected_seq: u64) -> Problem {
    let (kind, message) = if seq > expected_seq {
        let missing = if seq == expected_seq + 1 {
            format!("seq {expected_seq} is")
        } else {
            format!("seq {expected_seq}..{} are", seq - 1)
        };
        (
            "removed",
            format!(
                "line {} holds seq {seq}: {missing} missing before it (removed, or the log was \
                 cut and written on)",
                line.number
            ),
        )
    } else {
        (
            "reordered",
            format!(
                "line {} holds seq {seq} where seq {expected_seq} belongs: records were \
                 inserted, reordered or duplicated",
                line.number
            ),
        )
    };
    problem(kind, Some(line), Some(seq), message)
}

/// A record whose `prev` is not the digest expected: the record before it was edited, or
/// (for the first) the anchor disagrees.
fn link_problem(
    line: &Line,
    (seq, prev): (u64, &str),
    previous_record: Option<&(Line, u64)>,
    expected_prev: Option<&str>,
) -> Problem {
    match previous_record {
        Some((before, before_seq)) => problem(
            "edited",
            Some(before),
            Some(*before_seq),
            format!(
                "line {} (seq {before_seq}) was edited: its digest is not the one line {} (seq \
                 {seq}) links to (or that link was edited)",
                before.number, line.number
            ),
        ),
        None => problem(
            "anchor",
            Some(line),
            Some(seq),
            format!(
                "the anchor disagrees: line {} (seq {seq}) links to {prev}, the anchor's digest \
                 is {}",
                line.number,
                expected_prev.unwrap_or("")
            ),
        ),
    }
}

/// What the end of the log says: no record at all, or no seal (unless `allow_open`).
fn end_problem(
    report: &Report,
    previous_record: Option<&(Line, u64)>,
    allow_open: bool,
) -> Option<Problem> {
    match previous_record {
        None if report.records == 0 => Some(problem(
            "empty",
            None,
            None,
            "the log holds no record".into(),
        )),
        Some((line, seq)) if !report.sealed && !allow_open => Some(problem(
            "unsealed",
            Some(line),
            Some(*seq),
            format!(
                "the log ends at line {} (seq {seq}) without a seal: its end was cut, or the \
                 session is still open (--open accepts a live session)",
                line.number
            ),
        )),
        _ => None,
    }
}

/// The longest a session's first record may follow its anchor's creation: the anchor is made
/// when the first hook opens the log, which records within its deadline (at most 60 s). A
/// first record much later means the records before it are gone.
pub const MAX_ANCHOR_GAP_SECS: i64 = 120;

/// Seconds from the anchor's `created` to the record's `ts`, when both can be read.
fn seconds_after_anchor(anchor: &[u8], record: &Value) -> Option<i64> {
    let anchor: Value = serde_json::from_slice(anchor).ok()?;
    let created = crate::time::parse_rfc3339_micros(anchor.get("created")?.as_str()?)?;
    let ts = crate::time::parse_rfc3339_micros(View(record).ts()?)?;
    Some((ts - created) / 1_000_000)
}

/// Gate liveness: remember gate decisions, check finished calls.
fn observe(
    record: &Value,
    seq: Option<u64>,
    line: &Line,
    gated: &mut HashSet<String>,
    report: &mut Report,
    problems: &mut Vec<Problem>,
) {
    let view = View(record);
    if view.gate() {
        report.gate_decisions += 1;
        if let Some(id) = view.tool_use_id() {
            gated.insert(id.to_string());
        }
    }
    let Some(event) = view.event().filter(|e| FINISHED_CALL_EVENTS.contains(e)) else {
        return;
    };
    report.finished_calls += 1;
    let tool = view.tool_name().unwrap_or("?");
    match view.tool_use_id() {
        Some(id) if gated.contains(id) => {}
        Some(id) => problems.push(Problem {
            tool_use_id: Some(id.to_string()),
            ..problem(
                "ungated",
                Some(line),
                seq,
                format!(
                    "line {}: {event} of {tool} call `{id}` has no gate decision before it: the \
                     hook was not called for that call (misconfigured, disabled, or a harness \
                     bug)",
                    line.number
                ),
            )
        }),
        None => problems.push(problem(
            "ungated",
            Some(line),
            seq,
            format!(
                "line {}: {event} of a {tool} call without a tool_use_id: it cannot be matched \
                 to a gate decision",
                line.number
            ),
        )),
    }
}

/// Whether `next` is a record whose `torn_line` names exactly `line`.
fn reports_torn(next: &Line, line: &Line) -> bool {
    let Entry::Chained { record, .. } = parse(next.bytes) else {
        return false;
    };
    let torn = &record["torn_line"];
    torn["ends_at"].as_u64() == Some(line.end())
        && torn["starts_at"].as_u64().is_none_or(|s| s == line.start)
}

fn problem(kind: &'static str, line: Option<&Line>, seq: Option<u64>, message: String) -> Problem {
    Problem {
        kind,
        line: line.map_or(0, |l| l.number),
        offset: line.map_or(0, |l| l.start),
        seq,
        tool_use_id: None,
        message,
    }
}

#[cfg(test)]
#[path = "verify_tests.rs"]
mod tests;
