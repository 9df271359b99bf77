//! Who may change a file the guard trusts: the one definition the hook's policy loader, its
//! session log and `inject`'s session directory share.
//!
//! The agent the guard watches runs as the same user, so ownership cannot keep it out (the
//! built-in self-protection rules do that); these checks keep out everyone else: a file or
//! directory another user owns, or one its group or others may write, could be replaced under
//! the guard by someone the user never trusted.

use std::fs::Metadata;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// This process's effective user id, asked of the kernel once: nothing here changes it, and
/// every file the hook opens is checked against it (eight `geteuid`s an emit before).
pub fn effective_uid() -> u32 {
    static EUID: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    // SAFETY: geteuid has no preconditions and cannot fail.
    *EUID.get_or_init(|| unsafe { libc::geteuid() })
}

/// What `metadata` describes when it is not a regular file (`"a FIFO"`, `"a device"`, …);
/// `None` for a regular file. A FIFO or device in place of a file the guard reads or writes
/// would block it or swallow what it writes.
pub fn not_a_regular_file(metadata: &Metadata) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    let kind = metadata.file_type();
    if kind.is_file() {
        None
    } else if kind.is_fifo() {
        Some("a FIFO")
    } else if kind.is_char_device() || kind.is_block_device() {
        Some("a device")
    } else if kind.is_dir() {
        Some("a directory")
    } else if kind.is_socket() {
        Some("a socket")
    } else {
        Some("not a regular file")
    }
}

/// Who besides the owner may write a file of this `mode`: `Some("others")`,
/// `Some("its group")`, or `None`.
pub fn writable_by_others(mode: u32) -> Option<&'static str> {
    if mode & 0o002 != 0 {
        Some("others")
    } else if mode & 0o020 != 0 {
        Some("its group")
    } else {
        None
    }
}

/// Refuse `metadata` of `path` unless its owner is this user (or root, when `root_too`) and
/// neither its group nor others may write it. The error names the path, the fault and the fix.
pub fn check_owner_and_mode(
    metadata: &Metadata,
    path: &Path,
    root_too: bool,
) -> Result<(), OwnershipError> {
    let euid = effective_uid();
    let owner = metadata.uid();
    if owner != euid && !(root_too && owner == 0) {
        return Err(OwnershipError::NotOwned {
            path: path.to_path_buf(),
            owner,
            euid,
            root_too,
        });
    }
    if let Some(who) = writable_by_others(metadata.mode()) {
        return Err(OwnershipError::WritableByOthers {
            path: path.to_path_buf(),
            who,
            mode: metadata.mode() & 0o7777,
        });
    }
    Ok(())
}

/// Why [`check_owner_and_mode`] refused a file: the path, the fault and the fix.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OwnershipError {
    /// Someone else's file.
    #[error(
        "`{}` is owned by uid {owner}, not by this user (uid {euid}){}",
        .path.display(),
        if *.root_too { " nor root" } else { "" }
    )]
    NotOwned {
        /// The file.
        path: std::path::PathBuf,
        /// Its owner.
        owner: u32,
        /// This process's effective uid.
        euid: u32,
        /// Whether root's files were accepted too.
        root_too: bool,
    },
    /// A file group or others may write.
    #[error("`{}` is writable by {who} (mode {mode:o}); run `chmod go-w` on it", .path.display())]
    WritableByOthers {
        /// The file.
        path: std::path::PathBuf,
        /// Who may write it (`its group`, `others`, …).
        who: &'static str,
        /// Its permission bits.
        mode: u32,
    },
}
