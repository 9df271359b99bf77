//! The library half of `animus-hook`'s CLI. The hot path (`emit`, the event log, the sidecar
//! policy) is the [`gate`] crate, re-exported here under its old paths; this crate adds what
//! only the CLI needs.
//!
//! - [`policy_source`]: for `check`, `explain` and `demo`, the compiled policy through its
//!   sidecar, or the JSON decided in-process when no sidecar exists.

#![forbid(unsafe_code)]

pub use gate::{emit, harness_call, payload, places, record, sha256, time};

pub mod policy_source;
