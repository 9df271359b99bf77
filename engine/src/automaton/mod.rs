//! The automaton engine: decide a call from a mapped sidecar, matching every rule at once.
//!
//! [`CompiledPolicy::load`] maps `animus-policy.sidecar`, proves it belongs to the
//! `animus-policy.json` beside it (see [`crate::sidecar`]) and is then ready to decide; no regex
//! is compiled and no table is copied.
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let dir = std::env::temp_dir().join(format!("engine-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir)?;
//! # let policy_path = dir.join("animus-policy.json");
//! # let sidecar = engine::sidecar::SidecarImage {
//! #     default_decision: Some(engine::Decision::Defer), ..Default::default() };
//! # let json = br#"{"version":1,"default_decision":"defer","rules":[]}"#;
//! # std::fs::write(&policy_path, json)?;
//! # std::fs::write(engine::sidecar::sidecar_path_for(&policy_path), sidecar.encode(json)?)?;
//! use engine::{Call, CompiledPolicy, Decision};
//! let policy = CompiledPolicy::load(&policy_path)?;
//! let input = serde_json::json!({"command": "ls"});
//! let outcome = policy.decide(Call { event: "PreToolUse", tool_name: "Bash", tool_input: &input, places: Default::default() });
//! assert_eq!(outcome.decision, Decision::Defer);
//! # Ok(()) }
//! ```
//!
//! # How a call is decided
//!
//! 1. The tool name is looked up in the sorted tables of exact names (globs without `*`) and
//!    of prefixes (globs `P*`), and the tool automata (anchored patterns, one per other distinct glob) run once over it;
//!    together they report every glob that matches.
//! 2. For each field some matcher looks at, the field's value is looked up in `tool_input`
//!    ([`semantics::lookup`]) and each text it offers ([`semantics::any_text`]) is searched —
//!    for a field whose view is a shell view, the texts are those of the command's
//!    [`shell::analyse`] (computed once per call and text): each generous segment text with
//!    [`shell::SEGMENT_START`] in front (`segment` matchers), the raw text and each generous
//!    text (`also_segments`), or, for `covers` matchers, each segment's strict texts one
//!    segment at a time: a `covers` rule fires only when every segment has a text some
//!    applicable `covers` rule matches ([`CompiledPolicy::decide`] adds them to the fired
//!    rules then, and only then). Each text is searched so:
//!    - the **literal index** is probed at every byte position with the next 1–8 bytes, and
//!      each candidate literal is compared in full. A hit decides an *exact* matcher (the
//!      pattern is just "contains this literal", e.g. `Bash(*rm -rf*)`) outright, and a
//!      *word-prefix* matcher (`Bash(git status:*)`) after one look at the next character.
//!      A hit on the indexed piece of a *literal chain* (`Bash(curl * | bash)`, `a.*b.*c`;
//!      the compiler indexes the piece fewest chains share) makes the whole chain be checked
//!      by substring search, once per text. A hit for a *starts-with-literal* matcher
//!      runs its small anchored DFA from the hit; one for a *confirmed* matcher runs its DFA
//!      over the text. Every real permission-list entry is one of the first three kinds, so
//!      real policies decide with no DFA at all;
//!    - the field's *scan* automata (multi-pattern `MatchKind::All` DFAs for patterns without
//!      a usable literal, kept under a size budget by the compiler) run once each, with an
//!      overlapping search that reports every pattern matching anywhere;
//!    - *always* matchers (`.*`) match any text.
//! 3. Each matched matcher adds one to the count of every rule using it (posting lists); a
//!    rule fires when all its distinct matchers matched, one of its tool globs matched (or it
//!    has none) and its event mask holds the event. Rules without matchers come from the
//!    matched globs' posting lists directly.
//! 4. [`semantics::fold_rules`] — the one definition of the fold — turns the fired rules into
//!    the [`Outcome`].
//!
//! The work per call is one pass per field text over the literal index, plus the DFAs the
//! text actually triggers, plus the posting lists of what matched: it does not grow with the
//! number of rules that did *not* match. `BENCHMARKS.md` at the repository root has the
//! numbers (decide at 10,000 rules in single-digit microseconds).

use std::borrow::Cow;
use std::ops::ControlFlow;
use std::path::Path;

use regex_automata::dfa::{Automaton, dense, sparse};
use regex_automata::{Anchored, Input, PatternSet};

use crate::policy::{Decision, MatchOn};
use crate::semantics::{self, Call, Outcome, RuleView};
use crate::sidecar::format::{
    AUTOMATON_WIDTH, CHAIN_PIECE_WIDTH, DfaForm, FIELD_WIDTH, GLOB_WIDTH, GLOBALS_WIDTH,
    LITERAL_ENTRY_WIDTH, LITERAL_GROUP_WIDTH, MATCHER_WIDTH, MAX_KEY_LEN, MatcherKind, PIECE_ENTRY,
    PIECE_NOT_INDEXED, PREFILTER_BYTES, PREFILTER_SINGLE_BYTES, PREFILTER_TRIGRAM_SET, RULE_WIDTH,
    SearchKind, Section, TOOL_NAME_WIDTH, literal_slot_hash, prefilter_slot, prefilter_trigram,
    tail_word, view_of_code,
};
use crate::sidecar::load::{OpenFault, PolicyBinding, VerifiedLayout, open_trusted, verify};
use crate::sidecar::{
    FileIdentity, LoadError, SidecarBytes, Stamp, Verification, digest_hex, sidecar_path_for,
    stamp_path_for,
};
use crate::{paths, shell};

/// A policy ready to decide: a verified sidecar, used in place.
pub struct CompiledPolicy {
    bytes: SidecarBytes,
    /// `animus-policy.json`: the ids and reasons of rules that fire are read from it.
    json: PolicyBytes,
    layout: VerifiedLayout,
    default_decision: Decision,
    rule_count: usize,
    field_count: usize,
    tool_automata: (usize, usize),
    universal_rules: (usize, usize),
    /// The two files as they were when loaded, for [`CompiledPolicy::unchanged_since_load`]
    /// (`None` for a policy loaded from bytes).
    files: Option<Box<[LoadedFile; 2]>>,
}

/// A file a loaded policy reads through a map: kept open, with its identity at load.
struct LoadedFile {
    path: std::path::PathBuf,
    file: std::fs::File,
    identity: FileIdentity,
}

/// A table index that points outside its table: only a forged sidecar (one that passes the
/// digest but was not written by our compiler) can produce one. Decisions fail closed on it.
#[derive(Debug)]
struct Inconsistent(&'static str);

type Checked<T> = Result<T, Inconsistent>;

impl std::fmt::Debug for CompiledPolicy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledPolicy")
            .field("sidecar", &self.bytes)
            .field("json_len", &self.json.as_bytes().len())
            .field("rules", &self.rule_count)
            .field("verification", &self.layout.verification)
            .finish_non_exhaustive()
    }
}

/// Where [`CompiledPolicy::search_literals`] sorts the literal occurrences of a text.
struct LiteralHits<'h> {
    /// Exact and word-prefix matchers that matched.
    matched: &'h mut Vec<u32>,
    /// The automata that must confirm a matcher, with the literal's position for those
    /// anchored there.
    to_confirm: &'h mut Vec<(u32, Option<usize>)>,
    /// Literal chains whose indexed piece occurs.
    chains: &'h mut Vec<u32>,
    /// The ids of the chain pieces that occur.
    pieces: &'h mut Vec<u32>,
}

/// A fired rule: its decision from the sidecar, its id and reason from the JSON (borrowed from
/// the mapped file unless the JSON escapes a character in them).
struct FiredRule<'a> {
    decision: Decision,
    id: Cow<'a, str>,
    reason: Cow<'a, str>,
}

impl RuleView for FiredRule<'_> {
    fn decision(&self) -> Decision {
        self.decision
    }
    fn id(&self) -> &str {
        &self.id
    }
    fn reason(&self) -> &str {
        &self.reason
    }
}

/// The value of one JSON string token (quotes included), as written by `serde_json`: borrowed
/// when it has no escape, decoded otherwise. `None` if it is not a string token.
pub(crate) fn json_string(token: &[u8]) -> Option<Cow<'_, str>> {
    let inner = token.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    if !inner.contains(&b'\\') {
        return std::str::from_utf8(inner).ok().map(Cow::Borrowed);
    }
    serde_json::from_slice::<String>(token).ok().map(Cow::Owned)
}

/// The policy JSON's bytes: mapped (hashing a map avoids copying megabytes at 10k rules, and
/// when the stamp vouches for it only the pages of rules that fire are ever read), or read
/// when it is empty or cannot be mapped.
enum PolicyBytes {
    Mapped(memmap2::Mmap),
    Read(Vec<u8>),
}

impl PolicyBytes {
    fn as_bytes(&self) -> &[u8] {
        match self {
            PolicyBytes::Mapped(map) => map,
            PolicyBytes::Read(bytes) => bytes,
        }
    }
}

fn read_policy_json(
    policy_path: &Path,
    mut file: &std::fs::File,
    len: u64,
) -> Result<PolicyBytes, LoadError> {
    let unreadable = |error| LoadError::PolicyUnreadable {
        path: policy_path.to_path_buf(),
        error,
    };
    if let Ok(len) = usize::try_from(len)
        && len > 0
    {
        // SAFETY: read-only private map of the file whose identity was just taken; the
        // compiler replaces the policy by rename, never in place.
        if let Ok(map) = unsafe { memmap2::MmapOptions::new().len(len).map(file) } {
            return Ok(PolicyBytes::Mapped(map));
        }
    }
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut file, &mut bytes).map_err(unreadable)?;
    Ok(PolicyBytes::Read(bytes))
}

impl CompiledPolicy {
    /// Load the policy at `policy_path` (`animus-policy.json`) through its sidecar
    /// ([`sidecar_path_for`]). The JSON is never parsed as a whole: it is mapped, and only the
    /// objects of rules that fire are read from it. Neither file is hashed when the compiler's
    /// stamp ([`stamp_path_for`], [`crate::sidecar::stamp`]) vouches for both as they are now;
    /// otherwise both are hashed and compared with the sidecar's header.
    pub fn load(policy_path: &Path) -> Result<CompiledPolicy, LoadError> {
        let unreadable = |error| LoadError::PolicyUnreadable {
            path: policy_path.to_path_buf(),
            error,
        };
        let (file, metadata) = open_trusted(policy_path).map_err(|fault| match fault {
            OpenFault::Io(error) => unreadable(error),
            OpenFault::Untrusted(e) => e,
        })?;
        let sidecar_path = sidecar_path_for(policy_path);
        let (bytes, sidecar_file, sidecar_identity) = SidecarBytes::map(&sidecar_path)?;
        let json = read_policy_json(policy_path, &file, metadata.len())?;
        // No stamp, or one that cannot be read, only means hashing both files; a stamp that is
        // there but untrusted is refused like the other two files.
        let stamp = match open_trusted(&stamp_path_for(policy_path)) {
            Ok((file, _)) => Stamp::read_from(file),
            Err(OpenFault::Io(_)) => None,
            Err(OpenFault::Untrusted(e)) => return Err(e),
        }
        .filter(|stamp| stamp.vouches_for(&sidecar_identity, &FileIdentity::of(&metadata)));
        let mut policy = CompiledPolicy::from_verified(bytes, json, stamp)?;
        policy.files = Some(Box::new([
            LoadedFile {
                path: sidecar_path,
                file: sidecar_file,
                identity: sidecar_identity,
            },
            LoadedFile {
                path: policy_path.to_path_buf(),
                file,
                identity: FileIdentity::of(&metadata),
            },
        ]));
        Ok(policy)
    }

    /// Whether both files are still as they were when loaded. The maps read the files as they
    /// are now: a file rewritten in place (a `cp` over it; the compiler renames) changes the
    /// bytes under a decision after they were verified, which can make it miss a rule. Such
    /// a write changes the file's size or times, which this `fstat`s; a decision taken across
    /// one must be discarded (the hook denies). A truncation raises `SIGBUS` instead, which the
    /// hook answers too.
    pub fn unchanged_since_load(&self) -> Result<(), LoadError> {
        for loaded in self.files.iter().flat_map(|files| files.iter()) {
            let now = loaded.file.metadata().map(|m| FileIdentity::of(&m));
            if now.as_ref().ok() != Some(&loaded.identity) {
                return Err(LoadError::ChangedWhileReading {
                    path: loaded.path.clone(),
                });
            }
        }
        Ok(())
    }

    /// Load from in-memory bytes (both copied once; both hashed).
    pub fn from_bytes(sidecar: &[u8], policy_json: &[u8]) -> Result<CompiledPolicy, LoadError> {
        CompiledPolicy::from_parts(SidecarBytes::copy_from(sidecar), policy_json)
    }

    /// Verify `bytes` as the sidecar of `policy_json` (both hashed) and check the tables'
    /// shapes.
    pub fn from_parts(
        bytes: SidecarBytes,
        policy_json: &[u8],
    ) -> Result<CompiledPolicy, LoadError> {
        CompiledPolicy::from_verified(bytes, PolicyBytes::Read(policy_json.to_vec()), None)
    }

    fn from_verified(
        bytes: SidecarBytes,
        json: PolicyBytes,
        stamp: Option<Stamp>,
    ) -> Result<CompiledPolicy, LoadError> {
        let binding = PolicyBinding {
            json: json.as_bytes(),
            stamp,
        };
        let layout = verify(bytes.as_bytes(), binding)?;
        let mut policy = CompiledPolicy {
            bytes,
            json,
            layout,
            default_decision: Decision::Deny,
            rule_count: 0,
            field_count: 0,
            tool_automata: (0, 0),
            universal_rules: (0, 0),
            files: None,
        };
        let malformed = |what: &str| LoadError::Malformed { what: what.into() };
        let globals = policy
            .record::<GLOBALS_WIDTH>(Section::Globals, 0)
            .map_err(|_| malformed("the globals record is missing"))?;
        let [
            default,
            rules,
            globs,
            matchers,
            fields,
            tool_first,
            tool_count,
            universal_first,
            universal_count,
        ] = globals;
        policy.default_decision = *Decision::ALL
            .get(default as usize)
            .ok_or_else(|| malformed("the default decision is not a decision"))?;
        let sized = |section: Section, count: u32, width: usize| {
            policy.section(section).len() == count as usize * width * 4
        };
        if !sized(Section::Rules, rules, RULE_WIDTH)
            || !sized(Section::Globs, globs, GLOB_WIDTH)
            || !sized(Section::Matchers, matchers, MATCHER_WIDTH)
            || !sized(Section::Fields, fields, FIELD_WIDTH)
            || !sized(Section::Globals, 1, GLOBALS_WIDTH)
            || !policy
                .section(Section::ToolNames)
                .len()
                .is_multiple_of(TOOL_NAME_WIDTH * 4)
            || !policy
                .section(Section::ToolPrefixes)
                .len()
                .is_multiple_of(TOOL_NAME_WIDTH * 4)
            || !sized(Section::LiteralPrefilter, fields, PREFILTER_BYTES / 4)
        {
            return Err(malformed(
                "a table's length disagrees with its record count",
            ));
        }
        let slots = policy.section(Section::LiteralSlots).len() / 4;
        let bloom_bits = policy.section(Section::LiteralBloom).len() * 8;
        if slots != 0
            && (!slots.is_power_of_two() || !bloom_bits.is_power_of_two() || bloom_bits < 32)
        {
            return Err(malformed(
                "the literal hash table or its Bloom filter is not a power of two",
            ));
        }
        policy.rule_count = rules as usize;
        policy.field_count = fields as usize;
        policy.tool_automata = (tool_first as usize, tool_count as usize);
        policy.universal_rules = (universal_first as usize, universal_count as usize);
        Ok(policy)
    }

    /// The decision when no non-`defer` rule matches.
    pub fn default_decision(&self) -> Decision {
        self.default_decision
    }

    /// How many rules the policy has.
    pub fn rule_count(&self) -> usize {
        self.rule_count
    }

    /// How this policy's integrity was established: the compiler's stamp, or hashing both
    /// files.
    pub fn verification(&self) -> Verification {
        self.layout.verification
    }

    /// Hex of the xxh3-128 digest of the exact `animus-policy.json` bytes this sidecar was
    /// compiled from (and verified against): names the policy in event records.
    pub fn policy_digest(&self) -> String {
        digest_hex(&self.layout.policy_digest)
    }

    /// Decide `call`. Never panics: a table inconsistency (possible only in a forged sidecar
    /// that still passes the digest) yields a deny naming the problem.
    pub fn decide(&self, call: Call<'_>) -> Outcome {
        self.try_decide(call)
            .unwrap_or_else(|Inconsistent(what)| Outcome {
                decision: Decision::Deny,
                reason: format!(
                    "animus-hook cannot evaluate this policy: the compiled sidecar is inconsistent \
                 ({what}); run `animus-hook compile` again"
                ),
                deciding_rule: None,
                matched: Vec::new(),
            })
    }

    fn try_decide(&self, call: Call<'_>) -> Checked<Outcome> {
        let event_bit = semantics::event_bit(call.event);
        let mut globs = Vec::new();
        self.exact_tool(call.tool_name, &mut globs)?;
        self.tool_prefixes(call.tool_name, &mut globs)?;
        let (tool_first, tool_count) = self.tool_automata;
        for i in 0..tool_count {
            let automaton = self.word(Section::AutomatonLists, tool_first + i)?;
            self.run_automaton(automaton, call.tool_name, Some(0), &mut globs)?;
        }
        globs.sort_unstable();
        globs.dedup();

        let mut matchers = Vec::new();
        let mut cover_fields = Vec::new();
        let mut analyses = shell::AnalysisCache::default();
        // One buffer for every anchored segment text of the call.
        let mut anchored = String::new();
        for field_id in 0..self.field_count {
            let field = self.record::<FIELD_WIDTH>(Section::Fields, field_id)?;
            let path = self.str(field[0], field[1])?;
            let view =
                view_of_code(field[7]).ok_or(Inconsistent("a field's view is not a view"))?;
            let Some(value) = semantics::lookup(call.tool_input, path) else {
                continue;
            };
            if view == MatchOn::Cover {
                // Decided after the other rules: coverage only matters when nothing denies
                // or asks.
                if let serde_json::Value::String(command) = value {
                    cover_fields.push((field_id as u32, field, command.as_str()));
                }
                continue;
            }
            let mut failure = None;
            semantics::any_text(value, &mut |text| {
                let id = field_id as u32;
                let result = match view {
                    MatchOn::Text => self.match_field(id, &field, text, &mut matchers),
                    MatchOn::TextAndSegments => self
                        .match_field(id, &field, text, &mut matchers)
                        .and_then(|()| {
                            analyses.get(text).generous_texts().try_for_each(|segment| {
                                self.match_field(id, &field, segment, &mut matchers)
                            })
                        }),
                    // A command's path texts are matched as they are made, none kept (the
                    // same texts as the reference evaluator's, `paths::command_path_texts`).
                    MatchOn::CommandPath => {
                        let mut failed = None;
                        let analysis = analyses.get(text);
                        let _ = paths::each_command_path_text(
                            analysis.generous_texts(),
                            call.places,
                            &mut |t| match self.match_field(id, &field, t, &mut matchers) {
                                Ok(()) => ControlFlow::Continue(()),
                                Err(e) => {
                                    failed = Some(e);
                                    ControlFlow::Break(())
                                }
                            },
                        );
                        failed.map_or(Ok(()), Err)
                    }
                    // Path, domain and name views: their texts as the reference evaluator
                    // makes them (`shell::AnalysisCache::view_texts`, the one definition).
                    MatchOn::Path
                    | MatchOn::ResolvedPath
                    | MatchOn::Name
                    | MatchOn::Domain
                    | MatchOn::ExactDomain => analyses
                        .view_texts(view, text, call.places)
                        .iter()
                        .try_for_each(|t| self.match_field(id, &field, t, &mut matchers)),
                    MatchOn::Segment | MatchOn::Cover => {
                        analyses.get(text).generous_texts().try_for_each(|segment| {
                            shell::anchor_into(&mut anchored, segment);
                            self.match_field(id, &field, &anchored, &mut matchers)
                        })
                    }
                };
                match result {
                    Ok(()) => false,
                    Err(e) => {
                        failure = Some(e);
                        true
                    }
                }
            });
            if let Some(e) = failure {
                return Err(e);
            }
        }
        matchers.sort_unstable();
        matchers.dedup();

        let mut candidates = Vec::new();
        for &matcher in &matchers {
            let record = self.record::<MATCHER_WIDTH>(Section::Matchers, matcher as usize)?;
            self.extend_from(Section::Postings, record[3], record[4], &mut candidates)?;
        }
        candidates.sort_unstable();
        let mut fired = Vec::new();
        for run in candidates.chunk_by(|a, b| a == b) {
            let rule = self.record::<RULE_WIDTH>(Section::Rules, run[0] as usize)?;
            if rule[5] as usize == run.len()
                && self.event_applies(&rule, event_bit)
                && self.tool_applies(&rule, &globs)?
            {
                fired.push(run[0]);
            }
        }
        let mut matcherless = Vec::new();
        for &glob in &globs {
            let record = self.record::<GLOB_WIDTH>(Section::Globs, glob as usize)?;
            self.extend_from(Section::Postings, record[0], record[1], &mut matcherless)?;
        }
        let (universal_first, universal_count) = self.universal_rules;
        self.extend_from(
            Section::Postings,
            universal_first as u32,
            universal_count as u32,
            &mut matcherless,
        )?;
        for rule_index in matcherless {
            let rule = self.record::<RULE_WIDTH>(Section::Rules, rule_index as usize)?;
            if self.event_applies(&rule, event_bit) {
                fired.push(rule_index);
            }
        }

        // Coverage decides only when no deny or ask rule fired (deny > ask > allow): then, and
        // only then, the `covers` rules are evaluated, segment by segment.
        let mut restricted = false;
        for &index in &fired {
            let rule = self.record::<RULE_WIDTH>(Section::Rules, index as usize)?;
            let decision = Decision::ALL.get((rule[4] & 0xff) as usize);
            restricted |= matches!(decision, Some(Decision::Deny | Decision::Ask));
        }
        if !restricted {
            let mut covering = Vec::new();
            for (field_id, field, command) in cover_fields {
                let analysis = analyses.get(command);
                self.covering_rules(
                    field_id,
                    &field,
                    analysis,
                    (event_bit, &globs),
                    &mut covering,
                )?;
            }
            fired.extend(covering);
        }

        let mut views = Vec::with_capacity(fired.len());
        for index in fired {
            let rule = self.record::<RULE_WIDTH>(Section::Rules, index as usize)?;
            let decision = *Decision::ALL
                .get((rule[4] & 0xff) as usize)
                .ok_or(Inconsistent("a rule's decision is not a decision"))?;
            let token = |offset: u32, len: u32| -> Checked<Cow<'_, str>> {
                self.json
                    .as_bytes()
                    .get(offset as usize..offset as usize + len as usize)
                    .and_then(json_string)
                    .ok_or(Inconsistent(
                        "a rule's id or reason is not a string of the policy JSON",
                    ))
            };
            views.push((
                index as usize,
                FiredRule {
                    decision,
                    id: token(rule[0], rule[1])?,
                    reason: token(rule[2], rule[3])?,
                },
            ));
        }
        Ok(semantics::fold_rules(self.default_decision, views))
    }

    /// The glob that is exactly `tool_name`, if any: binary search over the sorted names.
    fn exact_tool(&self, tool_name: &str, globs: &mut Vec<u32>) -> Checked<()> {
        let count = self.section(Section::ToolNames).len() / (TOOL_NAME_WIDTH * 4);
        let name = |i: usize| -> Checked<(&[u8], u32)> {
            let [offset, len, glob] = self.record::<TOOL_NAME_WIDTH>(Section::ToolNames, i)?;
            Ok((self.bytes_at(offset, len)?, glob))
        };
        let first_not_below = partition_point(count, |i| Ok(name(i)?.0 < tool_name.as_bytes()))?;
        if first_not_below < count {
            let (found, glob) = name(first_not_below)?;
            if found == tool_name.as_bytes() {
                globs.push(glob);
            }
        }
        Ok(())
    }

    /// Every glob `P*` whose `P` is a prefix of `tool_name` ([`sorted_prefixes_of`]).
    fn tool_prefixes(&self, tool_name: &str, globs: &mut Vec<u32>) -> Checked<()> {
        let count = self.section(Section::ToolPrefixes).len() / (TOOL_NAME_WIDTH * 4);
        let entry = |i: usize| self.record::<TOOL_NAME_WIDTH>(Section::ToolPrefixes, i);
        sorted_prefixes_of(
            tool_name.as_bytes(),
            count,
            |i| {
                let [offset, len, _] = entry(i)?;
                self.bytes_at(offset, len)
            },
            |i| {
                globs.push(entry(i)?[2]);
                Ok(())
            },
        )
    }

    fn event_applies(&self, rule: &[u32; RULE_WIDTH], event_bit: u8) -> bool {
        (rule[4] >> 8) as u8 & event_bit != 0
    }

    fn tool_applies(&self, rule: &[u32; RULE_WIDTH], matched_globs: &[u32]) -> Checked<bool> {
        if rule[7] == 0 {
            return Ok(true);
        }
        for i in 0..rule[7] as usize {
            let glob = self.word(Section::RuleGlobs, rule[6] as usize + i)?;
            if matched_globs.binary_search(&glob).is_ok() {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The `covers` rules of a [`MatchOn::Cover`] field that cover `analysis`, added to
    /// `covering` only when every segment has a strict text some applicable rule matches
    /// (the definition is [`crate::reference::ReferenceEvaluator::covering_rules`]).
    fn covering_rules(
        &self,
        field_id: u32,
        field: &[u32; FIELD_WIDTH],
        analysis: &shell::Analysis,
        (event_bit, globs): (u8, &[u32]),
        covering: &mut Vec<u32>,
    ) -> Checked<()> {
        if !analysis.coverable() {
            return Ok(());
        }
        let mut used = Vec::new();
        let mut matched = Vec::new();
        let mut rules = Vec::new();
        let mut anchored = String::new();
        for segment in analysis.covered_segments() {
            matched.clear();
            for text in &segment.strict {
                shell::anchor_into(&mut anchored, text);
                self.match_field(field_id, field, &anchored, &mut matched)?;
            }
            rules.clear();
            for &matcher in &matched {
                let record = self.record::<MATCHER_WIDTH>(Section::Matchers, matcher as usize)?;
                self.extend_from(Section::Postings, record[3], record[4], &mut rules)?;
            }
            let before = used.len();
            for &index in &rules {
                let rule = self.record::<RULE_WIDTH>(Section::Rules, index as usize)?;
                if rule[5] == 1
                    && self.event_applies(&rule, event_bit)
                    && self.tool_applies(&rule, globs)?
                {
                    used.push(index);
                }
            }
            if used.len() == before {
                return Ok(());
            }
        }
        covering.extend(used);
        Ok(())
    }

    /// Add every matcher of `field_id` that matches `text` to `matched`.
    fn match_field(
        &self,
        field_id: u32,
        field: &[u32; FIELD_WIDTH],
        text: &str,
        matched: &mut Vec<u32>,
    ) -> Checked<()> {
        self.extend_from(Section::MatcherLists, field[5], field[6], matched)?;
        if field[2] != 0 {
            let mut to_confirm = Vec::new();
            let mut chains = Vec::new();
            let mut pieces = Vec::new();
            self.search_literals(
                field_id,
                field[2],
                text.as_bytes(),
                LiteralHits {
                    matched,
                    to_confirm: &mut to_confirm,
                    chains: &mut chains,
                    pieces: &mut pieces,
                },
            )?;
            // (automaton, start): whole-text confirmations carry no start.
            to_confirm.sort_unstable();
            to_confirm.dedup();
            for (automaton, start) in to_confirm {
                self.run_automaton(automaton, text, start, matched)?;
            }
            // A chain is checked once, however often its literal occurs, and searched for
            // only if every one of its pieces occurs somewhere.
            chains.sort_unstable();
            chains.dedup();
            pieces.sort_unstable();
            pieces.dedup();
            for matcher in chains {
                if self.chain_matches(matcher, text, &pieces)? {
                    matched.push(matcher);
                }
            }
        }
        for i in 0..field[4] as usize {
            let automaton = self.word(Section::AutomatonLists, field[3] as usize + i)?;
            self.run_automaton(automaton, text, None, matched)?;
        }
        Ok(())
    }

    /// Does the literal chain of `matcher` match `text`? Its literal (the piece the compiler
    /// chose to index, see `compiler::lower`) occurs, and `present` holds the ids of the chain
    /// pieces that occur in `text` (sorted). Unless all of the chain's do, it cannot match;
    /// otherwise the order is checked from the start of the text: each piece is taken at its
    /// earliest occurrence after the previous one (greedy is optimal for `.*` gaps); a last
    /// piece that must end a word is tried at every occurrence until one is followed by
    /// whitespace or the end.
    fn chain_matches(&self, matcher: u32, text: &str, present: &[u32]) -> Checked<bool> {
        // Bytes throughout: pieces and text are valid UTF-8, so a byte match of a piece always
        // starts and ends on character boundaries.
        let text = text.as_bytes();
        let record = self.record::<MATCHER_WIDTH>(Section::Matchers, matcher as usize)?;
        let (first, count, ends_at_word, ends_text) = (
            record[5] as usize,
            (record[6] >> 2) as usize,
            record[6] & 1 == 1,
            record[6] & 2 == 2,
        );
        let piece = |i: usize| -> Checked<&[u8]> {
            let [offset, len, _] =
                self.record::<CHAIN_PIECE_WIDTH>(Section::ChainPieces, first + i)?;
            self.bytes_at(offset, len)
        };
        if count == 0 {
            return Err(Inconsistent("a literal chain has no pieces"));
        }
        for i in 0..count {
            let [_, _, id] = self.record::<CHAIN_PIECE_WIDTH>(Section::ChainPieces, first + i)?;
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

    /// Probe the literal index at every position of `text` and sort what occurs into `hits`.
    fn search_literals(
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
                let entry = |i: usize| {
                    self.record::<LITERAL_ENTRY_WIDTH>(
                        Section::LiteralEntries,
                        first_entry as usize + i,
                    )
                };
                group_prefixes_of(
                    rest,
                    key_len as usize,
                    entry_count as usize,
                    |i| {
                        let [_, _, _, low, high] = entry(i)?;
                        Ok(u64::from(high) << 32 | u64::from(low))
                    },
                    |i| {
                        let [offset, len, ..] = entry(i)?;
                        self.bytes_at(offset, len)
                    },
                    |i| {
                        let entry = entry(i)?;
                        if entry[2] & PIECE_ENTRY != 0 {
                            pieces.push(entry[2] & !PIECE_ENTRY);
                            return Ok(());
                        }
                        let matcher =
                            self.record::<MATCHER_WIDTH>(Section::Matchers, entry[2] as usize)?;
                        match MatcherKind::from_u32(matcher[1]) {
                            Some(MatcherKind::Exact) => matched.push(entry[2]),
                            Some(MatcherKind::WordPrefix) => {
                                if next_char(&rest[entry[1] as usize..])
                                    .is_none_or(char::is_whitespace)
                                {
                                    matched.push(entry[2]);
                                }
                            }
                            Some(MatcherKind::EndsText) => {
                                if rest.len() == entry[1] as usize {
                                    matched.push(entry[2]);
                                }
                            }
                            Some(MatcherKind::Confirmed) => to_confirm.push((matcher[2], None)),
                            Some(MatcherKind::LiteralChain) => chains.push(entry[2]),
                            Some(MatcherKind::StartsWithLiteral) => {
                                to_confirm.push((matcher[2], Some(start)))
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

    fn find_literal_group(
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
            let start = (group as usize - 1) * LITERAL_GROUP_WIDTH;
            let field = read_word(tables.groups, start)?;
            if field == field_id
                && read_word(tables.groups, start + 1)? == key_len
                && read_word(tables.groups, start + 2)? == key as u32
                && read_word(tables.groups, start + 3)? == (key >> 32) as u32
            {
                return Ok(Some((
                    read_word(tables.groups, start + 4)?,
                    read_word(tables.groups, start + 5)?,
                )));
            }
            slot = (slot + 1) & (slot_count - 1);
        }
        Ok(None)
    }

    /// Search `text` with automaton `id` (from `start` for automata anchored at a literal),
    /// adding the target of every pattern that matches.
    fn run_automaton(
        &self,
        id: u32,
        text: &str,
        start: Option<usize>,
        matched: &mut Vec<u32>,
    ) -> Checked<()> {
        let record = self.record::<AUTOMATON_WIDTH>(Section::Automata, id as usize)?;
        let [offset, len, search, first_target, target_count, form] = record;
        let bytes = self
            .section(Section::DfaBytes)
            .get(offset as usize..offset as usize + len as usize)
            .ok_or(Inconsistent("a DFA lies outside the DFA section"))?;
        let search =
            SearchKind::from_u32(search).ok_or(Inconsistent("a DFA has an unknown search kind"))?;
        let targets = Targets {
            policy: self,
            first: first_target as usize,
            count: target_count as usize,
        };
        let not_deserializable = |_| Inconsistent("a DFA does not deserialize");
        // SAFETY (both arms): `from_bytes_unchecked` trusts the transition table. These bytes
        // passed the file digest (`sidecar::load::verify`), so they are exactly what our
        // compiler wrote with `write_to_little_endian` from a DFA it had just built with this
        // pinned regex-automata version (also checked). Alignment and the DFA's own header are
        // still checked by regex-automata and reported as errors. See `crate::sidecar`, "Trust".
        match DfaForm::from_u32(form) {
            Some(DfaForm::Dense) => {
                let (dfa, _) = unsafe { dense::DFA::from_bytes_unchecked(bytes) }
                    .map_err(not_deserializable)?;
                search_with(&dfa, search, text, start, targets, matched)
            }
            Some(DfaForm::Sparse) => {
                let (dfa, _) = unsafe { sparse::DFA::from_bytes_unchecked(bytes) }
                    .map_err(not_deserializable)?;
                search_with(&dfa, search, text, start, targets, matched)
            }
            None => Err(Inconsistent("a DFA has an unknown form")),
        }
    }

    // --- checked access to the verified sections -------------------------------------------

    fn section(&self, section: Section) -> &[u8] {
        let (offset, len) = self.layout.sections[section as usize];
        self.bytes
            .as_bytes()
            .get(offset..offset + len)
            .unwrap_or(&[])
    }

    fn word(&self, section: Section, index: usize) -> Checked<u32> {
        let at = index.checked_mul(4).ok_or(Inconsistent("index overflow"))?;
        self.section(section)
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or(Inconsistent("an index points outside its table"))
    }

    fn record<const WIDTH: usize>(&self, section: Section, index: usize) -> Checked<[u32; WIDTH]> {
        let start = index
            .checked_mul(WIDTH * 4)
            .ok_or(Inconsistent("index overflow"))?;
        let bytes = self
            .section(section)
            .get(start..start + WIDTH * 4)
            .ok_or(Inconsistent("a record index points outside its table"))?;
        let mut record = [0u32; WIDTH];
        for (word, chunk) in record.iter_mut().zip(bytes.chunks_exact(4)) {
            *word = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
        Ok(record)
    }

    fn extend_from(
        &self,
        section: Section,
        first: u32,
        count: u32,
        out: &mut Vec<u32>,
    ) -> Checked<()> {
        for i in 0..count as usize {
            out.push(self.word(section, first as usize + i)?);
        }
        Ok(())
    }

    fn bytes_at(&self, offset: u32, len: u32) -> Checked<&[u8]> {
        self.section(Section::Strings)
            .get(offset as usize..offset as usize + len as usize)
            .ok_or(Inconsistent("a string lies outside the string pool"))
    }

    fn str(&self, offset: u32, len: u32) -> Checked<&str> {
        std::str::from_utf8(self.bytes_at(offset, len)?)
            .map_err(|_| Inconsistent("a string is not UTF-8"))
    }
}

/// The targets of one automaton's patterns.
#[derive(Clone, Copy)]
struct Targets<'a> {
    policy: &'a CompiledPolicy,
    first: usize,
    count: usize,
}

impl Targets<'_> {
    fn get(&self, pattern: usize) -> Checked<u32> {
        self.policy
            .word(Section::AutomatonTargets, self.first + pattern)
    }
}

/// Search `text` with `dfa` as `search` says, adding the target of every matching pattern.
fn search_with<A: Automaton>(
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

/// How many leading entries of a table of `count` satisfy `holds` (which, on a sorted table,
/// holds for a prefix of it): a binary search through checked accessors.
fn partition_point(count: usize, holds: impl Fn(usize) -> Checked<bool>) -> Checked<usize> {
    let (mut low, mut high) = (0, count);
    while low < high {
        let middle = low + (high - low) / 2;
        if holds(middle)? {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    Ok(low)
}

/// Visit (by index) every entry of a table sorted by `key` whose key is a prefix of `text`,
/// with a few binary searches instead of a comparison per entry. The largest entry `E` not
/// above the current bound is the only candidate of its length or longer: if `E` is a prefix
/// of the text it matches (with the equal entries just before it) and the search goes on below
/// it (`bound = text[..|E|-1]`); otherwise no entry longer than `E`'s common prefix `l` with
/// the text can be a prefix of it (it would sort after `E`), so `bound = text[..l]`. The bound
/// shrinks every step, so even an unsorted (forged) table only yields a wrong set, never a
/// hang.
fn sorted_prefixes_of<'a>(
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
fn group_prefixes_of<'a>(
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
fn next_char(bytes: &[u8]) -> Option<char> {
    let head = &bytes[..bytes.len().min(4)];
    std::str::from_utf8(head)
        .or_else(|e| std::str::from_utf8(&head[..e.valid_up_to()]))
        .ok()
        .and_then(|s| s.chars().next())
}

/// Where `needle` first occurs in `haystack`. The texts are short (a command, a path) and the
/// needles shorter: a scan for the first byte and a compare beats setting up a `str::find`
/// searcher, which dominated deciding at 100,000 rules.
fn find_bytes(haystack: &[u8], needle: &[u8]) -> Option<usize> {
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

/// The literal hash table and its groups, resolved once per search.
struct LiteralTables<'a> {
    slots: &'a [u8],
    groups: &'a [u8],
    bloom: &'a [u8],
    bloom_shift: u32,
}

/// Word `index` of a little-endian `u32` table.
fn read_word(table: &[u8], index: usize) -> Checked<u32> {
    let at = index * 4;
    table
        .get(at..at + 4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or(Inconsistent("an index points outside its table"))
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

    #[test]
    fn next_char_decodes_one_character() {
        assert_eq!(next_char(b""), None);
        assert_eq!(next_char(b" x"), Some(' '));
        assert_eq!(next_char("ü x".as_bytes()), Some('ü'));
        assert_eq!(next_char("\u{a0}".as_bytes()), Some('\u{a0}'));
    }

    #[test]
    fn json_string_tokens_borrow_unless_escaped() {
        let plain = serde_json::to_string("tool_policy.deny:Bash(rm -rf:*)").unwrap();
        assert!(matches!(
            json_string(plain.as_bytes()),
            Some(Cow::Borrowed("tool_policy.deny:Bash(rm -rf:*)"))
        ));
        for tricky in ["say \"hi\"", "back\\slash", "tab\there", "ünïcödé ✓", ""] {
            let token = serde_json::to_string(tricky).unwrap();
            assert_eq!(json_string(token.as_bytes()).as_deref(), Some(tricky));
        }
        for not_a_string in [&b"42"[..], b"\"open", b"", b"\"", b"\"\\x\""] {
            assert_eq!(json_string(not_a_string), None, "{not_a_string:?}");
        }
    }
}
