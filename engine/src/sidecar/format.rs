//! The sidecar's layout and its writer.
//!
//! The compiler describes a lowered policy as a [`SidecarImage`] — plain vectors, no offsets —
//! and [`SidecarImage::encode`] lays it out: it derives the posting lists (which rules use a
//! matcher or a glob) and the literal hash index, so those invariants live next to the loader
//! that relies on them rather than in the compiler.

use std::collections::BTreeMap;

use crate::policy::Decision;

/// The first eight bytes of every sidecar.
pub const MAGIC: [u8; 8] = *b"ANIMUSSC";
/// The format version this engine reads and writes.
pub const FORMAT_VERSION: u32 = 6;
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
    /// [`RULE_WIDTH`] words per rule, in policy order.
    Rules,
    /// Glob ids, referenced by rules.
    RuleGlobs,
    /// [`MATCHER_WIDTH`] words per matcher.
    Matchers,
    /// Rule indices, referenced by matchers, globs and the globals record.
    Postings,
    /// [`GLOB_WIDTH`] words per tool glob: the rules without input matchers that name it.
    Globs,
    /// [`FIELD_WIDTH`] words per field.
    Fields,
    /// Automaton ids, referenced by fields and the globals record.
    AutomatonLists,
    /// Matcher ids, referenced by fields (their always-matching matchers).
    MatcherLists,
    /// The literal hash table: a power-of-two array of group index + 1 (0 = empty slot).
    LiteralSlots,
    /// [`LITERAL_GROUP_WIDTH`] words per group of literals sharing `(field, length, key)`.
    LiteralGroups,
    /// [`LITERAL_ENTRY_WIDTH`] words per literal.
    LiteralEntries,
    /// [`AUTOMATON_WIDTH`] words per DFA.
    Automata,
    /// Matcher or glob ids, one per DFA pattern.
    AutomatonTargets,
    /// The DFAs, each 8-byte aligned, in regex-automata's little-endian wire form.
    DfaBytes,
    /// One record of [`GLOBALS_WIDTH`] words.
    Globals,
    /// Literal-chain pieces: [`CHAIN_PIECE_WIDTH`] words per piece.
    ChainPieces,
    /// [`TOOL_NAME_WIDTH`] words per tool glob without `*` (an exact tool name), sorted by
    /// name: found by binary search instead of an automaton.
    ToolNames,
    /// [`TOOL_NAME_WIDTH`] words per tool glob `P*` (one `*`, at the end): the prefix `P`,
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
    /// group's [`literal_slot_hash`] is set. A probe whose bit is clear skips the hash table,
    /// which at 100,000 rules is megabytes and a cache miss per probe; the filter is a few
    /// hundred kilobytes at most, false positives ~6%.
    LiteralBloom,
}

/// Number of sections.
pub const SECTION_COUNT: usize = 21;

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

/// Rule record: offset and length of the rule's `id` string token in `animus-policy.json`,
/// the same for its `reason` (both read from there, only for rules that fire), decision (low
/// byte) and event mask (second byte), distinct matcher count, first glob, glob count.
pub const RULE_WIDTH: usize = 8;
/// Matcher record: field, kind, automaton (for [`MatcherKind::Confirmed`] and
/// [`MatcherKind::StartsWithLiteral`]), first posting, posting count, first chain piece,
/// chain piece count × 4, + 1 if the chain must end at a word end, + 2 if it must end the
/// text (for [`MatcherKind::LiteralChain`]).
pub const MATCHER_WIDTH: usize = 7;
/// Glob record: first posting, posting count (rules without input matchers only).
pub const GLOB_WIDTH: usize = 2;
/// Field record: path offset, path length, literal-length mask (bit k-1 set when the index
/// holds literals keyed by k bytes), first scan automaton, scan automaton count, first
/// always-matching matcher, their count, and the field's view ([`crate::policy::MatchOn`] as
/// [`view_code`]: which texts of the field its matchers search).
pub const FIELD_WIDTH: usize = 8;

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
/// Literal group record: field, key length k, key (the first k bytes, little-endian, as a
/// `u64`: low word, high word), first entry, entry count.
pub const LITERAL_GROUP_WIDTH: usize = 6;
/// Chain piece record: offset and length in [`Section::Strings`], and the piece's id: equal
/// pieces of one field share an id, and the literal index reports an occurrence of each id
/// (an entry `PIECE_ENTRY | id`). A chain is checked only when every one of its ids occurred.
pub const CHAIN_PIECE_WIDTH: usize = 3;
/// The id of a chain piece too short to be worth indexing (under [`MIN_INDEXED_PIECE`]
/// bytes: ` `, `rm`, `dd` occur in almost every command): taken as present.
pub const PIECE_NOT_INDEXED: u32 = u32::MAX;
/// Chain pieces shorter than this are not indexed for presence.
pub const MIN_INDEXED_PIECE: usize = 3;
/// In a literal entry's third word: the literal is chain piece `word & !PIECE_ENTRY`, not a
/// matcher's literal.
pub const PIECE_ENTRY: u32 = 1 << 31;
/// Literal entry record: literal offset, literal length, matcher (or [`PIECE_ENTRY`] | chain
/// piece id), and the literal's tail word (the big-endian number of its first 8 bytes after
/// the group key, zero-padded; low word, high word). A group's entries are sorted by literal,
/// so by tail word too: the engine binary-searches integers, not byte strings.
pub const LITERAL_ENTRY_WIDTH: usize = 5;
/// Automaton record: byte offset in [`Section::DfaBytes`], byte length, [`SearchKind`], first
/// target, target count, [`DfaForm`].
pub const AUTOMATON_WIDTH: usize = 6;
/// Globals record: default decision, rule count, glob count, matcher count, field count, first
/// tool automaton, tool automaton count, first universal rule posting, their count.
pub const GLOBALS_WIDTH: usize = 9;

/// Exact tool name or tool prefix record: offset and length in [`Section::Strings`], glob id.
pub const TOOL_NAME_WIDTH: usize = 3;

/// Literal keys are at most this many bytes: long enough that literals sharing a key are few
/// (`git chec`, not `git`), so a hit rarely compares more than a handful of literals in full.
pub const MAX_KEY_LEN: usize = 8;

/// How a matcher is decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
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
}

impl MatcherKind {
    pub(crate) fn from_u32(value: u32) -> Option<MatcherKind> {
        [
            MatcherKind::Exact,
            MatcherKind::Confirmed,
            MatcherKind::Scanned,
            MatcherKind::Always,
            MatcherKind::StartsWithLiteral,
            MatcherKind::WordPrefix,
            MatcherKind::LiteralChain,
            MatcherKind::EndsText,
        ]
        .into_iter()
        .find(|k| *k as u32 == value)
    }
}

/// How a DFA is searched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
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
}

impl SearchKind {
    pub(crate) fn from_u32(value: u32) -> Option<SearchKind> {
        [
            SearchKind::Unanchored,
            SearchKind::AnchoredAtEachPosition,
            SearchKind::AnchoredAtPosition,
        ]
        .into_iter()
        .find(|k| *k as u32 == value)
    }
}

/// Which of regex-automata's DFA representations the bytes hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum DfaForm {
    /// `dense::DFA`: a full transition table, fastest to search.
    Dense = 0,
    /// `sparse::DFA`: only the transitions that exist, much smaller for long literal chains
    /// over a wide alphabet, slower to search; used for the anchored fallback.
    Sparse = 1,
}

impl DfaForm {
    pub(crate) fn from_u32(value: u32) -> Option<DfaForm> {
        [DfaForm::Dense, DfaForm::Sparse]
            .into_iter()
            .find(|k| *k as u32 == value)
    }
}

/// A lowered policy, ready to encode.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SidecarImage {
    /// The policy's default decision.
    pub default_decision: Option<Decision>,
    /// Every rule, in policy order.
    pub rules: Vec<RuleImage>,
    /// How many distinct tool globs the rules reference.
    pub glob_count: u32,
    /// Every distinct `(field, regex)` matcher.
    pub matchers: Vec<MatcherImage>,
    /// Every distinct field path.
    pub fields: Vec<FieldImage>,
    /// The automata searched over the tool name; their targets are glob ids.
    pub tool_automata: Vec<u32>,
    /// Tool globs without `*`: the exact tool name and its glob id (each name once).
    pub exact_tools: Vec<(String, u32)>,
    /// Tool globs `P*` (one `*`, at the end): the prefix `P` and the glob id (each once).
    pub tool_prefixes: Vec<(String, u32)>,
    /// Every DFA.
    pub automata: Vec<AutomatonImage>,
}

/// One rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleImage {
    /// The rule id.
    pub id: String,
    /// The rule reason.
    pub reason: String,
    /// The rule decision.
    pub decision: Decision,
    /// [`crate::semantics::event_mask`] of the rule's events.
    pub event_mask: u8,
    /// Distinct matcher ids, all of which must match.
    pub matchers: Vec<u32>,
    /// Distinct glob ids, one of which must match (none = every tool).
    pub globs: Vec<u32>,
}

/// One `(field, regex)` matcher.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatcherImage {
    /// The field id.
    pub field: u32,
    /// How it is decided.
    pub kind: MatcherKind,
    /// Its confirming automaton, for [`MatcherKind::Confirmed`] and
    /// [`MatcherKind::StartsWithLiteral`].
    pub automaton: u32,
    /// The literals of [`MatcherKind::Exact`], [`MatcherKind::Confirmed`] and
    /// [`MatcherKind::StartsWithLiteral`] matchers.
    pub literals: Vec<Vec<u8>>,
    /// The pieces of a [`MatcherKind::LiteralChain`]; its literal is the one piece the
    /// literal index finds it by (chosen by the compiler, any of them).
    pub chain: Vec<Vec<u8>>,
    /// Whether the chain's last piece must be followed by whitespace or the end.
    pub chain_ends_at_word: bool,
    /// For [`MatcherKind::LiteralChain`]: the last piece must end the text.
    pub chain_ends_text: bool,
}

/// One field path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldImage {
    /// The dot path into `tool_input`.
    pub path: String,
    /// Which texts of the field its matchers search.
    pub view: crate::policy::MatchOn,
    /// Automata run over every text of the field; their targets are matcher ids.
    pub scan_automata: Vec<u32>,
}

/// One serialized DFA.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AutomatonImage {
    /// `write_to_little_endian` output of a dense or sparse DFA.
    pub dfa_bytes: Vec<u8>,
    /// Which representation `dfa_bytes` holds.
    pub form: DfaForm,
    /// How to search it.
    pub search: SearchKind,
    /// Pattern i stands for `targets[i]` (a matcher id, or a glob id for tool automata).
    pub targets: Vec<u32>,
}

/// Why an image could not be encoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EncodeError(pub String);

impl std::fmt::Display for EncodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EncodeError {}

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

/// Words and bytes accumulated for one section.
#[derive(Default)]
struct Words(Vec<u32>);

impl Words {
    fn push(&mut self, values: &[u32]) {
        self.0.extend_from_slice(values);
    }
    fn len(&self) -> u32 {
        self.0.len() as u32
    }
    fn into_bytes(self) -> Vec<u8> {
        self.0.iter().flat_map(|w| w.to_le_bytes()).collect()
    }
}

fn to_u32(value: usize, what: &str) -> Result<u32, EncodeError> {
    u32::try_from(value)
        .map_err(|_| EncodeError(format!("{what} exceeds the sidecar's 4 GiB limit")))
}

impl SidecarImage {
    /// Lay the image out as a sidecar bound to `policy_json`: the exact bytes written as
    /// `animus-policy.json`, whose rules must be the image's rules in the same order (each rule
    /// record points at its object there).
    pub fn encode(&self, policy_json: &[u8]) -> Result<Vec<u8>, EncodeError> {
        let default_decision = self
            .default_decision
            .ok_or_else(|| EncodeError("the image has no default decision".into()))?;
        let mut strings: Vec<u8> = Vec::new();
        let mut string = |s: &[u8]| -> Result<[u32; 2], EncodeError> {
            let offset = to_u32(strings.len(), "the string pool")?;
            strings.extend_from_slice(s);
            Ok([offset, to_u32(s.len(), "a string")?])
        };

        // Posting lists: which rules each matcher and each glob feeds.
        let mut matcher_rules: Vec<Vec<u32>> = vec![Vec::new(); self.matchers.len()];
        let mut glob_rules: Vec<Vec<u32>> = vec![Vec::new(); self.glob_count as usize];
        let mut universal_rules = Vec::new();
        let mut rules = Words::default();
        let mut rule_globs = Words::default();
        let spans = rule_spans(policy_json, &self.rules)?;
        for ((index, rule), [id_span, reason_span]) in self.rules.iter().enumerate().zip(spans) {
            let index = to_u32(index, "the rule count")?;
            let decision = Decision::ALL
                .iter()
                .position(|d| *d == rule.decision)
                .unwrap_or(0) as u32;
            let glob_first = rule_globs.len();
            for &glob in &rule.globs {
                rule_globs.push(&[glob]);
            }
            rules.push(&[
                id_span.0,
                id_span.1,
                reason_span.0,
                reason_span.1,
                decision | (u32::from(rule.event_mask) << 8),
                to_u32(rule.matchers.len(), "a rule's matcher count")?,
                glob_first,
                to_u32(rule.globs.len(), "a rule's glob count")?,
            ]);
            let out_of_range = |what: &str, id: u32| {
                EncodeError(format!(
                    "rule `{}` names {what} {id}, which does not exist",
                    rule.id
                ))
            };
            if !rule.matchers.is_empty() {
                // Every distinct matcher of the rule posts the rule once.
                for &matcher in &rule.matchers {
                    matcher_rules
                        .get_mut(matcher as usize)
                        .ok_or_else(|| out_of_range("matcher", matcher))?
                        .push(index);
                }
            } else if rule.globs.is_empty() {
                universal_rules.push(index);
            } else {
                for &glob in &rule.globs {
                    glob_rules
                        .get_mut(glob as usize)
                        .ok_or_else(|| out_of_range("glob", glob))?
                        .push(index);
                }
            }
        }

        let mut postings = Words::default();
        let mut post = |list: &[u32]| -> [u32; 2] {
            let first = postings.len();
            postings.push(list);
            [first, list.len() as u32]
        };
        let mut matchers = Words::default();
        let mut chain_pieces = Words::default();
        // Distinct chain pieces per field, in id order: each is indexed once.
        let mut piece_ids: BTreeMap<(u32, &[u8]), u32> = BTreeMap::new();
        let mut pieces: Vec<(u32, &[u8])> = Vec::new();
        for (matcher, posted) in self.matchers.iter().zip(&matcher_rules) {
            let [first, count] = post(posted);
            let chain_first = chain_pieces.len() / CHAIN_PIECE_WIDTH as u32;
            for piece in &matcher.chain {
                let [offset, len] = string(piece)?;
                if piece.len() < MIN_INDEXED_PIECE {
                    chain_pieces.push(&[offset, len, PIECE_NOT_INDEXED]);
                    continue;
                }
                let next = to_u32(pieces.len(), "the chain piece count")?;
                if next >= PIECE_ENTRY {
                    return Err(EncodeError("too many distinct chain pieces".into()));
                }
                let id = *piece_ids.entry((matcher.field, piece)).or_insert_with(|| {
                    pieces.push((matcher.field, piece));
                    next
                });
                chain_pieces.push(&[offset, len, id]);
            }
            let chain_count = to_u32(matcher.chain.len(), "a literal chain")?;
            matchers.push(&[
                matcher.field,
                matcher.kind as u32,
                matcher.automaton,
                first,
                count,
                chain_first,
                (chain_count << 2)
                    | u32::from(matcher.chain_ends_at_word)
                    | u32::from(matcher.chain_ends_text) << 1,
            ]);
        }
        let mut globs = Words::default();
        for posted in &glob_rules {
            globs.push(&post(posted));
        }
        let [universal_first, universal_count] = post(&universal_rules);

        // The literal index: group literals by (field, key length, key).
        // (field, key length, key) → (literal, matcher or piece entry) entries.
        type Groups = BTreeMap<(u32, u32, u64), Vec<(Vec<u8>, u32)>>;
        let mut groups = Groups::new();
        let mut key_masks = vec![0u32; self.fields.len()];
        let mut prefilter = vec![0u8; self.fields.len() * PREFILTER_BYTES];
        let mut index = |field: u32, literal: &[u8], target: u32| -> Result<(), String> {
            if literal.is_empty() {
                return Err("an empty literal".into());
            }
            let mask = key_masks
                .get_mut(field as usize)
                .ok_or("a field that does not exist")?;
            let (key_len, key) = literal_key(literal);
            *mask |= 1 << (key_len - 1);
            let field_prefilter = &mut prefilter[field as usize * PREFILTER_BYTES..];
            match literal[..] {
                [first, second, ..] => {
                    field_prefilter[prefilter_slot(first, second)] |= 1 << (key_len - 1);
                    if let [_, _, third, ..] = literal[..] {
                        let bit = prefilter_trigram(first, second, third);
                        field_prefilter[PREFILTER_TRIGRAM_SET + bit / 8] |= 1 << (bit % 8);
                    }
                }
                [only] => {
                    field_prefilter[PREFILTER_SINGLE_BYTES + only as usize / 8] |= 1 << (only % 8)
                }
                [] => {}
            }
            groups
                .entry((field, key_len, key))
                .or_default()
                .push((literal.to_vec(), target));
            Ok(())
        };
        if self.matchers.len() >= PIECE_ENTRY as usize {
            return Err(EncodeError(
                "too many distinct matchers for the literal index".into(),
            ));
        }
        for (id, matcher) in self.matchers.iter().enumerate() {
            if !matches!(
                matcher.kind,
                MatcherKind::Exact
                    | MatcherKind::Confirmed
                    | MatcherKind::StartsWithLiteral
                    | MatcherKind::WordPrefix
                    | MatcherKind::EndsText
                    | MatcherKind::LiteralChain
            ) {
                continue;
            }
            if matcher.literals.is_empty() {
                return Err(EncodeError(format!(
                    "matcher {id} is decided by literals but has none"
                )));
            }
            for literal in &matcher.literals {
                index(matcher.field, literal, id as u32)
                    .map_err(|what| EncodeError(format!("matcher {id} has {what}")))?;
            }
        }
        for (id, &(field, piece)) in pieces.iter().enumerate() {
            index(field, piece, PIECE_ENTRY | id as u32)
                .map_err(|what| EncodeError(format!("a literal chain has {what}")))?;
        }
        let slot_count = (groups.len() * 2)
            .next_power_of_two()
            .max(if groups.is_empty() { 0 } else { 2 });
        let mut slots = vec![0u32; slot_count];
        let mut literal_groups = Words::default();
        let mut literal_entries = Words::default();
        let bloom_bits = (groups.len() * BLOOM_BITS_PER_GROUP)
            .next_power_of_two()
            .max(1024);
        let mut bloom = vec![0u32; bloom_bits / 32];
        let bits = slot_count.trailing_zeros();
        for (group_index, ((field, key_len, key), mut entries)) in groups.into_iter().enumerate() {
            let first_entry = literal_entries.len() / LITERAL_ENTRY_WIDTH as u32;
            // Sorted by literal: the engine finds a group's literals that start the text by
            // binary search.
            entries.sort_unstable();
            literal_groups.push(&[
                field,
                key_len,
                key as u32,
                (key >> 32) as u32,
                first_entry,
                entries.len() as u32,
            ]);
            for (literal, matcher) in &entries {
                let [offset, len] = string(literal)?;
                let tail = tail_word(&literal[key_len as usize..]);
                literal_entries.push(&[offset, len, *matcher, tail as u32, (tail >> 32) as u32]);
            }
            let hash = literal_slot_hash(field, key_len, key);
            let bloom_bit = (hash >> (64 - bloom_bits.trailing_zeros())) as usize;
            bloom[bloom_bit / 32] |= 1 << (bloom_bit % 32);
            let mut slot = (hash >> (64 - bits)) as usize;
            while slots[slot] != 0 {
                slot = (slot + 1) & (slot_count - 1);
            }
            slots[slot] = to_u32(group_index + 1, "the literal group count")?;
        }

        let mut automaton_lists = Words::default();
        let mut fields = Words::default();
        let mut matcher_lists = Words::default();
        for (id, field) in self.fields.iter().enumerate() {
            let [path_offset, path_len] = string(field.path.as_bytes())?;
            let scan_first = automaton_lists.len();
            automaton_lists.push(&field.scan_automata);
            let always: Vec<u32> = (0..self.matchers.len() as u32)
                .filter(|&m| {
                    let matcher = &self.matchers[m as usize];
                    matcher.field == id as u32 && matcher.kind == MatcherKind::Always
                })
                .collect();
            let always_first = matcher_lists.len();
            matcher_lists.push(&always);
            fields.push(&[
                path_offset,
                path_len,
                key_masks[id],
                scan_first,
                field.scan_automata.len() as u32,
                always_first,
                always.len() as u32,
                view_code(field.view),
            ]);
        }
        let tool_first = automaton_lists.len();
        automaton_lists.push(&self.tool_automata);

        let mut automata = Words::default();
        let mut targets = Words::default();
        let mut dfa_bytes: Vec<u8> = Vec::new();
        for automaton in &self.automata {
            while !dfa_bytes.len().is_multiple_of(8) {
                dfa_bytes.push(0);
            }
            let offset = to_u32(dfa_bytes.len(), "the DFA section")?;
            dfa_bytes.extend_from_slice(&automaton.dfa_bytes);
            automata.push(&[
                offset,
                to_u32(automaton.dfa_bytes.len(), "a DFA")?,
                automaton.search as u32,
                targets.len(),
                automaton.targets.len() as u32,
                automaton.form as u32,
            ]);
            targets.push(&automaton.targets);
        }

        let mut tool_table = |entries: &[(String, u32)], what: &str| {
            let mut sorted: Vec<&(String, u32)> = entries.iter().collect();
            sorted.sort_unstable();
            if sorted.windows(2).any(|w| w[0].0 == w[1].0) {
                return Err(EncodeError(format!("a {what} appears twice")));
            }
            let mut words = Words::default();
            for (name, glob) in sorted {
                if *glob >= self.glob_count {
                    return Err(EncodeError(format!(
                        "{what} `{name}` names glob {glob}, which does not exist"
                    )));
                }
                words.push(&string(name.as_bytes())?);
                words.push(&[*glob]);
            }
            Ok(words)
        };
        let tool_names = tool_table(&self.exact_tools, "tool name")?;
        let tool_prefixes = tool_table(&self.tool_prefixes, "tool prefix")?;

        let mut globals = Words::default();
        globals.push(&[
            Decision::ALL
                .iter()
                .position(|d| *d == default_decision)
                .unwrap_or(0) as u32,
            to_u32(self.rules.len(), "the rule count")?,
            self.glob_count,
            to_u32(self.matchers.len(), "the matcher count")?,
            to_u32(self.fields.len(), "the field count")?,
            tool_first,
            self.tool_automata.len() as u32,
            universal_first,
            universal_count,
        ]);

        let sections: [Vec<u8>; SECTION_COUNT] = [
            strings,
            rules.into_bytes(),
            rule_globs.into_bytes(),
            matchers.into_bytes(),
            postings.into_bytes(),
            globs.into_bytes(),
            fields.into_bytes(),
            automaton_lists.into_bytes(),
            matcher_lists.into_bytes(),
            Words(slots).into_bytes(),
            literal_groups.into_bytes(),
            literal_entries.into_bytes(),
            automata.into_bytes(),
            targets.into_bytes(),
            dfa_bytes,
            globals.into_bytes(),
            chain_pieces.into_bytes(),
            tool_names.into_bytes(),
            tool_prefixes.into_bytes(),
            prefilter,
            Words(bloom).into_bytes(),
        ];
        assemble(&sections, policy_json)
    }
}

/// Where each rule's `id` and `reason` string tokens lie in `policy_json`, checked against the
/// image: the same number of rules, each with the image's id and reason.
fn rule_spans(
    policy_json: &[u8],
    rules: &[RuleImage],
) -> Result<Vec<[(u32, u32); 2]>, EncodeError> {
    use serde_json::value::RawValue;
    #[derive(serde::Deserialize)]
    struct Document<'a> {
        #[serde(borrow)]
        rules: Vec<Tokens<'a>>,
    }
    #[derive(serde::Deserialize)]
    struct Tokens<'a> {
        #[serde(borrow)]
        id: &'a RawValue,
        #[serde(borrow)]
        reason: &'a RawValue,
    }
    let document: Document<'_> = serde_json::from_slice(policy_json).map_err(|e| {
        EncodeError(format!(
            "the policy JSON the sidecar is bound to does not parse: {e}"
        ))
    })?;
    if document.rules.len() != rules.len() {
        return Err(EncodeError(format!(
            "the policy JSON has {} rules, the image {}",
            document.rules.len(),
            rules.len()
        )));
    }
    let base = policy_json.as_ptr() as usize;
    let span = |token: &RawValue, expected: &str, rule: &str| {
        let text = token.get();
        if crate::json::json_string(text.as_bytes()).as_deref() != Some(expected) {
            return Err(EncodeError(format!(
                "the policy JSON's rule `{rule}` is not the image's rule"
            )));
        }
        Ok((
            to_u32(text.as_ptr() as usize - base, "the policy JSON")?,
            to_u32(text.len(), "a rule's JSON")?,
        ))
    };
    document
        .rules
        .iter()
        .zip(rules)
        .map(|(tokens, rule)| {
            Ok([
                span(tokens.id, &rule.id, &rule.id)?,
                span(tokens.reason, &rule.reason, &rule.id)?,
            ])
        })
        .collect()
}

/// Header + aligned sections, with both digests filled in.
fn assemble(
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
/// forged-table tests in `compiler/tests/fuzz_smoke.rs`). Does nothing to a file shorter than a
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
