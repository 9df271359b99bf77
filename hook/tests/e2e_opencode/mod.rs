//! The opencode end-to-end harness: a mock OpenAI-compatible API, a driver for the real
//! opencode CLI, and the cases. The Claude suite's runner, stdio MCP server and common helpers are shared
//! (read-only). The list of tests and `main` are in `tests/e2e_opencode.rs`.

pub mod cases;
#[path = "../e2e/common.rs"]
pub mod common;
pub mod driver;
pub mod fail_closed;
pub mod fixtures;
#[path = "../e2e/http.rs"]
pub mod http;
pub mod installed;
#[path = "../e2e/mcp_echo.rs"]
pub mod mcp_echo;
pub mod mock;
#[path = "../e2e/runner.rs"]
pub mod runner;
