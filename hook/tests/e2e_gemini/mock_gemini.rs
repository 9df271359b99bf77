//! A scripted, offline mock of the Gemini API (generativelanguage `v1beta`), as Gemini CLI
//! 0.61.0 calls it with `GEMINI_API_KEY` and `GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:<port>`.
//!
//! It binds 127.0.0.1 only and records every request it gets. With `-m gemini-2.5-flash` the
//! CLI sends nothing but `POST /v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`,
//! one per model turn (measured): [`MockGemini::assert_only_model_turns`] fails a test on any
//! other request, so a side request the CLI starts making is noticed.
//!
//! The answer to a turn is chosen by how many `functionResponse` parts the conversation
//! already holds: while the script has calls left, the next turn's calls (one turn may hold
//! several, sent as parallel `functionCall` parts); then a final text, `FINAL: <the last
//! functionResponse.response as JSON>`. Each answer is one SSE event, `data: <json>\r\n\r\n`,
//! with a `Content-Length` (the CLI accepts it; no chunking needed).
//!
//! The CLI names each call itself (`<name>_<epoch-ms>_<n>`), so a call's result is found by
//! its place in the script: [`MockGemini::response`].

use std::io::{BufReader, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};
use test_support::http;

/// The model the CLI is started with (`-m`), and the only path it may call.
pub const MODEL: &str = "gemini-2.5-flash";
pub const STREAM_PATH: &str = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse";
/// The API key the CLI is given; every request must carry it.
pub const API_KEY: &str = "e2e-offline-dummy-key";

/// The model's tool calls, turn by turn.
#[derive(Clone, Default)]
pub struct Script {
    turns: Vec<Vec<Value>>,
}

impl Script {
    pub fn new() -> Script {
        Script::default()
    }

    /// A turn with one call of `name` with `args`.
    pub fn call(self, name: &str, args: Value) -> Script {
        self.parallel(&[(name, args)])
    }

    /// A turn with several calls at once.
    pub fn parallel(mut self, calls: &[(&str, Value)]) -> Script {
        self.turns.push(
            calls
                .iter()
                .map(|(name, args)| json!({"functionCall": {"name": name, "args": args}}))
                .collect(),
        );
        self
    }

    pub fn calls(&self) -> usize {
        self.turns.iter().map(Vec::len).sum()
    }

    /// The parts of the answer to a conversation that already holds `answered` results.
    fn answer(&self, answered: usize, last: Option<&Value>) -> Vec<Value> {
        let mut before = 0;
        for turn in &self.turns {
            if answered == before {
                return turn.clone();
            }
            before += turn.len();
        }
        let text = match last {
            Some(response) => format!("FINAL: {response}"),
            None => "FINAL: no tools".to_string(),
        };
        vec![json!({"text": text})]
    }
}

/// One request the mock received.
#[derive(Clone, Debug)]
pub struct Request {
    pub method: String,
    pub target: String,
    pub headers: Vec<(String, String)>,
    pub body: Value,
}

impl Request {
    pub fn header(&self, name: &str) -> Option<&str> {
        test_support::http::header(&self.headers, name)
    }

    /// Every `functionResponse` in the conversation, in order.
    pub fn function_responses(&self) -> Vec<Value> {
        self.body["contents"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|content| content["parts"].as_array().into_iter().flatten())
            .filter_map(|part| part.get("functionResponse").cloned())
            .collect()
    }
}

struct State {
    script: Script,
    requests: Vec<Request>,
}

pub struct MockGemini {
    server: http::Server,
    state: Arc<Mutex<State>>,
}

impl MockGemini {
    pub fn start(script: Script) -> std::io::Result<MockGemini> {
        let state = Arc::new(Mutex::new(State {
            script,
            requests: Vec::new(),
        }));
        let server = {
            let state = Arc::clone(&state);
            http::Server::start(
                "mock-gemini",
                http::LIFETIME,
                http::IO_TIMEOUT,
                move |stream| serve(stream, &state),
            )?
        };
        Ok(MockGemini { server, state })
    }

    pub fn base_url(&self) -> String {
        format!("http://{}", self.server.addr())
    }

    pub fn requests(&self) -> Vec<Request> {
        self.state.lock().unwrap().requests.clone()
    }

    /// The last model turn the CLI asked for.
    pub fn last_request(&self) -> Request {
        self.requests()
            .into_iter()
            .rev()
            .find(|r| r.target == STREAM_PATH)
            .expect("the CLI asked the mock for at least one model turn")
    }

    /// What the model got back for the script's call number `index` (from 0): the
    /// `functionResponse.response` object of the last request.
    pub fn response(&self, index: usize) -> Value {
        let responses = self.last_request().function_responses();
        let script_calls = self.state.lock().unwrap().script.calls();
        assert_eq!(
            responses.len(),
            script_calls,
            "every scripted call has a result in the last request: {responses:#?}"
        );
        responses[index]["response"].clone()
    }

    /// The text of a result: `output` for a tool that ran, `error` for one that did not.
    pub fn error(&self, index: usize) -> Option<String> {
        self.response(index)["error"].as_str().map(str::to_owned)
    }

    /// Every request was a model turn on the one streaming path, with our key, and the CLI
    /// asked for exactly `turns` of them.
    pub fn assert_only_model_turns(&self, turns: usize) {
        let problems = self.unexpected_requests(turns);
        assert!(problems.is_empty(), "{problems:#?}");
    }

    /// What [`Self::assert_only_model_turns`] objects to.
    pub fn unexpected_requests(&self, turns: usize) -> Vec<String> {
        let requests = self.requests();
        let mut problems: Vec<String> = requests
            .iter()
            .filter(|r| {
                r.method != "POST"
                    || r.target != STREAM_PATH
                    || r.header("x-goog-api-key") != Some(API_KEY)
            })
            .map(|r| {
                format!(
                    "a request other than a model turn: {} {} {:?}",
                    r.method, r.target, r.headers
                )
            })
            .collect();
        if requests.len() != turns {
            problems.push(format!(
                "{} requests, {turns} model turns expected",
                requests.len()
            ));
        }
        problems
    }

    /// The turns a run that completed the whole script asks for: one per scripted turn and
    /// the final one.
    pub fn full_run_turns(&self) -> usize {
        self.state.lock().unwrap().script.turns.len() + 1
    }
}

/// Serve one keep-alive connection until the client closes it.
fn serve(stream: TcpStream, state: &Mutex<State>) {
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    while let Some(request) = read_request(&mut reader) {
        let (status, content_type, body) = respond(&request, state);
        let head = format!(
            "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nConnection: keep-alive\r\n\r\n",
            body.len()
        );
        if writer.write_all(head.as_bytes()).is_err() || writer.write_all(&body).is_err() {
            return;
        }
    }
}

fn respond(request: &Request, state: &Mutex<State>) -> (&'static str, &'static str, Vec<u8>) {
    let mut state = state.lock().unwrap();
    state.requests.push(request.clone());
    if request.method != "POST" || request.target != STREAM_PATH {
        let body = json!({"error": {"code": 404, "message": "not mocked", "status": "NOT_FOUND"}});
        return (
            "404 Not Found",
            "application/json",
            body.to_string().into_bytes(),
        );
    }
    let responses = request.function_responses();
    let parts = state
        .script
        .answer(responses.len(), responses.last().map(|r| &r["response"]));
    let event = json!({
        "candidates": [{
            "content": {"role": "model", "parts": parts},
            "finishReason": "STOP",
            "index": 0,
        }],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": MODEL,
    });
    (
        "200 OK",
        "text/event-stream",
        format!("data: {event}\r\n\r\n").into_bytes(),
    )
}

/// One HTTP/1.1 request, or `None` at the end of the stream (or on a malformed one).
fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Request> {
    let request = http::read_request(reader, http::MAX_BODY).ok()??;
    Some(Request {
        body: serde_json::from_slice(&request.body).unwrap_or(Value::Null),
        method: request.method,
        target: request.path,
        headers: request.headers,
    })
}
