//! Top-level members `install` owns beside its hooks: Claude's Bash sandbox
//! (`install --sandbox`), set and taken away by value.

use std::path::Path;

use super::{PlaceError, Scope, SettingsDoc, claude_config_dir};
use crate::inject::sandbox::SandboxError;

/// Why `install --sandbox`'s block cannot be written: a place it denies cannot be found.
#[derive(Debug, thiserror::Error)]
pub enum SandboxBlockError {
    /// Claude's user configuration directory.
    #[error(transparent)]
    Place(#[from] PlaceError),
    /// The guard's own places.
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
}

/// `install --sandbox`: Claude's own Bash sandbox in the settings, denying writes to the
/// guard's places ([`crate::inject::sandbox`]): the install directory, the state roots, the hook
/// binary's directory, Claude's user settings directory and, for a project install, the
/// project's `.claude/`. Hooks run outside the sandbox, so recording still works.
pub fn sandbox_block(
    scope: &Scope,
    install_dir: &Path,
    hook_binary: &Path,
    env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
) -> Result<serde_json::Value, SandboxBlockError> {
    let config_dir = claude_config_dir(env)?;
    let root = match scope {
        Scope::Project { root, .. } => root.clone(),
        // No project: the user's Claude directory stands in (it is denied anyway).
        _ => config_dir.parent().unwrap_or(Path::new("/")).to_path_buf(),
    };
    let mut places = crate::inject::sandbox::guard_places(install_dir, hook_binary, &root, env)?;
    let config_dir = std::fs::canonicalize(&config_dir).unwrap_or(config_dir);
    if !places.contains(&config_dir) {
        places.push(config_dir);
    }
    Ok(crate::inject::sandbox::claude_sandbox(&places))
}

/// Set the top-level `key` to `value` (in its place when present, else last).
pub fn set_member(doc: &mut SettingsDoc, key: &str, value: &serde_json::Value) {
    let node = compiler::jsonc::parse(&value.to_string()).expect("serde_json writes JSON");
    let members = doc.members_mut();
    match members.iter_mut().rev().find(|(k, _)| k == key) {
        Some((_, existing)) => *existing = node,
        None => members.push((key.to_string(), node)),
    }
}

/// Remove the top-level `key` when its value is `value`; returns whether it was removed.
pub fn remove_member_if(doc: &mut SettingsDoc, key: &str, value: &serde_json::Value) -> bool {
    let members = doc.members_mut();
    let before = members.len();
    members.retain(|(k, v)| !(k == key && &v.to_json() == value));
    members.len() != before
}
