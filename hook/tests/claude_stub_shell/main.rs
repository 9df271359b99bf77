//! The real Claude Code CLI (2.1.328, headless `-p`, offline against the e2e suite's mock
//! Messages API) with a **stub shell**: `$SHELL` is a `bash` that records what it is handed and
//! runs nothing ([`stub::StubShell`]), so any command — `chown -R`, `rm -rf` — can be put to
//! Claude and to the guard, and a command *ran* exactly when it reached the stub (its marker is
//! in the `tool_result`, and the stub's log holds it). Refusals are classified by their
//! messages as in `tests/claude_oracle/main.rs`: asked (`… needs approval`, `Claude requested
//! permissions …`), denied (`… has been denied`, a hook's refusal).
//!
//! - `inject_never_runs_what_the_list_refuses` (issue 25 item 1, [`lists`]): for every real
//!   permission list, commands Claude refuses under the list alone do not run under the
//!   settings `animus-hook inject` writes for it.
//! - `readonly_*` (issue 25 item 3, [`readonly`]): which commands Claude runs with no rule at
//!   all, recorded in `corpus/claude-readonly/table.json`, and the guard's read-only model
//!   checked against it.
//!
//! Tests that need `../shared/corpus-real` print `SKIPPED: …` without it, and fail under `CI`;
//! the CLI's absence is handled as in `tests/e2e_claude.rs`. Run:
//! `cargo test -p animus-hook --test claude_stub_shell [name-filter]`.

#[allow(dead_code)]
#[path = "../e2e"]
mod e2e {
    pub mod common;
    pub mod driver;
    pub mod fixtures;
    pub mod http;
    pub mod mcp_echo;
    pub mod mock_api;
    pub mod runner;
}

mod lists;
mod readonly;
mod stub;

use stub::*;

use std::collections::VecDeque;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use e2e::common::{animus_hook, repo_root, run_bounded};
use e2e::driver::{CLAUDE_CODE_VERSION, Sandbox, locate_claude};
use e2e::fixtures::{PROMPT, claude, launch};
use e2e::mock_api::{Block, MockApi, Script};
use e2e::runner::{self, Test};

/// Sessions run at once (2-core machines).
const JOBS: usize = 2;
/// Deadline of one session (many calls each).
const SESSION_DEADLINE: Duration = Duration::from_secs(600);

fn main() -> ExitCode {
    runner::main(TESTS, skip_reason)
}

const TESTS: &[Test] = &[
    Test {
        name: "inject_never_runs_what_the_list_refuses",
        run: lists::inject_never_runs_what_the_list_refuses,
        needs_cli: true,
    },
    Test {
        name: "readonly_regenerate_table",
        run: readonly::regenerate_table,
        needs_cli: true,
    },
    Test {
        name: "readonly_sample_matches_table",
        run: readonly::sample_matches_table,
        needs_cli: true,
    },
    Test {
        name: "readonly_table_is_well_formed",
        run: readonly::table_is_well_formed,
        needs_cli: false,
    },
];

/// As in `tests/e2e_claude.rs`; regenerating the read-only table without the CLI fails.
fn skip_reason() -> Result<Option<String>, String> {
    match locate_claude()? {
        Some(_) => Ok(None),
        None if std::env::var_os("CI").is_some() || readonly::writing() => Err(
            "the Claude Code CLI is not installed and CI or ANIMUS_READONLY_WRITE is set: run scripts/install-claude-cli.sh first".into(),
        ),
        None => Ok(Some(
            "the Claude Code CLI is not installed (scripts/install-claude-cli.sh installs it)".into(),
        )),
    }
}

/// `../shared/corpus-real`, or `None` after printing why `test` is skipped; under `CI` its
/// absence fails the test.
fn shared_corpus(test: &str) -> Option<PathBuf> {
    let dir = repo_root().parent().unwrap().join("shared/corpus-real");
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{test}: {} does not exist, and CI is set",
        dir.display()
    );
    println!("SKIPPED: {test}: {} does not exist", dir.display());
    None
}
