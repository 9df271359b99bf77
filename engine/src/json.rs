//! JSON string tokens as `serde_json` writes them, read without parsing the document: the
//! engine reads rule ids and reasons out of the mapped policy, and the sidecar encoder checks
//! the offsets it records.

use std::borrow::Cow;

/// The value of one JSON string token (quotes included), as written by `serde_json`: borrowed
/// when it has no escape, decoded otherwise. `None` if it is not a string token.
pub(crate) fn json_string(token: &[u8]) -> Option<Cow<'_, str>> {
    let inner = token.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    if !inner.contains(&b'\\') {
        return std::str::from_utf8(inner).ok().map(Cow::Borrowed);
    }
    serde_json::from_slice::<String>(token).ok().map(Cow::Owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_string_tokens_borrow_unless_escaped() {
        let plain = serde_json::to_string("tool_policy.deny:Bash(rm -rf:*)").unwrap();
        assert!(matches!(
            json_string(plain.as_bytes()),
            Some(Cow::Borrowed("tool_policy.deny:Bash(rm -rf:*)"))
        ));
        for tricky in ["say \"hi\"", "back\\slash", "tab\there", "ünïcödé ✓", ""] {
            let token = serde_json::to_string(tricky).unwrap();
            assert_eq!(json_string(token.as_bytes()).as_deref(), Some(tricky));
        }
        for not_a_string in [&b"42"[..], b"\"open", b"", b"\"", b"\"\\x\""] {
            assert_eq!(json_string(not_a_string), None, "{not_a_string:?}");
        }
    }
}
