//! Writing a settings file the way `install` and `uninstall` must: through a dotfiles
//! symlink, atomically, with the file's own mode, after a byte-exact backup, and only once the
//! directory is known to take a new file.

use std::path::{Path, PathBuf};

/// Why a settings file (or its backup) could not be written; each names the file and the fault.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    /// A symbolic link whose target cannot be resolved.
    #[error("`{}` is a link that cannot be followed: {source}", .settings.display())]
    UnfollowableLink {
        /// The settings file.
        settings: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The file's directory cannot be created.
    #[error(
        "cannot write `{}`: cannot create `{}`: {source}",
        .settings.display(),
        .dir.display()
    )]
    NoDirectory {
        /// The settings file.
        settings: PathBuf,
        /// Its directory.
        dir: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The directory refuses a new file (the atomic write needs one beside it).
    #[error("cannot write `{}`: its directory takes no new file: {source}", .settings.display())]
    DirectoryRefuses {
        /// The settings file.
        settings: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// Writing (or opening for writing) the file failed.
    #[error("cannot write `{}`: {source}", .settings.display())]
    Write {
        /// The settings file.
        settings: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The file to back up cannot be read.
    #[error("cannot read `{}` to back it up: {source}", .settings.display())]
    ReadForBackup {
        /// The settings file.
        settings: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The backup cannot be written.
    #[error("cannot write the backup `{}`: {source}", .backup.display())]
    WriteBackup {
        /// The backup's path.
        backup: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// Every backup name for this stamp is taken.
    #[error("cannot name a backup of `{}`", .settings.display())]
    NoBackupName {
        /// The settings file.
        settings: PathBuf,
    },
}

/// The path a write to `settings` replaces: the link's target when `settings` is a symbolic
/// link (a dotfiles checkout keeps its link), else `settings`.
pub fn write_target(settings: &Path) -> Result<PathBuf, WriteError> {
    match std::fs::symlink_metadata(settings) {
        Ok(m) if m.file_type().is_symlink() => {
            std::fs::canonicalize(settings).map_err(|source| WriteError::UnfollowableLink {
                settings: settings.to_path_buf(),
                source,
            })
        }
        _ => Ok(settings.to_path_buf()),
    }
}

/// Refuse early, changing nothing, when `settings` cannot be replaced: its directory must take
/// a new file (created and removed here), and an existing file must open for writing.
pub fn check_writable(settings: &Path) -> Result<(), WriteError> {
    let target = write_target(settings)?;
    let dir = target.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|source| WriteError::NoDirectory {
        settings: settings.to_path_buf(),
        dir: dir.to_path_buf(),
        source,
    })?;
    let probe = dir.join(format!(".animus-install-probe.{}", std::process::id()));
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
        .map_err(|source| WriteError::DirectoryRefuses {
            settings: settings.to_path_buf(),
            source,
        })?;
    let _ = std::fs::remove_file(&probe);
    if target.exists() {
        std::fs::OpenOptions::new()
            .write(true)
            .open(&target)
            .map_err(|source| WriteError::Write {
                settings: settings.to_path_buf(),
                source,
            })?;
    }
    Ok(())
}

/// Replace `settings` with `text` atomically: a temporary file beside it (same mode as the file
/// it replaces, `0600` for a new one), synced, renamed over it, the directory synced.
pub fn write_settings(settings: &Path, text: &str) -> Result<(), WriteError> {
    use std::io::Write;
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let target = write_target(settings)?;
    let dir = target.parent().unwrap_or(Path::new("."));
    let mode = std::fs::metadata(&target)
        .map(|m| m.permissions().mode() & 0o7777)
        .unwrap_or(0o600);
    let name = target.file_name().unwrap_or_default().to_string_lossy();
    let tmp = dir.join(format!(".{name}.animus-{}.tmp", std::process::id()));
    let error = |source| WriteError::Write {
        settings: settings.to_path_buf(),
        source,
    };
    let result = (|| -> std::io::Result<()> {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&tmp)?;
        file.set_permissions(std::fs::Permissions::from_mode(mode))?;
        file.write_all(text.as_bytes())?;
        file.sync_all()?;
        std::fs::rename(&tmp, &target)?;
        std::fs::File::open(dir)?.sync_all()
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(error)
}

/// Copy `settings`' exact bytes (and mode) to `<settings>.animus-backup-<stamp>`, never over an
/// existing file. Returns the backup's path.
pub fn backup(settings: &Path, stamp: &str) -> Result<PathBuf, WriteError> {
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let target = write_target(settings)?;
    let bytes = std::fs::read(&target).map_err(|source| WriteError::ReadForBackup {
        settings: settings.to_path_buf(),
        source,
    })?;
    let mode = std::fs::metadata(&target)
        .map(|m| m.permissions().mode() & 0o777)
        .unwrap_or(0o600);
    let name = settings.file_name().unwrap_or_default().to_string_lossy();
    for n in 0..100 {
        let suffix = if n == 0 {
            String::new()
        } else {
            format!("-{n}")
        };
        let path = settings.with_file_name(format!("{name}.animus-backup-{stamp}{suffix}"));
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .open(&path);
        match file {
            Ok(mut file) => {
                use std::io::Write;
                file.write_all(&bytes)
                    .and_then(|()| file.sync_all())
                    .map_err(|source| WriteError::WriteBackup {
                        backup: path.clone(),
                        source,
                    })?;
                let _ = std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode));
                return Ok(path);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(source) => {
                return Err(WriteError::WriteBackup {
                    backup: path,
                    source,
                });
            }
        }
    }
    Err(WriteError::NoBackupName {
        settings: settings.to_path_buf(),
    })
}
