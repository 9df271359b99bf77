//! `emit --from-payload`: one installed hook command for every session.
//!
//! `inject` builds one session at a time and names its id and project on the command line
//! (`--session`, `--project-root`). `animus-hook install` writes a single command into the
//! user's own harness settings instead, so every session the user starts runs the same command:
//! with `--from-payload` the hook takes both from the payload the harness sends each call.
//!
//! - the **session id** is the payload's `session_id` (every harness sends one per session).
//!   It must be a valid session id (it names the log file, see
//!   [`engine::session::validate_session_id`]); a gate whose payload has none, or an invalid
//!   one, is a **deny** naming the cause (fail closed), exactly as a bad `--session` is.
//! - the **project root** is the directory the harness names as the session's project in the
//!   hook's environment (`CLAUDE_PROJECT_DIR`, which Claude Code sets for every hook, or Gemini
//!   CLI's `GEMINI_PROJECT_DIR`) when that is an absolute path to a directory; else the nearest
//!   directory at or above the payload's `cwd` that holds `.git` (a repository's top level; a
//!   worktree's or submodule's `.git` file counts too), else the `cwd` itself. The harness's own
//!   name comes first because the payload's `cwd` follows the agent's `cd`: in a project with no
//!   `.git`, `cd sub` would otherwise move the records to another state directory and re-anchor
//!   the policy's `/x` path rules below `sub`. The cwd must be an absolute path. The records then go to that project's
//!   repo-scoped state directory, and `/x` path rules are anchored there. Only file-system
//!   metadata is read (no `git` is spawned): the hot path stays one process.
//!
//! `--from-payload` excludes `--session` and `--project-root`: a command naming both is a
//! settings mistake, and a gate denies it.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::EmitArgs;

/// `args` with the session id and the project root filled in from `payload`. Whatever cannot be
/// taken is added to `problems`, so a gate denies naming it (and an observer records nothing).
pub(super) fn resolve(args: &EmitArgs, payload: Option<&Value>) -> EmitArgs {
    resolve_in(args, payload, |name| std::env::var_os(name))
}

/// [`resolve`], reading the hook's environment through `var`.
fn resolve_in(
    args: &EmitArgs,
    payload: Option<&Value>,
    var: impl Fn(&str) -> Option<std::ffi::OsString>,
) -> EmitArgs {
    let mut out = args.clone();
    if args.session.is_some() || args.project_root.is_some() {
        out.problems.push(
            "--from-payload takes the session and the project from the payload; drop \
             --session and --project-root"
                .into(),
        );
        return out;
    }
    let Some(payload) = payload else {
        // The payload's own error is reported by the caller.
        return out;
    };
    match session_of(payload) {
        Ok(session) => out.session = Some(session),
        Err(e) => out.problems.push(e.to_string()),
    }
    match cwd_of(payload) {
        Ok(cwd) => {
            out.project_root =
                Some(harness_project_dir(var).unwrap_or_else(|| project_root_of(&cwd)))
        }
        Err(e) => out.problems.push(e.to_string()),
    }
    out
}

/// Why `--from-payload` cannot take the session or the project from the payload (a problem
/// of the arguments: a gate then denies).
#[derive(Debug, thiserror::Error)]
enum FromPayloadError {
    #[error("the payload carries no `session_id` string (--from-payload needs one)")]
    NoSessionId,
    #[error("the payload's `session_id` cannot name a session log: {0}")]
    UnusableSessionId(#[from] engine::session::SessionIdError),
    #[error("the payload carries no `cwd` string (--from-payload needs one)")]
    NoCwd,
    #[error("the payload's `cwd` is not an absolute path")]
    RelativeCwd,
}

fn session_of(payload: &Value) -> Result<String, FromPayloadError> {
    let session = payload
        .get("session_id")
        .and_then(Value::as_str)
        .ok_or(FromPayloadError::NoSessionId)?;
    engine::session::validate_session_id(session)?;
    Ok(session.to_string())
}

fn cwd_of(payload: &Value) -> Result<PathBuf, FromPayloadError> {
    let cwd = payload
        .get("cwd")
        .and_then(Value::as_str)
        .ok_or(FromPayloadError::NoCwd)?;
    if !cwd.starts_with('/') {
        return Err(FromPayloadError::RelativeCwd);
    }
    Ok(PathBuf::from(cwd))
}

/// The session's project as the harness names it in the hook's environment: the first of
/// `CLAUDE_PROJECT_DIR`, `GEMINI_PROJECT_DIR` that is an absolute path to a directory.
fn harness_project_dir(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    ["CLAUDE_PROJECT_DIR", "GEMINI_PROJECT_DIR"]
        .into_iter()
        .filter_map(var)
        .map(PathBuf::from)
        .find(|dir| dir.is_absolute() && dir.is_dir())
}

/// The nearest directory at or above `cwd` holding `.git`, else `cwd`.
pub fn project_root_of(cwd: &Path) -> PathBuf {
    cwd.ancestors()
        .find(|dir| std::fs::symlink_metadata(dir.join(".git")).is_ok())
        .unwrap_or(cwd)
        .to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn with_flag() -> EmitArgs {
        EmitArgs {
            from_payload: true,
            ..EmitArgs::default()
        }
    }

    #[test]
    fn the_project_root_is_the_git_top_level_above_cwd_else_cwd() {
        let dir = std::env::temp_dir().join(format!("animus-from-payload-{}", std::process::id()));
        let deep = dir.join("repo/src/deep");
        std::fs::create_dir_all(&deep).unwrap();
        assert_eq!(project_root_of(&deep), deep, "no .git anywhere below /tmp");
        std::fs::create_dir_all(dir.join("repo/.git")).unwrap();
        assert_eq!(project_root_of(&deep), dir.join("repo"));
        // A worktree's `.git` is a file.
        std::fs::write(dir.join("repo/src/.git"), "gitdir: /elsewhere\n").unwrap();
        assert_eq!(project_root_of(&deep), dir.join("repo/src"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_harness_project_dir_comes_first_when_it_is_an_absolute_directory() {
        let dir = std::env::temp_dir();
        let env = |claude: &str, gemini: &str| {
            let (claude, gemini) = (claude.to_string(), gemini.to_string());
            move |name: &str| match name {
                "CLAUDE_PROJECT_DIR" if !claude.is_empty() => Some(claude.clone().into()),
                "GEMINI_PROJECT_DIR" if !gemini.is_empty() => Some(gemini.clone().into()),
                _ => None,
            }
        };
        let tmp = dir.to_str().unwrap();
        assert_eq!(harness_project_dir(env(tmp, "")), Some(dir.clone()));
        assert_eq!(harness_project_dir(env("", tmp)), Some(dir.clone()));
        assert_eq!(harness_project_dir(env("rel", tmp)), Some(dir.clone()));
        assert_eq!(harness_project_dir(env("/no/such/dir", "")), None);
        assert_eq!(harness_project_dir(env("", "")), None);
    }

    #[test]
    fn session_and_cwd_come_from_the_payload_or_are_problems() {
        let args = resolve_in(
            &with_flag(),
            Some(&json!({"session_id": "abc-123", "cwd": "/"})),
            |_| None,
        );
        assert!(args.problems.is_empty(), "{:?}", args.problems);
        assert_eq!(args.session.as_deref(), Some("abc-123"));
        assert_eq!(args.project_root.as_deref(), Some(Path::new("/")));
        for (payload, problem) in [
            (json!({"cwd": "/"}), "no `session_id`"),
            (json!({"session_id": 7, "cwd": "/"}), "no `session_id`"),
            (json!({"session_id": "../x", "cwd": "/"}), "cannot name"),
            (json!({"session_id": "", "cwd": "/"}), "cannot name"),
            (json!({"session_id": "s"}), "no `cwd`"),
            (json!({"session_id": "s", "cwd": "rel"}), "not an absolute"),
        ] {
            let args = resolve(&with_flag(), Some(&payload));
            assert!(
                args.problems.iter().any(|p| p.contains(problem)),
                "{payload}: {:?}",
                args.problems
            );
        }
        let mut both = with_flag();
        both.session = Some("s".into());
        assert!(
            resolve(&both, Some(&json!({"session_id": "s", "cwd": "/"}))).problems[0]
                .contains("drop --session")
        );
    }
}
