//! The per-session event log.
//!
//! ## Layout
//!
//! Animus keeps runtime state out of the repository, under the repo-scoped root
//! `~/.animus/<repo-scope>/` (`$ANIMUS_CONFIG_DIR` replaces `~/.animus`), where `<repo-scope>`
//! is `<sanitized-repo-name>-<first 12 hex of sha256(canonical project path)>`. The hook
//! appends one JSON line per event to
//!
//! ```text
//! <root>/<repo-scope>/sessions/<session-id>.jsonl
//! ```
//!
//! Directories are created `0700`, the log `0600`. The session id comes from outside and is
//! validated (`engine::session::validate_session_id`) before it becomes a path component.
//! The path is walked with `openat` and `O_NOFOLLOW` from the state root, and every step must be
//! this user's and writable by nobody else ([`open_session_log`]): a symbolic link, hard link,
//! FIFO or foreign file planted in the state directory is refused, never written through.
//!
//! ## Atomicity
//!
//! Each record is one `write(2)` of one complete line to a file opened `O_APPEND`, made under
//! an exclusive advisory lock (`flock`) on that file, so hooks the harness runs in parallel
//! never interleave, tear or lose a line.
//!
//! ## A torn last line
//!
//! A log whose last byte is not a newline has a torn last line (a crash, or the agent, cut
//! it). Under the same lock, before the write, the hook reads the log's last byte; when it is
//! not `\n` the record is written on a fresh line (one write: a newline, then the record) and
//! carries `"torn_line": {"ends_at": <offset>, "starts_at": <offset or null>}`: where the torn
//! line ends (the log's length before the write) and where it starts (`null` when its start
//! is more than [`MAX_TORN_SCAN`] bytes back). The torn bytes are kept, as a line of their own;
//! the record links over them to the last whole line ([`chain`]), and `verify` reports them.
//!
//! ## The chain, the seal, and reading it back
//!
//! Each record carries `seq` and the digest of the record before it, the first the digest of
//! the session's anchor beside the log ([`chain`]). A `SessionEnd` record seals the session
//! (`"seal": true`). [`reader`] reads a log back line by line, the one reader `verify`, `log`
//! and `replay` share; [`verify`] proves a log whole. The format is
//! `schemas/session-record.v1.json`.
//!
//! ## Modules
//!
//! - this one: where the log lives and how it is opened without following a planted link;
//! - [`chain`]: the chain members and the tip of a log (async-signal-safe);
//! - [`writer`]: appending a record under the lock;
//! - [`bound`]: what of a payload is kept (the tool input whole up to 64 KiB);
//! - [`reader`], [`verify`]: reading a log back, and proving it whole.

pub mod bound;
pub mod chain;
mod error;
pub mod reader;
pub mod verify;
pub mod writer;

pub use bound::{
    MAX_RECORDED_DEPTH, MAX_RECORDED_ITEMS, MAX_RECORDED_STRING, MAX_RECORDED_TOOL_INPUT,
    bounded_payload,
};
pub use chain::MAX_TORN_SCAN;
pub use error::RecordError;
pub use writer::{TornLine, append_line};

use std::fs::{self, File, OpenOptions};
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use engine::session::validate_session_id;

use crate::sha256::{hex, sha256};

/// `<sanitized-repo-name>-<first 12 hex of sha256(canonical project path)>`.
pub fn repo_scope(project_root: &Path) -> Result<String, RecordError> {
    // `canonicalize` exactly, through a memo: the project root is where a hook runs, and the
    // memo knows the directories on the way there from one `getcwd` (no `readlink` each).
    // Where it finds no real path, `canonicalize` itself says why.
    let canonical = engine::paths::FsMemo::default()
        .real_path(project_root)
        .map_or_else(|| fs::canonicalize(project_root), Ok)
        .map_err(RecordError::io("resolve project root", project_root))?;
    let name: String = canonical
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "root".into())
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '-'
            }
        })
        .take(64)
        .collect();
    let name = name.trim_start_matches('.');
    let name = if name.is_empty() { "repo" } else { name };
    let digest = hex(&sha256(canonical.as_os_str().as_encoded_bytes()));
    Ok(format!("{name}-{}", &digest[..12]))
}

/// The state root: `$ANIMUS_CONFIG_DIR`, else `$HOME/.animus`.
pub fn state_root() -> Result<PathBuf, RecordError> {
    // A relative root would resolve against whatever directory the harness runs the hook in.
    let absolute = |variable: &'static str, dir: PathBuf| {
        if dir.is_absolute() {
            Ok(dir)
        } else {
            Err(RecordError::NotAbsolute { variable, dir })
        }
    };
    if let Some(dir) = std::env::var_os("ANIMUS_CONFIG_DIR").filter(|v| !v.is_empty()) {
        return absolute("ANIMUS_CONFIG_DIR", PathBuf::from(dir));
    }
    match std::env::var_os("HOME").filter(|v| !v.is_empty()) {
        Some(home) => Ok(absolute("HOME", PathBuf::from(home))?.join(".animus")),
        None => Err(RecordError::NoStateRoot),
    }
}

/// The session log for `session` in `project_root`, opened for appending (the id validated
/// first), and the path it was reached by, for messages.
///
/// Every step is checked, because the agent the log watches runs as the same user and can
/// plant files in the state directory:
///
/// - the state root ([`state_root`], created `0700` when missing) is opened once and must be a
///   directory owned by this user and writable by nobody else;
/// - `<repo-scope>` and `sessions` are reached from it with `openat(O_DIRECTORY|O_NOFOLLOW)`
///   (created `0700` when missing) and must be directories of the same kind: a symbolic link
///   planted at either is refused, never followed;
/// - the log is opened with `O_NOFOLLOW|O_NONBLOCK` (a link is refused; a FIFO cannot block)
///   and must be a regular file owned by this user, writable by nobody else, with no other
///   hard link (a link to `~/.bashrc` would make every record a line of shell).
///
/// Anything else is an error naming the path: a gate then denies, an observer stays silent.
///
/// The session's anchor (`<session>.anchor`, [`chain`]) is opened beside it, made first when
/// missing; it must be a regular file of this user's, writable by nobody else.
pub fn open_session_log(
    project_root: &Path,
    session: &str,
) -> Result<(SessionLog, PathBuf), RecordError> {
    validate_session_id(session)?;
    let root = state_root()?;
    let scope = repo_scope(project_root)?;
    let file_name = format!("{session}.jsonl");
    let path = root.join(&scope).join("sessions").join(&file_name);
    let root_dir = open_root(&root)?;
    let scope_dir = open_subdir(&root_dir, &root.join(&scope), &scope)?;
    let sessions = open_subdir(&scope_dir, &root.join(&scope).join("sessions"), "sessions")?;
    let file = open_log(&sessions, &path, &file_name)?;
    let anchor = open_anchor(&sessions, &path.with_extension("anchor"), session)?;
    Ok((SessionLog { file, anchor }, path))
}

/// The path of the log of `session` in `project_root` (nothing opened or created): what
/// `verify --session` and `log --session` read.
pub fn session_log_path(project_root: &Path, session: &str) -> Result<PathBuf, RecordError> {
    validate_session_id(session)?;
    Ok(state_root()?
        .join(repo_scope(project_root)?)
        .join("sessions")
        .join(format!("{session}.jsonl")))
}

/// An open session log and its anchor.
pub struct SessionLog {
    /// The log, opened to read (the chain's tip) and append.
    pub file: File,
    /// The anchor, opened to read.
    pub anchor: File,
}

/// The anchor of the log at `log`: `<session>.anchor` beside it.
pub fn anchor_path(log: &Path) -> PathBuf {
    log.with_extension("anchor")
}

/// Open the anchor `path` in `sessions`, making it first when missing: written whole to a
/// temporary name, then hard-linked into place (`linkat` fails when another hook made it
/// first, and that one is whole too), so a reader never sees a half-written anchor.
fn open_anchor(sessions: &File, path: &Path, session: &str) -> Result<File, RecordError> {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let c_name = c_string(&name, path)?;
    let flags = libc::O_RDONLY | libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC;
    let mut opened = openat(sessions, &c_name, flags, 0);
    if matches!(&opened, Err(e) if e.kind() == std::io::ErrorKind::NotFound) {
        make_anchor(sessions, path, &c_name, session)?;
        opened = openat(sessions, &c_name, flags, 0);
    }
    let anchor = opened.map_err(|e| refused_open(e, path, ""))?;
    let metadata = anchor
        .metadata()
        .map_err(RecordError::io("inspect", path))?;
    check_regular_and_owned(&metadata, path, "a session anchor is one")?;
    Ok(anchor)
}

/// Write a new anchor for `session` and link it into place as `c_name` (see [`open_anchor`]).
fn make_anchor(
    sessions: &File,
    path: &Path,
    c_name: &std::ffi::CStr,
    session: &str,
) -> Result<(), RecordError> {
    use std::io::{Read, Write};
    let mut nonce = [0u8; 16];
    File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut nonce))
        .map_err(RecordError::Nonce)?;
    let now = std::time::SystemTime::now();
    let text = format!(
        "{{\"created\":\"{}\",\"kind\":\"animus-session-anchor\",\"nonce\":\"{}\",\"session\":{},\"v\":1}}\n",
        crate::time::rfc3339_utc(now),
        hex(&nonce),
        serde_json::to_string(session).unwrap_or_default(),
    );
    let temp_name = format!(
        ".{session}.anchor.{}.{}.tmp",
        std::process::id(),
        hex(&nonce[..4])
    );
    let c_temp = c_string(&temp_name, path)?;
    let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC;
    let mut temp = openat(sessions, &c_temp, flags, 0o600)
        .map_err(RecordError::io("create the anchor", path))?;
    let written = temp.write_all(text.as_bytes());
    // SAFETY: valid directory descriptor and NUL-terminated names.
    let linked = written.is_ok()
        && unsafe {
            libc::linkat(
                sessions.as_raw_fd(),
                c_temp.as_ptr(),
                sessions.as_raw_fd(),
                c_name.as_ptr(),
                0,
            )
        } == 0;
    let link_error = std::io::Error::last_os_error();
    // SAFETY: as above.
    unsafe { libc::unlinkat(sessions.as_raw_fd(), c_temp.as_ptr(), 0) };
    written.map_err(RecordError::io("write the anchor", path))?;
    if !linked && link_error.kind() != std::io::ErrorKind::AlreadyExists {
        return Err(RecordError::io("create the anchor", path)(link_error));
    }
    Ok(())
}

/// Refuse `metadata` of `path` unless it is a regular file (else the error says `then`), this
/// user's and writable by nobody else.
fn check_regular_and_owned(
    metadata: &fs::Metadata,
    path: &Path,
    then: &'static str,
) -> Result<(), RecordError> {
    if let Some(what) = engine::ownership::not_a_regular_file(metadata) {
        return Err(RecordError::NotARegularFile {
            path: path.to_path_buf(),
            what,
            then,
        });
    }
    check_owned(metadata, path)
}

/// Refuse `metadata` of `path` unless it is this user's and writable by nobody else.
fn check_owned(metadata: &fs::Metadata, path: &Path) -> Result<(), RecordError> {
    Ok(engine::ownership::check_owner_and_mode(
        metadata, path, false,
    )?)
}

/// The error for an `openat` of `path` that failed with `e`: a symbolic link (`ELOOP`; `why`
/// completes the sentence) or a FIFO (`ENXIO`, from `O_NONBLOCK`) named as such.
fn refused_open(e: std::io::Error, path: &Path, why: &'static str) -> RecordError {
    match e.raw_os_error() {
        Some(libc::ELOOP) => RecordError::SymbolicLink {
            path: path.to_path_buf(),
            why,
        },
        Some(libc::ENXIO) => RecordError::NotRegular {
            path: path.to_path_buf(),
        },
        _ => RecordError::io("open", path)(e),
    }
}

/// Open the state root as a directory, creating it (and missing parents) `0700` first if it
/// is not there. The root itself may be a symbolic link the user made (`~/.animus` kept
/// elsewhere); what it leads to must be a directory this user owns, writable by nobody else.
fn open_root(root: &Path) -> Result<File, RecordError> {
    let open = || {
        OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECTORY | libc::O_CLOEXEC)
            .open(root)
    };
    let dir = match open() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(root)
                .map_err(RecordError::io("create", root))?;
            open()
        }
        other => other,
    }
    .map_err(RecordError::io("open the state directory", root))?;
    let metadata = dir.metadata().map_err(RecordError::io("inspect", root))?;
    check_owned(&metadata, root)?;
    Ok(dir)
}

/// `name` inside `parent`, opened as a directory without following a symbolic link, created
/// `0700` when missing; `path` is its full path, for messages.
fn open_subdir(parent: &File, path: &Path, name: &str) -> Result<File, RecordError> {
    let c_name = c_string(name, path)?;
    let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
    let mut fd = openat(parent, &c_name, flags, 0);
    if matches!(&fd, Err(e) if e.kind() == std::io::ErrorKind::NotFound) {
        // SAFETY: a valid directory descriptor and a NUL-terminated name.
        let made = unsafe { libc::mkdirat(parent.as_raw_fd(), c_name.as_ptr(), 0o700) };
        if made != 0 {
            let e = std::io::Error::last_os_error();
            // Another hook of the same session may have made it first.
            if e.kind() != std::io::ErrorKind::AlreadyExists {
                return Err(RecordError::io("create", path)(e));
            }
        }
        fd = openat(parent, &c_name, flags, 0);
    }
    let dir = fd.map_err(|e| match e.raw_os_error() {
        Some(libc::ELOOP) | Some(libc::ENOTDIR) => RecordError::NotADirectory {
            path: path.to_path_buf(),
        },
        _ => RecordError::io("open", path)(e),
    })?;
    let metadata = dir.metadata().map_err(RecordError::io("inspect", path))?;
    check_owned(&metadata, path)?;
    Ok(dir)
}

/// The log `name` in `sessions`, opened to append (created `0600`), checked as described at
/// [`open_session_log`].
fn open_log(sessions: &File, path: &Path, name: &str) -> Result<File, RecordError> {
    use std::os::unix::fs::MetadataExt;
    let c_name = c_string(name, path)?;
    // Read too: the chain's tip and a torn last line are read back ([`append_line`]).
    let flags = libc::O_RDWR
        | libc::O_APPEND
        | libc::O_CREAT
        | libc::O_NOFOLLOW
        | libc::O_NONBLOCK
        | libc::O_CLOEXEC;
    let log = openat(sessions, &c_name, flags, 0o600)
        .map_err(|e| refused_open(e, path, " (records would land wherever it points)"))?;
    let metadata = log.metadata().map_err(RecordError::io("inspect", path))?;
    check_regular_and_owned(&metadata, path, "refusing to write records to it")?;
    if metadata.nlink() != 1 {
        return Err(RecordError::HardLinks {
            path: path.to_path_buf(),
            links: metadata.nlink(),
        });
    }
    Ok(log)
}

fn c_string(name: &str, path: &Path) -> Result<std::ffi::CString, RecordError> {
    std::ffi::CString::new(name).map_err(|_| RecordError::NulInName {
        path: path.to_path_buf(),
    })
}

/// `openat(2)`, the descriptor owned.
fn openat(
    dir: &File,
    name: &std::ffi::CStr,
    flags: libc::c_int,
    mode: libc::mode_t,
) -> std::io::Result<File> {
    // SAFETY: a valid directory descriptor and a NUL-terminated name.
    let fd = unsafe { libc::openat(dir.as_raw_fd(), name.as_ptr(), flags, mode as libc::c_uint) };
    if fd < 0 {
        Err(std::io::Error::last_os_error())
    } else {
        // SAFETY: `openat` just returned this descriptor: it is open, and nothing else owns
        // it, so the File may close it.
        Ok(unsafe { File::from_raw_fd(fd) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repo_scope_shape() {
        let dir = std::env::temp_dir().join(format!("animus scope test.{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let scope = repo_scope(&dir).unwrap();
        let canonical = fs::canonicalize(&dir).unwrap();
        let digest = hex(&sha256(canonical.as_os_str().as_encoded_bytes()));
        assert_eq!(
            scope,
            format!("animus-scope-test.{}-{}", std::process::id(), &digest[..12])
        );
        assert!(repo_scope(Path::new("/nonexistent/animus/x")).is_err());
        let _ = fs::remove_dir_all(&dir);
    }
}
