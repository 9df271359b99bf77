//! The Gemini CLI end-to-end harness: a mock Gemini API, a driver for the real CLI, then the
//! cases (`cases/`) and what they share (`fixtures`). The runner and the stdio MCP server are
//! the Claude suite's (`tests/e2e/`), reused unchanged; the list of tests and `main` are in
//! `tests/e2e_gemini.rs`.

pub mod cases;
pub mod driver;
pub mod fixtures;
pub mod mock_gemini;
