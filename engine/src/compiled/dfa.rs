//! The precompiled DFAs: anchored ones confirming a literal hit, and the multi-pattern scan
//! automata of patterns without a usable literal.

use super::*;

impl CompiledPolicy {
    /// Search `text` with automaton `id` (from `start` for automata anchored at a literal),
    /// adding the target of every pattern that matches.
    pub(super) fn run_automaton(
        &self,
        id: u32,
        text: &str,
        start: Option<usize>,
        matched: &mut Vec<u32>,
    ) -> Checked<()> {
        let record = self.record::<AutomatonRecord>(id as usize)?;
        let bytes = self
            .section(Section::DfaBytes)
            .get(record.offset as usize..record.offset as usize + record.len as usize)
            .ok_or(Inconsistent("a DFA lies outside the DFA section"))?;
        let search = SearchKind::from_u32(record.search)
            .ok_or(Inconsistent("a DFA has an unknown search kind"))?;
        let targets = Targets {
            policy: self,
            first: record.target_first as usize,
            count: record.target_count as usize,
        };
        let not_deserializable = |_| Inconsistent("a DFA does not deserialize");
        // Why both arms are sound: `from_bytes_unchecked` trusts the transition table. The loader
        // established that these are the bytes our compiler wrote with `write_to_little_endian`
        // from a DFA it had just built with this pinned regex-automata version (also checked),
        // in one of two ways (`sidecar::load::verify`): either it hashed the file and the digest
        // matched, or — the stamp path, where nothing is hashed — the compiler's stamp vouches
        // for this very file (same device, inode, size and change times as when the compiler
        // wrote and hashed it, in a directory only the user can write). A file changed under
        // the map after that is caught by `unchanged_since_load`, which discards the decision.
        // The stamp is not a signature: it defends against accidents and stale files, while a
        // same-user forger is kept out by the file checks and self-protection, not here.
        // Alignment and the DFA's own header are still checked by regex-automata and reported
        // as errors. See `crate::sidecar`, "Trust".
        match DfaForm::from_u32(record.form) {
            Some(DfaForm::Dense) => {
                // SAFETY: see above: bytes our compiler wrote, established by digest or stamp.
                let (dfa, _) = unsafe { dense::DFA::from_bytes_unchecked(bytes) }
                    .map_err(not_deserializable)?;
                search_with(&dfa, search, text, start, targets, matched)
            }
            Some(DfaForm::Sparse) => {
                // SAFETY: see above: bytes our compiler wrote, established by digest or stamp.
                let (dfa, _) = unsafe { sparse::DFA::from_bytes_unchecked(bytes) }
                    .map_err(not_deserializable)?;
                search_with(&dfa, search, text, start, targets, matched)
            }
            None => Err(Inconsistent("a DFA has an unknown form")),
        }
    }
}

/// The targets of one automaton's patterns.
#[derive(Clone, Copy)]
pub(super) struct Targets<'a> {
    pub(super) policy: &'a CompiledPolicy,
    pub(super) first: usize,
    pub(super) count: usize,
}

impl Targets<'_> {
    pub(super) fn get(&self, pattern: usize) -> Checked<u32> {
        self.policy
            .word(Section::AutomatonTargets, self.first + pattern)
    }
}

/// Search `text` with `dfa` as `search` says, adding the target of every matching pattern.
pub(super) fn search_with<A: Automaton>(
    dfa: &A,
    search: SearchKind,
    text: &str,
    start: Option<usize>,
    targets: Targets<'_>,
    matched: &mut Vec<u32>,
) -> Checked<()> {
    if dfa.pattern_len() != targets.count {
        return Err(Inconsistent(
            "a DFA's pattern count disagrees with its targets",
        ));
    }
    let search_failed = |_| Inconsistent("a DFA search failed");
    match search {
        SearchKind::Unanchored if targets.count == 1 => {
            let input = Input::new(text).earliest(true);
            if dfa.try_search_fwd(&input).map_err(search_failed)?.is_some() {
                matched.push(targets.get(0)?);
            }
        }
        SearchKind::Unanchored => {
            let mut patterns = PatternSet::new(dfa.pattern_len());
            dfa.try_which_overlapping_matches(&Input::new(text), &mut patterns)
                .map_err(search_failed)?;
            for pattern in patterns.iter() {
                matched.push(targets.get(pattern.as_usize())?);
            }
        }
        SearchKind::AnchoredAtEachPosition if targets.count == 1 => {
            for start in 0..=text.len() {
                let input = Input::new(text)
                    .range(start..)
                    .anchored(Anchored::Yes)
                    .earliest(true);
                if dfa.try_search_fwd(&input).map_err(search_failed)?.is_some() {
                    matched.push(targets.get(0)?);
                    break;
                }
            }
        }
        SearchKind::AnchoredAtEachPosition => {
            return Err(Inconsistent(
                "an anchored fallback DFA has several patterns",
            ));
        }
        SearchKind::AnchoredAtPosition => {
            let start = start.ok_or(Inconsistent("a literal-anchored DFA is used as a scan"))?;
            if start > text.len() {
                return Err(Inconsistent("a literal position lies outside the text"));
            }
            let input = Input::new(text).range(start..).anchored(Anchored::Yes);
            let mut patterns = PatternSet::new(dfa.pattern_len());
            dfa.try_which_overlapping_matches(&input, &mut patterns)
                .map_err(search_failed)?;
            for pattern in patterns.iter() {
                matched.push(targets.get(pattern.as_usize())?);
            }
        }
    }
    Ok(())
}
