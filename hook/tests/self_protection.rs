//! The guard cannot be edited by the agent it guards: every compiled policy carries built-in
//! deny rules for the policy's own directory, the state directory, the hook binaries and
//! claude's settings, whatever the profile allows. Before them, a profile allowing Write and
//! Bash let the agent rewrite its policy, its log or its settings and run unguarded.

mod common;

use std::path::Path;
use std::process::Command;
use test_support::write_file;

use common::*;
use test_support::assert_has;

/// A profile that allows every call of the file and shell tools (left to claude's own
/// permissions), compiled with `ANIMUS_CONFIG_DIR` and `HOME` of the test.
fn setup(name: &str) -> AgentHome {
    let s = AgentHome::new(name);
    let compiled = s.compile_yolo(bin(), "Bash, Read, Edit, Write, MultiEdit, NotebookEdit");
    // The count says the built-in rules are there: one profile rule per allowed tool, and the
    // rest the compiler's own.
    assert_has(&compiled.stderr, "of them built-in self-protection");
    s
}

/// The gate's answer to `tool` with `input` (cwd: the project): `None` when it leaves the call
/// to claude (the profile's allow), else the deny reason.
fn decide(s: &AgentHome, tool: &str, input: serde_json::Value) -> Option<String> {
    decide_in(s, &s.project, tool, input)
}

/// [`decide`] with the call made in `cwd`.
fn decide_in(s: &AgentHome, cwd: &Path, tool: &str, input: serde_json::Value) -> Option<String> {
    let payload = serde_json::json!({
        "session_id": "sp",
        "hook_event_name": "PreToolUse",
        "cwd": cwd,
        "tool_name": tool,
        "tool_input": input,
    });
    let run = run_emit_both(
        &gate_args("sp", &s.project, &s.policy()),
        Some(payload.to_string().as_bytes()),
        &s.env(),
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    deny_reason(&run.stdout)
}

fn write(path: &Path) -> serde_json::Value {
    serde_json::json!({"file_path": path, "content": "{}"})
}

fn bash(command: &str) -> serde_json::Value {
    serde_json::json!({ "command": command })
}

#[test]
fn the_guard_cannot_be_edited_under_an_allow_everything_profile() {
    let s = setup("self-protection");
    let exe = std::fs::canonicalize(bin()).unwrap();
    let lean = std::fs::canonicalize(lean_bin()).unwrap();
    let p = |path: &Path| path.to_str().unwrap().to_string();
    let denied: Vec<(&str, serde_json::Value, &str)> = vec![
        ("Write", write(&s.policy()), "compiled policy"),
        (
            "Edit",
            serde_json::json!({"file_path": s.run.join("animus-policy.sidecar"), "old_string": "a", "new_string": "b"}),
            "compiled policy",
        ),
        (
            "Write",
            write(&s.project.join(".claude/settings.json")),
            "claude's settings",
        ),
        (
            "MultiEdit",
            serde_json::json!({"file_path": s.project.join(".claude/settings.local.json"), "edits": []}),
            "claude's settings",
        ),
        (
            "Write",
            write(&s.home.join(".claude/settings.json")),
            "claude's settings",
        ),
        (
            "Write",
            write(&s.state.join("x/sessions/sp.jsonl")),
            "state directory",
        ),
        (
            "Write",
            write(&s.home.join(".animus/x/sessions/sp.jsonl")),
            "state directory",
        ),
        ("Write", write(&exe), "binary"),
        (
            "Bash",
            bash("echo '{}' > .claude/settings.json"),
            "claude's settings",
        ),
        (
            "Bash",
            bash("mv .claude/settings.json .claude/old.json"),
            "claude's settings",
        ),
        (
            "Bash",
            bash("cat ~/.claude/settings.json | sed s/deny/allow/ | tee ~/.claude/settings.json"),
            "claude's settings",
        ),
        (
            "Bash",
            bash(&format!("sed -i s/deny/allow/ {}", p(&s.policy()))),
            "compiled policy",
        ),
        (
            "Bash",
            bash(&format!("cd {} && rm animus-policy.sidecar", p(&s.run))),
            "compiled policy",
        ),
        (
            "Bash",
            bash(&format!("true; rm -rf \"{}\"", p(&s.state))),
            "state directory",
        ),
        (
            "Bash",
            bash("ln -sf /dev/null ~/.animus/x/sessions/sp.jsonl"),
            "state directory",
        ),
        (
            "Bash",
            bash(&format!("cp /bin/true {}", p(&lean))),
            "binary",
        ),
        ("Bash", bash(&format!("truncate -s0 {}", p(&exe))), "binary"),
        // Files rewritten from a commit the agent may have made; a `cd` to a glob.
        (
            "Bash",
            bash("git checkout evil -- .claude"),
            "coding agent's settings",
        ),
        (
            "Bash",
            bash("git restore --source=evil -- .claude"),
            "coding agent's settings",
        ),
        (
            "Bash",
            bash("git -c alias.co=checkout co evil -- .claude"),
            "coding agent's settings",
        ),
        (
            "Bash",
            bash("cd .clau* && cp /tmp/x settings.json"),
            "settings",
        ),
        // A command of a redirection alone truncates the file it names.
        (
            "Bash",
            bash("> ~/.animus/x/sessions/sp.jsonl"),
            "state directory",
        ),
        (
            "Bash",
            bash(&format!(">{}", p(&s.policy()))),
            "compiled policy",
        ),
    ];
    for (tool, input, says) in denied {
        let reason = decide(&s, tool, input.clone())
            .unwrap_or_else(|| panic!("{tool} {input} was left to claude"));
        assert!(
            reason.contains("protects its own guard"),
            "{tool} {input}: {reason}"
        );
        assert!(reason.contains(says), "{tool} {input}: {reason}");
    }
    // The profile still allows ordinary work in the project.
    for (tool, input) in [
        ("Write", write(&s.project.join("src/main.rs"))),
        (
            "Edit",
            serde_json::json!({"file_path": s.project.join("README.md"), "old_string": "a", "new_string": "b"}),
        ),
        ("Bash", bash("cargo build && ls src > files.txt")),
        ("Bash", bash("git add -A && git commit -m wip")),
        (
            "Write",
            write(&s.project.join(".claude/commands/review.md")),
        ),
    ] {
        assert_eq!(decide(&s, tool, input.clone()), None, "{tool} {input}");
    }
}

/// An agent whose working directory is already inside the guard's directories (a `cd` in an
/// earlier call) names the guard's files by bare relative words: nothing in the command spells
/// the protected directory. Every such word is still denied, by the whole guard as installed.
/// (The policy's side alone — the protected directory's glob matching inside the prefix the
/// words' texts share, which the engine searches once and resumes from — is checked by
/// `a_glob_holding_the_working_directory_reaches_every_word_below_it` in
/// `compiler/tests/lower_differential.rs`, which fails when that match is dropped; here the
/// guard's own refusal of its files denies these too.)
#[test]
fn the_guard_cannot_be_edited_from_inside_its_own_directories() {
    let s = setup("self-protection-cwd");
    let sessions = s.home.join(".animus/x/sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    for (cwd, command, says) in [
        (&s.run, "rm animus-policy.sidecar", "compiled policy"),
        (&s.run, "cp /dev/null animus-policy.json", "compiled policy"),
        (&s.run, "echo '{}' > animus-policy.json", "compiled policy"),
        (&sessions, "truncate -s0 sp.jsonl", "state directory"),
        (
            &sessions,
            "python3 -c 'import os; os.remove(\"sp.jsonl\")'",
            "state directory",
        ),
        (&s.state, "rm -rf x", "state directory"),
    ] {
        let reason = decide_in(&s, cwd, "Bash", bash(command))
            .unwrap_or_else(|| panic!("{command} in {cwd:?} was left to claude"));
        assert!(
            reason.contains("protects its own guard"),
            "{command}: {reason}"
        );
        assert!(reason.contains(says), "{command}: {reason}");
    }
}

/// A word that reaches a guard file through a link the agent made is read resolved, whatever
/// the program does with it: a function of the same command, a script of the project named by
/// its path, an interpreter's script (the engine's own refusal reads only the programs it
/// knows; the compiled rules read every word).
#[test]
fn a_guard_file_named_through_a_link_is_denied_whatever_the_program() {
    let s = setup("self-protection-link");
    std::fs::create_dir_all(s.project.join(".claude")).unwrap();
    std::os::unix::fs::symlink(".claude", s.project.join("c")).unwrap();
    for command in [
        "echo() { tee \"$@\"; }; echo c/settings.json < /tmp/evil",
        "./echo c/settings.json",
        "python3 tool.py c/settings.local.json",
        "cp /tmp/evil \"c/settings.json\"",
    ] {
        let reason = decide(&s, "Bash", bash(command))
            .unwrap_or_else(|| panic!("{command} was left to claude"));
        assert!(reason.contains("claude's settings"), "{command}: {reason}");
    }
    // Other words through the same link are not the guard's.
    assert_eq!(decide(&s, "Bash", bash("cat c/commands/review.md")), None);
}

const CLAIMS_BUILT_IN: &str = "agent_profiles:\n  a:\n    hooks:\n      policy_rules:\n        - id: \"animus.self_protection:~/.animus/**\"\n          decision: allow\n          reason: mine\n";

#[test]
fn no_profile_can_name_a_rule_as_built_in() {
    let dir = temp_dir("self-protection-id");
    let profile = write_file(&dir, "p.yaml", CLAIMS_BUILT_IN);
    let out = Command::new(bin())
        .args(["compile", "--config"])
        .arg(&profile)
        .args(["--agent", "a", "--out-dir"])
        .arg(dir.join("run"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert_has(&stderr, "reserved prefix `animus.self_protection:`");
    assert_has(&stderr, "p.yaml:5:15:");
}
