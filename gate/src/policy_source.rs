//! The hook's policy: the mapped, verified sidecar or nothing. The in-process fallback of
//! `check` and `demo` (the JSON decided by the reference evaluator) lives in the CLI crate:
//! this crate depends on the engine without its `reference` feature, so the `regex` crate
//! cannot reach `animus-hook-emit`.

use std::path::{Path, PathBuf};

use engine::sidecar::LoadError;
use engine::{Call, CompiledPolicy, Outcome};

/// Why the hook cannot use a policy: each names the file (never its content), and on the
/// hook's path each is a deny.
#[derive(Debug, thiserror::Error)]
pub enum HookPolicyError {
    /// No sidecar beside the JSON policy.
    #[error(
        "policy `{}` has no sidecar beside it (`{sidecar}`); run `animus-hook compile` to write \
         the pair",
        .path.display()
    )]
    SidecarMissing {
        /// The JSON policy.
        path: PathBuf,
        /// The sidecar's file name.
        sidecar: String,
    },
    /// The files are not the ones `--policy-digest` pins.
    #[error(transparent)]
    PinMismatch(LoadError),
    /// A sidecar that is stale, truncated, corrupt or of another version.
    #[error("policy `{}` cannot be used: {source}", .path.display())]
    Unusable {
        /// The JSON policy.
        path: PathBuf,
        /// Why.
        source: LoadError,
    },
    /// A file of the policy was rewritten under its map while deciding.
    #[error("policy cannot be used: {0}")]
    ChangedWhileDeciding(LoadError),
}

/// Load the policy at `path` for the hook: the sidecar or nothing. A missing sidecar is an
/// error naming the fix; compiling the JSON in-process would cost every call milliseconds
/// (seconds at 100k rules), so the hook's hot path never does it. With `pin` (a gate's
/// `--policy-digest`), files that are not the pinned ones are refused
/// ([`CompiledPolicy::load_pinned`]).
pub fn load_for_hook(
    path: &Path,
    pin: Option<&[u8; 32]>,
) -> Result<CompiledPolicy, HookPolicyError> {
    match CompiledPolicy::load_pinned(path, pin) {
        Ok(compiled) => Ok(compiled),
        Err(LoadError::SidecarMissing { .. }) => Err(HookPolicyError::SidecarMissing {
            path: path.to_path_buf(),
            sidecar: engine::sidecar::sidecar_path_for(path)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        }),
        Err(e @ LoadError::PinMismatch { .. }) => Err(HookPolicyError::PinMismatch(e)),
        Err(source) => Err(HookPolicyError::Unusable {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Decide one call with a compiled policy; a decision read through maps of files rewritten
/// meanwhile is not the policy's, and is an error.
pub fn decide(compiled: &CompiledPolicy, call: Call<'_>) -> Result<Outcome, HookPolicyError> {
    let outcome = compiled.decide(call);
    compiled
        .unchanged_since_load()
        .map_err(HookPolicyError::ChangedWhileDeciding)?;
    Ok(outcome)
}

/// The compiled policy's digest for the event record (`xxh3-128:<hex>`).
pub fn digest(compiled: &CompiledPolicy) -> String {
    format!("xxh3-128:{}", compiled.policy_digest())
}

/// How the sidecar's integrity was established, for the event record.
pub fn evaluator(compiled: &CompiledPolicy) -> &'static str {
    match compiled.verification() {
        engine::sidecar::Verification::Stamp => "sidecar (verified by stamp)",
        engine::sidecar::Verification::Digest => "sidecar (verified by digest)",
    }
}
