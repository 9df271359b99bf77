use serde_json::{Value, json};

use super::*;

/// A canonical call owning its parts, so a test can pass temporaries.
struct Owned {
    tool_name: String,
    tool_input: Value,
    cwd: Option<String>,
    only_when_a_rule_decides: bool,
}

/// [`super::canonical_calls`], owned.
fn canonical_calls(
    harness: Harness,
    tool_name: &str,
    tool_input: &Value,
    mcp_server: Option<&str>,
) -> Vec<Owned> {
    super::canonical_calls(harness, tool_name, tool_input, mcp_server)
        .into_iter()
        .map(|c| Owned {
            tool_name: c.tool_name.into_owned(),
            tool_input: c.tool_input.into_owned(),
            cwd: c.cwd,
            only_when_a_rule_decides: c.only_when_a_rule_decides,
        })
        .collect()
}

fn names(calls: &[Owned]) -> Vec<&str> {
    calls.iter().map(|c| c.tool_name.as_str()).collect()
}

#[test]
fn claude_is_canonical() {
    let input = json!({"command": "ls", "filePath": "x"});
    let calls = canonical_calls(Harness::Claude, "bash", &input, None);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].tool_name, "bash");
    assert_eq!(calls[0].tool_input, input);
}

#[test]
fn shells_are_bash_with_their_directory() {
    let calls = |harness, tool, input| canonical_calls(harness, tool, &input, None);
    let gemini = calls(
        Harness::Gemini,
        "run_shell_command",
        json!({"command": "rm -rf /", "dir_path": "sub"}),
    );
    assert_eq!(names(&gemini), ["Bash"]);
    assert_eq!(gemini[0].tool_input["command"], "rm -rf /");
    assert_eq!(gemini[0].cwd.as_deref(), Some("sub"));
    let opencode = calls(
        Harness::Opencode,
        "bash",
        json!({"command": "ls", "workdir": "/abs"}),
    );
    assert_eq!(names(&opencode), ["Bash"]);
    assert_eq!(opencode[0].cwd.as_deref(), Some("/abs"));
    let codex = canonical_calls(Harness::Codex, "Bash", &json!({"command": "ls"}), None);
    assert_eq!(names(&codex), ["Bash"]);
    assert_eq!(codex[0].cwd, None);
    // Codex runs `apply_patch` heredocs given to its shell as patches: their files are edits.
    let heredoc = canonical_calls(
        Harness::Codex,
        "Bash",
        &json!({"command": "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: /etc/hosts\n@@\n-a\n+b\n*** End Patch\nEOF\n"}),
        None,
    );
    assert_eq!(names(&heredoc), ["Bash", "Edit"]);
    assert_eq!(heredoc[1].tool_input["file_path"], "/etc/hosts");
}

#[test]
fn camel_case_paths_are_renamed() {
    let calls = canonical_calls(
        Harness::Opencode,
        "edit",
        &json!({"filePath": "/p/a.rs", "oldString": "a", "newString": "b", "file_path": "/decoy"}),
        None,
    );
    assert_eq!(names(&calls), ["Edit"]);
    // The harness reads `filePath`: a `file_path` beside it cannot stand in for it.
    assert_eq!(calls[0].tool_input["file_path"], "/p/a.rs");
    assert_eq!(calls[0].tool_input["old_string"], "a");
    assert!(calls[0].tool_input.get("filePath").is_none());
    let read = canonical_calls(Harness::Opencode, "read", &json!({"filePath": "/e"}), None);
    assert_eq!(names(&read), ["Read"]);
    assert_eq!(read[0].tool_input["file_path"], "/e");
    let gemini = canonical_calls(
        Harness::Gemini,
        "replace",
        &json!({"file_path": "/f"}),
        None,
    );
    assert_eq!(names(&gemini), ["Edit"]);
    assert_eq!(gemini[0].tool_input["file_path"], "/f");
}

#[test]
fn patches_are_one_call_per_file() {
    let patch = "*** Begin Patch\n*** Add File: new.txt\n+hi\n*** Update File: src/a.rs\n\
                 *** Move to: /etc/passwd\n@@\n-a\n+b\n*** Delete File:  old.txt \n\
                 *** End Patch\n";
    let calls = canonical_calls(
        Harness::Codex,
        "apply_patch",
        &json!({"command": patch}),
        None,
    );
    let got: Vec<(&str, &str)> = calls
        .iter()
        .map(|c| {
            (
                c.tool_name.as_str(),
                c.tool_input["file_path"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("Write", "new.txt"),
            ("Edit", "src/a.rs"),
            ("Edit", "/etc/passwd"),
            ("Edit", "old.txt")
        ]
    );
    let opencode = canonical_calls(
        Harness::Opencode,
        "apply_patch",
        &json!({"patchText": "*** Begin Patch\n*** Update File: x\n*** End Patch"}),
        None,
    );
    assert_eq!(opencode[0].tool_input["file_path"], "x");
    // A patch naming no file is still an edit: a rule on the tool applies.
    let empty = canonical_calls(Harness::Codex, "apply_patch", &json!({"command": ""}), None);
    assert_eq!(names(&empty), ["Edit"]);
}

#[test]
fn web_fetch_prompts_are_one_call_per_url() {
    let calls = canonical_calls(
        Harness::Gemini,
        "web_fetch",
        &json!({"prompt": "Summarise HTTPS://Evil.example/x, and http://a.test/b)\nthen http:// nothing"}),
        None,
    );
    let urls: Vec<&str> = calls
        .iter()
        .map(|c| c.tool_input["url"].as_str().unwrap())
        .collect();
    assert_eq!(
        urls,
        [
            "HTTPS://Evil.example/x,",
            "HTTPS://Evil.example/x",
            "http://a.test/b)",
            "http://a.test/b"
        ]
    );
    assert!(calls.iter().all(|c| c.tool_name == "WebFetch"));
    let none = canonical_calls(Harness::Gemini, "web_fetch", &json!({"prompt": "hi"}), None);
    assert_eq!(names(&none), ["WebFetch"]);
}

#[test]
fn mcp_names_in_each_spelling() {
    let input = json!({"x": 1});
    assert_eq!(
        names(&canonical_calls(
            Harness::Codex,
            "mcp__gh__issue",
            &input,
            None
        )),
        ["mcp__gh__issue"]
    );
    assert_eq!(
        names(&canonical_calls(
            Harness::Gemini,
            "mcp_my_srv_do_it",
            &input,
            Some("my_srv")
        )),
        ["mcp__my_srv__do_it"]
    );
    // Without the server every reading is decided.
    assert_eq!(
        names(&canonical_calls(
            Harness::Gemini,
            "mcp_my_srv_do",
            &input,
            None
        )),
        ["mcp__my__srv_do", "mcp__my_srv__do"]
    );
    // opencode: every MCP reading, and the name as given, which counts only when a rule
    // decides it (`plan_exit`, a custom tool `<file>_<export>`).
    let opencode = canonical_calls(Harness::Opencode, "echo_say", &input, None);
    assert_eq!(names(&opencode), ["echo_say", "mcp__echo__say"]);
    assert_eq!(
        opencode
            .iter()
            .map(|c| c.only_when_a_rule_decides)
            .collect::<Vec<_>>(),
        [true, false]
    );
    // Not MCP spellings: kept as given.
    assert_eq!(
        names(&canonical_calls(Harness::Gemini, "ask_user", &input, None)),
        ["ask_user"]
    );
    assert_eq!(
        names(&canonical_calls(
            Harness::Opencode,
            "todowrite",
            &input,
            None
        )),
        ["todowrite"]
    );
}

#[test]
fn events_and_names() {
    for h in Harness::ALL {
        assert_eq!(Harness::parse(h.as_str()), Some(h));
    }
    assert_eq!(Harness::parse("Claude"), None);
    assert_eq!(
        Harness::Gemini.canonical_event("BeforeTool"),
        Some("PreToolUse")
    );
    assert_eq!(Harness::Gemini.canonical_event("PreToolUse"), None);
    assert_eq!(
        Harness::Opencode.canonical_event("tool.execute.before"),
        Some("PreToolUse")
    );
    assert_eq!(
        Harness::Codex.canonical_event("PermissionRequest"),
        Some("PermissionRequest")
    );
}

#[test]
fn combine_takes_the_least_covered_part() {
    let outcome = |decision, rule: &str| Outcome {
        decision,
        reason: rule.to_string(),
        deciding_rule: Some(rule.to_string()),
        matched: vec![rule.to_string()],
    };
    let all = combine(vec![
        outcome(Decision::Allow, "a"),
        outcome(Decision::Defer, "d"),
        outcome(Decision::Allow, "b"),
    ])
    .unwrap();
    assert_eq!(all.decision, Decision::Defer);
    assert_eq!(all.deciding_rule.as_deref(), Some("d"));
    assert_eq!(all.matched, ["a", "d", "b"]);
    let deny = combine(vec![
        outcome(Decision::Ask, "q"),
        outcome(Decision::Deny, "x"),
        outcome(Decision::Deny, "y"),
    ])
    .unwrap();
    assert_eq!(deny.deciding_rule.as_deref(), Some("x"));
    assert!(combine(Vec::new()).is_none());
}

#[test]
fn codex_refuses_programs_that_read_a_terminal() {
    let refusal =
        |command: &str| harness_refusal(Harness::Codex, "Bash", &json!({ "command": command }));
    for command in [
        "bash",
        "bash --norc",
        "/bin/sh -i",
        "python3",
        "python3.12 -q",
        "cd /tmp && node",
        "timeout 600 psql",
        "env FOO=1 zsh",
    ] {
        let reason = refusal(command).unwrap_or_else(|| panic!("{command} is not refused"));
        assert!(reason.contains("write_stdin"), "{reason}");
    }
    for command in [
        "bash script.sh",
        "bash -c 'ls'",
        "sh -ec 'ls'",
        "python3 -m pytest",
        "python3 tool.py",
        "python3 - <<'PY'\nprint(1)\nPY",
        "bash < setup.sh",
        "echo ls | bash",
        "cat x | python3",
        "python3 <<< 'print(1)'",
        "ls -la",
        "echo python3",
    ] {
        assert_eq!(refusal(command), None, "{command}");
    }
    assert_eq!(
        harness_refusal(Harness::Claude, "Bash", &json!({"command": "bash"})),
        None
    );
    assert_eq!(
        harness_refusal(Harness::Codex, "apply_patch", &json!({"command": "bash"})),
        None
    );
}

#[test]
fn gemini_read_many_files_reads_each_literal_path() {
    let calls = canonical_calls(
        Harness::Gemini,
        "read_many_files",
        &json!({"include": [".env", "src/**/*.rs", "~/.ssh/id_rsa", ""], "paths": ["a/b.txt"]}),
        None,
    );
    assert_eq!(names(&calls), ["read_many_files", "Read", "Read", "Read"]);
    let paths: Vec<&str> = calls[1..]
        .iter()
        .map(|c| c.tool_input["file_path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, [".env", "~/.ssh/id_rsa", "a/b.txt"]);
    assert!(calls.iter().all(|c| !c.only_when_a_rule_decides));
    // Globs alone: the call as given.
    let globs = canonical_calls(
        Harness::Gemini,
        "read_many_files",
        &json!({"include": ["*.md"]}),
        None,
    );
    assert_eq!(names(&globs), ["read_many_files"]);
}
