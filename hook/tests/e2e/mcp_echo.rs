//! A tiny stdio MCP server with one tool, `echo`, so the suite can put an MCP tool call
//! (`mcp__e2e__echo`) in front of the gate. The suite's own test binary is the server: run with
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
            "tools/list" => json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [{
                "name": "echo",
                "description": "Echo the given text back.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"text": {"type": "string"}},
                    "required": ["text"],
                },
            }]}}),
            "tools/call" => {
                let arguments = &message["params"]["arguments"];
                let mut calls = OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(calls_file)?;
                writeln!(calls, "{arguments}")?;
                let text = arguments["text"].as_str().unwrap_or_default();
                json!({"jsonrpc": "2.0", "id": id, "result": {
                    "content": [{"type": "text", "text": format!("echo: {text}")}],
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
