//! One policy, every harness: the harnesses `animus-hook` guards, and the one table that maps
//! each harness's tools onto the canonical tools a policy is written in.
//!
//! A policy speaks Claude Code's vocabulary (`Bash(…)`, `Read(…)`, `Edit(…)`, `WebFetch(…)`,
//! `mcp__server__tool`), whatever harness runs the agent. Before deciding, a call from another
//! harness is rewritten into one or more **canonical calls**: the canonical tool name and an
//! input whose fields carry Claude's names (`file_path`, `command`, `url`). Every canonical call
//! is decided, and the strictest outcome is the call's (see [`combine`]): an `apply_patch` that
//! touches three files is denied if any of the three is.
//!
//! | canonical | Codex CLI | Gemini CLI | opencode |
//! |---|---|---|---|
//! | `Bash {command}` | `Bash {command}` (and the files of a patch in it, as below) | `run_shell_command {command, dir_path}` | `bash {command, workdir}` |
//! | `Read {file_path}` | (through the shell) | `read_file {file_path}` | `read {filePath}` |
//! | `Write {file_path}` | `apply_patch` `*** Add File:` | `write_file {file_path}` | `write {filePath}` |
//! | `Edit {file_path}` | `apply_patch` `*** Update File:`, `*** Delete File:`, `*** Move to:` | `replace {file_path}` | `edit {filePath}`, `apply_patch {patchText}` |
//! | `Glob {pattern, path}` | — | `glob {pattern, dir_path}` | `glob {pattern, path}` |
//! | `Grep {pattern, path, glob}` | — | `grep_search`/`search_file_content {pattern, dir_path, include_pattern}` | `grep {pattern, path, include}` |
//! | `LS {path}` | — | `list_directory {dir_path}` | `list {path}` |
//! | `WebFetch {url}` | — | `web_fetch {prompt}`: one call per URL in the prompt | `webfetch {url}` |
//! | `WebSearch {query}` | — | `google_web_search {query}` | `websearch {query}` |
//! | `Agent` | `spawn_agent` | — | `task` |
//! | `mcp__s__t` | `mcp__s__t` | `mcp_s_t` | `s_t` (and `s_t` as given, see below) |
//! | `Read {file_path}` too | — | `read_many_files {include}`: the call as given, and one `Read` per literal path in `include` (or `paths`) | — |
//!
//! opencode names an MCP tool `<server>_<tool>`, but also its own tools (`plan_exit`) and a
//! custom tool (`<file>_<export>`) with an `_`: such a name is decided as every MCP reading
//! and as given, and the as-given reading counts only when a rule decided it
//! ([`CanonicalCall::only_when_a_rule_decides`]): a deny written for `plan_exit` applies, and
//! the policy's default (an allowlist's deny) is not brought in by that reading alone.
//!
//! A tool the table does not name keeps its own name and input: a rule written for it by name
//! still applies, and so does the policy's default. The harness's own working directory field
//! (`dir_path`, `workdir`) becomes the call's working directory, relative to the payload's.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::{Decision, Outcome};

/// A harness `animus-hook` can guard.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Harness {
    Claude,
    Codex,
    Gemini,
    Opencode,
}

impl Harness {
    /// Every harness, in the order the README lists them.
    pub const ALL: [Harness; 4] = [
        Harness::Claude,
        Harness::Codex,
        Harness::Gemini,
        Harness::Opencode,
    ];

    /// The name used on the command line (`--provider codex`).
    pub fn as_str(self) -> &'static str {
        match self {
            Harness::Claude => "claude",
            Harness::Codex => "codex",
            Harness::Gemini => "gemini",
            Harness::Opencode => "opencode",
        }
    }

    /// The harness named `name` (as on the command line), if any.
    pub fn parse(name: &str) -> Option<Harness> {
        Harness::ALL.into_iter().find(|h| h.as_str() == name)
    }

    /// The harness's own names of its gate events, paired with the canonical gate event each
    /// is decided as (a rule's `events` name the canonical ones).
    pub fn gate_events(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Harness::Claude | Harness::Codex => &[
                ("PreToolUse", "PreToolUse"),
                ("PermissionRequest", "PermissionRequest"),
            ],
            Harness::Gemini => &[("BeforeTool", "PreToolUse")],
            Harness::Opencode => &[("tool.execute.before", "PreToolUse")],
        }
    }

    /// The canonical gate event `event` is decided as, when it is one of this harness's gates.
    pub fn canonical_event(self, event: &str) -> Option<&'static str> {
        self.gate_events()
            .iter()
            .find(|(native, _)| *native == event)
            .map(|(_, canonical)| *canonical)
    }

    /// Whether this harness can be told "ask a human". Where it cannot, an ask is answered as
    /// a deny whose reason says a human must run the call. Gemini CLI takes an `ask` but hangs
    /// on it in a headless run (measured on 0.61.0), and a hook cannot tell the modes apart.
    pub fn can_ask(self) -> bool {
        matches!(self, Harness::Claude)
    }
}

/// How a native tool's input becomes the canonical input.
#[derive(Clone, Copy, Debug)]
enum Shape {
    /// Same fields, renamed where the pair says (`native`, `canonical`); others kept as given.
    Fields(&'static [(&'static str, &'static str)]),
    /// A patch in the named field: one canonical call per file it adds, updates, deletes or
    /// moves to (`Write` for an added file, `Edit` for the others).
    PatchTargets(&'static str),
    /// URLs inside free text in the named field: one canonical call per URL, `{url}`.
    UrlsIn(&'static str),
    /// The call as given, plus one canonical `Read` per literal path (no glob character) in
    /// the named array fields (Gemini's `read_many_files`).
    ReadsPathsIn(&'static [&'static str]),
    /// A shell command, as given, plus one canonical call per file a patch inside its text
    /// names (Codex applies `apply_patch <<'EOF' … EOF` run through its shell tool as a patch,
    /// and its hooks see it as `Bash`).
    ShellWithPatches(&'static str),
}

/// One row of the table: a harness's tool and the canonical tool it is.
struct ToolRow {
    harness: Harness,
    native: &'static str,
    canonical: &'static str,
    shape: Shape,
    /// The input field holding the working directory of the call, if the tool has one.
    cwd_field: Option<&'static str>,
}

const fn row(harness: Harness, native: &'static str, canonical: &'static str) -> ToolRow {
    ToolRow {
        harness,
        native,
        canonical,
        shape: Shape::Fields(&[]),
        cwd_field: None,
    }
}

const fn fields(
    harness: Harness,
    native: &'static str,
    canonical: &'static str,
    renames: &'static [(&'static str, &'static str)],
) -> ToolRow {
    ToolRow {
        harness,
        native,
        canonical,
        shape: Shape::Fields(renames),
        cwd_field: None,
    }
}

const FILE_PATH: &[(&str, &str)] = &[("filePath", "file_path")];

/// The map. Claude's tools are canonical and not listed.
const TOOLS: &[ToolRow] = &[
    // Codex CLI: every shell-like tool reaches hooks as `Bash {command}`.
    ToolRow {
        shape: Shape::ShellWithPatches("command"),
        ..row(Harness::Codex, "Bash", "Bash")
    },
    ToolRow {
        shape: Shape::PatchTargets("command"),
        ..row(Harness::Codex, "apply_patch", "Edit")
    },
    row(Harness::Codex, "spawn_agent", "Agent"),
    // Gemini CLI.
    ToolRow {
        cwd_field: Some("dir_path"),
        ..row(Harness::Gemini, "run_shell_command", "Bash")
    },
    row(Harness::Gemini, "read_file", "Read"),
    row(Harness::Gemini, "write_file", "Write"),
    row(Harness::Gemini, "replace", "Edit"),
    fields(Harness::Gemini, "glob", "Glob", &[("dir_path", "path")]),
    fields(
        Harness::Gemini,
        "grep_search",
        "Grep",
        &[("dir_path", "path"), ("include_pattern", "glob")],
    ),
    fields(
        Harness::Gemini,
        "search_file_content",
        "Grep",
        &[("dir_path", "path"), ("include_pattern", "glob")],
    ),
    fields(
        Harness::Gemini,
        "list_directory",
        "LS",
        &[("dir_path", "path")],
    ),
    ToolRow {
        shape: Shape::UrlsIn("prompt"),
        ..row(Harness::Gemini, "web_fetch", "WebFetch")
    },
    row(Harness::Gemini, "google_web_search", "WebSearch"),
    ToolRow {
        shape: Shape::ReadsPathsIn(&["include", "paths"]),
        ..row(Harness::Gemini, "read_many_files", "read_many_files")
    },
    // opencode: camelCase fields.
    ToolRow {
        cwd_field: Some("workdir"),
        ..row(Harness::Opencode, "bash", "Bash")
    },
    fields(Harness::Opencode, "read", "Read", FILE_PATH),
    fields(Harness::Opencode, "write", "Write", FILE_PATH),
    fields(
        Harness::Opencode,
        "edit",
        "Edit",
        &[
            ("filePath", "file_path"),
            ("oldString", "old_string"),
            ("newString", "new_string"),
            ("replaceAll", "replace_all"),
        ],
    ),
    ToolRow {
        shape: Shape::PatchTargets("patchText"),
        ..row(Harness::Opencode, "apply_patch", "Edit")
    },
    row(Harness::Opencode, "glob", "Glob"),
    fields(Harness::Opencode, "grep", "Grep", &[("include", "glob")]),
    row(Harness::Opencode, "list", "LS"),
    row(Harness::Opencode, "webfetch", "WebFetch"),
    row(Harness::Opencode, "websearch", "WebSearch"),
    row(Harness::Opencode, "task", "Agent"),
];

/// A call in the policy's vocabulary.
#[derive(Clone, Debug, PartialEq)]
pub struct CanonicalCall<'a> {
    pub tool_name: Cow<'a, str>,
    /// Borrowed when the native input is the canonical one (Claude Code; a tool whose fields
    /// keep their names): the hot path copies nothing for them.
    pub tool_input: Cow<'a, Value>,
    /// The call's working directory when the tool names its own (`dir_path`, `workdir`), as
    /// given: relative to the payload's `cwd` unless absolute.
    pub cwd: Option<String>,
    /// The outcome of this call counts only when a rule decided it (not the policy's
    /// default): opencode's as-given reading of a name that also reads as an MCP tool.
    pub only_when_a_rule_decides: bool,
}

/// The canonical calls one native call stands for: at least one.
///
/// `mcp_server` is the MCP server the harness says the tool belongs to (Gemini's
/// `mcp_context.server_name`), which settles how a `mcp_<server>_<tool>` name splits.
pub fn canonical_calls<'a>(
    harness: Harness,
    tool_name: &'a str,
    tool_input: &'a Value,
    mcp_server: Option<&str>,
) -> Vec<CanonicalCall<'a>> {
    let as_given = || CanonicalCall {
        tool_name: Cow::Borrowed(tool_name),
        tool_input: Cow::Borrowed(tool_input),
        cwd: None,
        only_when_a_rule_decides: false,
    };
    if harness == Harness::Claude {
        return vec![as_given()];
    }
    let Some(row) = TOOLS
        .iter()
        .find(|r| r.harness == harness && r.native == tool_name)
    else {
        return match mcp_names(harness, tool_name, mcp_server) {
            Some(names) => {
                let mut calls: Vec<CanonicalCall<'a>> = names
                    .into_iter()
                    .map(|name| CanonicalCall {
                        tool_name: Cow::Owned(name),
                        ..as_given()
                    })
                    .collect();
                // opencode's own and custom tools are named `a_b` too. First: a deny written
                // for the native name then gives its own reason over a default deny.
                if harness == Harness::Opencode {
                    calls.insert(
                        0,
                        CanonicalCall {
                            only_when_a_rule_decides: true,
                            ..as_given()
                        },
                    );
                }
                calls
            }
            None => vec![as_given()],
        };
    };
    let cwd = row
        .cwd_field
        .and_then(|f| tool_input.get(f))
        .and_then(Value::as_str)
        .filter(|d| !d.is_empty())
        .map(String::from);
    let call = |tool_name: &'static str, tool_input: Cow<'a, Value>| CanonicalCall {
        tool_name: Cow::Borrowed(tool_name),
        tool_input,
        cwd: cwd.clone(),
        only_when_a_rule_decides: false,
    };
    match row.shape {
        Shape::Fields(renames) => vec![call(row.canonical, renamed(tool_input, renames))],
        Shape::PatchTargets(field) => {
            let patch = tool_input.get(field).and_then(Value::as_str).unwrap_or("");
            let targets = patch_targets(patch);
            if targets.is_empty() {
                // A patch naming no file still goes through the policy as an edit of nothing:
                // a rule on the tool itself (`Edit`) applies, a path rule cannot.
                return vec![call(row.canonical, Cow::Borrowed(tool_input))];
            }
            targets
                .into_iter()
                .map(|(tool, path)| {
                    let mut input = Map::new();
                    input.insert("file_path".into(), Value::String(path));
                    call(tool, Cow::Owned(Value::Object(input)))
                })
                .collect()
        }
        Shape::ShellWithPatches(field) => {
            let command = tool_input.get(field).and_then(Value::as_str).unwrap_or("");
            let mut calls = vec![call(row.canonical, Cow::Borrowed(tool_input))];
            calls.extend(patch_targets(command).into_iter().map(|(tool, path)| {
                let mut input = Map::new();
                input.insert("file_path".into(), Value::String(path));
                call(tool, Cow::Owned(Value::Object(input)))
            }));
            calls
        }
        Shape::ReadsPathsIn(fields) => {
            let mut calls = vec![call(row.canonical, Cow::Borrowed(tool_input))];
            for field in fields {
                let entries = tool_input.get(*field).and_then(Value::as_array);
                for path in entries.into_iter().flatten().filter_map(Value::as_str) {
                    if path.is_empty() || path.contains(['*', '?', '[', '{']) {
                        continue;
                    }
                    let mut input = Map::new();
                    input.insert("file_path".into(), Value::String(path.to_string()));
                    calls.push(call("Read", Cow::Owned(Value::Object(input))));
                }
            }
            calls
        }
        Shape::UrlsIn(field) => {
            let text = tool_input.get(field).and_then(Value::as_str).unwrap_or("");
            let urls = urls_in(text);
            if urls.is_empty() {
                return vec![call(row.canonical, Cow::Borrowed(tool_input))];
            }
            urls.into_iter()
                .map(|url| {
                    let mut input = Map::new();
                    input.insert("url".into(), Value::String(url));
                    call(row.canonical, Cow::Owned(Value::Object(input)))
                })
                .collect()
        }
    }
}

/// Why `harness` itself makes a call unsafe to leave to the policy, if it does: a deny that
/// holds whatever the policy says.
///
/// Codex CLI: its `write_stdin` tool sends input to a command still running from an earlier
/// `exec_command` and fires no hook (measured on 0.169.0). A shell reading its script from the
/// terminal, or an interpreter started with no operand (`bash`, `python3`, `psql`), would run
/// whatever the model types into it next, unguarded; so starting one is denied. Given a script,
/// a `-c`, a redirection, a here-document or a pipe, it reads no terminal and is decided as
/// usual.
pub fn harness_refusal(harness: Harness, tool_name: &str, tool_input: &Value) -> Option<String> {
    if harness != Harness::Codex || tool_name != "Bash" {
        return None;
    }
    let command = tool_input.get("command").and_then(Value::as_str)?;
    let programs = crate::shell::terminal_interpreters(command);
    let first = programs.first()?;
    Some(format!(
        "`{first}` would read commands from a terminal, and Codex's write_stdin tool sends a \
         running command input that no hook sees: start it with a script, `-c`, a \
         here-document or a pipe instead"
    ))
}

/// `input` with the `renames` applied (a native field replaces any canonical field of the same
/// name already there: the harness reads the native one).
fn renamed<'a>(input: &'a Value, renames: &[(&str, &str)]) -> Cow<'a, Value> {
    let Value::Object(map) = input else {
        return Cow::Borrowed(input);
    };
    if renames.is_empty() || !renames.iter().any(|(native, _)| map.contains_key(*native)) {
        return Cow::Borrowed(input);
    }
    let mut out = map.clone();
    for (native, canonical) in renames {
        if let Some(value) = out.remove(*native) {
            out.insert((*canonical).to_string(), value);
        }
    }
    Cow::Owned(Value::Object(out))
}

/// The canonical MCP names a harness's MCP tool name may stand for, or `None` if it is not an
/// MCP name in that harness's spelling.
///
/// Gemini spells `mcp_<server>_<tool>`, opencode `<server>_<tool>`; both are ambiguous when a
/// server name holds `_`. Given the server, the split is exact; without it every split is a
/// candidate, and each is decided (the strictest wins): a deny on any reading of the name
/// applies, so no underscore in a server name can dodge one.
fn mcp_names(harness: Harness, tool_name: &str, server: Option<&str>) -> Option<Vec<String>> {
    let rest = match harness {
        Harness::Claude | Harness::Codex => return None,
        Harness::Gemini => tool_name.strip_prefix("mcp_")?,
        Harness::Opencode => tool_name,
    };
    if let Some(server) = server.filter(|s| !s.is_empty())
        && let Some(tool) = rest
            .strip_prefix(server)
            .and_then(|t| t.strip_prefix('_'))
            .filter(|t| !t.is_empty())
    {
        return Some(vec![format!("mcp__{server}__{tool}")]);
    }
    let names: Vec<String> = rest
        .match_indices('_')
        .map(|(i, _)| (&rest[..i], &rest[i + 1..]))
        .filter(|(server, tool)| !server.is_empty() && !tool.is_empty())
        .map(|(server, tool)| format!("mcp__{server}__{tool}"))
        .collect();
    (!names.is_empty()).then_some(names)
}

/// The files a patch in Codex's `apply_patch` format touches, each with the canonical tool it
/// amounts to: `*** Add File: p` writes `p`, `*** Update File: p`, `*** Delete File: p` and
/// `*** Move to: p` edit it. Paths are as written (relative to the call's directory unless
/// absolute), trimmed of surrounding blanks.
pub fn patch_targets(patch: &str) -> Vec<(&'static str, String)> {
    const HEADERS: [(&str, &str); 4] = [
        ("*** Add File:", "Write"),
        ("*** Update File:", "Edit"),
        ("*** Delete File:", "Edit"),
        ("*** Move to:", "Edit"),
    ];
    let mut targets: Vec<(&'static str, String)> = Vec::new();
    for line in patch.lines() {
        // Leading blanks are tolerated: a lenient patch applier may accept them too.
        let line = line.trim_start();
        for (header, tool) in HEADERS {
            if let Some(path) = line.strip_prefix(header) {
                let path = path.trim();
                if !path.is_empty() && !targets.iter().any(|(t, p)| *t == tool && p == path) {
                    targets.push((tool, path.to_string()));
                }
            }
        }
    }
    targets
}

/// The URLs in free text: every `http://` or `https://` (any letter case) run up to the next
/// blank, and the same run without trailing punctuation when it ends in some (a tool may strip
/// it, or not; both are decided).
pub fn urls_in(text: &str) -> Vec<String> {
    let lower = text.to_ascii_lowercase();
    let mut urls: Vec<String> = Vec::new();
    let mut push = |url: &str| {
        if !url.is_empty() && !urls.iter().any(|u| u == url) {
            urls.push(url.to_string());
        }
    };
    let mut from = 0;
    while let Some(found) = lower[from..]
        .find("http")
        .map(|i| from + i)
        .filter(|_| from < lower.len())
    {
        let tail = &lower[found..];
        let scheme = ["https://", "http://"]
            .into_iter()
            .find(|s| tail.starts_with(s));
        let Some(scheme) = scheme else {
            from = found + 4;
            continue;
        };
        let end = text[found..]
            .find(|c: char| c.is_whitespace())
            .map_or(text.len(), |i| found + i);
        let url = &text[found..end];
        if url.len() > scheme.len() {
            push(url);
            push(url.trim_end_matches(|c: char| ".,;:!?)]}>'\"`".contains(c)));
        }
        from = end.max(found + scheme.len());
    }
    urls
}

/// The outcome of a call that stands for several canonical calls: the strictest decision, where
/// a part left to the harness (`defer`) is stricter than a part the allow entries cover — a
/// call is only as covered as its least covered part. Its reason, deciding rule and matched
/// rules are the deciding part's (matched: every part's, deduplicated).
pub fn combine(mut outcomes: Vec<Outcome>) -> Option<Outcome> {
    let rank = |d: Decision| match d {
        Decision::Allow => 0,
        Decision::Defer => 1,
        Decision::Ask => 2,
        Decision::Deny => 3,
    };
    let strictest = outcomes
        .iter()
        .enumerate()
        .max_by_key(|(i, o)| (rank(o.decision), std::cmp::Reverse(*i)))
        .map(|(i, _)| i)?;
    let mut matched: Vec<String> = Vec::new();
    for outcome in &outcomes {
        for id in &outcome.matched {
            if !matched.contains(id) {
                matched.push(id.clone());
            }
        }
    }
    let mut out = outcomes.swap_remove(strictest);
    out.matched = matched;
    Some(out)
}

#[cfg(test)]
mod tests;
