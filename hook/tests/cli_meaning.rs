//! Issue 25 through the binary: an imported Claude list keeps Claude's meaning in every
//! permission mode (unlisted calls left to the harness, deny and ask entries binding even in
//! `bypassPermissions`, no explicit allow), `--meaning allowlist` makes the same list a strict
//! allowlist, and a misspelt key or tool name fails every command that loads a profile.

mod common;

use std::path::Path;
use test_support::write_file;

use common::{compile_config, gate_args, repo, run_cli, run_emit_both, temp_dir};
use serde_json::{Value, json};
use test_support::assert_has;

/// A user's Claude settings: an allow, an ask, a deny, a bare `*` allow (which Claude ignores).
const SETTINGS: &str = r#"{
  "permissions": {
    "allow": ["Bash(git status:*)", "*", "Read"],
    "ask": ["Bash(git push:*)"],
    "deny": ["Bash(rm:*)", "Read(./.env)"],
    "defaultMode": "bypassPermissions"
  }
}"#;

/// Import `SETTINGS` (with `extra` options), write the profile and compile it; returns the
/// policy path and import's stderr.
fn import_and_compile(dir: &Path, extra: &[&str]) -> (std::path::PathBuf, String) {
    let settings = write_file(&dir, "settings.json", SETTINGS);
    let mut args = vec![
        "import",
        "--claude-settings",
        settings.to_str().unwrap(),
        "--agent",
        "me",
    ];
    args.extend_from_slice(extra);
    let import = run_cli(&args);
    assert_eq!(import.code, Some(0), "{}", import.stderr);
    let profile = write_file(&dir, "profile.yaml", &import.stdout);
    let policy = compile_config(&profile, "me", &dir.join("out"));
    (policy, import.stderr)
}

/// The real bypassPermissions payload with `tool_name` and `tool_input` replaced, in `mode`,
/// made in the project `/home/user/project` stands for (the test's own directory).
fn payload(project: &Path, mode: &str, tool: &str, input: Value) -> Vec<u8> {
    let text = std::fs::read_to_string(
        repo().join("corpus/payloads/PreToolUse.Bash.bypassPermissions.json"),
    )
    .unwrap();
    let mut p: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(p["permission_mode"], "bypassPermissions");
    p["permission_mode"] = mode.into();
    p["tool_name"] = tool.into();
    p["tool_input"] = input;
    p["cwd"] = project.to_str().unwrap().into();
    let text = serde_json::to_string(&p).unwrap();
    text.replace("/home/user/project", project.to_str().unwrap())
        .into_bytes()
}

/// The gate's answer: `None` for no output (the hook abstains), else the decision printed.
/// The gate decides each payload of `cases` under `policy` as its `want` says (`None`: left to
/// Claude), and never answers allow.
fn assert_gate_decides<const N: usize>(
    policy: &Path,
    state: &Path,
    project: &Path,
    mode: &str,
    cases: [(Vec<u8>, Option<&str>); N],
) {
    for (p, want) in cases {
        let got = gate(policy, state, project, &p);
        assert_eq!(
            got.as_deref(),
            want,
            "{mode}: {}",
            String::from_utf8_lossy(&p)
        );
        assert_ne!(
            got.as_deref(),
            Some("allow"),
            "the hook never answers allow"
        );
    }
}

fn gate(policy: &Path, state: &Path, project: &Path, payload: &[u8]) -> Option<String> {
    let run = run_emit_both(
        &gate_args("s1", project, policy),
        Some(payload),
        &[("ANIMUS_CONFIG_DIR", state.to_str().unwrap())],
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    if run.stdout.trim().is_empty() {
        return None;
    }
    let out: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    Some(
        out["hookSpecificOutput"]["permissionDecision"]
            .as_str()
            .unwrap()
            .to_string(),
    )
}

const MODES: &[&str] = &["default", "acceptEdits", "plan", "bypassPermissions"];

#[test]
fn an_imported_list_keeps_claudes_meaning_in_every_permission_mode() {
    let dir = temp_dir("meaning-claude");
    let (policy, stderr) = import_and_compile(&dir, &[]);
    assert_has(&stderr, "written with `tool_policy.meaning: claude`");
    assert_has(&stderr, "`permissions.allow` entry `*` is left out");
    let compiled: Value = serde_json::from_slice(&std::fs::read(&policy).unwrap()).unwrap();
    assert_eq!(compiled["default_decision"], "defer");
    let (state, project) = (dir.join("state"), dir.join("project"));
    std::fs::create_dir_all(&project).unwrap();
    let project = project.as_path();
    for mode in MODES {
        let bash = |command: &str| payload(project, mode, "Bash", json!({ "command": command }));
        let cases = [
            (bash("git status"), None),
            (bash("ls -la && du -sh ."), None),
            (bash("curl https://example.com"), None),
            (bash("git push origin main"), Some("ask")),
            (bash("rm -rf build"), Some("deny")),
            (bash("cd /tmp && rm x"), Some("deny")),
            (
                payload(
                    project,
                    mode,
                    "Read",
                    json!({"file_path": "/home/user/project/.env"}),
                ),
                Some("deny"),
            ),
            (
                payload(
                    project,
                    mode,
                    "Read",
                    json!({"file_path": "/home/user/project/a.txt"}),
                ),
                None,
            ),
            (
                payload(
                    project,
                    mode,
                    "Write",
                    json!({"file_path": "/tmp/x", "content": "y"}),
                ),
                None,
            ),
        ];
        assert_gate_decides(&policy, &state, project, mode, cases);
    }
}

#[test]
fn meaning_allowlist_makes_the_same_import_a_strict_allowlist() {
    let dir = temp_dir("meaning-allowlist");
    let (policy, stderr) = import_and_compile(&dir, &["--meaning", "allowlist"]);
    assert_has(&stderr, "written with `tool_policy.meaning: allowlist`");
    let compiled: Value = serde_json::from_slice(&std::fs::read(&policy).unwrap()).unwrap();
    assert_eq!(compiled["default_decision"], "deny");
    let (state, project) = (dir.join("state"), dir.join("project"));
    std::fs::create_dir_all(&project).unwrap();
    let project = project.as_path();
    for mode in MODES {
        let bash = |command: &str| payload(project, mode, "Bash", json!({ "command": command }));
        let cases = [
            (bash("git status"), None),
            (bash("curl https://example.com"), Some("deny")),
            (bash("git push origin main"), Some("ask")),
            (bash("rm -rf build"), Some("deny")),
            (
                payload(
                    project,
                    mode,
                    "Write",
                    json!({"file_path": "/tmp/x", "content": "y"}),
                ),
                Some("deny"),
            ),
        ];
        assert_gate_decides(&policy, &state, project, mode, cases);
    }
    // The bare `*` Claude ignores did not widen the allowlist.
    let run = run_cli(&[
        "import",
        "--claude-settings",
        "x",
        "--agent",
        "a",
        "--meaning",
        "loose",
    ]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("invalid value 'loose' for '--meaning <MEANING>'")
            && run.stderr.contains("[possible values: claude, allowlist]"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_misspelt_key_or_tool_fails_compile_lint_test_and_inject() {
    let dir = temp_dir("meaning-typos");
    let cases = write_file(&dir, "cases.yaml", "- command: rm -rf x\n  expect: deny\n");
    for (body, at, says) in [
        (
            "    toolPolicy:\n      deny: [\"Bash(rm:*)\"]\n",
            "p.yaml:4:5",
            "unknown key `toolPolicy` in agent `a`: did you mean `tool_policy`?",
        ),
        (
            "    tool_polcy:\n      deny: [\"Bash(rm:*)\"]\n",
            "p.yaml:4:5",
            "unknown key `tool_polcy` in agent `a`: did you mean `tool_policy`?",
        ),
        (
            "    pack: [core]\n",
            "p.yaml:4:5",
            "unknown key `pack` in agent `a`: did you mean `packs`?",
        ),
        (
            "    tool_policy:\n      deny: [\"bash(rm:*)\"]\n",
            "p.yaml:5:14",
            "names `bash`, no tool any harness calls: did you mean `Bash`?",
        ),
        (
            "    tool_policy:\n      deny: [\"Reed(./.env)\"]\n",
            "p.yaml:5:14",
            "did you mean `Read`?",
        ),
        (
            "    hooks:\n      policy_rules:\n        - {id: x, tools: [bash], decision: deny}\n",
            "p.yaml:6:",
            "rule `x`: tool `bash`, no tool any harness calls: did you mean `Bash`?",
        ),
    ] {
        let config = write_file(
            &dir,
            "p.yaml",
            format!("agents:\n  a:\n    model: x\n{body}"),
        );
        let c = config.to_str().unwrap();
        let out = dir.join("out");
        let session = dir.join("session");
        let runs = [
            (
                "compile",
                vec![
                    "compile",
                    "--config",
                    c,
                    "--agent",
                    "a",
                    "--out-dir",
                    out.to_str().unwrap(),
                ],
            ),
            ("lint", vec!["lint", "--config", c, "--agent", "a"]),
            (
                "test",
                vec![
                    "test",
                    "--config",
                    c,
                    "--agent",
                    "a",
                    cases.to_str().unwrap(),
                ],
            ),
            (
                "inject",
                vec![
                    "inject",
                    "--provider",
                    "claude",
                    "--config",
                    c,
                    "--agent",
                    "a",
                    "--session-dir",
                    session.to_str().unwrap(),
                    "--session-id",
                    "s1",
                    "--project-root",
                    dir.to_str().unwrap(),
                    "--",
                    "claude",
                    "-p",
                    "hi",
                ],
            ),
        ];
        for (command, args) in runs {
            let run = run_cli(&args);
            let all = format!("{}{}", run.stdout, run.stderr);
            assert_eq!(run.code, Some(1), "{command} {body}: {all}");
            assert!(
                all.lines().any(|l| l.contains(at) && l.contains(says)),
                "{command} {body}: wanted `{at}` `{says}` in:\n{all}"
            );
        }
        assert!(!out.exists(), "compile wrote nothing");
    }
    // Other tools' keys of the profile and another harness's own tool names still compile.
    let config = write_file(
        &dir,
        "ok.yaml",
        "agents:\n  a:\n    model: x\n    tools: [a]\n    tool_policy:\n      deny: [\"todowrite\", \"my_custom_tool\", \"Bash(rm:*)\"]\n",
    );
    let run = run_cli(&["lint", "--config", config.to_str().unwrap(), "--agent", "a"]);
    assert_eq!(run.code, Some(0), "{}{}", run.stdout, run.stderr);
    assert_has(&run.stdout, "0 errors, 2 warnings");
}
