//! What the inject tests share: a throwaway setup with a stand-in hook binary and the trader
//! profile.
#![allow(dead_code)]

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use test_support::make_dir;

use integrations::inject::{InjectRequest, Injection, inject_harness_hooks_with_env};

use super::common;

pub fn temp_dir(name: &str) -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix(&format!("animus-inject-{name}-"))
        .tempdir()
        .unwrap()
}

pub fn fake_hook(dir: &Path) -> PathBuf {
    let path = dir.join("bin/animus-hook");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, fake_hook_script("animus-hook")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// A stand-in for the hook that answers `--version` as the real one does.
pub fn fake_hook_script(name: &str) -> String {
    format!(
        "#!/bin/sh\n[ \"$1\" = --version ] && echo \"{name} {}\"\nexit 0\n",
        env!("CARGO_PKG_VERSION")
    )
}

pub fn trader() -> compiler::AgentProfile {
    compiler::load_profile_file(
        &common::repo_root().join("corpus/profiles/trader.yaml"),
        "trader",
    )
    .unwrap()
}

pub fn no_env(_: &str) -> Option<OsString> {
    None
}

/// The strings of the JSON array `v`.
pub fn strs(v: &serde_json::Value) -> Vec<&str> {
    let items = v.as_array().unwrap_or_else(|| panic!("not an array: {v}"));
    items.iter().map(|x| x.as_str().unwrap()).collect()
}

pub fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

pub struct Setup {
    /// Removed when the test ends, passed or failed.
    pub _temp: tempfile::TempDir,
    pub dir: PathBuf,
    pub session_dir: PathBuf,
    pub project: PathBuf,
    pub hook: PathBuf,
    pub profile: compiler::AgentProfile,
}

impl Setup {
    pub fn new(name: &str) -> Setup {
        let temp = temp_dir(name);
        let dir = temp.path().to_path_buf();
        let project = make_dir(&dir, "project");
        Setup {
            _temp: temp,
            hook: fake_hook(&dir),
            session_dir: dir.join("session"),
            project,
            dir,
            profile: trader(),
        }
    }

    pub fn request<'a>(
        &'a self,
        session: &'a str,
        launch: &'a [String],
        prompt: Option<usize>,
    ) -> InjectRequest<'a> {
        InjectRequest {
            provider: "claude",
            session_dir: &self.session_dir,
            session_id: session,
            project_root: &self.project,
            profile: &self.profile,
            launch_args: launch,
            prompt_index: prompt,
            hook_binary: Some(&self.hook),
            sandbox: false,
        }
    }

    /// Injects for `provider` (session `s`, the prompt at index 1 of `launch`) with no
    /// environment; the injection must succeed.
    pub fn inject_for(&self, provider: &str, launch: &[String]) -> Injection {
        let mut request = self.request("s", launch, Some(1));
        request.provider = provider;
        inject_harness_hooks_with_env(&request, &no_env).unwrap()
    }
}

/// Why injecting `request` (with `env`) is refused; it must be.
pub fn refusal(request: &InjectRequest, env: &dyn Fn(&str) -> Option<OsString>) -> String {
    inject_harness_hooks_with_env(request, env)
        .unwrap_err()
        .to_string()
}

/// The pieces of an injection the per-harness tests look at.
pub fn injected(injection: &Injection) -> (&[String], &[(String, String)], &Path) {
    match injection {
        Injection::Injected {
            args,
            env,
            settings_path,
            ..
        } => (args, env, settings_path),
        other => panic!("{other:?}"),
    }
}
