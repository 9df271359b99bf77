//! Writing artifacts atomically: temp file in the same directory, fsync, rename, fsync the
//! directory. A reader (the hook) sees either the old file or the new one, never a torn one,
//! and a failed compile leaves the previous artifact untouched.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// The compiled policy's file name inside an output directory.
pub const POLICY_FILE_NAME: &str = "animus-policy.json";

/// A file written and synced under a temporary name beside its destination, not yet visible
/// there. [`commit`](Staged::commit) renames it into place; dropping it removes it.
pub struct Staged {
    tmp: PathBuf,
    dest: PathBuf,
    committed: bool,
}

impl Staged {
    /// Write and fsync `bytes` under a temporary name beside `dest`.
    pub fn write(dest: &Path, bytes: &[u8]) -> io::Result<Staged> {
        let dir = parent_dir(dest);
        let name = dest
            .file_name()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?;
        let tmp = dir.join(format!(
            ".{}.{}.tmp",
            name.to_string_lossy(),
            std::process::id()
        ));
        let staged = Staged {
            tmp,
            dest: dest.to_path_buf(),
            committed: false,
        };
        let mut file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&staged.tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        Ok(staged)
    }

    /// The file's metadata as it will be after the rename (a rename keeps inode and times).
    pub fn metadata(&self) -> io::Result<fs::Metadata> {
        fs::metadata(&self.tmp)
    }

    /// Rename into place and make the rename durable.
    pub fn commit(mut self) -> io::Result<()> {
        fs::rename(&self.tmp, &self.dest)?;
        self.committed = true;
        File::open(parent_dir(&self.dest))?.sync_all()
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

fn parent_dir(path: &Path) -> &Path {
    path.parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
}

/// Atomically replace `path` with `bytes`.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    Staged::write(path, bytes)?.commit()
}
