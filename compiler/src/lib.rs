//! # animus compiler
//!
//! Everything that turns authored configuration into artifacts `animus-hook` consumes:
//!
//! - [`profile`]: load an agent profile's `tool_policy` and `hooks` from a runtime config
//!   (`agents.<id>`) or workflow YAML (`agent_profiles.<id>`), YAML or JSON, with
//!   `file:line:column` diagnostics.
//! - [`tool_policy`]: lower claude permission-syntax entries to rule parts.
//! - [`compile`]: merge kernel and author rules into one [`engine::HookPolicy`] (tighten-only).
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
//! assert_eq!(compiled.policy.rules[0].input_matchers[0].regex, ".* --live.*");
//! ```

pub mod artifact;
pub mod compile;
pub mod diagnostic;
pub mod events;
pub mod profile;
pub mod regex_check;
pub mod tool_policy;

pub use compile::{Compiled, compile_profile, compile_tool_policy};
pub use diagnostic::{Diagnostic, Errors, Location, Severity};
pub use profile::{
    AgentProfile, AuthorRule, Located, Observer, ObserverAction, ToolPolicy, load_profile_file,
    load_profile_str,
};

use std::path::{Path, PathBuf};

/// Load `agent_id` from `config`, compile it and atomically write
/// `<out_dir>/animus-policy.json`. Nothing is written unless compilation succeeds.
pub fn compile_to_dir(
    config: &Path,
    agent_id: &str,
    out_dir: &Path,
) -> Result<(PathBuf, Compiled), Errors> {
    let profile = load_profile_file(config, agent_id)?;
    let compiled = compile_profile(&profile)?;
    let io_error = |what: &str, path: &Path, e: std::io::Error| {
        Errors::one(Diagnostic::error(
            None,
            format!("cannot {what} `{}`: {e}", path.display()),
        ))
    };
    std::fs::create_dir_all(out_dir)
        .map_err(|e| io_error("create output directory", out_dir, e))?;
    let path = out_dir.join(artifact::POLICY_FILE_NAME);
    artifact::write_atomic(&path, compiled.policy.to_json().as_bytes())
        .map_err(|e| io_error("write", &path, e))?;
    Ok((path, compiled))
}
