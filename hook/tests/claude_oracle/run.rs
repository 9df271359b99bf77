//! Running one scenario under the real CLI and classifying what it answered.

use super::*;

/// Run `scenario` (its decisions, if any, are ignored) and return it with every call's
/// decision and message as the CLI gave them now.
pub(super) fn record(scenario: &Scenario) -> Scenario {
    let sandbox = Sandbox::new(&scenario.name);
    let (mock, outcome) = run_scenario(scenario, &sandbox);
    outcome.completed();
    let results = mock.tool_results();
    let mcp_calls =
        fs::read_to_string(sandbox.scratch.root.join("mcp-calls.jsonl")).unwrap_or_default();
    let mut recorded = scenario.clone();
    for call in &mut recorded.calls {
        let result = results
            .iter()
            .find(|r| r.tool_use_id == call.id)
            .unwrap_or_else(|| {
                panic!(
                    "{}/{}: no tool_result: {outcome:#?}",
                    scenario.name, call.id
                )
            });
        let input = subst_value(&call.input, &sandbox);
        let decision = classify(&call.tool, &input, result, &mcp_calls).unwrap_or_else(|why| {
            panic!(
                "{}/{} {} {}: cannot tell whether it ran or was refused ({why}): {result:#?}",
                scenario.name, call.id, call.tool, call.input
            )
        });
        call.claude = decision.to_owned();
        call.message = respell(&result.text, &sandbox)
            .chars()
            .take(MESSAGE_CHARS)
            .collect();
    }
    recorded
}

pub(super) fn run_scenario(
    scenario: &Scenario,
    sandbox: &Sandbox,
) -> (MockApi, e2e::driver::Outcome) {
    for (root, files) in [
        (&sandbox.project, &scenario.files),
        (&sandbox.home, &scenario.home_files),
    ] {
        for (path, content) in files {
            let path = root.join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, content).unwrap();
        }
    }
    for (link, target) in &scenario.symlinks {
        let link = sandbox.project.join(link);
        fs::create_dir_all(link.parent().unwrap()).unwrap();
        symlink(subst(target, sandbox), link).unwrap();
    }
    // A repository, so `git status` has something to say.
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&sandbox.project)
        .status()
        .expect("git is installed");
    assert!(git.success());
    let settings_path = PathBuf::from(subst(&scenario.settings_file, sandbox));
    let settings_dir = settings_path.parent().unwrap();
    fs::create_dir_all(settings_dir).unwrap();
    // Without `..` in it: the CLI anchors `/x` entries at the directory as it is spelled.
    let settings_path = settings_dir
        .canonicalize()
        .unwrap()
        .join(settings_path.file_name().unwrap());
    let entries = |list: &[String]| list.iter().map(|e| subst(e, sandbox)).collect::<Vec<_>>();
    let permissions = &scenario.permissions;
    let settings = json!({"permissions": {
        "allow": entries(&permissions.allow),
        "ask": entries(&permissions.ask),
        "deny": entries(&permissions.deny),
    }});
    fs::write(
        &settings_path,
        serde_json::to_string_pretty(&settings).unwrap(),
    )
    .unwrap();

    let mut script = Script::new().main_session_only(PROMPT);
    for call in &scenario.calls {
        script = script.tool_call(&call.id, &call.tool, subst_value(&call.input, sandbox));
    }
    let mut extra: Vec<String> = vec![
        "--settings".into(),
        settings_path.to_string_lossy().into_owned(),
        "--tools".into(),
        TOOLS.into(),
    ];
    if scenario.calls.iter().any(|c| c.tool.starts_with("mcp__")) {
        // Two servers (`e2e`, `other`), each with the tools `echo` and `shout`: this binary.
        let server = std::env::current_exe().unwrap();
        let calls = sandbox.scratch.root.join("mcp-calls.jsonl");
        let config = json!({"mcpServers": {
            "e2e": {"command": server, "args": ["--mcp-echo-server", calls]},
            "other": {"command": server, "args": ["--mcp-echo-server", calls]},
        }});
        extra.push("--mcp-config".into());
        extra.push(config.to_string());
    }
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    let args = owned_launch(&extra);
    let mock = MockApi::start(script).expect("start the mock API");
    let outcome = sandbox.run_claude(&claude(), &mock, &args);
    (mock, outcome)
}

pub(super) fn subst(text: &str, sandbox: &Sandbox) -> String {
    text.replace("{project}", &sandbox.project.to_string_lossy())
        .replace("{home}", &sandbox.home.to_string_lossy())
}

pub(super) fn subst_value(value: &Value, sandbox: &Sandbox) -> Value {
    match value {
        Value::String(s) => Value::String(subst(s, sandbox)),
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| subst_value(v, sandbox)).collect())
        }
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), subst_value(v, sandbox)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The throwaway paths back to their placeholders; random ids out.
pub(super) fn respell(text: &str, sandbox: &Sandbox) -> String {
    let text = text
        .replace(&*sandbox.project.to_string_lossy(), "{project}")
        .replace(&*sandbox.home.to_string_lossy(), "{home}");
    match text.find("agentId: ") {
        Some(at) => {
            let end = text[at..]
                .find(char::is_whitespace)
                .map_or(text.len(), |e| at + e);
            let end = text[end..]
                .find(|c: char| !c.is_whitespace())
                .map_or(text.len(), |e| end + e);
            let id_end = text[end..]
                .find(char::is_whitespace)
                .map_or(text.len(), |e| end + e);
            format!("{}agentId: <id>{}", &text[..at], &text[id_end..])
        }
        None => text,
    }
}

// ---------------------------------------------------------------------------------------------
// Classifying a tool_result

/// Messages of a refusal by a deny rule (substrings, checked first).
pub(super) const DENIED: &[&str] = &[
    "File is in a directory that is denied by your permission settings.",
    "is covered by a Read deny rule in your permission settings",
    "has been denied",
    "WebFetch denied access to domain:",
    "Skill execution blocked by permission rules",
    "Error: No such tool available: ",
];

/// Messages of a call that needs approval, which `-p` cannot give.
pub(super) const ASKED: &[&str] = &[
    "Claude requested permissions to ",
    "needs approval",
    "requires approval",
    "Execute skill: ",
    "can't be checked before it runs",
];

/// `ran`, `asked` or `denied` for one call, from its `tool_result` (and, for tools with side
/// effects, the disk or the MCP server's log); `Err` when it is none of them for sure.
pub(super) fn classify(
    tool: &str,
    input: &Value,
    result: &ToolResult,
    mcp_calls: &str,
) -> Result<&'static str, String> {
    let text = result.text.as_str();
    if DENIED.iter().any(|m| text.contains(m)) {
        return Ok("denied");
    }
    if ASKED.iter().any(|m| text.contains(m)) {
        return Ok("asked");
    }
    let on_disk = |field: &str| {
        input[field]
            .as_str()
            .and_then(|p| fs::read_to_string(PathBuf::from(p)).ok())
            .unwrap_or_default()
    };
    let ran = match tool {
        "Read" => !result.is_error && text.contains("MARK-"),
        "Edit" => {
            let new = input["new_string"].as_str().unwrap_or("\u{0}");
            text.contains("has been updated") && on_disk("file_path").contains(new)
        }
        "Write" => {
            let content = input["content"].as_str().unwrap_or("\u{0}");
            !result.is_error && on_disk("file_path").contains(content.trim())
        }
        "NotebookEdit" => {
            let source = input["new_source"].as_str().unwrap_or("\u{0}");
            !result.is_error && on_disk("notebook_path").contains(source.trim())
        }
        "Glob" | "Grep" => !result.is_error,
        // Output, no output, or a failure with the exit code: every refusal is an error too.
        "Bash" => !result.is_error || text.starts_with("Exit code "),
        // The domain preflight, the fetch, or the tool's own refusal of a URL with user info:
        // each comes after the permission check (the same URL is asked where no rule allows it).
        "WebFetch" => {
            text.starts_with("Unable to verify if domain")
                || text.contains("getaddrinfo")
                || text == "Invalid URL"
        }
        "WebSearch" => text.contains("Web search results for query"),
        "Skill" => !result.is_error && text.starts_with("Launching skill: "),
        "Agent" | "Task" => !result.is_error && text.contains("agent"),
        mcp if mcp.starts_with("mcp__") => {
            let sent = input["text"].as_str().unwrap_or("\u{0}");
            !result.is_error
                && mcp_calls
                    .lines()
                    .any(|l| serde_json::from_str::<Value>(l).is_ok_and(|v| v["text"] == sent))
        }
        _ => false,
    };
    if ran {
        Ok("ran")
    } else {
        Err("no permission message and no evidence it ran".into())
    }
}
