//! The sidecar: the compiled automata and rule tables, written beside `animus-policy.json`.
//!
//! `animus-policy.json` is the policy a human can read; `animus-policy.sidecar` is the same
//! policy lowered to the form [`CompiledPolicy`](crate::CompiledPolicy) decides with, without
//! compiling a single regex. The compiler (`compiler::lower`) builds a [`SidecarImage`] and
//! [`SidecarImage::encode`]s it ([`encode`] module); the hook maps the file and verifies it
//! ([`load`] module). [`format`](mod@format) holds the layout both sides share.
//!
//! # Layout (format version 9)
//!
//! All integers are little-endian `u32` unless noted. The file is a fixed header followed by
//! sections, each starting on an 8-byte boundary (regex-automata's dense DFAs need 4-byte
//! alignment to be used in place; 8 leaves room).
//!
//! | offset | size | field |
//! |-------:|-----:|-------|
//! | 0      | 8    | magic `ANIMUSSC` |
//! | 8      | 4    | format version (`9`) |
//! | 12     | 4    | header length in bytes |
//! | 16     | 16   | **file digest**: xxh3-128 of every byte from offset 32 to the end |
//! | 32     | 4    | endianness marker `0x01020304` (reads back unchanged only on little-endian) |
//! | 36     | 4    | total file length |
//! | 40     | 16   | regex-automata version the DFAs were serialized by, NUL-padded ASCII |
//! | 56     | 16   | **policy digest**: xxh3-128 of the exact bytes of `animus-policy.json` |
//! | 72     | 4    | section count |
//! | 76     | 4    | reserved, zero |
//! | 80     | 8·n  | section table: `(offset, length)` per section, in [`Section`] order |
//!
//! The first 32 bytes (magic, version, header length, file digest) keep their place in every
//! future format version, so an old hook reports "unsupported format" rather than "corrupt".
//!
//! Sections ([`Section`]): a string pool (field paths, literals); the rule table (per rule:
//! where its `id` and `reason` string tokens lie in `animus-policy.json`, decision, event
//! mask, matcher count, tool-glob ids — ids and reasons are not copied: they are read from the
//! JSON for the rules that fire, which halves a real-list sidecar); the matcher table (per
//! matcher: field, kind, automaton, posting list of the rules using it); the field table (per
//! field: dot path, which literal lengths it indexes, its scan automata, its always-matching
//! matchers, and its *view* — format 6: which texts of the field its matchers search: the raw
//! text, the raw text and each normalised shell segment, each segment with
//! [`SEGMENT_START`](crate::shell::SEGMENT_START) in front (deny and ask entries), each
//! segment's strict texts one segment at a time (allow entries, which must cover every
//! segment), the tagged spellings of a file path ([`crate::paths::path_texts`]: all of them,
//! or the resolved one), or a URL's host ([`crate::web::host_texts`]); a `(path, view)` pair is one field; format 7: for a path view, also the bases its matchers are anchored to, [`crate::paths::TagSet`], so that texts behind the other bases' tags are not made; format 8: a command-path field all of whose globs begin with a tag has no literals, only automata run once from the text's start, [`SearchKind::AnchoredAtStart`], which the engine resumes from the state a shared directory prefix leads to; format 9: a confirmed matcher every match of which starts the text with one of a few literals carries them as its chain pieces, none indexed, [`MatcherKind::ConfirmedAtStart`], and its DFA runs only on a text that starts with one); the literal index (an open-addressing hash table keyed by `(field, length,
//! first ≤ 8 bytes)`, its groups' literals sorted and searched by their next 8 bytes as an
//! integer, behind a per-field prefilter — key lengths per hashed pair of first bytes, the
//! set of one-byte literals, a set of hashed first trigrams — and a Bloom filter; an entry
//! names a matcher, or a chain piece whose occurrence is recorded); the automaton table (per DFA: where its bytes are, how
//! to search it, which matcher or glob each of its patterns stands for); the DFA bytes
//! themselves, dense or sparse, in regex-automata's own `write_to_little_endian` form; a
//! globals record; the pieces of literal chains (`curl ` … ` | bash`), each with the id the
//! index reports it under (format 4: a chain is indexed by the piece fewest chains share and
//! searched only when all its pieces of three or more bytes occur); and the sorted tables
//! of exact tool names (globs without `*`) and of tool prefixes (globs `P*`).
//!
//! # Trust
//!
//! regex-automata's checked `DFA::from_bytes` validates every transition (measured at 7–15 ms
//! for the large automata of a 10,000-rule policy), far too slow for a process that lives for
//! one tool call. The loader instead checks the file digest over every byte after the first
//! 32 (or trusts the compiler's stamp that it did so for this very file, see below), then
//! deserializes each DFA with `from_bytes_unchecked` (constant time) the first time a decision
//! needs it. The digest proves the bytes are the ones the compiler wrote from DFAs it
//! had just built — it guards against truncation, bit rot, partial copies and editing, not
//! against a deliberately forged file: whoever can write the sidecar can already write the
//! policy it enforces. Table indices are still bounds-checked on every access, so even a forged
//! table yields a fail-closed deny, never a panic; only the DFA transition tables are trusted.
//!
//! The policy digest binds the sidecar to one exact `animus-policy.json`, whose rule ids and
//! reasons the rule table points into.
//!
//! Hashing both files (megabytes at 10,000 rules) on every hook start would dominate the
//! hook's run time, so after writing them the compiler re-reads and hashes both once more and
//! writes `animus-policy.stamp` ([`stamp`]): the identity each file then had, including its
//! status-change time, which every write, truncation or `touch` moves forward and no process
//! can set back. [`CompiledPolicy::load`](crate::CompiledPolicy::load) skips both hashes when
//! both files still have exactly those identities and the stamp's digests are the header's;
//! in every other case — no stamp, a damaged stamp, a file copied, replaced, edited or merely
//! touched — it hashes both, as it would without a stamp. The compiler writes the sidecar
//! first and the JSON second (each atomically): a crash between the two leaves a new sidecar
//! beside the old JSON, whose digest no longer matches, so the hook refuses the pair (fail
//! closed) until the next successful compile.

pub mod encode;
pub mod format;
mod image;
pub mod load;
pub mod records;
pub mod stamp;

pub use encode::{AutomatonImage, EncodeError, FieldImage, MatcherImage, RuleImage, SidecarImage};
pub use format::{
    DfaForm, FORMAT_VERSION, MAGIC, MatcherKind, REGEX_AUTOMATA_VERSION, SearchKind, Section,
};
pub use load::{LoadError, SidecarBytes, Verification, recorded_digests};
pub use stamp::{FileIdentity, Stamp, stamp_path_for};

use std::path::{Path, PathBuf};

/// The sidecar file name extension.
pub const SIDECAR_EXTENSION: &str = "sidecar";

/// Where the sidecar of `policy_path` lives: same directory, same stem, extension
/// `.sidecar` (`animus-policy.json` → `animus-policy.sidecar`).
pub fn sidecar_path_for(policy_path: &Path) -> PathBuf {
    policy_path.with_extension(SIDECAR_EXTENSION)
}

/// The digest binding a sidecar to its JSON and covering the sidecar itself.
pub fn digest(bytes: &[u8]) -> [u8; 16] {
    xxhash_rust::xxh3::xxh3_128(bytes).to_le_bytes()
}

/// Lowercase hex of a digest.
pub fn digest_hex(digest: &[u8; 16]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sidecar_sits_beside_the_policy() {
        assert_eq!(
            sidecar_path_for(Path::new("/x/animus-policy.json")),
            PathBuf::from("/x/animus-policy.sidecar")
        );
        assert_eq!(sidecar_path_for(Path::new("p")), PathBuf::from("p.sidecar"));
    }
}
