//! The sidecar's fixed-width records, one type per kind, shared by the writer
//! ([`super::encode`]) and the reader ([`crate::compiled`]): each is a run of little-endian
//! `u32` words in the section its [`Record::SECTION`] names, its fields in file order. A field
//! that packs two values has accessors next to it; everything else is read by name.

use super::format::Section;

/// A fixed-width record of little-endian `u32` words in one section of the sidecar.
pub trait Record: Copy {
    /// The section that holds records of this kind, back to back.
    const SECTION: Section;
    /// Words per record.
    const WIDTH: usize;
    /// The record whose words are `words` (exactly [`Record::WIDTH`] of them).
    fn from_words(words: &[u32]) -> Self;
    /// Append the record's words to `out`.
    fn write_to(&self, out: &mut Vec<u32>);
}

/// The widest record, in words: the reader's buffer.
pub const MAX_RECORD_WIDTH: usize = 9;

macro_rules! records {
    ($(
        $(#[$doc:meta])*
        $name:ident in $section:ident {
            $( $(#[$field_doc:meta])* $field:ident, )+
        }
    )+) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
        pub struct $name {
            $( $(#[$field_doc])* pub $field: u32, )+
        }

        impl Record for $name {
            const SECTION: Section = Section::$section;
            const WIDTH: usize = [$(stringify!($field)),+].len();

            #[inline]
            fn from_words(words: &[u32]) -> Self {
                let mut words = words.iter().copied();
                $name { $( $field: words.next().unwrap_or_default(), )+ }
            }

            fn write_to(&self, out: &mut Vec<u32>) {
                out.extend_from_slice(&[$(self.$field),+]);
            }
        }
    )+};
}

records! {
    /// One rule, in policy order ([`Section::Rules`]). Its id and reason are not copied: they
    /// are read from `animus-policy.json`, only for rules that fire.
    RuleRecord in Rules {
        /// Offset of the rule's `id` string token in `animus-policy.json`.
        id_offset,
        /// Length of that token.
        id_len,
        /// Offset of the rule's `reason` string token in `animus-policy.json`.
        reason_offset,
        /// Length of that token.
        reason_len,
        /// The decision's place in [`crate::Decision::ALL`] (low byte) and the event mask
        /// (second byte): [`RuleRecord::decision_code`], [`RuleRecord::event_mask`].
        decision_and_events,
        /// How many distinct matchers the rule has, all of which must match.
        matcher_count,
        /// First of the rule's glob ids in [`Section::RuleGlobs`].
        glob_first,
        /// How many glob ids (none = every tool).
        glob_count,
    }

    /// One distinct `(field, regex)` matcher ([`Section::Matchers`]).
    MatcherRecord in Matchers {
        /// The field id.
        field,
        /// Its [`super::MatcherKind`].
        kind,
        /// Its confirming automaton ([`super::MatcherKind::Confirmed`],
        /// [`super::MatcherKind::StartsWithLiteral`]).
        automaton,
        /// First rule index in [`Section::Postings`]: the rules using the matcher.
        posting_first,
        /// How many.
        posting_count,
        /// First chain piece in [`Section::ChainPieces`] ([`super::MatcherKind::LiteralChain`]).
        chain_first,
        /// The chain piece count × 4, + 1 if the chain must end at a word end, + 2 if it must
        /// end the text: [`MatcherRecord::chain_len`] and the two flags.
        chain,
    }

    /// One tool glob ([`Section::Globs`]): the rules without input matchers that name it.
    GlobRecord in Globs {
        /// First rule index in [`Section::Postings`].
        posting_first,
        /// How many.
        posting_count,
    }

    /// One distinct `(path, view)` field ([`Section::Fields`]).
    FieldRecord in Fields {
        /// Offset of the dot path into `tool_input` in [`Section::Strings`].
        path_offset,
        /// Its length.
        path_len,
        /// Literal-length mask: bit k-1 set when the index holds literals keyed by k bytes.
        key_lengths,
        /// First of the field's scan automata in [`Section::AutomatonLists`].
        scan_first,
        /// How many.
        scan_count,
        /// First of its always-matching matchers in [`Section::MatcherLists`].
        always_first,
        /// How many.
        always_count,
        /// Which texts of the field its matchers search ([`super::format::view_code`], low
        /// byte) and, for a path view, the bases its matchers are anchored to
        /// ([`crate::paths::TagSet::bits`], second byte; 0: every base):
        /// [`FieldRecord::view_code`], [`FieldRecord::path_tags`].
        view_and_tags,
    }

    /// A group of literals sharing `(field, key length, key)` ([`Section::LiteralGroups`]).
    LiteralGroupRecord in LiteralGroups {
        /// The field id.
        field,
        /// The key length k (1–8).
        key_len,
        /// The key (the first k bytes, little-endian, as a `u64`): low word.
        key_low,
        /// High word.
        key_high,
        /// First entry in [`Section::LiteralEntries`].
        entry_first,
        /// How many, sorted by literal.
        entry_count,
    }

    /// One literal of a group ([`Section::LiteralEntries`]). A group's entries are sorted by
    /// literal, so by tail word too: the engine binary-searches integers, not byte strings.
    LiteralEntryRecord in LiteralEntries {
        /// Offset of the literal in [`Section::Strings`].
        offset,
        /// Its length.
        len,
        /// The matcher it stands for, or [`super::format::PIECE_ENTRY`] | a chain piece id.
        target,
        /// The literal's tail word (the big-endian number of its first 8 bytes after the
        /// group key, zero-padded): low word.
        tail_low,
        /// High word.
        tail_high,
    }

    /// One piece of a literal chain ([`Section::ChainPieces`]).
    ChainPieceRecord in ChainPieces {
        /// Offset of the piece in [`Section::Strings`].
        offset,
        /// Its length.
        len,
        /// The piece's id: equal pieces of one field share one, and the literal index reports
        /// an occurrence of each; [`super::format::PIECE_NOT_INDEXED`] for a piece too short
        /// to index (taken as present).
        id,
    }

    /// One DFA ([`Section::Automata`]).
    AutomatonRecord in Automata {
        /// Byte offset in [`Section::DfaBytes`].
        offset,
        /// Byte length.
        len,
        /// Its [`super::SearchKind`].
        search,
        /// First target in [`Section::AutomatonTargets`]: pattern i stands for target i.
        target_first,
        /// How many (the DFA's pattern count).
        target_count,
        /// Its [`super::DfaForm`].
        form,
    }

    /// The one globals record ([`Section::Globals`]).
    GlobalsRecord in Globals {
        /// The default decision's place in [`crate::Decision::ALL`].
        default_decision,
        /// How many rules.
        rule_count,
        /// How many distinct tool globs.
        glob_count,
        /// How many matchers.
        matcher_count,
        /// How many fields.
        field_count,
        /// First tool automaton in [`Section::AutomatonLists`].
        tool_automata_first,
        /// How many.
        tool_automata_count,
        /// First universal rule (no matcher, no glob) in [`Section::Postings`].
        universal_first,
        /// How many.
        universal_count,
    }

    /// A tool glob without `*`: an exact tool name ([`Section::ToolNames`], sorted by name).
    ToolNameRecord in ToolNames {
        /// Offset of the name in [`Section::Strings`].
        offset,
        /// Its length.
        len,
        /// The glob id.
        glob,
    }

    /// A tool glob `P*` ([`Section::ToolPrefixes`], sorted by `P`).
    ToolPrefixRecord in ToolPrefixes {
        /// Offset of the prefix `P` in [`Section::Strings`].
        offset,
        /// Its length.
        len,
        /// The glob id.
        glob,
    }
}

impl RuleRecord {
    /// Pack a decision code and an event mask into [`RuleRecord::decision_and_events`].
    pub fn pack_decision(decision_code: u32, event_mask: u8) -> u32 {
        decision_code | (u32::from(event_mask) << 8)
    }
    /// The decision's place in [`crate::Decision::ALL`].
    pub fn decision_code(&self) -> u32 {
        self.decision_and_events & 0xff
    }
    /// [`crate::semantics::event_mask`] of the rule's events.
    pub fn event_mask(&self) -> u8 {
        (self.decision_and_events >> 8) as u8
    }
}

impl MatcherRecord {
    /// Pack a chain's piece count and its two end conditions into [`MatcherRecord::chain`].
    pub fn pack_chain(pieces: u32, ends_at_word: bool, ends_text: bool) -> u32 {
        (pieces << 2) | u32::from(ends_at_word) | u32::from(ends_text) << 1
    }
    /// How many pieces the chain has.
    pub fn chain_len(&self) -> usize {
        (self.chain >> 2) as usize
    }
    /// The chain's last piece must be followed by whitespace or the end.
    pub fn chain_ends_at_word(&self) -> bool {
        self.chain & 1 == 1
    }
    /// The chain's last piece must end the text.
    pub fn chain_ends_text(&self) -> bool {
        self.chain & 2 == 2
    }
}

impl FieldRecord {
    /// Pack a view code and a path field's tag set into [`FieldRecord::view_and_tags`].
    pub fn pack_view(view_code: u32, path_tags: u8) -> u32 {
        view_code | (u32::from(path_tags) << 8)
    }
    /// The view's code ([`super::format::view_of_code`] reads it). A code beyond the third
    /// byte's reach stays unknown: the high bytes are kept in it.
    pub fn view_code(&self) -> u32 {
        self.view_and_tags & !0xff00
    }
    /// The bases a path field's matchers are anchored to ([`crate::paths::TagSet::from_bits`]).
    pub fn path_tags(&self) -> crate::paths::TagSet {
        crate::paths::TagSet::from_bits((self.view_and_tags >> 8) as u8)
    }
}

impl LiteralGroupRecord {
    /// The group's key as one `u64`.
    pub fn key(&self) -> u64 {
        u64::from(self.key_low) | u64::from(self.key_high) << 32
    }
}

impl LiteralEntryRecord {
    /// The literal's tail word as one `u64`.
    pub fn tail(&self) -> u64 {
        u64::from(self.tail_low) | u64::from(self.tail_high) << 32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip<R: Record + PartialEq + std::fmt::Debug>(width: usize) {
        assert_eq!(R::WIDTH, width);
        assert!(R::WIDTH <= MAX_RECORD_WIDTH);
        let words: Vec<u32> = (1..=R::WIDTH as u32).collect();
        let record = R::from_words(&words);
        let mut out = Vec::new();
        record.write_to(&mut out);
        assert_eq!(out, words, "{}", std::any::type_name::<R>());
    }

    #[test]
    fn records_have_their_widths_and_round_trip_in_order() {
        round_trip::<RuleRecord>(8);
        round_trip::<MatcherRecord>(7);
        round_trip::<GlobRecord>(2);
        round_trip::<FieldRecord>(8);
        round_trip::<LiteralGroupRecord>(6);
        round_trip::<LiteralEntryRecord>(5);
        round_trip::<ChainPieceRecord>(3);
        round_trip::<AutomatonRecord>(6);
        round_trip::<GlobalsRecord>(9);
        round_trip::<ToolNameRecord>(3);
        round_trip::<ToolPrefixRecord>(3);
    }

    #[test]
    fn packed_words_unpack() {
        let rule = RuleRecord {
            decision_and_events: RuleRecord::pack_decision(2, 0b101),
            ..Default::default()
        };
        assert_eq!((rule.decision_code(), rule.event_mask()), (2, 0b101));
        let matcher = MatcherRecord {
            chain: MatcherRecord::pack_chain(5, true, false),
            ..Default::default()
        };
        assert_eq!(matcher.chain_len(), 5);
        assert!(matcher.chain_ends_at_word() && !matcher.chain_ends_text());
        let group = LiteralGroupRecord {
            key_low: 1,
            key_high: 2,
            ..Default::default()
        };
        assert_eq!(group.key(), 1 | 2 << 32);
        let field = FieldRecord {
            view_and_tags: FieldRecord::pack_view(7, 0b0110),
            ..Default::default()
        };
        assert_eq!(field.view_code(), 7);
        assert_eq!(field.path_tags().bits(), 0b0110);
        let unknown = FieldRecord {
            view_and_tags: FieldRecord::pack_view(7, 0),
            ..Default::default()
        };
        assert_eq!(unknown.path_tags(), crate::paths::TagSet::ALL);
    }
}
