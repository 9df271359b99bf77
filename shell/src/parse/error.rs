//! Why a command is unparseable: a syntax error at a byte of the command, or a cap reached.
//! The message is a phrase (`analyse` shows it after "it did not parse: ").

use crate::{MAX_COMMAND_BYTES, MAX_DEPTH, MAX_SEGMENTS};

/// Why [`simple_commands`](super::simple_commands) refused a command.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// Longer than [`MAX_COMMAND_BYTES`].
    #[error("the command is longer than {MAX_COMMAND_BYTES} bytes")]
    TooLong,
    /// Nested deeper than [`MAX_DEPTH`].
    #[error("the command nests deeper than {MAX_DEPTH} levels")]
    TooDeep,
    /// More than [`MAX_SEGMENTS`] simple commands.
    #[error("the command has more than {MAX_SEGMENTS} simple commands")]
    TooManyCommands,
    /// The command ended inside a construct; `inside` says which (`""`, `" in an array"`,
    /// `": unterminated `${`"`).
    #[error("unexpected end of the command{inside}")]
    UnexpectedEnd {
        /// The construct left open, as a phrase appended to the message.
        inside: &'static str,
    },
    /// A token the grammar does not allow here.
    #[error("syntax error at byte {at}: unexpected `{shown}`")]
    Unexpected {
        /// Byte offset in the text being parsed.
        at: usize,
        /// Up to 20 characters from there, escaped.
        shown: String,
    },
    /// A construct's next token was not the one it needs.
    #[error("expected `{expected}`: {found}")]
    Expected {
        /// The token needed (a reserved word or a byte).
        expected: String,
        /// What came instead.
        found: Box<ParseError>,
    },
    /// A redirection operator with nothing after it.
    #[error("a redirection without a target: {found}")]
    RedirectWithoutTarget {
        /// What came instead of the target.
        found: Box<ParseError>,
    },
}

/// As its message: `explain --json` shows why a command did not parse.
impl serde::Serialize for ParseError {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl ParseError {
    /// The command ended with nothing left open.
    pub(super) const END: ParseError = ParseError::UnexpectedEnd { inside: "" };

    /// The command ended inside `inside` (a phrase, see [`ParseError::UnexpectedEnd`]).
    pub(super) const fn end_inside(inside: &'static str) -> ParseError {
        ParseError::UnexpectedEnd { inside }
    }
}
