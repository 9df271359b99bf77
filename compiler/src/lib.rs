//! # animus compiler
//!
//! Everything that turns authored configuration into artifacts `animus-hook` consumes:
//!
//! - [`profile`]: load an agent profile's `tool_policy` and `hooks` from a runtime config
//!   (`agents.<id>`) or workflow YAML (`agent_profiles.<id>`), YAML or JSON, with
//!   `file:line:column` diagnostics.
//! - [`tool_policy`]: lower claude permission-syntax entries to rule parts.
//! - [`compile`]: merge kernel and author rules into one [`engine::HookPolicy`] (tighten-only).
//! - [`lower`]: lower a policy's matchers to size-bounded automata and a literal index, and
//!   encode them as the sidecar the hook decides with.
//! - [`artifact`]: atomic writes.
//!
//! ```
//! use compiler::{load_profile_str, compile_profile};
//! let yaml = r#"
//! agent_profiles:
//!   trader:
//!     tool_policy:
//!       deny: ["Bash(* --live*)"]
//! "#;
//! let profile = load_profile_str(yaml, "workflow.yaml".into(), "trader").unwrap();
//! let compiled = compile_profile(&profile).unwrap();
//! // Matched against every normalised segment of the command, as Claude reads the pattern.
//! let matcher = &compiled.policy.rules[0].input_matchers[0];
//! assert_eq!((matcher.on, matcher.pattern.as_str()), (engine::policy::MatchOn::Segment, "* --live*"));
//! ```

#![forbid(unsafe_code)]

pub mod artifact;
pub mod cases;
pub mod compile;
pub mod diagnostic;
pub mod diff;
pub mod events;
pub mod jsonc;
pub mod lint;
pub mod lower;
pub mod packs;
pub mod profile;
pub mod providers;
pub mod regex_check;
pub mod self_protection;
pub mod session;
mod suggest;
pub mod tool_policy;

pub use compile::{Compiled, compile_profile, compile_tool_policy};
pub use diagnostic::{Diagnostic, Errors, Location, Severity};
pub use profile::{
    AgentProfile, AuthorRule, Located, Meaning, Observer, ObserverAction, ToolPolicy,
    load_profile_file, load_profile_str,
};

use std::path::{Path, PathBuf};

/// Load `agent_id` from `config`, compile it and atomically write
/// `<out_dir>/animus-policy.json` and its sidecar `<out_dir>/animus-policy.sidecar`. Nothing is
/// written unless compilation (including lowering to automata) succeeds.
///
/// The sidecar is written first, the JSON second. A crash in between leaves the new sidecar
/// beside the old JSON; the sidecar's policy digest then names a JSON that is not there, so
/// the hook rejects the pair as stale (fail closed) instead of deciding with a mismatch. The
/// next successful compile repairs it.
pub fn compile_to_dir(
    config: &Path,
    agent_id: &str,
    out_dir: &Path,
) -> Result<(PathBuf, Compiled), Errors> {
    let profile = load_profile_file(config, agent_id)?;
    let compiled = compile_profile(&profile)?;
    // The policy as written: the built-in self-protection rules ahead of the profile's.
    write_protected(out_dir, &compiled, &[], &[])
}

/// Lower `compiled` to its sidecar and atomically write both artifacts into `out_dir` (created
/// if missing). Returns the JSON's path. Nothing is written unless lowering succeeds.
///
/// Order: the sidecar, then the JSON, each written, synced and renamed into place; a crash in
/// between leaves the new sidecar beside the old JSON, whose digest differs from the recorded
/// one, so the hook rejects the pair as stale (fail closed) until the next successful compile.
/// Last comes `animus-policy.stamp` ([`artifact::write_stamp`]), which lets the hook skip
/// hashing both files while they keep the identity they had when the compiler re-read them; a
/// file system whose clock does not tick within [`artifact::STAMP_CLOCK_WAIT`] gets no stamp,
/// and the hook then hashes both files on every load (correct, slower).
///
/// Every policy written carries the built-in self-protection rules ([`self_protection`]) for
/// `out_dir`, the state directory, the hook binaries and claude's settings, ahead of the
/// profile's own: no profile can remove them.
pub fn write_policy_artifacts(out_dir: &Path, compiled: &Compiled) -> Result<PathBuf, Errors> {
    write_policy_artifacts_protecting(out_dir, compiled, &[])
}

/// [`write_policy_artifacts`], also protecting `hook_binaries` (the binary `inject` wires).
pub fn write_policy_artifacts_protecting(
    out_dir: &Path,
    compiled: &Compiled,
    hook_binaries: &[&Path],
) -> Result<PathBuf, Errors> {
    write_protected(out_dir, compiled, hook_binaries, &[]).map(|(path, _)| path)
}

/// [`write_policy_artifacts_protecting`], also protecting the places `extra` names (the
/// guard's own wiring outside the usual places: an installed plugin's directory).
pub fn write_policy_artifacts_guarding(
    out_dir: &Path,
    compiled: &Compiled,
    hook_binaries: &[&Path],
    extra: &[self_protection::Protected],
) -> Result<PathBuf, Errors> {
    write_protected(out_dir, compiled, hook_binaries, extra).map(|(path, _)| path)
}

/// The two policy files [`write_policy_artifacts_protecting`] would write into `out_dir`, made
/// without writing them (`out_dir` is created, to name it by its canonical path): the JSON and
/// the sidecar. `install` and `doctor` compare them with the files in place, so an unchanged
/// policy is not rewritten (rewriting would change its stamp, and so every gate's pin) and a
/// policy whose sources changed since it was written is found.
pub fn render_policy_artifacts(
    out_dir: &Path,
    compiled: &Compiled,
    hook_binaries: &[&Path],
    extra: &[self_protection::Protected],
) -> Result<PolicyArtifacts, Errors> {
    render_protected(out_dir, compiled, hook_binaries, extra).map(|(artifacts, _)| artifacts)
}

/// The bytes of a compiled policy's two files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyArtifacts {
    /// `animus-policy.json`.
    pub json: Vec<u8>,
    /// `animus-policy.sidecar`.
    pub sidecar: Vec<u8>,
}

/// `cannot <what> `<path>`: <e>` as the one error.
fn io_error(what: &str, path: &Path, e: std::io::Error) -> Errors {
    Errors::one(Diagnostic::error(
        None,
        format!("cannot {what} `{}`: {e}", path.display()),
    ))
}

/// Write `compiled` with the built-in rules; returns the JSON's path and the policy written.
fn write_protected(
    out_dir: &Path,
    compiled: &Compiled,
    hook_binaries: &[&Path],
    extra: &[self_protection::Protected],
) -> Result<(PathBuf, Compiled), Errors> {
    let (PolicyArtifacts { json, sidecar }, written) =
        render_protected(out_dir, compiled, hook_binaries, extra)?;
    let path = out_dir.join(artifact::POLICY_FILE_NAME);
    // Sidecar first, JSON second: a crash between the two leaves the new sidecar beside the
    // old JSON, a pair the hook refuses (policy digest mismatch) until the next compile. The
    // stamp comes last; without it the hook hashes both files on every load.
    let sidecar_path = engine::sidecar::sidecar_path_for(&path);
    artifact::write_atomic(&sidecar_path, &sidecar)
        .map_err(|e| io_error("write", &sidecar_path, e))?;
    artifact::write_atomic(&path, &json).map_err(|e| io_error("write", &path, e))?;
    artifact::write_stamp(&path, &json, &sidecar_path, &sidecar)
        .map_err(|e| io_error("write", &engine::sidecar::stamp_path_for(&path), e))?;
    Ok((path, written))
}

/// The policy `compiled` with the built-in rules for `out_dir`, as the bytes of its two files.
fn render_protected(
    out_dir: &Path,
    compiled: &Compiled,
    hook_binaries: &[&Path],
    extra: &[self_protection::Protected],
) -> Result<(PolicyArtifacts, Compiled), Errors> {
    // Created first: the protected directory is named by its canonical path.
    std::fs::create_dir_all(out_dir)
        .map_err(|e| io_error("create output directory", out_dir, e))?;
    let mut protected =
        self_protection::protected(out_dir, hook_binaries, &|name| std::env::var_os(name));
    for place in extra {
        if !protected.iter().any(|p| p.glob == place.glob) {
            protected.push(place.clone());
        }
    }
    let (mut rules, mut locations): (Vec<_>, Vec<_>) =
        self_protection::rules(&protected).into_iter().unzip();
    rules.extend(compiled.policy.rules.iter().cloned());
    locations.extend(compiled.locations.iter().cloned());
    let written = Compiled {
        policy: engine::HookPolicy {
            rules,
            ..compiled.policy.clone()
        },
        warnings: compiled.warnings.clone(),
        locations,
    };
    let policy = &written.policy;
    let json = policy.to_json();
    // Lower first: a policy that cannot be lowered writes nothing at all.
    let image = written.lower()?;
    let sidecar = image.encode(json.as_bytes()).map_err(|e| {
        Errors::one(Diagnostic::error(
            None,
            format!("cannot encode the sidecar: {e}"),
        ))
    })?;
    Ok((
        PolicyArtifacts {
            json: json.into_bytes(),
            sidecar,
        },
        written,
    ))
}
