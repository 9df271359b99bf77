//! The precompiled DFAs: anchored ones confirming a literal hit, and the multi-pattern scan
//! automata of patterns without a usable literal.

use std::cell::RefCell;

use super::*;

/// The DFAs one decision has deserialized, each once: a call runs the same automaton on
/// several texts (the command, each segment, the texts the analysis makes), and reading a
/// DFA's tables back from the sidecar (its start table's 256-byte map copied and checked)
/// costs more than a short search (measured: a third of the automata's time for issue 27's
/// build command). Lives as long as one decision, never longer: a fresh call deserializes
/// afresh, as an emit does.
#[derive(Default)]
pub(super) struct Dfas<'p> {
    /// `(automaton id, its DFA)`. Boxed: a DFA's value is hundreds of bytes (its start
    /// table's map among them), moved once into its box instead of again at each growth of
    /// the list (measured: build command decide 29.0 → 27.2 µs).
    loaded: RefCell<Vec<(u32, Box<LoadedDfa<'p>>)>>,
}

/// One deserialized DFA, borrowing the mapped sidecar.
enum LoadedDfa<'p> {
    Dense(dense::DFA<&'p [u32]>),
    Sparse(sparse::DFA<&'p [u8]>),
}

impl CompiledPolicy {
    /// Search `text` with automaton `id` (from `start` for automata anchored at a literal),
    /// adding the target of every pattern that matches; the DFA is deserialized once a
    /// decision (`dfas`).
    pub(super) fn run_automaton<'p>(
        &'p self,
        dfas: &Dfas<'p>,
        id: u32,
        text: &str,
        start: Option<usize>,
        matched: &mut Vec<u32>,
    ) -> Checked<()> {
        let record = self.record::<AutomatonRecord>(id as usize)?;
        let search = SearchKind::from_u32(record.search)
            .ok_or(Inconsistent("a DFA has an unknown search kind"))?;
        let targets = Targets {
            policy: self,
            first: record.target_first as usize,
            count: record.target_count as usize,
        };
        let mut loaded = dfas.loaded.borrow_mut();
        let index = match loaded.iter().position(|(known, _)| *known == id) {
            Some(index) => index,
            None => {
                loaded.push((id, Box::new(self.load_dfa(&record)?)));
                loaded.len() - 1
            }
        };
        match &*loaded[index].1 {
            LoadedDfa::Dense(dfa) => search_with(dfa, search, text, start, targets, matched),
            LoadedDfa::Sparse(dfa) => search_with(dfa, search, text, start, targets, matched),
        }
    }

    /// The DFA of `record`, deserialized from the mapped sidecar.
    fn load_dfa(&self, record: &AutomatonRecord) -> Checked<LoadedDfa<'_>> {
        let bytes = self
            .section(Section::DfaBytes)
            .get(record.offset as usize..record.offset as usize + record.len as usize)
            .ok_or(Inconsistent("a DFA lies outside the DFA section"))?;
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
                Ok(LoadedDfa::Dense(dfa))
            }
            Some(DfaForm::Sparse) => {
                // SAFETY: see above: bytes our compiler wrote, established by digest or stamp.
                let (dfa, _) = unsafe { sparse::DFA::from_bytes_unchecked(bytes) }
                    .map_err(not_deserializable)?;
                Ok(LoadedDfa::Sparse(dfa))
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
            let bytes = text.as_bytes();
            for start in 0..=text.len() {
                // Most positions cannot begin a match: the first byte leads the anchored start
                // state to the dead state. That is asked here with one start-state lookup and
                // one transition instead of a whole search's set-up. (A match of the empty
                // string would show in that transition, matches being reported one byte
                // late, so a dead state there rules out every match from `start`.)
                if let Some(&first) = bytes.get(start) {
                    let config = regex_automata::util::start::Config::new()
                        .anchored(Anchored::Yes)
                        .look_behind(start.checked_sub(1).map(|i| bytes[i]));
                    let state = dfa
                        .start_state(&config)
                        .map_err(|_| Inconsistent("a DFA search failed"))?;
                    if dfa.is_dead_state(dfa.next_state(state, first)) {
                        continue;
                    }
                }
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
