//! The hook is never looser than Claude Code's own permission engine, call by call, over the
//! recorded oracle (`corpus/claude-oracle/table.json`, what claude 2.1.328 decided with only
//! native `permissions` and no hook; `hook/tests/claude_oracle/` records it and replays a
//! live sample in CI).
//!
//! Each scenario's `allow`/`ask`/`deny` lists are compiled as a `tool_policy` and every call
//! is decided by both engines, in a throwaway copy of the scenario's files and symlinks (path
//! rules resolve links), with the call's cwd the project, HOME the scenario's home and the
//! project root the settings file's directory (where claude anchors `/x` rules). Then:
//!
//! - claude **denied** ⇒ the hook denies;
//! - claude **asked** ⇒ the hook asks or denies;
//! - the hook **covers** the call (allow: it abstains and claude grants it from the same
//!   entries) ⇒ claude ran it.
//!
//! Anything else is looser and fails the test. Where the hook is stricter (claude ran, the hook
//! denies or asks) the case is counted and listed. Calls to tools claude does not have (it
//! answers `No such tool available` without any rule) decide nothing and are counted apart.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use engine::reference::ReferenceEvaluator;
use engine::{Call, Decision};
use serde_json::Value;

/// Substitute the placeholders in every string of `value`.
fn substitute(value: &Value, project: &str, home: &str) -> Value {
    match value {
        Value::String(s) => Value::String(s.replace("{project}", project).replace("{home}", home)),
        Value::Array(items) => items.iter().map(|v| substitute(v, project, home)).collect(),
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| (k.clone(), substitute(v, project, home)))
            .collect(),
        other => other.clone(),
    }
}

fn write_files(base: &Path, files: &Value) {
    for (path, content) in files.as_object().into_iter().flatten() {
        let path = base.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, content.as_str().unwrap_or_default()).unwrap();
    }
}

/// The list's entries as a profile holds them: an entry whose tool is a near miss of a Claude
/// tool's name (`Web Search(*)`) is left out, as `import` leaves it out (a profile refuses it;
/// the oracle shows it grants and matches nothing in claude).
fn strings(list: &Value) -> Vec<String> {
    list.as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(String::from))
        .filter(|entry| {
            let tool = entry
                .split_once('(')
                .map_or(entry.as_str(), |(tool, _)| tool);
            compiler::tool_policy::misspelt_tool(tool).is_none()
        })
        .collect()
}

#[test]
fn the_hook_is_never_looser_than_claude_on_the_recorded_oracle() {
    let table_path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/claude-oracle/table.json");
    let table: Value =
        serde_json::from_str(&std::fs::read_to_string(&table_path).unwrap()).unwrap();
    let temp = tempfile::Builder::new()
        .prefix("animus-oracle-")
        .tempdir()
        .unwrap();
    let scratch = temp.path();
    let (mut calls, mut equal, mut no_tool) = (0usize, 0usize, 0usize);
    let mut tools = BTreeSet::new();
    let mut stricter = Vec::new();
    let mut looser = Vec::new();
    for (n, scenario) in table["scenarios"].as_array().unwrap().iter().enumerate() {
        let name = scenario["name"].as_str().unwrap();
        let root = scratch.join(format!("{n}"));
        let (project, home) = (root.join("project"), root.join("home"));
        for dir in [&project, &home] {
            std::fs::create_dir_all(dir).unwrap();
        }
        let (project, home): (PathBuf, PathBuf) = (
            std::fs::canonicalize(&project).unwrap(),
            std::fs::canonicalize(&home).unwrap(),
        );
        let (p, h) = (project.to_str().unwrap(), home.to_str().unwrap());
        write_files(&project, &scenario["files"]);
        write_files(&home, &scenario["home_files"]);
        for (link, target) in scenario["symlinks"].as_object().into_iter().flatten() {
            let target = substitute(target, p, h);
            let link = project.join(link);
            std::fs::create_dir_all(link.parent().unwrap()).unwrap();
            std::os::unix::fs::symlink(target.as_str().unwrap(), &link).unwrap();
        }
        let settings_file = substitute(&scenario["settings_file"], p, h);
        let settings_dir = crate::normalised(Path::new(settings_file.as_str().unwrap()))
            .parent()
            .unwrap()
            .to_path_buf();
        std::fs::create_dir_all(&settings_dir).unwrap();
        let permissions = substitute(&scenario["permissions"], p, h);
        let tool_policy = compiler::profile::ToolPolicy {
            allow: located(&strings(&permissions["allow"])),
            ask: located(&strings(&permissions["ask"])),
            deny: located(&strings(&permissions["deny"])),
            ..Default::default()
        };
        assert!(
            !tool_policy.allow.is_empty(),
            "{name}: every scenario has an allowlist"
        );
        let (policy, compiled) = common::compile_entries(&tool_policy)
            .unwrap_or_else(|e| panic!("{name}: the scenario's entries compile: {e}"));
        let reference = ReferenceEvaluator::new(&policy).unwrap();
        for call in scenario["calls"].as_array().unwrap() {
            let tool = call["tool"].as_str().unwrap();
            let input = substitute(&call["input"], p, h);
            let claude = call["claude"].as_str().unwrap();
            let message = call["message"].as_str().unwrap_or_default();
            calls += 1;
            tools.insert(tool.to_string());
            let decided = Call {
                event: "PreToolUse",
                tool_name: tool,
                tool_input: &input,
                places: engine::Places {
                    cwd: Some(p),
                    home: Some(h),
                    project_root: settings_dir.to_str(),
                },
            };
            let outcome = compiled.decide(decided);
            assert_eq!(
                outcome,
                reference.decide(decided),
                "{name} {}: the engines disagree",
                call["id"]
            );
            let summary = format!(
                "{name} {} {tool} {}: claude {claude} ({}), hook {} by {:?}",
                call["id"].as_str().unwrap_or(""),
                call["input"],
                message.chars().take(70).collect::<String>(),
                outcome.decision,
                outcome.deciding_rule
            );
            if claude == "denied"
                && message.contains(&format!("No such tool available: {tool}</tool_use_error>"))
            {
                no_tool += 1;
                continue;
            }
            let hook = outcome.decision;
            let is_looser = match claude {
                "denied" => hook != Decision::Deny,
                "asked" => !matches!(hook, Decision::Ask | Decision::Deny),
                "ran" => false,
                other => panic!("{name}: unknown claude outcome `{other}`"),
            };
            if is_looser {
                looser.push(summary);
            } else if claude == "ran" && hook != Decision::Allow
                || claude == "asked" && hook == Decision::Deny
            {
                stricter.push(summary);
            } else {
                equal += 1;
            }
        }
    }
    drop(temp);
    println!(
        "claude oracle: {calls} calls over {} tools; {equal} decided as claude decides, {} \
         stricter, {} looser, {no_tool} to tools claude does not have",
        tools.len(),
        stricter.len(),
        looser.len()
    );
    for line in &stricter {
        println!("  stricter: {line}");
    }
    assert!(
        calls >= 150 && tools.len() >= 8,
        "the oracle holds {calls} calls over {} tools",
        tools.len()
    );
    assert!(looser.is_empty(), "looser than claude: {looser:#?}");
}

/// `.` and `..` collapsed (the settings file is named through `{home}/../settings/`).
fn normalised(path: &Path) -> PathBuf {
    PathBuf::from(engine::paths::normalise(&path.to_string_lossy()))
}

fn located(entries: &[String]) -> Vec<compiler::profile::Located<String>> {
    let refs: Vec<&str> = entries.iter().map(String::as_str).collect();
    common::located(&refs)
}
