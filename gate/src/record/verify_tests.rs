//! The tests of [`super`]: logs chained by the writer's own code, then tampered with.

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
    // A line inserted after the first record: a record, or junk.
    let rest = &log[all[1].start as usize..];
    for (middle, kind) in [
        (&b"\n{\"event\":\"Stop\"}\n"[..], "unchained"),
        (&b"\n{\"v\":1,\"seq\n"[..], "not_a_record"),
    ] {
        let spliced = [all[0].bytes, middle, rest].concat();
        assert_eq!(
            kinds(&verify(&spliced, Some(ANCHOR), false)),
            [(kind, 2)],
            "{kind}"
        );
    }
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

/// A log emptied (or deleted) and written on links to the anchor again; its first record
/// then comes long after the anchor was made.
#[test]
fn a_first_record_long_after_the_anchor_is_named() {
    let anchor = b"{\"created\":\"2026-12-04T10:00:00.000000Z\",\"v\":1}\n";
    let log_at = |ts: &str| {
        let tip = Tip {
            seq: 0,
            prev: sha256(anchor),
            torn: None,
        };
        let body = format!("{{\"event\":\"SessionEnd\",\"seal\":true,\"ts\":\"{ts}\"}}\n");
        chained_line(&tip, body.as_bytes())
    };
    let soon = log_at("2026-12-04T10:00:59.000000Z");
    assert!(verify(&soon, Some(anchor), false).ok());
    let late = log_at("2026-12-04T10:30:00.000000Z");
    let report = verify(&late, Some(anchor), false);
    assert_eq!(kinds(&report), [("anchor", 1)]);
    assert!(
        report.problems[0].message.contains("1800 s after"),
        "{:?}",
        report.problems
    );
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
    bodies[3] =
        r#"{"event":"tool.execute.after","gate":false,"tool_name":"bash","tool_use_id":"call_9"}"#
            .into();
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
