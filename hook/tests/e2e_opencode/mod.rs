//! The opencode end-to-end harness: a mock OpenAI-compatible API, a driver for the real
//! opencode CLI, and the cases. The Claude suite's common helpers are shared, and the runner, the
//! stdio MCP server and the loopback HTTP core are `animus-test-support`'s. The list of tests and
//! `main` are in `tests/e2e_opencode.rs`.

pub mod cases;
#[path = "../e2e/common.rs"]
pub mod common;
pub mod driver;
pub mod fail_closed;
pub mod fixtures;
pub mod installed;
pub mod mock;
