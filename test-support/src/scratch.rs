//! Throwaway directories: a [`Scratch`] folder, a guarded session's [`SessionDirs`] (HOME,
//! project, the run dir inject writes into, the animus state dir), and the session log the hook
//! keeps in the state dir ([`session_log`], [`project_session_log`]).

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use serde_json::Value;

/// A directory under the system temp dir, removed on drop unless `ANIMUS_E2E_KEEP` is set.
pub struct Scratch {
    pub root: PathBuf,
}

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        static COUNTER: AtomicU32 = AtomicU32::new(0);
        let root = std::env::temp_dir().join(format!(
            "animus-e2e-{}-{}-{name}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = fs::remove_dir_all(&root);
        fs::create_dir_all(&root).unwrap();
        // Canonical, so paths compare equal to what a CLI (which resolves symlinks) reports.
        Scratch {
            root: root.canonicalize().unwrap(),
        }
    }

    /// `sub` under the root, created.
    pub fn dir(&self, sub: &str) -> PathBuf {
        let path = self.root.join(sub);
        fs::create_dir_all(&path).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::env::var_os("ANIMUS_E2E_KEEP").is_none() {
            let _ = fs::remove_dir_all(&self.root);
        } else {
            eprintln!("kept {}", self.root.display());
        }
    }
}

/// One guarded session's directories: HOME, the project (the CLI's cwd), the per-session run
/// dir that `inject` writes into, and the animus state root (`ANIMUS_CONFIG_DIR`). Each suite's
/// `Sandbox` holds one and dereferences to it.
pub struct SessionDirs {
    pub scratch: Scratch,
    pub home: PathBuf,
    pub project: PathBuf,
    pub session_dir: PathBuf,
    pub state_dir: PathBuf,
    pub session_id: String,
}

impl SessionDirs {
    /// The directories of test `name`, whose session id is `<id_prefix><name>`.
    pub fn new(name: &str, id_prefix: &str) -> SessionDirs {
        let scratch = Scratch::new(name);
        SessionDirs {
            home: scratch.dir("home"),
            project: scratch.dir("project"),
            session_dir: scratch.dir("run"),
            state_dir: scratch.dir("animus-state"),
            session_id: format!("{id_prefix}{name}"),
            scratch,
        }
    }

    /// `program <args>` in the project, from an empty environment but for `PATH` (`path`),
    /// `HOME` (the sandbox's), `SHELL` (`/bin/bash`), `LANG` (`C.UTF-8`) and
    /// `ANIMUS_CONFIG_DIR` (the state dir), with stdin closed. The caller adds the CLI's own.
    pub fn cli_command(
        &self,
        program: &Path,
        args: &[String],
        path: impl AsRef<std::ffi::OsStr>,
    ) -> std::process::Command {
        let mut command = std::process::Command::new(program);
        command
            .args(args)
            .current_dir(&self.project)
            .env_clear()
            .env("PATH", path)
            .env("HOME", &self.home)
            .env("SHELL", "/bin/bash")
            .env("LANG", "C.UTF-8")
            .env("ANIMUS_CONFIG_DIR", &self.state_dir)
            .stdin(std::process::Stdio::null());
        command
    }

    /// The compiled policy inject writes into the run dir.
    pub fn policy_path(&self) -> PathBuf {
        self.session_dir.join("animus-policy.json")
    }

    /// Every record of this session's log (see [`session_log`]).
    pub fn session_log(&self) -> Vec<Value> {
        session_log(&self.state_dir, &self.session_id)
    }
}

/// `impl Deref<Target = SessionDirs>` for a suite's sandbox type, whose `dirs` field holds them,
/// so `sandbox.home`, `sandbox.session_log()` … read as if the sandbox were its directories.
#[macro_export]
macro_rules! deref_session_dirs {
    ($sandbox:ty) => {
        impl std::ops::Deref for $sandbox {
            type Target = $crate::scratch::SessionDirs;
            fn deref(&self) -> &$crate::scratch::SessionDirs {
                &self.dirs
            }
        }
    };
}

/// Every record of session `session_id`'s log under the state root `state_dir`
/// (`<state>/<repo-scope>/sessions/<id>.jsonl`). Each line must be one whole JSON object: a torn
/// or merged line fails the test.
pub fn session_log(state_dir: &Path, session_id: &str) -> Vec<Value> {
    let name = format!("{session_id}.jsonl");
    let logs: Vec<PathBuf> = fs::read_dir(state_dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|scope| scope.path().join("sessions").join(&name))
        .filter(|path| path.is_file())
        .collect();
    assert!(logs.len() <= 1, "one session log expected, found {logs:?}");
    let Some(log) = logs.first() else {
        return Vec::new();
    };
    read_log(log)
}

/// The one session log the hook kept in a project's scope (`<state>/project-*/sessions/*.jsonl`)
/// — where a normally started session, whose id the harness chose, is recorded — read as in
/// [`session_log`]. Fails the test unless there is exactly one.
pub fn project_session_log(state_dir: &Path) -> Vec<Value> {
    read_log(&project_session_log_path(state_dir))
}

/// Where [`project_session_log`] reads.
pub fn project_session_log_path(state_dir: &Path) -> PathBuf {
    let mut logs: Vec<PathBuf> = fs::read_dir(state_dir)
        .unwrap()
        .flatten()
        .filter(|scope| scope.file_name().to_string_lossy().starts_with("project-"))
        .flat_map(|scope| {
            fs::read_dir(scope.path().join("sessions"))
                .into_iter()
                .flatten()
                .flatten()
        })
        .map(|log| log.path())
        .filter(|log| log.extension().is_some_and(|ext| ext == "jsonl"))
        .collect();
    assert_eq!(
        logs.len(),
        1,
        "one session log in the project's scope: {logs:?}"
    );
    logs.swap_remove(0)
}

/// Every line of a session log, each one whole JSON object: a torn or merged line fails.
pub fn read_log(log: &Path) -> Vec<Value> {
    fs::read_to_string(log)
        .unwrap()
        .lines()
        .map(|line| {
            serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("torn session log line ({e}): {line}"))
        })
        .collect()
}

/// Write `value` as pretty JSON to `path`, creating its folder.
pub fn write_json(path: &Path, value: &Value) {
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).unwrap();
    }
    fs::write(path, serde_json::to_string_pretty(value).unwrap()).unwrap();
}
