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
        // Readable by all, writable by the owner alone, whatever the umask: the hook refuses a
        // policy file its group or others could rewrite (a `002` umask would otherwise make
        // every compiled policy unusable).
        file.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(0o644))?;
        file.write_all(bytes)?;
        file.sync_all()?;
        Ok(staged)
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

/// After `sidecar_bytes` and `policy_bytes` have been written and renamed into place at
/// `sidecar` and `policy`, write the stamp that lets the hook skip hashing them
/// (`engine::sidecar::stamp` explains why the files' identity is enough). The stamp carries the
/// two digests the sidecar's header records.
///
/// The stamp is written only once the file system's clock has moved past both files'
/// status-change times, and only if the files read back *after* that moment are exactly the
/// bytes written, so a write that lands in the same clock tick as the compile can never hide
/// behind an unchanged `st_ctime`. When the clock does not move within [`STAMP_CLOCK_WAIT`] or
/// the files change under us, the stamp records no identities (the hook then hashes both files
/// on every load) and this returns `Ok(false)`. Either way it records both files' SHA-256,
/// which a gate's pin (`--policy-digest`, [`engine::sidecar::stamp::pin_of`]) checks.
pub fn write_stamp(
    policy: &Path,
    policy_bytes: &[u8],
    sidecar: &Path,
    sidecar_bytes: &[u8],
) -> io::Result<bool> {
    use engine::sha256::sha256;
    use engine::sidecar::{FileIdentity, Stamp, recorded_digests, stamp_path_for};
    let (sidecar_digest, policy_digest) = recorded_digests(sidecar_bytes)
        .ok_or_else(|| io::Error::other("the sidecar is too short to hold a header"))?;
    let stamp_path = stamp_path_for(policy);
    // A stamp from an earlier compile vouches for files that no longer exist, so it is
    // harmless; removing it first keeps a failed stamp from leaving a misleading file.
    match fs::remove_file(&stamp_path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    // Without identities a stamp never spares a hash, but it still carries the SHA-256 of
    // both files, which a gate's pin checks.
    let mut stamp = Stamp {
        sidecar: FileIdentity::default(),
        policy: FileIdentity::default(),
        sidecar_digest,
        policy_digest,
        sidecar_sha256: sha256(sidecar_bytes),
        policy_sha256: sha256(policy_bytes),
    };
    let vouched = identities_after_the_tick(policy, policy_bytes, sidecar, sidecar_bytes)?;
    if let Some((sidecar_identity, policy_identity)) = vouched {
        stamp.sidecar = sidecar_identity;
        stamp.policy = policy_identity;
    }
    write_atomic(&stamp_path, &stamp.encode())?;
    Ok(vouched.is_some())
}

/// The identities of the two files once the file system's clock has moved past both their
/// status-change times, if they then still hold exactly the bytes written (`None` otherwise).
fn identities_after_the_tick(
    policy: &Path,
    policy_bytes: &[u8],
    sidecar: &Path,
    sidecar_bytes: &[u8],
) -> io::Result<Option<(engine::sidecar::FileIdentity, engine::sidecar::FileIdentity)>> {
    use engine::sidecar::FileIdentity;
    let mut sidecar_file = File::open(sidecar)?;
    let mut policy_file = File::open(policy)?;
    let before = (
        FileIdentity::of(&sidecar_file.metadata()?),
        FileIdentity::of(&policy_file.metadata()?),
    );
    if before.0.is_none() || before.1.is_none() {
        return Ok(None);
    }
    let latest = before.0.changed_ns.max(before.1.changed_ns);
    if !clock_passes(parent_dir(policy), latest)? {
        return Ok(None);
    }
    // Read both back after the tick: these are the bytes the stamp vouches for.
    let read_all = |file: &mut File| -> io::Result<Vec<u8>> {
        let mut bytes = Vec::new();
        io::Read::read_to_end(file, &mut bytes)?;
        Ok(bytes)
    };
    let intact = read_all(&mut sidecar_file)? == sidecar_bytes
        && read_all(&mut policy_file)? == policy_bytes;
    let after = (
        FileIdentity::of(&sidecar_file.metadata()?),
        FileIdentity::of(&policy_file.metadata()?),
    );
    Ok((intact && after == before).then_some(after))
}

/// How long [`write_stamp`] waits for the file system's clock to tick (file systems with
/// one- or two-second timestamps need up to that).
pub const STAMP_CLOCK_WAIT: std::time::Duration = std::time::Duration::from_millis(2_500);

/// Wait until a file created in `dir` gets a status-change time later than `after_ns`: the
/// file system's own clock, which may be coarser than the system clock.
fn clock_passes(dir: &Path, after_ns: u64) -> io::Result<bool> {
    let probe = dir.join(format!(".animus-clock.{}.tmp", std::process::id()));
    let started = std::time::Instant::now();
    let result = loop {
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&probe)?;
        let now = engine::sidecar::FileIdentity::of(&file.metadata()?).changed_ns;
        drop(file);
        fs::remove_file(&probe)?;
        if now > after_ns {
            break true;
        }
        if started.elapsed() > STAMP_CLOCK_WAIT {
            break false;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    };
    Ok(result)
}
