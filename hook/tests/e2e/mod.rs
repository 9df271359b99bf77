//! The end-to-end harness: a mock Messages API, a driver for the real Claude Code CLI, a stdio
//! MCP server and a small runner. The tests themselves are in `tests/e2e_claude.rs`.

pub mod driver;
pub mod mcp_echo;
pub mod mock_api;
pub mod runner;
