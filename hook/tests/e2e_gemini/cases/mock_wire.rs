//! The mock itself, without the CLI: a raw HTTP client plays the CLI's side, so a broken mock
//! cannot make the CLI cases pass.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;

use serde_json::{Value, json};

use crate::e2e_gemini::fixtures::shell;
use crate::e2e_gemini::mock_gemini::{API_KEY, MockGemini, STREAM_PATH, Script};

/// POST `body` to `path` on one keep-alive connection; the status line and the body.
fn post(stream: &mut BufReader<TcpStream>, path: &str, body: &Value) -> (String, String) {
    let body = body.to_string();
    write!(
        stream.get_mut(),
        "POST {path} HTTP/1.1\r\nHost: x\r\nx-goog-api-key: {API_KEY}\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut status = String::new();
    stream.read_line(&mut status).unwrap();
    let mut length = 0;
    loop {
        let mut line = String::new();
        stream.read_line(&mut line).unwrap();
        if line.trim().is_empty() {
            break;
        }
        if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = value.trim().parse().unwrap();
        }
    }
    let mut text = vec![0; length];
    stream.read_exact(&mut text).unwrap();
    (status.trim().to_owned(), String::from_utf8(text).unwrap())
}

/// The SSE event's JSON.
fn event(body: &str) -> Value {
    let data = body
        .strip_prefix("data: ")
        .and_then(|b| b.strip_suffix("\r\n\r\n"))
        .unwrap();
    serde_json::from_str(data).unwrap()
}

fn function_response(name: &str, response: Value) -> Value {
    json!({"role": "user", "parts": [{"functionResponse": {"name": name, "response": response}}]})
}

pub fn mock_plays_the_script_turn_by_turn() {
    let script = Script::new()
        .call("run_shell_command", shell("ls"))
        .parallel(&[
            ("read_file", json!({"file_path": "a"})),
            ("read_file", json!({"file_path": "b"})),
        ]);
    let mock = MockGemini::start(script).unwrap();
    let stream = TcpStream::connect(mock.base_url().strip_prefix("http://").unwrap()).unwrap();
    let mut stream = BufReader::new(stream);
    let user = json!({"role": "user", "parts": [{"text": "go"}]});

    let (status, body) = post(&mut stream, STREAM_PATH, &json!({"contents": [user]}));
    assert_eq!(status, "HTTP/1.1 200 OK");
    let parts = &event(&body)["candidates"][0]["content"]["parts"];
    assert_eq!(
        parts[0]["functionCall"]["name"], "run_shell_command",
        "{body}"
    );
    assert_eq!(parts.as_array().unwrap().len(), 1);

    let first = function_response("run_shell_command", json!({"output": "one"}));
    let (_, body) = post(
        &mut stream,
        STREAM_PATH,
        &json!({"contents": [user, first]}),
    );
    let parts = &event(&body)["candidates"][0]["content"]["parts"];
    assert_eq!(
        parts.as_array().unwrap().len(),
        2,
        "the parallel turn: {body}"
    );
    assert_eq!(parts[1]["functionCall"]["args"]["file_path"], "b");

    let a = function_response("read_file", json!({"output": "a"}));
    let b = function_response("read_file", json!({"error": "blocked b"}));
    let contents = json!({"contents": [user, first, a, b]});
    let (_, body) = post(&mut stream, STREAM_PATH, &contents);
    assert_eq!(
        event(&body)["candidates"][0]["content"]["parts"][0]["text"],
        r#"FINAL: {"error":"blocked b"}"#
    );
    assert_eq!(mock.response(0)["output"], "one");
    assert_eq!(mock.error(2).as_deref(), Some("blocked b"));
    mock.assert_only_model_turns(mock.full_run_turns());

    // Anything else is answered 404 and fails the check.
    let (status, _) = post(
        &mut stream,
        "/v1beta/models/other:generateContent",
        &json!({}),
    );
    assert_eq!(status, "HTTP/1.1 404 Not Found");
    let problems = mock.unexpected_requests(4);
    assert_eq!(problems.len(), 1, "{problems:#?}");
    assert!(
        problems[0].contains("POST /v1beta/models/other:generateContent"),
        "{problems:#?}"
    );
    assert_eq!(
        mock.unexpected_requests(3).len(),
        2,
        "a count off is caught too"
    );
}
