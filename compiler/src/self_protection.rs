//! Built-in self-protection: deny rules every written policy carries, that no profile can
//! remove, so the agent a session guards cannot edit its own guard.
//!
//! The agent runs as the same user as the hook: file modes do not stop it from rewriting the
//! compiled policy, recompiling its way out, silencing the session log or unhooking the
//! settings. These rules deny, whatever the profile allows:
//!
//! - the editing tools (`Edit`, `Write`, `MultiEdit`, `NotebookEdit`: as an `Edit(…)` deny
//!   entry lowers) on a protected path;
//! - a shell command (`Bash`, `Monitor`, `PowerShell`) with any word naming a protected path,
//!   read the way a `Read(…)` deny reads a command (every word of every segment, redirection
//!   targets, `=` values, words under a `cd`, globs expanded; see `engine::paths`). A command
//!   that only reads one is denied too: telling a read from a write (`rm`, `mv`, `cp`, `sed
//!   -i`, `tee`, `truncate`, `dd`, `install`, `ln`, `python -c …`) is a race the attacker
//!   would win, and a deny may be more generous than the harness.
//!
//! Protected: the directory the policy is written to (the session directory under `inject`),
//! the state directory (`$ANIMUS_CONFIG_DIR`, and `~/.animus` always), the hook binaries (the
//! compiling binary, its `animus-hook`/`animus-hook-emit` twins beside it, and the binary
//! `inject` wires), claude's settings (`.claude/settings*.json` of the project and of
//! `~/.claude`), and the other harnesses' hook configuration (Codex's `config.toml` and
//! `hooks.json`, Gemini CLI's `settings.json`, opencode's config files and plugin directories,
//! in the project and in the home directory).
//!
//! Paths are written as claude path globs (`engine::paths`): `//abs` for an absolute path,
//! `~/x` and `/x` (the project root) resolved when the hook decides.

use std::path::{Path, PathBuf};

use engine::policy::{InputMatcher, MatchOn};
use engine::{Decision, HookPolicyRule};

use crate::diagnostic::Location;
use crate::tool_policy::{MONITOR_TOOL, lower_entry};

/// Rule ids starting with this are the built-in self-protection rules; authors may not use it.
pub const SELF_PROTECTION_ID_PREFIX: &str = "animus.self_protection:";

/// One protected thing: what it is (for the reason) and its path glob.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Protected {
    /// Said in the deny's reason.
    pub what: &'static str,
    /// A claude path glob.
    pub glob: String,
}

/// What the policy written to `policy_dir` protects, with `hook_binaries` (beyond the
/// compiling binary and its twins) and the state root from `env`.
pub fn protected(
    policy_dir: &Path,
    hook_binaries: &[&Path],
    env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
) -> Vec<Protected> {
    let mut out = Vec::new();
    let mut push = |what: &'static str, glob: String| {
        if !out.iter().any(|p: &Protected| p.glob == glob) {
            out.push(Protected { what, glob });
        }
    };
    const POLICY: &str = "the directory holding this session's compiled policy";
    const STATE: &str = "animus-hook's state directory (the session logs)";
    const BINARY: &str = "an animus-hook binary the hooks run";
    const SETTINGS: &str = "claude's settings, which wire the hooks and permissions";
    const HARNESS_SETTINGS: &str =
        "a coding agent's configuration, which can switch its hooks or plugins off";
    let policy_dir = std::fs::canonicalize(policy_dir).unwrap_or_else(|_| policy_dir.into());
    push(POLICY, format!("{}/**", absolute_glob(&policy_dir)));
    // A directory named by the environment counts when it is absolute (canonical where it
    // exists).
    let env_dir = |name: &str| {
        let dir = env(name).filter(|v| !v.is_empty()).map(PathBuf::from)?;
        dir.is_absolute()
            .then(|| std::fs::canonicalize(&dir).unwrap_or(dir))
    };
    if let Some(root) = env_dir("ANIMUS_CONFIG_DIR") {
        push(STATE, format!("{}/**", absolute_glob(&root)));
    }
    push(STATE, "~/.animus/**".into());
    let mut binaries: Vec<PathBuf> = hook_binaries.iter().map(|p| p.to_path_buf()).collect();
    if let Ok(exe) = std::env::current_exe() {
        binaries.push(exe.clone());
        if let Some(dir) = exe.parent() {
            binaries.push(dir.join("animus-hook"));
            binaries.push(dir.join("animus-hook-emit"));
        }
    }
    for binary in binaries {
        let binary = std::fs::canonicalize(&binary).unwrap_or(binary);
        // Only what is there: a twin that was never built is not a binary to protect.
        if binary.is_file() {
            push(BINARY, absolute_glob(&binary));
        }
    }
    // The files, not their `.claude` directories: a glob naming a directory covers all of
    // it, and `.claude/commands/…` is ordinary project work. (Moving a `.claude` aside changes
    // a later session, not this one: claude reads hooks at start, and an injected session's
    // hooks sit in the protected session directory.)
    push(SETTINGS, "/.claude/settings*.json".into());
    push(SETTINGS, "~/.claude/settings*.json".into());
    // Claude's user settings live there instead when `CLAUDE_CONFIG_DIR` names a directory
    // (`animus-hook install` writes its hooks into that file then).
    if let Some(dir) = env_dir("CLAUDE_CONFIG_DIR") {
        push(SETTINGS, format!("{}/settings*.json", absolute_glob(&dir)));
    }
    // The other harnesses' settings, where a hook or a plugin could be switched off or
    // unhooked: Codex's config and hooks (its trust store is in the config), Gemini CLI's
    // settings (`hooksConfig`), opencode's config and plugin directories (a plugin runs
    // in-process beside the guard's, before it).
    for glob in [
        "/.codex/config.toml",
        "/.codex/hooks.json",
        "~/.codex/config.toml",
        "~/.codex/hooks.json",
        "/.gemini/settings.json",
        "~/.gemini/settings.json",
        "/.opencode/**",
        "/opencode.json",
        "/opencode.jsonc",
        "~/.config/opencode/**",
    ] {
        push(HARNESS_SETTINGS, glob.into());
    }
    out
}

/// `path` (absolute) as a claude path glob matching exactly it: `//` and the path with the
/// glob's special characters escaped.
pub fn absolute_glob(path: &Path) -> String {
    let text = path.to_string_lossy();
    let mut out = String::with_capacity(text.len() + 2);
    out.push('/');
    for c in text.chars() {
        if matches!(c, '\\' | '*' | '?' | '[' | ']') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The deny rules protecting `protected`, each with the location it is reported at.
pub fn rules(protected: &[Protected]) -> Vec<(HookPolicyRule, Location)> {
    let location = Location {
        file: "<built-in self-protection>".into(),
        line: 0,
        column: 0,
    };
    let mut out = Vec::new();
    for p in protected {
        let reason = format!(
            "animus-hook protects its own guard: `{}` is {}, which the agent it guards may not \
             change (nor name in a shell command). Change it yourself, outside the session.",
            p.glob, p.what
        );
        // The editing tools, exactly as an `Edit(…)` deny entry reaches them.
        let edits = lower_entry(&format!("Edit({})", p.glob), Decision::Deny)
            .map(|lowered| lowered.parts)
            .unwrap_or_default();
        let shell = crate::tool_policy::LoweredEntry {
            tools: vec!["Bash".into(), MONITOR_TOOL.into(), "PowerShell".into()],
            input_matchers: vec![InputMatcher {
                field: "command".into(),
                on: MatchOn::CommandPath,
                pattern: p.glob.clone(),
            }],
        };
        for (i, part) in edits.into_iter().chain([shell]).enumerate() {
            let id = if i == 0 {
                format!("{SELF_PROTECTION_ID_PREFIX}{}", p.glob)
            } else {
                format!("{SELF_PROTECTION_ID_PREFIX}{} #{}", p.glob, i + 1)
            };
            out.push((
                HookPolicyRule {
                    id,
                    events: Vec::new(),
                    tools: part.tools,
                    input_matchers: part.input_matchers,
                    decision: Decision::Deny,
                    reason: reason.clone(),
                },
                location.clone(),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_protected_glob_parses_and_lowers_to_edit_and_shell_rules() {
        let dir = std::env::temp_dir().join(format!("animus sp [x]*.{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let env = |name: &str| match name {
            "ANIMUS_CONFIG_DIR" => Some("/srv/animus state".into()),
            "CLAUDE_CONFIG_DIR" => Some("/srv/claude-config".into()),
            _ => None,
        };
        let list = protected(&dir, &[], &env);
        let globs: Vec<&str> = list.iter().map(|p| p.glob.as_str()).collect();
        let canonical = std::fs::canonicalize(&dir).unwrap();
        let escaped = canonical
            .to_str()
            .unwrap()
            .replace('[', "\\[")
            .replace(']', "\\]")
            .replace('*', "\\*");
        assert_eq!(globs[0], format!("/{escaped}/**"));
        assert!(globs.contains(&"//srv/animus state/**"), "{globs:?}");
        assert!(globs.contains(&"~/.animus/**"));
        assert!(globs.contains(&"/.claude/settings*.json"));
        assert!(
            globs.contains(&"//srv/claude-config/settings*.json"),
            "{globs:?}"
        );
        assert!(globs.contains(&"~/.gemini/settings.json"));
        assert!(globs.contains(&"/.opencode/**"));
        for p in &list {
            engine::paths::PathGlob::parse(&p.glob).unwrap_or_else(|e| panic!("{}: {e}", p.glob));
        }
        let rules = rules(&list);
        assert!(rules.iter().all(|(r, _)| r.decision == Decision::Deny));
        let settings: Vec<_> = rules
            .iter()
            .filter(|(r, _)| r.id.contains("/.claude/settings*.json"))
            .collect();
        assert!(
            settings
                .iter()
                .any(|(r, _)| r.tools.contains(&"Write".to_string()))
        );
        assert!(
            settings
                .iter()
                .any(|(r, _)| r.tools.contains(&"Bash".to_string())
                    && r.input_matchers[0].on == MatchOn::CommandPath)
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
