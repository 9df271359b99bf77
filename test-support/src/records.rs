//! Lookups in a session log (the records [`crate::scratch::session_log`] reads): what every
//! suite asks of it — the records of an event, and the one record of a call.

use serde_json::Value;

/// The records of `event`, in order.
pub fn records<'a>(log: &'a [Value], event: &str) -> Vec<&'a Value> {
    log.iter().filter(|r| r["event"] == event).collect()
}

/// The one record of `event` that `matches` (`what` names it in the failure); fails the test
/// unless there is exactly one.
pub fn one_record<'a>(
    log: &'a [Value],
    event: &str,
    what: &str,
    matches: impl Fn(&Value) -> bool,
) -> &'a Value {
    let found: Vec<_> = records(log, event)
        .into_iter()
        .filter(|r| matches(r))
        .collect();
    assert_eq!(
        found.len(),
        1,
        "one {event} record for {what} expected in {log:#?}"
    );
    found[0]
}

/// The one record of `event` for the call `tool_use_id` (Codex's and opencode's call ids land
/// in the same field).
pub fn gate_record<'a>(log: &'a [Value], event: &str, tool_use_id: &str) -> &'a Value {
    one_record(log, event, tool_use_id, |r| r["tool_use_id"] == tool_use_id)
}

/// Fails the test unless the one record of `event` for the call `tool_use_id` has `decision`.
#[track_caller]
pub fn assert_decision(log: &[Value], event: &str, tool_use_id: &str, decision: &str) {
    let record = gate_record(log, event, tool_use_id);
    assert_eq!(
        record["decision"], decision,
        "the decision on {tool_use_id}: {record:#}"
    );
}

/// Fails the test unless `record` has each field of the object `expected` with its value; the
/// failure names the field and shows the record.
#[track_caller]
pub fn assert_fields(record: &Value, expected: Value) {
    let expected = expected
        .as_object()
        .expect("the fields expected, as an object");
    for (field, value) in expected {
        assert_eq!(&record[field], value, "{field} of {record:#}");
    }
}

/// The `event` of each record, in order.
pub fn events(log: &[Value]) -> Vec<&str> {
    log.iter().map(|r| r["event"].as_str().unwrap()).collect()
}

/// Fails the test, showing the log, unless its events are `expected` (names separated by
/// spaces), in that order.
#[track_caller]
pub fn assert_events(log: &[Value], expected: &str) {
    let expected: Vec<&str> = expected.split_whitespace().collect();
    assert_eq!(events(log), expected, "{log:#?}");
}
