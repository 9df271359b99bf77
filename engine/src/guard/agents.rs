//! Nested agents: a command that starts a coding-agent CLI with its guard or its permissions
//! switched off ([`nested_agent_refusal`]).
//!
//! The agent a session guards could otherwise hand its work to a second agent that nothing
//! guards: `claude -p … --dangerously-skip-permissions`, `codex exec
//! --dangerously-bypass-approvals-and-sandbox`, `gemini -y`, `opencode run --pure`, a guarded
//! launch with the kill switch set (`ANIMUS_DISABLE_HARNESS_HOOKS=1 animus-hook inject …`), or
//! one that skips or moves the settings its hooks live in (`claude --bare`, `--settings …`,
//! `HOME=/tmp/h claude …`).
//! Flags checked against the pinned CLIs' `--help` (Claude Code 2.1.328, Codex 0.169.0, Gemini
//! CLI 0.61.0, opencode 1.18.33).

use crate::shell::segment::basename;

/// Flags that switch every permission check off, unique to the agent CLIs: denied wherever
/// they are a word of a segment (the CLI may be started through `npx`, `node cli.js`, a path
/// or a variable), unless the program only prints or searches text.
const UNIQUE_FLAGS: &[(&str, &str)] = &[
    ("--dangerously-skip-permissions", "Claude Code"),
    ("--allow-dangerously-skip-permissions", "Claude Code"),
    ("--dangerously-bypass-approvals-and-sandbox", "Codex CLI"),
];

/// Flags that mean "no permissions" only for one CLI: `(cli name prefix, flag, value)`, the
/// value `None` for a switch, `Some(v)` for an option whose value `v` turns checks off.
const CLI_FLAGS: &[(&str, &str, Option<&str>)] = &[
    ("claude", "--permission-mode", Some("bypassPermissions")),
    // Modes that skip the hooks of the settings files (2.1.328's `--help`): `--bare` (also
    // LSP, plugins, CLAUDE.md), `--safe-mode` (every customisation), `--restricted` (ignores
    // the user, project and local settings files; `--tools Bash` brings the shell back).
    ("claude", "--bare", None),
    ("claude", "--safe-mode", None),
    ("claude", "--restricted", None),
    ("codex", "--yolo", None),
    ("codex", "--sandbox", Some("danger-full-access")),
    ("codex", "-s", Some("danger-full-access")),
    ("gemini", "-y", None),
    ("gemini", "--yolo", None),
    ("gemini", "--approval-mode", Some("yolo")),
    ("opencode", "--pure", None),
    ("opencode", "--auto", None),
];

/// Environment variables whose assignment switches a guard off.
const VARIABLES: &[(&str, &str)] = &[
    (
        crate::guard::KILL_SWITCH,
        "animus-hook's kill switch: the harness it launches runs with no hook at all",
    ),
    (
        "OPENCODE_PURE",
        "opencode then loads no plugin, the guard's included",
    ),
    (
        "CLAUDE_CODE_SIMPLE",
        "Claude Code then runs in its minimal mode (`--bare`), which skips the settings' hooks",
    ),
];

/// Variables that move where a coding agent reads its settings (and so its hooks) from:
/// refused in a command that starts one (`HOME=/tmp/h claude -p …` reads no `~/.claude`).
const CONFIG_HOMES: &[&str] = &["HOME", "CLAUDE_CONFIG_DIR", "XDG_CONFIG_HOME", "CODEX_HOME"];

/// The coding-agent CLIs, by the start of the word naming them (a path, an npm package:
/// `@anthropic-ai/claude-code`, `@google/gemini-cli`).
const CLIS: &[&str] = &["claude", "codex", "gemini", "opencode"];

/// Programs whose words are text, not a launch (`grep -- --yolo`, a commit message).
fn only_text(program: &str) -> bool {
    matches!(
        program,
        "echo" | "printf" | "grep" | "egrep" | "fgrep" | "rg" | "ag" | "git" | "man" | "which"
    )
}

/// Why `command` (its raw text, and the generous texts of its segments) starts a coding agent
/// with its guard or permissions off, if it does.
pub fn nested_agent_refusal<'t>(
    command: &str,
    segment_texts: impl Iterator<Item = &'t str>,
) -> Option<String> {
    let refuse = |what: String| {
        Some(format!(
            "animus-hook does not let the agent it guards start a coding agent with its guard \
             or permissions switched off ({what}): that agent would run unguarded. Run it \
             yourself, outside the session, if you mean to."
        ))
    };
    for (name, why) in VARIABLES {
        if assigns(command, name) {
            return refuse(format!("`{name}` is set: {why}"));
        }
    }
    // One word list for every segment, and the words' base names (each CLI is looked for
    // among them: taken once a word, not once a word and CLI).
    let mut words: Vec<&str> = Vec::new();
    let mut names: Vec<&str> = Vec::new();
    for text in segment_texts {
        words.clear();
        words.extend(text.split_whitespace());
        let Some(start) = words
            .iter()
            .position(|w| !crate::shell::segment::is_assignment(w))
        else {
            continue;
        };
        let program = basename(words[start]);
        if only_text(program) {
            continue;
        }
        let words = &words[start..];
        names.clear();
        names.extend(words.iter().map(|w| basename(w)));
        for (flag, cli) in UNIQUE_FLAGS {
            // The flag, or the flag with a value attached (`--flag=…`).
            if words.iter().any(|w| {
                w.strip_prefix(flag)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('='))
            }) {
                return refuse(format!("{cli}'s `{flag}`"));
            }
        }
        for (cli, flag, value) in CLI_FLAGS {
            // The CLI itself, or a launcher naming it (`npx @google/gemini-cli`, `node
            // …/codex.js`): checked from the word naming it on.
            let Some(at) = names.iter().position(|name| name.starts_with(cli)) else {
                continue;
            };
            if flag_given(&words[at + 1..], flag, *value) {
                let spelled = value.map_or_else(|| flag.to_string(), |v| format!("{flag} {v}"));
                return refuse(format!("`{cli} … {spelled}`"));
            }
        }
        let cli_at = words
            .iter()
            .zip(&names)
            .enumerate()
            .find_map(|(i, (w, name))| {
                if let Some(cli) = CLIS.iter().find(|cli| name.starts_with(*cli)) {
                    return Some((i, *cli, false));
                }
                // A program named by a variable the command assigns a CLI (`X=claude; $X --bare`).
                let variable = w.trim_start_matches('"').strip_prefix('$')?;
                let variable = variable
                    .trim_start_matches('{')
                    .trim_end_matches(['"', '}']);
                (i == 0)
                    .then(|| cli_assigned(command, variable))
                    .flatten()
                    .map(|cli| (i, cli, true))
            });
        let Some((at, cli, named_through_variable)) = cli_at else {
            continue;
        };
        if let Some(why) = settings_switch_hooks_off(cli, &words[at + 1..], named_through_variable)
        {
            return refuse(why);
        }
        if let Some(name) = CONFIG_HOMES.iter().find(|name| assigns(command, name)) {
            return refuse(format!(
                "`{name}` is set where a coding agent starts: it would read its settings, and \
                 their hooks, from elsewhere"
            ));
        }
    }
    None
}

/// Options of a coding agent's launch (`cli`, then its arguments `rest`) that load settings
/// able to switch its hooks off: Claude Code's `--settings` (a file or JSON read at start: it
/// may set `disableAllHooks` or a permission mode), its `--setting-sources` without all of
/// `user`, `project` and `local` (the hooks live in one of them), and Codex's `-c`/`--config`
/// overriding `sandbox_mode` to `danger-full-access` (its `-s danger-full-access`) or its
/// hooks; also claude's `import` and plugin removal, and, for a CLI `named_through_variable`
/// (`X=claude; $X …`), the per-CLI flags of [`CLI_FLAGS`].
fn settings_switch_hooks_off(
    cli: &str,
    rest: &[&str],
    named_through_variable: bool,
) -> Option<String> {
    // Claude Code's own commands that rewrite its settings: `import` (another agent's
    // configuration, which the agent can write, into claude's) and disabling or removing a
    // plugin (the guard may be one).
    if cli == "claude" {
        match rest {
            ["import", more @ ..] if !more.contains(&"--dry-run") => {
                return Some("`claude import`: it writes another agent's configuration into claude's settings".into());
            }
            [
                "plugin" | "plugins",
                "disable" | "uninstall" | "remove" | "rm",
                ..,
            ] => {
                return Some(format!(
                    "`claude {} {}`: the guard may be that plugin",
                    rest[0], rest[1]
                ));
            }
            _ => {}
        }
    }
    // The per-CLI flags, for a CLI named through a variable (one named by its word had them
    // checked with the others).
    if named_through_variable {
        for (flag_cli, flag, value) in CLI_FLAGS.iter().filter(|(c, _, _)| *c == cli) {
            if flag_given(rest, flag, *value) {
                return Some(format!("`{flag_cli} … {flag}`"));
            }
        }
    }
    let values = |flag: &str| flag_values(rest, flag);
    if cli == "claude" {
        if !values("--settings").is_empty() {
            return Some(
                "`claude … --settings`: settings loaded at its start may switch its hooks or \
                 permissions off"
                    .into(),
            );
        }
        for sources in values("--setting-sources") {
            let listed: Vec<&str> = sources.split(',').map(str::trim).collect();
            if !["user", "project", "local"]
                .iter()
                .all(|source| listed.contains(source))
            {
                return Some(format!(
                    "`claude … --setting-sources {sources}`: the settings left out hold hooks"
                ));
            }
        }
    }
    if cli == "codex" {
        for value in values("-c").into_iter().chain(values("--config")) {
            let key = value.split('=').next().unwrap_or("").trim();
            if (key == "sandbox_mode" && value.contains("danger-full-access"))
                || key.starts_with("hooks")
            {
                return Some(format!("`codex … -c {value}`"));
            }
        }
    }
    None
}

/// Is `flag` among a launch's arguments `rest`: the switch (`value` `None`), or the option
/// with the value `v` that turns checks off (`--flag v`, `--flag=v`)?
fn flag_given(rest: &[&str], flag: &str, value: Option<&str>) -> bool {
    match value {
        None => rest.contains(&flag),
        Some(v) => flag_values(rest, flag).contains(&v),
    }
}

/// The values `flag` is given among `rest` (`--flag v`, `--flag=v`; empty when it ends them).
fn flag_values<'a>(rest: &[&'a str], flag: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    for (i, w) in rest.iter().enumerate() {
        if *w == flag {
            out.push(rest.get(i + 1).copied().unwrap_or(""));
        } else if let Some(value) = w.strip_prefix(flag).and_then(|r| r.strip_prefix('=')) {
            out.push(value);
        }
    }
    out
}

/// The CLI (of [`CLIS`]) the command assigns to the variable `name` (`X=claude`,
/// `c="/usr/local/bin/codex"`), if it does.
fn cli_assigned(command: &str, name: &str) -> Option<&'static str> {
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return None;
    }
    for (_, end) in name_starts(command, name) {
        let Some(value) = command[end..].strip_prefix('=') else {
            continue;
        };
        let value = value.trim_start_matches(['\'', '"']);
        let end = value
            .find(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '\'' | '"'))
            .unwrap_or(value.len());
        let program = basename(&value[..end]);
        if let Some(cli) = CLIS.iter().find(|cli| program.starts_with(*cli)) {
            return Some(cli);
        }
    }
    None
}

/// Each place `name` occurs in `text` not inside a longer name (no letter, digit or `_` just
/// before it), as its start and end.
fn name_starts<'t>(text: &'t str, name: &'t str) -> impl Iterator<Item = (usize, usize)> + 't {
    text.match_indices(name)
        .map(|(at, _)| (at, at + name.len()))
        .filter(|&(at, _)| {
            !text[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        })
}

/// Does `text` assign the environment variable `name`: `NAME=…` (a prefix, `env`, `export`),
/// `export NAME`, or in inline code `environ['NAME'] = …`, `putenv("NAME", …)`, `{"NAME": …}`?
pub(crate) fn assigns(text: &str, name: &str) -> bool {
    for (at, end) in name_starts(text, name) {
        let after = text[end..].trim_start_matches(['\'', '"', ']', '}', ')', ' ', '\t']);
        if (after.starts_with('=') && !after.starts_with("=="))
            || after.starts_with(',')
            || after.starts_with(':')
        {
            return true;
        }
        let head = text[..at].trim_end_matches(['\'', '"', ' ', '\t']);
        if ["export", "declare -x", "typeset -x", "setenv"]
            .iter()
            .any(|w| head.ends_with(w))
        {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(command: &str) -> Option<String> {
        let analysis = crate::shell::analyse(command);
        nested_agent_refusal(command, analysis.generous_texts())
    }

    #[test]
    fn agents_started_without_their_guard_are_refused() {
        for command in [
            "claude -p 'fix it' --dangerously-skip-permissions",
            "claude --allow-dangerously-skip-permissions -p x",
            "claude --dangerously-skip-permissions=true -p x",
            "node cli.js --dangerously-bypass-approvals-and-sandbox=1",
            "claude -p x --permission-mode bypassPermissions",
            "claude -p x --permission-mode=bypassPermissions",
            "npx @anthropic-ai/claude-code --dangerously-skip-permissions -p x",
            "cd /tmp && /usr/local/bin/claude --dangerously-skip-permissions",
            "bash -c 'claude -p x --dangerously-skip-permissions'",
            "codex exec --dangerously-bypass-approvals-and-sandbox 'rm -rf x'",
            "codex --yolo exec x",
            "codex exec -s danger-full-access x",
            "gemini -y -p 'do it'",
            "gemini --yolo -p x",
            "gemini --approval-mode yolo -p x",
            "gemini --approval-mode=yolo -p x",
            "npx @google/gemini-cli -y -p x",
            "opencode run --pure 'x'",
            "OPENCODE_PURE=1 opencode run x",
            "env OPENCODE_PURE=1 opencode run x",
            "ANIMUS_DISABLE_HARNESS_HOOKS=1 animus-hook inject --provider claude -- -p x",
            "env ANIMUS_DISABLE_HARNESS_HOOKS=1 animus-hook inject x",
            "export ANIMUS_DISABLE_HARNESS_HOOKS=yes; animus-hook inject x",
            "export ANIMUS_DISABLE_HARNESS_HOOKS; animus-hook inject x",
            "python3 -c \"import os; os.environ['ANIMUS_DISABLE_HARNESS_HOOKS']='1'\"",
            "sudo -E gemini -y",
            "claude -p x --bare",
            "claude --safe-mode -p x",
            "claude --restricted --tools Bash -p x",
            "CLAUDE_CODE_SIMPLE=1 claude -p x",
            "claude -p x --settings '{\"disableAllHooks\": true}'",
            "claude -p x --settings /tmp/s.json",
            "claude -p x --settings=/tmp/s.json",
            "claude -p x --setting-sources project",
            "claude -p x --setting-sources=user,local",
            "npx @anthropic-ai/claude-code -p x --setting-sources project,local",
            "HOME=/tmp/h claude -p x",
            "env HOME=/tmp/h claude -p x",
            "export CLAUDE_CONFIG_DIR=/tmp/c; claude -p x",
            "XDG_CONFIG_HOME=/tmp/x opencode run x",
            "CODEX_HOME=/tmp/c codex exec x",
            "codex -c sandbox_mode=danger-full-access exec x",
            "codex --config 'sandbox_mode=\"danger-full-access\"' exec x",
            "codex -c hooks.pre_tool_use=[] exec x",
            "X=claude; $X --bare -p x",
            "c=/usr/local/bin/claude && \"$c\" --settings s.json -p x",
            "C=claude; ${C} --dangerously-skip-permissions",
            "g=gemini; $g -y -p x",
            "exec claude --bare -p x",
            "timeout 60 claude --safe-mode -p x",
            "claude import cursor --yes",
            "claude plugin disable animus",
            "claude plugins uninstall animus-guard",
        ] {
            assert!(refused(command).is_some(), "{command}");
        }
    }

    #[test]
    fn ordinary_agent_use_and_text_about_the_flags_pass() {
        for command in [
            "claude -p 'fix the build'",
            "claude --permission-mode plan -p x",
            "codex exec 'run the tests'",
            "gemini -p 'explain' --approval-mode plan",
            "opencode run 'hello'",
            "grep -r -- --dangerously-skip-permissions docs",
            "git commit -m 'never use --yolo or -y'",
            "echo $ANIMUS_DISABLE_HARNESS_HOOKS",
            "cargo test -y",
            "tool --dangerously-skip-permissions-report",
            "apt-get install -y jq",
            "unset ANIMUS_DISABLE_HARNESS_HOOKS_OLD",
            "claude -p x --setting-sources user,project,local",
            "claude -p x --tools Read --model sonnet",
            "codex -c model=o3 exec x",
            "codex -c sandbox_mode=workspace-write exec x",
            "HOME=/tmp/h npm test",
            "git commit -m 'run claude with --bare or --settings'",
            "echo claude --safe-mode",
            "X=claude; $X -p x",
            "X=make; $X --bare",
            "claude import cursor --dry-run",
            "claude plugin enable animus",
            "claude mcp list",
        ] {
            assert_eq!(refused(command), None, "{command}");
        }
    }
}
