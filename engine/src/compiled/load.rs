//! Loading: map the sidecar, prove it belongs to the policy JSON beside it, and keep both
//! files open so a rewrite under the maps is noticed ([`CompiledPolicy::unchanged_since_load`]).

use super::*;

/// The policy JSON's bytes: mapped (hashing a map avoids copying megabytes at 10k rules, and
/// when the stamp vouches for it only the pages of rules that fire are ever read), or read
/// when it is empty or cannot be mapped.
pub(super) enum PolicyBytes {
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl PolicyBytes {
    pub(super) fn as_bytes(&self) -> &[u8] {
        match self {
            PolicyBytes::Mapped(map) => map,
            PolicyBytes::Read(bytes) => bytes,
        }
    }
}

pub(super) fn read_policy_json(
    policy_path: &Path,
    mut file: &std::fs::File,
    len: u64,
) -> Result<PolicyBytes, LoadError> {
    let unreadable = |error| LoadError::PolicyUnreadable {
        path: policy_path.to_path_buf(),
        error,
    };
    if let Ok(len) = usize::try_from(len)
        && len > 0
    {
        // SAFETY: read-only private map of the file whose identity was just taken; the
        // compiler replaces the policy by rename, never in place.
        if let Ok(map) = unsafe { memmap2::MmapOptions::new().len(len).map(file) } {
            return Ok(PolicyBytes::Mapped(map));
        }
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut file, &mut bytes).map_err(unreadable)?;
    Ok(PolicyBytes::Read(bytes))
}

/// The pin check of [`CompiledPolicy::load_pinned`]: the stamp (its path, bytes and decoded
/// form), then the sidecar and the JSON (path, bytes as mapped, identity at open).
fn check_pin(
    pin: &[u8; 32],
    (stamp_path, stamp_bytes, stamp): (&Path, Option<&[u8]>, Option<&Stamp>),
    sidecar: (&Path, &[u8], &FileIdentity),
    policy: (&Path, &[u8], &FileIdentity),
) -> Result<(), LoadError> {
    use crate::sha256::{hex, sha256};
    let mismatch = |what: String| LoadError::PinMismatch { what };
    let Some(stamp_bytes) = stamp_bytes else {
        return Err(mismatch(format!(
            "its stamp `{}` is missing or unreadable, so the pinned digest cannot be checked",
            stamp_path.display()
        )));
    };
    let found = sha256(stamp_bytes);
    if found != *pin {
        return Err(mismatch(format!(
            "`{}` has digest sha256:{}, the gate pins sha256:{} (another policy's files were \
             put in its place)",
            stamp_path.display(),
            hex(&found),
            hex(pin)
        )));
    }
    let Some(stamp) = stamp else {
        return Err(mismatch(format!(
            "the pinned stamp `{}` is of a format this animus-hook does not read",
            stamp_path.display()
        )));
    };
    // The stamp is the compiler's own: a file that still has the identity it recorded is
    // the one it hashed; any other is hashed now.
    if stamp.vouches_for(sidecar.2, policy.2) {
        return Ok(());
    }
    for ((path, bytes, _), expected) in [
        (sidecar, &stamp.sidecar_sha256),
        (policy, &stamp.policy_sha256),
    ] {
        let found = sha256(bytes);
        if found != *expected {
            return Err(mismatch(format!(
                "`{}` has SHA-256 {}, the pinned stamp records {} (the file was replaced or \
                 edited)",
                path.display(),
                hex(&found),
                hex(expected)
            )));
        }
    }
    Ok(())
}

impl CompiledPolicy {
    /// Load the policy at `policy_path` (`animus-policy.json`) through its sidecar
    /// ([`sidecar_path_for`]). The JSON is never parsed as a whole: it is mapped, and only the
    /// objects of rules that fire are read from it. Neither file is hashed when the compiler's
    /// stamp ([`stamp_path_for`], [`crate::sidecar::stamp`]) vouches for both as they are now;
    /// otherwise both are hashed and compared with the sidecar's header.
    pub fn load(policy_path: &Path) -> Result<CompiledPolicy, LoadError> {
        CompiledPolicy::load_pinned(policy_path, None)
    }

    /// [`CompiledPolicy::load`], and with `pin` (the SHA-256 of the stamp, as a gate's
    /// `--policy-digest` carries it) prove the files are the ones pinned, or fail with
    /// [`LoadError::PinMismatch`]: the stamp must hash to `pin`; then a file whose identity is
    /// still the stamp's is the compiler's (nothing hashed), and any other is hashed with
    /// SHA-256 and compared with the stamp ([`crate::sidecar::stamp`] explains why). The cost
    /// on the usual path is one SHA-256 of the 208-byte stamp.
    pub fn load_pinned(
        policy_path: &Path,
        pin: Option<&[u8; 32]>,
    ) -> Result<CompiledPolicy, LoadError> {
        let unreadable = |error| LoadError::PolicyUnreadable {
            path: policy_path.to_path_buf(),
            error,
        };
        let (file, metadata) = open_trusted(policy_path).map_err(|fault| match fault {
            OpenFault::Io(error) => unreadable(error),
            OpenFault::Untrusted(e) => e,
        })?;
        let sidecar_path = sidecar_path_for(policy_path);
        let (bytes, sidecar_file, sidecar_identity) = SidecarBytes::map(&sidecar_path)?;
        let json = read_policy_json(policy_path, &file, metadata.len())?;
        // No stamp, or one that cannot be read, only means hashing both files; a stamp that is
        // there but untrusted is refused like the other two files.
        let stamp_path = stamp_path_for(policy_path);
        let stamp_bytes = match open_trusted(&stamp_path) {
            Ok((file, _)) => crate::sidecar::stamp::read_stamp_bytes(file).ok(),
            Err(OpenFault::Io(_)) => None,
            Err(OpenFault::Untrusted(e)) => return Err(e),
        };
        let stamp = stamp_bytes.as_deref().and_then(Stamp::decode);
        let policy_identity = FileIdentity::of(&metadata);
        if let Some(pin) = pin {
            check_pin(
                pin,
                (&stamp_path, stamp_bytes.as_deref(), stamp.as_ref()),
                (&sidecar_path, bytes.as_bytes(), &sidecar_identity),
                (policy_path, json.as_bytes(), &policy_identity),
            )?;
        }
        let stamp = stamp.filter(|stamp| stamp.vouches_for(&sidecar_identity, &policy_identity));
        let mut policy = CompiledPolicy::from_verified(bytes, json, stamp)?;
        policy.files = Some(Box::new([
            LoadedFile {
                path: sidecar_path,
                file: sidecar_file,
                identity: sidecar_identity,
            },
            LoadedFile {
                path: policy_path.to_path_buf(),
                file,
                identity: policy_identity,
            },
        ]));
        Ok(policy)
    }

    /// Whether both files are still as they were when loaded. The maps read the files as they
    /// are now: a file rewritten in place (a `cp` over it; the compiler renames) changes the
    /// bytes under a decision after they were verified, which can make it miss a rule. Such
    /// a write changes the file's size or times, which this `fstat`s; a decision taken across
    /// one must be discarded (the hook denies). A truncation raises `SIGBUS` instead, which the
    /// hook answers too.
    pub fn unchanged_since_load(&self) -> Result<(), LoadError> {
        for loaded in self.files.iter().flat_map(|files| files.iter()) {
            let now = loaded.file.metadata().map(|m| FileIdentity::of(&m));
            if now.as_ref().ok() != Some(&loaded.identity) {
                return Err(LoadError::ChangedWhileReading {
                    path: loaded.path.clone(),
                });
            }
        }
        Ok(())
    }

    /// Load from in-memory bytes (both copied once; both hashed).
    pub fn from_bytes(sidecar: &[u8], policy_json: &[u8]) -> Result<CompiledPolicy, LoadError> {
        CompiledPolicy::from_parts(SidecarBytes::copy_from(sidecar), policy_json)
    }

    /// Verify `bytes` as the sidecar of `policy_json` (both hashed) and check the tables'
    /// shapes.
    pub fn from_parts(
        bytes: SidecarBytes,
        policy_json: &[u8],
    ) -> Result<CompiledPolicy, LoadError> {
        CompiledPolicy::from_verified(bytes, PolicyBytes::Read(policy_json.to_vec()), None)
    }

    fn from_verified(
        bytes: SidecarBytes,
        json: PolicyBytes,
        stamp: Option<Stamp>,
    ) -> Result<CompiledPolicy, LoadError> {
        let binding = PolicyBinding {
            json: json.as_bytes(),
            stamp,
        };
        let layout = verify(bytes.as_bytes(), binding)?;
        let mut policy = CompiledPolicy {
            bytes,
            json,
            layout,
            default_decision: Decision::Deny,
            rule_count: 0,
            field_count: 0,
            tool_automata: (0, 0),
            universal_rules: (0, 0),
            files: None,
        };
        let malformed = |what: &str| LoadError::Malformed { what: what.into() };
        let GlobalsRecord {
            default_decision: default,
            rule_count: rules,
            glob_count: globs,
            matcher_count: matchers,
            field_count: fields,
            tool_automata_first: tool_first,
            tool_automata_count: tool_count,
            universal_first,
            universal_count,
        } = policy
            .record::<GlobalsRecord>(0)
            .map_err(|_| malformed("the globals record is missing"))?;
        policy.default_decision = *Decision::ALL
            .get(default as usize)
            .ok_or_else(|| malformed("the default decision is not a decision"))?;
        let sized = |section: Section, count: u32, width: usize| {
            policy.section(section).len() == count as usize * width * 4
        };
        let whole = |section: Section, width: usize| {
            policy.section(section).len().is_multiple_of(width * 4)
        };
        if !sized(Section::Rules, rules, RuleRecord::WIDTH)
            || !sized(Section::Globs, globs, GlobRecord::WIDTH)
            || !sized(Section::Matchers, matchers, MatcherRecord::WIDTH)
            || !sized(Section::Fields, fields, FieldRecord::WIDTH)
            || !sized(Section::Globals, 1, GlobalsRecord::WIDTH)
            || !whole(Section::ToolNames, ToolNameRecord::WIDTH)
            || !whole(Section::ToolPrefixes, ToolPrefixRecord::WIDTH)
            || !sized(Section::LiteralPrefilter, fields, PREFILTER_BYTES / 4)
        {
            return Err(malformed(
                "a table's length disagrees with its record count",
            ));
        }
        let slots = policy.section(Section::LiteralSlots).len() / 4;
        let bloom_bits = policy.section(Section::LiteralBloom).len() * 8;
        if slots != 0
            && (!slots.is_power_of_two() || !bloom_bits.is_power_of_two() || bloom_bits < 32)
        {
            return Err(malformed(
                "the literal hash table or its Bloom filter is not a power of two",
            ));
        }
        policy.rule_count = rules as usize;
        policy.field_count = fields as usize;
        policy.tool_automata = (tool_first as usize, tool_count as usize);
        policy.universal_rules = (universal_first as usize, universal_count as usize);
        Ok(policy)
    }

    /// The decision when no non-`defer` rule matches.
    pub fn default_decision(&self) -> Decision {
        self.default_decision
    }

    /// How many rules the policy has.
    pub fn rule_count(&self) -> usize {
        self.rule_count
    }

    /// How this policy's integrity was established: the compiler's stamp, or hashing both
    /// files.
    pub fn verification(&self) -> Verification {
        self.layout.verification
    }

    /// Hex of the xxh3-128 digest of the exact `animus-policy.json` bytes this sidecar was
    /// compiled from (and verified against): names the policy in event records.
    pub fn policy_digest(&self) -> String {
        digest_hex(&self.layout.policy_digest)
    }
}
