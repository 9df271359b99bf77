//! A scripted, offline stand-in for an OpenAI-compatible chat-completions API, for driving the
//! real opencode CLI (through its bundled `@ai-sdk/openai-compatible` provider) in tests.
//!
//! It listens on `127.0.0.1` on an ephemeral port (never any other interface), serves each
//! connection on its own short-lived thread, and stops accepting when dropped or when its
//! lifetime runs out. Every request is logged, so a test can read back the `tool` messages
//! opencode sent after running (or refusing) a tool.
//!
//! # What opencode asks for (measured on 1.18.33, `opencode run`)
//!
//! - Only `POST /v1/chat/completions`, always with `"stream": true`, bodies with a
//!   `Content-Length`. Anything else is logged and answered 404, so a test can see it.
//! - Agent turns carry `tools` (the function list) and the whole conversation: the system
//!   prompt, the user prompt (its content JSON-quoted: `"\"…\""`), then per step an
//!   `assistant` message with `tool_calls` and one `tool` message per call
//!   (`tool_call_id`, `content`: the tool's output, or the error a plugin threw).
//! - The first message of a session also triggers a title request, without `tools`, which
//!   may run concurrently with the first agent turn. It is answered with a short title and
//!   never consumes a scripted turn: the reply to an agent turn is picked by the number of
//!   `assistant` messages already in it, which also keeps a retried request's reply right.
//!
//! # The SSE that opencode accepts
//!
//! `text/event-stream`, `Connection: close`, no `Content-Length`; each event one
//! `data: <chunk>` line and a blank line: a role chunk (`delta: {role, content: ""}`), then per
//! tool call a chunk opening it (`index`, `id`, `type`, `function: {name, arguments: ""}`)
//! and one carrying its whole `arguments` string, or one `content` chunk for a text turn; then
//! a chunk with `finish_reason` (`tool_calls` or `stop`), a usage chunk (`choices: []`) and
//! `data: [DONE]`. Several calls in one turn (`index` 0..n) are parallel tool calls.

use std::io::{self, Write};
use std::net::TcpStream;

use serde_json::{Value, json};

use test_support::assert_has;
pub use test_support::http::LoggedRequest;
use test_support::http::{MockServer, ToolAnswers, content_text};

/// The text the title request gets.
pub const TITLE: &str = "Mock title";

/// One scripted tool call.
#[derive(Clone, Debug)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: Value,
}

/// What the model "says", turn by turn: turn `n` answers the agent request that already holds
/// `n` assistant messages; once the script is exhausted every agent request gets the final text.
#[derive(Clone, Debug)]
pub struct Script {
    turns: Vec<Vec<ToolCall>>,
    final_text: String,
}

impl Script {
    pub fn new() -> Self {
        Script {
            turns: Vec::new(),
            final_text: "all done".to_owned(),
        }
    }

    /// A turn with a single tool call.
    pub fn call(self, id: &str, name: &str, arguments: Value) -> Self {
        self.turn(&[(id, name, arguments)])
    }

    /// A turn with several tool calls at once.
    pub fn turn(mut self, calls: &[(&str, &str, Value)]) -> Self {
        self.turns.push(
            calls
                .iter()
                .map(|(id, name, arguments)| ToolCall {
                    id: (*id).to_owned(),
                    name: (*name).to_owned(),
                    arguments: arguments.clone(),
                })
                .collect(),
        );
        self
    }

    /// The text of the last turn (default `all done`).
    pub fn final_text(mut self, text: &str) -> Self {
        text.clone_into(&mut self.final_text);
        self
    }

    pub fn last_words(&self) -> &str {
        &self.final_text
    }

    /// The reply to `body`: the tool calls of its turn, or `None` for text.
    fn reply_for(&self, body: &Value) -> Option<&[ToolCall]> {
        let assistant_turns = body["messages"].as_array().map_or(0, |messages| {
            messages.iter().filter(|m| m["role"] == "assistant").count()
        });
        self.turns.get(assistant_turns).map(Vec::as_slice)
    }
}

/// A chat completion that offers tools: an agent turn (not the title request).
pub fn is_agent_turn(request: &LoggedRequest) -> bool {
    is_completion(request)
        && request
            .body
            .as_ref()
            .is_some_and(|b| b["tools"].as_array().is_some_and(|t| !t.is_empty()))
}

pub fn is_completion(request: &LoggedRequest) -> bool {
    request.is("POST", "/v1/chat/completions")
}

test_support::mock_api!(MockApi);

impl MockApi {
    pub fn start(script: Script) -> io::Result<MockApi> {
        let server = MockServer::start("mock-openai", move |out, req| respond(out, req, &script))?;
        Ok(MockApi { server })
    }

    /// The provider's `baseURL`.
    pub fn base_url(&self) -> String {
        self.url("/v1")
    }

    pub fn agent_turns(&self) -> Vec<Value> {
        self.requests()
            .into_iter()
            .filter(is_agent_turn)
            .filter_map(|r| r.body)
            .collect()
    }

    /// The function names offered to the model in the first agent turn.
    pub fn offered_tools(&self) -> Vec<String> {
        let turns = self.agent_turns();
        let Some(first) = turns.first() else {
            return Vec::new();
        };
        first["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
            .collect()
    }

    /// Every `tool` message opencode sent, by call id (see [`ToolAnswers`]).
    fn answers(&self) -> ToolAnswers<(String, String)> {
        let turns = self.agent_turns();
        ToolAnswers::collect(
            turns
                .iter()
                .flat_map(|body| body["messages"].as_array().into_iter().flatten())
                .filter(|message| message["role"] == "tool")
                .map(|message| {
                    let id = message["tool_call_id"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned();
                    let text = content_text(&message["content"]);
                    (id.clone(), (id, text))
                }),
        )
    }

    /// Every `tool` message opencode sent, `(tool_call_id, content)`, in the order first seen.
    pub fn tool_messages(&self) -> Vec<(String, String)> {
        self.answers().all()
    }

    /// What the model got back for one tool call; panics with every message when there is none.
    pub fn tool_message(&self, call_id: &str) -> String {
        self.answers().get(call_id).1
    }

    /// Whether `text` appears anywhere in what opencode sent the model.
    pub fn model_saw(&self, text: &str) -> bool {
        self.requests()
            .iter()
            .filter_map(|r| r.body.as_ref())
            .any(|b| b.to_string().contains(text))
    }
}

/// Answer one request (`Connection: close`).
fn respond(out: &mut TcpStream, request: &LoggedRequest, script: &Script) -> io::Result<()> {
    let response = if !is_completion(request) {
        http_response(
            "404 Not Found",
            "application/json",
            &json!({"error": {"message": "not found"}}).to_string(),
        )
    } else {
        let body = request.body.clone().unwrap_or(Value::Null);
        let events = if is_agent_turn(request) {
            match script.reply_for(&body) {
                Some(calls) => tool_call_events(calls),
                None => text_events(&script.final_text),
            }
        } else {
            text_events(TITLE)
        };
        http_response("200 OK", "text/event-stream", &sse(&events))
    };
    out.write_all(response.as_bytes())
}

fn http_response(status: &str, content_type: &str, body: &str) -> String {
    let length = if content_type == "text/event-stream" {
        "Cache-Control: no-cache\r\n".to_owned()
    } else {
        format!("Content-Length: {}\r\n", body.len())
    };
    format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\n{length}Connection: close\r\n\r\n{body}"
    )
}

fn chunk(delta: Value, finish: Option<&str>) -> Value {
    json!({
        "id": "chatcmpl-mock",
        "object": "chat.completion.chunk",
        "created": 1_796_351_775,
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    })
}

fn usage() -> Value {
    json!({
        "id": "chatcmpl-mock",
        "object": "chat.completion.chunk",
        "created": 1_796_351_775,
        "model": "m",
        "choices": [],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    })
}

fn tool_call_events(calls: &[ToolCall]) -> Vec<Value> {
    let mut events = vec![chunk(json!({"role": "assistant", "content": ""}), None)];
    for (index, call) in calls.iter().enumerate() {
        events.push(chunk(
            json!({"tool_calls": [{"index": index, "id": call.id, "type": "function",
                "function": {"name": call.name, "arguments": ""}}]}),
            None,
        ));
        events.push(chunk(
            json!({"tool_calls": [{"index": index,
                "function": {"arguments": call.arguments.to_string()}}]}),
            None,
        ));
    }
    events.push(chunk(json!({}), Some("tool_calls")));
    events.push(usage());
    events
}

fn text_events(text: &str) -> Vec<Value> {
    vec![
        chunk(json!({"role": "assistant", "content": ""}), None),
        chunk(json!({"content": text}), None),
        chunk(json!({}), Some("stop")),
        usage(),
    ]
}

fn sse(events: &[Value]) -> String {
    let mut out: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    out.push_str("data: [DONE]\n\n");
    out
}

/// The offline checks of the mock itself (no CLI): it speaks the protocol above.
pub mod selftest {
    use std::io::Read;

    use super::*;

    fn post(addr: &str, body: &Value, chunked: bool) -> String {
        let mut stream = TcpStream::connect(addr).unwrap();
        let text = body.to_string();
        let request = if chunked {
            format!(
                "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n{:x}\r\n{text}\r\n0\r\n\r\n",
                text.len()
            )
        } else {
            format!(
                "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{text}",
                text.len()
            )
        };
        stream.write_all(request.as_bytes()).unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        response
    }

    /// The `data:` payloads of an SSE response, `[DONE]` included.
    fn data(response: &str) -> Vec<String> {
        response
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .map(str::to_owned)
            .collect()
    }

    pub fn mock_scripts_turns_by_assistant_count_and_skips_the_title() {
        let script = Script::new()
            .call("call_a", "bash", json!({"command": "echo a"}))
            .turn(&[
                ("call_b", "read", json!({"filePath": "/x"})),
                ("call_c", "e2e_echo", json!({"text": "hi"})),
            ])
            .final_text("the end");
        let mock = MockApi::start(script).unwrap();
        let addr = mock.base_url();
        let addr = addr
            .trim_start_matches("http://")
            .trim_end_matches("/v1")
            .to_owned();
        let tools = json!([{"type": "function", "function": {"name": "bash"}}]);
        // The title request (no tools) first: it must not consume turn 0.
        let title = post(
            &addr,
            &json!({"messages": [{"role": "user", "content": "t"}]}),
            false,
        );
        assert!(title.starts_with("HTTP/1.1 200 OK\r\n"), "{title}");
        assert_has(&title, "Content-Type: text/event-stream");
        assert!(data(&title).iter().any(|d| d.contains(TITLE)), "{title}");
        let first = post(
            &addr,
            &json!({"tools": tools, "messages": [{"role": "user", "content": "go"}]}),
            true,
        );
        let events = data(&first);
        assert_eq!(events.last().map(String::as_str), Some("[DONE]"));
        let chunks: Vec<Value> = events[..events.len() - 1]
            .iter()
            .map(|e| serde_json::from_str(e).unwrap())
            .collect();
        assert_eq!(chunks[0]["choices"][0]["delta"]["role"], "assistant");
        assert_eq!(
            chunks[1]["choices"][0]["delta"]["tool_calls"][0]["id"],
            "call_a"
        );
        assert_eq!(
            chunks[1]["choices"][0]["delta"]["tool_calls"][0]["function"]["name"],
            "bash"
        );
        let arguments = chunks[2]["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"]
            .as_str()
            .unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(arguments).unwrap(),
            json!({"command": "echo a"})
        );
        assert_eq!(chunks[3]["choices"][0]["finish_reason"], "tool_calls");
        assert_eq!(chunks[4]["choices"], json!([]));
        assert!(chunks[4]["usage"].is_object());
        // One assistant message in the history: turn 1, two calls at indexes 0 and 1.
        let history = json!([
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": "", "tool_calls": [{"id": "call_a"}]},
            {"role": "tool", "tool_call_id": "call_a", "content": "a\n"},
        ]);
        let second = post(&addr, &json!({"tools": tools, "messages": history}), false);
        let second = data(&second).join("\n");
        assert_has(&second, "\"id\":\"call_b\"");
        assert_has(&second, "\"index\":0");
        assert_has(&second, "\"id\":\"call_c\"");
        assert_has(&second, "\"index\":1");
        // Past the script: the final text, with finish_reason stop.
        let mut longer = history.as_array().unwrap().clone();
        longer.push(json!({"role": "assistant", "content": ""}));
        let last = post(&addr, &json!({"tools": tools, "messages": longer}), false);
        let last = data(&last).join("\n");
        assert_has(&last, "the end");
        assert_has(&last, "\"finish_reason\":\"stop\"");
        assert_eq!(mock.tool_messages(), [("call_a".into(), "a\n".into())]);
        assert_eq!(mock.offered_tools(), ["bash"]);
        assert_eq!(
            mock.agent_turns().len(),
            3,
            "the title is not an agent turn"
        );
        // Any other path: 404, logged.
        let mut stream = TcpStream::connect(&addr).unwrap();
        stream
            .write_all(b"GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
        let mut response = String::new();
        stream.read_to_string(&mut response).unwrap();
        assert!(response.starts_with("HTTP/1.1 404"), "{response}");
        assert!(mock.requests().iter().any(|r| r.path == "/v1/models"));
    }
}
