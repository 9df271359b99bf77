//! `animus-hook lint` as an author runs it.

mod common;

use std::path::Path;
use test_support::assert_starts;
use test_support::write_file;

use common::{Run, compile_argv, repo, run_cli, temp_dir};
use test_support::assert_has;

/// `animus-hook lint --config <config> --agent a`, then `extra`.
fn lint_a(config: &str, extra: &[&str]) -> Run {
    let mut args = vec!["lint", "--config", config, "--agent", "a"];
    args.extend_from_slice(extra);
    run_cli(&args)
}

/// A profile with one of each mistake `lint` warns about.
const MISTAKES: &str = r#"agents:
  a:
    tool_policy:
      allow:
        - "Bash"
        - "Bash(git push:*)"
        - "Bash(ls:*)"
        - "Bash(ls:*)"
      deny:
        - "Bash(git:*)"
        - "Frobnicate(rm:*)"
    hooks:
      policy_rules:
        - id: other-tool
          tools: ["frobnicate"]
          input_matchers: [{field: command, regex: "rm"}]
          decision: deny
        - id: twin
          tools: ["Bash"]
          input_matchers: [{field: command, regex: "git push"}]
          decision: deny
        - id: twin-again
          tools: ["Bash"]
          input_matchers: [{field: command, regex: "git push"}]
          decision: deny
"#;

/// Rules that can never fire: errors in `compile` and `lint` alike (one severity table).
const NEVER_FIRE: &str = r#"agents:
  a:
    tool_policy:
      deny:
        - "Bsh(rm:*)"
    hooks:
      policy_rules:
        - id: wrong-field
          tools: ["Read"]
          input_matchers: [{field: command, regex: "x"}]
          decision: deny
        - id: empty-language
          tools: ["Bash"]
          input_matchers: [{field: command, regex: '[^\s\S]'}]
          decision: deny
"#;

/// `lint` and `compile` (into `out`) of agent `a` in `config`: both fail with exit 1 and say
/// each `(at, says)` on one line of stderr. Returns lint's run.
fn assert_lint_and_compile_fail(config: &str, out: &Path, errors: &[(&str, &str)]) -> Run {
    let lint = run_cli(&["lint", "--config", config, "--agent", "a"]);
    let out = out.to_str().unwrap();
    let compile_args = [
        "compile",
        "--config",
        config,
        "--agent",
        "a",
        "--out-dir",
        out,
    ];
    let compile = run_cli(&compile_args);
    for run in [&lint, &compile] {
        assert_eq!(run.code, Some(1), "{}{}", run.stdout, run.stderr);
        for (at, says) in errors {
            assert!(
                run.stderr
                    .lines()
                    .any(|l| l.contains(at) && l.contains(says)),
                "{at} {says}:\n{}",
                run.stderr
            );
        }
    }
    lint
}

#[test]
fn what_never_fires_is_an_error_in_compile_and_lint_alike() {
    let dir = temp_dir("lint-never-fires");
    let config = write_file(&dir, "p.yaml", NEVER_FIRE);
    let c = config.to_str().unwrap();
    let out = dir.join("out");
    let lint = assert_lint_and_compile_fail(
        c,
        &out,
        &[(
            "p.yaml:5:11: error",
            "`Bsh(rm:*)` names `Bsh`, no tool any harness calls: did you mean `Bash`?",
        )],
    );
    assert_has(&lint.stderr, "does not compile");
    // Without the misspelt entry, the author rules' errors are next.
    std::fs::write(
        &config,
        NEVER_FIRE.replace("\"Bsh(rm:*)\"", "\"Bash(rm:*)\""),
    )
    .unwrap();
    assert_lint_and_compile_fail(
        c,
        &out,
        &[
            (
                "p.yaml:8:11: error",
                "no tool it applies to (Read) has a field `command`",
            ),
            (
                "p.yaml:12:11: error",
                "the regex `[^\\s\\S]` on `command` matches no text",
            ),
        ],
    );
    assert!(!out.exists(), "compile wrote nothing");
}

#[test]
fn every_mistake_is_named_at_its_place() {
    let dir = temp_dir("lint-mistakes");
    let config = write_file(&dir, "p.yaml", MISTAKES);
    let c = config.to_str().unwrap();
    let run = lint_a(c, &[]);
    assert_eq!(run.code, Some(0), "warnings exit 0: {}", run.stdout);
    let out = &run.stdout;
    for (at, says) in [
        (
            "p.yaml:11:11: warning",
            "`Frobnicate(rm:*)` names `Frobnicate`, which is not a tool claude",
        ),
        (
            "p.yaml:14:11: warning",
            "rule `other-tool`: tool `frobnicate` matches no Claude tool and no MCP tool",
        ),
        ("p.yaml:5:11: warning", "`Bash` allows every call of `Bash`"),
        (
            "p.yaml:6:11: warning",
            "`Bash(git push:*)` never grants: tool_policy.deny entry `Bash(git:*)`",
        ),
        (
            "p.yaml:8:11: warning",
            "`Bash(ls:*)` is listed more than once",
        ),
        (
            "p.yaml:22:11: warning",
            "rule `twin-again` duplicates rule `twin`",
        ),
    ] {
        assert!(
            out.lines().any(|l| l.contains(at) && l.contains(says)),
            "{at} {says}:\n{out}"
        );
    }
    assert!(
        out.trim_end()
            .ends_with(&format!("0 errors, 6 warnings (agent `a` of {c})")),
        "{out}"
    );
    let run = run_cli(&["lint", "--config", c, "--agent", "a", "--deny-warnings"]);
    assert_eq!(run.code, Some(1), "{}", run.stdout);
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        1,
        "lint writes nothing"
    );
}

#[test]
fn warnings_pass_unless_denied() {
    let config = repo().join("corpus/profiles/allowlist.yaml");
    let c = config.to_str().unwrap();
    let run = run_cli(&["lint", "--config", c, "--agent", "reviewer"]);
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    assert_has(&run.stdout, "0 errors, 2 warnings");
    assert_has(&run.stdout, "decision `ask` dropped");
    let run = run_cli(&[
        "lint",
        "--config",
        c,
        "--agent",
        "reviewer",
        "--deny-warnings",
    ]);
    assert_eq!(run.code, Some(1), "{}", run.stdout);

    let trader = repo().join("corpus/profiles/trader.yaml");
    let run = run_cli(&[
        "lint",
        "--config",
        trader.to_str().unwrap(),
        "--agent",
        "trader",
        "--deny-warnings",
    ]);
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    assert_starts(&run.stdout, "0 errors, 0 warnings");
}

const UNCLOSED_LIST: &str = "agents:\n  a:\n    tool_policy:\n      deny: [Bash\n";

#[test]
fn bad_input() {
    let run = run_cli(&["lint", "--agent", "a"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert_has(&run.stderr, "required arguments were not provided");
    assert_has(&run.stderr, "--config <FILE>");
    let run = run_cli(&["lint", "--config", "x", "--agent", "a", "--fix"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);

    let dir = temp_dir("lint-bad");
    let config = write_file(&dir, "p.yaml", UNCLOSED_LIST);
    let c = config.to_str().unwrap();
    let run = lint_a(c, &[]);
    assert_eq!(run.code, Some(1));
    assert_has(&run.stderr, "p.yaml:4:");
    assert_has(&run.stderr, "does not compile");
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    let missing = dir.join("missing.yaml");
    let run = run_cli(&[
        "lint",
        "--config",
        missing.to_str().unwrap(),
        "--agent",
        "a",
    ]);
    assert_eq!(run.code, Some(1));
    assert_has(&run.stderr, "missing.yaml");
}

/// Each finding carries its code in text (`warning[AH203]`) and in `--json`, one JSON
/// document that parses; `--ignore` leaves out findings by code or name.
#[test]
fn findings_have_codes_in_text_and_json() {
    let dir = temp_dir("lint-json");
    let config = write_file(&dir, "p.yaml", MISTAKES);
    let c = config.to_str().unwrap();
    let text = lint_a(c, &[]);
    for expected in [
        "p.yaml:5:11: warning[AH203]: tool_policy.allow entry `Bash` allows every call",
        "p.yaml:6:11: warning[AH202]: tool_policy.allow entry `Bash(git push:*)` never grants",
        "p.yaml:8:11: warning[AH205]: tool_policy.allow entry `Bash(ls:*)` is listed more",
        "p.yaml:22:11: warning[AH204]: rule `twin-again` duplicates rule `twin`",
        "p.yaml:14:11: warning[AH201]: rule `other-tool`: tool `frobnicate` matches no",
    ] {
        assert!(
            text.stdout.contains(expected),
            "{expected}\n{}",
            text.stdout
        );
    }

    let run = lint_a(c, &["--json"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).expect("one JSON document");
    assert_eq!(doc["agent"], "a");
    assert_eq!(doc["compiles"], true);
    assert_eq!(doc["errors"], 0);
    assert_eq!(doc["warnings"], 6);
    let diagnostics = doc["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 6);
    let broad = diagnostics
        .iter()
        .find(|d| d["code"] == "AH203")
        .expect("the allow-everything finding");
    assert_eq!(broad["name"], "allow-everything");
    assert_eq!(broad["severity"], "warning");
    assert_eq!(broad["file"], c);
    assert_eq!(
        (broad["line"].as_u64(), broad["column"].as_u64()),
        (Some(5), Some(11))
    );
    assert!(broad["message"].as_str().unwrap().contains("`Bash`"));
    assert_has(broad["help"].as_str().unwrap(), "list the commands");

    // --ignore by code and by name, repeated or as a comma list.
    let run = lint_a(c, &["--json", "--ignore", "AH203,duplicate-rule"]);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(doc["warnings"], 4, "{doc}");
    assert!(
        doc["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| d["code"] != "AH203" && d["code"] != "AH204")
    );
    let run = lint_a(c, &["--ignore", "AH999"]);
    assert_eq!(run.code, Some(2));
    assert_has(&run.stderr, "`AH999` is no diagnostic code");
}

const MISSPELT_KEY: &str = "agents:\n  a:\n    toolPolicy:\n      deny: [\"Bash(rm:*)\"]\n";

/// A profile that does not compile: its errors, with codes, in the same JSON document.
#[test]
fn errors_in_json_when_the_profile_does_not_compile() {
    let dir = temp_dir("lint-json-errors");
    let config = write_file(&dir, "p.yaml", MISSPELT_KEY);
    let c = config.to_str().unwrap();
    let run = lint_a(c, &["--json"]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(doc["compiles"], false);
    let first = &doc["diagnostics"][0];
    assert_eq!(first["code"], "AH101", "{doc}");
    assert_eq!(first["name"], "unknown-key");
    assert_eq!(first["severity"], "error");
    let text = lint_a(c, &[]);
    assert_has(&text.stderr, "error[AH101]: unknown key `toolPolicy`");

    // compile --json: the same diagnostics, and `ok: false`.
    let out = dir.join("out");
    let run = run_cli(&[&compile_argv(c, "a", &out)[..], &["--json"]].concat());
    assert_eq!(run.code, Some(1));
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(doc["ok"], false);
    assert_eq!(doc["diagnostics"][0]["code"], "AH101");
    assert!(!out.exists());
}
