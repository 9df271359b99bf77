//! Normalising a matcher regex and deciding how the engine will evaluate it.
//!
//! Unanchored search (`Regex::is_match`) already lets a match start and end anywhere, so a
//! leading or trailing `.*` (with `.` matching newlines, our flavour) changes nothing and only
//! makes automata larger: it is dropped. Likewise `X.*$` holds exactly when `X` matches
//! somewhere, and the word-prefix form `P(?:\s.*)?$` that `Bash(git status:*)` lowers to holds
//! exactly when `P` is followed by whitespace or the end (`P(?:\s|\z)`) — rewriting it removes
//! the only unbounded repetition in the most common real rule shape.
//!
//! Then each pattern is [`classify`]d:
//! - [`Lowered::Always`]: empty after normalisation (`.*`): matches every text.
//! - [`Lowered::Exact`]: a literal or an alternation of literals: the literal index alone
//!   decides it, no automaton at all. Most real rules (`Bash(*rm -rf*)`) are this.
//! - [`Lowered::StartsWithLiteral`]: every match *starts* with one of a small set of literals
//!   ([`leading_literals`]): a hit at position `p` runs a small anchored DFA from `p`.
//!   Measured on real-list shapes this is what keeps the sidecar small: an anchored
//!   multi-pattern DFA is a trie, while the unanchored one needs failure transitions from
//!   every state (9 KB per `Bash(git status:*)` rule unanchored and dense).
//! - [`Lowered::Confirmed`]: every match contains one of a small set of literals (found by
//!   [`required_literals`]); the literal index triggers a DFA over the whole text — for a
//!   pattern held at the text's start (`^rm …`) that also starts the text with one of a few
//!   literals ([`text_prefixes`]), only on a text that starts with one.
//! - [`Lowered::Scanned`]: no usable literal (`(?i)sudo`, `^$`): searched by a scan automaton
//!   on every text of its field.

use regex_syntax::hir::{Class, Hir, HirKind, Look, Repetition};

/// At most this many alternatives in a required literal set; more are not worth probing.
const MAX_REQUIRED_LITERALS: usize = 32;

/// How the engine evaluates one matcher regex.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lowered {
    /// Matches every text.
    Always,
    /// Matches exactly the texts containing one of these literals.
    Exact(Vec<Vec<u8>>),
    /// Exactly: the literal, followed by whitespace or the end of the text.
    WordPrefix(Vec<u8>),
    /// Exactly: the literal at the end of the text (`P$`: a whole segment, `Bash(git status)`
    /// as `\x01git status$`, or a suffix, `Bash(* --help)`).
    EndsText(Vec<u8>),
    /// Literals in order with `.*` between them, optionally followed by whitespace or the end,
    /// or by the end alone.
    LiteralChain {
        /// The pieces, at least two.
        pieces: Vec<Vec<u8>>,
        /// Whether the last piece must be followed by whitespace or the end.
        ends_at_word: bool,
        /// Whether the last piece must end the text.
        ends_text: bool,
    },
    /// Every match starts with one of `literals`; `hir` confirms, anchored there.
    StartsWithLiteral {
        /// The leading literals.
        literals: Vec<Vec<u8>>,
        /// The normalised pattern.
        hir: Hir,
    },
    /// Every match contains one of `literals`; `hir` confirms.
    Confirmed {
        /// The required literals.
        literals: Vec<Vec<u8>>,
        /// Literals one of which starts the text in every match ([`text_prefixes`]); empty
        /// when there is no such small set.
        text_prefixes: Vec<Vec<u8>>,
        /// The normalised pattern.
        hir: Hir,
    },
    /// Needs an automaton on every text.
    Scanned(Hir),
}

pub use crate::regex_check::parse;

/// Is `hir` `.*` in our flavour (any character, any number of times, greedy or lazy)?
fn is_dot_star(hir: &Hir) -> bool {
    let HirKind::Repetition(Repetition {
        min: 0,
        max: None,
        sub,
        ..
    }) = hir.kind()
    else {
        return false;
    };
    match sub.kind() {
        HirKind::Class(Class::Unicode(class)) => {
            let ranges = class.ranges();
            ranges.len() == 1 && ranges[0].start() == '\0' && ranges[0].end() == '\u{10FFFF}'
        }
        HirKind::Class(Class::Bytes(class)) => {
            let ranges = class.ranges();
            ranges.len() == 1 && ranges[0].start() == 0 && ranges[0].end() == 255
        }
        _ => false,
    }
}

fn is_end_of_text(hir: &Hir) -> bool {
    matches!(hir.kind(), HirKind::Look(Look::End))
}

/// Drop what unanchored search makes redundant (see the module docs).
pub fn normalise(hir: Hir) -> Hir {
    if is_dot_star(&hir) {
        return Hir::empty();
    }
    let HirKind::Concat(parts) = hir.kind() else {
        return hir;
    };
    let mut parts: Vec<Hir> = parts.clone();
    while parts.first().is_some_and(is_dot_star) {
        parts.remove(0);
    }
    loop {
        let n = parts.len();
        if parts.last().is_some_and(is_dot_star) {
            parts.pop();
        } else if n >= 2 && is_end_of_text(&parts[n - 1]) && is_dot_star(&parts[n - 2]) {
            // `X.*\z` ⇔ `X`.
            parts.truncate(n - 2);
        } else if n >= 2 && is_end_of_text(&parts[n - 1]) {
            // `X(?:Y.*)?\z` ⇔ `X(?:Y|\z)`.
            let HirKind::Repetition(Repetition {
                min: 0,
                max: Some(1),
                sub,
                ..
            }) = parts[n - 2].kind()
            else {
                break;
            };
            let HirKind::Concat(inner) = sub.kind() else {
                break;
            };
            if !inner.last().is_some_and(is_dot_star) {
                break;
            }
            let head = Hir::concat(inner[..inner.len() - 1].to_vec());
            let tail = Hir::alternation(vec![head, Hir::look(Look::End)]);
            parts.truncate(n - 2);
            parts.push(tail);
            break;
        } else {
            break;
        }
    }
    Hir::concat(parts)
}

/// The shortest literal a regex of a text field should be found by (`rm` is two bytes): one
/// found by less, or by none, is searched in nearly every text of its field, every call. The
/// pack test (`compiler/tests/packs_literals.rs`) holds the built-in packs to it; an author's
/// regex below it is warned about (AH209).
pub const SHORTEST_USEFUL_LITERAL: usize = 2;

/// The length of the shortest literal the literal index would find `regex` by, for a regex
/// confirmed where a literal occurs (or the length of the piece a literal chain is found by);
/// `Some(0)` for one scanned over every text, `None` for one decided by its literals alone
/// (exact, word prefix, end of text, always) or that does not parse. A short one is confirmed
/// on nearly every text of its field.
pub fn shortest_index_literal(regex: &str) -> Option<usize> {
    let shortest = |literals: &[Vec<u8>]| literals.iter().map(Vec::len).min();
    match classify(normalise(parse(regex).ok()?)) {
        Lowered::Scanned(_) => Some(0),
        Lowered::Confirmed { literals, .. } | Lowered::StartsWithLiteral { literals, .. } => {
            shortest(&literals)
        }
        Lowered::LiteralChain { pieces, .. } => pieces.iter().map(Vec::len).max(),
        Lowered::Always | Lowered::Exact(_) | Lowered::WordPrefix(_) | Lowered::EndsText(_) => None,
    }
}

/// Decide how a normalised pattern is evaluated.
pub fn classify(hir: Hir) -> Lowered {
    if matches!(hir.kind(), HirKind::Empty) {
        return Lowered::Always;
    }
    if let Some(literals) = exact_literals(&hir) {
        return Lowered::Exact(literals);
    }
    if let Some(literal) = word_prefix(&hir) {
        return Lowered::WordPrefix(literal);
    }
    if let HirKind::Concat(parts) = hir.kind()
        && let [literal, end] = parts.as_slice()
        && let HirKind::Literal(literal) = literal.kind()
        && is_end_of_text(end)
    {
        return Lowered::EndsText(literal.0.to_vec());
    }
    if let Some((pieces, ends_at_word, ends_text)) = literal_chain(&hir) {
        return Lowered::LiteralChain {
            pieces,
            ends_at_word,
            ends_text,
        };
    }
    if let Some(literals) = leading_literals(&hir) {
        return Lowered::StartsWithLiteral { literals, hir };
    }
    match required_literals(&hir) {
        Some(literals) => {
            let text_prefixes = text_prefixes(&hir).unwrap_or_default();
            // The prefix is checked at the text's start anyway: the literal index finds the
            // matcher by a literal after it, where one of three bytes or more is required
            // (`^@rm-target write … /\.(bashrc|zshrc|…)$` by its file names, not by the
            // prefix every write target starts with).
            let literals = if text_prefixes.is_empty() {
                literals
            } else {
                literals_after_the_prefix(&hir)
                    .filter(|after| after.iter().all(|l| l.len() >= 3))
                    .unwrap_or(literals)
            };
            Lowered::Confirmed {
                literals,
                text_prefixes,
                hir,
            }
        }
        None => Lowered::Scanned(hir),
    }
}

/// `Some(set)` when `hir` matches exactly the texts containing one of `set`.
fn exact_literals(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    match hir.kind() {
        HirKind::Literal(literal) => Some(vec![literal.0.to_vec()]),
        HirKind::Capture(capture) => exact_literals(&capture.sub),
        HirKind::Alternation(branches) => union_of(branches, exact_literals),
        _ => None,
    }
}

/// The sorted, deduplicated union of `literals` over every branch of an alternation; `None` if
/// any branch has none.
fn union_of(branches: &[Hir], literals: fn(&Hir) -> Option<Vec<Vec<u8>>>) -> Option<Vec<Vec<u8>>> {
    let mut all = Vec::new();
    for branch in branches {
        all.extend(literals(branch)?);
    }
    all.sort();
    all.dedup();
    Some(all)
}

/// A set of literals at least one of which occurs in every match of `hir`, if there is a
/// small one. Among the candidates of a concatenation the one whose shortest literal is
/// longest wins (longer literals trigger fewer confirmations), then the smaller set.
pub fn required_literals(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    match hir.kind() {
        HirKind::Literal(literal) => Some(vec![literal.0.to_vec()]),
        HirKind::Capture(capture) => required_literals(&capture.sub),
        HirKind::Repetition(repetition) if repetition.min >= 1 => {
            required_literals(&repetition.sub)
        }
        HirKind::Concat(parts) => best_required(parts.iter().filter_map(required_literals)),
        HirKind::Alternation(branches) => {
            union_of(branches, required_literals).filter(|all| all.len() <= MAX_REQUIRED_LITERALS)
        }
        _ => None,
    }
}

/// The best required literal set (as [`required_literals`] chooses among a concatenation's
/// parts) of what follows `^` and the part giving the text prefix, for `^P…`.
fn literals_after_the_prefix(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    let HirKind::Concat(parts) = hir.kind() else {
        return None;
    };
    match parts.as_slice() {
        [start, _prefix, rest @ ..] if matches!(start.kind(), HirKind::Look(Look::Start)) => {
            best_required(rest.iter().filter_map(required_literals))
        }
        _ => None,
    }
}

/// Among candidate literal sets, the one whose shortest literal is longest (longer literals
/// trigger fewer confirmations), then the smaller set.
fn best_required(sets: impl Iterator<Item = Vec<Vec<u8>>>) -> Option<Vec<Vec<u8>>> {
    sets.max_by_key(|set| {
        let shortest = set.iter().map(Vec::len).min().unwrap_or(0);
        (shortest.min(8), usize::MAX - set.len())
    })
}

/// Is `hir` the word-end tail `(?:\s|\z)`?
fn is_word_end(hir: &Hir) -> bool {
    let HirKind::Alternation(branches) = hir.kind() else {
        return false;
    };
    let Ok(whitespace) = parse(r"\s") else {
        return false;
    };
    let is_boundary = |a: &Hir, b: &Hir| *a == whitespace && is_end_of_text(b);
    matches!(branches.as_slice(), [a, b] if is_boundary(a, b) || is_boundary(b, a))
}

/// `Some((pieces, ends_at_word, ends_text))` when `hir` is `P1.*P2(.*Pn)*`, optionally
/// followed by the word-end tail or by the end of the text.
fn literal_chain(hir: &Hir) -> Option<(Vec<Vec<u8>>, bool, bool)> {
    let HirKind::Concat(parts) = hir.kind() else {
        return None;
    };
    let (parts, ends_at_word, ends_text) = match parts.split_last() {
        Some((last, rest)) if is_word_end(last) => (rest, true, false),
        Some((last, rest)) if is_end_of_text(last) => (rest, false, true),
        _ => (parts.as_slice(), false, false),
    };
    if parts.len() < 3 || parts.len() % 2 == 0 {
        return None;
    }
    let mut pieces = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        match part.kind() {
            HirKind::Literal(literal) if i % 2 == 0 => pieces.push(literal.0.to_vec()),
            _ if i % 2 == 1 && is_dot_star(part) => {}
            _ => return None,
        }
    }
    Some((pieces, ends_at_word, ends_text))
}

/// `Some(P)` when `hir` is exactly `P(?:\s|\z)` — the normal form of the word-prefix tail.
fn word_prefix(hir: &Hir) -> Option<Vec<u8>> {
    let HirKind::Concat(parts) = hir.kind() else {
        return None;
    };
    let [prefix, tail] = parts.as_slice() else {
        return None;
    };
    let HirKind::Literal(literal) = prefix.kind() else {
        return None;
    };
    let HirKind::Alternation(branches) = tail.kind() else {
        return None;
    };
    let whitespace = parse(r"\s").ok()?;
    let is_boundary = |a: &Hir, b: &Hir| *a == whitespace && is_end_of_text(b);
    match branches.as_slice() {
        [a, b] if is_boundary(a, b) || is_boundary(b, a) => Some(literal.0.to_vec()),
        _ => None,
    }
}

/// A small set of literals one of which every match of `hir` starts with, if there is one.
pub fn leading_literals(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    match hir.kind() {
        HirKind::Literal(literal) => Some(vec![literal.0.to_vec()]),
        HirKind::Capture(capture) => leading_literals(&capture.sub),
        HirKind::Repetition(repetition) if repetition.min >= 1 => leading_literals(&repetition.sub),
        HirKind::Concat(parts) => parts.first().and_then(leading_literals),
        HirKind::Alternation(branches) => {
            union_of(branches, leading_literals).filter(|all| all.len() <= MAX_REQUIRED_LITERALS)
        }
        _ => None,
    }
}

/// A small set of literals one of which starts the text in every match of `hir`: the
/// [`leading_literals`] of what follows its `^` (`^(rm|unlink) …`: `rm`, `unlink`), for each
/// branch of an alternation. `None` when there is none (`^(?i)git …` folds its case into
/// classes; `^[a-z]+ …` has no literal) — and never an empty literal, which every text starts
/// with.
pub fn text_prefixes(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    let prefixes = match hir.kind() {
        HirKind::Concat(parts) => match parts.split_first() {
            Some((first, rest)) if matches!(first.kind(), HirKind::Look(Look::Start)) => {
                rest.first().and_then(leading_literals)
            }
            // `(^a|^b)c`: every match begins with a match of the first part.
            Some((first, _)) => text_prefixes(first),
            None => None,
        },
        HirKind::Capture(capture) => text_prefixes(&capture.sub),
        HirKind::Alternation(branches) => {
            union_of(branches, text_prefixes).filter(|all| all.len() <= MAX_REQUIRED_LITERALS)
        }
        _ => None,
    }?;
    (!prefixes.iter().any(Vec::is_empty)).then_some(prefixes)
}

/// Can a match of `hir` begin only at the start of the text (`^`, `\A`: our flavour is not
/// multi-line)? Such a pattern is searched by a DFA anchored there, run once from the start
/// ([`SearchKind::AnchoredAtStart`](engine::sidecar::SearchKind)), not over the whole text.
pub fn starts_at_text_start(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Look(Look::Start) => true,
        HirKind::Concat(parts) => parts.first().is_some_and(starts_at_text_start),
        HirKind::Capture(capture) => starts_at_text_start(&capture.sub),
        HirKind::Alternation(branches) => branches.iter().all(starts_at_text_start),
        _ => false,
    }
}

/// Does `hir` contain an unbounded repetition (`*`, `+`, `{n,}`)? Patterns without one
/// combine into multi-pattern DFAs that grow roughly additively; patterns with one can
/// multiply each other's states, so they get automata of their own.
pub fn has_unbounded_repetition(hir: &Hir) -> bool {
    match hir.kind() {
        HirKind::Repetition(repetition) => {
            repetition.max.is_none() || has_unbounded_repetition(&repetition.sub)
        }
        HirKind::Capture(capture) => has_unbounded_repetition(&capture.sub),
        HirKind::Concat(parts) | HirKind::Alternation(parts) => {
            parts.iter().any(has_unbounded_repetition)
        }
        HirKind::Empty | HirKind::Literal(_) | HirKind::Class(_) | HirKind::Look(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lowered(pattern: &str) -> Lowered {
        classify(normalise(parse(pattern).unwrap()))
    }

    #[test]
    fn only_patterns_held_at_the_text_start_are_searched_from_there() {
        let held = |pattern: &str| starts_at_text_start(&normalise(parse(pattern).unwrap()));
        assert!(held(r"^(npm|pnpm)( [^ ]+)* -g( |$)"));
        assert!(held(r"\Agit push"));
        assert!(held(r"(^rm|^unlink) x"));
        assert!(!held(r"(^| )rm -rf"));
        assert!(!held(r"(?m)^rm"));
        assert!(!held(r"x^"));
        // The `.*` unanchored search implies is dropped first; it can only match empty here.
        assert!(held(r".*^rm"));
        assert!(!held(r"rm -rf"));
    }

    fn literals(list: &[&str]) -> Vec<Vec<u8>> {
        list.iter().map(|s| s.as_bytes().to_vec()).collect()
    }

    /// A chain of `pieces`, ending at a word's end or the text's end as asked.
    fn chain(pieces: &[&str], ends_at_word: bool, ends_text: bool) -> Lowered {
        Lowered::LiteralChain {
            pieces: literals(pieces),
            ends_at_word,
            ends_text,
        }
    }

    #[test]
    fn dot_stars_that_unanchored_search_implies_are_dropped() {
        assert_eq!(lowered(".*"), Lowered::Always);
        assert_eq!(lowered(""), Lowered::Always);
        assert_eq!(
            lowered(".* --live.*"),
            Lowered::Exact(literals(&[" --live"]))
        );
        assert_eq!(
            lowered("(?s).*?rm -rf.*?"),
            Lowered::Exact(literals(&["rm -rf"]))
        );
        assert_eq!(
            lowered("rm|mkfs"),
            Lowered::Exact(literals(&["mkfs", "rm"]))
        );
        assert_eq!(lowered("push.*$"), Lowered::Exact(literals(&["push"])));
    }

    #[test]
    fn word_prefix_tail_loses_its_dot_star() {
        // Segment patterns (`\x01` marks a segment's start): a whole segment, a suffix, and
        // a chain that must end the segment need no automaton.
        for (regex, want) in [
            (
                r"git status(?:\s.*)?$",
                Lowered::WordPrefix(b"git status".to_vec()),
            ),
            (r"ls(?:\s|$)", Lowered::WordPrefix(b"ls".to_vec())),
            (
                r"curl .* \| bash(?:\s.*)?$",
                chain(&["curl ", " | bash"], true, false),
            ),
            (r"a.*b.*?c", chain(&["a", "b", "c"], false, false)),
            (
                r"\x01git status$",
                Lowered::EndsText(b"\x01git status".to_vec()),
            ),
            (r" --help$", Lowered::EndsText(b" --help".to_vec())),
            (
                r"\x01git .* main$",
                chain(&["\x01git ", " main"], false, true),
            ),
        ] {
            assert_eq!(lowered(regex), want, "{regex}");
        }
        let Lowered::StartsWithLiteral { hir, .. } = lowered(r"git (status|log)(?:\s.*)?$") else {
            panic!("expected a literal-anchored matcher");
        };
        assert!(!has_unbounded_repetition(&hir), "{hir:?}");
    }

    #[test]
    fn required_literals_prefer_long_ones() {
        // Each regex, whether it lowers to a confirmed matcher (else a literal-anchored one),
        // and the literals it requires.
        for (regex, confirmed, want) in [
            ("(?i:a).*deploy.*--env(=| )prod", true, &["deploy"][..]),
            ("[gh]it push -f", true, &["it push -f"]),
            ("(?:git|hg) push -f", false, &["git", "hg"]),
        ] {
            let found = match (lowered(regex), confirmed) {
                (Lowered::Confirmed { literals, .. }, true) => literals,
                (Lowered::StartsWithLiteral { literals, .. }, false) => literals,
                (other, _) => panic!("{regex}: unexpected {other:?}"),
            };
            assert_eq!(found, literals(want), "{regex}");
        }
    }

    #[test]
    fn confirmed_patterns_held_at_the_start_know_their_text_prefixes() {
        // Each regex and the literals one of which starts every text it matches.
        for (regex, want) in [
            (r"^rm( [^ ]+)* -[rRf]+ /", Some(&["rm"][..])),
            (r"^(rm|unlink)( [^ ]+)* /etc", Some(&["rm", "unlink"])),
            (r"(^at|^batch)( [^ ]+)* -f", Some(&["at", "batch"])),
            (r"^(sudo )?rm( [^ ]+)* /etc", None),
            (r"^(?i:git) .*checkout", None),
            (r"^[a-z]+ .*--force", None),
            (r"(?i:a)( [^ ]+)* --force", None),
        ] {
            let Lowered::Confirmed { text_prefixes, .. } = lowered(regex) else {
                panic!("{regex}: expected a confirmed matcher");
            };
            let want = want.map(literals).unwrap_or_default();
            assert_eq!(text_prefixes, want, "{regex}");
        }
    }

    /// A pattern confirmed at the start is found by a literal after its prefix where one of
    /// three bytes or more is required; else by its best literal, as any confirmed pattern.
    #[test]
    fn confirmed_patterns_held_at_the_start_are_found_after_their_prefix() {
        for (regex, want) in [
            (
                r"^@rm-target write [a-z]+ (~|/root)/\.(bashrc|zshrc)$",
                &["bashrc", "zshrc"][..],
            ),
            (r"^git( [^ ]+)* push( [^ ]+)* --force", &[" --force"]),
            (r"^rm( [^ ]+)* -[rRf]+ /etc", &[" /etc"]),
            (r"^@rm-target recursive [a-z]+ /(etc|bin)$", &["bin", "etc"]),
            // Nothing of three bytes after the prefix: the best literal, the prefix here.
            (
                r"^@rm-target recursive [a-z]+ /$",
                &["@rm-target recursive "],
            ),
        ] {
            let Lowered::Confirmed { literals: got, .. } = lowered(regex) else {
                panic!("{regex}: expected a confirmed matcher");
            };
            assert_eq!(got, literals(want), "{regex}");
        }
    }

    #[test]
    fn patterns_without_a_literal_are_scanned() {
        assert!(matches!(lowered("(?i)sudo"), Lowered::Scanned(_)));
        assert!(matches!(lowered("^$"), Lowered::Scanned(_)));
        assert!(matches!(lowered("x*"), Lowered::Scanned(_)));
        // A leading `.+` is not redundant: it needs a character before.
        assert!(matches!(lowered(".+x"), Lowered::Confirmed { .. }));
        assert!(matches!(
            lowered("a.*deploy[0-9]"),
            Lowered::StartsWithLiteral { .. }
        ));
    }
}
