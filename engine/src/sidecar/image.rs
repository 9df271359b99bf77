//! The image the compiler hands the encoder: a lowered policy as plain vectors, no offsets.

use super::format::{DfaForm, MatcherKind, SearchKind};
use crate::policy::Decision;

/// A lowered policy, ready to encode.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SidecarImage {
    /// The policy's default decision.
    pub default_decision: Option<Decision>,
    /// Every rule, in policy order.
    pub rules: Vec<RuleImage>,
    /// How many distinct tool globs the rules reference.
    pub glob_count: u32,
    /// Every distinct `(field, regex)` matcher.
    pub matchers: Vec<MatcherImage>,
    /// Every distinct field path.
    pub fields: Vec<FieldImage>,
    /// The automata searched over the tool name; their targets are glob ids.
    pub tool_automata: Vec<u32>,
    /// Tool globs without `*`: the exact tool name and its glob id (each name once).
    pub exact_tools: Vec<(String, u32)>,
    /// Tool globs `P*` (one `*`, at the end): the prefix `P` and the glob id (each once).
    pub tool_prefixes: Vec<(String, u32)>,
    /// Every DFA.
    pub automata: Vec<AutomatonImage>,
}

/// One rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleImage {
    /// The rule id.
    pub id: String,
    /// The rule reason.
    pub reason: String,
    /// The rule decision.
    pub decision: Decision,
    /// [`crate::semantics::event_mask`] of the rule's events.
    pub event_mask: u8,
    /// Distinct matcher ids, all of which must match.
    pub matchers: Vec<u32>,
    /// Distinct glob ids, one of which must match (none = every tool).
    pub globs: Vec<u32>,
}

/// One `(field, regex)` matcher.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatcherImage {
    /// The field id.
    pub field: u32,
    /// How it is decided.
    pub kind: MatcherKind,
    /// Its confirming automaton, for [`MatcherKind::Confirmed`],
    /// [`MatcherKind::ConfirmedAtStart`] and [`MatcherKind::StartsWithLiteral`].
    pub automaton: u32,
    /// The literals of [`MatcherKind::Exact`], [`MatcherKind::Confirmed`],
    /// [`MatcherKind::ConfirmedAtStart`] and [`MatcherKind::StartsWithLiteral`] matchers.
    pub literals: Vec<Vec<u8>>,
    /// For [`MatcherKind::ConfirmedAtStart`] (and only for it): the literals one of which
    /// starts every text the matcher matches. Written as its chain pieces, none indexed.
    pub text_prefixes: Vec<Vec<u8>>,
    /// The pieces of a [`MatcherKind::LiteralChain`]; its literal is the one piece the
    /// literal index finds it by (chosen by the compiler, any of them).
    pub chain: Vec<Vec<u8>>,
    /// Whether the chain's last piece must be followed by whitespace or the end.
    pub chain_ends_at_word: bool,
    /// For [`MatcherKind::LiteralChain`]: the last piece must end the text.
    pub chain_ends_text: bool,
}

/// One field path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldImage {
    /// The dot path into `tool_input`.
    pub path: String,
    /// Which texts of the field its matchers search.
    pub view: crate::policy::MatchOn,
    /// For a path view, the bases its matchers are anchored to
    /// ([`crate::paths::TagSet::bits`]; 0: unknown, every base).
    pub path_tags: u8,
    /// Automata run over every text of the field; their targets are matcher ids.
    pub scan_automata: Vec<u32>,
}

/// One serialized DFA.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AutomatonImage {
    /// `write_to_little_endian` output of a dense or sparse DFA.
    pub dfa_bytes: Vec<u8>,
    /// Which representation `dfa_bytes` holds.
    pub form: DfaForm,
    /// How to search it.
    pub search: SearchKind,
    /// Pattern i stands for `targets[i]` (a matcher id, or a glob id for tool automata).
    pub targets: Vec<u32>,
}

/// Why an image could not be encoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct EncodeError(pub String);

/// `value` as a table word, or an error naming `what` outgrew the format.
pub(crate) fn to_u32(value: usize, what: &str) -> Result<u32, EncodeError> {
    u32::try_from(value)
        .map_err(|_| EncodeError(format!("{what} exceeds the sidecar's 4 GiB limit")))
}
