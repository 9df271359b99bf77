//! Issue 25 through the binary: an imported Claude list keeps Claude's meaning in every
//! permission mode (unlisted calls left to the harness, deny and ask entries binding even in
//! `bypassPermissions`, no explicit allow), `--meaning allowlist` makes the same list a strict
//! allowlist, and a misspelt key or tool name fails every command that loads a profile.

mod common;

use std::path::Path;
use test_support::{make_dir, write_file};

use common::{compile_argv, compile_config, gate_args, repo, run_cli, run_emit_both, temp_dir};
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
    let settings = write_file(dir, "settings.json", SETTINGS);
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
    let profile = write_file(dir, "profile.yaml", &import.stdout);
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

/// Which import a test makes: `--meaning claude` (the default) or `--meaning allowlist`.
#[derive(Clone, Copy)]
enum Meaning {
    Claude,
    Allowlist,
}

/// Each call `(tool, input)` with the gate's answer under the Claude meaning and under the
/// allowlist one (`None`: left to Claude).
type Case = (
    &'static str,
    Value,
    Option<&'static str>,
    Option<&'static str>,
);

fn cases() -> Vec<Case> {
    let bash = |command: &str| json!({ "command": command });
    let path = |file_path: &str| json!({ "file_path": file_path });
    vec![
        ("Bash", bash("git status"), None, None),
        ("Bash", bash("ls -la && du -sh ."), None, Some("deny")),
        ("Bash", bash("curl https://example.com"), None, Some("deny")),
        (
            "Bash",
            bash("git push origin main"),
            Some("ask"),
            Some("ask"),
        ),
        ("Bash", bash("rm -rf build"), Some("deny"), Some("deny")),
        ("Bash", bash("cd /tmp && rm x"), Some("deny"), Some("deny")),
        (
            "Read",
            path("/home/user/project/.env"),
            Some("deny"),
            Some("deny"),
        ),
        ("Read", path("/home/user/project/a.txt"), None, None),
        (
            "Write",
            json!({"file_path": "/tmp/x", "content": "y"}),
            None,
            Some("deny"),
        ),
    ]
}

/// Imports `SETTINGS` with `meaning` in a fresh directory `name`; import must say each of
/// `says` and the policy's default be `default`. Then, in every permission mode, the gate
/// decides each of [`cases`] as the meaning's column says, and never answers allow.
fn assert_import_decides(name: &str, meaning: Meaning, says: &[&str], default: &str) {
    let dir = temp_dir(name);
    let extra: &[&str] = match meaning {
        Meaning::Claude => &[],
        Meaning::Allowlist => &["--meaning", "allowlist"],
    };
    let (policy, stderr) = import_and_compile(&dir, extra);
    for part in says {
        assert_has(&stderr, part);
    }
    let compiled: Value = serde_json::from_slice(&std::fs::read(&policy).unwrap()).unwrap();
    assert_eq!(compiled["default_decision"], default);
    let (state, project) = (dir.join("state"), make_dir(&dir, "project"));
    for mode in MODES {
        for (tool, input, claude, allowlist) in cases() {
            let want = match meaning {
                Meaning::Claude => claude,
                Meaning::Allowlist => allowlist,
            };
            let p = payload(&project, mode, tool, input);
            let got = gate(&policy, &state, &project, &p);
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
}

#[test]
fn an_imported_list_keeps_claudes_meaning_in_every_permission_mode() {
    let says = [
        "written with `tool_policy.meaning: claude`",
        "`permissions.allow` entry `*` is left out",
    ];
    assert_import_decides("meaning-claude", Meaning::Claude, &says, "defer");
}

#[test]
fn meaning_allowlist_makes_the_same_import_a_strict_allowlist() {
    let says = ["written with `tool_policy.meaning: allowlist`"];
    assert_import_decides("meaning-allowlist", Meaning::Allowlist, &says, "deny");
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
    assert_has(
        &run.stderr,
        "invalid value 'loose' for '--meaning <MEANING>'",
    );
    assert_has(&run.stderr, "[possible values: claude, allowlist]");
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
            ("compile", compile_argv(c, "a", &out).to_vec()),
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
