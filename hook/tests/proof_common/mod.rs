//! A session recorded through the real `emit`, for the `verify`, `replay` and `log` tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use crate::common::*;

/// The payloads the recorded session cycles through: denies (`trade --live`, `submit-order`,
/// a production deploy), and calls the trader profile leaves to Claude.
pub const CALLS: [&str; 10] = [
    "PreToolUse.Bash.git-status.json",
    "PreToolUse.Bash.trade-live.json",
    "PreToolUse.Read.json",
    "PreToolUse.Write.json",
    "PreToolUse.Bash.submit-order.json",
    "PreToolUse.Edit.json",
    "PreToolUse.Bash.deploy-prod-eq.json",
    "PreToolUse.Glob.json",
    "PreToolUse.Grep.json",
    "PreToolUse.Bash.git-diff.json",
];

/// One recorded session and where it lives.
pub struct Session {
    pub dir: TempDir,
    pub project: PathBuf,
    pub state: PathBuf,
    pub policy: PathBuf,
    pub id: String,
    /// The gate payloads sent, in order, each with its `tool_use_id`.
    pub sent: Vec<serde_json::Value>,
}

impl Session {
    /// A fresh project, state root and trader policy, nothing recorded yet.
    pub fn new(name: &str) -> Session {
        let dir = temp_dir(name);
        let (project, state) = (dir.join("project"), dir.join("state"));
        std::fs::create_dir_all(&project).unwrap();
        let policy = compile_profile("trader.yaml", "trader", &dir.join("run"));
        Session {
            dir,
            project,
            state,
            policy,
            id: "s-proof".into(),
            sent: Vec::new(),
        }
    }

    pub fn env(&self) -> [(&str, &str); 1] {
        [("ANIMUS_CONFIG_DIR", self.state.to_str().unwrap())]
    }

    /// `emit` one event (a gate with `--policy` when `gate`).
    pub fn emit(&self, event: &str, payload: &[u8], gate: bool) -> Run {
        let mut args = vec![
            "emit",
            "--event",
            event,
            "--session",
            &self.id,
            "--project-root",
            self.project.to_str().unwrap(),
        ];
        if gate {
            args.extend(["--policy", self.policy.to_str().unwrap()]);
        }
        let run = run_hook(&args, Some(payload), &self.env());
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        run
    }

    /// A gate decision for `CALLS[i % 10]` as `toolu_proof_<i>`, and (every fourth) the
    /// finished call's `PostToolUse`.
    pub fn call(&mut self, i: usize) {
        let mut body: serde_json::Value =
            serde_json::from_slice(&payload(CALLS[i % CALLS.len()])).unwrap();
        body["tool_use_id"] = format!("toolu_proof_{i:02}").into();
        body["session_id"] = self.id.clone().into();
        self.emit("PreToolUse", &serde_json::to_vec(&body).unwrap(), true);
        if i.is_multiple_of(4) {
            body["hook_event_name"] = "PostToolUse".into();
            body["tool_response"] = serde_json::json!({"stdout": "ok"});
            self.emit("PostToolUse", &serde_json::to_vec(&body).unwrap(), false);
        }
        self.sent.push(body);
    }

    pub fn end(&self) {
        self.emit(
            "SessionEnd",
            br#"{"hook_event_name":"SessionEnd","reason":"other"}"#,
            false,
        );
    }

    /// 40 gate decisions (10 of them followed by their `PostToolUse`) and a `SessionEnd`.
    pub fn recorded(name: &str) -> Session {
        let mut s = Session::new(name);
        for i in 0..40 {
            s.call(i);
        }
        s.end();
        s
    }

    /// The session's log.
    pub fn log(&self) -> PathBuf {
        let scope = std::fs::read_dir(&self.state)
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        scope.join("sessions").join(format!("{}.jsonl", self.id))
    }

    /// The log's lines, newline kept.
    pub fn lines(&self) -> Vec<String> {
        std::fs::read_to_string(self.log())
            .unwrap()
            .split_inclusive('\n')
            .map(str::to_string)
            .collect()
    }

    pub fn write_lines(&self, lines: &[String]) {
        std::fs::write(self.log(), lines.concat()).unwrap();
    }

    /// `animus-hook <args…>` with this session's state root.
    pub fn hook(&self, args: &[&str]) -> Run {
        run_hook(args, Some(b""), &self.env())
    }
}

/// The line number (1-based) of the first line containing `needle`.
pub fn line_of(lines: &[String], needle: &str) -> usize {
    lines.iter().position(|l| l.contains(needle)).unwrap() + 1
}

/// `verify --json <log>`: the exit code and the report.
/// `verify --json` of `log`, which must fail (exit 1): the report and its first problem.
pub fn first_problem(s: &Session, log: &Path) -> (serde_json::Value, serde_json::Value) {
    let (code, report) = verify_json(s, log);
    assert_eq!(code, Some(1), "{report}");
    let first = report["problems"][0].clone();
    (report, first)
}

pub fn verify_json(s: &Session, log: &Path) -> (Option<i32>, serde_json::Value) {
    let run = s.hook(&["verify", "--json", log.to_str().unwrap()]);
    let report = serde_json::from_str(run.stdout.trim())
        .unwrap_or_else(|e| panic!("{e}: {} {}", run.stdout, run.stderr));
    (run.code, report)
}
