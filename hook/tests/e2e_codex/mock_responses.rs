//! A scripted, offline stand-in for the OpenAI Responses API, for driving the real Codex CLI in
//! tests.
//!
//! It listens on `127.0.0.1` on an ephemeral port (never any other interface), answers each
//! request on its own short-lived thread with `Connection: close`, and stops accepting when
//! dropped or when its lifetime runs out. Every request is logged, so a test can read back the
//! tool outputs Codex sent after running (or refusing) a call, and can check that Codex asked
//! for nothing else.
//!
//! # What Codex 0.169.0 asks for (measured, `codex exec` with a custom `responses` provider)
//!
//! - `POST /v1/responses`, `"stream": true`, one per model turn. The body's `input` holds the
//!   whole conversation: developer and user messages, then each earlier model item echoed
//!   (`function_call`, `custom_tool_call`, assistant `message`) followed by its output
//!   (`function_call_output` / `custom_tool_call_output` with the same `call_id`). The mock
//!   picks its reply from the number of model items already echoed, so a retried request gets
//!   the same reply.
//! - Nothing else once plugins and analytics are off. The driver also points `HTTPS_PROXY` and
//!   `HTTP_PROXY` at the mock: any other connection attempt arrives here as a `CONNECT` (or an
//!   absolute-URI request), is refused with 403 and stays in the log for
//!   [`MockApi::stray_requests`].
//!
//! # The SSE body Codex accepts
//!
//! `event: <type>` + `data: <json>` per event: `response.created`, one
//! `response.output_item.done` per item, then `response.completed` with `response.id` (without
//! it Codex retries five times and fails). The body is sent whole, with a `Content-Length`.

use std::io;
use std::net::TcpStream;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Value, json};

pub use test_support::http::LoggedRequest;
use test_support::http::{MockServer, ToolAnswers, content_text, write_response};
/// In a scripted argument, stands for the id of the last command session Codex left running
/// (`Process running with session ID <n>` in the latest `function_call_output`).
pub const LAST_SESSION_ID: &str = "@SESSION@";

/// One item of a scripted model turn.
#[derive(Clone, Debug)]
pub enum Item {
    /// A function tool call; MCP tools carry their namespace (`mcp__<server>`).
    Call {
        call_id: String,
        name: String,
        namespace: Option<String>,
        arguments: Value,
    },
    /// A freeform tool call (`apply_patch`).
    Custom {
        call_id: String,
        name: String,
        input: String,
    },
    /// An assistant message: the turn (and the `exec` run) ends.
    Text(String),
}

/// What the model "says", turn by turn. Once the script is exhausted, every request gets the
/// final text.
#[derive(Clone, Debug)]
pub struct Script {
    turns: Vec<Vec<Item>>,
    final_text: String,
}

impl Script {
    pub fn new() -> Self {
        Script {
            turns: Vec::new(),
            final_text: "all done".to_owned(),
        }
    }

    /// A turn with exactly these items (several calls = parallel tool calls).
    pub fn turn(mut self, items: Vec<Item>) -> Self {
        self.turns.push(items);
        self
    }

    /// A shell command: `exec_command {"cmd": command}`.
    pub fn exec(self, call_id: &str, command: &str) -> Self {
        self.exec_with(call_id, json!({ "cmd": command }))
    }

    /// `exec_command` with these arguments (`cmd`, `tty`, `workdir`, `yield_time_ms`, …).
    pub fn exec_with(self, call_id: &str, arguments: Value) -> Self {
        self.call(call_id, "exec_command", arguments)
    }

    /// A function call by name (`write_stdin`, `view_image`, …).
    pub fn call(self, call_id: &str, name: &str, arguments: Value) -> Self {
        self.turn(vec![Item::Call {
            call_id: call_id.to_owned(),
            name: name.to_owned(),
            namespace: None,
            arguments,
        }])
    }

    /// `apply_patch` with this patch text.
    pub fn patch(self, call_id: &str, patch: &str) -> Self {
        self.turn(vec![Item::Custom {
            call_id: call_id.to_owned(),
            name: "apply_patch".to_owned(),
            input: patch.to_owned(),
        }])
    }

    /// The MCP tool `tool` of `server` (`mcp__<server>__<tool>` to hooks).
    pub fn mcp(self, call_id: &str, server: &str, tool: &str, arguments: Value) -> Self {
        self.turn(vec![Item::Call {
            call_id: call_id.to_owned(),
            name: tool.to_owned(),
            namespace: Some(format!("mcp__{server}")),
            arguments,
        }])
    }

    /// The turn that answers a request whose input already echoes `echoed` model items.
    fn reply_for(&self, echoed: usize) -> Option<&[Item]> {
        let mut seen = 0;
        for turn in &self.turns {
            if seen >= echoed {
                return Some(turn);
            }
            seen += turn.len();
        }
        None
    }
}

/// A model call (`POST /v1/responses`).
pub fn is_model_call(request: &LoggedRequest) -> bool {
    request.is("POST", "/v1/responses")
}

/// The output Codex sent back to the model for one call.
#[derive(Clone, Debug)]
pub struct ToolOutput {
    #[allow(dead_code)] // shown in failure messages
    pub call_id: String,
    /// `function_call_output` or `custom_tool_call_output`.
    pub kind: String,
    /// The output text (an MCP result's `input_text` parts joined with newlines).
    pub text: String,
}

test_support::mock_api!(MockApi);

impl MockApi {
    pub fn start(script: Script) -> io::Result<MockApi> {
        let shared = Shared {
            script,
            next_id: AtomicU64::new(1),
        };
        let server =
            MockServer::start("mock-responses", move |out, req| respond(out, req, &shared))?;
        Ok(MockApi { server })
    }

    /// The provider's `base_url`.
    pub fn base_url(&self) -> String {
        self.url("/v1")
    }

    /// For `HTTPS_PROXY` and `HTTP_PROXY`: any other connection Codex attempts lands here.
    pub fn proxy_url(&self) -> String {
        self.url("")
    }

    pub fn model_calls(&self) -> Vec<LoggedRequest> {
        self.requests().into_iter().filter(is_model_call).collect()
    }

    /// Every request that is not a model call (a proxied connection attempt, another path).
    pub fn stray_requests(&self) -> Vec<LoggedRequest> {
        self.requests()
            .into_iter()
            .filter(|r| !is_model_call(r))
            .collect()
    }

    /// Every tool output Codex sent, by call id (see [`ToolAnswers`]).
    fn answers(&self) -> ToolAnswers<ToolOutput> {
        let calls = self.model_calls();
        ToolAnswers::collect(
            calls
                .iter()
                .filter_map(|request| request.body.as_ref())
                .flat_map(|body| body["input"].as_array().into_iter().flatten())
                .filter_map(|item| {
                    let kind = item["type"].as_str().unwrap_or_default();
                    if !matches!(kind, "function_call_output" | "custom_tool_call_output") {
                        return None;
                    }
                    let call_id = item["call_id"].as_str().unwrap_or_default().to_owned();
                    let output = ToolOutput {
                        call_id: call_id.clone(),
                        kind: kind.to_owned(),
                        text: content_text(&item["output"]),
                    };
                    Some((call_id, output))
                }),
        )
    }

    /// The output for one call; panics with the full list when there is none.
    pub fn tool_output(&self, call_id: &str) -> ToolOutput {
        self.answers().get(call_id)
    }
}

struct Shared {
    script: Script,
    next_id: AtomicU64,
}

fn respond(out: &mut TcpStream, request: &LoggedRequest, shared: &Shared) -> io::Result<()> {
    if !is_model_call(request) {
        // A proxied connection attempt (CONNECT host:443) or anything else: refused.
        return write_response(
            out,
            "403 Forbidden",
            &[("Content-Type", "text/plain")],
            b"refused by the e2e mock (offline)",
        );
    }
    let Some(body) = &request.body else {
        return write_response(
            out,
            "400 Bad Request",
            &[("Content-Type", "text/plain")],
            b"body is not JSON",
        );
    };
    let input = body["input"].as_array().cloned().unwrap_or_default();
    let echoed = input.iter().filter(|item| is_model_item(item)).count();
    let text = [Item::Text(shared.script.final_text.clone())];
    let items = shared.script.reply_for(echoed).unwrap_or(&text);
    let n = shared.next_id.fetch_add(1, Ordering::SeqCst);
    let id = format!("resp_mock_{n}");
    let mut sse = String::new();
    let mut event = |value: Value| {
        sse.push_str(&format!(
            "event: {}\ndata: {value}\n\n",
            value["type"].as_str().unwrap()
        ));
    };
    event(json!({"type": "response.created", "response": {"id": id}}));
    for (index, item) in items.iter().enumerate() {
        event(json!({
            "type": "response.output_item.done",
            "output_index": index,
            "item": item_json(item, &format!("{n}_{index}"), &input),
        }));
    }
    event(
        json!({"type": "response.completed", "response": {"id": id, "usage": {
            "input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 15,
        }}}),
    );
    write_response(
        out,
        "200 OK",
        &[("Content-Type", "text/event-stream")],
        sse.as_bytes(),
    )
}

/// A model item Codex echoes back in later requests.
fn is_model_item(item: &Value) -> bool {
    match item["type"].as_str() {
        Some("function_call" | "custom_tool_call") => true,
        Some("message") => item["role"] == "assistant",
        _ => false,
    }
}

fn item_json(item: &Item, suffix: &str, input: &[Value]) -> Value {
    match item {
        Item::Call {
            call_id,
            name,
            namespace,
            arguments,
        } => {
            let mut call = json!({
                "type": "function_call",
                "id": format!("fc_{suffix}"),
                "call_id": call_id,
                "name": name,
                "arguments": with_session_id(arguments, input).to_string(),
                "status": "completed",
            });
            if let Some(namespace) = namespace {
                call["namespace"] = json!(namespace);
            }
            call
        }
        Item::Custom {
            call_id,
            name,
            input,
        } => json!({
            "type": "custom_tool_call",
            "id": format!("ctc_{suffix}"),
            "call_id": call_id,
            "name": name,
            "input": input,
            "status": "completed",
        }),
        Item::Text(text) => json!({
            "type": "message",
            "id": format!("msg_{suffix}"),
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": []}],
        }),
    }
}

/// `arguments` with every [`LAST_SESSION_ID`] value replaced by the session id in the latest
/// `Process running with session ID <n>` output (-1 when there is none).
fn with_session_id(arguments: &Value, input: &[Value]) -> Value {
    let Value::Object(map) = arguments else {
        return arguments.clone();
    };
    if !map.values().any(|v| v == LAST_SESSION_ID) {
        return arguments.clone();
    }
    let session = input
        .iter()
        .rev()
        .filter(|item| item["type"] == "function_call_output")
        .find_map(|item| {
            let text = content_text(&item["output"]);
            let tail = &text[text.find("session ID ")? + "session ID ".len()..];
            let digits: String = tail.chars().take_while(char::is_ascii_digit).collect();
            digits.parse::<i64>().ok()
        })
        .unwrap_or(-1);
    Value::Object(
        map.iter()
            .map(|(k, v)| {
                let v = if v == LAST_SESSION_ID {
                    json!(session)
                } else {
                    v.clone()
                };
                (k.clone(), v)
            })
            .collect(),
    )
}
