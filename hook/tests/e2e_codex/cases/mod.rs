//! The Codex end-to-end cases, by theme. Each is a plain `fn()` listed in `tests/e2e_codex.rs`.

pub mod edits;
pub mod faults;
pub mod installed;
pub mod mcp;
pub mod mock_wire;
pub mod recording;
pub mod shell;
pub mod wiring;
