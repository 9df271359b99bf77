//! `animus-hook compile` and `check` as a user runs them.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn hook(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_animus-hook"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait_with_output().unwrap()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("animus-cli-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn compile(config: &Path, agent: &str, out: &Path) -> Output {
    hook(
        &[
            "compile",
            "--config",
            config.to_str().unwrap(),
            "--agent",
            agent,
            "--out-dir",
            out.to_str().unwrap(),
        ],
        b"",
    )
}

#[test]
fn compile_then_check_the_trader() {
    let out = temp_dir("trader");
    let result = compile(&repo().join("corpus/profiles/trader.yaml"), "trader", &out);
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let policy = out.join("animus-policy.json");
    let text = std::fs::read_to_string(&policy).unwrap();
    assert!(text.contains("\"default_decision\": \"defer\""));
    // No temp file is left beside it.
    let names: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(
        names.iter().all(|n| !n.to_string_lossy().ends_with(".tmp")),
        "{names:?}"
    );

    let payload =
        std::fs::read(repo().join("corpus/payloads/PreToolUse.Bash.deploy-prod-space.json"))
            .unwrap();
    let check = hook(&["check", "--policy", policy.to_str().unwrap()], &payload);
    assert!(check.status.success());
    let stdout = String::from_utf8(check.stdout).unwrap();
    assert!(stdout.starts_with("decision: deny\nreason: Production deploys require a human.\ndeciding rule: no-prod-deploy\nmatched rules:\n  - no-prod-deploy\n"), "{stdout}");

    let payload = std::fs::read(repo().join("corpus/payloads/PreToolUse.Read.json")).unwrap();
    let check = hook(
        &["check", "--policy", policy.to_str().unwrap(), "--json"],
        &payload,
    );
    let json: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!(json["decision"], "defer");
    assert_eq!(json["matched"], serde_json::json!([]));
}

#[test]
fn errors_exit_nonzero_with_location_and_leave_the_previous_policy_untouched() {
    let out = temp_dir("errors");
    assert!(
        compile(&repo().join("corpus/profiles/trader.yaml"), "trader", &out)
            .status
            .success()
    );
    let policy = out.join("animus-policy.json");
    let before = std::fs::read(&policy).unwrap();
    let cases: &[(&str, &str, &str)] = &[
        (
            "invalid.yaml",
            "agents:\n  a:\n    tool_policy:\n      deny: [Bash\n",
            "invalid.yaml:4:13: error:",
        ),
        (
            "type.yaml",
            "agents:\n  a:\n    tool_policy:\n      deny: Bash\n",
            "type.yaml:4:13: error: wrong type",
        ),
        (
            "key.yaml",
            "agents:\n  a:\n    hooks:\n      policy_rule: []\n",
            "key.yaml:4:7: error: unknown field `policy_rule`",
        ),
        (
            "regex.yaml",
            "agents:\n  a:\n    hooks:\n      policy_rules:\n        - id: x\n          decision: deny\n          input_matchers: [{field: command, regex: 'a(b'}]\n",
            "regex.yaml:7:52: error: rule `x`: invalid regex",
        ),
        (
            "agent.yaml",
            "agents:\n  b: {}\n",
            "agent.yaml: error: no agent `a`",
        ),
    ];
    for (name, text, expected) in cases {
        let config = out.join(name);
        std::fs::write(&config, text).unwrap();
        let result = compile(&config, "a", &out);
        let stderr = String::from_utf8_lossy(&result.stderr);
        assert_eq!(result.status.code(), Some(1), "{name}: {stderr}");
        assert!(
            stderr.contains(&format!("{}/{expected}", out.display())),
            "{name}: {stderr}"
        );
        assert_eq!(
            std::fs::read(&policy).unwrap(),
            before,
            "{name} touched the previous policy"
        );
    }
    // A fresh output directory gets no file at all.
    let fresh = out.join("fresh");
    let config = out.join("key.yaml");
    assert_eq!(compile(&config, "a", &fresh).status.code(), Some(1));
    assert!(!fresh.join("animus-policy.json").exists());
}

#[test]
fn usage_errors_exit_2() {
    let result = hook(&["compile", "--config", "x"], b"");
    assert_eq!(result.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&result.stderr).contains("missing required option --agent"));
    assert_eq!(hook(&["frobnicate"], b"").status.code(), Some(2));
}

#[test]
fn check_rejects_a_payload_without_tool_name() {
    let out = temp_dir("check-bad");
    assert!(
        compile(&repo().join("corpus/profiles/trader.yaml"), "trader", &out)
            .status
            .success()
    );
    let policy = out.join("animus-policy.json");
    let result = hook(
        &["check", "--policy", policy.to_str().unwrap()],
        br#"{"tool_input":{}}"#,
    );
    assert_eq!(result.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&result.stderr).contains("no `tool_name`"));
}

#[test]
fn demo_runs_the_bundled_profiles() {
    let result = hook(&["demo"], b"");
    assert!(
        result.status.success(),
        "{}",
        String::from_utf8_lossy(&result.stderr)
    );
    let stdout = String::from_utf8(result.stdout).unwrap();
    let line = stdout.lines().find(|l| l.contains("trade --live")).unwrap();
    assert!(line.contains("-> deny"), "{line}");
    assert!(stdout.contains("profile `reviewer`"));
}
