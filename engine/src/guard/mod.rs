//! Built-in refusals that keep the agent off its own guard, decided from the shell command of a
//! call whatever the policy says ([`shell_refusal`]). They sit beside the compiled
//! self-protection rules (which deny the editing tools on the guard's files and any shell word
//! naming one) and reach what a word-by-word path match cannot:
//!
//! - **Nested agents** ([`agents`]): starting a coding-agent CLI with its guard or permissions
//!   off (`claude --dangerously-skip-permissions`, `gemini -y`, `opencode run --pure`, the kill
//!   switch in the command's environment).
//! - **Names a guard file** ([`names_a_guard_file`]): a generous search of the command's whole
//!   text (inline code included: `python3 -c "shutil.copy(…)"`), as written and with quotes and
//!   backslashes removed, for `.claude/settings`, `animus-policy`, the other harnesses' hook
//!   configuration, the session (policy) directory, the state directory (`~/.animus`,
//!   `$HOME/.animus`, `$ANIMUS_CONFIG_DIR`) and the hook binaries' paths.
//! - **Destinations** ([`destinations`]): a copy, move, link, sync, install, extraction or
//!   removal whose destination directory (or removed path) resolves into one of the guard's
//!   places, against the call's working directory (`.`, `..`, `~`, symlinks on disk, `-t DIR`,
//!   the last operand, `cd` earlier in the command, a variable assigned a literal in it).
//!
//! Reading the guard's places stays allowed (`ls ~/.claude`, the `Read` tool); a shell command
//! naming a guard file is denied even when it only reads it (telling a read from a write is a
//! race the attacker would win). What no parse can see (a path computed at run time) is left to
//! the harness's sandbox and the pinned policy digest.

pub mod agents;
pub mod destinations;

use crate::paths::Places;

/// The kill switch `animus-hook inject` reads.
pub const KILL_SWITCH: &str = "ANIMUS_DISABLE_HARNESS_HOOKS";

/// The guard's own places the hook knows when it decides: absolute paths, each as found and
/// (where it differs) with symlinks resolved.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Guard {
    /// The directory holding the compiled policy (the session directory under `inject`).
    pub policy_dirs: Vec<String>,
    /// The state directories (`$ANIMUS_CONFIG_DIR`, `~/.animus`).
    pub state_dirs: Vec<String>,
    /// The hook binaries (the running one and its twins).
    pub binaries: Vec<String>,
}

/// A built-in refusal: the rule id it is recorded under and the reason the model is told.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub rule: &'static str,
    pub reason: String,
}

/// Rule id of a nested agent started without its guard.
pub const NESTED_AGENT_RULE: &str = "animus.guard:nested-agent";
/// Rule id of a command naming one of the guard's files.
pub const NAMES_GUARD_RULE: &str = "animus.guard:names-guard-file";
/// Rule id of a copy, move, link or removal reaching one of the guard's places.
pub const DESTINATION_RULE: &str = "animus.guard:destination";

/// Why the shell `command`, run with `places`, would reach the guard, if it would.
pub fn shell_refusal(command: &str, places: Places<'_>, guard: &Guard) -> Option<Refusal> {
    // The analysis the policy's rules made of the same command in the same places.
    let analysis = crate::shell::analyse_shared(command, places);
    if let Some(reason) = agents::nested_agent_refusal(command, analysis.generous_texts()) {
        return Some(Refusal {
            rule: NESTED_AGENT_RULE,
            reason,
        });
    }
    if let Some(needle) = names_a_guard_file(command, places, guard) {
        return Some(Refusal {
            rule: NAMES_GUARD_RULE,
            reason: format!(
                "animus-hook protects its own guard: this command names `{needle}`, which is \
                 the guard's (its policy, records, binaries or a harness's hook settings) and \
                 which the agent it guards may not touch. Change it yourself, outside the session."
            ),
        });
    }
    destinations::refusal(&analysis, places, guard).map(|(path, what)| Refusal {
        rule: DESTINATION_RULE,
        reason: format!(
            "animus-hook protects its own guard: this command would write, move or delete \
             `{path}`, {what}, which the agent it guards may not change. Change it yourself, \
             outside the session."
        ),
    })
}

/// Texts that name a guard file wherever they stand.
const FIXED_NEEDLES: &[&str] = &[
    ".claude/settings",
    "animus-policy",
    ".codex/config.toml",
    ".codex/hooks.json",
    ".gemini/settings.json",
    "opencode.json",
    ".opencode/",
    ".config/opencode",
    "$ANIMUS_CONFIG_DIR",
    "${ANIMUS_CONFIG_DIR}",
];

/// The first guard-naming text found in `command` (as written, or with `'`, `"` and `\`
/// removed), if any: [`FIXED_NEEDLES`], the state directory under `~`/`$HOME`, and every
/// absolute place of `guard` (followed by the end of a path component).
pub fn names_a_guard_file(command: &str, places: Places<'_>, guard: &Guard) -> Option<String> {
    // The command without quotes and backslashes, when it has any (most have none: then
    // the one text is searched once).
    let unquoted: Option<String> = command.contains(['\'', '"', '\\']).then(|| {
        command
            .chars()
            .filter(|c| !matches!(c, '\'' | '"' | '\\'))
            .collect()
    });
    let texts: &[&str] = match &unquoted {
        Some(unquoted) => &[command, unquoted.as_str()],
        None => &[command],
    };
    for needle in FIXED_NEEDLES {
        if texts.iter().any(|t| t.contains(needle)) {
            return Some((*needle).to_string());
        }
    }
    let mut paths: Vec<String> = vec!["~/.animus".into(), "/.animus".into()];
    if let Some(home) = places.home {
        paths.push(format!("{}/.animus", home.trim_end_matches('/')));
    }
    for dir in guard
        .policy_dirs
        .iter()
        .chain(&guard.state_dirs)
        .chain(&guard.binaries)
    {
        paths.push(dir.trim_end_matches('/').to_string());
    }
    for needle in paths.iter().filter(|n| n.len() > 1) {
        if texts.iter().any(|t| contains_path(t, needle)) {
            return Some(needle.clone());
        }
    }
    None
}

/// Does `text` hold `path` followed by the end of a path component (`/`, the end, a quote, a
/// blank, an operator), so `/tmp/run` is not found in `/tmp/running`?
fn contains_path(text: &str, path: &str) -> bool {
    text.match_indices(path).any(|(at, _)| {
        text[at + path.len()..]
            .chars()
            .next()
            .is_none_or(|c| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.')))
    })
}

#[cfg(test)]
mod tests;
