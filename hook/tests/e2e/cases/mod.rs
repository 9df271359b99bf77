//! The end-to-end cases, by theme. Each is a plain `fn()` listed in `tests/e2e_claude.rs`.

pub mod decisions;
pub mod fail_closed;
pub mod installed;
pub mod mock_wire;
pub mod os_boundary;
pub mod packs;
pub mod permissions;
pub mod recording;
pub mod shell;
pub mod tools;
pub mod transport;
pub mod wiring;
