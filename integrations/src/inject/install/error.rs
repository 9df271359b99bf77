//! Why `install` cannot find its places, generate its profile or fit its hooks into a settings
//! file; each error names what it is about (the variable, the file, the key).

use std::path::PathBuf;

/// A harness's configuration directory (or home) cannot be found.
#[derive(Debug, thiserror::Error)]
pub enum PlaceError {
    /// `$CLAUDE_CONFIG_DIR` is relative.
    #[error("CLAUDE_CONFIG_DIR is `{}`, not an absolute path", .0.display())]
    RelativeClaudeConfigDir(PathBuf),
    /// No absolute `$HOME`, and `unset` (the variable that would stand in) is unset.
    #[error("HOME is not set to an absolute path (and {unset} is unset)")]
    NoHome {
        /// `CLAUDE_CONFIG_DIR`, `XDG_CONFIG_HOME` or `CODEX_HOME`.
        unset: &'static str,
    },
    /// Neither `$GEMINI_CLI_HOME` nor `$HOME` is absolute.
    #[error("neither GEMINI_CLI_HOME nor HOME is an absolute path")]
    NoGeminiHome,
    /// `$CODEX_HOME` is relative.
    #[error("CODEX_HOME is `{}`, not an absolute path", .0.display())]
    RelativeCodexHome(PathBuf),
}

/// A default install's profile cannot be generated from the user's settings files.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    /// A settings file cannot be read.
    #[error("cannot read `{}`: {source}", .path.display())]
    Read {
        /// The settings file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The settings' permission lists cannot be imported (one line each).
    #[error("{0}")]
    Import(compiler::Errors),
}

/// The settings file's `hooks` (or `hooksConfig`) has a shape our entries cannot go into.
#[derive(Debug, thiserror::Error)]
pub enum ShapeError {
    /// `hooks` is not an object.
    #[error("the settings' `hooks` is not an object; fix it first")]
    HooksNotAnObject,
    /// An event's entry under `hooks` is not a list (`found`: what it is, when said).
    #[error(
        "the settings' `hooks.{event}` is {}not a list; fix it first",
        .found.map(|f| format!("{f}, ")).unwrap_or_default()
    )]
    EventNotAList {
        /// The event.
        event: String,
        /// What it is instead (`an object`, …), when the message says.
        found: Option<&'static str>,
    },
    /// `hooksConfig` is not an object.
    #[error("the settings' `hooksConfig` is not an object; fix it first")]
    HooksConfigNotAnObject,
}
