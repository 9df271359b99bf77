//! `inject --sandbox`: the guard's files out of the agent's reach, through the harness's own
//! OS sandbox.
//!
//! Matching command spellings can never stop every program that writes a file: any
//! interpreter can. Claude Code 2.1.328 has a Bash sandbox (bubblewrap and socat on Linux,
//! Seatbelt on macOS) whose `sandbox.filesystem.denyWrite` makes a path read-only to every Bash
//! command and its children, whatever program writes. Hooks run outside it, so the guard
//! still writes its records. [`claude_sandbox`] writes that block with every place the guard
//! depends on ([`guard_places`]) denied, and no way around it:
//!
//! - `failIfUnavailable: true`: without bubblewrap/socat the CLI refuses to start rather than
//!   run unsandboxed;
//! - `allowUnsandboxedCommands: false`: no `dangerouslyDisableSandbox` retry outside it;
//! - `autoAllowBashIfSandboxed: false`: the sandbox grants nothing; every call still goes
//!   through the hook and Claude's own permissions.
//!
//! Bash's network then goes through the CLI's proxy. `network.allowedDomains: ["*"]` keeps
//! every domain reachable (the guard's job is the files, not the network; a profile's
//! `WebFetch(domain:…)` rules still gate the fetch tool), and `network.allowLocalBinding:
//! true` keeps local servers (a test database, a dev server) reachable and bindable: both
//! measured on the real CLI (see the README's "The OS boundary").
//!
//! Codex CLI has its own sandbox but no way to deny a path inside a writable root; Gemini
//! CLI's and opencode's have none that `inject` can set per session (the README says what
//! each harness gets).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

/// Why the guard's places cannot be named for a sandbox.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// `$HOME` is unset, empty or relative.
    #[error("`--sandbox` needs an absolute HOME (the user's .claude/ and ~/.animus)")]
    NoHome,
    /// The hook binary's path has no parent directory.
    #[error("the hook binary has no directory")]
    NoBinaryDirectory {
        /// The hook binary.
        binary: PathBuf,
    },
}

/// The places the guard depends on, each an absolute path (existing or not): the session
/// directory (the policy, its sidecar and stamp, the harness wiring), the state directory
/// with the records (`$ANIMUS_CONFIG_DIR`, and `~/.animus` always), the hook binaries'
/// directory, and the harness settings that can switch hooks off or replace them (the
/// project's and the user's `.claude/`, whole, so they cannot be moved aside either).
pub fn guard_places(
    session_dir: &Path,
    hook_binary: &Path,
    project_root: &Path,
    env: &dyn Fn(&str) -> Option<OsString>,
) -> Result<Vec<PathBuf>, SandboxError> {
    let home = env("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .filter(|h| h.is_absolute())
        .ok_or(SandboxError::NoHome)?;
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let mut places = vec![canonical(session_dir)];
    if let Some(root) = env("ANIMUS_CONFIG_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
    {
        places.push(canonical(&root));
    }
    places.push(canonical(&home.join(".animus")));
    let binary_dir = canonical(hook_binary)
        .parent()
        .map(Path::to_path_buf)
        .ok_or_else(|| SandboxError::NoBinaryDirectory {
            binary: hook_binary.to_path_buf(),
        })?;
    places.push(binary_dir);
    places.push(project_root.join(".claude"));
    places.push(canonical(&home.join(".claude")));
    let mut unique = Vec::new();
    for place in places {
        if !unique.contains(&place) {
            unique.push(place);
        }
    }
    Ok(unique)
}

/// Claude Code's `sandbox` settings block denying writes to `places` (absolute paths).
pub fn claude_sandbox(places: &[PathBuf]) -> Value {
    let deny: Vec<String> = places
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    json!({
        "enabled": true,
        "failIfUnavailable": true,
        "allowUnsandboxedCommands": false,
        "autoAllowBashIfSandboxed": false,
        "filesystem": { "denyWrite": deny },
        "network": { "allowedDomains": ["*"], "allowLocalBinding": true },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_guard_place_is_denied_and_nothing_is_granted() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let (session, bin, project, home, state) = (
            root.join("session"),
            root.join("bin"),
            root.join("project"),
            root.join("home"),
            root.join("state"),
        );
        for d in [&session, &bin, &project, &home, &state] {
            std::fs::create_dir_all(d).unwrap();
        }
        let env = |name: &str| match name {
            "HOME" => Some(home.clone().into_os_string()),
            "ANIMUS_CONFIG_DIR" => Some(state.clone().into_os_string()),
            _ => None,
        };
        let places = guard_places(&session, &bin.join("animus-hook"), &project, &env).unwrap();
        assert_eq!(
            places,
            [
                session.clone(),
                state,
                home.join(".animus"),
                bin,
                project.join(".claude"),
                home.join(".claude")
            ]
        );
        let block = claude_sandbox(&places);
        assert_eq!(block["failIfUnavailable"], true);
        assert_eq!(block["allowUnsandboxedCommands"], false);
        assert_eq!(block["autoAllowBashIfSandboxed"], false);
        assert_eq!(
            block["filesystem"]["denyWrite"][0],
            session.to_str().unwrap()
        );
        assert!(block["filesystem"].get("allowWrite").is_none());
        let no_home = |_: &str| None;
        assert!(guard_places(&session, &root, &project, &no_home).is_err());
    }
}
