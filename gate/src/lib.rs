//! The hot path of `animus-hook`: everything `animus-hook emit` (and its twin binary
//! `animus-hook-emit`) runs on every event. It depends on the engine's search side alone (the
//! `reference` feature off) and on nothing of the compiler, so no regex is compiled and no
//! YAML parser is linked on the path the harness spawns.
//!
//! - [`emit`]: read the payload, decide, record, answer in the harness's protocol; fail closed.
//! - [`harness_call`]: a harness's call decided as the canonical calls it stands for, and the
//!   built-in refusals that keep the agent off its guard ([`guard_places`]).
//! - [`record`]: the per-session event log.
//! - [`policy_source`]: the compiled policy through its sidecar (or a deny naming the fix).
//! - [`payload`], [`places`]: the few payload fields deciding needs, and the call's places.

pub mod emit;
pub mod guard_places;
pub mod harness_call;
pub mod payload;
pub mod places;
pub mod policy_source;
pub mod record;
/// SHA-256 (the engine's; the record digests payloads with it).
pub use engine::sha256;
pub mod time;
