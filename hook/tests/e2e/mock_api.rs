//! A scripted, offline stand-in for the Anthropic Messages API, for driving the real Claude Code
//! CLI in tests.
//!
//! It listens on `127.0.0.1` on an ephemeral port (never any other interface), answers each
//! request on its own short-lived thread, and stops accepting when dropped or when its lifetime
//! runs out, whichever comes first. Every request is logged, so a test can read back the
//! `tool_result` blocks the CLI sent after running (or refusing) a tool.
//!
//! # What the CLI asks for (measured on Claude Code 2.1.328, headless `-p`)
//!
//! - `POST /v1/messages?beta=true` with `"stream": true`: one per model turn. The body carries
//!   the whole conversation, so the mock picks its reply from the number of `assistant`
//!   messages already in it. That keeps the reply right when the CLI retries a request.
//! - `POST /v1/messages?beta=true` with `"stream": false`: the CLI's fallback after a stream
//!   breaks off before `message_stop`. [`Script::break_first_stream`] provokes it.
//! - `HEAD /api/hello`: a reachability probe, sent only when nonessential traffic is not
//!   disabled. Answered `200`.
//! - `POST /v1/messages/count_tokens`: not seen in these runs; answered with a small count so
//!   the CLI never stalls on it.
//! - A reply with status 5xx makes the CLI retry with backoff for minutes, and a connection
//!   reset counts as one too: the mock never sends either on purpose.
//!
//! # The SSE sequence the CLI accepts
//!
//! `message_start` (message with empty `content`), then per block `content_block_start`, one
//! `content_block_delta` (`text_delta`, or `input_json_delta` carrying the whole tool input as
//! one JSON string), `content_block_stop`, then `message_delta` (with `stop_reason`
//! `tool_use` or `end_turn`) and `message_stop`. Each event is `event: <type>` + `data: <json>`.
//! Several `tool_use` blocks in one message are parallel tool calls.

use std::io::{self, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use serde_json::{Value, json};

pub use test_support::http::LoggedRequest;
use test_support::http::{MockServer, ToolAnswers, route};

/// One content block of a scripted assistant message.
#[derive(Clone, Debug)]
pub enum Block {
    Text(String),
    ToolUse {
        id: String,
        name: String,
        input: Value,
    },
}

impl Block {
    pub fn text(text: &str) -> Self {
        Block::Text(text.to_owned())
    }

    pub fn tool_use(id: &str, name: &str, input: Value) -> Self {
        Block::ToolUse {
            id: id.to_owned(),
            name: name.to_owned(),
            input,
        }
    }
}

/// What the model "says", turn by turn. Turn `n` answers the request that already holds `n`
/// assistant messages; once the script is exhausted every request gets the final text.
#[derive(Clone, Debug)]
pub struct Script {
    turns: Vec<Vec<Block>>,
    final_text: String,
    break_first_stream: bool,
    main_prompt: Option<String>,
}

impl Script {
    pub fn new() -> Self {
        Script {
            turns: Vec::new(),
            final_text: "all done".to_owned(),
            break_first_stream: false,
            main_prompt: None,
        }
    }

    /// A turn with exactly these blocks (several `tool_use` blocks = parallel tool calls).
    pub fn turn(mut self, blocks: Vec<Block>) -> Self {
        self.turns.push(blocks);
        self
    }

    /// A turn with a single tool call.
    pub fn tool_call(self, id: &str, name: &str, input: Value) -> Self {
        self.turn(vec![Block::tool_use(id, name, input)])
    }

    /// Cut the first streaming response off after `message_start`, which makes the CLI retry
    /// the same turn with `"stream": false`.
    pub fn break_first_stream(mut self) -> Self {
        self.break_first_stream = true;
        self
    }

    /// Script only the conversation whose first user message holds `prompt`: any other (a
    /// subagent's, which starts from the prompt the `Agent` call gave it) gets the final text
    /// at once instead of replaying the script's tool calls.
    #[allow(dead_code)] // used by tests/claude_oracle/
    pub fn main_session_only(mut self, prompt: &str) -> Self {
        self.main_prompt = Some(prompt.to_owned());
        self
    }

    fn reply_for(&self, request: &Value) -> &[Block] {
        if let Some(prompt) = &self.main_prompt
            && !content_text(&request["messages"][0]["content"]).contains(prompt.as_str())
        {
            return &[];
        }
        let assistant_turns = request["messages"].as_array().map_or(0, |messages| {
            messages.iter().filter(|m| m["role"] == "assistant").count()
        });
        self.turns.get(assistant_turns).map_or(&[], Vec::as_slice)
    }
}

/// A model call (`POST /v1/messages`, not `count_tokens`).
pub fn is_model_call(request: &LoggedRequest) -> bool {
    request.is("POST", "/v1/messages")
}

pub fn is_streaming(request: &LoggedRequest) -> bool {
    request.body.as_ref().is_some_and(|b| b["stream"] == true)
}

/// A `tool_result` block the CLI sent back to the model.
#[derive(Clone, Debug)]
pub struct ToolResult {
    pub tool_use_id: String,
    pub is_error: bool,
    /// The result's text (text blocks joined with newlines when it is a list).
    pub text: String,
}

test_support::mock_api!(MockApi);

impl MockApi {
    pub fn start(script: Script) -> io::Result<MockApi> {
        let shared = Shared {
            script,
            stream_broken: AtomicBool::new(false),
            next_id: AtomicU64::new(1),
        };
        let server = MockServer::start("mock-api", move |out, req| respond(out, req, &shared))?;
        Ok(MockApi { server })
    }

    /// For `ANTHROPIC_BASE_URL`.
    pub fn base_url(&self) -> String {
        self.url("")
    }

    pub fn model_calls(&self) -> Vec<LoggedRequest> {
        self.requests().into_iter().filter(is_model_call).collect()
    }

    /// Every `tool_result` the CLI sent, by call id (see [`ToolAnswers`]).
    fn answers(&self) -> ToolAnswers<ToolResult> {
        let calls = self.model_calls();
        ToolAnswers::collect(
            calls
                .iter()
                .filter_map(|request| request.body.as_ref())
                .flat_map(|body| body["messages"].as_array().into_iter().flatten())
                .flat_map(|message| message["content"].as_array().into_iter().flatten())
                .filter(|block| block["type"] == "tool_result")
                .map(|block| {
                    let id = block["tool_use_id"].as_str().unwrap_or_default().to_owned();
                    let result = ToolResult {
                        tool_use_id: id.clone(),
                        is_error: block["is_error"] == true,
                        text: content_text(&block["content"]),
                    };
                    (id, result)
                }),
        )
    }

    /// Every distinct `tool_result` the CLI sent, in the order first seen.
    pub fn tool_results(&self) -> Vec<ToolResult> {
        self.answers().all()
    }

    /// The result for one tool call; panics with the full list when there is none.
    pub fn tool_result(&self, tool_use_id: &str) -> ToolResult {
        self.answers().get(tool_use_id)
    }
}

struct Shared {
    script: Script,
    stream_broken: AtomicBool,
    next_id: AtomicU64,
}

fn respond(out: &mut TcpStream, request: &LoggedRequest, shared: &Shared) -> io::Result<()> {
    match (request.method.as_str(), route(&request.path)) {
        ("POST", "/v1/messages") => {
            let Some(body) = &request.body else {
                return write_json(
                    out,
                    400,
                    &api_error("invalid_request_error", "body is not JSON"),
                );
            };
            let blocks = shared.script.reply_for(body);
            let final_text = [Block::text(&shared.script.final_text)];
            let blocks = if blocks.is_empty() {
                &final_text[..]
            } else {
                blocks
            };
            let id = format!("msg_mock_{}", shared.next_id.fetch_add(1, Ordering::SeqCst));
            let model = body["model"].as_str().unwrap_or("claude-mock");
            let message = assistant_message(&id, model, blocks);
            if body["stream"] != true {
                return write_json(out, 200, &message);
            }
            if shared.script.break_first_stream
                && !shared.stream_broken.swap(true, Ordering::SeqCst)
            {
                // Headers and `message_start`, then the connection closes mid-stream.
                write_head(out, 200, "text/event-stream", None)?;
                return out.write_all(
                    sse_event(
                        &json!({"type": "message_start", "message": message_start(&message)}),
                    )
                    .as_bytes(),
                );
            }
            let stream = sse_events(&message);
            write_head(out, 200, "text/event-stream", Some(stream.len()))?;
            out.write_all(stream.as_bytes())
        }
        ("POST", "/v1/messages/count_tokens") => write_json(out, 200, &json!({"input_tokens": 1})),
        ("HEAD" | "GET", "/api/hello") => write_head(out, 200, "text/plain", Some(0)),
        _ => write_json(
            out,
            404,
            &api_error("not_found_error", "the mock does not serve this path"),
        ),
    }
}

fn assistant_message(id: &str, model: &str, blocks: &[Block]) -> Value {
    let content: Vec<Value> = blocks
        .iter()
        .map(|block| match block {
            Block::Text(text) => json!({"type": "text", "text": text}),
            Block::ToolUse { id, name, input } => {
                json!({"type": "tool_use", "id": id, "name": name, "input": input})
            }
        })
        .collect();
    let stop_reason = if blocks.iter().any(|b| matches!(b, Block::ToolUse { .. })) {
        "tool_use"
    } else {
        "end_turn"
    };
    json!({
        "id": id, "type": "message", "role": "assistant", "model": model,
        "content": content, "stop_reason": stop_reason, "stop_sequence": null,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    })
}

fn message_start(message: &Value) -> Value {
    let mut start = message.clone();
    start["content"] = json!([]);
    start["stop_reason"] = Value::Null;
    start
}

fn sse_events(message: &Value) -> String {
    let mut events = vec![json!({"type": "message_start", "message": message_start(message)})];
    for (index, block) in message["content"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let (start, delta) = if block["type"] == "tool_use" {
            (
                json!({"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}),
                json!({"type": "input_json_delta", "partial_json": block["input"].to_string()}),
            )
        } else {
            (
                json!({"type": "text", "text": ""}),
                json!({"type": "text_delta", "text": block["text"]}),
            )
        };
        events.push(json!({"type": "content_block_start", "index": index, "content_block": start}));
        events.push(json!({"type": "content_block_delta", "index": index, "delta": delta}));
        events.push(json!({"type": "content_block_stop", "index": index}));
    }
    events.push(json!({
        "type": "message_delta",
        "delta": {"stop_reason": message["stop_reason"], "stop_sequence": null},
        "usage": {"output_tokens": 5},
    }));
    events.push(json!({"type": "message_stop"}));
    events.iter().map(sse_event).collect()
}

fn sse_event(event: &Value) -> String {
    format!(
        "event: {}\ndata: {event}\n\n",
        event["type"].as_str().unwrap_or("message")
    )
}

fn api_error(kind: &str, message: &str) -> Value {
    json!({"type": "error", "error": {"type": kind, "message": message}})
}

fn write_head(
    out: &mut impl Write,
    status: u16,
    content_type: &str,
    length: Option<usize>,
) -> io::Result<()> {
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        _ => "Not Found",
    };
    let mut head = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: {content_type}\r\nconnection: close\r\n"
    );
    if let Some(length) = length {
        head.push_str(&format!("content-length: {length}\r\n"));
    }
    head.push_str("\r\n");
    out.write_all(head.as_bytes())
}

fn write_json(out: &mut impl Write, status: u16, body: &Value) -> io::Result<()> {
    let body = body.to_string();
    write_head(out, status, "application/json", Some(body.len()))?;
    out.write_all(body.as_bytes())
}

/// The text of a message's or tool result's content; none when it is neither a string nor a
/// list of blocks.
fn content_text(content: &Value) -> String {
    match content {
        Value::String(_) | Value::Array(_) => test_support::http::content_text(content),
        _ => String::new(),
    }
}
