//! Odd inputs for `fuzz/decide_payload`'s logic: strings, tools, fields, directories, JSON
//! values and whole hook payloads.

use serde_json::{Value, json};

use crate::rng::{Rng, mutate};

/// Strings that stress the shell parser, the path and URL views and the literal index.
const ODD_STRINGS: &[&str] = &[
    "",
    " ",
    "\u{0}",
    "rm -rf /",
    "git push --force",
    "deploy to prod",
    "$(curl x | bash)",
    "`rm -rf ~`",
    "cat <<EOF\nrm -rf /\nEOF",
    "a\\\nb",
    "'unterminated",
    "\"unterminated",
    "((((((((((",
    "))))))))",
    "${x:-$(y)}",
    "é\u{301}\u{fffd}\u{10ffff}",
    "../../../etc/passwd",
    "/etc/passwd",
    "~/.ssh/id_rsa",
    "./.env",
    "C:\\Windows\\System32",
    "http://[::1]:80/",
    "https://user:pw@api.evil.example:8080/x?y#z",
    "file:///etc/passwd",
    "mcp__github__create_issue",
    "*",
    "**/*",
    ";;;&&&|||",
    "\t\r\n\u{b}\u{c}",
];

const TOOLS: &[&str] = &[
    "Bash",
    "Read",
    "Edit",
    "Write",
    "MultiEdit",
    "NotebookEdit",
    "Grep",
    "Glob",
    "LS",
    "WebFetch",
    "WebSearch",
    "Skill",
    "Task",
    "TaskCreate",
    "Agent",
    "SlashCommand",
    "mcp__github__create_issue",
    "mcp__e2e__echo",
    "PowerShell",
    "",
    "bash",
    "Bash ",
];

const FIELDS: &[&str] = &[
    "command",
    "file_path",
    "path",
    "url",
    "pattern",
    "skill",
    "subagent_type",
    "notebook_path",
    "prompt",
    "query",
    "description",
    "edits",
];

/// A JSON value of odd shape: any type, nested, with odd and sometimes long strings.
fn odd_value(rng: &mut Rng, depth: usize) -> Value {
    match rng.below(if depth > 6 { 6 } else { 9 }) {
        0 => Value::Null,
        1 => Value::Bool(rng.one_in(2)),
        2 => json!(rng.next() as i64),
        3 => json!(f64::from_bits(rng.next()) % 1e300),
        4 | 5 => Value::String(odd_string(rng)),
        6 | 7 => Value::Array(
            (0..rng.below(4))
                .map(|_| odd_value(rng, depth + 1))
                .collect(),
        ),
        _ => Value::Object(
            (0..rng.below(4))
                .map(|_| (rng.pick(FIELDS).to_string(), odd_value(rng, depth + 1)))
                .collect(),
        ),
    }
}

fn odd_string(rng: &mut Rng) -> String {
    let mut text = String::new();
    for _ in 0..1 + rng.below(4) {
        let (word, separator): (&&str, &&str) = (
            rng.pick(ODD_STRINGS),
            rng.pick(&[" ", "", ";", " | ", " && ", "/", "\n"]),
        );
        text.push_str(word);
        text.push_str(separator);
    }
    if rng.one_in(40) {
        // Long: 64 KiB of a repeated command (a long heredoc, a pasted file).
        text = text.repeat(1 + (64 << 10) / text.len().max(1));
    }
    text
}

/// Working, home and project directories: real, missing, relative, odd.
pub(crate) const DIRECTORIES: &[&str] = &[
    "/home/user/project",
    "/tmp",
    "/",
    "",
    "relative/dir",
    "/nonexistent/a/../b",
    "/tmp/\u{0}x",
    "C:\\Users\\x",
    "//",
    "/proc/self/cwd",
    "/tmp/./../tmp//",
];

/// A payload as the harness sends it, with odd types in odd places.
pub(crate) fn odd_payload(rng: &mut Rng) -> Vec<u8> {
    let mut input = serde_json::Map::new();
    for _ in 0..rng.below(4) {
        input.insert(rng.pick(FIELDS).to_string(), odd_value(rng, 0));
    }
    let mut payload = json!({
        "session_id": "s",
        "cwd": rng.pick(DIRECTORIES),
        "hook_event_name": rng.pick(&["PreToolUse", "PermissionRequest", "PostToolUse", ""]),
        "tool_name": rng.pick(TOOLS),
        "tool_input": Value::Object(input),
    });
    match rng.below(10) {
        0 => payload["tool_input"] = odd_value(rng, 0),
        1 => payload["tool_name"] = odd_value(rng, 0),
        2 => {
            // Nested as deep as the JSON parser allows (serde_json stops at 128).
            let mut deep = Value::String(odd_string(rng));
            for _ in 0..120 {
                deep = Value::Array(vec![deep]);
            }
            payload["tool_input"]["command"] = deep;
        }
        _ => {}
    }
    let mut bytes = serde_json::to_vec(&payload).unwrap();
    if rng.one_in(4) {
        // Escapes the parser must judge: lone surrogates, NUL, overlong forms, raw bytes.
        let dictionary: &[&[u8]] = &[
            br#"\ud800"#,
            br#"\udfff"#,
            br#"\ud83d\ude00"#,
            br#"\u0000"#,
            b"\xc0\xaf",
            b"\xff",
            br#"\""#,
            b"\\",
            br#"{"command":"#,
            b"[[[[",
            b"]]]]",
            b"1e999",
            b"-0",
        ];
        mutate(rng, &mut bytes, dictionary);
    }
    bytes
}
