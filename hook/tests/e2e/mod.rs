//! The end-to-end harness: a mock Messages API, a driver for the real Claude Code CLI, a stdio
//! MCP server and a small runner, then the cases (`cases/`) and what they share (`fixtures`).
//! The list of tests and `main` are in `tests/e2e_claude.rs`.

pub mod cases;
pub mod common;
pub mod driver;
pub mod fixtures;
pub mod http;
pub mod mcp_echo;
pub mod mock_api;
pub mod runner;
