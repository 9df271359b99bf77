//! The mock itself (no CLI needed): the wire format the suite relies on.

use serde_json::{Value, json};

use crate::e2e::fixtures::*;
use crate::e2e::mock_api::{Block, MockApi, Script, is_streaming};

/// Send one raw HTTP/1.1 request and return (status, content-type, body) of the answer.
fn http(
    mock: &MockApi,
    method: &str,
    path: &str,
    body: Option<&Value>,
    chunked: bool,
) -> (u16, String, String) {
    use std::io::{Read, Write};
    let address = mock.base_url().trim_start_matches("http://").to_owned();
    let mut stream = std::net::TcpStream::connect(&address).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    let body = body.map(Value::to_string).unwrap_or_default();
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nhost: {address}\r\ncontent-type: application/json\r\n"
    );
    if chunked {
        let (first, second) = body.split_at(body.len() / 2);
        request.push_str("transfer-encoding: chunked\r\n\r\n");
        for part in [first, second, ""] {
            request.push_str(&format!("{:x}\r\n{part}\r\n", part.len()));
        }
    } else {
        request.push_str(&format!("content-length: {}\r\n\r\n{body}", body.len()));
    }
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").expect("a complete head");
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    let content_type = head
        .lines()
        .find_map(|l| l.strip_prefix("content-type: "))
        .unwrap_or_default()
        .to_owned();
    (status, content_type, body.to_owned())
}

/// A Messages request whose conversation already holds `assistant_turns` assistant messages.
fn messages_request(assistant_turns: usize, stream: bool) -> Value {
    let mut messages = vec![json!({"role": "user", "content": "go"})];
    for turn in 0..assistant_turns {
        messages.push(json!({"role": "assistant", "content": [{"type": "text", "text": "…"}]}));
        messages.push(json!({"role": "user", "content": [{
            "type": "tool_result", "tool_use_id": format!("toolu_{turn}"),
            "content": [{"type": "text", "text": format!("result {turn}")}], "is_error": turn == 1,
        }]}));
    }
    json!({"model": "claude-e2e", "stream": stream, "max_tokens": 100, "messages": messages, "tools": []})
}

/// The `(event, data)` pairs of an SSE body; each `event:` must name its data's `type`.
fn sse(body: &str) -> Vec<Value> {
    body.split("\n\n")
        .filter(|frame| !frame.trim().is_empty())
        .map(|frame| {
            let (event, data) = frame.split_once('\n').expect("event and data lines");
            let data: Value = serde_json::from_str(data.strip_prefix("data: ").unwrap()).unwrap();
            assert_eq!(
                event.strip_prefix("event: "),
                data["type"].as_str(),
                "{frame}"
            );
            data
        })
        .collect()
}

pub fn mock_streams_the_script_turn_by_turn() {
    let mock = MockApi::start(
        Script::new()
            .tool_call("toolu_0", "Bash", bash("echo one"))
            .turn(vec![
                Block::text("two at once"),
                Block::tool_use("toolu_1", "Read", json!({"file_path": "/x"})),
                Block::tool_use("toolu_2", "Bash", bash("echo two")),
            ]),
    )
    .unwrap();

    let (status, content_type, body) = http(
        &mock,
        "POST",
        "/v1/messages?beta=true",
        Some(&messages_request(0, true)),
        false,
    );
    assert_eq!((status, content_type.as_str()), (200, "text/event-stream"));
    let events = sse(&body);
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    assert_eq!(events[0]["message"]["content"], json!([]));
    assert_eq!(events[1]["content_block"]["id"], "toolu_0");
    let input: Value =
        serde_json::from_str(events[2]["delta"]["partial_json"].as_str().unwrap()).unwrap();
    assert_eq!(input, bash("echo one"));
    assert_eq!(events[4]["delta"]["stop_reason"], "tool_use");

    let events = sse(&http(
        &mock,
        "POST",
        "/v1/messages",
        Some(&messages_request(1, true)),
        false,
    )
    .2);
    let starts: Vec<(&Value, &Value)> = events
        .iter()
        .filter(|e| e["type"] == "content_block_start")
        .map(|e| (&e["index"], &e["content_block"]["type"]))
        .collect();
    assert_eq!(
        starts,
        [
            (&json!(0), &json!("text")),
            (&json!(1), &json!("tool_use")),
            (&json!(2), &json!("tool_use"))
        ]
    );
    assert_eq!(events[events.len() - 2]["delta"]["stop_reason"], "tool_use");

    let events = sse(&http(
        &mock,
        "POST",
        "/v1/messages",
        Some(&messages_request(2, true)),
        false,
    )
    .2);
    assert_eq!(
        events[2]["delta"]["text"], "all done",
        "past the script: the final text"
    );
    assert_eq!(events[events.len() - 2]["delta"]["stop_reason"], "end_turn");

    let results = mock.tool_results();
    let summary: Vec<(&str, bool, &str)> = results
        .iter()
        .map(|r| (r.tool_use_id.as_str(), r.is_error, r.text.as_str()))
        .collect();
    assert_eq!(
        summary,
        [
            ("toolu_0", false, "result 0"),
            ("toolu_1", true, "result 1")
        ]
    );
}

pub fn mock_answers_without_streaming_and_breaks_a_stream_once() {
    let mock = MockApi::start(Script::new().break_first_stream().tool_call(
        "toolu_0",
        "Bash",
        bash("echo"),
    ))
    .unwrap();

    let (status, _, broken) = http(
        &mock,
        "POST",
        "/v1/messages",
        Some(&messages_request(0, true)),
        true,
    );
    assert_eq!(status, 200);
    let types: Vec<Value> = sse(&broken).iter().map(|e| e["type"].clone()).collect();
    assert_eq!(
        types,
        [json!("message_start")],
        "cut off after message_start"
    );

    let (status, content_type, body) = http(
        &mock,
        "POST",
        "/v1/messages",
        Some(&messages_request(0, false)),
        true,
    );
    assert_eq!((status, content_type.as_str()), (200, "application/json"));
    let message: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(message["stop_reason"], "tool_use");
    assert_eq!(message["content"][0]["input"], bash("echo"));

    let whole = sse(&http(
        &mock,
        "POST",
        "/v1/messages",
        Some(&messages_request(0, true)),
        false,
    )
    .2);
    assert_eq!(
        whole.last().unwrap()["type"],
        "message_stop",
        "only the first stream breaks"
    );
    // The chunked request bodies were read whole.
    let streaming: Vec<bool> = mock.model_calls().iter().map(is_streaming).collect();
    assert_eq!(streaming, [true, false, true]);
}

pub fn mock_answers_auxiliary_requests() {
    let mock = MockApi::start(Script::new()).unwrap();
    assert_eq!(http(&mock, "HEAD", "/api/hello", None, false).0, 200);
    let (status, _, body) = http(
        &mock,
        "POST",
        "/v1/messages/count_tokens?beta=true",
        Some(&messages_request(0, false)),
        false,
    );
    assert_eq!(status, 200);
    assert!(serde_json::from_str::<Value>(&body).unwrap()["input_tokens"].is_u64());
    let (status, _, body) = http(&mock, "GET", "/v1/models", None, false);
    assert_eq!(status, 404);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["type"],
        "error"
    );
    let log: Vec<(String, String)> = mock
        .requests()
        .into_iter()
        .map(|r| (r.method, r.path))
        .collect();
    assert_eq!(
        log,
        [
            ("HEAD".into(), "/api/hello".into()),
            ("POST".into(), "/v1/messages/count_tokens?beta=true".into()),
            ("GET".into(), "/v1/models".into()),
        ]
    );
    assert!(
        mock.model_calls().is_empty(),
        "count_tokens is not a model call"
    );
}
