//! # animus engine
//!
//! The decision core of `animus-hook`, and nothing else:
//!
//! - [`policy`]: the compiled policy model ([`HookPolicy`], [`HookPolicyRule`],
//!   [`InputMatcher`], [`Decision`]) exactly as it appears in `animus-policy.json`
//!   (schema `schemas/hook-policy.v1.json`).
//! - [`semantics`]: the one statement of what a rule match means and how matched rules fold
//!   into an outcome. Every evaluator calls into it; nothing re-implements the fold.
//! - [`reference`]: a deliberately simple evaluator (one `regex::Regex` per matcher, a linear
//!   scan). It is the oracle the automaton engine is tested against.
//! - [`shell`]: a Bash command as the shell would run it: a bounded recursive-descent parser
//!   and the normalised *segments* (simple commands) that `Bash(…)` entries are matched
//!   against — deny and ask on any segment, allow only when every segment is covered.
//! - [`sidecar`]: the binary file the compiler writes beside `animus-policy.json` — its
//!   format, writer and verifying loader.
//! - [`compiled`]: [`CompiledPolicy`], the evaluator the hook uses: it decides from the mapped
//!   sidecar with precompiled DFAs and a literal index, compiling no regex.
//!
//! ## Semantics in one paragraph
//!
//! A rule matches a call when its `events` list is empty or contains the event, one of its
//! `tools` globs matches the tool name as a whole (`*` = any run of characters, case-sensitive;
//! an empty list matches every tool), and **every** input matcher matches. An input matcher's
//! `field` is a dot path into `tool_input`; a string is searched with the regex (unanchored); a
//! number or boolean is matched on its JSON text; an array matches if any element matches; a
//! missing field, `null` or an object never matches. The outcome is the most restrictive
//! decision (`deny > ask > allow > defer`) among matched rules whose decision is not `defer`,
//! else the policy's `default_decision`. A matched `defer` rule never beats the default.
//!
//! ## Regex flavour
//!
//! Rust `regex` syntax over the UTF-8 text, case-sensitive, with `.` **matching newlines**
//! (as if every pattern started with `(?s)`). Commands are multi-line (`deploy \`, newline,
//! `--env prod`); a deny written with `.*` must not be escaped by a line continuation. Write
//! `[^\n]` where a pattern must stay on one line.

pub mod compiled;
pub mod guard;
pub mod harness;
pub(crate) mod json;
pub mod ownership;
pub mod paths;
pub mod pattern_error;
pub mod policy;
pub mod readonly;
#[cfg(feature = "reference")]
pub mod reference;
pub mod semantics;
pub mod session;
pub mod sha256;
pub mod shell;
pub mod sidecar;
pub mod web;

#[cfg(test)]
mod test_tree;

pub use compiled::CompiledPolicy;

pub use paths::Places;
pub use policy::{Decision, GATE_EVENTS, HookPolicy, HookPolicyRule, InputMatcher, PolicyError};
pub use semantics::{Call, Outcome};
