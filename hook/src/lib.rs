//! The hot path of `animus-hook`, shared by its two binaries: `animus-hook` (every subcommand)
//! and `animus-hook-emit` (only `emit`, without the compiler linked in, so it starts faster).
//!
//! - [`emit`]: read the payload, decide, record, answer in the harness's protocol; fail closed.
//! - [`record`]: the per-session event log.
//! - [`policy_source`]: the compiled policy through its sidecar, or the JSON when no sidecar
//!   exists.
//! - [`payload`]: the few payload fields deciding needs.

pub mod emit;
pub mod payload;
pub mod places;
pub mod policy_source;
pub mod record;
pub mod sha256;
pub mod time;
