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
//! is more than [`MAX_TORN_SCAN`] bytes back). The torn bytes are kept, as a line of their own.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use serde_json::Value;

use engine::session::validate_session_id;

use crate::sha256::{hex, sha256};

/// Longest string kept verbatim in a recorded payload; longer ones are cut and marked.
pub const MAX_RECORDED_STRING: usize = 2048;
/// Most array elements / object members kept per level of a recorded payload.
pub const MAX_RECORDED_ITEMS: usize = 200;
/// Deepest nesting kept in a recorded payload.
pub const MAX_RECORDED_DEPTH: usize = 16;

/// `<sanitized-repo-name>-<first 12 hex of sha256(canonical project path)>`.
pub fn repo_scope(project_root: &Path) -> Result<String, String> {
    let canonical = fs::canonicalize(project_root).map_err(|e| {
        format!(
            "cannot resolve project root `{}`: {e}",
            project_root.display()
        )
    })?;
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
pub fn state_root() -> Result<PathBuf, String> {
    // A relative root would resolve against whatever directory the harness runs the hook in.
    let absolute = |name: &str, dir: PathBuf| -> Result<PathBuf, String> {
        if dir.is_absolute() {
            Ok(dir)
        } else {
            Err(format!(
                "{name} is `{}`, not an absolute path",
                dir.display()
            ))
        }
    };
    if let Some(dir) = std::env::var_os("ANIMUS_CONFIG_DIR").filter(|v| !v.is_empty()) {
        return absolute("ANIMUS_CONFIG_DIR", PathBuf::from(dir));
    }
    match std::env::var_os("HOME").filter(|v| !v.is_empty()) {
        Some(home) => Ok(absolute("HOME", PathBuf::from(home))?.join(".animus")),
        None => Err("neither ANIMUS_CONFIG_DIR nor HOME is set".into()),
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
pub fn open_session_log(project_root: &Path, session: &str) -> Result<(File, PathBuf), String> {
    validate_session_id(session)?;
    let root = state_root()?;
    let scope = repo_scope(project_root)?;
    let file_name = format!("{session}.jsonl");
    let path = root.join(&scope).join("sessions").join(&file_name);
    let root_dir = open_root(&root)?;
    let scope_dir = open_subdir(&root_dir, &root.join(&scope), &scope)?;
    let sessions = open_subdir(&scope_dir, &root.join(&scope).join("sessions"), "sessions")?;
    let log = open_log(&sessions, &path, &file_name)?;
    Ok((log, path))
}

/// Refuse `metadata` of `path` unless it is this user's and writable by nobody else.
fn check_owned(metadata: &fs::Metadata, path: &Path) -> Result<(), String> {
    engine::ownership::check_owner_and_mode(metadata, path, false)
        .map_err(|e| format!("{e}; the session log is kept only where nobody else can change it"))
}

/// Open the state root as a directory, creating it (and missing parents) `0700` first if it
/// is not there. The root itself may be a symbolic link the user made (`~/.animus` kept
/// elsewhere); what it leads to must be a directory this user owns, writable by nobody else.
fn open_root(root: &Path) -> Result<File, String> {
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
                .map_err(|e| format!("cannot create `{}`: {e}", root.display()))?;
            open()
        }
        other => other,
    }
    .map_err(|e| format!("cannot open the state directory `{}`: {e}", root.display()))?;
    let metadata = dir
        .metadata()
        .map_err(|e| format!("cannot inspect `{}`: {e}", root.display()))?;
    check_owned(&metadata, root)?;
    Ok(dir)
}

/// `name` inside `parent`, opened as a directory without following a symbolic link, created
/// `0700` when missing; `path` is its full path, for messages.
fn open_subdir(parent: &File, path: &Path, name: &str) -> Result<File, String> {
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
                return Err(format!("cannot create `{}`: {e}", path.display()));
            }
        }
        fd = openat(parent, &c_name, flags, 0);
    }
    let dir = fd.map_err(|e| match e.raw_os_error() {
        Some(libc::ELOOP) | Some(libc::ENOTDIR) => format!(
            "`{}` is not a directory (a symbolic link or another file is in its place); \
             refusing to follow it",
            path.display()
        ),
        _ => format!("cannot open `{}`: {e}", path.display()),
    })?;
    let metadata = dir
        .metadata()
        .map_err(|e| format!("cannot inspect `{}`: {e}", path.display()))?;
    check_owned(&metadata, path)?;
    Ok(dir)
}

/// The log `name` in `sessions`, opened to append (created `0600`), checked as described at
/// [`open_session_log`].
fn open_log(sessions: &File, path: &Path, name: &str) -> Result<File, String> {
    use std::os::unix::fs::MetadataExt;
    let c_name = c_string(name, path)?;
    // Read too: the last byte tells a torn last line ([`append_line`]).
    let flags = libc::O_RDWR
        | libc::O_APPEND
        | libc::O_CREAT
        | libc::O_NOFOLLOW
        | libc::O_NONBLOCK
        | libc::O_CLOEXEC;
    let log = openat(sessions, &c_name, flags, 0o600).map_err(|e| match e.raw_os_error() {
        Some(libc::ELOOP) => format!(
            "`{}` is a symbolic link; refusing to follow it (records would land wherever it \
             points)",
            path.display()
        ),
        // O_NONBLOCK on a FIFO nobody reads.
        Some(libc::ENXIO) => format!("`{}` is not a regular file", path.display()),
        _ => format!("cannot open `{}`: {e}", path.display()),
    })?;
    let metadata = log
        .metadata()
        .map_err(|e| format!("cannot inspect `{}`: {e}", path.display()))?;
    if let Some(what) = engine::ownership::not_a_regular_file(&metadata) {
        return Err(format!(
            "`{}` is {what}, not a regular file; refusing to write records to it",
            path.display()
        ));
    }
    check_owned(&metadata, path)?;
    if metadata.nlink() != 1 {
        return Err(format!(
            "`{}` has {} hard links; a session log has exactly one (another name for it could \
             be any file of this user)",
            path.display(),
            metadata.nlink()
        ));
    }
    Ok(log)
}

fn c_string(name: &str, path: &Path) -> Result<std::ffi::CString, String> {
    std::ffi::CString::new(name)
        .map_err(|_| format!("`{}`: a name holds a NUL byte", path.display()))
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

/// Append one line (a serialized record: a JSON object ending in `}\n`) to the open session
/// log under an exclusive lock; `path` names it in messages. After a torn last line the record
/// starts on a fresh line and says where the torn one is (see the module's documentation).
pub fn append_line(mut file: File, path: &Path, line: &[u8]) -> Result<(), String> {
    file.lock()
        .map_err(|e| format!("cannot lock `{}`: {e}", path.display()))?;
    let torn = torn_last_line(&file)
        .map_err(|e| format!("cannot read the end of `{}`: {e}", path.display()))?;
    let out = match torn {
        None => std::borrow::Cow::Borrowed(line),
        Some(torn) => std::borrow::Cow::Owned(after_torn_line(line, torn)),
    };
    // One write of the whole line; `write_all` only loops on a short write, which the lock
    // keeps from interleaving with another process. Closing the file releases the lock.
    file.write_all(&out)
        .map_err(|e| format!("cannot write `{}`: {e}", path.display()))
}

/// How far back the start of a torn last line is looked for.
pub const MAX_TORN_SCAN: u64 = 1 << 20;

/// A last line without its newline: where it ends and, when found within [`MAX_TORN_SCAN`]
/// bytes, where it starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TornLine {
    pub ends_at: u64,
    pub starts_at: Option<u64>,
}

/// The torn last line of `file`, if its last byte is not a newline.
pub fn torn_last_line(file: &File) -> std::io::Result<Option<TornLine>> {
    use std::os::unix::fs::FileExt;
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(None);
    }
    let mut last = [0u8; 1];
    file.read_exact_at(&mut last, len - 1)?;
    if last[0] == b'\n' {
        return Ok(None);
    }
    let mut starts_at = None;
    let mut end = len;
    let mut chunk = vec![0u8; 64 * 1024];
    while end > 0 && len - end < MAX_TORN_SCAN {
        let start = end.saturating_sub(chunk.len() as u64);
        let buf = &mut chunk[..(end - start) as usize];
        file.read_exact_at(buf, start)?;
        if let Some(i) = buf.iter().rposition(|&b| b == b'\n') {
            starts_at = Some(start + i as u64 + 1);
            break;
        }
        end = start;
    }
    if end == 0 && starts_at.is_none() {
        starts_at = Some(0);
    }
    Ok(Some(TornLine {
        ends_at: len,
        starts_at,
    }))
}

/// `line` (`{…}\n`) written after a torn line: a newline first, and the `torn_line` member
/// added to the object.
pub fn after_torn_line(line: &[u8], torn: TornLine) -> Vec<u8> {
    let member = format!(
        "\"torn_line\":{{\"ends_at\":{},\"starts_at\":{}}}",
        torn.ends_at,
        torn.starts_at
            .map_or_else(|| "null".to_string(), |s| s.to_string())
    );
    let mut out = Vec::with_capacity(line.len() + member.len() + 2);
    out.push(b'\n');
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
        // Not an object: the record as it is, on its fresh line.
        (_, None) => out.extend_from_slice(line),
    }
    out
}

/// `value` bounded for the log: long strings cut, long arrays/objects shortened, deep nesting
/// elided, each cut marked in the copy. `None` when nothing needs cutting: the value is
/// recorded as it is, without a copy.
pub fn bounded_payload(value: &Value) -> Option<Value> {
    bound(value, 0)
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
        Value::Object(map) => {
            let copy = |n: usize| -> serde_json::Map<String, Value> {
                map.iter()
                    .take(n)
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect()
            };
            let mut out: Option<serde_json::Map<String, Value>> = None;
            for (i, (k, v)) in map.iter().take(MAX_RECORDED_ITEMS).enumerate() {
                match (bound(v, depth + 1), &mut out) {
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
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log_with(name: &str, content: &[u8]) -> (PathBuf, File) {
        let path = std::env::temp_dir().join(format!("animus-torn-{name}-{}", std::process::id()));
        fs::write(&path, content).unwrap();
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .open(&path)
            .unwrap();
        (path, file)
    }

    #[test]
    fn a_torn_last_line_is_kept_and_the_next_record_starts_fresh_and_reports_it() {
        let first = b"{\"a\":1,\"ts\":\"t1\"}\n";
        let mut content = first.to_vec();
        content.extend_from_slice(b"{\"a\":2,\"pay");
        let (path, file) = log_with("cut", &content);
        assert_eq!(
            torn_last_line(&file).unwrap(),
            Some(TornLine {
                ends_at: content.len() as u64,
                starts_at: Some(first.len() as u64)
            })
        );
        append_line(file, &path, b"{\"a\":3,\"ts\":\"t3\"}\n").unwrap();
        let text = fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 3, "{text}");
        assert_eq!(lines[1], "{\"a\":2,\"pay", "the torn line is kept whole");
        let record: Value = serde_json::from_str(lines[2]).unwrap();
        assert_eq!(record["a"], 3);
        assert_eq!(record["torn_line"]["ends_at"], content.len());
        assert_eq!(record["torn_line"]["starts_at"], first.len());
        assert!(lines[2].find("torn_line").unwrap() < lines[2].find("\"ts\"").unwrap());
        // The next record finds a whole last line and says nothing.
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .open(&path)
            .unwrap();
        assert_eq!(torn_last_line(&file).unwrap(), None);
        append_line(file, &path, b"{\"a\":4}\n").unwrap();
        let text = fs::read_to_string(&path).unwrap();
        assert!(text.ends_with("\"t3\"}\n{\"a\":4}\n"), "{text}");
        let _ = fs::remove_file(&path);
    }

    #[test]
    fn a_log_that_is_one_torn_line_or_empty() {
        let (path, file) = log_with("whole", b"garbage");
        assert_eq!(
            torn_last_line(&file).unwrap(),
            Some(TornLine {
                ends_at: 7,
                starts_at: Some(0)
            })
        );
        append_line(file, &path, b"{}\n").unwrap();
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            "garbage\n{\"torn_line\":{\"ends_at\":7,\"starts_at\":0}}\n"
        );
        let (path2, file) = log_with("empty", b"");
        assert_eq!(torn_last_line(&file).unwrap(), None);
        // A torn line longer than the scan: its start is unknown.
        let (path3, file) = log_with("long", &vec![b'x'; MAX_TORN_SCAN as usize + 70_000]);
        let torn = torn_last_line(&file).unwrap().unwrap();
        assert_eq!(torn.starts_at, None);
        assert!(
            String::from_utf8(after_torn_line(b"{\"a\":1}\n", torn))
                .unwrap()
                .contains("\"starts_at\":null")
        );
        for p in [path, path2, path3] {
            let _ = fs::remove_file(p);
        }
    }

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

    #[test]
    fn payload_bounds() {
        let long = "x".repeat(5000);
        let value = serde_json::json!({"tool_input": {"a": "kept", "content": long, "n": 1}, "list": (0..300).collect::<Vec<_>>(), "mixed": [1, "y".repeat(3000), 3]});
        let bounded = bounded_payload(&value).expect("cut");
        // Members before and after a cut one are kept as they are.
        assert_eq!(bounded["tool_input"]["a"], "kept");
        assert_eq!(bounded["tool_input"]["n"], 1);
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
        let content = bounded["tool_input"]["content"].as_str().unwrap();
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
            bounded_payload(&serde_json::json!({"a": ["b", 1, null]})),
            None
        );
        let deep =
            (0..MAX_RECORDED_DEPTH).fold(serde_json::json!("x"), |v, _| serde_json::json!([v]));
        assert_eq!(
            bounded_payload(&deep),
            None,
            "nesting up to the limit is kept"
        );
        let deeper = serde_json::json!([deep]);
        assert!(bounded_payload(&deeper).is_some(), "one level more is cut");
    }
}
