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
//! - the **project root** is the nearest directory at or above the payload's `cwd` that holds
//!   `.git` (a repository's top level; a worktree's or submodule's `.git` file counts too), else
//!   the `cwd` itself. The cwd must be an absolute path. The records then go to that project's
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
        Err(e) => out.problems.push(e),
    }
    match cwd_of(payload) {
        Ok(cwd) => out.project_root = Some(project_root_of(&cwd)),
        Err(e) => out.problems.push(e),
    }
    out
}

fn session_of(payload: &Value) -> Result<String, String> {
    let session = payload
        .get("session_id")
        .and_then(Value::as_str)
        .ok_or("the payload carries no `session_id` string (--from-payload needs one)")?;
    engine::session::validate_session_id(session)
        .map_err(|e| format!("the payload's `session_id` cannot name a session log: {e}"))?;
    Ok(session.to_string())
}

fn cwd_of(payload: &Value) -> Result<PathBuf, String> {
    let cwd = payload
        .get("cwd")
        .and_then(Value::as_str)
        .ok_or("the payload carries no `cwd` string (--from-payload needs one)")?;
    if !cwd.starts_with('/') {
        return Err("the payload's `cwd` is not an absolute path".into());
    }
    Ok(PathBuf::from(cwd))
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
    fn session_and_cwd_come_from_the_payload_or_are_problems() {
        let args = resolve(
            &with_flag(),
            Some(&json!({"session_id": "abc-123", "cwd": "/"})),
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
