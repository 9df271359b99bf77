//! `animus-hook diff`: what changes between two compiled policies, with witnesses.

mod common;

use std::path::{Path, PathBuf};
use test_support::write_file;

use common::{compile_config, run_cli, temp_dir};
use test_support::assert_has;

fn compile(dir: &Path, name: &str, yaml: &str) -> PathBuf {
    let config = dir.join(format!("{name}.yaml"));
    std::fs::write(&config, yaml).unwrap();
    compile_config(&config, "a", &dir.join(name))
}

const V1: &str = r#"agents:
  a:
    tool_policy:
      deny: ["Bash(curl:*)", "Read(./secrets/**)"]
    hooks:
      policy_rules:
        - id: no-prod
          tools: [Bash]
          input_matchers: [{field: command, regex: 'deploy .*--env prod'}]
          decision: deny
"#;

const V2: &str = r#"agents:
  a:
    tool_policy:
      deny: ["Bash(curl:*)"]
      ask: ["Bash(git push:*)"]
    hooks:
      policy_rules:
        - id: no-prod
          tools: [Bash]
          input_matchers: [{field: command, regex: 'deploy .*--env (prod|staging)'}]
          decision: deny
"#;

fn diff(args: &[&str]) -> common::Run {
    let mut full = vec!["diff"];
    full.extend_from_slice(args);
    run_cli(&full)
}

#[test]
fn the_same_policy_is_no_difference() {
    let dir = temp_dir("diff-same");
    let p = compile(&dir, "v1", V1);
    let run = diff(&[p.to_str().unwrap(), p.to_str().unwrap()]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stdout
            .ends_with("0 added, 0 removed, 0 changed, 0 witnesses: the policies are the same\n"),
        "{}",
        run.stdout
    );
}

#[test]
fn changes_are_listed_each_with_a_witness() {
    let dir = temp_dir("diff-changes");
    let (a, b) = (compile(&dir, "v1", V1), compile(&dir, "v2", V2));
    let (a, b) = (a.to_str().unwrap(), b.to_str().unwrap());
    let run = diff(&[a, b, "--without-self-protection"]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let out = &run.stdout;
    assert_has(
        out,
        "+ tool_policy.ask:Bash(git push:*) (ask): Bash, Monitor where command [segment] \"git push:*\"\n",
    );
    assert_has(out, "- tool_policy.deny:Read(./secrets/**) (deny)");
    assert_has(out, "~ no-prod: matchers\n");
    assert!(!out.contains("self_protection"), "{out}");
    // A witness made from the rule, decided by both policies.
    assert_has(
        out,
        "  tool_policy.ask:Bash(git push:*): Bash: git push\n      before: defer (the policy default)\n      after:  ask (rule `tool_policy.ask:Bash(git push:*)`)\n",
    );
    assert_has(
        out,
        "  tool_policy.deny:Read(./secrets/**): Read: {\"file_path\":\"/home/user/project/secrets/x\"}\n      before: deny",
    );
    // The changed regex: its own witnesses (`deploy --env prod`) are denied by both; the
    // difference is only found among real calls.
    assert_has(out, "  no-prod: none found");
    let calls = write_file(
        &dir,
        "calls.jsonl",
        "{\"command\": \"ls -la\"}\n{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"deploy web --env staging\"}}\n",
    );
    let run = diff(&[
        a,
        b,
        "--without-self-protection",
        "--calls",
        calls.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["same"], false);
    let prod = v["witnesses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["rule"] == "no-prod")
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(prod["tool_input"]["command"], "deploy web --env staging");
    assert_eq!(prod["before"]["decision"], "defer");
    assert_eq!(prod["after"]["decision"], "deny");

    // Written to different directories, the self-protection rules differ too.
    let run = diff(&[a, b]);
    assert_has(&run.stdout, "+ animus.self_protection:");
}

#[test]
fn trouble_exits_2() {
    let dir = temp_dir("diff-bad");
    let a = compile(&dir, "v1", V1);
    let a = a.to_str().unwrap();
    let run = diff(&[a]);
    assert_eq!(run.code, Some(2));
    assert_has(&run.stderr, "required arguments were not provided");
    assert_has(&run.stderr, "<AFTER>");
    let missing = dir.join("nowhere.json");
    let run = diff(&[a, missing.to_str().unwrap()]);
    assert_eq!(run.code, Some(2));
    assert_has(&run.stderr, "nowhere.json");
    let other = dir.join("other.json");
    let text = std::fs::read_to_string(a).unwrap();
    std::fs::write(
        &other,
        text.replacen("\"version\": 1", "\"version\": 99", 1),
    )
    .unwrap();
    let run = diff(&[a, other.to_str().unwrap()]);
    assert_eq!(
        run.code,
        Some(2),
        "a policy of another version: {}",
        run.stdout
    );
    assert_has(&run.stderr, "invalid policy");
    assert_has(&run.stderr, "other.json");
    let calls = write_file(&dir, "calls.jsonl", "{\"command\": \"ls\"}\n[1]\n");
    let run = diff(&[a, a, "--calls", calls.to_str().unwrap()]);
    assert_eq!(run.code, Some(2));
    assert_has(&run.stderr, "calls.jsonl:2:");
    assert!(run.stdout.is_empty(), "{}", run.stdout);
}
