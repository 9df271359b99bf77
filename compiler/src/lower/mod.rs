//! Lowering a [`HookPolicy`] to the sidecar the hook decides with.
//!
//! ```
//! use engine::{Call, CompiledPolicy, Decision, HookPolicy};
//! let json = r#"{"version":1,"default_decision":"defer","rules":[
//!   {"id":"no-live","tools":["Bash"],"input_matchers":[{"field":"command","regex":".* --live.*"}],
//!    "decision":"deny","reason":"live trading needs a human"}]}"#;
//! let policy = HookPolicy::from_json(json).unwrap();
//! let sidecar = compiler::lower::build_sidecar(&policy, json.as_bytes()).unwrap();
//! let compiled = CompiledPolicy::from_bytes(&sidecar, json.as_bytes()).unwrap();
//! let input = serde_json::json!({"command": "trade --live"});
//! let out = compiled.decide(Call { event: "PreToolUse", tool_name: "Bash", tool_input: &input, places: Default::default() });
//! assert_eq!(out.decision, Decision::Deny);
//! ```
//!
//! # Why this shape
//!
//! A single DFA over every rule is exponential on the spec's own `.* --live.*` shape (see
//! `DESIGN.md`, "The automaton"). So the policy is cut into pieces that are small by
//! construction:
//!
//! 1. **Deduplicate.** Distinct tool globs and distinct `(field, regex)` matchers get ids; a
//!    rule becomes its decision, event mask, glob ids and matcher ids.
//! 2. **Normalise and classify** each matcher ([`normalise`]): drop the `.*` that unanchored
//!    search implies, then sort it into *always*, *exact literal set*, *word prefix*
//!    (`Bash(git status:*)`), *literal chain* (`Bash(curl * | bash)`, `a.*b.*c`), *starts with
//!    a literal* (anchored confirming DFA run where the literal occurs), *contains a literal*
//!    (confirming DFA over the text) or *scanned*. On the real permission lists every
//!    lowerable entry is one of the first four, which need no automaton at all: 10,000
//!    real-list rules lower in under half a second into ~2.5 MB, where per-rule confirming
//!    DFAs took 13 s and 24 MB.
//! 3. **Partition** what needs automata: per field, literal-anchored patterns share sparse
//!    anchored DFAs (tries, groups of [`Budgets::anchored_group_size`]); the confirming patterns without an
//!    unbounded repetition share DFAs in groups of [`Budgets::confirm_group_size`]; patterns
//!    with one get their own (they are the ones that multiply each other's states); scanned
//!    patterns share per-field scan DFAs; a tool glob without `*` is an exact name in a
//!    sorted table, one `P*` a prefix in another, the others lower to anchored patterns (`\A…\z`, `*` as `.*`) in sparse
//!    tool-name DFAs anchored at the name's start.
//!    Every group is built under a size budget and
//!    halved when it overflows ([`automata`]).
//! 4. **Encode** ([`engine::sidecar::SidecarImage::encode`]): the literal index and posting
//!    lists are derived there, next to the loader that reads them.

pub mod automata;
pub mod normalise;

use std::collections::HashMap;

use engine::policy::MatchOn;
use engine::sidecar::{
    AutomatonImage, FieldImage, MatcherImage, MatcherKind, RuleImage, SidecarImage,
};
use engine::{HookPolicy, semantics};
use regex_syntax::hir::{Dot, Hir, Look};

pub use automata::Budgets;
use automata::{
    BuildFailure, PatternFailure, build_anchored_groups, build_from_start_groups,
    build_partitioned, build_single, build_start_anchored,
};
use normalise::{
    Lowered, classify, has_unbounded_repetition, normalise, parse, starts_at_text_start,
};

use crate::diagnostic::{Code, Diagnostic, Location, quote};

/// Lower `policy` and encode it as the sidecar of `policy_json`, the exact bytes that will be
/// written as `animus-policy.json`.
pub fn build_sidecar(policy: &HookPolicy, policy_json: &[u8]) -> Result<Vec<u8>, Diagnostic> {
    build_sidecar_with(policy, policy_json, &Budgets::default())
}

/// [`build_sidecar`] with explicit budgets.
pub fn build_sidecar_with(
    policy: &HookPolicy,
    policy_json: &[u8],
    budgets: &Budgets,
) -> Result<Vec<u8>, Diagnostic> {
    lower_policy(policy, budgets)?
        .encode(policy_json)
        .map_err(|e| Diagnostic::error(None, format!("cannot encode the sidecar: {e}")))
}

/// The regex a tool glob lowers to: anchored at both ends, `*` as any run of characters.
pub fn glob_hir(glob: &str) -> Hir {
    let mut parts = vec![Hir::look(Look::Start)];
    for (i, segment) in glob.split('*').enumerate() {
        if i > 0 {
            parts.push(Hir::repetition(regex_syntax::hir::Repetition {
                min: 0,
                max: None,
                greedy: true,
                sub: Box::new(Hir::dot(Dot::AnyChar)),
            }));
        }
        if !segment.is_empty() {
            parts.push(Hir::literal(segment.as_bytes()));
        }
    }
    parts.push(Hir::look(Look::End));
    Hir::concat(parts)
}

/// Choose, for every literal chain, the piece the literal index finds it by.
///
/// The engine verifies a chain (all its pieces, in order, from the start of the text) each
/// time its indexed piece occurs, so that piece should be one the text rarely contains and
/// few other chains share. Real lists share first pieces massively (1,247 of 100,000
/// real-list rules start `rm`, 364 `curl `), and indexing the first piece made a command
/// containing `curl ` verify every one of them. The cost of a piece is how many chains of the
/// field contain it, times a weight that falls with its length (a one-byte piece occurs at
/// nearly every word); the cheapest wins, the longer on a tie. Any choice is correct: the
/// choice only decides how often a chain is verified.
fn choose_chain_literals(matchers: &mut [MatcherImage]) {
    let mut sharing: HashMap<(u32, &[u8]), u64> = HashMap::new();
    for m in matchers.iter() {
        let mut pieces: Vec<&[u8]> = m.chain.iter().map(Vec::as_slice).collect();
        pieces.sort_unstable();
        pieces.dedup();
        for piece in pieces {
            *sharing.entry((m.field, piece)).or_default() += 1;
        }
    }
    let chosen: Vec<Option<Vec<u8>>> = matchers
        .iter()
        .map(|m| {
            m.chain
                .iter()
                .min_by_key(|piece| {
                    let weight = 1u64 << (2 * (8 - piece.len().min(8)));
                    (
                        sharing[&(m.field, piece.as_slice())] * weight,
                        usize::MAX - piece.len(),
                    )
                })
                .cloned()
        })
        .collect();
    for (m, piece) in matchers.iter_mut().zip(chosen) {
        if let Some(piece) = piece {
            m.literals = vec![piece];
        }
    }
}

/// A matcher being lowered, with the first rule that uses it (for error messages).
struct PendingMatcher<'p> {
    /// The index of that rule in the policy.
    rule: usize,
    field: u32,
    /// The regex the engine searches: the author's, or a Claude pattern's
    /// [`ClaudePattern::segment_regex`].
    regex: String,
    /// As written in the policy.
    pattern: &'p str,
    rule_id: &'p str,
}

/// Lower `policy` to a [`SidecarImage`]. An error names the rule (and for a matcher its field
/// and regex); [`lower_policy_located`] also gives its place in the profile.
pub fn lower_policy(policy: &HookPolicy, budgets: &Budgets) -> Result<SidecarImage, Diagnostic> {
    lower_policy_located(policy, budgets, &[])
}

/// [`lower_policy`] for a policy compiled from a profile: `locations[i]` is where
/// `policy.rules[i]` was written ([`crate::Compiled::locations`]), and an automaton that
/// cannot be built is an error there, `file:line:column`. Rules without a location (a shorter
/// or empty `locations`) are named by id alone.
pub fn lower_policy_located(
    policy: &HookPolicy,
    budgets: &Budgets,
    locations: &[Location],
) -> Result<SidecarImage, Diagnostic> {
    policy.validate().map_err(|e| {
        Diagnostic::error(
            None,
            format!("the policy is invalid: {}", quote(&e.to_string())),
        )
    })?;
    let interned = Interned::of(policy);
    // Ids, fields and patterns are quoted: a kernel rule's id is its whole entry.
    let matcher_error = |target: u32, message: String| {
        let m = &interned.pending[target as usize];
        Diagnostic::error(
            locations.get(m.rule).cloned(),
            format!(
                "rule `{}`, matcher on `{}`: regex `{}` {message}",
                quote(m.rule_id),
                quote(interned.fields[m.field as usize].0),
                quote(m.pattern)
            ),
        )
        .with_code(Code::InvalidRule)
    };
    let pattern_error = |PatternFailure { target, failure }: PatternFailure| {
        matcher_error(target, failure_message(&failure, budgets))
    };
    let (mut matchers, hirs) = classify_matchers(&interned)
        .map_err(|(id, why)| matcher_error(id, format!("does not parse: {why}")))?;
    choose_chain_literals(&mut matchers);
    let mut automata = Vec::new();
    let field_images = field_automata(
        &interned.fields,
        hirs,
        budgets,
        &mut matchers,
        &mut automata,
    )
    .map_err(pattern_error)?;
    let field_images = with_path_tags(field_images, &interned);
    let tools = tool_tables(&interned.globs, budgets, &mut automata).map_err(
        |PatternFailure { target, failure }| {
            let rule = interned.glob_rules[target as usize];
            Diagnostic::error(
                locations.get(rule).cloned(),
                format!(
                    "rule `{}`: tool glob `{}` {}",
                    quote(&policy.rules[rule].id),
                    quote(interned.globs[target as usize]),
                    failure_message(&failure, budgets)
                ),
            )
        },
    )?;
    Ok(SidecarImage {
        default_decision: Some(policy.default_decision),
        rules: interned.rules,
        glob_count: interned.globs.len() as u32,
        matchers,
        fields: field_images,
        tool_automata: tools.automata,
        exact_tools: tools.exact,
        tool_prefixes: tools.prefixes,
        automata,
    })
}

/// Each path field's bases: the tags of its matchers' globs ([`engine::paths::TagSet`]), so
/// that the engine makes no text behind another base's tag (none could match). A pattern
/// that does not read as a glob (never, in a validated policy) leaves the set unknown: every
/// base.
fn with_path_tags(mut fields: Vec<FieldImage>, interned: &Interned<'_>) -> Vec<FieldImage> {
    use engine::paths::{PathGlob, TagSet};
    let mut sets: Vec<Option<TagSet>> = vec![None; fields.len()];
    let mut unknown = vec![false; fields.len()];
    for m in &interned.pending {
        let field = m.field as usize;
        if !matches!(
            fields[field].view,
            MatchOn::Path | MatchOn::ResolvedPath | MatchOn::CommandPath
        ) {
            continue;
        }
        match PathGlob::parse(m.pattern) {
            Ok(glob) => {
                let tag = TagSet::of(glob.anchor);
                sets[field] = Some(sets[field].map_or(tag, |set| set.union(tag)));
            }
            Err(_) => unknown[field] = true,
        }
    }
    for (field, image) in fields.iter_mut().enumerate() {
        image.path_tags = match sets[field] {
            Some(set) if !unknown[field] => set.bits(),
            _ => 0,
        };
    }
    fields
}

/// Why an automaton could not be built, completing "regex `…` …" or "tool glob `…` …".
fn failure_message(failure: &BuildFailure, budgets: &Budgets) -> String {
    match failure {
        BuildFailure::TooBig => format!(
            "is too complex to compile ahead of time: even alone and anchored its DFA exceeds \
             {} KiB; simplify it (large bounded repetitions such as `[a-z]{{50}}` multiply DFA states)",
            budgets.fallback_dfa_bytes >> 10
        ),
        BuildFailure::Inexpressible(why) => {
            format!("cannot be compiled into a DFA: {why}")
        }
    }
}

/// A policy's tool globs, fields and matchers, each given an id once, and its rules over
/// those ids.
struct Interned<'p> {
    globs: Vec<&'p str>,
    /// The first rule naming each glob, for error messages.
    glob_rules: Vec<usize>,
    fields: Vec<(&'p str, MatchOn)>,
    pending: Vec<PendingMatcher<'p>>,
    rules: Vec<RuleImage>,
}

impl<'p> Interned<'p> {
    fn of(policy: &'p HookPolicy) -> Interned<'p> {
        let mut glob_ids: HashMap<&str, u32> = HashMap::new();
        let mut globs: Vec<&str> = Vec::new();
        let mut glob_rules: Vec<usize> = Vec::new();
        let mut field_ids: HashMap<(&str, MatchOn), u32> = HashMap::new();
        let mut fields: Vec<(&str, MatchOn)> = Vec::new();
        let mut matcher_ids: HashMap<(u32, String), u32> = HashMap::new();
        let mut pending: Vec<PendingMatcher> = Vec::new();
        let mut rules = Vec::with_capacity(policy.rules.len());
        for (rule_index, rule) in policy.rules.iter().enumerate() {
            let mut rule_globs: Vec<u32> = rule
                .tools
                .iter()
                .map(|glob| {
                    *glob_ids.entry(glob).or_insert_with(|| {
                        globs.push(glob);
                        glob_rules.push(rule_index);
                        globs.len() as u32 - 1
                    })
                })
                .collect();
            rule_globs.sort_unstable();
            rule_globs.dedup();
            let mut rule_matchers: Vec<u32> = rule
                .input_matchers
                .iter()
                .map(|m| {
                    // The view the engine searches and the regex, as the pattern's kind lowers.
                    // The policy was validated: every pattern reads.
                    let (view, regex) = m
                        .search_regex()
                        .unwrap_or_else(|_| (m.on, "[^\\s\\S]".into()));
                    let key = (m.field.as_str(), view);
                    let field = *field_ids.entry(key).or_insert_with(|| {
                        fields.push(key);
                        fields.len() as u32 - 1
                    });
                    // Keyed by the regex searched: a Claude pattern and an author regex written
                    // alike lower to different regexes.
                    *matcher_ids
                        .entry((field, regex.clone()))
                        .or_insert_with(|| {
                            pending.push(PendingMatcher {
                                rule: rule_index,
                                field,
                                regex,
                                pattern: &m.pattern,
                                rule_id: &rule.id,
                            });
                            pending.len() as u32 - 1
                        })
                })
                .collect();
            rule_matchers.sort_unstable();
            rule_matchers.dedup();
            rules.push(RuleImage {
                id: rule.id.clone(),
                reason: rule.reason.clone(),
                decision: rule.decision,
                event_mask: semantics::event_mask(&rule.events),
                matchers: rule_matchers,
                globs: rule_globs,
            });
        }
        Interned {
            globs,
            glob_rules,
            fields,
            pending,
            rules,
        }
    }
}

/// The parsed regexes of the matchers that need automata, per field: confirming, anchored
/// (starting with a literal), scanned, and those of path fields searched from the start
/// ([`starts_with_tag`]).
struct FieldHirs {
    confirm: Vec<Vec<(Hir, u32)>>,
    anchored: Vec<Vec<(Hir, u32)>>,
    scan: Vec<Vec<(Hir, u32)>>,
    from_start: Vec<Vec<(Hir, u32)>>,
}

/// Does every match of `hir` begin with a base's tag (`\x02`–`\x05`, [`engine::paths`])? A
/// path text holds a tag only as its first character, so a path field all of whose regexes
/// do can be searched by anchored automata run once from each text's start
/// ([`SearchKind::AnchoredAtStart`](engine::sidecar::SearchKind)), with no literal index: the
/// engine then also resumes them from the state a directory prefix shared by many texts
/// leads to. Anything else (an author's regex on a path view) keeps the general lowering.
fn starts_with_tag(hir: &Hir) -> bool {
    use regex_syntax::hir::HirKind;
    match hir.kind() {
        HirKind::Literal(literal) => literal
            .0
            .first()
            .is_some_and(|byte| (0x02..=0x05).contains(byte)),
        HirKind::Concat(parts) => parts.first().is_some_and(starts_with_tag),
        HirKind::Capture(capture) => starts_with_tag(&capture.sub),
        _ => false,
    }
}

/// Classify every matcher: the kind of test it needs, its literals, and for those that need
/// an automaton its regex. The error is the matcher's id and why its regex does not parse.
fn classify_matchers(
    interned: &Interned<'_>,
) -> Result<(Vec<MatcherImage>, FieldHirs), (u32, String)> {
    let (pending, fields) = (&interned.pending, &interned.fields);
    let mut matchers = Vec::with_capacity(pending.len());
    let mut confirm_hirs: Vec<Vec<(Hir, u32)>> = vec![Vec::new(); fields.len()];
    let mut anchored_hirs: Vec<Vec<(Hir, u32)>> = vec![Vec::new(); fields.len()];
    let mut scan_hirs: Vec<Vec<(Hir, u32)>> = vec![Vec::new(); fields.len()];
    let mut from_start_hirs: Vec<Vec<(Hir, u32)>> = vec![Vec::new(); fields.len()];
    let mut parsed = Vec::with_capacity(pending.len());
    for (id, m) in pending.iter().enumerate() {
        parsed.push(parse(&m.regex).map_err(|why| (id as u32, why.to_string()))?);
    }
    // The command-path fields every regex of which begins with a tag. (A file tool's path
    // field is one path's few texts a call, which the literal index searches as fast.)
    let mut from_start: Vec<bool> = fields
        .iter()
        .map(|(_, view)| *view == MatchOn::CommandPath)
        .collect();
    for (m, hir) in pending.iter().zip(&parsed) {
        if !starts_with_tag(hir) {
            from_start[m.field as usize] = false;
        }
    }
    for (id, (m, hir)) in pending.iter().zip(parsed).enumerate() {
        if from_start[m.field as usize] {
            from_start_hirs[m.field as usize].push((hir, id as u32));
            matchers.push(MatcherImage {
                field: m.field,
                kind: MatcherKind::Scanned,
                automaton: 0,
                literals: Vec::new(),
                chain: Vec::new(),
                text_prefixes: Vec::new(),
                chain_ends_at_word: false,
                chain_ends_text: false,
            });
            continue;
        }
        let mut chain = Vec::new();
        let mut text_prefixes = Vec::new();
        let mut chain_ends_at_word = false;
        let mut chain_ends_text = false;
        let (kind, literals) = match classify(normalise(hir)) {
            Lowered::Always => (MatcherKind::Always, Vec::new()),
            Lowered::Exact(literals) => (MatcherKind::Exact, literals),
            Lowered::WordPrefix(literal) => (MatcherKind::WordPrefix, vec![literal]),
            Lowered::EndsText(literal) => (MatcherKind::EndsText, vec![literal]),
            Lowered::LiteralChain {
                pieces,
                ends_at_word,
                ends_text,
            } => {
                chain = pieces;
                chain_ends_at_word = ends_at_word;
                chain_ends_text = ends_text;
                // Its indexed piece is chosen below, once every chain is known.
                (MatcherKind::LiteralChain, Vec::new())
            }
            Lowered::StartsWithLiteral { literals, hir } => {
                anchored_hirs[m.field as usize].push((hir, id as u32));
                (MatcherKind::StartsWithLiteral, literals)
            }
            Lowered::Confirmed {
                literals,
                text_prefixes: prefixes,
                hir,
            } => {
                confirm_hirs[m.field as usize].push((hir, id as u32));
                if prefixes.is_empty() {
                    (MatcherKind::Confirmed, literals)
                } else {
                    text_prefixes = prefixes;
                    (MatcherKind::ConfirmedAtStart, literals)
                }
            }
            Lowered::Scanned(hir) => {
                scan_hirs[m.field as usize].push((hir, id as u32));
                (MatcherKind::Scanned, Vec::new())
            }
        };
        matchers.push(MatcherImage {
            field: m.field,
            kind,
            automaton: 0,
            literals,
            chain,
            text_prefixes,
            chain_ends_at_word,
            chain_ends_text,
        });
    }

    Ok((
        matchers,
        FieldHirs {
            confirm: confirm_hirs,
            anchored: anchored_hirs,
            scan: scan_hirs,
            from_start: from_start_hirs,
        },
    ))
}

/// Build each field's automata into `automata` (and point its matchers at them); the
/// fields' images.
fn field_automata(
    fields: &[(&str, MatchOn)],
    hirs: FieldHirs,
    budgets: &Budgets,
    matchers: &mut [MatcherImage],
    automata: &mut Vec<AutomatonImage>,
) -> Result<Vec<FieldImage>, PatternFailure> {
    let FieldHirs {
        confirm: confirm_hirs,
        anchored: anchored_hirs,
        scan: scan_hirs,
        from_start: from_start_hirs,
    } = hirs;
    let mut field_images = Vec::with_capacity(fields.len());
    for (field, &(path, view)) in fields.iter().enumerate() {
        // Confirming automata: those held at the text's start searched from there, the
        // other shareable patterns in groups, the rest alone.
        let (at_start, anywhere): (Vec<_>, Vec<_>) = confirm_hirs[field]
            .iter()
            .map(|(h, t)| (h, *t))
            .partition(|(h, _)| starts_at_text_start(h));
        let mut built = build_start_anchored(&at_start, budgets)?;
        let (shared, alone): (Vec<_>, Vec<_>) = anywhere
            .into_iter()
            .partition(|(h, _)| !has_unbounded_repetition(h));
        for group in shared.chunks(budgets.confirm_group_size.max(1)) {
            built.extend(build_partitioned(group, budgets)?);
        }
        for (hir, target) in alone {
            built.push(build_single(hir, target, budgets)?);
        }
        let anchored: Vec<(&Hir, u32)> =
            anchored_hirs[field].iter().map(|(h, t)| (h, *t)).collect();
        for group in anchored.chunks(budgets.anchored_group_size.max(1)) {
            built.extend(build_anchored_groups(
                group,
                budgets.group_dfa_bytes,
                budgets,
            )?);
        }
        for automaton in built {
            for &target in &automaton.targets {
                matchers[target as usize].automaton = automata.len() as u32;
            }
            automata.push(automaton);
        }
        // Scan automata.
        let scanned: Vec<(&Hir, u32)> = scan_hirs[field].iter().map(|(h, t)| (h, *t)).collect();
        let mut scan_automata = Vec::new();
        for automaton in build_partitioned(&scanned, budgets)? {
            scan_automata.push(automata.len() as u32);
            automata.push(automaton);
        }
        let from_start: Vec<(&Hir, u32)> = from_start_hirs[field]
            .iter()
            .map(|(h, t)| (h, *t))
            .collect();
        for automaton in build_from_start_groups(&from_start, budgets)? {
            scan_automata.push(automata.len() as u32);
            automata.push(automaton);
        }
        field_images.push(FieldImage {
            path: path.to_string(),
            view,
            path_tags: 0,
            scan_automata,
        });
    }

    Ok(field_images)
}

/// The tool-name tables: exact names, `P*` prefixes, and automata for the other globs (built
/// into `automata`).
struct ToolTables {
    exact: Vec<(String, u32)>,
    prefixes: Vec<(String, u32)>,
    automata: Vec<u32>,
}

fn tool_tables(
    globs: &[&str],
    budgets: &Budgets,
    automata: &mut Vec<AutomatonImage>,
) -> Result<ToolTables, PatternFailure> {
    // A glob without `*` is an exact tool name: a sorted table, no automaton. Real policies
    // name most tools exactly (`Bash`, `mcp__github__create_issue`).
    let exact_tools: Vec<(String, u32)> = globs
        .iter()
        .zip(0..)
        .filter(|(glob, _)| !glob.contains('*'))
        .map(|(glob, id)| (glob.to_string(), id))
        .collect();
    // `P*` (`mcp__server__*`, what a bare `mcp__server` lowers to): a sorted prefix table.
    let prefix_of = |glob: &str| {
        glob.strip_suffix('*')
            .filter(|prefix| !prefix.contains('*'))
            .map(str::to_string)
    };
    let tool_prefixes: Vec<(String, u32)> = globs
        .iter()
        .zip(0..)
        .filter_map(|(glob, id)| prefix_of(glob).map(|prefix| (prefix, id)))
        .collect();
    let glob_hirs: Vec<(Hir, u32)> = globs
        .iter()
        .zip(0..)
        .filter(|(glob, _)| glob.contains('*') && prefix_of(glob).is_none())
        .map(|(glob, id)| (glob_hir(glob), id))
        .collect();
    let glob_patterns: Vec<(&Hir, u32)> = glob_hirs.iter().map(|(h, id)| (h, *id)).collect();
    let mut tool_automata = Vec::new();
    for automaton in build_anchored_groups(&glob_patterns, budgets.tool_dfa_bytes, budgets)? {
        tool_automata.push(automata.len() as u32);
        automata.push(automaton);
    }
    Ok(ToolTables {
        exact: exact_tools,
        prefixes: tool_prefixes,
        automata: tool_automata,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regexes_every_match_of_which_begins_with_a_tag_are_searched_from_the_start() {
        let tagged = |regex: &str| starts_with_tag(&parse(regex).unwrap());
        // What path globs lower to (`engine::paths::PathGlob::regex`).
        assert!(tagged(r"\x{3}/\.ssh/id_rsa/"));
        assert!(tagged(r"\x{5}.*/\.env/"));
        assert!(tagged(r"\x{2}/etc/shadow/"));
        assert!(tagged(r"\x{4}/src/(?:secret)/"));
        // A match that may begin elsewhere, or with another byte.
        assert!(!tagged(r".*\x{3}/\.ssh/"));
        assert!(!tagged(r"(?:\x{3}|a)/x/"));
        assert!(!tagged(r"\x{6}/x/"));
        assert!(!tagged(r"\x{1}git"));
        assert!(!tagged(r"^\x{3}/x/"));
        assert!(!tagged(""));
    }
}
