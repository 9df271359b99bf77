//! Why `install` or `uninstall` refused; each error names what it is about (the harness, the
//! flag, the file), and its message is the one the user reads after `animus-hook install: `.

use std::path::PathBuf;

use compiler::Errors;
use gate::record::RecordError;
use integrations::inject::SessionDirError;
use integrations::inject::install::{
    GenerateError, PlaceError, SandboxBlockError, ShapeError, WriteError, codex::ConfigError,
};
use integrations::inject::settings_doc::SettingsDocError;

/// The harness, scope and flags asked for do not make a target.
#[derive(Debug, thiserror::Error)]
pub enum ScopeError {
    /// A harness nobody knows.
    #[error("unknown --harness `{0}`; expected claude, codex, gemini or opencode")]
    UnknownHarness(String),
    /// `--plugin-dir` with a project's flags.
    #[error("--plugin-dir takes no --scope, --local or --project-root")]
    PluginDirFlags,
    /// `--local` without `--scope project`.
    #[error("--local is for --scope project")]
    LocalWithoutProject,
    /// `--project-root` without `--scope project`.
    #[error("--project-root is for --scope project")]
    ProjectRootWithoutProject,
    /// `--harness gemini`, `opencode` or `codex` with a project's (or a plugin's) flags.
    #[error(
        "--harness {harness} installs into {target} only (no --scope project, --local, \
         --project-root or --plugin-dir)"
    )]
    UserOnly {
        /// `gemini`, `opencode` or `codex`.
        harness: &'static str,
        /// What it installs into.
        target: &'static str,
    },
    /// The plugin directory cannot be created.
    #[error("cannot create the plugin dir `{}`: {source}", .dir.display())]
    CreatePluginDir {
        /// The directory.
        dir: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The plugin directory cannot be resolved.
    #[error("plugin dir `{}`: {source}", .dir.display())]
    PluginDir {
        /// The directory.
        dir: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The working directory (where a project's root is looked for) cannot be read.
    #[error("cannot read the working directory: {0}")]
    WorkingDirectory(std::io::Error),
    /// The project root cannot be resolved.
    #[error("project root `{}`: {source}", .root.display())]
    ProjectRoot {
        /// The root.
        root: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The harness's configuration directory cannot be found.
    #[error(transparent)]
    Place(#[from] PlaceError),
}

/// The profile an install compiles cannot be loaded or generated.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// `--config` cannot be made absolute.
    #[error("--config: {0}")]
    Config(std::io::Error),
    /// The `--config` profile does not load.
    #[error("{0}")]
    Profile(Errors),
    /// The user's settings files cannot be found.
    #[error(transparent)]
    Place(#[from] PlaceError),
    /// The user's settings files cannot be read or imported.
    #[error(transparent)]
    Generate(#[from] GenerateError),
    /// The generated profile does not load (a bug).
    #[error("{errors}\nthe generated profile does not compile (a bug): {yaml}")]
    Generated {
        /// Why.
        errors: Errors,
        /// The generated profile.
        yaml: String,
    },
}

/// The settings file cannot be read as text.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Not UTF-8.
    #[error("`{}` is not UTF-8 text", .0.display())]
    NotUtf8(PathBuf),
    /// Reading failed (other than its absence).
    #[error("cannot read `{}`: {source}", .path.display())]
    Io {
        /// The settings file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
}

/// What `install` and `uninstall` alike can meet in the settings file they change: its scope,
/// its place, reading, parsing and shaping it, Codex's config, writing it.
#[derive(Debug, thiserror::Error)]
pub enum SettingsFileError {
    #[error(transparent)]
    Scope(#[from] ScopeError),
    #[error(transparent)]
    Place(#[from] PlaceError),
    #[error(transparent)]
    Read(#[from] ReadError),
    #[error(transparent)]
    Settings(#[from] SettingsDocError),
    #[error(transparent)]
    Shape(#[from] ShapeError),
    #[error(transparent)]
    CodexConfig(#[from] ConfigError),
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// `From` each of [`SettingsFileError`]'s causes for a command's error, through its
/// `SettingsFile` variant (so `?` takes them directly).
macro_rules! from_settings_file_causes {
    ($name:ident) => {
        from_settings_file_causes!(
            $name: ScopeError,
            PlaceError,
            ReadError,
            SettingsDocError,
            ShapeError,
            ConfigError,
            WriteError
        );
    };
    ($name:ident: $($cause:ty),*) => {
        $(impl From<$cause> for $name {
            fn from(cause: $cause) -> $name {
                $name::SettingsFile(cause.into())
            }
        })*
    };
}

/// Why `install` refused (nothing was changed).
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error(transparent)]
    SettingsFile(#[from] SettingsFileError),
    #[error(transparent)]
    Source(#[from] SourceError),
    /// The state root or the install dir.
    #[error(transparent)]
    Record(#[from] RecordError),
    #[error(transparent)]
    SessionDir(#[from] SessionDirError),
    #[error(transparent)]
    SandboxBlock(#[from] SandboxBlockError),
    /// The opencode plugin file is not one install wrote.
    #[error("{0} is a plugin install did not write; move it aside first")]
    NotOurPlugin(String),
    /// The hook binary cannot be found or is not this version's.
    #[error("{0}")]
    HookBinary(Errors),
    /// The profile does not compile (rendered as the CLI renders diagnostics).
    #[error("{}", crate::diagnostics::render_all(&.0.0))]
    Compile(Errors),
    /// The policy's files cannot be rendered or written.
    #[error("{0}")]
    Policy(Errors),
    /// The written policy's pin cannot be read.
    #[error("{0}")]
    Pin(std::io::Error),
    /// The profile's observer events.
    #[error("{0}")]
    Observers(Errors),
    /// A path the hooks name is not UTF-8.
    #[error("`{}` is not UTF-8", .0.display())]
    NotUtf8Path(PathBuf),
    /// `--sandbox` for a target without Claude's settings.
    #[error("--sandbox is for claude's settings (a plugin or opencode has no sandbox setting)")]
    SandboxNotHere,
    /// The settings have a `sandbox` of the user's.
    #[error(
        "{0} already configures `sandbox`; merge the guard's denyWrite places into it by hand, \
         or install without --sandbox"
    )]
    SandboxTaken(String),
    /// No random name for Gemini's hooks.
    #[error("{0}")]
    HookName(Errors),
    /// A file of the install (the plugin's manifest, the install's manifest) cannot be written.
    #[error("cannot write `{}`: {source}", .path.display())]
    WriteFile {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The state root's mode cannot be read.
    #[error("{}: {source}", .path.display())]
    StateRoot {
        /// The state root.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The state root cannot be made private.
    #[error("cannot make {} private (0700): {source}", .path.display())]
    MakePrivate {
        /// The state root.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
}

/// Why `uninstall` refused (nothing was changed).
#[derive(Debug, thiserror::Error)]
pub enum UninstallError {
    #[error(transparent)]
    SettingsFile(#[from] SettingsFileError),
    /// The install dir.
    #[error(transparent)]
    Record(#[from] RecordError),
    /// Options only `install` takes.
    #[error("uninstall takes no --config, --agent, --hook-binary or --sandbox")]
    InstallOnlyFlags,
    /// The opencode plugin file is not one install wrote.
    #[error("{0} is a plugin install did not write; it is left alone")]
    NotOurPlugin(String),
    /// The settings file (or plugin) cannot be removed.
    #[error("cannot remove `{}`: {source}", .path.display())]
    Remove {
        /// The file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
}

from_settings_file_causes!(InstallError);
from_settings_file_causes!(UninstallError);
