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

#[allow(dead_code, unused_imports)]
#[path = "../e2e"]
mod e2e {
    pub mod common;
    pub mod driver;
    pub mod fixtures;
    pub mod mock_api;
}

mod lists;
mod readonly;
mod stub;

use stub::*;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use e2e::common::{animus_hook, repo_root, run_bounded};
use e2e::driver::{CLAUDE, CLAUDE_CODE_VERSION, Sandbox};
use e2e::fixtures::{PROMPT, claude, launch};
use e2e::mock_api::{Block, MockApi, Script};
use test_support::runner::{self, Test};

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
fn skip_reason() -> Result<Option<String>, test_support::pinned_cli::CliError> {
    let required = if test_support::under_ci() {
        Some("CI")
    } else if readonly::writing() {
        Some("ANIMUS_READONLY_WRITE")
    } else {
        None
    };
    CLAUDE.skip_reason_unless_required(required)
}
