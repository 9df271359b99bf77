//! Session ids: they come from outside and become a file name, so they are checked first.

/// Longest accepted session id, in bytes.
pub const MAX_SESSION_ID_LEN: usize = 128;

/// Check a session id before it names a file: 1–128 bytes, no path separator (`/`, `\`), no
/// control character (NUL, newline, …), and not starting with `.` (so never `.` or `..`).
/// Spaces and quotes are allowed: the hook is wired in exec form, so nothing shell-parses the id.
pub fn validate_session_id(id: &str) -> Result<(), SessionIdError> {
    if id.is_empty() {
        return Err(SessionIdError::Empty);
    }
    if id.len() > MAX_SESSION_ID_LEN {
        return Err(SessionIdError::TooLong { len: id.len() });
    }
    if id.starts_with('.') {
        return Err(SessionIdError::LeadingDot);
    }
    if let Some(c) = id
        .chars()
        .find(|c| matches!(c, '/' | '\\') || c.is_control())
    {
        return Err(SessionIdError::ForbiddenCharacter(c));
    }
    Ok(())
}

/// Why a session id cannot name a file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SessionIdError {
    /// No id.
    #[error("session id is empty")]
    Empty,
    /// Longer than [`MAX_SESSION_ID_LEN`] bytes.
    #[error("session id is {len} bytes long; at most {MAX_SESSION_ID_LEN} are allowed")]
    TooLong {
        /// Its length in bytes.
        len: usize,
    },
    /// `.`, `..` or a hidden name.
    #[error("session id starts with `.`")]
    LeadingDot,
    /// A path separator or a control character.
    #[error("session id contains {0:?}; path separators and control characters are not allowed")]
    ForbiddenCharacter(char),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids() {
        for good in [
            "3dc99ae4-f260-4bf8-899e-bf38ca57684f",
            "run_1.a",
            "A",
            "with space",
            "quote\"d 'id'",
            "ünï",
        ] {
            assert_eq!(validate_session_id(good), Ok(()), "{good}");
        }
        let long = "a".repeat(10 * 1024);
        for bad in [
            "",
            "..",
            ".",
            "../../etc",
            "a/b",
            "a\\b",
            "a\0b",
            "a\nb",
            ".hidden",
            long.as_str(),
        ] {
            assert!(validate_session_id(bad).is_err(), "{bad:?}");
        }
        assert!(validate_session_id(&"a".repeat(128)).is_ok());
        assert!(validate_session_id(&"a".repeat(129)).is_err());
    }
}
