//! Literal chains (`curl * | bash`): the pieces in order, by substring search; and the text
//! prefixes of a matcher confirmed at the text's start, kept where a chain keeps its pieces.

use super::*;

impl CompiledPolicy {
    /// Does `text` start with one of the prefixes of `matcher`, a
    /// [`MatcherKind::ConfirmedAtStart`] (its chain pieces)? Only then can its regex match.
    pub(super) fn starts_with_a_prefix(
        &self,
        matcher: &MatcherRecord,
        text: &[u8],
    ) -> Checked<bool> {
        let (first, count) = (matcher.chain_first as usize, matcher.chain_len());
        if count == 0 {
            return Err(Inconsistent(
                "a matcher confirmed at the start has no prefixes",
            ));
        }
        for i in first..first + count {
            let piece = self.record::<ChainPieceRecord>(i)?;
            if text.starts_with(self.bytes_at(piece.offset, piece.len)?) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Does the literal chain of `matcher` match `text`? Its literal (the piece the compiler
    /// chose to index, see `compiler::lower`) occurs, and `present` holds the ids of the chain
    /// pieces that occur in `text` (sorted). Unless all of the chain's do, it cannot match;
    /// otherwise the order is checked from the start of the text: each piece is taken at its
    /// earliest occurrence after the previous one (greedy is optimal for `.*` gaps); a last
    /// piece that must end a word is tried at every occurrence until one is followed by
    /// whitespace or the end.
    pub(super) fn chain_matches(&self, matcher: u32, text: &str, present: &[u32]) -> Checked<bool> {
        // Bytes throughout: pieces and text are valid UTF-8, so a byte match of a piece always
        // starts and ends on character boundaries.
        let text = text.as_bytes();
        let record = self.record::<MatcherRecord>(matcher as usize)?;
        let (first, count, ends_at_word, ends_text) = (
            record.chain_first as usize,
            record.chain_len(),
            record.chain_ends_at_word(),
            record.chain_ends_text(),
        );
        let piece = |i: usize| -> Checked<&[u8]> {
            let piece = self.record::<ChainPieceRecord>(first + i)?;
            self.bytes_at(piece.offset, piece.len)
        };
        if count == 0 {
            return Err(Inconsistent("a literal chain has no pieces"));
        }
        for i in 0..count {
            let id = self.record::<ChainPieceRecord>(first + i)?.id;
            if id != PIECE_NOT_INDEXED && present.binary_search(&id).is_err() {
                return Ok(false);
            }
        }
        let last = count - 1;
        if ends_text {
            // The last piece must end the text: the others, greedily, before it.
            let last_piece = piece(last)?;
            if !text.ends_with(last_piece) {
                return Ok(false);
            }
            let limit = text.len() - last_piece.len();
            let mut at = 0;
            for i in 0..last {
                let needle = piece(i)?;
                let Some(found) = text
                    .get(at..limit)
                    .and_then(|rest| find_bytes(rest, needle))
                else {
                    return Ok(false);
                };
                at += found + needle.len();
            }
            return Ok(true);
        }
        let mut at = 0;
        let mut last_start = 0;
        for i in 0..count {
            let needle = piece(i)?;
            let rest = text
                .get(at..)
                .ok_or(Inconsistent("a chain piece lies past the text"))?;
            let Some(found) = find_bytes(rest, needle) else {
                return Ok(false);
            };
            last_start = at + found;
            at = last_start + needle.len();
        }
        if !ends_at_word {
            return Ok(true);
        }
        // Try every occurrence of the last piece, from the earliest, for a word end.
        let last_piece = piece(last)?;
        let mut candidate = last_start;
        loop {
            let after = text
                .get(candidate + last_piece.len()..)
                .ok_or(Inconsistent("a chain piece lies past the text"))?;
            if next_char(after).is_none_or(char::is_whitespace) {
                return Ok(true);
            }
            let search_from = candidate + 1;
            let Some(next) = text
                .get(search_from..)
                .and_then(|rest| find_bytes(rest, last_piece))
            else {
                return Ok(false);
            };
            candidate = search_from + next;
        }
    }
}

/// Where `needle` first occurs in `haystack`. The texts are short (a command, a path) and the
/// needles shorter: a scan for the first byte and a compare beats setting up a `str::find`
/// searcher, which dominated deciding at 100,000 rules.
pub(super) fn find_bytes(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    let (Some(&first), Some(&last)) = (needle.first(), needle.last()) else {
        return Some(0);
    };
    let last_start = haystack.len().checked_sub(needle.len())?;
    let mut from = 0;
    while from <= last_start {
        let found = from
            + haystack[from..=last_start]
                .iter()
                .position(|&b| b == first)?;
        // The last byte rejects most candidates without a call to `memcmp`.
        if haystack[found + needle.len() - 1] == last
            && haystack[found..found + needle.len()]
                .iter()
                .zip(needle)
                .all(|(a, b)| a == b)
        {
            return Some(found);
        }
        from = found + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_bytes_is_str_find() {
        let cases = [
            ("curl x | bash", " | bash"),
            ("aaab", "aab"),
            ("abc", "abcd"),
            ("abc", ""),
            ("", "a"),
            ("héllo wörld", "wö"),
            ("x--force--force", "--force"),
            ("ab", "b"),
        ];
        for (haystack, needle) in cases {
            assert_eq!(
                find_bytes(haystack.as_bytes(), needle.as_bytes()),
                haystack.find(needle),
                "{haystack:?} {needle:?}"
            );
        }
    }
}
