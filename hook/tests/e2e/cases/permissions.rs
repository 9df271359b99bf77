//! Claude permission syntax beyond Bash (issue 11), through the real CLI: path rules reach
//! every spelling of a path (`src/../.env`, a symlink, `cat .env`), an allow glob does not
//! stretch past `..`, a domain is the URL's parsed host, skills match by name, and an ask rule
//! on paths refuses in `-p`. Each refused call has a sibling that runs in the same session.

use std::fs;

use serde_json::json;

use crate::e2e::driver::Sandbox;
use crate::e2e::fixtures::*;
use crate::e2e::mock_api::{MockApi, Script};

const AGENT: &str = "claude-syntax";

fn syntax_run(sandbox: &Sandbox, script: Script) -> MockApi {
    let (mock, outcome) = guarded_run(sandbox, "e2e/gates.yaml", AGENT, &[], script);
    outcome.completed();
    mock
}

/// The hook's own decision and deciding rule for one call, from the session log.
fn decided(sandbox: &Sandbox, tool_use_id: &str) -> (String, String) {
    let log = sandbox.session_log();
    let pre = gate_record(&log, "PreToolUse", tool_use_id);
    (
        pre["decision"].as_str().unwrap_or("").to_string(),
        pre["deciding_rule"].as_str().unwrap_or("").to_string(),
    )
}

/// The call was refused: by the hook's `rule`, or — when the CLI's own copy of the same deny
/// entry (which `inject` writes into its permissions) refused it before any hook ran — by the
/// CLI, with no PreToolUse record at all. Returns who refused it.
fn refused(sandbox: &Sandbox, mock: &MockApi, tool_use_id: &str, rule: &str) -> &'static str {
    let result = mock.tool_result(tool_use_id);
    assert!(result.is_error, "{tool_use_id} was refused: {result:#?}");
    let log = sandbox.session_log();
    let pre: Vec<_> = records(&log, "PreToolUse")
        .into_iter()
        .filter(|r| r["tool_use_id"] == tool_use_id)
        .collect();
    if pre.is_empty() {
        assert!(
            result.text.contains("denied"),
            "{tool_use_id}: refused by the CLI's own deny rule: {result:#?}"
        );
        return "cli";
    }
    assert_eq!(pre[0]["decision"], "deny", "{tool_use_id}");
    assert!(
        pre[0]["deciding_rule"]
            .as_str()
            .unwrap_or("")
            .starts_with(rule),
        "{tool_use_id}: {:?}",
        pre[0]["deciding_rule"]
    );
    assert!(
        result.text.contains("Denied by tool_policy.deny entry"),
        "{result:#?}"
    );
    "hook"
}

fn assert_never_reached_the_model(mock: &MockApi, marker: &str) {
    for request in mock.model_calls() {
        assert!(
            !request.body.as_ref().unwrap().to_string().contains(marker),
            "`{marker}` reached the model"
        );
    }
}

pub fn path_deny_reaches_every_spelling_of_the_file() {
    let sandbox = Sandbox::new("path-spellings");
    let project = &sandbox.project;
    fs::create_dir_all(project.join("src")).unwrap();
    fs::write(project.join(".env"), "API_KEY=DOTENV-e2e-secret\n").unwrap();
    fs::write(project.join("src/lib.txt"), "public-lib-e2e\n").unwrap();
    std::os::unix::fs::symlink(project.join(".env"), project.join("src/innocent.txt")).unwrap();
    fs::create_dir_all(sandbox.home.join(".ssh")).unwrap();
    fs::write(sandbox.home.join(".ssh/id_rsa"), "SSHKEY-e2e-secret\n").unwrap();
    let read = |path: String| json!({"file_path": path});
    let p = project.display().to_string();
    let script = Script::new()
        .tool_call("toolu_lib", "Read", read(format!("{p}/src/lib.txt")))
        .tool_call("toolu_dotdot", "Read", read(format!("{p}/src/../.env")))
        .tool_call("toolu_link", "Read", read(format!("{p}/src/innocent.txt")))
        .tool_call(
            "toolu_ssh",
            "Read",
            read(format!("{}/.ssh/id_rsa", sandbox.home.display())),
        )
        .tool_call("toolu_cat", "Bash", bash("cat .env"));
    let mock = syntax_run(&sandbox, script);

    assert!(
        mock.tool_result("toolu_lib")
            .text
            .contains("public-lib-e2e"),
        "the allowed read ran: {:#?}",
        mock.tool_results()
    );
    let mut by = Vec::new();
    for (id, rule) in [
        ("toolu_dotdot", "tool_policy.deny:Read(./.env)"),
        ("toolu_link", "tool_policy.deny:Read(./.env)"),
        ("toolu_ssh", "tool_policy.deny:Read(~/.ssh/**)"),
    ] {
        by.push((id, refused(&sandbox, &mock, id, rule)));
    }
    // The CLI resolves `..` itself, not symlinks: the link is the hook's to refuse.
    assert!(by.contains(&("toolu_link", "hook")), "{by:?}");
    eprintln!("path spellings refused by: {by:?}");
    // `cat .env` is covered by `Bash(cat:*)`, but reads what `Read(./.env)` denies.
    let (decision, rule) = decided(&sandbox, "toolu_cat");
    assert_eq!(decision, "deny");
    assert!(rule.starts_with("tool_policy.deny:Read(./.env)"), "{rule}");
    assert_never_reached_the_model(&mock, "DOTENV-e2e-secret");
    assert_never_reached_the_model(&mock, "SSHKEY-e2e-secret");
}

pub fn edit_allow_does_not_stretch_past_dotdot() {
    let sandbox = Sandbox::new("edit-glob");
    let project = &sandbox.project;
    fs::create_dir_all(project.join("src")).unwrap();
    fs::create_dir_all(project.join("lib")).unwrap();
    let p = project.display().to_string();
    let write = |path: String| json!({"file_path": path, "content": "written by the e2e mock\n"});
    let script = Script::new()
        .tool_call("toolu_inside", "Write", write(format!("{p}/src/new.txt")))
        .tool_call(
            "toolu_outside",
            "Write",
            write(format!("{p}/src/../lib/x.txt")),
        )
        .tool_call(
            "toolu_ask",
            "Read",
            json!({"file_path": format!("{p}/notes/todo.md")}),
        );
    fs::create_dir_all(project.join("notes")).unwrap();
    fs::write(project.join("notes/todo.md"), "NOTES-e2e\n").unwrap();
    let mock = syntax_run(&sandbox, script);

    // Covered: the hook abstains and the CLI grants it from its own `Edit(src/**)`.
    assert_eq!(decided(&sandbox, "toolu_inside").0, "allow");
    assert!(
        project.join("src/new.txt").is_file(),
        "the covered write ran: {:#?}",
        mock.tool_results()
    );
    // `src/../lib/x.txt` is `lib/x.txt`: not covered, the allowlist's default denies.
    assert_eq!(
        decided(&sandbox, "toolu_outside"),
        ("deny".into(), String::new())
    );
    assert!(
        !project.join("lib/x.txt").exists(),
        "the uncovered write did not run"
    );
    // An ask rule on paths: nobody can answer in `-p`, the call is refused.
    assert_eq!(
        decided(&sandbox, "toolu_ask"),
        ("ask".into(), "tool_policy.ask:Read(./notes/**)".into())
    );
    assert!(mock.tool_result("toolu_ask").is_error);
    assert_never_reached_the_model(&mock, "NOTES-e2e");
}

pub fn webfetch_domain_is_the_parsed_host_and_skills_match_by_name() {
    let sandbox = Sandbox::new("domains");
    // The CLI checks that a skill exists before any hook runs: give it two.
    for name in ["danger-zone", "greet"] {
        let dir = sandbox.project.join(".claude/skills").join(name);
        fs::create_dir_all(&dir).unwrap();
        fs::write(
            dir.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: An e2e skill.\n---\nSay SKILL-{name}-e2e.\n"),
        )
        .unwrap();
    }
    let fetch = |url: &str| json!({"url": url, "prompt": "summarise"});
    let script = Script::new()
        .tool_call(
            "toolu_query",
            "WebFetch",
            fetch("https://evil.com/?q=example.com"),
        )
        .tool_call(
            "toolu_suffix",
            "WebFetch",
            fetch("https://example.com.evil.com/"),
        )
        .tool_call(
            "toolu_userinfo",
            "WebFetch",
            fetch("https://user@evil.com/example.com"),
        )
        .tool_call("toolu_escaped", "WebFetch", fetch("https://%65vil.com/"))
        .tool_call(
            "toolu_example",
            "WebFetch",
            fetch("https://example.com/page"),
        )
        .tool_call("toolu_danger", "Skill", json!({"skill": "danger-zone"}))
        .tool_call("toolu_greet", "Skill", json!({"skill": "greet"}));
    let mock = syntax_run(&sandbox, script);

    for id in ["toolu_query", "toolu_userinfo", "toolu_escaped"] {
        refused(
            &sandbox,
            &mock,
            id,
            "tool_policy.deny:WebFetch(domain:evil.com)",
        );
    }
    // `example.com.evil.com` lies below `evil.com` (the deny reaches hosts below it).
    refused(
        &sandbox,
        &mock,
        "toolu_suffix",
        "tool_policy.deny:WebFetch(domain:evil.com)",
    );
    // The real example.com is covered: the hook abstains (offline, the fetch itself fails).
    assert_eq!(
        decided(&sandbox, "toolu_example"),
        (
            "allow".into(),
            "tool_policy.allow:WebFetch(domain:example.com)".into()
        )
    );
    assert!(
        !mock
            .tool_result("toolu_example")
            .text
            .contains("Denied by tool_policy"),
        "{:#?}",
        mock.tool_result("toolu_example")
    );
    refused(
        &sandbox,
        &mock,
        "toolu_danger",
        "tool_policy.deny:Skill(danger:*)",
    );
    assert_eq!(
        decided(&sandbox, "toolu_greet"),
        ("allow".into(), "tool_policy.allow:Skill(greet)".into())
    );
}
