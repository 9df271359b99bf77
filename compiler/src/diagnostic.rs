//! Errors and warnings that point at the offending input.
//!
//! Every diagnostic about authored configuration carries a [`Location`] (`file:line:column`,
//! 1-based) and says what was expected, so a user can fix the input without reading our code.

use std::fmt;
use std::sync::Arc;

/// A position in a source file, 1-based.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The file as the user named it.
    pub file: Arc<str>,
    /// 1-based line (0 when the parser could not tell).
    pub line: u32,
    /// 1-based column (0 when the parser could not tell).
    pub column: u32,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            write!(f, "{}", self.file)
        } else {
            write!(f, "{}:{}:{}", self.file, self.line, self.column)
        }
    }
}

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// Compilation fails; nothing is written.
    Error,
    /// Compilation succeeds, but the input did not mean what it may look like.
    Warning,
}

/// What kind of finding a diagnostic is, as a stable code (ruff-style: `AH1xx` errors, `AH2xx`
/// warnings) and a name, for a reader to look up and for a tool to filter on
/// (`animus-hook lint --ignore AH203`). A code, once given, keeps its meaning; `AH100` and
/// `AH200` are the kinds not yet told apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Code {
    /// Any other error.
    Error,
    /// A key animus-hook does not know, or one a level too high (`toolPolicy`, `pack`).
    UnknownKey,
    /// The config does not parse: YAML/JSON syntax, a wrong type, a value out of its set.
    InvalidConfig,
    /// No such agent in the config (or one defined twice).
    UnknownAgent,
    /// A tool_policy entry that means nothing (a near miss of a Claude tool's name: `bash`).
    InvalidEntry,
    /// A rule, matcher or value that is refused (an invalid regex, a near-miss tool name).
    InvalidRule,
    /// A rule that never fires: none of its tools has the field its matcher reads.
    FieldNotOnTool,
    /// A rule that never fires: its regex matches no text at all.
    RegexMatchesNothing,
    /// An example (tool_policy.examples, a rule's examples) the policy decides otherwise.
    FailingExample,
    /// No pack or category of that name.
    UnknownPack,
    /// An input over a size limit (config, entry, regex, id).
    OverLimit,
    /// Any other warning.
    Warning,
    /// A tool name no harness is known to have: the rule fires only for a tool of that name.
    UnknownTool,
    /// An allow entry a deny or ask entry covers: it never grants.
    ShadowedAllow,
    /// An allow so broad that an allowlist guards nothing there (`Bash`, `*`).
    AllowEverything,
    /// Two author rules alike in tools, events, matchers and decision.
    DuplicateRule,
    /// A tool_policy entry listed more than once.
    DuplicateEntry,
    /// An entry the harness itself ignores (a bare `*` allow under `meaning: claude`).
    IgnoredEntry,
    /// An entry that means other than it may look: a tool no harness is known to have, an
    /// entry claude reads as matching nothing (it compiles to no rule).
    EntryNote,
    /// An author rule's decision the merge lowers (only tightening is allowed).
    DowngradedRule,
    /// An author regex found by no literal of two bytes or more: confirmed on every text.
    RegexWithoutLiteral,
}

impl Code {
    /// Every code, in the order of their numbers.
    pub const ALL: [Code; 21] = [
        Code::Error,
        Code::UnknownKey,
        Code::InvalidConfig,
        Code::UnknownAgent,
        Code::InvalidEntry,
        Code::InvalidRule,
        Code::FieldNotOnTool,
        Code::RegexMatchesNothing,
        Code::FailingExample,
        Code::UnknownPack,
        Code::OverLimit,
        Code::Warning,
        Code::UnknownTool,
        Code::ShadowedAllow,
        Code::AllowEverything,
        Code::DuplicateRule,
        Code::DuplicateEntry,
        Code::IgnoredEntry,
        Code::EntryNote,
        Code::DowngradedRule,
        Code::RegexWithoutLiteral,
    ];

    /// The code and the name: `("AH203", "allow-everything")`.
    fn row(self) -> (&'static str, &'static str) {
        match self {
            Code::Error => ("AH100", "error"),
            Code::UnknownKey => ("AH101", "unknown-key"),
            Code::InvalidConfig => ("AH102", "invalid-config"),
            Code::UnknownAgent => ("AH103", "unknown-agent"),
            Code::InvalidEntry => ("AH104", "invalid-entry"),
            Code::InvalidRule => ("AH105", "invalid-rule"),
            Code::FieldNotOnTool => ("AH106", "field-not-on-tool"),
            Code::RegexMatchesNothing => ("AH107", "regex-matches-nothing"),
            Code::FailingExample => ("AH108", "failing-example"),
            Code::UnknownPack => ("AH109", "unknown-pack"),
            Code::OverLimit => ("AH110", "over-limit"),
            Code::Warning => ("AH200", "warning"),
            Code::UnknownTool => ("AH201", "unknown-tool"),
            Code::ShadowedAllow => ("AH202", "shadowed-allow"),
            Code::AllowEverything => ("AH203", "allow-everything"),
            Code::DuplicateRule => ("AH204", "duplicate-rule"),
            Code::DuplicateEntry => ("AH205", "duplicate-entry"),
            Code::IgnoredEntry => ("AH206", "ignored-entry"),
            Code::EntryNote => ("AH207", "entry-note"),
            Code::DowngradedRule => ("AH208", "downgraded-rule"),
            Code::RegexWithoutLiteral => ("AH209", "regex-without-literal"),
        }
    }

    /// `AH203`.
    pub fn as_str(self) -> &'static str {
        self.row().0
    }

    /// `allow-everything`.
    pub fn name(self) -> &'static str {
        self.row().1
    }

    /// The code a user names, by its code (any case) or its name.
    ///
    /// ```
    /// use compiler::diagnostic::Code;
    /// assert_eq!(Code::parse("ah203"), Some(Code::AllowEverything));
    /// assert_eq!(Code::parse("allow-everything"), Some(Code::AllowEverything));
    /// assert_eq!(Code::parse("AH999"), None);
    /// ```
    pub fn parse(text: &str) -> Option<Code> {
        Code::ALL
            .into_iter()
            .find(|c| c.as_str().eq_ignore_ascii_case(text) || c.name() == text)
    }
}

/// One message about the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// What kind of finding, as a stable code.
    pub code: Code,
    /// Where, when it is about a place in a file.
    pub location: Option<Location>,
    /// What is wrong, naming the offending value.
    pub message: String,
    /// What to do instead, when there is a clear answer.
    pub help: Option<String>,
}

impl Diagnostic {
    /// An error at `location`.
    pub fn error(location: Option<Location>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            code: Code::Error,
            location,
            message: message.into(),
            help: None,
        }
    }

    /// A warning at `location`.
    pub fn warning(location: Option<Location>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            code: Code::Warning,
            location,
            message: message.into(),
            help: None,
        }
    }

    /// Say what kind of finding it is.
    pub fn with_code(mut self, code: Code) -> Self {
        self.code = code;
        self
    }

    /// Attach a hint.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        if let Some(location) = &self.location {
            write!(f, "{location}: ")?;
        }
        write!(f, "{kind}: {}", self.message)?;
        if let Some(help) = &self.help {
            write!(f, "\n  help: {help}")?;
        }
        Ok(())
    }
}

/// One or more errors (compilation stops at the first phase that has any, but reports all of
/// that phase's errors so a user fixes them in one pass).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Errors(pub Vec<Diagnostic>);

impl Errors {
    /// A single error.
    pub fn one(diagnostic: Diagnostic) -> Self {
        Errors(vec![diagnostic])
    }
}

impl fmt::Display for Errors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Errors {}

impl From<Diagnostic> for Errors {
    fn from(d: Diagnostic) -> Self {
        Errors::one(d)
    }
}

/// The most bytes of an offending input a diagnostic quotes. A profile entry or regex may be
/// up to [`crate::profile::MAX_ENTRY_BYTES`] long (and a hostile file far longer): a message
/// that echoed it whole would bury the location and flood the terminal or a CI log.
pub const MAX_QUOTE_BYTES: usize = 200;

/// `text` as a diagnostic quotes it: whole when it is at most [`MAX_QUOTE_BYTES`] long, else
/// its first bytes (cut on a character boundary), `…`, and how long it is in all.
///
/// ```
/// use compiler::diagnostic::quote;
/// assert_eq!(quote("Bash(rm:*)"), "Bash(rm:*)");
/// let long = "x".repeat(70_000);
/// assert_eq!(quote(&long), format!("{}… [70000 bytes]", "x".repeat(200)));
/// ```
pub fn quote(text: &str) -> std::borrow::Cow<'_, str> {
    clip(text, MAX_QUOTE_BYTES)
}

/// `text` whole when it is at most `max` bytes long, else its first bytes (cut on a character
/// boundary), `…`, and how long it is in all.
pub(crate) fn clip(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= max {
        return text.into();
    }
    let mut cut = max;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}… [{} bytes]", &text[..cut], text.len()).into()
}

/// One line of a parser's error, for a diagnostic that already says where: the rest of the
/// first line that starts with `error:` (regex-syntax draws a caret diagram above it), else the
/// first non-empty line; a leading `line N: ` / `line N column M: ` position is dropped.
pub fn error_line(message: &str) -> String {
    let mut lines = message.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.clone().next().unwrap_or("");
    let line = lines
        .find_map(|l| l.strip_prefix("error:"))
        .map_or(first, str::trim);
    line.strip_prefix("line ")
        .and_then(|rest| rest.split_once(": "))
        .map_or(line, |(_, message)| message)
        .to_string()
}

#[cfg(test)]
mod error_line_tests {
    use super::error_line;

    #[test]
    fn one_line_of_a_parser_error() {
        let regex = "regex parse error:\n    deploy (prod\n           ^\nerror: unclosed group";
        assert_eq!(error_line(regex), "unclosed group");
        assert_eq!(
            error_line("line 3 column 5: unknown field `x`\n  snippet"),
            "unknown field `x`"
        );
        assert_eq!(error_line("error: line 2: bad"), "bad");
        assert_eq!(
            error_line("Compiled regex exceeds size limit"),
            "Compiled regex exceeds size limit"
        );
        assert_eq!(error_line(""), "");
    }
}
