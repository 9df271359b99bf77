//! The pinned harness CLIs the end-to-end suites drive: where each one is (`$ANIMUS_<CLI>_BIN`,
//! else the `.cache/` folder its `scripts/install-<cli>-cli.sh` fills), whether it is the
//! version the suite was written against, and so whether the suite runs, skips or fails.
//!
//! A suite declares its CLI once as a `static` [`PinnedCli`]; [`PinnedCli::locate`] probes it
//! at most once per process.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, OnceLock};

use crate::scratch::Scratch;

/// Which word of `<cli> --version`'s output is the version.
#[derive(Clone, Copy, Debug)]
pub enum VersionWord {
    /// `2.1.328 (Claude Code)`, `1.18.33`.
    First,
    /// `codex-cli 0.169.0`, the last line of Gemini's banner.
    Last,
}

/// Why a suite's CLI is unusable, or missing where it is required: the tests that need it
/// fail with this message.
#[derive(Clone, Debug, thiserror::Error)]
pub enum CliError {
    /// `<cli> --version` could not be run.
    #[error("cannot run {}: {source}", .path.display())]
    Run {
        path: PathBuf,
        /// Shared: the probe's result is kept for the whole process.
        source: Arc<std::io::Error>,
    },
    /// Another version than the suite's pin.
    #[error(
        "{} is version {printed:?}, the suite needs {needed} ({install_script}); stderr: {stderr}",
        .path.display()
    )]
    OtherVersion {
        path: PathBuf,
        /// What `--version` printed, trimmed.
        printed: String,
        needed: &'static str,
        install_script: &'static str,
        /// What it printed on stderr, trimmed.
        stderr: String,
    },
    /// Not installed, and `required` (`CI`, a regeneration variable) makes that a failure.
    #[error("{name} is not installed and {required} is set: run {install_script} first")]
    Required {
        name: &'static str,
        required: String,
        install_script: &'static str,
    },
}

/// One pinned CLI.
pub struct PinnedCli {
    /// For messages: `the Claude Code CLI`.
    pub name: &'static str,
    /// The variable that points at another binary (`ANIMUS_CLAUDE_BIN`).
    pub bin_var: &'static str,
    /// The installer, relative to the repository root (`scripts/install-claude-cli.sh`).
    pub install_script: &'static str,
    /// The version the suite was written against (the installer's pin).
    pub version: &'static str,
    pub version_word: VersionWord,
    /// Where the installer puts the binary, relative to the repository root; `None` on a
    /// platform it does not support.
    pub cached: fn() -> Option<String>,
    /// Sets up `--version`'s environment over an empty one, given a throwaway HOME, so probing
    /// never touches the user's own settings nor the network.
    pub probe_env: fn(&mut Command, &Path),
    pub found: OnceLock<Result<Option<PathBuf>, CliError>>,
}

impl PinnedCli {
    /// The CLI: `Ok(None)` when it is not installed, `Err` when it is unusable (another
    /// version, not runnable).
    pub fn locate(&self) -> Result<Option<PathBuf>, CliError> {
        self.found.get_or_init(|| self.probe()).clone()
    }

    /// The CLI, for a test the runner only starts when it is installed.
    pub fn path(&self) -> PathBuf {
        self.locate()
            .unwrap()
            .expect("the runner checked the CLI is installed")
    }

    fn probe(&self) -> Result<Option<PathBuf>, CliError> {
        let path = match std::env::var_os(self.bin_var).filter(|v| !v.is_empty()) {
            Some(path) => PathBuf::from(path),
            None => match (self.cached)() {
                Some(relative) => crate::repo_root().join(relative),
                None => return Ok(None),
            },
        };
        if !path.is_file() {
            return Ok(None);
        }
        let home = Scratch::new("version");
        let mut command = Command::new(&path);
        command.arg("--version").env_clear().stdin(Stdio::null());
        (self.probe_env)(&mut command, &home.root);
        let output = command.output().map_err(|e| CliError::Run {
            path: path.clone(),
            source: Arc::new(e),
        })?;
        let printed = String::from_utf8_lossy(&output.stdout);
        let mut words = printed.split_whitespace();
        let version = match self.version_word {
            VersionWord::First => words.next(),
            VersionWord::Last => words.last(),
        };
        if version != Some(self.version) {
            return Err(CliError::OtherVersion {
                printed: printed.trim().to_string(),
                needed: self.version,
                install_script: self.install_script,
                stderr: String::from_utf8_lossy(&output.stderr).trim().to_string(),
                path,
            });
        }
        Ok(Some(path))
    }

    /// For [`crate::runner::main`]: `Ok(None)` to run the tests that need the CLI,
    /// `Ok(Some(why))` to skip them, `Err` to fail them — a missing CLI fails under `CI`.
    pub fn skip_reason(&self) -> Result<Option<String>, CliError> {
        self.skip_reason_unless_required(crate::under_ci().then_some("CI"))
    }

    /// As [`Self::skip_reason`], with `required` naming what makes a missing CLI a failure
    /// (`Some("CI")`, a regeneration variable), or `None` to let it skip.
    pub fn skip_reason_unless_required(
        &self,
        required: Option<&str>,
    ) -> Result<Option<String>, CliError> {
        match (self.locate()?, required) {
            (Some(_), _) => Ok(None),
            (None, Some(required)) => Err(CliError::Required {
                name: self.name,
                required: required.to_string(),
                install_script: self.install_script,
            }),
            (None, None) => Ok(Some(format!(
                "{} is not installed ({} installs it)",
                self.name, self.install_script
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A CLI that is never installed: no such variable, no such cache path.
    fn absent() -> PinnedCli {
        PinnedCli {
            name: "the absent CLI",
            bin_var: "ANIMUS_TEST_SUPPORT_NO_SUCH_BIN",
            install_script: "scripts/install-absent-cli.sh",
            version: "1.0.0",
            version_word: VersionWord::First,
            cached: || Some(".cache/no-such-cli/bin/absent".into()),
            probe_env: |_, _| {},
            found: OnceLock::new(),
        }
    }

    #[test]
    fn a_missing_cli_skips_its_suite_unless_required() {
        let cli = absent();
        assert!(matches!(cli.locate(), Ok(None)));
        let skip = cli.skip_reason_unless_required(None).unwrap().unwrap();
        assert!(
            skip.contains("scripts/install-absent-cli.sh installs it"),
            "{skip}"
        );
        let failed = cli
            .skip_reason_unless_required(Some("CI"))
            .unwrap_err()
            .to_string();
        assert!(failed.contains("CI is set"), "{failed}");
    }

    #[test]
    fn another_version_fails_its_suite() {
        // `/bin/echo --version` prints no `1.0.0` first: another version.
        let cli = PinnedCli {
            bin_var: "ANIMUS_TEST_SUPPORT_ECHO_BIN",
            cached: || Some("../../../../../../bin/echo".into()),
            ..absent()
        };
        let why = cli.locate().unwrap_err().to_string();
        assert!(why.contains("the suite needs 1.0.0"), "{why}");
        assert!(cli.skip_reason().is_err());
    }
}
