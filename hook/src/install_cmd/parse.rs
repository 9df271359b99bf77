//! `install`'s and `uninstall`'s options (the hand-written lexopt style of the CLI).

use std::path::PathBuf;

use super::{InstallArgs, ScopeArg};

/// Parse `install`'s (and `uninstall`'s) options.
pub fn parse(parser: &mut lexopt::Parser) -> Result<InstallArgs, crate::cli::UsageError> {
    use crate::cli::UsageError;
    use lexopt::prelude::*;
    let mut args = InstallArgs {
        harness: "claude".into(),
        scope: ScopeArg::User,
        local: false,
        project_root: None,
        profile: None,
        hook_binary: None,
        plugin_dir: None,
        sandbox: false,
        dry_run: false,
    };
    let (mut config, mut agent) = (None, None);
    while let Some(arg) = parser.next()? {
        match arg {
            Long("harness") => args.harness = parser.value()?.string()?,
            Long("scope") => {
                args.scope = match parser.value()?.string()?.as_str() {
                    "user" => ScopeArg::User,
                    "project" => ScopeArg::Project,
                    other => {
                        return Err(UsageError(format!(
                            "--scope is `user` or `project`, not `{other}`"
                        )));
                    }
                }
            }
            Long("local") => args.local = true,
            Long("project-root") => args.project_root = Some(PathBuf::from(parser.value()?)),
            Long("config") => config = Some(PathBuf::from(parser.value()?)),
            Long("agent") => agent = Some(parser.value()?.string()?),
            Long("hook-binary") => args.hook_binary = Some(PathBuf::from(parser.value()?)),
            Long("plugin-dir") => args.plugin_dir = Some(PathBuf::from(parser.value()?)),
            Long("sandbox") => args.sandbox = true,
            Long("dry-run") => args.dry_run = true,
            other => return Err(other.unexpected().into()),
        }
    }
    args.profile = match (config, agent) {
        (Some(config), Some(agent)) => Some((config, agent)),
        (None, None) => None,
        _ => return Err(UsageError("--config and --agent go together".into())),
    };
    Ok(args)
}
