//! Loading a sidecar: map it, check the header, verify the digests, check every section's
//! bounds. Each failure is a distinct [`LoadError`] whose message names the cause and the fix;
//! nothing here panics or trusts a byte before the file digest vouched for it.

use std::fmt;
use std::fs::File;
use std::path::{Path, PathBuf};

use super::format::{
    ENDIANNESS_MARKER, FORMAT_VERSION, HEADER_LEN, MAGIC, REGEX_AUTOMATA_VERSION, SECTION_COUNT,
    Section, header,
};
use super::stamp::{FileIdentity, Stamp};

/// How the loader proves a sidecar is intact and belongs to its `animus-policy.json`.
pub(crate) struct PolicyBinding<'a> {
    /// The JSON's exact bytes.
    pub json: &'a [u8],
    /// The compiler's stamp, when it vouches for the very files these bytes were read from
    /// ([`Stamp::vouches_for`]): if its digests are the header's, neither file is hashed.
    pub stamp: Option<Stamp>,
}

/// How a loaded sidecar's integrity was established.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verification {
    /// Both files still have the identity the compiler recorded after hashing them
    /// (`animus-policy.stamp`, see [`crate::sidecar::stamp`]).
    Stamp,
    /// Every byte of the sidecar and of the JSON was hashed and compared.
    Digest,
}

/// Why a compiled policy could not be loaded. The hook turns every one of these into a deny
/// whose reason is this error's `Display`, which names the cause and the fix.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// `animus-policy.json` could not be read.
    #[error("cannot read policy `{}`: {error}", .path.display())]
    PolicyUnreadable {
        /// The policy path.
        path: PathBuf,
        /// The OS error.
        #[source]
        error: std::io::Error,
    },
    /// There is no sidecar beside the policy.
    #[error("compiled sidecar `{}` is missing; {RECOMPILE}", .path.display())]
    SidecarMissing {
        /// Where it was expected.
        path: PathBuf,
    },
    /// The sidecar exists but could not be opened or mapped.
    #[error("cannot read sidecar `{}`: {error}", .path.display())]
    SidecarUnreadable {
        /// The sidecar path.
        path: PathBuf,
        /// The OS error.
        #[source]
        error: std::io::Error,
    },
    /// The file does not start with the sidecar magic.
    #[error(
        "sidecar does not start with the `ANIMUSSC` magic: not an animus-hook sidecar; {RECOMPILE}"
    )]
    NotASidecar,
    /// A sidecar of a format version this engine does not read.
    #[error(
        "sidecar format version {found} is not supported (this animus-hook reads version \
         {FORMAT_VERSION}); {RECOMPILE} with this animus-hook"
    )]
    UnsupportedFormat {
        /// The file's format version.
        found: u32,
    },
    /// The file is shorter than its header says.
    #[error("sidecar is truncated: {found} bytes, expected {expected}; {RECOMPILE}")]
    Truncated {
        /// The length the header records (or the header's own length).
        expected: u64,
        /// The actual length.
        found: u64,
    },
    /// The file digest does not match: the bytes are not the ones the compiler wrote.
    #[error("sidecar is corrupt: its digest does not match its contents; {RECOMPILE}")]
    Corrupt,
    /// The sidecar was written on a host of the other byte order.
    #[error("sidecar was written for a host of a different byte order; {RECOMPILE} on this host")]
    WrongEndianness,
    /// The DFAs were serialized by another regex-automata version.
    #[error(
        "sidecar automata were serialized by regex-automata {found}, this animus-hook uses \
         {REGEX_AUTOMATA_VERSION}; {RECOMPILE} with this animus-hook"
    )]
    RegexAutomataMismatch {
        /// The version recorded in the sidecar.
        found: String,
    },
    /// The sidecar was compiled from a different `animus-policy.json` than the one beside it.
    #[error(
        "sidecar is stale: it was compiled from a different animus-policy.json than the one \
         beside it (policy digest mismatch); {RECOMPILE}"
    )]
    Stale,
    /// `animus-policy.json` is not the one the sidecar was compiled from, and is not even valid
    /// JSON: it was damaged after compiling.
    #[error(
        "animus-policy.json is damaged: it is not valid JSON ({error}) and not the policy its \
         sidecar was compiled from; {RECOMPILE}"
    )]
    PolicyDamaged {
        /// The JSON parser's error (line and column).
        error: String,
    },
    /// The digest matched but the tables are inconsistent (a forged or mis-built file).
    #[error("sidecar is malformed: {what}; {RECOMPILE}")]
    Malformed {
        /// What is inconsistent.
        what: String,
    },
    /// The sidecar or the policy changed (size or times) between loading and deciding: the
    /// decision read bytes that were not the verified ones.
    #[error(
        "`{}` was changed in place while this call was decided; compile with `animus-hook \
         compile` (it replaces the files by rename) instead of copying over them",
        .path.display()
    )]
    ChangedWhileReading {
        /// The file.
        path: PathBuf,
    },
    /// The gate pins the policy (`--policy-digest`), and the files beside it are not the ones
    /// pinned: another policy was copied over the session's, or one of them was edited.
    #[error("the policy is not the one this session pinned: {what}; {RELAUNCH}")]
    PinMismatch {
        /// Which file differs, and how.
        what: String,
    },
    /// The policy, its sidecar or its stamp is not a file the hook may trust: not a regular
    /// file (a FIFO, a device, a directory), owned by neither this user nor root, or writable
    /// by its group or by others. Refused before a byte of it is read.
    #[error("refusing to read `{}`: {why}", .path.display())]
    Untrusted {
        /// The file.
        path: PathBuf,
        /// Why, and the fix.
        why: String,
    },
}

/// The fix a pin mismatch names: a session's policy is fixed when it is launched.
const RELAUNCH: &str = "a session's policy cannot change while it runs: run `animus-hook \
                        inject` again and launch a new session to use another policy";

/// The fix every load error but a few names.
const RECOMPILE: &str = "run `animus-hook compile` again";

/// Why [`open_trusted`] did not hand back a file.
pub(crate) enum OpenFault {
    /// The OS refused the open or the `fstat` (missing, unreadable, …).
    Io(std::io::Error),
    /// It opened, but it is not a file the hook may trust: see [`LoadError::Untrusted`].
    Untrusted(LoadError),
}

/// Open one of a policy's three files for reading and check it before a byte is read: a
/// regular file (the open does not block, so a FIFO is refused at once, not at the deadline),
/// owned by this user or by root, writable by neither its group nor others. Anyone who can
/// rewrite the policy can rewrite what the hook allows; the compiler writes all three `0644`.
pub(crate) fn open_trusted(path: &Path) -> Result<(File, std::fs::Metadata), OpenFault> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(OpenFault::Io)?;
    let metadata = file.metadata().map_err(OpenFault::Io)?;
    let untrusted = |why: String| {
        OpenFault::Untrusted(LoadError::Untrusted {
            path: path.to_path_buf(),
            why,
        })
    };
    if let Some(what) = crate::ownership::not_a_regular_file(&metadata) {
        return Err(untrusted(format!("it is {what}, not a regular file")));
    }
    crate::ownership::check_owner_and_mode(&metadata, path, true).map_err(|why| {
        untrusted(format!(
            "{why}; anyone who can rewrite a policy can rewrite what the hook allows"
        ))
    })?;
    Ok((file, metadata))
}

/// The sidecar's bytes, 8-byte aligned so the DFAs inside can be used in place: a read-only
/// map of the file, or an aligned copy (tests, fuzzing, in-memory compiles).
pub enum SidecarBytes {
    /// A private read-only map. The compiler replaces sidecars by rename, never in place, so
    /// the mapped inode does not change under us.
    Mapped(memmap2::Mmap),
    /// An owned copy: `storage[start..start + len]` is the file, `start` chosen so that it
    /// begins on an 8-byte boundary (a `Vec`'s buffer never moves while it is not resized, so
    /// the alignment holds for the value's life) — no reinterpreting cast needed.
    Owned {
        /// The storage, up to 7 bytes longer than the file.
        storage: Vec<u8>,
        /// Where the file starts in it.
        start: usize,
        /// The file length in bytes.
        len: usize,
    },
}

impl SidecarBytes {
    /// An aligned copy of `bytes`.
    pub fn copy_from(bytes: &[u8]) -> SidecarBytes {
        let mut storage = vec![0u8; bytes.len() + 7];
        // `align_offset` may answer "impossible" (usize::MAX) in principle; a byte buffer can
        // always be offset to 8-byte alignment in practice, and a wrong answer would only make
        // the DFAs refuse to deserialize (regex-automata checks alignment): a deny, not UB.
        let start = storage.as_ptr().align_offset(8).min(7);
        storage[start..start + bytes.len()].copy_from_slice(bytes);
        SidecarBytes::Owned {
            storage,
            start,
            len: bytes.len(),
        }
    }

    /// Map the file at `path`; also the open file and its identity, for [`Stamp::vouches_for`]
    /// and to tell later whether it changed.
    pub fn map(path: &Path) -> Result<(SidecarBytes, File, FileIdentity), LoadError> {
        let unreadable = |error| LoadError::SidecarUnreadable {
            path: path.to_path_buf(),
            error,
        };
        let (mut file, metadata) = open_trusted(path).map_err(|fault| match fault {
            OpenFault::Io(error) if error.kind() == std::io::ErrorKind::NotFound => {
                LoadError::SidecarMissing {
                    path: path.to_path_buf(),
                }
            }
            OpenFault::Io(error) => unreadable(error),
            OpenFault::Untrusted(e) => e,
        })?;
        let identity = FileIdentity::of(&metadata);
        let len = metadata.len();
        if len < HEADER_LEN as u64 {
            // Too short to hold a header: read it (it is tiny) to say precisely what is wrong.
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut file, &mut bytes).map_err(unreadable)?;
            return Ok((SidecarBytes::copy_from(&bytes), file, identity));
        }
        let len = usize::try_from(len)
            .map_err(|_| unreadable(std::io::Error::other("the sidecar does not fit in memory")))?;
        // SAFETY: the map is read-only and private, and only ever read as bytes. Our writer
        // replaces the file by rename; another process writing in place can change the bytes
        // under the map (`CompiledPolicy::unchanged_since_load` then discards the decision) or
        // truncate it (a read past the end raises SIGBUS, which the hook answers with a deny).
        let map = unsafe { memmap2::MmapOptions::new().len(len).map(&file) }.map_err(unreadable)?;
        // Where the sidecar's pages are not cached (after a reboot, or memory pressure), this
        // call reads them from disk: asked for as large folios, every later call maps them a
        // folio at a time instead of a page at a time (measured: the build command's spawn
        // ratio 1.36 with the sidecar read back in single pages, 1.29–1.31 in large folios;
        // BENCHMARKS.md, stop 47). Cached pages stay as they are; a kernel without the
        // advice refuses it, which changes nothing.
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage);
        Ok((SidecarBytes::Mapped(map), file, identity))
    }

    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            SidecarBytes::Mapped(map) => map,
            SidecarBytes::Owned {
                storage,
                start,
                len,
            } => &storage[*start..*start + *len],
        }
    }
}

impl fmt::Debug for SidecarBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SidecarBytes({} bytes)", self.as_bytes().len())
    }
}

/// Where each section is, after verification. Every range lies inside the file and every
/// section starts 8-byte aligned relative to the (aligned) start of the file.
#[derive(Clone, Debug)]
pub(crate) struct VerifiedLayout {
    pub sections: [(usize, usize); SECTION_COUNT],
    pub policy_digest: [u8; 16],
    pub verification: Verification,
}

fn read_u32(bytes: &[u8], at: usize) -> u32 {
    let mut word = [0u8; 4];
    word.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(word)
}

/// The two digests a sidecar's header records, as written (not checked): the file digest and
/// the policy digest. `None` if `bytes` is too short to hold a header.
pub fn recorded_digests(bytes: &[u8]) -> Option<([u8; 16], [u8; 16])> {
    (bytes.len() >= HEADER_LEN).then(|| {
        (
            read_16(bytes, header::FILE_DIGEST),
            read_16(bytes, header::POLICY_DIGEST),
        )
    })
}

fn read_16(bytes: &[u8], at: usize) -> [u8; 16] {
    let mut out = [0u8; 16];
    out.copy_from_slice(&bytes[at..at + 16]);
    out
}

/// Verify `bytes` as the sidecar of the policy whose exact bytes are `policy_json`.
pub(crate) fn verify(bytes: &[u8], policy: PolicyBinding<'_>) -> Result<VerifiedLayout, LoadError> {
    let found = bytes.len() as u64;
    if bytes.len() < header::DIGEST_COVERED_FROM {
        if bytes.len() >= MAGIC.len() && bytes[..MAGIC.len()] != MAGIC {
            return Err(LoadError::NotASidecar);
        }
        return Err(LoadError::Truncated {
            expected: HEADER_LEN as u64,
            found,
        });
    }
    if bytes[header::MAGIC..header::MAGIC + 8] != MAGIC {
        return Err(LoadError::NotASidecar);
    }
    let version = read_u32(bytes, header::FORMAT_VERSION);
    if version != FORMAT_VERSION {
        return Err(LoadError::UnsupportedFormat { found: version });
    }
    // The header length is the one field before the digest it does not cover: a version has
    // exactly one header length, so anything else is damage.
    if read_u32(bytes, header::HEADER_LEN) as usize != HEADER_LEN {
        return Err(LoadError::Corrupt);
    }
    if bytes.len() < HEADER_LEN {
        return Err(LoadError::Truncated {
            expected: HEADER_LEN as u64,
            found,
        });
    }
    let recorded_digest = read_16(bytes, header::FILE_DIGEST);
    let policy_digest = read_16(bytes, header::POLICY_DIGEST);
    // The stamp stands in for both digests only if it recorded exactly these two.
    let vouched = policy.stamp.is_some_and(|stamp| {
        stamp.sidecar_digest == recorded_digest && stamp.policy_digest == policy_digest
    });
    if !vouched && super::digest(&bytes[header::DIGEST_COVERED_FROM..]) != recorded_digest {
        let expected = u64::from(read_u32(bytes, header::FILE_LEN));
        return Err(if expected > found {
            LoadError::Truncated { expected, found }
        } else {
            LoadError::Corrupt
        });
    }
    // From here on every byte is the one the compiler wrote.
    if read_u32(bytes, header::ENDIANNESS) != ENDIANNESS_MARKER || cfg!(target_endian = "big") {
        return Err(LoadError::WrongEndianness);
    }
    let recorded_version = read_16(bytes, header::REGEX_AUTOMATA_VERSION);
    let recorded_version: String = recorded_version
        .iter()
        .take_while(|&&b| b != 0)
        .map(|&b| char::from(b))
        .collect();
    if recorded_version != REGEX_AUTOMATA_VERSION {
        return Err(LoadError::RegexAutomataMismatch {
            found: recorded_version.escape_debug().to_string(),
        });
    }
    if !vouched && super::digest(policy.json) != policy_digest {
        // Said apart: a JSON that no longer parses was damaged after compiling (a partial
        // write, an editor); one that parses was compiled again, or edited by hand, without
        // its sidecar. Parsed only on this failure path.
        return Err(
            match serde_json::from_slice::<serde::de::IgnoredAny>(policy.json) {
                Err(e) => LoadError::PolicyDamaged {
                    error: e.to_string(),
                },
                Ok(_) => LoadError::Stale,
            },
        );
    }
    let malformed = |what: String| LoadError::Malformed { what };
    if read_u32(bytes, header::FILE_LEN) as u64 != found
        || read_u32(bytes, header::SECTION_COUNT) as usize != SECTION_COUNT
    {
        return Err(malformed(format!(
            "file length or section count disagrees with format version {FORMAT_VERSION}"
        )));
    }
    let mut sections = [(0usize, 0usize); SECTION_COUNT];
    for (i, section) in sections.iter_mut().enumerate() {
        let offset = read_u32(bytes, header::SECTION_TABLE + 8 * i) as usize;
        let len = read_u32(bytes, header::SECTION_TABLE + 8 * i + 4) as usize;
        let in_bounds = offset >= HEADER_LEN
            && offset.is_multiple_of(8)
            && offset
                .checked_add(len)
                .is_some_and(|end| end <= bytes.len());
        let word_sized = i == Section::Strings as usize
            || i == Section::DfaBytes as usize
            || len.is_multiple_of(4);
        if !in_bounds || !word_sized {
            return Err(malformed(format!(
                "section {i} ({offset}+{len}) is out of bounds or misaligned"
            )));
        }
        *section = (offset, len);
    }
    Ok(VerifiedLayout {
        sections,
        policy_digest,
        verification: if vouched {
            Verification::Stamp
        } else {
            Verification::Digest
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owned_copies_are_8_byte_aligned_and_exact() {
        for len in [0usize, 1, 7, 8, 9, 63, 64, 1000] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
            // Copy from an unaligned source too.
            for skew in 0..3 {
                let source = [vec![0xAA; skew], bytes.clone()].concat();
                let copy = SidecarBytes::copy_from(&source[skew..]);
                assert_eq!(copy.as_bytes(), &bytes[..], "len {len} skew {skew}");
                assert_eq!(copy.as_bytes().as_ptr() as usize % 8, 0, "len {len}");
            }
        }
    }

    /// A mapped sidecar asks for large folios (`MADV_HUGEPAGE`): the kernel lists the advice
    /// as `hg` in the mapping's `VmFlags`. Skipped (said so) on a kernel without huge pages.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_mapped_sidecar_asks_for_large_folios() {
        if !std::path::Path::new("/sys/kernel/mm/transparent_hugepage").exists() {
            eprintln!("skipped: this kernel has no transparent huge pages");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("animus-policy.sidecar");
        std::fs::write(&path, vec![7u8; 64 * 1024]).unwrap();
        let (bytes, _file, _identity) = SidecarBytes::map(&path).unwrap();
        assert!(matches!(bytes, SidecarBytes::Mapped(_)));
        let at = bytes.as_bytes().as_ptr() as usize;
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut inside = false;
        let mut flags = None;
        for line in smaps.lines() {
            if let Some((range, _)) = line.split_once(' ')
                && let Some((lo, hi)) = range.split_once('-')
                && let (Ok(lo), Ok(hi)) =
                    (usize::from_str_radix(lo, 16), usize::from_str_radix(hi, 16))
            {
                inside = (lo..hi).contains(&at);
            } else if inside && let Some(f) = line.strip_prefix("VmFlags:") {
                flags = Some(f.to_string());
            }
        }
        let flags = flags.expect("the sidecar's mapping is in /proc/self/smaps");
        assert!(
            flags.split_whitespace().any(|f| f == "hg"),
            "VmFlags:{flags}"
        );
    }

    #[test]
    fn every_load_error_names_its_cause_and_the_fix() {
        let path = || PathBuf::from("/p/animus-policy.sidecar");
        let io = || std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let cases = [
            (
                LoadError::SidecarMissing { path: path() },
                "compiled sidecar `/p/animus-policy.sidecar` is missing; run `animus-hook compile` again",
            ),
            (
                LoadError::SidecarUnreadable {
                    path: path(),
                    error: io(),
                },
                "cannot read sidecar `/p/animus-policy.sidecar`: permission denied",
            ),
            (
                LoadError::UnsupportedFormat { found: 5 },
                "sidecar format version 5 is not supported (this animus-hook reads version 9); run \
                 `animus-hook compile` again with this animus-hook",
            ),
            (
                LoadError::Truncated {
                    expected: 10,
                    found: 3,
                },
                "sidecar is truncated: 3 bytes, expected 10; run `animus-hook compile` again",
            ),
            (
                LoadError::Stale,
                "sidecar is stale: it was compiled from a different animus-policy.json than the one \
                 beside it (policy digest mismatch); run `animus-hook compile` again",
            ),
            (
                LoadError::ChangedWhileReading { path: path() },
                "`/p/animus-policy.sidecar` was changed in place while this call was decided; \
                 compile with `animus-hook compile` (it replaces the files by rename) instead of \
                 copying over them",
            ),
            (
                LoadError::Untrusted {
                    path: path(),
                    why: "it is a FIFO".into(),
                },
                "refusing to read `/p/animus-policy.sidecar`: it is a FIFO",
            ),
        ];
        for (error, message) in cases {
            assert_eq!(error.to_string(), message);
        }
        let unreadable = LoadError::PolicyUnreadable {
            path: path(),
            error: io(),
        };
        assert!(std::error::Error::source(&unreadable).is_some());
    }
}
