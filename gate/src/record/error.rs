//! Why a session log could not be found, opened or written: each variant names the path and
//! the fault. On the hook's path any of them makes a gate deny (fail closed) and an observer
//! stay silent.

use std::path::PathBuf;

use engine::ownership::OwnershipError;
use engine::session::SessionIdError;

/// An error of the session log ([`open_session_log`](super::open_session_log),
/// [`append_line`](super::append_line), [`state_root`](super::state_root), …).
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// A system call on `path` failed; `action` says what was being done (`open`, `inspect`,
    /// `create the anchor`, …).
    #[error("cannot {action} `{}`: {source}", .path.display())]
    Io {
        /// What was being done, a verb phrase.
        action: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The log's last line (or its anchor) could not be read back for the chain.
    #[error("cannot read the end of `{}` (or its anchor): {source}", .path.display())]
    ChainTip {
        /// The log.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// No random bytes for a new anchor's nonce.
    #[error("cannot read /dev/urandom for the session anchor's nonce: {0}")]
    Nonce(std::io::Error),
    /// The session id cannot name a file.
    #[error("{0}")]
    SessionId(#[from] SessionIdError),
    /// `$ANIMUS_CONFIG_DIR` or `$HOME` is relative.
    #[error("{variable} is `{}`, not an absolute path", .dir.display())]
    NotAbsolute {
        /// The variable.
        variable: &'static str,
        /// Its value.
        dir: PathBuf,
    },
    /// Neither variable is set.
    #[error("neither ANIMUS_CONFIG_DIR nor HOME is set")]
    NoStateRoot,
    /// A symbolic link where a file must be; `why` completes the sentence.
    #[error("`{}` is a symbolic link; refusing to follow it{why}", .path.display())]
    SymbolicLink {
        /// The link.
        path: PathBuf,
        /// Why following it would be wrong, or `""`.
        why: &'static str,
    },
    /// A FIFO or another non-regular file refused at open.
    #[error("`{}` is not a regular file", .path.display())]
    NotRegular {
        /// The file.
        path: PathBuf,
    },
    /// A directory, device, … where a log or an anchor must be; `then` completes the sentence.
    #[error("`{}` is {what}, not a regular file; {then}", .path.display())]
    NotARegularFile {
        /// The file.
        path: PathBuf,
        /// What it is (`a directory`, …).
        what: &'static str,
        /// What follows (`a session anchor is one`, …).
        then: &'static str,
    },
    /// Something other than a directory in a directory's place.
    #[error(
        "`{}` is not a directory (a symbolic link or another file is in its place); refusing \
         to follow it",
        .path.display()
    )]
    NotADirectory {
        /// The path.
        path: PathBuf,
    },
    /// Someone else's, or writable by others.
    #[error("{0}; the session log is kept only where nobody else can change it")]
    NotOwned(#[from] OwnershipError),
    /// A log with another name.
    #[error(
        "`{}` has {links} hard links; a session log has exactly one (another name for it could \
         be any file of this user)",
        .path.display()
    )]
    HardLinks {
        /// The log.
        path: PathBuf,
        /// Its link count.
        links: u64,
    },
    /// A name with a NUL byte.
    #[error("`{}`: a name holds a NUL byte", .path.display())]
    NulInName {
        /// The path.
        path: PathBuf,
    },
}

impl RecordError {
    /// [`RecordError::Io`] for `path`.
    pub(super) fn io(
        action: &'static str,
        path: &std::path::Path,
    ) -> impl FnOnce(std::io::Error) -> RecordError {
        move |source| RecordError::Io {
            action,
            path: path.to_path_buf(),
            source,
        }
    }
}
