//! Proving a session log whole: the chain from the anchor to the seal, and gate liveness.
//!
//! [`verify`] walks the log once and reports every problem with the line (and `seq`) where it
//! shows, the first one first:
//!
//! - `anchor`: the anchor is missing, or the first record does not link to it;
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
                if reported {
                    problems.push(problem(
                        "torn",
                        Some(line),
                        None,
                        format!(
                            "line {} (bytes {}..{}) is torn: a record cut short (the next \
                             record reports it)",
                            line.number,
                            line.start,
                            line.end()
                        ),
                    ));
                } else {
                    problems.push(problem(
                        "not_a_record",
                        Some(line),
                        None,
                        format!(
                            "line {} (byte {}) is not a record ({why}): inserted, or edited \
                             past reading",
                            line.number, line.start
                        ),
                    ));
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
            let (kind, message) = if seq > expected_seq {
                let missing = if seq == expected_seq + 1 {
                    format!("seq {expected_seq} is")
                } else {
                    format!("seq {expected_seq}..{} are", seq - 1)
                };
                (
                    "removed",
                    format!(
                        "line {} holds seq {seq}: {missing} missing before it (removed, or the \
                         log was cut and written on)",
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
            problems.push(problem(kind, Some(line), Some(seq), message));
        } else if !link_ok {
            let message = match &previous_record {
                Some((before, before_seq)) => format!(
                    "line {} (seq {before_seq}) was edited: its digest is not the one line {} \
                     (seq {seq}) links to (or that link was edited)",
                    before.number, line.number
                ),
                None => format!(
                    "the anchor disagrees: line {} (seq {seq}) links to {prev}, the anchor's \
                     digest is {}",
                    line.number,
                    expected_prev.as_deref().unwrap_or("")
                ),
            };
            let (at, at_seq) = match &previous_record {
                Some((before, before_seq)) => (before, Some(*before_seq)),
                None => (line, Some(seq)),
            };
            let kind = if previous_record.is_some() {
                "edited"
            } else {
                "anchor"
            };
            problems.push(problem(kind, Some(at), at_seq, message));
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
        expected_prev = Some(digest.clone());
        expected_seq = seq + 1;
        slack = false;
        report.last_seq = Some(seq);
        report.head = Some(digest);
        previous_record = Some((*line, seq));
    }
    report.sealed = sealed_at.is_some();
    match &previous_record {
        None if report.records == 0 => problems.push(problem(
            "empty",
            None,
            None,
            "the log holds no record".into(),
        )),
        Some((line, seq)) if !report.sealed && !allow_open => problems.push(problem(
            "unsealed",
            Some(line),
            Some(*seq),
            format!(
                "the log ends at line {} (seq {seq}) without a seal: its end was cut, or the \
                 session is still open (--open accepts a live session)",
                line.number
            ),
        )),
        _ => {}
    }
    report.problems = problems;
    report
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
mod tests {
    use super::*;
    use crate::record::chain::Tip;
    use crate::record::writer::chained_line;

    const ANCHOR: &[u8] = b"{\"kind\":\"animus-session-anchor\"}\n";

    /// A log of `bodies`, chained from [`ANCHOR`].
    fn chain(bodies: &[String]) -> Vec<u8> {
        let mut log = Vec::new();
        let mut tip = Tip {
            seq: 0,
            prev: sha256(ANCHOR),
            torn: None,
        };
        for body in bodies {
            let line = chained_line(&tip, format!("{body}\n").as_bytes());
            tip = Tip {
                seq: tip.seq + 1,
                prev: sha256(&line[..line.len() - 1]),
                torn: None,
            };
            log.extend_from_slice(&line);
        }
        log
    }

    fn session(n: usize) -> Vec<String> {
        let mut bodies = vec![r#"{"event":"SessionStart"}"#.to_string()];
        for i in 0..n {
            bodies.push(format!(
                r#"{{"event":"PreToolUse","gate":true,"tool_name":"Bash","tool_use_id":"t{i}"}}"#
            ));
            bodies.push(format!(
                r#"{{"event":"PostToolUse","gate":false,"tool_name":"Bash","tool_use_id":"t{i}"}}"#
            ));
        }
        bodies.push(r#"{"event":"SessionEnd","seal":true}"#.to_string());
        bodies
    }

    fn kinds(report: &Report) -> Vec<(&'static str, usize)> {
        report.problems.iter().map(|p| (p.kind, p.line)).collect()
    }

    fn drop_line(log: &[u8], number: usize) -> Vec<u8> {
        let all = lines(log);
        let mut out = Vec::new();
        for line in all.iter().filter(|l| l.number != number) {
            out.extend_from_slice(line.bytes);
            out.push(b'\n');
        }
        out
    }

    #[test]
    fn a_whole_sealed_log_passes() {
        let log = chain(&session(5));
        let report = verify(&log, Some(ANCHOR), false);
        assert!(report.ok(), "{:?}", report.problems);
        assert_eq!(
            (report.records, report.last_seq, report.sealed),
            (12, Some(12), true)
        );
        assert_eq!((report.gate_decisions, report.finished_calls), (5, 5));
    }

    #[test]
    fn each_tampering_is_named_where_it_is() {
        let log = chain(&session(5));
        // One byte of a middle record.
        let mut edited = log.clone();
        let line6 = lines(&log)[5];
        let at = line6.start as usize + line6.bytes.windows(4).position(|w| w == b"Bash").unwrap();
        edited[at] = b'b';
        assert_eq!(
            kinds(&verify(&edited, Some(ANCHOR), false)),
            [("edited", 6)]
        );
        // A record removed.
        let removed = drop_line(&log, 5);
        let report = verify(&removed, Some(ANCHOR), false);
        assert_eq!(kinds(&report), [("removed", 5)]);
        assert!(report.problems[0].message.contains("seq 5 is missing"));
        // A gate decision removed: its finished call is named too.
        let report = verify(&drop_line(&log, 4), Some(ANCHOR), false);
        assert_eq!(kinds(&report), [("removed", 4), ("ungated", 4)]);
        // Two swapped.
        let all = lines(&log);
        let mut swapped = Vec::new();
        for n in [0, 1, 3, 2, 4, 5, 6, 7, 8, 9, 10, 11] {
            swapped.extend_from_slice(all[n].bytes);
            swapped.push(b'\n');
        }
        assert_eq!(
            kinds(&verify(&swapped, Some(ANCHOR), false))[0],
            ("removed", 3)
        );
        // The end cut: the seal is gone.
        let cut_at = all[9].start as usize;
        let report = verify(&log[..cut_at], Some(ANCHOR), false);
        assert_eq!(kinds(&report), [("unsealed", 9)]);
        assert!(
            verify(&log[..cut_at], Some(ANCHOR), true).ok(),
            "a live session"
        );
        // Cut mid-line: torn.
        assert_eq!(
            kinds(&verify(&log[..cut_at + 10], Some(ANCHOR), false)),
            [("torn", 10), ("unsealed", 9)]
        );
        // Another anchor, or none.
        assert_eq!(kinds(&verify(&log, Some(b"{}\n"), false)), [("anchor", 1)]);
        assert_eq!(kinds(&verify(&log, None, false)), [("anchor", 0)]);
        // A line inserted.
        let mut inserted = all[0].bytes.to_vec();
        inserted.extend_from_slice(b"\n{\"event\":\"Stop\"}\n");
        inserted.extend_from_slice(&log[all[1].start as usize..]);
        assert_eq!(
            kinds(&verify(&inserted, Some(ANCHOR), false)),
            [("unchained", 2)]
        );
        let mut junk = all[0].bytes.to_vec();
        junk.extend_from_slice(b"\n{\"v\":1,\"seq\n");
        junk.extend_from_slice(&log[all[1].start as usize..]);
        assert_eq!(
            kinds(&verify(&junk, Some(ANCHOR), false)),
            [("not_a_record", 2)]
        );
        assert!(!verify(b"", Some(ANCHOR), false).ok());
    }

    /// Every single-byte edit anywhere in a log fails `verify`, or (in the last record, which
    /// nothing links to) changes the head digest: so a head kept elsewhere catches it.
    #[test]
    fn every_one_byte_edit_is_caught() {
        let log = chain(&session(3));
        let whole = verify(&log, Some(ANCHOR), false);
        assert!(whole.ok());
        let last_start = lines(&log).last().unwrap().start as usize;
        for at in 0..log.len() {
            for flip in [0x01u8, 0x20] {
                let mut edited = log.clone();
                edited[at] ^= flip;
                let report = verify(&edited, Some(ANCHOR), false);
                assert!(
                    !report.ok() || report.head != whole.head,
                    "byte {at} ^ {flip:#x} went unseen"
                );
                if at < last_start {
                    assert!(!report.ok(), "byte {at} ^ {flip:#x} before the last record");
                }
            }
        }
    }

    /// Removing any one record, or swapping any two neighbours, fails.
    #[test]
    fn every_removal_and_swap_is_caught() {
        let log = chain(&session(3));
        let all = lines(&log);
        let join = |order: &[usize]| -> Vec<u8> {
            let mut out = Vec::new();
            for &i in order {
                out.extend_from_slice(all[i].bytes);
                out.push(b'\n');
            }
            out
        };
        for drop in 0..all.len() {
            let order: Vec<usize> = (0..all.len()).filter(|&i| i != drop).collect();
            assert!(
                !verify(&join(&order), Some(ANCHOR), false).ok(),
                "line {drop} removed"
            );
        }
        for swap in 0..all.len() - 1 {
            let mut order: Vec<usize> = (0..all.len()).collect();
            order.swap(swap, swap + 1);
            assert!(
                !verify(&join(&order), Some(ANCHOR), false).ok(),
                "lines {swap} swapped"
            );
        }
    }

    #[test]
    fn a_finished_call_without_a_gate_decision_is_named() {
        let mut bodies = session(2);
        bodies.insert(
            3,
            r#"{"event":"PostToolUse","gate":false,"tool_name":"Bash","tool_use_id":"toolu_ghost"}"#
                .into(),
        );
        let report = verify(&chain(&bodies), Some(ANCHOR), false);
        assert_eq!(kinds(&report), [("ungated", 4)]);
        assert_eq!(
            report.problems[0].tool_use_id.as_deref(),
            Some("toolu_ghost")
        );
        // The opencode plugin's finished call too.
        bodies[3] = r#"{"event":"tool.execute.after","gate":false,"tool_name":"bash","tool_use_id":"call_9"}"#.into();
        let report = verify(&chain(&bodies), Some(ANCHOR), false);
        assert_eq!(kinds(&report), [("ungated", 4)]);
        assert_eq!(report.problems[0].tool_use_id.as_deref(), Some("call_9"));
    }

    #[test]
    fn only_a_session_start_reopens_a_sealed_session() {
        let mut bodies = session(1);
        bodies.extend(session(1));
        assert!(verify(&chain(&bodies), Some(ANCHOR), false).ok());
        bodies.push(r#"{"event":"Stop"}"#.into());
        let report = verify(&chain(&bodies), Some(ANCHOR), false);
        assert_eq!(kinds(&report), [("after_seal", 9)]);
    }
}
