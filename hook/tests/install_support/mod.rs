//! A scratch `HOME` for the `install` tests: its `~/.claude/settings.json`, its backups, the
//! installed policy, and `animus-hook` run in it with nothing of the caller's guard settings.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::common;

pub struct Home {
    pub dir: common::TempDir,
}

impl Home {
    pub fn new(name: &str) -> Home {
        let home = Home {
            dir: common::temp_dir(name),
        };
        std::fs::create_dir_all(home.claude_dir()).unwrap();
        home
    }

    pub fn path(&self) -> PathBuf {
        std::fs::canonicalize(&*self.dir).unwrap()
    }

    pub fn claude_dir(&self) -> PathBuf {
        self.dir.join(".claude")
    }

    pub fn settings(&self) -> PathBuf {
        self.claude_dir().join("settings.json")
    }

    pub fn write_settings(&self, text: &str) {
        std::fs::write(self.settings(), text).unwrap();
    }

    pub fn read_settings(&self) -> String {
        std::fs::read_to_string(self.settings()).unwrap()
    }

    pub fn backups(&self) -> Vec<PathBuf> {
        let mut found: Vec<PathBuf> = std::fs::read_dir(self.claude_dir())
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.to_string_lossy().contains(".animus-backup-"))
            .collect();
        found.sort();
        found
    }

    pub fn installed_dir(&self) -> PathBuf {
        self.dir.join(".animus/installed/claude-user")
    }

    /// `animus-hook <args>` with this HOME and nothing else of the caller's guard settings.
    pub fn run(&self, args: &[&str]) -> common::Run {
        self.run_in(args, &self.path())
    }

    pub fn run_in(&self, args: &[&str], cwd: &Path) -> common::Run {
        let out = Command::new(common::bin())
            .args(args)
            .current_dir(cwd)
            .env("HOME", self.path())
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env_remove("ANIMUS_CONFIG_DIR")
            .env_remove("CLAUDE_CONFIG_DIR")
            .env_remove("ANIMUS_HOOK_BIN")
            .env_remove("ANIMUS_DISABLE_HARNESS_HOOKS")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("CODEX_HOME")
            .env_remove("GEMINI_CLI_HOME")
            .output()
            .unwrap();
        common::Run {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            code: out.status.code(),
            elapsed: std::time::Duration::ZERO,
        }
    }

    /// The installed gate entry's command and arguments for `event`.
    pub fn gate(&self, event: &str) -> (String, Vec<String>) {
        let settings: Value = serde_json::from_str(&self.read_settings()).unwrap();
        let handler = settings["hooks"][event]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|g| g["hooks"].as_array().unwrap().iter())
            .find(|h| h["args"][0] == "emit")
            .unwrap_or_else(|| panic!("no gate for {event}: {settings:#}"))
            .clone();
        let args = handler["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_string())
            .collect();
        (handler["command"].as_str().unwrap().to_string(), args)
    }

    /// Run the installed `PreToolUse` gate on a Bash call in `cwd`: what it printed.
    pub fn decide(&self, command: &str, cwd: &Path, session: &str) -> String {
        let (binary, args) = self.gate("PreToolUse");
        let payload = json!({
            "session_id": session,
            "cwd": cwd,
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_use_id": "toolu_1",
        });
        let run = common::run_bin(
            &binary,
            &args,
            Some(payload.to_string().as_bytes()),
            &[("HOME", self.path().to_str().unwrap())],
        );
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        run.stdout
    }
}

impl Home {
    /// `doctor`, which must pass, printing each of `checks` (`✓ …` lines).
    pub fn assert_doctor_passes(&self, checks: &[&str]) {
        let doctor = self.run(&["doctor"]);
        assert_ok(&doctor);
        for check in checks {
            assert!(doctor.stdout.contains(check), "{check}:\n{}", doctor.stdout);
        }
    }
}

pub fn assert_ok(run: &common::Run) {
    assert_eq!(
        run.code,
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        run.stdout,
        run.stderr
    );
}
