//! The mock itself, without the CLI: it answers each turn from the items already echoed, fills
//! in a running command's session id, and refuses and logs anything that is not a model call.

use std::io::{Read, Write};
use std::net::TcpStream;

use serde_json::{Value, json};

use crate::mock_responses::{LAST_SESSION_ID, MockApi, Script};
use test_support::assert_has;

fn post(mock: &MockApi, body: &Value) -> String {
    let url = mock.base_url();
    let addr = url.trim_start_matches("http://").trim_end_matches("/v1");
    let mut stream = TcpStream::connect(addr).unwrap();
    let body = body.to_string();
    write!(
        stream,
        "POST /v1/responses HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    reply
}

/// The items of an SSE reply's `response.output_item.done` events.
fn items(reply: &str) -> Vec<Value> {
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    assert_has(reply, "event: response.completed\n");
    reply
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .map(|d| serde_json::from_str::<Value>(d).unwrap())
        .filter(|e| e["type"] == "response.output_item.done")
        .map(|e| e["item"].clone())
        .collect()
}

pub fn mock_answers_turn_by_turn_and_refuses_strays() {
    let mock = MockApi::start(
        Script::new()
            .exec_with("c1", json!({"cmd": "bash", "tty": true}))
            .call(
                "c2",
                "write_stdin",
                json!({"session_id": LAST_SESSION_ID, "chars": "x"}),
            )
            .patch("c3", "*** Begin Patch\n*** End Patch\n"),
    )
    .unwrap();
    let user = json!({"type": "message", "role": "user", "content": []});
    let first = items(&post(&mock, &json!({"input": [user]})));
    assert_eq!(first[0]["type"], "function_call");
    assert_eq!(first[0]["name"], "exec_command");
    assert_eq!(first[0]["call_id"], "c1");
    let echoed = first[0].clone();
    let output = json!({"type": "function_call_output", "call_id": "c1",
                        "output": "Process running with session ID 4242\n"});
    let second = items(&post(&mock, &json!({"input": [user, echoed, output]})));
    let arguments: Value = serde_json::from_str(second[0]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(arguments, json!({"session_id": 4242, "chars": "x"}));
    // A retried request gets the same turn.
    assert_eq!(
        items(&post(&mock, &json!({"input": [user, echoed, output]})))[0]["call_id"],
        "c2"
    );
    let third = items(&post(
        &mock,
        &json!({"input": [user, echoed, output, second[0], {"type": "function_call_output", "call_id": "c2", "output": "ok"}]}),
    ));
    assert_eq!(third[0]["type"], "custom_tool_call");
    assert_eq!(third[0]["name"], "apply_patch");
    let more = json!({"input": [user, first[0], second[0], third[0]]});
    let last = items(&post(&mock, &more));
    assert_eq!(last[0]["type"], "message");
    assert_eq!(last[0]["content"][0]["text"], "all done");
    assert_eq!(
        mock.tool_output("c1").text,
        "Process running with session ID 4242\n"
    );
    assert!(mock.stray_requests().is_empty());

    let url = mock.proxy_url();
    let mut stream = TcpStream::connect(url.trim_start_matches("http://")).unwrap();
    write!(
        stream,
        "CONNECT chatgpt.com:443 HTTP/1.1\r\nHost: chatgpt.com:443\r\n\r\n"
    )
    .unwrap();
    let mut reply = String::new();
    stream.read_to_string(&mut reply).unwrap();
    assert!(reply.starts_with("HTTP/1.1 403"), "{reply}");
    let stray = mock.stray_requests();
    assert_eq!(stray.len(), 1);
    assert_eq!(stray[0].method, "CONNECT");
    assert_eq!(stray[0].path, "chatgpt.com:443");
}
