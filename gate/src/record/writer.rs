//! Appending a record: under the log's `flock`, find the chain's tip, then write the record
//! with its chain members in one `write(2)`.

use std::io::Write;
use std::os::fd::AsRawFd;
use std::path::Path;

use super::chain::{Tip, chain_prefix, chain_tip};
use super::{RecordError, SessionLog};

/// A last line without its newline: where it ends and, when found within
/// [`MAX_TORN_SCAN`](super::chain::MAX_TORN_SCAN) bytes, where it starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TornLine {
    pub ends_at: u64,
    pub starts_at: Option<u64>,
}

/// Append one record to the open session log under an exclusive lock; `path` names it in
/// messages. `body` is the serialized record without its chain members: a JSON object ending
/// in `}\n`. The chain members (`v`, `seq`, `prev`) are put first ([`super::chain`]); after a
/// torn last line the record starts on a fresh line and says where the torn one is (see the
/// parent module's documentation).
pub fn append_line(log: SessionLog, path: &Path, body: &[u8]) -> Result<(), RecordError> {
    log.file.lock().map_err(RecordError::io("lock", path))?;
    // Enough for a typical line (about 1.3 KiB) at once; a longer one is read through it in
    // pieces. Not larger: the buffer lives on the stack of every emit, and each 4 KiB page of
    // a frame is touched (probed) on entry, a page fault each in a fresh process (measured:
    // 7.5 stack page faults an emit with 16 KiB here, 5.1 with 4 KiB).
    let mut scratch = [0u8; 4 * 1024];
    let tip =
        chain_tip(log.file.as_raw_fd(), log.anchor.as_raw_fd(), &mut scratch).map_err(|e| {
            RecordError::ChainTip {
                path: path.to_path_buf(),
                source: std::io::Error::from_raw_os_error(e),
            }
        })?;
    let out = chained_line(&tip, body);
    // One write of the whole line; `write_all` only loops on a short write, which the lock
    // keeps from interleaving with another process. Closing the file releases the lock.
    (&log.file)
        .write_all(&out)
        .map_err(RecordError::io("write", path))
}

/// The bytes appended for `body` after `tip`: a newline first after a torn line, the chain
/// members, then the record's own (with `torn_line` after a torn line).
pub fn chained_line(tip: &Tip, body: &[u8]) -> Vec<u8> {
    let mut prefix = [0u8; 128];
    let n = chain_prefix(tip, &mut prefix);
    let body = match tip.torn {
        None => std::borrow::Cow::Borrowed(body),
        Some(torn) => std::borrow::Cow::Owned(with_torn_line(body, torn)),
    };
    let mut out = Vec::with_capacity(body.len() + n + 1);
    if tip.torn.is_some() {
        out.push(b'\n');
    }
    out.extend_from_slice(&prefix[..n]);
    match body.strip_prefix(b"{") {
        // `{}`: the prefix's trailing comma has nothing after it.
        Some(rest) if rest.trim_ascii_start().starts_with(b"}") => {
            out.pop();
            out.extend_from_slice(rest.trim_ascii_start());
        }
        Some(rest) => out.extend_from_slice(rest),
        // Not an object (never written so): the chain members, then the bytes as they are.
        None => {
            out.pop();
            out.extend_from_slice(b"}\n");
            out.extend_from_slice(&body);
        }
    }
    out
}

/// `body` (`{…}\n`) with the `torn_line` member added to the object.
pub fn with_torn_line(line: &[u8], torn: TornLine) -> Vec<u8> {
    let member = format!(
        "\"torn_line\":{{\"ends_at\":{},\"starts_at\":{}}}",
        torn.ends_at,
        torn.starts_at
            .map_or_else(|| "null".to_string(), |s| s.to_string())
    );
    let mut out = Vec::with_capacity(line.len() + member.len() + 2);
    // Keys stay in alphabetical order: before the last key, `ts`, when it is there.
    let ts = line.windows(6).rposition(|w| w == b",\"ts\":");
    match (ts, line.strip_suffix(b"}\n")) {
        (Some(at), Some(_)) => {
            out.extend_from_slice(&line[..at]);
            out.push(b',');
            out.extend_from_slice(member.as_bytes());
            out.extend_from_slice(&line[at..]);
        }
        (None, Some(body)) => {
            out.extend_from_slice(body);
            if body.trim_ascii_end() != b"{" {
                out.push(b',');
            }
            out.extend_from_slice(member.as_bytes());
            out.extend_from_slice(b"}\n");
        }
        // Not an object: the record as it is.
        (_, None) => out.extend_from_slice(line),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::chain::seq_of;
    use crate::sha256::{hex, sha256};
    use serde_json::Value;
    use std::fs::{self, OpenOptions};
    use std::path::PathBuf;

    const ANCHOR: &[u8] = b"{\"kind\":\"animus-session-anchor\",\"nonce\":\"00\"}\n";

    /// A log holding `content` and its anchor, in a fresh directory.
    fn log_with(name: &str, content: &[u8]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("animus-chain-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join("s.jsonl");
        fs::write(&path, content).unwrap();
        fs::write(dir.join("s.anchor"), ANCHOR).unwrap();
        path
    }

    fn append(path: &Path, body: &[u8]) {
        let open = |p: PathBuf| OpenOptions::new().read(true).append(true).open(p).unwrap();
        let log = SessionLog {
            file: open(path.to_path_buf()),
            anchor: open(path.with_extension("anchor")),
        };
        append_line(log, path, body).unwrap();
    }

    fn digest(line: &str) -> String {
        hex(&sha256(line.as_bytes()))
    }

    #[test]
    fn records_are_chained_from_the_anchor() {
        let path = log_with("chain", b"");
        append(&path, b"{\"a\":1,\"ts\":\"t1\"}\n");
        append(&path, b"{\"a\":2}\n");
        append(&path, b"{}\n");
        let text = fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            format!(
                "{{\"v\":1,\"seq\":1,\"prev\":\"{}\",\"a\":1,\"ts\":\"t1\"}}",
                hex(&sha256(ANCHOR))
            )
        );
        assert_eq!(
            lines[1],
            format!(
                "{{\"v\":1,\"seq\":2,\"prev\":\"{}\",\"a\":2}}",
                digest(lines[0])
            )
        );
        assert_eq!(
            lines[2],
            format!("{{\"v\":1,\"seq\":3,\"prev\":\"{}\"}}", digest(lines[1]))
        );
        assert_eq!(seq_of(lines[2].as_bytes()), Some(3));
        assert_eq!(seq_of(b"{\"v\":1,\"seq\":12"), None, "no comma: cut short");
        assert_eq!(seq_of(b"{\"seq\":1,"), None);
    }

    #[test]
    fn a_torn_last_line_is_kept_reported_and_linked_over() {
        let path = log_with("torn", b"");
        append(&path, b"{\"a\":1,\"ts\":\"t1\"}\n");
        let first = fs::read(&path).unwrap();
        let mut content = first.clone();
        content.extend_from_slice(b"{\"v\":1,\"seq\":2,\"pay");
        fs::write(&path, &content).unwrap();
        append(&path, b"{\"a\":3,\"ts\":\"t3\"}\n");
        let text = fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert_eq!(
            lines[1], "{\"v\":1,\"seq\":2,\"pay",
            "the torn line is kept whole"
        );
        let record: Value = serde_json::from_str(lines[2]).unwrap();
        assert_eq!(record["a"], 3);
        assert_eq!(record["torn_line"]["ends_at"], content.len());
        assert_eq!(record["torn_line"]["starts_at"], first.len());
        assert!(lines[2].find("torn_line").unwrap() < lines[2].find("\"ts\"").unwrap());
        // Linked over the torn line, to the last whole one.
        assert_eq!(record["seq"], 2);
        assert_eq!(record["prev"], digest(lines[0]));
        // The next record finds a whole last line and says nothing.
        append(&path, b"{\"a\":4}\n");
        let text = fs::read_to_string(&path).unwrap();
        let last: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
        assert!(last.get("torn_line").is_none());
        assert_eq!(last["seq"], 3);
        assert_eq!(last["prev"], digest(text.lines().nth(2).unwrap()));
        let _ = fs::remove_dir_all(path.parent().unwrap());
    }

    #[test]
    fn a_log_that_is_one_torn_line_a_long_one_or_an_older_format() {
        let path = log_with("whole", b"garbage");
        append(&path, b"{}\n");
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            format!(
                "garbage\n{{\"v\":1,\"seq\":1,\"prev\":\"{}\",\"torn_line\":{{\"ends_at\":7,\"starts_at\":0}}}}\n",
                hex(&sha256(ANCHOR))
            )
        );
        // A torn line longer than the scan: its start is unknown, the anchor is linked.
        let path = log_with("long", &vec![b'x'; MAX_TORN_SCAN as usize + 70_000]);
        append(&path, b"{\"a\":1}\n");
        let text = fs::read_to_string(&path).unwrap();
        let record: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
        assert_eq!(record["torn_line"]["starts_at"], Value::Null);
        assert_eq!(record["seq"], 1);
        // A record of the format before the chain: linked to, counted from 1.
        let legacy = "{\"decision\":\"deny\",\"ts\":\"t\"}";
        let path = log_with("legacy", format!("{legacy}\n").as_bytes());
        append(&path, b"{\"a\":1}\n");
        let text = fs::read_to_string(&path).unwrap();
        let record: Value = serde_json::from_str(text.lines().last().unwrap()).unwrap();
        assert_eq!(
            (record["seq"].as_u64(), record["prev"].as_str()),
            (Some(1), Some(digest(legacy).as_str()))
        );
    }

    use crate::record::MAX_TORN_SCAN;
}
