//! `animus-policy.stamp`: the compiler's word that the pair beside it is exactly what it wrote.
//!
//! Verifying a sidecar means hashing every byte of it (and, to bind it to its policy, every
//! byte of `animus-policy.json`): about 180 µs per megabyte on the development machine, which
//! at 10,000 rules is most of the hook's run time. The hook runs once per tool call, always on
//! the same pair of files, so the compiler hashes the pair once more after writing it and
//! records, in a third small file, the identity each file then had — device, inode, length,
//! modification time and **status-change time** — next to the two digests. A loader that finds
//! both files with exactly those identities, and the same digests in the sidecar's header,
//! skips both hashes; in every other case it hashes, as without a stamp.
//!
//! Why the identity is enough: any write to a file, any `truncate`, `chmod`, `touch` or
//! `utimes` sets its status-change time (`st_ctime`) to the current time, and no system call
//! lets a process set it back; a copy or a replacement has another inode. So a file whose
//! identity still equals the recorded one has not been changed since the compiler hashed it.
//! The one subtlety is clock granularity: file times come from a coarse clock (a few
//! milliseconds on Linux, up to seconds on some file systems), and a write within the same tick
//! as the compile would leave `st_ctime` unchanged. The compiler therefore writes the stamp
//! only after the file system's clock has moved past both files' `st_ctime`, hashing the files
//! again after that moment ("racy git" is the same problem, solved the same way). What the
//! stamp does not cover is a change made without a system call — bit rot below the file system
//! or raw writes to the block device — which is outside what a process can defend against.
//!
//! The stamp carries its own digest: a damaged stamp is ignored (the loader hashes), never
//! trusted. Whoever can write the stamp can write the policy itself, so on its own it adds no
//! trust beyond the directory's permissions.
//!
//! # The pin
//!
//! The stamp also records the SHA-256 of both files, and its own SHA-256 is what `inject` pins
//! in every gate command (`--policy-digest sha256:<hex>`, see [`pin_of`]): the one value an
//! agent cannot rewrite, because the harness holds it from launch. A stamp that hashes to the
//! pin is the compiler's own (forging one is a SHA-256 second preimage), so its identities are
//! trusted: while both files keep them, they are the bytes the compiler hashed, and the hook
//! hashes nothing. A file with another identity (copied over, replaced, touched) is hashed with
//! SHA-256 and compared with the stamp's digest; a stamp that does not hash to the pin is
//! refused. The xxh3 digests cannot serve here: an attacker can collide a non-cryptographic
//! hash on purpose.
//!
//! # Layout (version 2), little-endian
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! | 0   | 8  | magic `ANIMUSST` |
//! | 8   | 4  | stamp version (`1`) |
//! | 12  | 4  | sidecar format version it vouches for |
//! | 16  | 40 | sidecar identity: device, inode, length, mtime (ns), ctime (ns), `u64` each |
//! | 56  | 40 | `animus-policy.json` identity, same fields |
//! | 96  | 16 | the sidecar's file digest (as in its header) |
//! | 112 | 16 | the policy digest (xxh3-128 of the JSON, as in the sidecar's header) |
//! | 128 | 32 | SHA-256 of the whole sidecar file |
//! | 160 | 32 | SHA-256 of `animus-policy.json` |
//! | 192 | 16 | xxh3-128 of bytes 0..192 |
//!
//! Identities are all zero when the compiler could not vouch for the files (the file system's
//! clock did not tick): such a stamp never spares a hash, but still carries the digests a pin
//! checks.

use std::path::{Path, PathBuf};

use super::format::FORMAT_VERSION;

/// The first eight bytes of a stamp.
pub const STAMP_MAGIC: [u8; 8] = *b"ANIMUSST";
/// The stamp layout version.
pub const STAMP_VERSION: u32 = 2;
/// A stamp's exact length.
pub const STAMP_LEN: usize = 208;
/// Where the stamp's own digest starts (it covers every byte before).
const OWN_DIGEST: usize = 192;
/// The prefix of a pinned digest in a gate's `--policy-digest`.
pub const PIN_PREFIX: &str = "sha256:";
/// The stamp file name extension (`animus-policy.json` → `animus-policy.stamp`).
pub const STAMP_EXTENSION: &str = "stamp";

/// Where the stamp of `policy_path` lives.
pub fn stamp_path_for(policy_path: &Path) -> PathBuf {
    policy_path.with_extension(STAMP_EXTENSION)
}

/// What the file system says identifies one state of a file. All-zero means "unknown" and
/// never matches (no file has inode 0).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FileIdentity {
    /// `st_dev`.
    pub device: u64,
    /// `st_ino`.
    pub inode: u64,
    /// `st_size`.
    pub len: u64,
    /// `st_mtime` in nanoseconds since the epoch.
    pub modified_ns: u64,
    /// `st_ctime` in nanoseconds since the epoch: set by the kernel on every change.
    pub changed_ns: u64,
}

impl FileIdentity {
    /// The identity in `metadata`.
    #[cfg(unix)]
    pub fn of(metadata: &std::fs::Metadata) -> FileIdentity {
        use std::os::unix::fs::MetadataExt;
        let ns = |secs: i64, nanos: i64| {
            (secs as u64)
                .wrapping_mul(1_000_000_000)
                .wrapping_add(nanos as u64)
        };
        FileIdentity {
            device: metadata.dev(),
            inode: metadata.ino(),
            len: metadata.len(),
            modified_ns: ns(metadata.mtime(), metadata.mtime_nsec()),
            changed_ns: ns(metadata.ctime(), metadata.ctime_nsec()),
        }
    }

    /// Elsewhere than Unix there is no status-change time: no identity, so loads always hash.
    #[cfg(not(unix))]
    pub fn of(_metadata: &std::fs::Metadata) -> FileIdentity {
        FileIdentity::default()
    }

    /// No identity is known.
    pub fn is_none(&self) -> bool {
        *self == FileIdentity::default()
    }

    fn words(&self) -> [u64; 5] {
        [
            self.device,
            self.inode,
            self.len,
            self.modified_ns,
            self.changed_ns,
        ]
    }

    fn from_words(words: [u64; 5]) -> FileIdentity {
        let [device, inode, len, modified_ns, changed_ns] = words;
        FileIdentity {
            device,
            inode,
            len,
            modified_ns,
            changed_ns,
        }
    }
}

/// The compiler's record of a sidecar and its policy as it left them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    /// The sidecar file's identity.
    pub sidecar: FileIdentity,
    /// `animus-policy.json`'s identity.
    pub policy: FileIdentity,
    /// The sidecar's file digest (header offset 16).
    pub sidecar_digest: [u8; 16],
    /// The policy digest (xxh3-128 of the JSON's bytes).
    pub policy_digest: [u8; 16],
    /// SHA-256 of the sidecar's bytes.
    pub sidecar_sha256: [u8; 32],
    /// SHA-256 of the JSON's bytes.
    pub policy_sha256: [u8; 32],
}

impl Stamp {
    /// The stamp's bytes.
    pub fn encode(&self) -> [u8; STAMP_LEN] {
        let mut out = [0u8; STAMP_LEN];
        out[0..8].copy_from_slice(&STAMP_MAGIC);
        out[8..12].copy_from_slice(&STAMP_VERSION.to_le_bytes());
        out[12..16].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
        for (i, word) in self
            .sidecar
            .words()
            .into_iter()
            .chain(self.policy.words())
            .enumerate()
        {
            out[16 + 8 * i..24 + 8 * i].copy_from_slice(&word.to_le_bytes());
        }
        out[96..112].copy_from_slice(&self.sidecar_digest);
        out[112..128].copy_from_slice(&self.policy_digest);
        out[128..160].copy_from_slice(&self.sidecar_sha256);
        out[160..192].copy_from_slice(&self.policy_sha256);
        let own = super::digest(&out[..OWN_DIGEST]);
        out[OWN_DIGEST..STAMP_LEN].copy_from_slice(&own);
        out
    }

    /// Read a stamp back; `None` for anything that is not an intact stamp of this version for
    /// this sidecar format (the loader then hashes, so `None` is always safe).
    pub fn decode(bytes: &[u8]) -> Option<Stamp> {
        if bytes.len() != STAMP_LEN
            || bytes[0..8] != STAMP_MAGIC
            || super::digest(&bytes[..OWN_DIGEST]) != bytes[OWN_DIGEST..STAMP_LEN]
        {
            return None;
        }
        let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap_or([0; 4]));
        if u32_at(8) != STAMP_VERSION || u32_at(12) != FORMAT_VERSION {
            return None;
        }
        let identity = |at: usize| {
            let mut words = [0u64; 5];
            for (i, word) in words.iter_mut().enumerate() {
                let start = at + 8 * i;
                *word = u64::from_le_bytes(bytes[start..start + 8].try_into().unwrap_or([0; 8]));
            }
            FileIdentity::from_words(words)
        };
        let digest_at =
            |at: usize| -> [u8; 16] { bytes[at..at + 16].try_into().unwrap_or([0; 16]) };
        let sha_at = |at: usize| -> [u8; 32] { bytes[at..at + 32].try_into().unwrap_or([0; 32]) };
        Some(Stamp {
            sidecar: identity(16),
            policy: identity(56),
            sidecar_digest: digest_at(96),
            policy_digest: digest_at(112),
            sidecar_sha256: sha_at(128),
            policy_sha256: sha_at(160),
        })
    }

    /// Read the stamp at `path`: `None` if there is none or it is not intact.
    pub fn read(path: &Path) -> Option<Stamp> {
        Stamp::read_from(std::fs::File::open(path).ok()?)
    }

    /// Read the stamp from an open `file`: `None` if it is not intact.
    pub fn read_from(file: std::fs::File) -> Option<Stamp> {
        Stamp::decode(&read_stamp_bytes(file).ok()?)
    }

    /// Does this stamp vouch for files that have exactly these identities now?
    pub fn vouches_for(&self, sidecar: &FileIdentity, policy: &FileIdentity) -> bool {
        !sidecar.is_none()
            && !policy.is_none()
            && self.sidecar == *sidecar
            && self.policy == *policy
    }
}

/// A stamp file's bytes: at most one byte more than a stamp (a longer file is not a stamp).
pub fn read_stamp_bytes(file: std::fs::File) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::with_capacity(STAMP_LEN + 1);
    file.take(STAMP_LEN as u64 + 1).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// The pin of the policy at `policy_path`: `sha256:<hex>` of its stamp's exact bytes, as
/// `inject` writes it into every gate command (`--policy-digest`).
pub fn pin_of(policy_path: &Path) -> std::io::Result<String> {
    let bytes = read_stamp_bytes(std::fs::File::open(stamp_path_for(policy_path))?)?;
    if Stamp::decode(&bytes).is_none() {
        return Err(std::io::Error::other(format!(
            "`{}` is not an intact policy stamp",
            stamp_path_for(policy_path).display()
        )));
    }
    Ok(format!(
        "{PIN_PREFIX}{}",
        crate::sha256::hex(&crate::sha256::sha256(&bytes))
    ))
}

/// Why a `--policy-digest` is not a pin.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PinError {
    #[error("`--policy-digest` must start with `{PIN_PREFIX}` (the form `inject` writes)")]
    Prefix,
    #[error("`--policy-digest` must be `sha256:` and 64 hex digits")]
    Digits,
}

/// Read a pin (`sha256:<64 hex digits>`) back into its digest.
pub fn parse_pin(text: &str) -> Result<[u8; 32], PinError> {
    let hex = text.strip_prefix(PIN_PREFIX).ok_or(PinError::Prefix)?;
    let mut out = [0u8; 32];
    if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(PinError::Digits);
    }
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).map_err(|_| PinError::Digits)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Stamp {
        let id = |base: u64| FileIdentity {
            device: base,
            inode: base + 1,
            len: base + 2,
            modified_ns: base + 3,
            changed_ns: base + 4,
        };
        Stamp {
            sidecar: id(10),
            policy: id(20),
            sidecar_digest: [7; 16],
            policy_digest: [9; 16],
            sidecar_sha256: [3; 32],
            policy_sha256: [5; 32],
        }
    }

    #[test]
    fn a_stamp_round_trips_and_any_damage_voids_it() {
        let stamp = sample();
        let bytes = stamp.encode();
        assert_eq!(Stamp::decode(&bytes), Some(stamp));
        for at in 0..bytes.len() {
            let mut damaged = bytes;
            damaged[at] ^= 0x10;
            assert_eq!(Stamp::decode(&damaged), None, "byte {at}");
        }
        for len in 0..bytes.len() {
            assert_eq!(Stamp::decode(&bytes[..len]), None, "length {len}");
        }
        let mut longer = bytes.to_vec();
        longer.push(0);
        assert_eq!(Stamp::decode(&longer), None);
    }

    #[test]
    fn only_the_exact_identities_are_vouched_for() {
        let stamp = sample();
        assert!(stamp.vouches_for(&stamp.sidecar, &stamp.policy));
        let mut later = stamp.sidecar;
        later.changed_ns += 1;
        assert!(!stamp.vouches_for(&later, &stamp.policy));
        assert!(!stamp.vouches_for(&stamp.policy, &stamp.sidecar));
        let none = Stamp {
            sidecar: FileIdentity::default(),
            policy: FileIdentity::default(),
            ..stamp
        };
        assert!(!none.vouches_for(&FileIdentity::default(), &FileIdentity::default()));
    }

    #[test]
    fn a_pin_reads_back_only_in_its_one_form() {
        let hex = "ab".repeat(32);
        assert_eq!(parse_pin(&format!("sha256:{hex}")), Ok([0xab; 32]));
        for bad in [
            hex.clone(),
            format!("sha256:{}", &hex[1..]),
            format!("sha1:{hex}"),
            format!("sha256:{}x", &hex[1..]),
            format!("sha256:{hex}00"),
        ] {
            assert!(parse_pin(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_stamp_sits_beside_the_policy() {
        assert_eq!(
            stamp_path_for(Path::new("/x/animus-policy.json")),
            PathBuf::from("/x/animus-policy.stamp")
        );
    }
}
