//! The sidecar's layout: the header, the sections, the widths and codes of their records, and
//! the hashes the literal index is keyed by. The writer is [`super::encode`]; the reader is
//! [`crate::compiled`].

use super::image::{EncodeError, to_u32};
use super::records::{
    AutomatonRecord, ChainPieceRecord, FieldRecord, GlobRecord, GlobalsRecord, LiteralEntryRecord,
    LiteralGroupRecord, MatcherRecord, Record, RuleRecord, ToolNameRecord,
};

/// The first eight bytes of every sidecar.
pub const MAGIC: [u8; 8] = *b"ANIMUSSC";
/// The format version this engine reads and writes.
pub const FORMAT_VERSION: u32 = 9;
/// The regex-automata version whose DFA serialization the sidecar carries. The workspace pins
/// the crate to exactly this version; a sidecar from another is rejected, never reinterpreted.
pub const REGEX_AUTOMATA_VERSION: &str = "0.4.19";
/// Written as a little-endian `u32`; reads back as this value only on a little-endian host.
pub const ENDIANNESS_MARKER: u32 = 0x0102_0304;

/// Offsets of the header fields (see the module docs of [`crate::sidecar`]).
pub(crate) mod header {
    pub const MAGIC: usize = 0;
    pub const FORMAT_VERSION: usize = 8;
    pub const HEADER_LEN: usize = 12;
    pub const FILE_DIGEST: usize = 16;
    /// The file digest covers every byte from here to the end.
    pub const DIGEST_COVERED_FROM: usize = 32;
    pub const ENDIANNESS: usize = 32;
    pub const FILE_LEN: usize = 36;
    pub const REGEX_AUTOMATA_VERSION: usize = 40;
    pub const POLICY_DIGEST: usize = 56;
    pub const SECTION_COUNT: usize = 72;
    pub const SECTION_TABLE: usize = 80;
}

/// Every section, in section-table order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(usize)]
pub enum Section {
    /// Bytes: ids, reasons, field paths and literals, referenced as `(offset, length)`.
    Strings,
    /// [`RuleRecord`]s, in policy order.
    Rules,
    /// Glob ids, referenced by rules.
    RuleGlobs,
    /// [`MatcherRecord`]s.
    Matchers,
    /// Rule indices, referenced by matchers, globs and the globals record.
    Postings,
    /// [`GlobRecord`]s, one per tool glob: the rules without input matchers that name it.
    Globs,
    /// [`FieldRecord`]s.
    Fields,
    /// Automaton ids, referenced by fields and the globals record.
    AutomatonLists,
    /// Matcher ids, referenced by fields (their always-matching matchers).
    MatcherLists,
    /// The literal hash table: a power-of-two array of group index + 1 (0 = empty slot).
    LiteralSlots,
    /// [`LiteralGroupRecord`]s: groups of literals sharing `(field, length, key)`.
    LiteralGroups,
    /// [`LiteralEntryRecord`]s, one per literal.
    LiteralEntries,
    /// [`AutomatonRecord`]s, one per DFA.
    Automata,
    /// Matcher or glob ids, one per DFA pattern.
    AutomatonTargets,
    /// The DFAs, each 8-byte aligned, in regex-automata's little-endian wire form.
    DfaBytes,
    /// One [`GlobalsRecord`].
    Globals,
    /// Literal-chain pieces: [`ChainPieceRecord`]s.
    ChainPieces,
    /// [`ToolNameRecord`]s, one per tool glob without `*` (an exact tool name), sorted by
    /// name: found by binary search instead of an automaton.
    ToolNames,
    /// [`ToolPrefixRecord`](super::records::ToolPrefixRecord)s, one per tool glob `P*` (one `*`, at the end): the prefix `P`,
    /// sorted; a tool name's prefixes among them are found by a few binary searches.
    ToolPrefixes,
    /// [`PREFILTER_BYTES`] per field: first [`PREFILTER_SLOTS`] bytes, for each hashed pair of
    /// first bytes, the key lengths (bit k-1) of the field's literals that start with such a
    /// pair; then a 256-bit set of the field's one-byte literals; then a
    /// [`PREFILTER_TRIGRAMS`]-bit set of the hashed first three bytes of its literals of three
    /// or more bytes. A text position is probed with key length 1 only if its byte is a
    /// one-byte literal, 2 only if its pair has that bit, 3–8 only if its pair has the bit and
    /// its first three bytes are in the set: most positions are not probed at all.
    LiteralPrefilter,
    /// A one-hash Bloom filter over the literal groups, [`BLOOM_BITS_PER_GROUP`] bits per group
    /// (a power of two in all, little-endian `u32` words): bit `h >> (64 - log2(bits))` of each
    /// group's `literal_slot_hash` is set. A probe whose bit is clear skips the hash table,
    /// which at 100,000 rules is megabytes and a cache miss per probe; the filter is a few
    /// hundred kilobytes at most, false positives ~6%.
    LiteralBloom,
}

/// Number of sections.
pub const SECTION_COUNT: usize = 21;

impl Section {
    /// Every section in table order; `ALL[i] as usize == i` (a test holds it), so a section
    /// added to the enum must be added here, and the encoder refuses a layout without it.
    pub const ALL: [Section; SECTION_COUNT] = [
        Section::Strings,
        Section::Rules,
        Section::RuleGlobs,
        Section::Matchers,
        Section::Postings,
        Section::Globs,
        Section::Fields,
        Section::AutomatonLists,
        Section::MatcherLists,
        Section::LiteralSlots,
        Section::LiteralGroups,
        Section::LiteralEntries,
        Section::Automata,
        Section::AutomatonTargets,
        Section::DfaBytes,
        Section::Globals,
        Section::ChainPieces,
        Section::ToolNames,
        Section::ToolPrefixes,
        Section::LiteralPrefilter,
        Section::LiteralBloom,
    ];
}

/// Bloom filter bits per literal group (rounded up to a power of two in all).
pub const BLOOM_BITS_PER_GROUP: usize = 16;

/// Pair slots in a field's prefilter.
pub const PREFILTER_SLOTS: usize = 4096;
/// Bits in a field's set of hashed literal trigrams.
pub const PREFILTER_TRIGRAMS: usize = 1 << 16;
/// Prefilter bytes per field: the pair slots, the one-byte literal set, the trigram set.
pub const PREFILTER_BYTES: usize = PREFILTER_SLOTS + 32 + PREFILTER_TRIGRAMS / 8;
/// Where the one-byte literal set starts in a field's prefilter.
pub const PREFILTER_SINGLE_BYTES: usize = PREFILTER_SLOTS;
/// Where the trigram set starts in a field's prefilter.
pub const PREFILTER_TRIGRAM_SET: usize = PREFILTER_SLOTS + 32;

/// Which bit of a field's trigram set the first three bytes of a literal (or of the text at a
/// position) set or test.
pub(crate) fn prefilter_trigram(first: u8, second: u8, third: u8) -> usize {
    ((u32::from(first) << 16 | u32::from(second) << 8 | u32::from(third)).wrapping_mul(0x9E37_79B1)
        >> 16) as usize
}

/// Where the first two bytes of a literal (or of the text at a position) land in a field's
/// prefilter.
pub(crate) fn prefilter_slot(first: u8, second: u8) -> usize {
    ((u32::from(first) << 8 | u32::from(second)).wrapping_mul(0x9E37_79B1) >> 20) as usize
}
/// Header length: the fixed part plus the section table.
pub const HEADER_LEN: usize = header::SECTION_TABLE + 8 * SECTION_COUNT;

/// Words per [`RuleRecord`].
pub const RULE_WIDTH: usize = RuleRecord::WIDTH;
/// Words per [`MatcherRecord`].
pub const MATCHER_WIDTH: usize = MatcherRecord::WIDTH;
/// Words per [`GlobRecord`].
pub const GLOB_WIDTH: usize = GlobRecord::WIDTH;
/// Words per [`FieldRecord`].
pub const FIELD_WIDTH: usize = FieldRecord::WIDTH;

/// The sidecar code of a field view: its place in [`MatchOn::ALL`](crate::policy::MatchOn::ALL).
pub fn view_code(on: crate::policy::MatchOn) -> u32 {
    crate::policy::MatchOn::ALL
        .iter()
        .position(|v| *v == on)
        .expect("every view is in MatchOn::ALL") as u32
}

/// The field view of a sidecar code.
pub fn view_of_code(code: u32) -> Option<crate::policy::MatchOn> {
    crate::policy::MatchOn::ALL.get(code as usize).copied()
}
/// Words per [`LiteralGroupRecord`].
pub const LITERAL_GROUP_WIDTH: usize = LiteralGroupRecord::WIDTH;
/// Words per [`ChainPieceRecord`].
pub const CHAIN_PIECE_WIDTH: usize = ChainPieceRecord::WIDTH;
/// The id of a chain piece too short to be worth indexing (under [`MIN_INDEXED_PIECE`]
/// bytes: ` `, `rm`, `dd` occur in almost every command): taken as present.
pub const PIECE_NOT_INDEXED: u32 = u32::MAX;
/// Chain pieces shorter than this are not indexed for presence.
pub const MIN_INDEXED_PIECE: usize = 3;
/// In a literal entry's third word: the literal is chain piece `word & !PIECE_ENTRY`, not a
/// matcher's literal.
pub const PIECE_ENTRY: u32 = 1 << 31;
/// Words per [`LiteralEntryRecord`].
pub const LITERAL_ENTRY_WIDTH: usize = LiteralEntryRecord::WIDTH;
/// Words per [`AutomatonRecord`].
pub const AUTOMATON_WIDTH: usize = AutomatonRecord::WIDTH;
/// Words per [`GlobalsRecord`].
pub const GLOBALS_WIDTH: usize = GlobalsRecord::WIDTH;

/// Words per [`ToolNameRecord`].
pub const TOOL_NAME_WIDTH: usize = ToolNameRecord::WIDTH;

/// Literal keys are at most this many bytes: long enough that literals sharing a key are few
/// (`git chec`, not `git`), so a hit rarely compares more than a handful of literals in full.
pub const MAX_KEY_LEN: usize = 8;

/// A `#[repr(u32)]` enum of the wire format, with `ALL` (every variant, in code order) and
/// `from_u32` (the variant with that code, if any): the variants are listed once, here.
macro_rules! wire_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$variant_meta:meta])* $variant:ident = $code:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(u32)]
        pub enum $name {
            $( $(#[$variant_meta])* $variant = $code, )+
        }

        impl $name {
            /// Every variant, in code order.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The variant whose code is `value`, if any.
            pub(crate) fn from_u32(value: u32) -> Option<$name> {
                $name::ALL.iter().copied().find(|k| *k as u32 == value)
            }
        }
    };
}

wire_enum! {
    /// How a matcher is decided.
    pub enum MatcherKind {
        /// The pattern is exactly "contains one of these literals": a literal hit decides it.
        Exact = 0,
        /// Every match contains one of these literals: a hit triggers its own DFA to confirm.
        Confirmed = 1,
        /// No usable literal: one of the field's scan automata reports it.
        Scanned = 2,
        /// The pattern matches every text (`.*`, or empty after normalisation).
        Always = 3,
        /// Every match *starts* with one of these literals: a hit at position `p` runs the
        /// matcher's anchored DFA from `p` (no `.*?` prefix, so the DFA is a small trie-like
        /// chain). Most real `Bash(git status:*)` and `a.*b.*c` shapes are this.
        StartsWithLiteral = 4,
        /// The literal followed by whitespace or the end of the text (`P(?:\s.*)?$`, what
        /// `Bash(git status:*)` lowers to): a literal hit decides it with one look at the next
        /// character (`char::is_whitespace` is the Unicode `White_Space` property, as is `\s`).
        WordPrefix = 5,
        /// Literals in order with anything between them (`P.*Q.*R`, what every argument glob
        /// such as `Bash(curl * | bash)` or `a.*b.*c` lowers to), optionally with the word-end
        /// tail or the end of the text: found by substring search from the first literal's
        /// earliest hit, no DFA.
        LiteralChain = 6,
        /// The literal at the end of the text (`P$`; `Bash(git status)` as a segment pattern,
        /// `\x01git status$`): a literal hit decides it when nothing follows it.
        EndsText = 7,
        /// As [`MatcherKind::Confirmed`] (a literal hit triggers its DFA, searched from the
        /// text's start), for a regex every match of which also *starts the text* with one of
        /// a few literals (`^rm( [^ ]+)* -[rRf]…`: `rm`; format 9). The DFA runs only when the
        /// text starts with one of them: the matcher's chain pieces hold them, none indexed
        /// (a `^git …` rule found by ` checkout` is not confirmed on `cd x && git checkout y`'s
        /// whole text, nor a `^at …` rule, found by `at`, on `git status`).
        ConfirmedAtStart = 8,
    }
}

wire_enum! {
    /// How a DFA is searched.
    pub enum SearchKind {
        /// One unanchored search over the text; with several patterns an overlapping search
        /// reports every pattern that matches (the DFA is built with `MatchKind::All`).
        Unanchored = 0,
        /// The fallback for a single pattern whose unanchored DFA would not fit its budget: an
        /// anchored DFA (no `.*?` prefix to determinize) run from every start position.
        AnchoredAtEachPosition = 1,
        /// Anchored, run from one given position and reporting every pattern matching from
        /// there: where a leading literal occurs (for [`MatcherKind::StartsWithLiteral`]), or the
        /// start of the tool name (tool globs are anchored at both ends).
        AnchoredAtPosition = 2,
        /// Anchored, run once from the text's start, reporting every pattern matching from
        /// there (format 8): confirming patterns held at the start (`^…`), and the automata of
        /// a command-path field all of whose patterns begin with a base's tag, which a path
        /// text holds only as its first character ([`crate::paths::TagSet`]), so that a match
        /// can start nowhere else; the engine resumes those from the state a shared prefix of
        /// several texts leads to.
        AnchoredAtStart = 3,
    }
}

wire_enum! {
    /// Which of regex-automata's DFA representations the bytes hold.
    pub enum DfaForm {
        /// `dense::DFA`: a full transition table, fastest to search.
        Dense = 0,
        /// `sparse::DFA`: only the transitions that exist, much smaller for long literal chains
        /// over a wide alphabet, slower to search; used for the anchored fallback.
        Sparse = 1,
    }
}

/// The hash that places a literal group in [`Section::LiteralSlots`].
pub(crate) fn literal_slot_hash(field: u32, key_len: u32, key: u64) -> u64 {
    let mixed = key.wrapping_mul(0xFF51_AFD7_ED55_8CCD)
        ^ (u64::from(field) << 8 | u64::from(key_len)).wrapping_mul(0xC4CE_B9FE_1A85_EC53);
    (mixed ^ (mixed >> 32)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The key of a literal: its first `min(len, 8)` bytes, little-endian, zero-padded.
pub(crate) fn literal_key(literal: &[u8]) -> (u32, u64) {
    let key_len = literal.len().min(MAX_KEY_LEN);
    let mut word = [0u8; 8];
    word[..key_len].copy_from_slice(&literal[..key_len]);
    (key_len as u32, u64::from_le_bytes(word))
}

/// The tail word of a literal (its bytes after the group key) or of a text: the big-endian
/// number of its first 8 bytes, zero-padded. Ordering literals of one group by their bytes
/// orders their tail words too (not strictly: literals that share 8 tail bytes share the word).
pub(crate) fn tail_word(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    let n = bytes.len().min(8);
    word[..n].copy_from_slice(&bytes[..n]);
    u64::from_be_bytes(word)
}

/// Header + aligned sections, with both digests filled in.
pub(crate) fn assemble(
    sections: &[Vec<u8>; SECTION_COUNT],
    policy_json: &[u8],
) -> Result<Vec<u8>, EncodeError> {
    let mut out = vec![0u8; HEADER_LEN];
    let mut table = Vec::with_capacity(SECTION_COUNT);
    for section in sections {
        while !out.len().is_multiple_of(8) {
            out.push(0);
        }
        table.push((
            to_u32(out.len(), "the sidecar")?,
            to_u32(section.len(), "a section")?,
        ));
        out.extend_from_slice(section);
    }
    let file_len = to_u32(out.len(), "the sidecar")?;
    let put = |out: &mut Vec<u8>, at: usize, bytes: &[u8]| {
        out[at..at + bytes.len()].copy_from_slice(bytes)
    };
    put(&mut out, header::MAGIC, &MAGIC);
    put(
        &mut out,
        header::FORMAT_VERSION,
        &FORMAT_VERSION.to_le_bytes(),
    );
    put(
        &mut out,
        header::HEADER_LEN,
        &(HEADER_LEN as u32).to_le_bytes(),
    );
    put(
        &mut out,
        header::ENDIANNESS,
        &ENDIANNESS_MARKER.to_le_bytes(),
    );
    put(&mut out, header::FILE_LEN, &file_len.to_le_bytes());
    let mut version = [0u8; 16];
    version[..REGEX_AUTOMATA_VERSION.len()].copy_from_slice(REGEX_AUTOMATA_VERSION.as_bytes());
    put(&mut out, header::REGEX_AUTOMATA_VERSION, &version);
    put(&mut out, header::POLICY_DIGEST, &super::digest(policy_json));
    put(
        &mut out,
        header::SECTION_COUNT,
        &(SECTION_COUNT as u32).to_le_bytes(),
    );
    for (i, (offset, len)) in table.iter().enumerate() {
        put(
            &mut out,
            header::SECTION_TABLE + 8 * i,
            &offset.to_le_bytes(),
        );
        put(
            &mut out,
            header::SECTION_TABLE + 8 * i + 4,
            &len.to_le_bytes(),
        );
    }
    let file_digest = super::digest(&out[header::DIGEST_COVERED_FROM..]);
    put(&mut out, header::FILE_DIGEST, &file_digest);
    Ok(out)
}

/// Test support: recompute the file digest of a sidecar whose bytes were edited, so that a
/// deliberately forged file passes the digest and reaches the table checks behind it (the
/// forged-table tests in `compiler/tests/fuzz_smoke/`). Does nothing to a file shorter than a
/// header.
#[doc(hidden)]
pub fn reseal_for_tests(bytes: &mut [u8]) {
    if bytes.len() >= HEADER_LEN {
        let file_digest = super::digest(&bytes[header::DIGEST_COVERED_FROM..]);
        bytes[header::FILE_DIGEST..header::FILE_DIGEST + 16].copy_from_slice(&file_digest);
    }
}

/// Test support: where the header records section `section`'s `(offset, length)` pair (two
/// little-endian `u32`s).
#[doc(hidden)]
pub fn section_entry_offset_for_tests(section: Section) -> usize {
    header::SECTION_TABLE + 8 * section as usize
}

/// Test support: each section's `(offset, length)` as the header records them, unchecked;
/// `None` for a file shorter than a header.
#[doc(hidden)]
pub fn section_table_for_tests(bytes: &[u8]) -> Option<[(usize, usize); SECTION_COUNT]> {
    if bytes.len() < HEADER_LEN {
        return None;
    }
    let word = |at: usize| {
        u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]) as usize
    };
    let mut table = [(0, 0); SECTION_COUNT];
    for (i, entry) in table.iter_mut().enumerate() {
        let at = header::SECTION_TABLE + 8 * i;
        *entry = (word(at), word(at + 4));
    }
    Some(table)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn section_table_order_is_the_enum_order() {
        for (i, section) in Section::ALL.iter().enumerate() {
            assert_eq!(*section as usize, i, "{section:?}");
        }
        assert_eq!(Section::LiteralBloom as usize + 1, SECTION_COUNT);
    }

    #[test]
    fn wire_codes_round_trip() {
        for kind in MatcherKind::ALL {
            assert_eq!(MatcherKind::from_u32(*kind as u32), Some(*kind));
        }
        for kind in SearchKind::ALL {
            assert_eq!(SearchKind::from_u32(*kind as u32), Some(*kind));
        }
        for form in DfaForm::ALL {
            assert_eq!(DfaForm::from_u32(*form as u32), Some(*form));
        }
        assert_eq!(MatcherKind::from_u32(MatcherKind::ALL.len() as u32), None);
        assert_eq!(DfaForm::from_u32(u32::MAX), None);
    }
}
