//! Reading a session log back: the one reader `verify`, `log` and `replay` share.
//!
//! A log is lines; each whole line is one record (`schemas/session-record.v1.json`):
//!
//! - a **chained** record starts with `{"v":1,"seq":<n>,"prev":"<hex>",` ([`super::chain`]);
//! - an **unchained** one is a record of the format before the chain (no `v`): still shown by
//!   `log`, but nothing proves it, so `verify` fails on it;
//! - anything else (a torn line, junk) is not a record; a record of a later format (`v` above
//!   [`RECORD_VERSION`]) is refused with a message saying so, never half-read.

use serde_json::Value;

pub use super::chain::RECORD_VERSION;
use crate::sha256::{hex, sha256};

/// One line of a log: its 1-based number, the offset of its first byte, its bytes without the
/// newline, and whether it had one (the last line of a log may not: a torn line).
#[derive(Clone, Copy, Debug)]
pub struct Line<'a> {
    pub number: usize,
    pub start: u64,
    pub bytes: &'a [u8],
    pub terminated: bool,
}

impl Line<'_> {
    /// The offset just past the line's last byte (its newline excluded).
    pub fn end(&self) -> u64 {
        self.start + self.bytes.len() as u64
    }

    /// The SHA-256 of the line's exact bytes, hex: what the next record's `prev` carries.
    pub fn digest(&self) -> String {
        hex(&sha256(self.bytes))
    }
}

/// The lines of `log`.
pub fn lines(log: &[u8]) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut start = 0usize;
    while start < log.len() {
        let (bytes, terminated) = match log[start..].iter().position(|&b| b == b'\n') {
            Some(i) => (&log[start..start + i], true),
            None => (&log[start..], false),
        };
        out.push(Line {
            number: out.len() + 1,
            start: start as u64,
            bytes,
            terminated,
        });
        start += bytes.len() + 1;
    }
    out
}

/// What one line holds.
#[derive(Debug)]
pub enum Entry {
    /// A record of this format: its chain members and the whole record.
    Chained {
        seq: u64,
        prev: String,
        record: Value,
    },
    /// A record of the format before the chain.
    Unchained(Value),
    /// Not a record: why.
    Invalid(String),
}

/// Read one line.
pub fn parse(line: &[u8]) -> Entry {
    let record: Value = match serde_json::from_slice(line) {
        Ok(value @ Value::Object(_)) => value,
        Ok(_) => return Entry::Invalid("not a JSON object".into()),
        Err(e) => return Entry::Invalid(format!("not JSON: {e}")),
    };
    let Some(version) = record.get("v") else {
        return if record.get("ts").is_some() || record.get("event").is_some() {
            Entry::Unchained(record)
        } else {
            Entry::Invalid("an object that is not a record".into())
        };
    };
    match version.as_u64() {
        Some(RECORD_VERSION) => {}
        Some(v) if v > RECORD_VERSION => {
            return Entry::Invalid(format!(
                "a record of format version {v}; this animus-hook reads version \
                 {RECORD_VERSION}: upgrade it to read this log"
            ));
        }
        _ => return Entry::Invalid(format!("`v` is {version}, not a format version")),
    }
    let seq = record.get("seq").and_then(Value::as_u64);
    let prev = record
        .get("prev")
        .and_then(Value::as_str)
        .filter(|p| p.len() == 64 && p.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')));
    match (seq, prev) {
        (Some(seq), Some(prev)) if seq > 0 => Entry::Chained {
            seq,
            prev: prev.to_string(),
            record,
        },
        _ => Entry::Invalid("its `seq` or `prev` is missing or malformed".into()),
    }
}

/// The fields of a record `log` and `replay` show, read leniently (a record of the older
/// format has most of them too).
pub struct View<'a>(pub &'a Value);

impl<'a> View<'a> {
    fn str(&self, key: &str) -> Option<&'a str> {
        self.0.get(key).and_then(Value::as_str)
    }
    pub fn ts(&self) -> Option<&'a str> {
        self.str("ts")
    }
    pub fn session(&self) -> Option<&'a str> {
        self.str("session")
    }
    pub fn harness(&self) -> Option<&'a str> {
        self.str("harness")
    }
    pub fn event(&self) -> Option<&'a str> {
        self.str("event")
    }
    pub fn tool_name(&self) -> Option<&'a str> {
        self.str("tool_name")
    }
    pub fn tool_use_id(&self) -> Option<&'a str> {
        self.str("tool_use_id")
    }
    pub fn decision(&self) -> Option<&'a str> {
        self.str("decision")
    }
    pub fn deciding_rule(&self) -> Option<&'a str> {
        self.str("deciding_rule")
    }
    pub fn reason(&self) -> Option<&'a str> {
        self.str("reason")
    }
    pub fn project_root(&self) -> Option<&'a str> {
        self.str("project_root")
    }
    pub fn policy(&self) -> Option<&'a str> {
        self.str("policy")
    }
    pub fn gate(&self) -> bool {
        self.0.get("gate").and_then(Value::as_bool) == Some(true)
    }
    pub fn seal(&self) -> bool {
        self.0.get("seal").and_then(Value::as_bool) == Some(true)
    }
    pub fn tool_input_truncated(&self) -> bool {
        self.0.get("tool_input_truncated").and_then(Value::as_bool) == Some(true)
    }
    pub fn payload(&self) -> Option<&'a Value> {
        self.0.get("payload").filter(|p| p.is_object())
    }
    /// The call's subject: its command, path, URL or pattern (see [`subject`]).
    pub fn subject(&self) -> Option<String> {
        subject(self.payload()?.get("tool_input")?)
    }
}

/// What a tool input is about, for one line of output: the command, else the file path, path,
/// URL, pattern or query; else the input as JSON.
pub fn subject(tool_input: &Value) -> Option<String> {
    for key in [
        "command",
        "file_path",
        "filePath",
        "path",
        "notebook_path",
        "url",
        "pattern",
        "query",
        "dir_path",
    ] {
        if let Some(text) = tool_input.get(key).and_then(Value::as_str) {
            return Some(text.to_string());
        }
    }
    match tool_input {
        Value::Null => None,
        Value::Object(map) if map.is_empty() => None,
        other => Some(other.to_string()),
    }
}

/// `text` on one line of at most `max` characters: control characters shown as spaces, a cut
/// marked with `…`.
pub fn shorten(text: &str, max: usize) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if flat.chars().count() <= max {
        return flat;
    }
    let mut cut: String = flat.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_know_their_place_and_ending() {
        let all = lines(b"ab\n\ncd");
        assert_eq!(all.len(), 3);
        assert_eq!(
            (all[0].number, all[0].start, all[0].bytes),
            (1, 0, &b"ab"[..])
        );
        assert_eq!(
            (all[1].start, all[1].bytes, all[1].terminated),
            (3, &b""[..], true)
        );
        assert_eq!(
            (all[2].start, all[2].terminated, all[2].end()),
            (4, false, 6)
        );
        assert!(lines(b"").is_empty());
    }

    #[test]
    fn entries() {
        let prev = "a".repeat(64);
        let line = format!("{{\"v\":1,\"seq\":3,\"prev\":\"{prev}\",\"event\":\"Stop\"}}");
        assert!(matches!(
            parse(line.as_bytes()),
            Entry::Chained { seq: 3, .. }
        ));
        assert!(matches!(
            parse(b"{\"event\":\"Stop\",\"ts\":\"t\"}"),
            Entry::Unchained(_)
        ));
        let Entry::Invalid(why) = parse(b"{\"v\":2,\"seq\":1}") else {
            panic!()
        };
        assert!(why.contains("format version 2"), "{why}");
        assert!(matches!(
            parse(b"{\"v\":1,\"seq\":0,\"prev\":\"x\"}"),
            Entry::Invalid(_)
        ));
        assert!(matches!(parse(b"{\"v\":1,\"seq\""), Entry::Invalid(_)));
        assert!(matches!(parse(b"[1]"), Entry::Invalid(_)));
    }

    #[test]
    fn subjects_and_shortening() {
        let input = serde_json::json!({"command": "git status\n&& ls", "description": "x"});
        assert_eq!(subject(&input).as_deref(), Some("git status\n&& ls"));
        assert_eq!(shorten("git status\n&& ls", 40), "git status && ls");
        assert_eq!(shorten("abcdef", 4), "abc…");
        let input = serde_json::json!({"file_path": "/a/b"});
        assert_eq!(subject(&input).as_deref(), Some("/a/b"));
        assert_eq!(subject(&serde_json::json!({})), None);
    }
}
