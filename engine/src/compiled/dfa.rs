//! The precompiled DFAs: anchored ones confirming a literal hit, and the multi-pattern scan
//! automata of patterns without a usable literal.

use std::cell::RefCell;

use regex_automata::util::primitives::StateID;

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
    /// The lists one text's literal search fills ([`CompiledPolicy::match_field`]), kept
    /// between texts: a call searches a dozen texts or more, and each list's first push
    /// was an allocation (fifteen of a build command's two hundred).
    pub(super) hits: RefCell<HitLists>,
}

/// The lists a literal search fills for one text ([`super::literals::LiteralHits`]), empty
/// between texts.
#[derive(Default)]
pub(super) struct HitLists {
    /// `(automaton, start)` to confirm: whole-text confirmations carry no start.
    pub(super) to_confirm: Vec<(u32, Option<usize>)>,
    /// Literal chains whose indexed piece occurs.
    pub(super) chains: Vec<u32>,
    /// The chain pieces that occur.
    pub(super) pieces: Vec<u32>,
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
        // The same walk a path field's texts take ([`FromStart`]), from the start state.
        SearchKind::AnchoredAtStart => {
            let start = anchored_start(dfa, targets)?;
            feed_to_end(dfa, start, text.as_bytes(), &mut |pattern| {
                matched.push(targets.get(pattern)?);
                Ok(())
            })?;
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

/// A path field's automata searched from each text's start ([`SearchKind::AnchoredAtStart`])
/// as a [`paths::PathTextSink`]: a whole text is searched from the start state; a text made of
/// a directory's prefix and a word resumes from the state the prefix leads to, found once a
/// call for each prefix (the words of a command share a few directories, and the prefix is
/// most of each text). The patterns met on the way, at every position (an overlapping
/// search: a glob matching a directory matches the texts inside it), add their matchers.
pub(super) struct FromStart<'p, 'm> {
    automata: Vec<FromStartDfa<'p>>,
    matched: &'m mut Vec<u32>,
    failure: Option<Inconsistent>,
}

/// One automaton of a [`FromStart`].
struct FromStartDfa<'p> {
    dfa: LoadedDfa<'p>,
    targets: Targets<'p>,
    start: StateID,
    /// By prefix id ([`paths::PathTextSink::joined`]), the state each prefix searched so far
    /// leads to (`Some(None)`: the dead state, no text behind the prefix can match).
    prefixes: Vec<Option<Option<StateID>>>,
}

impl CompiledPolicy {
    /// The field's automata for a [`FromStart`], when the field matches only through them:
    /// every one searched from the text's start, and no literal or always-matching matcher.
    /// `None` for any other field.
    pub(super) fn start_anchored_automata(
        &self,
        field: &FieldRecord,
    ) -> Checked<Option<FromStartAutomata<'_>>> {
        if field.key_lengths != 0 || field.always_count != 0 || field.scan_count == 0 {
            return Ok(None);
        }
        // Grown as the records read back, never sized beyond a few by a count the file
        // claims (one automaton in every policy measured: room for four of them made a
        // 3 KB allocation each call).
        let mut automata = Vec::with_capacity((field.scan_count as usize).min(4));
        for i in 0..field.scan_count as usize {
            let id = self.word(Section::AutomatonLists, field.scan_first as usize + i)?;
            let record = self.record::<AutomatonRecord>(id as usize)?;
            if SearchKind::from_u32(record.search) != Some(SearchKind::AnchoredAtStart) {
                return Ok(None);
            }
            let dfa = self.load_dfa(&record)?;
            let targets = Targets {
                policy: self,
                first: record.target_first as usize,
                count: record.target_count as usize,
            };
            let start = match &dfa {
                LoadedDfa::Dense(dfa) => anchored_start(dfa, targets)?,
                LoadedDfa::Sparse(dfa) => anchored_start(dfa, targets)?,
            };
            automata.push(FromStartDfa {
                dfa,
                targets,
                start,
                prefixes: Vec::new(),
            });
        }
        Ok(Some(FromStartAutomata(automata)))
    }
}

/// A field's automata searched from each text's start ([`CompiledPolicy::start_anchored_automata`]).
pub(super) struct FromStartAutomata<'p>(Vec<FromStartDfa<'p>>);

impl<'p> FromStartAutomata<'p> {
    /// A sink searching every text it is given, adding the matchers met to `matched`.
    pub(super) fn matching_into<'m>(self, matched: &'m mut Vec<u32>) -> FromStart<'p, 'm> {
        FromStart {
            automata: self.0,
            matched,
            failure: None,
        }
    }
}

/// The anchored start state of `dfa` at the start of a text, once its pattern count is
/// checked against its targets.
fn anchored_start<A: Automaton>(dfa: &A, targets: Targets<'_>) -> Checked<StateID> {
    if dfa.pattern_len() != targets.count {
        return Err(Inconsistent(
            "a DFA's pattern count disagrees with its targets",
        ));
    }
    let config = regex_automata::util::start::Config::new().anchored(Anchored::Yes);
    dfa.start_state(&config)
        .map_err(|_| Inconsistent("a DFA has no anchored start state"))
}

/// Feed `bytes` to `dfa` from `state`, giving `found` the pattern of every match on the way
/// (a match state reports the patterns matching up to the byte before it); the state reached,
/// `None` once dead (nothing further can match).
fn feed<A: Automaton>(
    dfa: &A,
    mut state: StateID,
    bytes: &[u8],
    found: &mut dyn FnMut(usize) -> Checked<()>,
) -> Checked<Option<StateID>> {
    for &byte in bytes {
        state = dfa.next_state(state, byte);
        if dfa.is_special_state(state) {
            if dfa.is_dead_state(state) {
                return Ok(None);
            }
            if dfa.is_quit_state(state) {
                return Err(Inconsistent("a path DFA gave up on a byte"));
            }
            report(dfa, state, found)?;
        }
    }
    Ok(Some(state))
}

/// The patterns `state` reports, if it is a match state.
fn report<A: Automaton>(
    dfa: &A,
    state: StateID,
    found: &mut dyn FnMut(usize) -> Checked<()>,
) -> Checked<()> {
    if dfa.is_match_state(state) {
        for i in 0..dfa.match_len(state) {
            found(dfa.match_pattern(state, i).as_usize())?;
        }
    }
    Ok(())
}

/// Feed `bytes` from `state` and end the text there: every pattern matching on the way.
fn feed_to_end<A: Automaton>(
    dfa: &A,
    state: StateID,
    bytes: &[u8],
    found: &mut dyn FnMut(usize) -> Checked<()>,
) -> Checked<()> {
    if let Some(state) = feed(dfa, state, bytes, found)? {
        report(dfa, dfa.next_eoi_state(state), found)?;
    }
    Ok(())
}

impl FromStartDfa<'_> {
    /// Search `rest` behind the prefix `(id, prefix)`, or from the start.
    fn search(
        &mut self,
        prefix: Option<(usize, &str)>,
        rest: &[u8],
        matched: &mut Vec<u32>,
    ) -> Checked<()> {
        let targets = self.targets;
        let found = &mut |pattern: usize| -> Checked<()> {
            matched.push(targets.get(pattern)?);
            Ok(())
        };
        let known = prefix.and_then(|(id, _)| self.prefixes.get(id).copied().flatten());
        let state = match (prefix, known) {
            (None, _) => Some(self.start),
            (Some(_), Some(state)) => state,
            (Some((id, prefix)), None) => {
                // Once a call: the matches inside the prefix hold for every text behind it.
                let state = match &self.dfa {
                    LoadedDfa::Dense(dfa) => feed(dfa, self.start, prefix.as_bytes(), found)?,
                    LoadedDfa::Sparse(dfa) => feed(dfa, self.start, prefix.as_bytes(), found)?,
                };
                if self.prefixes.len() <= id {
                    self.prefixes.resize(id + 1, None);
                }
                self.prefixes[id] = Some(state);
                state
            }
        };
        let Some(state) = state else {
            return Ok(());
        };
        match &self.dfa {
            LoadedDfa::Dense(dfa) => feed_to_end(dfa, state, rest, found),
            LoadedDfa::Sparse(dfa) => feed_to_end(dfa, state, rest, found),
        }
    }
}

impl FromStart<'_, '_> {
    fn search(&mut self, prefix: Option<(usize, &str)>, rest: &str) -> ControlFlow<()> {
        for automaton in &mut self.automata {
            if let Err(e) = automaton.search(prefix, rest.as_bytes(), self.matched) {
                self.failure = Some(e);
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    }

    /// The first inconsistency met, if any: the matches are then incomplete.
    pub(super) fn finish(self) -> Checked<()> {
        self.failure.map_or(Ok(()), Err)
    }
}

impl paths::PathTextSink for FromStart<'_, '_> {
    fn text(&mut self, text: &str) -> ControlFlow<()> {
        self.search(None, text)
    }

    fn joined(&mut self, id: usize, prefix: &str, rest: &str) -> ControlFlow<()> {
        self.search(Some((id, prefix)), rest)
    }
}
