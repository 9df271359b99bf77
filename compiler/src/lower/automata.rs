//! Building DFAs under explicit size budgets.
//!
//! Determinization can be exponential: one unanchored `MatchKind::All` DFA over 16 patterns
//! of the shape `.*X.*` took 94 MiB and 111 s. Every build here therefore carries two limits —
//! the finished DFA's size ([`Budgets`]) and the determinizer's working memory (a multiple of
//! it) — so a build that would explode stops early with "too big" instead of running away.
//!
//! [`build_partitioned`] builds a group of patterns as one multi-pattern DFA; when that is
//! too big it splits the group in half and tries again, down to single patterns. A single
//! pattern that is too big unanchored (the implicit `.*?` prefix is what multiplies states,
//! as in `a[ab]{20}`) falls back to an *anchored* DFA, which the engine runs from every start
//! position: no prefix to determinize, so it stays linear in the pattern for such shapes, at
//! the price of a slower search. A pattern too big even then is a compile error naming it.

use regex_automata::MatchKind;
use regex_automata::dfa::{StartKind, dense};
use regex_automata::nfa::thompson::{self, WhichCaptures};
use regex_syntax::hir::Hir;

use engine::sidecar::{AutomatonImage, DfaForm, SearchKind};

/// Size limits for the automata of one policy. A policy's sidecar is at most a few of these
/// per field plus one per confirming group, so they bound both its size and its build time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budgets {
    /// Largest multi-pattern DFA (scan automata, confirming groups).
    pub group_dfa_bytes: usize,
    /// Largest tool-glob DFA. Every tool automaton runs on every call, but an anchored search
    /// over a tool name costs the same whatever the trie's size, so fewer, larger ones win.
    pub tool_dfa_bytes: usize,
    /// Largest unanchored DFA for a single pattern before the anchored fallback.
    pub single_dfa_bytes: usize,
    /// Largest (sparse, anchored) fallback DFA; beyond it the pattern is a compile error.
    pub fallback_dfa_bytes: usize,
    /// How many patterns without unbounded repetition share one confirming DFA.
    pub confirm_group_size: usize,
    /// How many literal-anchored patterns share one (sparse, anchored) DFA.
    pub anchored_group_size: usize,
}

impl Default for Budgets {
    fn default() -> Self {
        Budgets {
            group_dfa_bytes: 256 << 10,
            tool_dfa_bytes: 8 << 20,
            single_dfa_bytes: 64 << 10,
            fallback_dfa_bytes: 1 << 20,
            confirm_group_size: 64,
            anchored_group_size: 256,
        }
    }
}

/// The determinizer may use this many times the DFA budget while building.
const DETERMINIZE_FACTOR: usize = 4;
/// A single-pattern dense DFA up to this size is kept dense (fastest search); a larger one is
/// stored sparse.
const SMALL_DENSE_DFA_BYTES: usize = 4 << 10;
/// A sparse DFA is built from a dense one up to this many times its own budget.
const SPARSE_DENSE_FACTOR: usize = 8;
/// The Thompson NFA for one group may not exceed this.
const NFA_SIZE_LIMIT: usize = 16 << 20;

/// Why a build did not produce a DFA.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildFailure {
    /// Over budget; splitting or the fallback may help.
    TooBig,
    /// A construct no DFA can express (the message is regex-automata's).
    Inexpressible(String),
}

/// Build `patterns` as one dense DFA searched the given way, within `dense_limit` bytes.
fn build_dense(
    patterns: &[&Hir],
    search: SearchKind,
    dense_limit: usize,
) -> Result<dense::DFA<Vec<u32>>, BuildFailure> {
    let nfa = thompson::Compiler::new()
        .configure(
            thompson::Config::new()
                .which_captures(WhichCaptures::None)
                .nfa_size_limit(Some(NFA_SIZE_LIMIT)),
        )
        .build_many_from_hir(patterns)
        .map_err(|e| match e.size_limit() {
            Some(_) => BuildFailure::TooBig,
            None => BuildFailure::Inexpressible(e.to_string()),
        })?;
    let start_kind = match search {
        SearchKind::Unanchored => StartKind::Unanchored,
        SearchKind::AnchoredAtEachPosition
        | SearchKind::AnchoredAtPosition
        | SearchKind::AnchoredAtStart => StartKind::Anchored,
    };
    dense::Builder::new()
        .configure(
            dense::Config::new()
                .match_kind(MatchKind::All)
                .start_kind(start_kind)
                .minimize(false)
                .dfa_size_limit(Some(dense_limit))
                .determinize_size_limit(Some(dense_limit * DETERMINIZE_FACTOR)),
        )
        .build_from_nfa(&nfa)
        .map_err(|e| {
            if e.is_size_limit_exceeded() {
                BuildFailure::TooBig
            } else {
                BuildFailure::Inexpressible(e.to_string())
            }
        })
}

/// Build `patterns` as one DFA of the given form and search kind, at most `budget` bytes
/// serialized.
pub fn build_dfa(
    patterns: &[&Hir],
    search: SearchKind,
    form: DfaForm,
    budget: usize,
) -> Result<AutomatonImage, BuildFailure> {
    let dfa_bytes = match form {
        DfaForm::Dense => {
            let dfa = build_dense(patterns, search, budget)?;
            let mut bytes = vec![0u8; dfa.write_to_len()];
            dfa.write_to_little_endian(&mut bytes)
                .map_err(|e| BuildFailure::Inexpressible(e.to_string()))?;
            bytes
        }
        DfaForm::Sparse => {
            // The sparse form is built from the dense one, which may be much larger.
            let dfa = build_dense(patterns, search, budget * SPARSE_DENSE_FACTOR)?;
            let sparse = dfa
                .to_sparse()
                .map_err(|e| BuildFailure::Inexpressible(e.to_string()))?;
            let mut bytes = vec![0u8; sparse.write_to_len()];
            sparse
                .write_to_little_endian(&mut bytes)
                .map_err(|e| BuildFailure::Inexpressible(e.to_string()))?;
            bytes
        }
    };
    if dfa_bytes.len() > budget {
        return Err(BuildFailure::TooBig);
    }
    Ok(AutomatonImage {
        dfa_bytes,
        form,
        search,
        targets: Vec::new(),
    })
}

/// A pattern the budgets cannot hold, or cannot express at all.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternFailure {
    /// The target (matcher or glob id) of the failing pattern.
    pub target: u32,
    /// What went wrong.
    pub failure: BuildFailure,
}

/// Build one automaton for a single pattern, trying in order: unanchored (one search; dense
/// if small, else sparse), dense anchored (no `.*?` prefix to multiply states; run from each
/// position), and sparse anchored (long literal runs over a wide alphabet, where the dense
/// table is mostly empty transitions).
pub fn build_single(
    pattern: &Hir,
    target: u32,
    budgets: &Budgets,
) -> Result<AutomatonImage, PatternFailure> {
    let with_target = |mut automaton: AutomatonImage| {
        automaton.targets = vec![target];
        automaton
    };
    let fail = |failure| PatternFailure { target, failure };
    // Unanchored: dense when it is small, else the sparse form of the same DFA (a dense
    // table over the ~40 byte classes of `\s`-style Unicode classes is mostly repetition).
    match build_dfa(
        &[pattern],
        SearchKind::Unanchored,
        DfaForm::Dense,
        budgets.single_dfa_bytes,
    ) {
        Ok(dense) if dense.dfa_bytes.len() <= SMALL_DENSE_DFA_BYTES => {
            return Ok(with_target(dense));
        }
        Ok(_) => {
            if let Ok(sparse) = build_dfa(
                &[pattern],
                SearchKind::Unanchored,
                DfaForm::Sparse,
                budgets.single_dfa_bytes,
            ) {
                return Ok(with_target(sparse));
            }
        }
        Err(BuildFailure::TooBig) => {}
        Err(failure) => return Err(fail(failure)),
    }
    for (form, budget) in [
        (DfaForm::Dense, budgets.single_dfa_bytes),
        (DfaForm::Sparse, budgets.fallback_dfa_bytes),
    ] {
        match build_dfa(&[pattern], SearchKind::AnchoredAtEachPosition, form, budget) {
            Ok(automaton) => return Ok(with_target(automaton)),
            Err(BuildFailure::TooBig) => continue,
            Err(failure) => return Err(fail(failure)),
        }
    }
    Err(fail(BuildFailure::TooBig))
}

/// Build `patterns` (with their targets) as few unanchored dense multi-pattern DFAs as the
/// group budget allows, halving on overflow; single patterns that overflow go to
/// [`build_single`].
pub fn build_partitioned(
    patterns: &[(&Hir, u32)],
    budgets: &Budgets,
) -> Result<Vec<AutomatonImage>, PatternFailure> {
    build_groups(
        patterns,
        SearchKind::Unanchored,
        DfaForm::Dense,
        budgets.group_dfa_bytes,
        &|pattern, target| build_single(pattern, target, budgets),
    )
}

/// Build patterns that every match starts with a literal of as sparse DFAs anchored at the
/// literal, halving groups on overflow; a single pattern gets the fallback budget.
pub fn build_anchored_groups(
    patterns: &[(&Hir, u32)],
    group_budget: usize,
    budgets: &Budgets,
) -> Result<Vec<AutomatonImage>, PatternFailure> {
    build_sparse_groups(
        patterns,
        SearchKind::AnchoredAtPosition,
        group_budget,
        budgets,
    )
}

/// Build `patterns` as sparse DFAs searched as `search`, in groups of at most `group_budget`
/// bytes, halving on overflow; a single pattern gets the fallback budget.
fn build_sparse_groups(
    patterns: &[(&Hir, u32)],
    search: SearchKind,
    group_budget: usize,
    budgets: &Budgets,
) -> Result<Vec<AutomatonImage>, PatternFailure> {
    build_groups(
        patterns,
        search,
        DfaForm::Sparse,
        group_budget,
        &|pattern, target| match build_dfa(
            &[pattern],
            search,
            DfaForm::Sparse,
            budgets.fallback_dfa_bytes,
        ) {
            Ok(mut automaton) => {
                automaton.targets = vec![target];
                Ok(automaton)
            }
            Err(failure) => Err(PatternFailure { target, failure }),
        },
    )
}

/// Build confirming patterns every match of which begins at the text's start (`^…`,
/// [`super::normalise::starts_at_text_start`]) as DFAs anchored there and run once from the
/// start ([`SearchKind::AnchoredAtStart`]) instead of over the whole text: they stop at the
/// first byte that leaves every pattern (`^(npm|pnpm) …` on `git status && …` at the `g`).
/// Patterns without an unbounded repetition share dense DFAs in groups of
/// [`Budgets::confirm_group_size`], halving on overflow; the others get their own, dense when
/// small, else sparse.
pub fn build_start_anchored(
    patterns: &[(&Hir, u32)],
    budgets: &Budgets,
) -> Result<Vec<AutomatonImage>, PatternFailure> {
    let search = SearchKind::AnchoredAtStart;
    let single = |pattern: &Hir, target: u32| -> Result<AutomatonImage, PatternFailure> {
        let with_target = |mut automaton: AutomatonImage| {
            automaton.targets = vec![target];
            automaton
        };
        let fail = |failure| PatternFailure { target, failure };
        match build_dfa(&[pattern], search, DfaForm::Dense, SMALL_DENSE_DFA_BYTES) {
            Ok(dense) => return Ok(with_target(dense)),
            Err(BuildFailure::TooBig) => {}
            Err(failure) => return Err(fail(failure)),
        }
        build_dfa(
            &[pattern],
            search,
            DfaForm::Sparse,
            budgets.fallback_dfa_bytes,
        )
        .map(with_target)
        .map_err(fail)
    };
    let (shared, alone): (Vec<_>, Vec<_>) = patterns
        .iter()
        .copied()
        .partition(|(hir, _)| !super::normalise::has_unbounded_repetition(hir));
    let mut out = Vec::new();
    for group in shared.chunks(budgets.confirm_group_size.max(1)) {
        out.extend(build_groups(
            group,
            search,
            DfaForm::Dense,
            budgets.group_dfa_bytes,
            &single,
        )?);
    }
    for (hir, target) in alone {
        out.push(single(hir, target)?);
    }
    Ok(out)
}

/// Build path patterns every match of which begins at the text's start (a base's tag) as
/// anchored multi-pattern DFAs run once from there ([`SearchKind::AnchoredAtStart`]): all of
/// them in one dense DFA when it fits the group budget (one table lookup a byte: it runs on
/// every word of a command), else in sparse ones, halving groups on overflow; a single
/// pattern gets the fallback budget.
pub fn build_from_start_groups(
    patterns: &[(&Hir, u32)],
    budgets: &Budgets,
) -> Result<Vec<AutomatonImage>, PatternFailure> {
    let search = SearchKind::AnchoredAtStart;
    if patterns.len() > 1 {
        let hirs: Vec<&Hir> = patterns.iter().map(|(h, _)| *h).collect();
        if let Ok(mut automaton) = build_dfa(&hirs, search, DfaForm::Dense, budgets.group_dfa_bytes)
        {
            automaton.targets = patterns.iter().map(|(_, t)| *t).collect();
            return Ok(vec![automaton]);
        }
    }
    build_sparse_groups(patterns, search, budgets.group_dfa_bytes, budgets)
}

fn build_groups(
    patterns: &[(&Hir, u32)],
    search: SearchKind,
    form: DfaForm,
    budget: usize,
    single: &dyn Fn(&Hir, u32) -> Result<AutomatonImage, PatternFailure>,
) -> Result<Vec<AutomatonImage>, PatternFailure> {
    let mut out = Vec::new();
    let mut pending = vec![patterns];
    while let Some(group) = pending.pop() {
        match group {
            [] => {}
            [(pattern, target)] => out.push(single(pattern, *target)?),
            _ => {
                let hirs: Vec<&Hir> = group.iter().map(|(h, _)| *h).collect();
                match build_dfa(&hirs, search, form, budget) {
                    Ok(mut automaton) => {
                        automaton.targets = group.iter().map(|(_, t)| *t).collect();
                        out.push(automaton);
                    }
                    Err(BuildFailure::TooBig) => {
                        let (left, right) = group.split_at(group.len() / 2);
                        pending.push(right);
                        pending.push(left);
                    }
                    Err(BuildFailure::Inexpressible(_)) => {
                        // Find the culprit: build each alone, which reports it precisely.
                        for (pattern, target) in group {
                            out.push(single(pattern, *target)?);
                        }
                    }
                }
            }
        }
    }
    Ok(out)
}
