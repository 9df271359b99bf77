//! A tiny stdio MCP server with two tools, `echo` and `shout`, so the suite can put an MCP tool
//! call (`mcp__e2e__echo`) in front of the gate (the oracle, `tests/claude_oracle/`, also
//! needs a second tool on one server). The suite's own test binary is the server: run with
//! `--mcp-echo-server <calls-file>`, it speaks newline-delimited JSON-RPC on stdin/stdout and
//! appends the arguments of every `tools/call` it receives to `<calls-file>`, which is how a
//! test tells that the tool really ran.
//!
//! Claude Code 2.1.328 first sends `server/discover` (a newer protocol's probe); answering
//! "method not found" makes it fall back to `initialize`, then `notifications/initialized`,
//! `tools/list`, and `tools/call` with `{"name": "echo", "arguments": {...}}`.

use std::fs::OpenOptions;
use std::io::{self, BufRead, Write};
use std::path::Path;

use serde_json::{Value, json};

pub fn serve(calls_file: &Path) -> io::Result<()> {
    let stdin = io::stdin();
    let mut stdout = io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line?;
        let Ok(message) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        // Notifications carry no id and get no answer.
        let Some(id) = message.get("id").cloned() else {
            continue;
        };
        let reply = match message["method"].as_str().unwrap_or_default() {
            "initialize" => json!({"jsonrpc": "2.0", "id": id, "result": {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "e2e", "version": "1.0.0"},
            }}),
            "tools/list" => {
                let tool = |name: &str, description: &str| {
                    json!({
                        "name": name,
                        "description": description,
                        "inputSchema": {
                            "type": "object",
                            "properties": {"text": {"type": "string"}},
                            "required": ["text"],
                        },
                    })
                };
                json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [
                    tool("echo", "Echo the given text back."),
                    tool("shout", "Echo the given text back in capitals."),
                ]}})
            }
            "tools/call" => {
                let arguments = &message["params"]["arguments"];
                let mut calls = OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(calls_file)?;
                writeln!(calls, "{arguments}")?;
                let text = arguments["text"].as_str().unwrap_or_default();
                let text = match message["params"]["name"].as_str() {
                    Some("shout") => format!("shout: {}", text.to_uppercase()),
                    _ => format!("echo: {text}"),
                };
                json!({"jsonrpc": "2.0", "id": id, "result": {
                    "content": [{"type": "text", "text": text}],
                }})
            }
            "ping" => json!({"jsonrpc": "2.0", "id": id, "result": {}}),
            _ => json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": "method not found"}}),
        };
        writeln!(stdout, "{reply}")?;
        stdout.flush()?;
    }
    Ok(())
}
