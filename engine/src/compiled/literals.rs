//! The literal index: every byte position of a text probed with its next 1–8 bytes (a Bloom
//! filter, then an open-addressing hash table of literal groups), each candidate compared in
//! full; and the sorted-prefix searches the tool tables and the groups share.

use super::*;

/// Where [`CompiledPolicy::search_literals`] sorts the literal occurrences of a text.
pub(super) struct LiteralHits<'h> {
    /// Exact and word-prefix matchers that matched.
    pub(super) matched: &'h mut Vec<u32>,
    /// The automata that must confirm a matcher, with the literal's position for those
    /// anchored there.
    pub(super) to_confirm: &'h mut Vec<(u32, Option<usize>)>,
    /// Literal chains whose indexed piece occurs.
    pub(super) chains: &'h mut Vec<u32>,
    /// The ids of the chain pieces that occur.
    pub(super) pieces: &'h mut Vec<u32>,
}

impl CompiledPolicy {
    /// Probe the literal index at every position of `text` and sort what occurs into `hits`.
    pub(super) fn search_literals(
        &self,
        field_id: u32,
        key_lengths: u32,
        text: &[u8],
        hits: LiteralHits<'_>,
    ) -> Checked<()> {
        let LiteralHits {
            matched,
            to_confirm,
            chains,
            pieces,
        } = hits;
        let slot_count = self.section(Section::LiteralSlots).len() / 4;
        if slot_count == 0 {
            return Ok(());
        }
        let bits = slot_count.trailing_zeros();
        // The hot loop: resolve the two probed tables once, not per probe.
        let bloom = self.section(Section::LiteralBloom);
        let tables = LiteralTables {
            slots: self.section(Section::LiteralSlots),
            groups: self.section(Section::LiteralGroups),
            bloom,
            bloom_shift: 64 - (bloom.len() * 8).trailing_zeros(),
        };
        let prefilter = self
            .section(Section::LiteralPrefilter)
            .get(field_id as usize * PREFILTER_BYTES..(field_id as usize + 1) * PREFILTER_BYTES)
            .ok_or(Inconsistent("a field has no literal prefilter"))?;
        let (pairs, rest_of_prefilter) = prefilter.split_at(PREFILTER_SINGLE_BYTES);
        let (single_bytes, trigrams) =
            rest_of_prefilter.split_at(PREFILTER_TRIGRAM_SET - PREFILTER_SINGLE_BYTES);
        for start in 0..text.len() {
            let rest = &text[start..];
            let available = rest.len().min(MAX_KEY_LEN);
            // Which key lengths can start here: one byte if it is a one-byte literal, two if
            // some two-byte literal starts with these two bytes, more only if some literal also
            // starts with these three.
            let first = rest[0];
            let mut lengths = u32::from(single_bytes[first as usize / 8] >> (first % 8) & 1);
            if let [_, second, ..] = rest[..] {
                let mut longer = u32::from(pairs[prefilter_slot(first, second)]) & key_lengths;
                if longer > 0b10 {
                    let trigram_possible = rest.get(2).is_some_and(|&third| {
                        let bit = prefilter_trigram(first, second, third);
                        trigrams[bit / 8] >> (bit % 8) & 1 == 1
                    });
                    if !trigram_possible {
                        longer &= 0b10;
                    }
                }
                lengths |= longer;
            }
            lengths &= (1u32 << available) - 1;
            if lengths == 0 {
                continue;
            }
            // Keyed as `format::literal_key` keys literals; shorter keys are masked from it.
            // (Calling `literal_key` here measured ~5% slower at 100 rules.)
            let mut word = [0u8; 8];
            word[..available].copy_from_slice(&rest[..available]);
            let next_eight = u64::from_le_bytes(word);
            while lengths != 0 {
                let key_len = lengths.trailing_zeros() + 1;
                lengths &= lengths - 1;
                let key = if key_len == 8 {
                    next_eight
                } else {
                    next_eight & ((1u64 << (8 * key_len)) - 1)
                };
                let Some((first_entry, entry_count)) =
                    self.find_literal_group(&tables, field_id, key_len, key, bits)?
                else {
                    continue;
                };
                // The group's literals are sorted: find those that start `rest` by binary
                // search over their tail words, not by comparing each (a group can hold
                // hundreds at 100k rules).
                let entry = |i: usize| self.record::<LiteralEntryRecord>(first_entry as usize + i);
                group_prefixes_of(
                    rest,
                    key_len as usize,
                    entry_count as usize,
                    |i| Ok(entry(i)?.tail()),
                    |i| {
                        let entry = entry(i)?;
                        self.bytes_at(entry.offset, entry.len)
                    },
                    |i| {
                        let entry = entry(i)?;
                        if entry.target & PIECE_ENTRY != 0 {
                            pieces.push(entry.target & !PIECE_ENTRY);
                            return Ok(());
                        }
                        let matcher = self.record::<MatcherRecord>(entry.target as usize)?;
                        match MatcherKind::from_u32(matcher.kind) {
                            Some(MatcherKind::Exact) => matched.push(entry.target),
                            Some(MatcherKind::WordPrefix) => {
                                if next_char(&rest[entry.len as usize..])
                                    .is_none_or(char::is_whitespace)
                                {
                                    matched.push(entry.target);
                                }
                            }
                            Some(MatcherKind::EndsText) => {
                                if rest.len() == entry.len as usize {
                                    matched.push(entry.target);
                                }
                            }
                            Some(MatcherKind::Confirmed) => {
                                to_confirm.push((matcher.automaton, None))
                            }
                            Some(MatcherKind::ConfirmedAtStart) => {
                                if self.starts_with_a_prefix(&matcher, text)? {
                                    to_confirm.push((matcher.automaton, None))
                                }
                            }
                            Some(MatcherKind::LiteralChain) => chains.push(entry.target),
                            Some(MatcherKind::StartsWithLiteral) => {
                                to_confirm.push((matcher.automaton, Some(start)))
                            }
                            _ => {
                                return Err(Inconsistent(
                                    "a literal points at a matcher without literals",
                                ));
                            }
                        }
                        Ok(())
                    },
                )?;
            }
        }
        Ok(())
    }

    pub(super) fn find_literal_group(
        &self,
        tables: &LiteralTables<'_>,
        field_id: u32,
        key_len: u32,
        key: u64,
        bits: u32,
    ) -> Checked<Option<(u32, u32)>> {
        let slot_count = 1usize << bits;
        let hash = literal_slot_hash(field_id, key_len, key);
        let bloom_bit = (hash >> tables.bloom_shift) as usize;
        let bloom_word = read_word(tables.bloom, bloom_bit / 32)?;
        if bloom_word & (1 << (bloom_bit % 32)) == 0 {
            return Ok(None);
        }
        let mut slot = (hash >> (64 - bits)) as usize;
        // A well-formed table is at most half full; bounding the probe keeps a forged one finite.
        for _ in 0..slot_count {
            let group = read_word(tables.slots, slot)?;
            if group == 0 {
                return Ok(None);
            }
            let group = read_record::<LiteralGroupRecord>(tables.groups, group as usize - 1)?;
            if group.field == field_id && group.key_len == key_len && group.key() == key {
                return Ok(Some((group.entry_first, group.entry_count)));
            }
            slot = (slot + 1) & (slot_count - 1);
        }
        Ok(None)
    }
}

/// Visit (by index) every entry of a table sorted by `key` whose key is a prefix of `text`,
/// with a few binary searches instead of a comparison per entry. The largest entry `E` not
/// above the current bound is the only candidate of its length or longer: if `E` is a prefix
/// of the text it matches (with the equal entries just before it) and the search goes on below
/// it (`bound = text[..|E|-1]`); otherwise no entry longer than `E`'s common prefix `l` with
/// the text can be a prefix of it (it would sort after `E`), so `bound = text[..l]`. The bound
/// shrinks every step, so even an unsorted (forged) table only yields a wrong set, never a
/// hang.
pub(super) fn sorted_prefixes_of<'a>(
    text: &[u8],
    count: usize,
    key: impl Fn(usize) -> Checked<&'a [u8]>,
    mut visit: impl FnMut(usize) -> Checked<()>,
) -> Checked<()> {
    let mut bound = text.len();
    let mut searched = count;
    loop {
        // How many of the first `searched` entries are <= text[..bound].
        let not_above = partition_point(searched, |i| Ok(key(i)? <= &text[..bound]))?;
        let Some(mut i) = not_above.checked_sub(1) else {
            return Ok(());
        };
        let candidate = key(i)?;
        if text.starts_with(candidate) {
            visit(i)?;
            while i > 0 && key(i - 1)? == candidate {
                i -= 1;
                visit(i)?;
            }
            searched = i;
            match candidate.len().checked_sub(1) {
                Some(shorter) => bound = shorter,
                None => return Ok(()),
            }
        } else {
            searched = i;
            bound = candidate
                .iter()
                .zip(text)
                .take_while(|(a, b)| a == b)
                .count();
        }
    }
}

/// Visit every entry of a literal group whose literal starts `text`. The group's literals all
/// start with the `key_len`-byte key, which `text` starts with too; they are sorted by bytes,
/// and `tail(i)` is the [`tail_word`] of literal `i` after the key.
///
/// The largest entry whose tail word is at most the text's is examined first. If it starts
/// the text it is visited, and the one before it examined next. If not, no earlier entry can
/// start the text unless its tail word is the text's cut to the bytes the two words share: a
/// second binary search skips to the last such entry. Most groups take one integer binary
/// search and one comparison. Entries whose tail words equal the text's (literals sharing 16
/// or more bytes with it) fall back to [`sorted_prefixes_of`]. Every visit follows a full
/// comparison of the literal, whatever the tail words say.
pub(super) fn group_prefixes_of<'a>(
    text: &[u8],
    key_len: usize,
    count: usize,
    tail: impl Fn(usize) -> Checked<u64>,
    literal: impl Fn(usize) -> Checked<&'a [u8]>,
    mut visit: impl FnMut(usize) -> Checked<()>,
) -> Checked<()> {
    let text_tail = tail_word(text.get(key_len..).unwrap_or_default());
    let mut end = partition_point(count, |i| Ok(tail(i)? <= text_tail))?;
    while let Some(i) = end.checked_sub(1) {
        if text.starts_with(literal(i)?) {
            visit(i)?;
            end = i;
            continue;
        }
        let shared = ((tail(i)? ^ text_tail).leading_zeros() / 8) as usize;
        if shared >= 8 {
            return sorted_prefixes_of(text, i, &literal, &mut visit);
        }
        let cut = if shared == 0 {
            0
        } else {
            text_tail & !(u64::MAX >> (8 * shared))
        };
        end = partition_point(i, |j| Ok(tail(j)? <= cut))?;
    }
    Ok(())
}

/// The first character of `bytes` (which start on a character boundary of valid UTF-8).
pub(super) fn next_char(bytes: &[u8]) -> Option<char> {
    let head = &bytes[..bytes.len().min(4)];
    std::str::from_utf8(head)
        .or_else(|e| std::str::from_utf8(&head[..e.valid_up_to()]))
        .ok()
        .and_then(|s| s.chars().next())
}

/// The literal hash table and its groups, resolved once per search.
pub(super) struct LiteralTables<'a> {
    pub(super) slots: &'a [u8],
    pub(super) groups: &'a [u8],
    pub(super) bloom: &'a [u8],
    pub(super) bloom_shift: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorted_prefixes_are_exactly_the_prefixes() {
        let mut table: Vec<&[u8]> = vec![
            b"",
            b"B",
            b"Ba",
            b"BaZ",
            b"Bas",
            b"Bas",
            b"Bash",
            b"Bashful",
            b"Bat",
            b"C",
            b"mcp__",
            b"mcp__github__",
        ];
        table.sort();
        for text in [
            &b"Bash"[..],
            b"Bashful!",
            b"Ba",
            b"B",
            b"",
            b"mcp__github__x",
            b"Z",
        ] {
            let mut found = Vec::new();
            sorted_prefixes_of(
                text,
                table.len(),
                |i| Ok(table[i]),
                |i| {
                    found.push(i);
                    Ok(())
                },
            )
            .unwrap();
            found.sort();
            let expected: Vec<usize> = (0..table.len())
                .filter(|&i| text.starts_with(table[i]))
                .collect();
            assert_eq!(found, expected, "{:?}", String::from_utf8_lossy(text));
        }
    }

    proptest::proptest! {
        /// A group's literals starting a text are exactly those `group_prefixes_of` visits:
        /// a three-letter alphabet with NUL (so tail words tie on padding), suffixes up to 20
        /// bytes (so 8-byte tails are shared and the fallback runs), duplicates, and texts
        /// shorter than some literals.
        #[test]
        fn group_prefixes_are_exactly_the_prefixes(
            key_len in 1usize..=8,
            suffixes in proptest::collection::vec(
                proptest::collection::vec(proptest::sample::select(&b"ab\0"[..]), 0..20),
                0..40,
            ),
            text_suffix in proptest::collection::vec(proptest::sample::select(&b"ab\0"[..]), 0..24),
            continued in proptest::option::of(proptest::arbitrary::any::<proptest::sample::Index>()),
        ) {
            let key = &b"git push"[..key_len];
            let mut group: Vec<Vec<u8>> =
                suffixes.iter().map(|s| [key, s.as_slice()].concat()).collect();
            group.sort();
            // Half the time the text continues one of the literals (long shared tails).
            let text = match continued {
                Some(index) if !group.is_empty() => {
                    [index.get(&group).as_slice(), text_suffix.as_slice()].concat()
                }
                _ => [key, text_suffix.as_slice()].concat(),
            };
            let mut found = Vec::new();
            group_prefixes_of(
                &text,
                key_len,
                group.len(),
                |i| Ok(tail_word(&group[i][key_len..])),
                |i| Ok(group[i].as_slice()),
                |i| {
                    found.push(i);
                    Ok(())
                },
            )
            .unwrap();
            found.sort();
            let expected: Vec<usize> =
                (0..group.len()).filter(|&i| text.starts_with(&group[i])).collect();
            proptest::prop_assert_eq!(found, expected);
        }
    }
    #[test]
    fn next_char_decodes_one_character() {
        assert_eq!(next_char(b""), None);
        assert_eq!(next_char(b" x"), Some(' '));
        assert_eq!(next_char("ü x".as_bytes()), Some('ü'));
        assert_eq!(next_char("\u{a0}".as_bytes()), Some('\u{a0}'));
    }
}
