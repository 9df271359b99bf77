//! Validation of author matcher regexes at compile time.
//!
//! A pattern is accepted only if the engine can evaluate it exactly: it parses as Rust `regex`
//! syntax in the engine's flavour, and it uses nothing an ahead-of-time DFA cannot express.
//! Look-around and backreferences are already outside the syntax; the remaining trap is the
//! Unicode word boundary (`\b`, `\B`, `\<`, `\>` in Unicode mode), which DFAs only approximate.
//! Rather than weaken it silently we reject it and name the ASCII form that compiles exactly.

use regex_syntax::hir::{Hir, HirKind, Look};

use crate::diagnostic::error_line;

/// A parser of the engine's regex flavour: Rust `regex` syntax, Unicode, case-sensitive, `.`
/// matching newlines (see `engine`'s crate docs). Every pass that reads a matcher regex — the
/// check here, lowering, lint, diff — parses through this one; the reference evaluator's
/// `engine::reference::compile_matcher_regex` sets the same flavour on `regex`.
pub fn flavour_parser() -> regex_syntax::Parser {
    regex_syntax::ParserBuilder::new()
        .dot_matches_new_line(true)
        .build()
}

/// Why a matcher regex is refused; the message says what is wrong and what to write instead.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RegexError {
    /// Not `regex` syntax in the engine's flavour; the parser's message on one line
    /// ([`error_line`]).
    #[error("{0}")]
    Syntax(String),
    /// A Unicode word boundary, which a DFA only approximates.
    #[error(
        "the Unicode word boundary {0} cannot be compiled ahead of time exactly; write the \
         ASCII form `(?-u:\\b)` (or `(?-u:\\B)`) instead"
    )]
    UnicodeWordBoundary(&'static str),
    /// The `regex` crate refuses it (its size limit, …); its message on one line.
    #[error("{0}")]
    Compile(String),
}

/// Parse `pattern` in the engine's flavour.
pub fn parse(pattern: &str) -> Result<Hir, RegexError> {
    flavour_parser()
        .parse(pattern)
        .map_err(|e| RegexError::Syntax(error_line(&e.to_string())))
}

/// Check a matcher regex.
pub fn check_matcher_regex(pattern: &str) -> Result<(), RegexError> {
    let hir = parse(pattern)?;
    if let Some(look) = find_unicode_word_boundary(&hir) {
        return Err(RegexError::UnicodeWordBoundary(look));
    }
    engine::reference::compile_matcher_regex(pattern)
        .map_err(|e| RegexError::Compile(error_line(&e.to_string())))?;
    Ok(())
}

fn find_unicode_word_boundary(hir: &Hir) -> Option<&'static str> {
    match hir.kind() {
        HirKind::Look(look) => match look {
            Look::WordUnicode => Some("`\\b`"),
            Look::WordUnicodeNegate => Some("`\\B`"),
            Look::WordStartUnicode | Look::WordStartHalfUnicode => Some("`\\<` / `\\b{start}`"),
            Look::WordEndUnicode | Look::WordEndHalfUnicode => Some("`\\>` / `\\b{end}`"),
            _ => None,
        },
        HirKind::Repetition(r) => find_unicode_word_boundary(&r.sub),
        HirKind::Capture(c) => find_unicode_word_boundary(&c.sub),
        HirKind::Concat(subs) | HirKind::Alternation(subs) => {
            subs.iter().find_map(find_unicode_word_boundary)
        }
        HirKind::Empty | HirKind::Literal(_) | HirKind::Class(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_spec_example() {
        assert_eq!(check_matcher_regex("deploy .*--env(=| )prod"), Ok(()));
        assert_eq!(check_matcher_regex(r"(?-u:\b)rm(?-u:\b)"), Ok(()));
    }

    #[test]
    fn rejects_bad_syntax_with_the_reason() {
        // The parser's own words are kept: they say where the pattern goes wrong.
        for (pattern, says) in [
            ("deploy (prod", "unclosed group"),
            (r"(?=x)", "look-around"),
        ] {
            match check_matcher_regex(pattern) {
                Err(RegexError::Syntax(e)) => assert!(e.contains(says), "{e}"),
                other => panic!("{pattern}: {other:?}"),
            }
        }
    }

    #[test]
    fn rejects_unicode_word_boundaries() {
        let e = check_matcher_regex(r"\brm\b").unwrap_err();
        assert_eq!(e, RegexError::UnicodeWordBoundary("`\\b`"));
        assert!(e.to_string().contains("(?-u:\\b)"), "{e}");
        assert_eq!(
            check_matcher_regex(r"x|(a\B)+"),
            Err(RegexError::UnicodeWordBoundary("`\\B`"))
        );
    }
}
