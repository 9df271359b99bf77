//! `install`'s and `uninstall`'s options (one definition, for both: `uninstall` refuses the
//! ones only `install` uses, with a message that says so).

use std::path::PathBuf;

use clap::Args;

use super::{InstallArgs, ScopeArg};

/// The harnesses `--harness` names.
const HARNESSES: [&str; 4] = ["claude", "opencode", "gemini", "codex"];

#[derive(Args)]
pub struct InstallOptions {
    /// The harness to guard
    #[arg(long, value_name = "HARNESS", default_value = "claude",
          value_parser = crate::cli::Suggest(HARNESSES.to_vec()))]
    harness: String,
    /// Whose settings: yours (user) or the project's
    #[arg(long, value_enum, default_value_t = ScopeArg::User)]
    scope: ScopeArg,
    /// With --scope project: settings.local.json
    #[arg(long)]
    local: bool,
    /// The project (default: here)
    #[arg(long, value_name = "DIR")]
    project_root: Option<PathBuf>,
    /// A profile's config instead of the default packs and settings lists (with --agent)
    #[arg(long, value_name = "FILE", requires = "agent")]
    config: Option<PathBuf>,
    /// The profile's id (with --config)
    #[arg(long, value_name = "ID", requires = "config")]
    agent: Option<String>,
    /// The animus-hook binary the hooks run (default: this one)
    #[arg(long, value_name = "PATH")]
    hook_binary: Option<PathBuf>,
    /// Write the hooks as a claude plugin there instead
    #[arg(long, value_name = "DIR")]
    plugin_dir: Option<PathBuf>,
    /// Also claude's Bash sandbox, denying writes to the guard's files
    #[arg(long)]
    sandbox: bool,
    /// Print the diff; change nothing
    #[arg(long)]
    dry_run: bool,
}

impl From<InstallOptions> for InstallArgs {
    fn from(o: InstallOptions) -> Self {
        InstallArgs {
            harness: o.harness,
            scope: o.scope,
            local: o.local,
            project_root: o.project_root,
            // clap's `requires` makes them come together.
            profile: o.config.zip(o.agent),
            hook_binary: o.hook_binary,
            plugin_dir: o.plugin_dir,
            sandbox: o.sandbox,
            dry_run: o.dry_run,
        }
    }
}
