//! animus-hook's harness integrations: where a compiled policy meets the harnesses people run.
//!
//! The policy compiler (`compiler`) turns a profile into the policy the hook decides by; this
//! crate wires that policy into each harness and reads what users already have:
//!
//! - [`inject`]: one session, launched by a program — the hook settings (Claude Code), `-c`
//!   flags and their trust (Codex), a session home (Gemini CLI) or a plugin (opencode), and
//!   Claude's OS sandbox around the guard's files;
//! - [`inject::install`]: every session the user starts — the guard in the user's own settings
//!   of each harness, taken away again exactly by `uninstall`;
//! - [`import`]: a user's Claude Code settings (permission lists) as a profile that keeps
//!   Claude's meaning.
//!
//! The data path, in the order a call meets it: `engine` (decides), `gate` (the hook process),
//! `compiler` (profiles to policies), `integrations` (policies to harnesses), `hook` (the CLI).

#![forbid(unsafe_code)]

pub mod import;
pub mod inject;
