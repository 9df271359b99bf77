//! The Claude oracle: what Claude Code's OWN permission engine decides — no hook at all — for
//! scripted tool calls under native `permissions` settings, recorded in
//! `corpus/claude-oracle/table.json` so other tests can check the hook is never looser.
//!
//! Each scenario runs the real CLI (2.1.328, headless `-p`, offline against the e2e suite's mock
//! Messages API) once, in a throwaway HOME and project holding the scenario's fixture files,
//! with `--settings <file>` holding only `{"permissions": {allow, ask, deny}}`. The mock model
//! makes the scenario's calls one turn after another, and each `tool_result` the CLI sends back
//! is classified (see [`classify`]):
//! - **denied**: a deny rule refused it (one of the deny messages below);
//! - **asked**: the CLI needs approval, which nobody can give in `-p` (one of the ask messages);
//! - **ran**: the tool ran, shown by evidence of the tool itself — the fixture's marker in what
//!   a Read returned, the edit or write on disk, the MCP server's answer, …
//!
//! Anything else fails the run: a call that neither ran nor was refused by the permission
//! engine (a validation error, say) proves nothing and must be fixed in the scenario.
//!
//! # Modes
//!
//! - `ANIMUS_ORACLE_WRITE=1 cargo test -p animus-hook --test claude_oracle`: run every scenario
//!   below and rewrite the table.
//! - Default (CI): replay the stored [`SAMPLE`] scenarios from the table itself and assert the
//!   CLI still decides every call as recorded (and refuses with the same message); check the
//!   whole table is well formed. Without the CLI the live test prints `SKIPPED: …` and passes,
//!   unless `CI` is set (as in `tests/e2e_claude.rs`).
//!
//! # What 2.1.328 answers in `-p` mode (measured)
//!
//! Denied (all `is_error`):
//! - `<tool_use_error>File is in a directory that is denied by your permission settings.</…>`:
//!   Read, Edit, Write whose path (as given, `..` resolved) a deny rule matches — checked while
//!   validating the input, before the permission check proper;
//! - `<tool_use_error>File is covered by a Read deny rule in your permission settings and cannot
//!   be edited.</…>`: Edit of a file a Read deny covers;
//! - `Permission to read <path> has been denied.` (a Read through a symlink to a denied file,
//!   Glob/Grep on a denied path), `Permission to edit <path> has been denied.` (NotebookEdit),
//!   `Permission to use Bash with command <command> has been denied.` (the command, or for a
//!   pipeline only the denied stage), `WebFetch denied access to domain:<host>.`,
//!   `Skill execution blocked by permission rules`,
//!   `Agent type '<type>' has been denied by permission rule 'Agent(<type>)' from flagSettings.`;
//! - `<tool_use_error>Error: No such tool available: <Tool>…`: a deny of a whole tool (`Bash`,
//!   `Read(*)`, `mcp__server`, `mcp__server__*`, an exact MCP tool) removes it from the session,
//!   and a call to it is answered like one to a tool that does not exist (`MultiEdit`,
//!   `TodoRead`), which the table records as denied too.
//!
//! Asked (all `is_error`): `Claude requested permissions to <read from|write to|use> <…>, but you
//! haven't granted it yet.` (an ask rule, or no rule outside what runs unasked); for Bash also
//! `This command requires approval`, `<program> in '<path>' needs approval. …`, `Output
//! redirection to '<path>' needs approval. …`, `<A nested command|Quoted text|…> in this command
//! can't be checked before it runs`; for a skill the CLI would ask about, `Execute skill: <name>`.
//!
//! Ran: the tool's own output — `1\t<file content>` (Read), `The file <path> has been updated
//! successfully.` (Edit), `File created successfully at: <path> …` (Write), `Updated cell …`
//! (NotebookEdit), a file list / `No files found` (Glob, Grep), the command's output, `(Bash
//! completed with no output)` or `Exit code <n>\n…` (Bash), `Launching skill: <name>`, `Async
//! agent launched successfully. …`, `echo: …` / `shout: …` (MCP), `Web search results for query:
//! …`, and for WebFetch the offline failures below.
//!
//! # Offline specifics
//!
//! - Glob and Grep: the native build replaces them by `find`/`grep` through Bash unless they
//!   are opted in, so every run passes `--tools` with the built-in tools the table uses (which
//!   adds no permission). `TodoWrite` is opt-in the same way and is left out.
//! - WebFetch: once permission is granted, the tool first asks claude.ai whether the domain may
//!   be fetched (the "preflight"); offline that fails with `Unable to verify if domain <host> is
//!   safe to fetch. …`. It is only reached after the permission check (the same URL without an
//!   allow rule is asked, with a deny rule denied), so it counts as ran. With
//!   `"skipWebFetchPreflight": true` in the settings the fetch itself fails instead, `getaddrinfo
//!   ENOTFOUND <host>` — the same decisions, so the settings stay permissions-only. A URL with
//!   user info (`https://user@evil.com/…`) that passes the permission check is refused by the
//!   tool itself with `Invalid URL`: ran as far as permissions go (without an allow rule the
//!   same URL is asked).
//! - WebSearch is a server tool: the CLI asks the mock, which answers its final text.
//! - Agent: a subagent talks to the same mock; the script answers only the main conversation
//!   ([`Script::main_session_only`]), so a subagent ends at once.

#[allow(dead_code, unused_imports)]
#[path = "../e2e"]
mod e2e {
    pub mod common;
    pub mod driver;
    pub mod fixtures;
    pub mod mock_api;
}

mod build;
mod run;
mod scenarios;
mod scenarios_other;

use build::*;
use run::*;
use scenarios::*;
use scenarios_other::*;

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::PathBuf;
use std::process::{Command, ExitCode};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use e2e::common::read_repo_json;
use e2e::driver::{CLAUDE, CLAUDE_CODE_VERSION, Sandbox, repo_root};
use e2e::fixtures::{PROMPT, claude, owned_launch};
use e2e::mock_api::{MockApi, Script, ToolResult};
use test_support::runner::{self, Test};

/// The stored table, relative to the repository root.
const TABLE: &str = "corpus/claude-oracle/table.json";
/// The scenarios CI replays live from the stored table.
const SAMPLE: &[&str] = &["files-deny-anchored"];
/// The built-in tools every run offers (`--tools`): Glob and Grep exist only when listed.
const TOOLS: &str = "Bash,Read,Edit,Write,NotebookEdit,Glob,Grep,WebFetch,WebSearch,Skill,Agent";
/// How many recorded characters of each `tool_result`.
const MESSAGE_CHARS: usize = 160;
/// Scenarios run at once when regenerating (2-core machines).
const JOBS: usize = 2;

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Table {
    claude_version: String,
    note: String,
    scenarios: Vec<Scenario>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Permissions {
    allow: Vec<String>,
    ask: Vec<String>,
    deny: Vec<String>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Scenario {
    name: String,
    /// Where the settings file is written. A `/x` entry is anchored at its directory (measured:
    /// a `--settings` file's `/` is its own directory, not the project's), so most scenarios
    /// keep it outside both the project and HOME.
    settings_file: String,
    permissions: Permissions,
    files: BTreeMap<String, String>,
    home_files: BTreeMap<String, String>,
    symlinks: BTreeMap<String, String>,
    calls: Vec<Call>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
struct Call {
    id: String,
    tool: String,
    input: Value,
    /// `ran`, `asked` or `denied`.
    claude: String,
    /// The first [`MESSAGE_CHARS`] characters of the `tool_result`, throwaway paths respelled
    /// `{project}` / `{home}`.
    message: String,
}

fn main() -> ExitCode {
    runner::main(TESTS, skip_reason)
}

const TESTS: &[Test] = &[
    Test {
        name: "regenerate_table",
        run: regenerate_table,
        needs_cli: true,
    },
    Test {
        name: "sample_matches_table",
        run: sample_matches_table,
        needs_cli: true,
    },
    Test {
        name: "table_is_well_formed",
        run: table_is_well_formed,
        needs_cli: false,
    },
];

fn writing() -> bool {
    std::env::var_os("ANIMUS_ORACLE_WRITE").is_some_and(|v| v == "1")
}

/// As in `tests/e2e_claude.rs`, and regenerating without the CLI fails.
fn skip_reason() -> Result<Option<String>, test_support::pinned_cli::CliError> {
    let required = if test_support::under_ci() {
        Some("CI")
    } else if writing() {
        Some("ANIMUS_ORACLE_WRITE")
    } else {
        None
    };
    CLAUDE.skip_reason_unless_required(required)
}

// ---------------------------------------------------------------------------------------------
// The tests

fn regenerate_table() {
    if !writing() {
        println!("regenerate_table: ANIMUS_ORACLE_WRITE=1 is not set, the table is kept");
        return;
    }
    let started = Instant::now();
    // `ANIMUS_ORACLE_ONLY=<part of a name>`: run just those scenarios and print them, for
    // working on one; the table is not written.
    let only = std::env::var("ANIMUS_ORACLE_ONLY")
        .ok()
        .filter(|v| !v.is_empty());
    let scenarios: Vec<Scenario> = scenarios()
        .into_iter()
        .filter(|s| {
            only.as_ref()
                .is_none_or(|part| s.name.contains(part.as_str()))
        })
        .collect();
    let failure = "a scenario failed: the table was not written";
    let done = test_support::process::parallel(JOBS, scenarios, failure, |_, scenario| {
        let scenario_started = Instant::now();
        let recorded = record(&scenario);
        println!(
            "  {} ({} calls, {:.1}s)",
            scenario.name,
            recorded.calls.len(),
            scenario_started.elapsed().as_secs_f64()
        );
        recorded
    });
    let table = Table {
        claude_version: CLAUDE_CODE_VERSION.to_owned(),
        note: NOTE.to_owned(),
        scenarios: done,
    };
    if only.is_some() {
        for scenario in &table.scenarios {
            println!("=== {} {:?}", scenario.name, scenario.permissions);
            for call in &scenario.calls {
                println!(
                    "{:>4} {:<6} {} {}\n       {:?}",
                    call.id, call.claude, call.tool, call.input, call.message
                );
            }
        }
        return;
    }
    check_table(&table);
    let path = repo_root().join(TABLE);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(&path, serde_json::to_string_pretty(&table).unwrap() + "\n").unwrap();
    println!(
        "wrote {} ({} scenarios, {} calls) in {:.1}s",
        path.display(),
        table.scenarios.len(),
        table.scenarios.iter().map(|s| s.calls.len()).sum::<usize>(),
        started.elapsed().as_secs_f64()
    );
}

fn sample_matches_table() {
    if writing() {
        println!("sample_matches_table: the table is being regenerated");
        return;
    }
    let table = stored_table();
    let mut mismatches = Vec::new();
    for name in SAMPLE {
        let stored = table
            .scenarios
            .iter()
            .find(|s| s.name == *name)
            .unwrap_or_else(|| panic!("sample scenario {name} is not in {TABLE}"));
        let live = record(stored);
        for (want, got) in stored.calls.iter().zip(&live.calls) {
            let same_message = want.claude == "ran" || want.message == got.message;
            if want.claude != got.claude || !same_message {
                mismatches.push(format!(
                    "{name}/{} {} {}: table says {} ({:?}), the CLI now {} ({:?})",
                    want.id,
                    want.tool,
                    want.input,
                    want.claude,
                    want.message,
                    got.claude,
                    got.message
                ));
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "the CLI no longer decides as {TABLE} records (regenerate it with ANIMUS_ORACLE_WRITE=1 \
         if the CLI changed on purpose):\n{}",
        mismatches.join("\n")
    );
}

fn table_is_well_formed() {
    if writing() {
        println!(
            "table_is_well_formed: the table is being regenerated (and checked before it is written)"
        );
        return;
    }
    check_table(&stored_table());
}

fn stored_table() -> Table {
    read_repo_json(TABLE)
}

/// What any table, stored or about to be written, must hold.
fn check_table(table: &Table) {
    assert_eq!(table.claude_version, CLAUDE_CODE_VERSION);
    let mut names = std::collections::BTreeSet::new();
    let mut tools = std::collections::BTreeSet::new();
    let mut calls = 0;
    for scenario in &table.scenarios {
        assert!(
            names.insert(&scenario.name),
            "two scenarios named {}",
            scenario.name
        );
        assert!(
            !scenario.permissions.allow.is_empty(),
            "{}: every scenario has an allow entry",
            scenario.name
        );
        let mut ids = std::collections::BTreeSet::new();
        for call in &scenario.calls {
            assert!(
                ids.insert(&call.id),
                "{}: two calls {}",
                scenario.name,
                call.id
            );
            assert!(
                ["ran", "asked", "denied"].contains(&call.claude.as_str()),
                "{}/{}: {:?}",
                scenario.name,
                call.id,
                call.claude
            );
            assert!(
                !call.message.contains("/animus-e2e-"),
                "{}/{}: a throwaway path in the message: {:?}",
                scenario.name,
                call.id,
                call.message
            );
            tools.insert(tool_family(&call.tool));
            calls += 1;
        }
    }
    for name in SAMPLE {
        assert!(names.contains(&name.to_string()), "sample {name} missing");
    }
    assert!(
        calls >= 150,
        "{calls} calls: the table should hold at least 150"
    );
    assert!(
        tools.len() >= 8,
        "{tools:?}: the table should cover at least 8 tools"
    );
}

fn tool_family(tool: &str) -> &str {
    if tool.starts_with("mcp__") {
        "mcp"
    } else {
        tool
    }
}

// ---------------------------------------------------------------------------------------------
// The scenarios

const NOTE: &str = "What Claude Code's own permission engine decided (no hook) for each call, \
run headless (-p) and offline by hook/tests/claude_oracle/: one session per scenario, settings \
holding only these permissions, cwd = {project}, HOME = {home} (placeholders for the throwaway \
directories, in inputs, permission entries and symlink targets). claude: ran = the tool ran \
(evidence checked: file markers, disk, MCP log); asked = needs approval (refused in -p); denied = \
refused by a deny rule (a whole-tool deny removes the tool: 'No such tool available'). message: \
the first 160 characters of the tool_result. Every run passes --tools with the built-in tools \
used (Glob/Grep are opt-in in the native build). Offline, an allowed WebFetch fails at the \
domain preflight ('Unable to verify if domain ...'), which comes after the permission check. \
Regenerate: ANIMUS_ORACLE_WRITE=1 cargo test -p animus-hook --test claude_oracle";
