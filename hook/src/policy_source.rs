//! Loading a compiled policy for deciding: the sidecar fast path, or — for `check` and `demo`
//! only, when no sidecar sits beside the JSON — the JSON compiled in-process by the reference
//! evaluator (correct, slower, and said so). The hook itself
//! ([`gate::policy_source::load_for_hook`]) denies without a sidecar.

use std::path::{Path, PathBuf};

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

/// Why a compiled policy cannot decide. Each names the file, never its content.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    /// The sidecar exists but is stale, truncated, corrupt or of another version.
    #[error("policy `{}` cannot be used: {reason}", path.display())]
    Unusable { path: PathBuf, reason: LoadError },
    #[error("cannot read policy `{}`: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("policy `{}` is not UTF-8", path.display())]
    NotUtf8 { path: PathBuf },
    #[error("invalid policy `{}`: {reason}", path.display())]
    Invalid {
        path: PathBuf,
        reason: engine::policy::PolicyError,
    },
    /// The reference evaluator refused the policy's rules.
    #[error("invalid policy: {0}")]
    Evaluator(String),
    /// The sidecar's maps changed while deciding (gate's error).
    #[error(transparent)]
    Decide(#[from] gate::policy_source::HookPolicyError),
}

/// The JSON policy at `path`, parsed, and its bytes (for a digest).
pub fn read_policy_json(path: &Path) -> Result<(HookPolicy, Vec<u8>), PolicyError> {
    let bytes = std::fs::read(path).map_err(|source| PolicyError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let text = std::str::from_utf8(&bytes).map_err(|_| PolicyError::NotUtf8 {
        path: path.to_path_buf(),
    })?;
    let policy = HookPolicy::from_json(text).map_err(|reason| PolicyError::Invalid {
        path: path.to_path_buf(),
        reason,
    })?;
    Ok((policy, bytes))
}

impl LoadedPolicy {
    /// Load the policy at `path`. A sidecar that exists but is stale, truncated, corrupt or of
    /// another version is an error (the hook denies); only a missing sidecar falls back to
    /// in-process compilation.
    pub fn load(path: &Path) -> Result<LoadedPolicy, PolicyError> {
        match CompiledPolicy::load(path) {
            Ok(compiled) => Ok(LoadedPolicy::Compiled(Box::new(compiled))),
            Err(LoadError::SidecarMissing { .. }) => Self::load_without_sidecar(path),
            Err(reason) => Err(PolicyError::Unusable {
                path: path.to_path_buf(),
                reason,
            }),
        }
    }

    /// Parse the JSON policy and decide with the reference evaluator.
    pub fn load_without_sidecar(path: &Path) -> Result<LoadedPolicy, PolicyError> {
        let (policy, bytes) = read_policy_json(path)?;
        Ok(LoadedPolicy::Reference {
            policy,
            digest: format!("sha256:{}", hex(&sha256(&bytes))),
        })
    }

    /// Decide one call.
    pub fn decide(&self, call: Call<'_>) -> Result<Outcome, PolicyError> {
        match self {
            LoadedPolicy::Compiled(compiled) => decide(compiled, call).map_err(PolicyError::Decide),
            LoadedPolicy::Reference { policy, .. } => {
                let evaluator = ReferenceEvaluator::new(policy)
                    .map_err(|e| PolicyError::Evaluator(e.to_string()))?;
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
