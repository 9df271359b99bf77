//! The end-to-end harness: a mock Messages API and a driver for the real Claude Code CLI, then
//! the cases (`cases/`) and what they share (`fixtures`). The runner, the stdio MCP server and
//! the loopback HTTP core are `animus-test-support`'s. The list of tests and `main` are in
//! `tests/e2e_claude.rs`.

pub mod cases;
pub mod common;
pub mod driver;
pub mod fixtures;
pub mod mock_api;
