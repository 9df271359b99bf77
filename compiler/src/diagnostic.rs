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

/// One message about the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
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
            location,
            message: message.into(),
            help: None,
        }
    }

    /// A warning at `location`.
    pub fn warning(location: Option<Location>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            location,
            message: message.into(),
            help: None,
        }
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
