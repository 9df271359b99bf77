//! The sidecar's writer. The compiler describes a lowered policy as a [`SidecarImage`] — plain
//! vectors, no offsets — and [`SidecarImage::encode`] lays it out: it derives the posting lists
//! (which rules use a matcher or a glob) and the literal hash index, so those invariants live
//! next to the loader that relies on them rather than in the compiler.
//!
//! Encoding runs in phases, one per group of sections (`RuleTables`, `MatcherTables`,
//! `LiteralIndex`, then fields, automata and tool tables), each writing its strings into one
//! `StringPool` in a fixed order; `Sections` places each section's bytes by its
//! [`Section`], and refuses a layout that misses one.

use std::collections::BTreeMap;

use super::format::{
    BLOOM_BITS_PER_GROUP, CHAIN_PIECE_WIDTH, LITERAL_ENTRY_WIDTH, MIN_INDEXED_PIECE, MatcherKind,
    PIECE_ENTRY, PIECE_NOT_INDEXED, PREFILTER_BYTES, PREFILTER_SINGLE_BYTES, PREFILTER_TRIGRAM_SET,
    SECTION_COUNT, Section, assemble, literal_key, literal_slot_hash, prefilter_slot,
    prefilter_trigram, tail_word, view_code,
};
use super::image::to_u32;
pub use super::image::{
    AutomatonImage, EncodeError, FieldImage, MatcherImage, RuleImage, SidecarImage,
};
use super::records::{
    AutomatonRecord, ChainPieceRecord, FieldRecord, GlobRecord, GlobalsRecord, LiteralEntryRecord,
    LiteralGroupRecord, MatcherRecord, Record, RuleRecord, ToolNameRecord,
};
use crate::policy::Decision;

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
    fn record(&mut self, record: impl Record) {
        record.write_to(&mut self.0);
    }
    fn into_bytes(self) -> Vec<u8> {
        self.0.iter().flat_map(|w| w.to_le_bytes()).collect()
    }
}

/// The decision's code in the rule table and the globals record: its place in
/// [`Decision::ALL`].
fn decision_code(decision: Decision) -> u32 {
    Decision::ALL
        .iter()
        .position(|d| *d == decision)
        .unwrap_or(0) as u32
}

/// [`Section::Strings`]: every string the tables point at, as `(offset, length)`.
#[derive(Default)]
struct StringPool(Vec<u8>);

impl StringPool {
    fn add(&mut self, s: &[u8]) -> Result<[u32; 2], EncodeError> {
        let offset = to_u32(self.0.len(), "the string pool")?;
        self.0.extend_from_slice(s);
        Ok([offset, to_u32(s.len(), "a string")?])
    }
}

/// Each section's bytes, placed by its [`Section`]: the order of the section table is the
/// enum's, whatever order the phases produce them in.
#[derive(Default)]
struct Sections([Option<Vec<u8>>; SECTION_COUNT]);

impl Sections {
    fn put(&mut self, section: Section, bytes: Vec<u8>) {
        debug_assert!(
            self.0[section as usize].is_none(),
            "{section:?} placed twice"
        );
        self.0[section as usize] = Some(bytes);
    }
    fn put_words(&mut self, section: Section, words: Words) {
        self.put(section, words.into_bytes());
    }
    /// All sections in table order; an error names a section no phase wrote.
    fn finish(self) -> Result<[Vec<u8>; SECTION_COUNT], EncodeError> {
        let mut out: [Vec<u8>; SECTION_COUNT] = Default::default();
        for (section, (slot, bytes)) in Section::ALL.iter().zip(out.iter_mut().zip(self.0)) {
            *slot = bytes
                .ok_or_else(|| EncodeError(format!("the encoder wrote no {section:?} section")))?;
        }
        Ok(out)
    }
}

/// [`Section::Rules`] and [`Section::RuleGlobs`], and who posts each rule: its matchers, else
/// its globs, else every call (a universal rule).
struct RuleTables {
    rules: Words,
    rule_globs: Words,
    matcher_rules: Vec<Vec<u32>>,
    glob_rules: Vec<Vec<u32>>,
    universal_rules: Vec<u32>,
}

/// [`Section::Matchers`], [`Section::ChainPieces`], [`Section::Postings`] and
/// [`Section::Globs`], and the distinct chain pieces the literal index must find.
struct MatcherTables<'i> {
    matchers: Words,
    chain_pieces: Words,
    postings: Words,
    globs: Words,
    universal: [u32; 2],
    /// Distinct `(field, piece)` pairs in id order: each is indexed once.
    pieces: Vec<(u32, &'i [u8])>,
}

/// The literal index: [`Section::LiteralSlots`], [`Section::LiteralGroups`],
/// [`Section::LiteralEntries`], [`Section::LiteralBloom`], [`Section::LiteralPrefilter`], and
/// the key lengths each field indexes.
struct LiteralIndex {
    slots: Vec<u32>,
    groups: Words,
    entries: Words,
    bloom: Vec<u32>,
    prefilter: Vec<u8>,
    key_masks: Vec<u32>,
}

/// `(field, key length, key)` → the `(literal, matcher or piece entry)` pairs of that group.
type LiteralGroups = BTreeMap<(u32, u32, u64), Vec<(Vec<u8>, u32)>>;

impl SidecarImage {
    /// Lay the image out as a sidecar bound to `policy_json`: the exact bytes written as
    /// `animus-policy.json`, whose rules must be the image's rules in the same order (each rule
    /// record points at its object there).
    pub fn encode(&self, policy_json: &[u8]) -> Result<Vec<u8>, EncodeError> {
        let default_decision = self
            .default_decision
            .ok_or_else(|| EncodeError("the image has no default decision".into()))?;
        // The phases add strings in this order; the order is part of the file's bytes.
        let mut strings = StringPool::default();
        let rules = self.rule_tables(&rule_spans(policy_json, &self.rules)?)?;
        let matchers = self.matcher_tables(&rules, &mut strings)?;
        let index = self.literal_index(&matchers.pieces, &mut strings)?;
        let mut sections = Sections::default();
        let tool_automata_first =
            self.field_tables(&index.key_masks, &mut strings, &mut sections)?;
        self.automaton_tables(&mut sections)?;
        let tool_names = self.tool_table(&self.exact_tools, "tool name", &mut strings)?;
        let tool_prefixes = self.tool_table(&self.tool_prefixes, "tool prefix", &mut strings)?;

        let [universal_first, universal_count] = matchers.universal;
        let mut globals = Words::default();
        globals.record(GlobalsRecord {
            default_decision: decision_code(default_decision),
            rule_count: to_u32(self.rules.len(), "the rule count")?,
            glob_count: self.glob_count,
            matcher_count: to_u32(self.matchers.len(), "the matcher count")?,
            field_count: to_u32(self.fields.len(), "the field count")?,
            tool_automata_first,
            tool_automata_count: self.tool_automata.len() as u32,
            universal_first,
            universal_count,
        });
        sections.put(Section::Strings, strings.0);
        sections.put_words(Section::Rules, rules.rules);
        sections.put_words(Section::RuleGlobs, rules.rule_globs);
        sections.put_words(Section::Matchers, matchers.matchers);
        sections.put_words(Section::Postings, matchers.postings);
        sections.put_words(Section::Globs, matchers.globs);
        sections.put_words(Section::ChainPieces, matchers.chain_pieces);
        sections.put_words(Section::LiteralSlots, Words(index.slots));
        sections.put_words(Section::LiteralGroups, index.groups);
        sections.put_words(Section::LiteralEntries, index.entries);
        sections.put(Section::LiteralPrefilter, index.prefilter);
        sections.put_words(Section::LiteralBloom, Words(index.bloom));
        sections.put_words(Section::Globals, globals);
        sections.put_words(Section::ToolNames, tool_names);
        sections.put_words(Section::ToolPrefixes, tool_prefixes);
        assemble(&sections.finish()?, policy_json)
    }

    /// The rule table (each rule's id and reason spans in the JSON, decision and event mask,
    /// matcher count, globs), and the posting list each rule goes on.
    fn rule_tables(&self, spans: &[[(u32, u32); 2]]) -> Result<RuleTables, EncodeError> {
        let mut tables = RuleTables {
            rules: Words::default(),
            rule_globs: Words::default(),
            matcher_rules: vec![Vec::new(); self.matchers.len()],
            glob_rules: vec![Vec::new(); self.glob_count as usize],
            universal_rules: Vec::new(),
        };
        for ((index, rule), [id_span, reason_span]) in self.rules.iter().enumerate().zip(spans) {
            let index = to_u32(index, "the rule count")?;
            let glob_first = tables.rule_globs.len();
            tables.rule_globs.push(&rule.globs);
            tables.rules.record(RuleRecord {
                id_offset: id_span.0,
                id_len: id_span.1,
                reason_offset: reason_span.0,
                reason_len: reason_span.1,
                decision_and_events: RuleRecord::pack_decision(
                    decision_code(rule.decision),
                    rule.event_mask,
                ),
                matcher_count: to_u32(rule.matchers.len(), "a rule's matcher count")?,
                glob_first,
                glob_count: to_u32(rule.globs.len(), "a rule's glob count")?,
            });
            let out_of_range = |what: &str, id: u32| {
                EncodeError(format!(
                    "rule `{}` names {what} {id}, which does not exist",
                    rule.id
                ))
            };
            // The rule posted once in each list of `lists` named by `ids`.
            let post = |lists: &mut Vec<Vec<u32>>, ids: &[u32], what| {
                ids.iter().try_for_each(|&id| {
                    lists
                        .get_mut(id as usize)
                        .ok_or_else(|| out_of_range(what, id))
                        .map(|list| list.push(index))
                })
            };
            if !rule.matchers.is_empty() {
                // Every distinct matcher of the rule posts the rule once.
                post(&mut tables.matcher_rules, &rule.matchers, "matcher")?;
            } else if rule.globs.is_empty() {
                tables.universal_rules.push(index);
            } else {
                post(&mut tables.glob_rules, &rule.globs, "glob")?;
            }
        }
        Ok(tables)
    }

    /// The matcher table with its chain pieces, and the posting lists: every matcher's, then
    /// every glob's, then the universal rules'.
    fn matcher_tables(
        &self,
        rules: &RuleTables,
        strings: &mut StringPool,
    ) -> Result<MatcherTables<'_>, EncodeError> {
        let mut postings = Words::default();
        let mut post = |list: &[u32]| -> [u32; 2] {
            let first = postings.len();
            postings.push(list);
            [first, list.len() as u32]
        };
        let mut matchers = Words::default();
        let mut chain_pieces = Words::default();
        let mut piece_ids: BTreeMap<(u32, &[u8]), u32> = BTreeMap::new();
        let mut pieces: Vec<(u32, &[u8])> = Vec::new();
        for (id, (matcher, posted)) in self.matchers.iter().zip(&rules.matcher_rules).enumerate() {
            let [first, count] = post(posted);
            let chain_first = chain_pieces.len() / CHAIN_PIECE_WIDTH as u32;
            let at_start = matcher.kind == MatcherKind::ConfirmedAtStart;
            if at_start == matcher.text_prefixes.is_empty() || at_start && !matcher.chain.is_empty()
            {
                return Err(EncodeError(format!(
                    "matcher {id} has text prefixes without being confirmed at the text's start, or \
                     is confirmed there without any"
                )));
            }
            // A matcher confirmed at the text's start keeps its prefixes where a chain keeps
            // its pieces, none indexed: the engine compares them with the text's start.
            let pieces_of = if at_start {
                &matcher.text_prefixes
            } else {
                &matcher.chain
            };
            for piece in pieces_of {
                let [offset, len] = strings.add(piece)?;
                if at_start || piece.len() < MIN_INDEXED_PIECE {
                    chain_pieces.record(ChainPieceRecord {
                        offset,
                        len,
                        id: PIECE_NOT_INDEXED,
                    });
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
                chain_pieces.record(ChainPieceRecord { offset, len, id });
            }
            let chain_count = to_u32(pieces_of.len(), "a literal chain")?;
            matchers.record(MatcherRecord {
                field: matcher.field,
                kind: matcher.kind as u32,
                automaton: matcher.automaton,
                posting_first: first,
                posting_count: count,
                chain_first,
                chain: MatcherRecord::pack_chain(
                    chain_count,
                    matcher.chain_ends_at_word,
                    matcher.chain_ends_text,
                ),
            });
        }
        let mut globs = Words::default();
        for posted in &rules.glob_rules {
            let [posting_first, posting_count] = post(posted);
            globs.record(GlobRecord {
                posting_first,
                posting_count,
            });
        }
        let universal = post(&rules.universal_rules);
        Ok(MatcherTables {
            matchers,
            chain_pieces,
            postings,
            globs,
            universal,
            pieces,
        })
    }

    /// Group every literal (of the matchers decided by literals, and the chain pieces) by
    /// `(field, key length, key)`, with each field's prefilter and key lengths.
    fn literal_groups(
        &self,
        pieces: &[(u32, &[u8])],
    ) -> Result<(LiteralGroups, Vec<u32>, Vec<u8>), EncodeError> {
        let mut groups = LiteralGroups::new();
        let mut key_masks = vec![0u32; self.fields.len()];
        let mut prefilter = vec![0u8; self.fields.len() * PREFILTER_BYTES];
        // The error is what the literal has wrong, a phrase for the caller's message.
        let mut index = |field: u32, literal: &[u8], target: u32| -> Result<(), &'static str> {
            if literal.is_empty() {
                return Err("an empty literal");
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
                    | MatcherKind::ConfirmedAtStart
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
        Ok((groups, key_masks, prefilter))
    }

    /// The literal index: the groups in an open-addressing hash table at most half full, each
    /// group's literals sorted (the engine binary-searches them), and the Bloom filter.
    fn literal_index(
        &self,
        pieces: &[(u32, &[u8])],
        strings: &mut StringPool,
    ) -> Result<LiteralIndex, EncodeError> {
        let (groups, key_masks, prefilter) = self.literal_groups(pieces)?;
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
            literal_groups.record(LiteralGroupRecord {
                field,
                key_len,
                key_low: key as u32,
                key_high: (key >> 32) as u32,
                entry_first: first_entry,
                entry_count: entries.len() as u32,
            });
            for (literal, matcher) in &entries {
                let [offset, len] = strings.add(literal)?;
                let tail = tail_word(&literal[key_len as usize..]);
                literal_entries.record(LiteralEntryRecord {
                    offset,
                    len,
                    target: *matcher,
                    tail_low: tail as u32,
                    tail_high: (tail >> 32) as u32,
                });
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
        Ok(LiteralIndex {
            slots,
            groups: literal_groups,
            entries: literal_entries,
            bloom,
            prefilter,
            key_masks,
        })
    }

    /// [`Section::Fields`], [`Section::MatcherLists`] (each field's always-matching matchers)
    /// and [`Section::AutomatonLists`] (each field's scan automata, then the tool automata,
    /// whose first index is returned for the globals record).
    fn field_tables(
        &self,
        key_masks: &[u32],
        strings: &mut StringPool,
        sections: &mut Sections,
    ) -> Result<u32, EncodeError> {
        let mut automaton_lists = Words::default();
        let mut fields = Words::default();
        let mut matcher_lists = Words::default();
        for (id, field) in self.fields.iter().enumerate() {
            let [path_offset, path_len] = strings.add(field.path.as_bytes())?;
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
            fields.record(FieldRecord {
                path_offset,
                path_len,
                key_lengths: key_masks[id],
                scan_first,
                scan_count: field.scan_automata.len() as u32,
                always_first,
                always_count: always.len() as u32,
                view_and_tags: FieldRecord::pack_view(view_code(field.view), field.path_tags),
            });
        }
        let tool_first = automaton_lists.len();
        automaton_lists.push(&self.tool_automata);
        sections.put_words(Section::Fields, fields);
        sections.put_words(Section::MatcherLists, matcher_lists);
        sections.put_words(Section::AutomatonLists, automaton_lists);
        Ok(tool_first)
    }

    /// [`Section::Automata`], [`Section::AutomatonTargets`] and [`Section::DfaBytes`] (each
    /// DFA 8-byte aligned).
    fn automaton_tables(&self, sections: &mut Sections) -> Result<(), EncodeError> {
        let mut automata = Words::default();
        let mut targets = Words::default();
        let mut dfa_bytes: Vec<u8> = Vec::new();
        for automaton in &self.automata {
            while !dfa_bytes.len().is_multiple_of(8) {
                dfa_bytes.push(0);
            }
            let offset = to_u32(dfa_bytes.len(), "the DFA section")?;
            dfa_bytes.extend_from_slice(&automaton.dfa_bytes);
            automata.record(AutomatonRecord {
                offset,
                len: to_u32(automaton.dfa_bytes.len(), "a DFA")?,
                search: automaton.search as u32,
                target_first: targets.len(),
                target_count: automaton.targets.len() as u32,
                form: automaton.form as u32,
            });
            targets.push(&automaton.targets);
        }
        sections.put_words(Section::Automata, automata);
        sections.put_words(Section::AutomatonTargets, targets);
        sections.put(Section::DfaBytes, dfa_bytes);
        Ok(())
    }

    /// A sorted table of tool names or prefixes, each with its glob id.
    fn tool_table(
        &self,
        entries: &[(String, u32)],
        what: &str,
        strings: &mut StringPool,
    ) -> Result<Words, EncodeError> {
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
            let [offset, len] = strings.add(name.as_bytes())?;
            // Tool names and tool prefixes share one record shape.
            words.record(ToolNameRecord {
                offset,
                len,
                glob: *glob,
            });
        }
        Ok(words)
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
