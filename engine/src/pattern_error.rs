//! Why a rule's pattern (a Claude command pattern, a path glob, a name, a domain) cannot be
//! read. The message is a sentence about the pattern; the compiler prefixes the rule's place.

/// A pattern [`ClaudePattern::parse`](crate::semantics::ClaudePattern::parse),
/// [`PathGlob::parse`](crate::paths::PathGlob::parse), [`name_regex`](crate::semantics::name_regex)
/// or [`DomainPattern::parse`](crate::web::DomainPattern::parse) refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    /// Nothing to match.
    #[error("the {what} is empty")]
    Empty {
        /// What kind of pattern (`pattern`, `path pattern`, `name`, `domain`).
        what: &'static str,
    },
    /// A control character, which no command, path or name the rule means contains.
    #[error("the {what} contains the control character {}", .character.escape_unicode())]
    ControlCharacter {
        /// What kind of pattern.
        what: &'static str,
        /// The character.
        character: char,
    },
    /// A domain with a character no host name has.
    #[error(
        "the domain `{pattern}` contains `{}`; write a host name such as `example.com` or \
         `*.example.com`",
        .character.escape_debug()
    )]
    NotAHostName {
        /// The domain as written.
        pattern: String,
        /// The character.
        character: char,
    },
}
