//! The Gemini end-to-end cases, by theme. Each is a plain `fn()` listed in
//! `tests/e2e_gemini.rs`.

pub mod fail_closed;
pub mod installed;
pub mod mock_wire;
pub mod recording;
pub mod settings;
pub mod shell;
pub mod tools;
