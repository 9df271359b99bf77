//! Loading a compiled policy for deciding: the sidecar fast path, or — for `check` and `demo`
//! only, when no sidecar sits beside the JSON — the JSON compiled in-process by the reference
//! evaluator (correct, slower, and said so). The hook itself
//! ([`gate::policy_source::load_for_hook`]) denies without a sidecar.

use std::path::Path;

use engine::reference::ReferenceEvaluator;
use engine::sidecar::LoadError;
use engine::{Call, CompiledPolicy, HookPolicy, Outcome};

use gate::policy_source::{decide, digest, evaluator};
use gate::sha256::{hex, sha256};

/// A policy ready to decide.
pub enum LoadedPolicy {
    /// The fast path: the mapped, verified sidecar.
    Compiled(Box<CompiledPolicy>),
    /// No sidecar: the JSON policy, its regexes compiled when deciding.
    Reference { policy: HookPolicy, digest: String },
}

impl LoadedPolicy {
    /// Load the policy at `path`. The error names the cause and the file, never its content.
    /// A sidecar that exists but is stale, truncated, corrupt or of another version is an
    /// error (the hook denies); only a missing sidecar falls back to in-process compilation.
    pub fn load(path: &Path) -> Result<LoadedPolicy, String> {
        match CompiledPolicy::load(path) {
            Ok(compiled) => Ok(LoadedPolicy::Compiled(Box::new(compiled))),
            Err(LoadError::SidecarMissing { .. }) => Self::load_without_sidecar(path),
            Err(e) => Err(format!("policy `{}` cannot be used: {e}", path.display())),
        }
    }

    /// Parse the JSON policy and decide with the reference evaluator.
    pub fn load_without_sidecar(path: &Path) -> Result<LoadedPolicy, String> {
        let bytes = std::fs::read(path)
            .map_err(|e| format!("cannot read policy `{}`: {e}", path.display()))?;
        let text = std::str::from_utf8(&bytes)
            .map_err(|_| format!("policy `{}` is not UTF-8", path.display()))?;
        let policy = HookPolicy::from_json(text)
            .map_err(|e| format!("invalid policy `{}`: {e}", path.display()))?;
        Ok(LoadedPolicy::Reference {
            policy,
            digest: format!("sha256:{}", hex(&sha256(&bytes))),
        })
    }

    /// Decide one call.
    pub fn decide(&self, call: Call<'_>) -> Result<Outcome, String> {
        match self {
            LoadedPolicy::Compiled(compiled) => decide(compiled, call),
            LoadedPolicy::Reference { policy, .. } => {
                let evaluator =
                    ReferenceEvaluator::new(policy).map_err(|e| format!("invalid policy: {e}"))?;
                Ok(evaluator.decide(call))
            }
        }
    }

    /// A digest of the policy used, for the event record (`<algorithm>:<hex>`).
    pub fn digest(&self) -> String {
        match self {
            LoadedPolicy::Compiled(compiled) => digest(compiled),
            LoadedPolicy::Reference { digest, .. } => digest.clone(),
        }
    }

    /// Which evaluator decided, and for the sidecar how its integrity was established (the
    /// compiler's stamp, or hashing both files), for the event record.
    pub fn evaluator(&self) -> &'static str {
        match self {
            LoadedPolicy::Compiled(compiled) => evaluator(compiled),
            LoadedPolicy::Reference { .. } => "reference (no sidecar: policy compiled in-process)",
        }
    }
}
