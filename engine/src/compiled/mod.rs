//! The compiled policy: decide a call from a mapped sidecar, matching every rule at once.
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
//! let outcome = policy.decide(Call::pre_tool_use("Bash", &input, Default::default()));
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
//!    - *always* matchers (`.*`) match any text;
//!    - a *command-path* field whose globs all begin with a base's tag has neither: its
//!      automata are anchored at the text's start, where a path text's tag is
//!      ([`SearchKind::AnchoredAtStart`]), and the words read below one directory are searched
//!      from the state that directory's prefix leads to, found once a call
//!      ([`paths::PathTextSink`]); a confirming pattern held at the start (`^…`) is searched
//!      from there alone.
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
//!
//! The module by job: `load.rs` maps and verifies, `decide.rs` decides,
//! `literals.rs` is the literal index, `chains.rs` the literal chains, `dfa.rs` the
//! precompiled DFAs, `tables.rs` the bounds-checked access every other part reads through.

use std::borrow::Cow;
use std::ops::ControlFlow;
use std::path::Path;

use regex_automata::dfa::{Automaton, dense, sparse};
use regex_automata::{Anchored, Input, PatternSet};

use crate::json::json_string;
use crate::policy::{Decision, MatchOn};
use crate::semantics::{self, Call, Outcome};
use crate::sidecar::format::{
    DfaForm, MAX_KEY_LEN, MatcherKind, PIECE_ENTRY, PIECE_NOT_INDEXED, PREFILTER_BYTES,
    PREFILTER_SINGLE_BYTES, PREFILTER_TRIGRAM_SET, SearchKind, Section, literal_slot_hash,
    prefilter_slot, prefilter_trigram, tail_word, view_of_code,
};
use crate::sidecar::load::{OpenFault, PolicyBinding, VerifiedLayout, open_trusted, verify};
use crate::sidecar::records::{
    AutomatonRecord, ChainPieceRecord, FieldRecord, GlobRecord, GlobalsRecord, LiteralEntryRecord,
    LiteralGroupRecord, MAX_RECORD_WIDTH, MatcherRecord, Record, RuleRecord, ToolNameRecord,
    ToolPrefixRecord,
};
use crate::sidecar::{
    FileIdentity, LoadError, SidecarBytes, Stamp, Verification, digest_hex, sidecar_path_for,
    stamp_path_for,
};
use crate::{paths, shell};

mod chains;
mod decide;
mod dfa;
mod literals;
mod load;
mod tables;

use dfa::{Dfas, HitLists};
use literals::{LiteralHits, next_char, sorted_prefixes_of};
use load::PolicyBytes;
use tables::{partition_point, read_record, read_word};

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
