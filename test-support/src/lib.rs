//! What the workspace's tests share, so each suite states its cases and not its plumbing.
//!
//! - [`shared`]: the real-world material in `../shared` (skipped with a `SKIPPED` line where it
//!   is missing, a failure under `CI`).
//! - [`runner`]: the small test runner of the suites that drive a real harness CLI (their
//!   targets have `harness = false`), with [`tests!`] to list their cases.
//! - [`pinned_cli`]: where the pinned CLI that `scripts/install-<cli>-cli.sh` put in `.cache/`
//!   lives, and whether its suite runs, skips or fails.
//! - [`http`]: the loopback HTTP/1.1 server core of the mock model APIs.
//! - [`mcp_echo`]: the stdio MCP server a suite's own binary becomes for the CLI it drives.
//! - [`scratch`]: throwaway directories, a session's sandbox (HOME, project, run dir, state
//!   dir) and the session log in the state dir.
//! - [`records`]: lookups in a session log.
//! - [`process`]: a CLI run bounded in its own process group, set-up commands that must
//!   succeed, git.
//!
//! Nothing here knows the hook: a test passes the binary it built (`CARGO_BIN_EXE_…`).

#![forbid(unsafe_code)]

pub mod http;
pub mod mcp_echo;
pub mod pinned_cli;
pub mod process;
pub mod records;
pub mod runner;
pub mod scratch;
pub mod shared;

use std::path::{Path, PathBuf};

/// The workspace root (this crate sits directly in it).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the test-support crate sits in the workspace")
        .to_path_buf()
}

/// Whether the tests run under CI (`CI` set and not empty): there a missing CLI or a missing
/// `../shared` is a broken setup and fails the test instead of skipping it.
pub fn under_ci() -> bool {
    std::env::var_os("CI").is_some_and(|value| !value.is_empty())
}

/// Fails the test, showing all of `text`, unless it contains `part` (what a command printed
/// must say).
#[track_caller]
pub fn assert_has(text: &str, part: &str) {
    assert!(text.contains(part), "expected {part:?} in:\n{text}");
}

/// Writes `contents` to `dir/name` (which must succeed) and returns that path.
#[track_caller]
pub fn write_file(dir: &Path, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, contents).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    path
}

/// Creates `dir/name` with its parents (which must succeed) and returns that path.
#[track_caller]
pub fn make_dir(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::create_dir_all(&path).unwrap_or_else(|e| panic!("mkdir {}: {e}", path.display()));
    path
}

/// Fails the test, showing all of `text`, unless it starts with `start`.
#[track_caller]
pub fn assert_starts(text: &str, start: &str) {
    assert!(
        text.starts_with(start),
        "expected {start:?} first in:\n{text}"
    );
}
