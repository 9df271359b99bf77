//! One policy, every harness: the exact stdout `emit --provider <harness>` prints for payloads
//! captured from the real Codex CLI 0.169.0, Gemini CLI 0.61.0 and opencode 1.18.33 (our
//! plugin's payload), under `corpus/profiles/harnesses.yaml` — whose entries name the canonical
//! (Claude Code) tools only.

mod common;

use common::*;
use serde_json::{Value, json};
use test_support::assert_has;
use test_support::assert_starts;
use test_support::make_dir;
use test_support::process::succeed;
use test_support::write_file;

const HOME: &str = "/home/tester";

/// A corpus payload of `harness` with `tool_input` replaced (when given).
fn payload_with(harness: &str, name: &str, tool_input: Option<Value>) -> Vec<u8> {
    let mut v: Value = serde_json::from_slice(&payload(&format!("{harness}/{name}"))).unwrap();
    if let Some(input) = tool_input {
        v["tool_input"] = input;
    }
    serde_json::to_vec(&v).unwrap()
}

struct Gate {
    _dir: TempDir,
    policy: std::path::PathBuf,
    state: std::path::PathBuf,
    project: std::path::PathBuf,
}

impl Gate {
    fn new(name: &str) -> Gate {
        let dir = temp_dir(name);
        let policy = compile_profile("harnesses.yaml", "guarded", &dir.join("policy"));
        let project = make_dir(&dir, "project");
        Gate {
            state: dir.join("state"),
            policy,
            project,
            _dir: dir,
        }
    }

    /// Run `emit` (`provider` None: not given) for `event`; returns stdout.
    fn emit(&self, provider: Option<&str>, event: &str, stdin: &[u8]) -> String {
        let mut args = emit_args(event, "harnesses", &self.project, Some(&self.policy));
        if let Some(p) = provider {
            args.splice(1..1, ["--provider".to_string(), p.to_string()]);
        }
        let run = run_emit_both(
            &args,
            Some(stdin),
            &[
                ("ANIMUS_CONFIG_DIR", self.state.to_str().unwrap()),
                ("HOME", HOME),
            ],
        );
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        run.stdout
    }

    /// The records, which must all name `harness`.
    fn records_all_of(&self, harness: &str) -> Vec<Value> {
        let records = self.records();
        assert!(
            records.iter().all(|r| r["harness"] == harness),
            "{records:?}"
        );
        records
    }

    fn records(&self) -> Vec<Value> {
        let mut out = Vec::new();
        for entry in walk(&self.state) {
            if entry.extension().is_some_and(|e| e == "jsonl") {
                for line in std::fs::read_to_string(&entry).unwrap().lines() {
                    out.push(serde_json::from_str(line).unwrap());
                }
            }
        }
        out
    }
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                out.extend(walk(&path));
            } else {
                out.push(path);
            }
        }
    }
    out
}

fn claude_deny(reason: &str) -> String {
    format!(
        "{}\n",
        json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": "deny", "permissionDecisionReason": reason}})
    )
}

fn plain_deny(reason: &str) -> String {
    format!("{}\n", json!({"decision": "deny", "reason": reason}))
}

fn denied_by(entry: &str) -> String {
    format!("Denied by tool_policy.deny entry `{entry}`.")
}

/// What an ask becomes where the harness cannot ask.
fn human_must_run(harness: &str) -> String {
    format!(
        "tool_policy.ask entry `Bash(deploy *)` requires approval. (the policy asks a human to \
         approve this call, and {harness} cannot ask: a human must run it)"
    )
}

#[test]
fn codex() {
    let gate = Gate::new("codex");
    let bash = |command: &str| {
        gate.emit(
            Some("codex"),
            "PreToolUse",
            &payload_with(
                "codex",
                "PreToolUse.bash.json",
                Some(json!({"command": command})),
            ),
        )
    };
    assert_eq!(bash("rm -rf /"), claude_deny(&denied_by("Bash(rm -rf *)")));
    assert_eq!(bash("ls -la"), "");
    // A shell or REPL reading a terminal: Codex's write_stdin would feed it unguarded input.
    let terminal = bash("bash --norc");
    assert!(
        terminal.contains("\"permissionDecision\":\"deny\"") && terminal.contains("write_stdin"),
        "{terminal}"
    );
    assert_eq!(bash("python3 - <<'PY'\nprint(1)\nPY"), "");
    assert_eq!(bash("deploy web"), claude_deny(&human_must_run("codex")));
    let patch = |text: &str| {
        gate.emit(
            Some("codex"),
            "PreToolUse",
            &payload_with(
                "codex",
                "PreToolUse.apply_patch_update.json",
                Some(json!({"command": text})),
            ),
        )
    };
    // As captured: an update of a project file.
    assert_eq!(
        gate.emit(
            Some("codex"),
            "PreToolUse",
            &payload("codex/PreToolUse.apply_patch_update.json")
        ),
        ""
    );
    // Each patch writes under /etc: an update, a move's destination (an edit too), a deletion;
    // and a patch given to the shell tool, applied as a patch (its files are edits).
    let etc_deny = claude_deny(&denied_by("Edit(//etc/**)"));
    for text in [
        "*** Begin Patch\n*** Update File: /etc/hosts\n@@\n-a\n+b\n*** End Patch\n",
        "*** Begin Patch\n*** Update File: notes.txt\n*** Move to: /etc/cron.d/x\n*** End Patch\n",
        "*** Begin Patch\n*** Delete File: /etc/passwd\n*** End Patch\n",
    ] {
        assert_eq!(patch(text), etc_deny, "{text}");
    }
    let add = "*** Begin Patch\n*** Add File: /etc/cron.d/x\n+* * * * * x\n*** End Patch";
    assert_eq!(
        bash(&format!("apply_patch <<'EOF'\n{add}\nEOF\n")),
        etc_deny
    );
    assert_eq!(
        gate.emit(
            Some("codex"),
            "PreToolUse",
            &payload("codex/PreToolUse.mcp.json")
        ),
        claude_deny(&denied_by("mcp__echo"))
    );
    assert_eq!(
        gate.emit(
            Some("codex"),
            "PermissionRequest",
            &payload("codex/PermissionRequest.mcp.json")
        ),
        "{\"hookSpecificOutput\":{\"hookEventName\":\"PermissionRequest\",\"decision\":\
         {\"behavior\":\"deny\",\"message\":\"Denied by tool_policy.deny entry `mcp__echo`.\"}}}\n"
    );
    // Without --provider, Codex's `turn_id` tells it apart from Claude: no ask is sent.
    assert_eq!(
        gate.emit(
            None,
            "PreToolUse",
            &payload_with(
                "codex",
                "PreToolUse.bash.json",
                Some(json!({"command": "deploy web"}))
            )
        ),
        claude_deny(&human_must_run("codex"))
    );
    gate.records_all_of("codex");
}

#[test]
fn gemini() {
    let gate = Gate::new("gemini");
    let call = |name: &str, input: Value| {
        gate.emit(
            Some("gemini"),
            "BeforeTool",
            &payload_with("gemini", name, Some(input)),
        )
    };
    let shell = "BeforeTool-run_shell_command.json";
    assert_eq!(
        call(shell, json!({"command": "rm -rf /"})),
        plain_deny(&denied_by("Bash(rm -rf *)"))
    );
    assert_eq!(
        gate.emit(
            Some("gemini"),
            "BeforeTool",
            &payload(&format!("gemini/{shell}"))
        ),
        ""
    );
    assert_eq!(
        call(shell, json!({"command": "deploy web"})),
        plain_deny(&human_must_run("gemini"))
    );
    assert_eq!(
        call(
            "BeforeTool-write_file.json",
            json!({"file_path": "/etc/hosts", "content": "x"})
        ),
        plain_deny(&denied_by("Edit(//etc/**)"))
    );
    assert_eq!(
        call(
            "BeforeTool-replace.json",
            json!({"file_path": "/etc/hosts", "old_string": "a", "new_string": "b"})
        ),
        plain_deny(&denied_by("Edit(//etc/**)"))
    );
    assert_eq!(
        call(
            "BeforeTool-read_file.json",
            json!({"file_path": format!("{HOME}/.ssh/id_ed25519")})
        ),
        plain_deny(&denied_by("Read(~/.ssh/**)"))
    );
    assert_eq!(
        call(
            "BeforeTool-read_file.json",
            json!({"file_path": "README.md"})
        ),
        ""
    );
    // URLs inside the prompt, any case, trailing punctuation or not.
    assert_eq!(
        call(
            "BeforeTool-web_fetch.json",
            json!({"prompt": "Compare https://ok.example/a with HTTPS://Evil.Example/b."})
        ),
        plain_deny(&denied_by("WebFetch(domain:evil.example)"))
    );
    assert_eq!(
        gate.emit(
            Some("gemini"),
            "BeforeTool",
            &payload("gemini/BeforeTool-web_fetch.json")
        ),
        ""
    );
    // `mcp_mock_echo_tool` splits where `mcp_context.server_name` says.
    assert_eq!(
        gate.emit(
            Some("gemini"),
            "BeforeTool",
            &payload("gemini/BeforeTool-mcp_mock_echo_tool.json")
        ),
        plain_deny(&denied_by("mcp__mock__echo_tool"))
    );
    // Without --provider, the event names the harness.
    assert_eq!(
        gate.emit(
            None,
            "BeforeTool",
            &payload_with("gemini", shell, Some(json!({"command": "rm -rf ~"})))
        ),
        plain_deny(&denied_by("Bash(rm -rf *)"))
    );
    gate.records_all_of("gemini");
}

#[test]
fn opencode() {
    let gate = Gate::new("opencode");
    let call = |name: &str, input: Option<Value>| {
        gate.emit(
            Some("opencode"),
            "tool.execute.before",
            &payload_with("opencode", name, input),
        )
    };
    assert_eq!(
        call(
            "bash.json",
            Some(json!({"command": "rm -rf /tmp/x", "description": "d"}))
        ),
        plain_deny(&denied_by("Bash(rm -rf *)"))
    );
    assert_eq!(call("bash.json", None), "");
    assert_eq!(
        call("bash.json", Some(json!({"command": "deploy web"}))),
        plain_deny(&human_must_run("opencode"))
    );
    assert_eq!(
        call(
            "edit.json",
            Some(json!({"filePath": "/etc/hosts", "oldString": "a", "newString": "b"}))
        ),
        plain_deny(&denied_by("Edit(//etc/**)"))
    );
    assert_eq!(call("edit.json", None), "");
    assert_eq!(
        call(
            "write.json",
            Some(json!({"filePath": "/etc/motd", "content": "x"}))
        ),
        plain_deny(&denied_by("Edit(//etc/**)"))
    );
    assert_eq!(
        call(
            "read.json",
            Some(json!({"filePath": format!("{HOME}/.ssh/config")}))
        ),
        plain_deny(&denied_by("Read(~/.ssh/**)"))
    );
    assert_eq!(call("apply_patch.json", None), "");
    assert_eq!(
        call(
            "apply_patch.json",
            Some(
                json!({"patchText": "*** Begin Patch\n*** Add File: /etc/profile.d/x.sh\n+x\n*** End Patch"})
            )
        ),
        plain_deny(&denied_by("Edit(//etc/**)"))
    );
    assert_eq!(
        call(
            "webfetch.json",
            Some(json!({"url": "https://evil.example/x", "format": "text"}))
        ),
        plain_deny(&denied_by("WebFetch(domain:evil.example)"))
    );
    assert_eq!(call("webfetch.json", None), "");
    assert_eq!(
        call("echo_echo.json", None),
        plain_deny(&denied_by("mcp__echo"))
    );
    assert_eq!(call("task.json", None), "");
    let records = gate.records_all_of("opencode");
    assert_eq!(records.len(), 2 * 13, "every run recorded (both binaries)");
}

#[test]
fn a_gate_event_of_another_harness_is_refused() {
    let gate = Gate::new("mismatch");
    // Claude's event under --provider gemini: a settings mistake, answered with a deny.
    let out = gate.emit(
        Some("gemini"),
        "BeforeTool",
        &payload_with("codex", "PreToolUse.bash.json", None),
    );
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["decision"], "deny");
    assert!(
        v["reason"]
            .as_str()
            .unwrap()
            .contains("the payload is for event `PreToolUse`"),
        "{out}"
    );
    // An unknown provider: a deny, in the shape of the event's harness.
    let run = run_hook(
        &[
            "emit",
            "--provider",
            "aider",
            "--event",
            "PreToolUse",
            "--session",
            "x",
            "--project-root",
            gate.project.to_str().unwrap(),
            "--policy",
            gate.policy.to_str().unwrap(),
        ],
        Some(&payload("codex/PreToolUse.bash.json")),
        &[("ANIMUS_CONFIG_DIR", gate.state.to_str().unwrap())],
    );
    assert_has(&run.stdout, "unknown --provider `aider`");
    assert!(run.stdout.contains("\"permissionDecision\":\"deny\""));
}

#[test]
fn check_decides_a_harness_payload_as_emit_does() {
    let gate = Gate::new("check");
    let check = |args: &[&str], stdin: &[u8]| {
        let mut all = vec!["check", "--policy", gate.policy.to_str().unwrap()];
        all.extend_from_slice(args);
        let run = run_hook(&all, Some(stdin), &[("HOME", HOME)]);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        run.stdout
    };
    // The event names the harness; the MCP name is split as emit splits it.
    let out = check(&[], &payload("gemini/BeforeTool-mcp_mock_echo_tool.json"));
    assert_starts(
        &out,
        "decision: deny\nreason: Denied by tool_policy.deny entry `mcp__mock__echo_tool`.",
    );
    // opencode's payload under --provider: camelCase paths are read.
    let edit = payload_with(
        "opencode",
        "edit.json",
        Some(json!({"filePath": "/etc/hosts", "oldString": "a", "newString": "b"})),
    );
    let out = check(&["--provider", "opencode", "--json"], &edit);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["decision"], "deny", "{v}");
    assert_eq!(v["harness"], "opencode");
    // Codex (told by its turn_id): an ask is answered as a deny.
    let deploy = payload_with(
        "codex",
        "PreToolUse.bash.json",
        Some(json!({"command": "deploy web"})),
    );
    let v: Value = serde_json::from_str(&check(&["--json"], &deploy)).unwrap();
    assert_eq!(v["decision"], "ask");
    assert_eq!(v["harness"], "codex");
    assert!(
        v["harness_answer"].as_str().unwrap().starts_with("deny"),
        "{v}"
    );
}

/// A gate over a profile written in the test (`yaml`: the `tool_policy` block's entries).
fn gate_over(name: &str, tool_policy: &str) -> Gate {
    let dir = temp_dir(name);
    let profile = write_file(
        &dir,
        "p.yaml",
        format!("agent_profiles:\n  a:\n    tool_policy:\n{tool_policy}"),
    );
    succeed(
        std::process::Command::new(bin())
            .args(["compile", "--config"])
            .arg(&profile)
            .args(["--agent", "a", "--out-dir"])
            .arg(dir.join("policy")),
    );
    let project = make_dir(&dir, "project");
    Gate {
        state: dir.join("state"),
        policy: dir.join("policy/animus-policy.json"),
        project,
        _dir: dir,
    }
}

/// opencode names its own tools (`plan_exit`) and custom tools (`<file>_<export>`) with an
/// `_`, like an MCP tool `<server>_<tool>`: the name as given is decided too, and counts only
/// when a rule decided it.
#[test]
fn opencode_tools_named_a_b_are_decided_as_given_too() {
    let plan_exit = |input: Value| {
        let mut v: Value = serde_json::from_slice(&payload("opencode/echo_echo.json")).unwrap();
        v["tool_name"] = "plan_exit".into();
        v["tool_input"] = input;
        serde_json::to_vec(&v).unwrap()
    };
    let echo = payload("opencode/echo_echo.json");
    let gate = gate_over("opencode-as-given", "      deny: [plan_exit]\n");
    let ask = |gate: &Gate, stdin: &[u8]| gate.emit(Some("opencode"), "tool.execute.before", stdin);
    assert_eq!(
        ask(&gate, &plan_exit(json!({}))),
        plain_deny(&denied_by("plan_exit"))
    );
    assert_eq!(ask(&gate, &echo), "", "an unlisted echo_echo is left alone");
    // Under an allowlist (default deny) that allows the MCP tool, the as-given reading
    // `echo_echo`, which nothing lists, does not bring the default deny.
    let allowlist = gate_over(
        "opencode-allowlist",
        "      allow: [mcp__echo__echo]\n      deny: [plan_exit]\n",
    );
    assert_eq!(ask(&allowlist, &echo), "");
    assert_eq!(
        ask(&allowlist, &plan_exit(json!({}))),
        plain_deny(&denied_by("plan_exit"))
    );
}

/// Gemini's `read_many_files`: each literal path of `include` is decided as a `Read`.
#[test]
fn gemini_read_many_files_paths_are_read_calls() {
    let gate = gate_over(
        "gemini-read-many",
        "      deny: [\"Read(./.env)\", \"Read(~/.ssh/**)\"]\n",
    );
    let call = |include: Value| {
        let mut v: Value =
            serde_json::from_slice(&payload("gemini/BeforeTool-read_file.json")).unwrap();
        v["tool_name"] = "read_many_files".into();
        v["tool_input"] = json!({ "include": include });
        v["cwd"] = gate.project.to_str().unwrap().into();
        gate.emit(
            Some("gemini"),
            "BeforeTool",
            &serde_json::to_vec(&v).unwrap(),
        )
    };
    assert_eq!(
        call(json!(["README.md", ".env"])),
        plain_deny(&denied_by("Read(./.env)"))
    );
    assert_eq!(
        call(json!([format!("{HOME}/.ssh/id_rsa")])),
        plain_deny(&denied_by("Read(~/.ssh/**)"))
    );
    assert_eq!(call(json!(["README.md", "src/**/*.rs"])), "");
}
