//! `animus-hook compile` and `check` as a user runs them.

mod common;

use std::path::Path;
use test_support::make_dir;
use test_support::write_file;

use common::{compile_profile, gate_args, lean_bin, payload, repo, run_bin, temp_dir};
use test_support::assert_has;

/// Run the binary; stdout as text, stderr as text, the exit code.
fn hook(args: &[&str], stdin: &[u8]) -> common::Run {
    common::run_hook(args, Some(stdin), &[])
}

fn compile(config: &Path, agent: &str, out: &Path) -> common::Run {
    common::compile_run(common::bin(), config, agent, out, &[])
}

#[test]
fn compile_then_check_the_trader() {
    let out = temp_dir("trader");
    let result = compile(&repo().join("corpus/profiles/trader.yaml"), "trader", &out);
    assert!(result.code == Some(0), "{}", result.stderr.clone());
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
    assert!(check.code == Some(0));
    let stdout = check.stdout.clone();
    assert!(stdout.starts_with("decision: deny\nreason: Production deploys require a human.\nharness answer: deny\ndeciding rule: no-prod-deploy\nmatched rules:\n  - no-prod-deploy\n"), "{stdout}");

    let payload = std::fs::read(repo().join("corpus/payloads/PreToolUse.Read.json")).unwrap();
    let check = hook(
        &["check", "--policy", policy.to_str().unwrap(), "--json"],
        &payload,
    );
    let json: serde_json::Value = serde_json::from_str(&check.stdout).unwrap();
    assert_eq!(json["decision"], "defer");
    assert_eq!(json["matched"], serde_json::json!([]));
    assert_eq!(
        json["harness_answer"],
        "none: the harness's own permission flow decides"
    );
}

#[test]
fn check_says_a_covered_call_is_left_to_the_harness() {
    let out = temp_dir("covered");
    assert!(
        compile(
            &repo().join("corpus/profiles/allowlist.yaml"),
            "reviewer",
            &out
        )
        .code
            == Some(0)
    );
    let policy = out.join("animus-policy.json");
    let payload =
        std::fs::read(repo().join("corpus/payloads/PreToolUse.Bash.git-status.json")).unwrap();
    let check = hook(&["check", "--policy", policy.to_str().unwrap()], &payload);
    assert_eq!(check.code, Some(0));
    assert!(
        check.stdout.starts_with(
            "decision: allow\nreason: Covered by tool_policy.allow entry `Bash(git status*)`; \
             the grant is left to the harness's own permission rules, which carry the same \
             entries.\nharness answer: none: covered by the allow entries; the grant is left to \
             the harness's own permission rules\ndeciding rule: tool_policy.allow:Bash(git status*)\n"
        ),
        "{}",
        check.stdout
    );
}

#[test]
fn errors_exit_nonzero_with_location_and_leave_the_previous_policy_untouched() {
    let out = temp_dir("errors");
    assert!(compile(&repo().join("corpus/profiles/trader.yaml"), "trader", &out).code == Some(0));
    let policy = out.join("animus-policy.json");
    let before = std::fs::read(&policy).unwrap();
    let cases: &[(&str, &str, &str)] = &[
        (
            "invalid.yaml",
            "agents:\n  a:\n    tool_policy:\n      deny: [Bash\n",
            "invalid.yaml:4:13: error[AH102]:",
        ),
        (
            "type.yaml",
            "agents:\n  a:\n    tool_policy:\n      deny: Bash\n",
            "type.yaml:4:13: error[AH102]: wrong type",
        ),
        (
            "key.yaml",
            "agents:\n  a:\n    hooks:\n      policy_rule: []\n",
            "key.yaml:4:7: error[AH101]: unknown key `policy_rule`: did you mean `policy_rules`?",
        ),
        (
            "regex.yaml",
            "agents:\n  a:\n    hooks:\n      policy_rules:\n        - id: x\n          decision: deny\n          input_matchers: [{field: command, regex: 'a(b'}]\n",
            "regex.yaml:7:52: error[AH105]: rule `x`: invalid regex",
        ),
        (
            "agent.yaml",
            "agents:\n  b: {}\n",
            "agent.yaml: error[AH103]: no agent `a`",
        ),
    ];
    for (name, text, expected) in cases {
        let config = out.join(name);
        std::fs::write(&config, text).unwrap();
        let result = compile(&config, "a", &out);
        let stderr = result.stderr.clone();
        assert_eq!(result.code, Some(1), "{name}: {stderr}");
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
    assert_eq!(compile(&config, "a", &fresh).code, Some(1));
    assert!(!fresh.join("animus-policy.json").exists());
}

#[test]
fn usage_errors_exit_2() {
    let result = hook(&["compile", "--config", "x"], b"");
    assert_eq!(result.code, Some(2));
    let stderr = result.stderr.clone();
    assert!(
        stderr.contains("required arguments were not provided") && stderr.contains("--agent <ID>"),
        "{stderr}"
    );
    assert_eq!(hook(&["frobnicate"], b"").code, Some(2));
}

#[test]
fn check_rejects_a_payload_without_tool_name() {
    let out = temp_dir("check-bad");
    assert!(compile(&repo().join("corpus/profiles/trader.yaml"), "trader", &out).code == Some(0));
    let policy = out.join("animus-policy.json");
    let result = hook(
        &["check", "--policy", policy.to_str().unwrap()],
        br#"{"tool_input":{}}"#,
    );
    assert_eq!(result.code, Some(1));
    assert!(result.stderr.clone().contains("no `tool_name`"));
}

#[test]
fn demo_runs_the_bundled_profiles() {
    let result = hook(&["demo"], b"");
    assert!(result.code == Some(0), "{}", result.stderr.clone());
    let stdout = result.stdout.clone();
    let line = stdout.lines().find(|l| l.contains("trade --live")).unwrap();
    assert_has(line, "-> deny");
    assert!(stdout.contains("profile `reviewer`"));
}

#[test]
fn the_lean_emit_binary_answers_help_and_takes_emit_arguments_with_or_without_emit() {
    let help = run_bin(lean_bin(), &["--help"], Some(b""), &[]);
    assert_eq!(help.code, Some(0));
    assert_has(&help.stdout, "animus-hook-emit");
    let version = run_bin(lean_bin(), &["--version"], Some(b""), &[]);
    assert_eq!(version.code, Some(0));
    assert!(version.stdout.starts_with("animus-hook-emit "));

    let out = temp_dir("lean-args");
    let policy = compile_profile("trader.yaml", "trader", &out);
    let project = make_dir(&out, "project");
    let state = out.join("state");
    let gate = gate_args("lean", &project, &policy);
    // The lean binary takes `emit`'s arguments with or without the word `emit` first.
    let args: Vec<&str> = gate[1..].iter().map(String::as_str).collect();
    let payload = payload("PreToolUse.Bash.trade-live.json");
    let env = [("ANIMUS_CONFIG_DIR", state.to_str().unwrap())];
    let without = run_bin(lean_bin(), &args, Some(&payload), &env);
    let with: Vec<&str> = std::iter::once("emit")
        .chain(args.iter().copied())
        .collect();
    let with = run_bin(lean_bin(), &with, Some(&payload), &env);
    assert!(without.stdout.contains("\"permissionDecision\":\"deny\""));
    assert_eq!(without.stdout, with.stdout);
    // `--help` among emit's arguments is an argument emit refuses: the gate denies.
    let mut refused = args.clone();
    refused.push("--help");
    let refused = run_bin(lean_bin(), &refused, Some(&payload), &env);
    assert_has(&refused.stdout, "\"permissionDecision\":\"deny\"");
    assert_has(&refused.stdout, "invalid arguments");
}

/// Issue 12, compile limits as the user sees them: an overlong entry and an automaton too
/// large are errors at `file:line:column` that quote at most the start of the input, and
/// nothing is written.
#[test]
fn compile_limits_are_errors_at_the_place_quoting_only_the_start() {
    let out = temp_dir("limits");
    let cases: Vec<(&str, String, String)> = vec![
        (
            "entry.yaml",
            // 2 MB: the whole entry echoed made the terminal useless.
            format!(
                "agents:\n  a:\n    tool_policy:\n      deny:\n        - Read\n        - Bash(echo {})\n",
                "x".repeat(2 << 20)
            ),
            format!(
                "entry.yaml:6:11: error[AH110]: tool_policy.deny entry is {} bytes, over the 65536-byte limit",
                (2 << 20) + 11
            ),
        ),
        (
            "regex.yaml",
            format!(
                "agents:\n  a:\n    hooks:\n      policy_rules:\n        - id: r\n          decision: deny\n          input_matchers: [{{field: command, regex: '{}'}}]\n",
                "a|".repeat(40_000)
            ),
            "regex.yaml:7:52: error[AH110]: rule `r`: a matcher `regex` is 80000 bytes, over the 65536-byte limit"
                .to_string(),
        ),
        (
            "dfa.yaml",
            "agents:\n  a:\n    tool_policy:\n      deny: [Read]\n    hooks:\n      policy_rules:\n        - id: too-big\n          decision: deny\n          input_matchers: [{field: command, regex: '[ab]*a[ab]{20}'}]\n"
                .to_string(),
            "dfa.yaml:7:11: error[AH105]: rule `too-big`, matcher on `command`: regex `[ab]*a[ab]{20}` is too complex"
                .to_string(),
        ),
    ];
    for (name, text, expected) in &cases {
        let config = out.join(name);
        std::fs::write(&config, text).unwrap();
        let fresh = out.join(format!("out-{name}"));
        let result = compile(&config, "a", &fresh);
        let stderr = result.stderr.clone();
        assert_eq!(result.code, Some(1), "{name}: {stderr:.2000}");
        assert!(
            stderr.starts_with(&format!("{}/{expected}", out.display())),
            "{name}: {stderr:.2000}"
        );
        assert!(
            stderr.len() < 1500,
            "{name}: stderr echoes the input ({} bytes): {stderr:.2000}",
            stderr.len()
        );
        assert!(stderr.contains("nothing was written"), "{name}: {stderr}");
        assert!(!fresh.join("animus-policy.json").exists(), "{name}");
    }
}

const PACK_AGENTS: &str =
    "agents:\n  a:\n    packs: [default]\n  b:\n    packs:\n      - core\n      - cor\n";

#[test]
fn packs_lists_every_pack_and_a_profile_enables_them_by_name() {
    let listed = hook(&["packs"], b"");
    assert_eq!(listed.code, Some(0), "{}", listed.stderr);
    for name in [
        "core.git",
        "core.filesystem",
        "database.postgresql",
        "kubernetes",
    ] {
        assert!(listed.stdout.contains(name), "{name}: {}", listed.stdout);
    }
    assert_has(&listed.stdout, "deny reset-hard");
    // Each pack's line names its category, rule count and whether `default` enables it.
    assert!(
        listed.stdout.lines().next().unwrap().contains("default"),
        "{}",
        listed.stdout
    );
    let git_line = listed
        .stdout
        .lines()
        .find(|l| l.starts_with("core.git "))
        .unwrap();
    let words: Vec<&str> = git_line.split_whitespace().collect();
    assert_eq!(words[1], "core", "{git_line}");
    assert!(words[2].parse::<usize>().unwrap() >= 10, "{git_line}");
    assert_eq!(words[3], "yes", "{git_line}");
    let json = hook(&["packs", "--json"], b"");
    let packs: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    let git = packs
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "core.git")
        .unwrap();
    assert_eq!(git["category"], "core");
    assert_eq!(git["default"], true);
    assert_eq!(
        git["rule_count"].as_u64().unwrap() as usize,
        git["rules"].as_array().unwrap().len()
    );
    assert!(
        packs
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["default"] == false),
        "some packs are opt-in"
    );
    assert!(
        git["rules"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["id"] == "core.git:reset-hard" && r["decision"] == "deny")
    );
    assert_eq!(hook(&["packs", "--frobnicate"], b"").code, Some(2));

    // A profile enabling the recommended set (`default`) denies `git reset --hard` with the
    // pack's reason and the safer way; an unknown pack name is an error at its place, and
    // nothing is written.
    let dir = temp_dir("packs-cli");
    let config = write_file(&dir, "p.yaml", PACK_AGENTS);
    let out = dir.join("a");
    let compiled = compile(&config, "a", &out);
    assert_eq!(compiled.code, Some(0), "{}", compiled.stderr);
    let policy = out.join("animus-policy.json");
    let decided = hook(
        &["check", "--policy", policy.to_str().unwrap()],
        br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git reset --hard HEAD~1"},"cwd":"/tmp"}"#,
    );
    assert_has(&decided.stdout, "decision: deny");
    assert_has(
        &decided.stdout,
        "core.git:reset-hard: git reset --hard discards",
    );
    assert_has(&decided.stdout, "Instead: git stash");
    // Under an allowlist (default deny) a pack's ask denies: an ask would have turned the
    // unlisted `git branch -D` from the default deny into a prompt.
    let allowlist = write_file(
        &dir,
        "allowlist.yaml",
        "agents:\n  r:\n    packs: [core]\n    tool_policy:\n      allow: [\"Bash(git branch:*)\"]\n  o:\n    packs: [core]\n",
    );
    for (agent, expected) in [("r", "decision: deny"), ("o", "decision: ask")] {
        let out = dir.join(agent);
        let compiled = compile(&allowlist, agent, &out);
        assert_eq!(compiled.code, Some(0), "{}", compiled.stderr);
        let decided = hook(
            &["check", "--policy", out.join("animus-policy.json").to_str().unwrap()],
            br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git branch -D old"},"cwd":"/tmp"}"#,
        );
        assert!(
            decided.stdout.starts_with(expected),
            "{agent}: {}",
            decided.stdout
        );
        assert!(
            decided.stdout.contains("core.git:branch-force-delete"),
            "{agent}: {}",
            decided.stdout
        );
    }
    let bad = compile(&config, "b", &dir.join("b"));
    assert_eq!(bad.code, Some(1), "{}", bad.stderr);
    assert_has(
        &bad.stderr,
        "p.yaml:7:9: error[AH109]: no pack or category `cor`",
    );
    assert_has(&bad.stderr, "animus-hook packs");
    assert!(!dir.join("b").exists(), "nothing is written");
}

/// `animus-hook <command> --help` prints that command's usage and exits 0 (`inject --help`
/// used to be "invalid option"); a `--help` after `--` belongs to the launch arguments.
#[test]
fn every_command_answers_help() {
    for command in [
        "emit", "compile", "inject", "check", "import", "packs", "demo",
    ] {
        for flag in ["--help", "-h"] {
            let run = hook(&[command, flag], b"");
            assert_eq!(run.code, Some(0), "{command} {flag}: {}", run.stderr);
            assert!(
                run.stdout
                    .contains(&format!("\nUsage: animus-hook {command}")),
                "{command} {flag}: {}",
                run.stdout
            );
            assert_eq!(
                run.stdout.matches("Usage: animus-hook").count(),
                1,
                "only {command}'s usage: {}",
                run.stdout
            );
        }
    }
    let inject = hook(
        &["inject", "--provider", "claude", "--", "claude", "--help"],
        b"",
    );
    assert_eq!(inject.code, Some(2), "{}", inject.stdout);
    assert_has(&inject.stderr, "required arguments were not provided");
}
