//! `animus-hook-emit` starts without the Rust runtime (`#![no_main]`, for ~34 µs a spawn); what
//! the runtime does at start-up that `emit` relies on, it must still do. Each case runs both
//! binaries alike: `animus-hook` keeps the runtime and is the reference. (The alternate signal
//! stack the fatal handlers need is held by `emit_policy_changes`' `stack-overflow` case; the
//! standard descriptors opened on `/dev/null` by `gate`'s own test: nothing `emit` does today
//! shows the difference from outside.)

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::*;

/// A harness that stops reading before the hook answers (it gave up, or died): the answer's
/// write fails, and the hook still exits 0 with the call recorded — a write to a closed pipe
/// must not kill it (`SIGPIPE` is ignored, as the runtime ignores it). The call is a payload
/// that is not JSON: a gate answers it with a deny.
#[test]
fn a_reader_gone_before_the_answer_neither_kills_the_hook_nor_loses_the_record() {
    let (_dir, project, state, policy) = trader_dir("reader-gone").parts();
    for (i, bin) in [bin(), lean_bin()].into_iter().enumerate() {
        let session = format!("reader-gone-{i}");
        let mut child = Command::new(bin)
            .args(gate_args(&session, &project, &policy))
            .env("ANIMUS_CONFIG_DIR", &state)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // The reader goes before the payload is sent: the hook cannot have answered yet.
        drop(child.stdout.take());
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"not json").unwrap();
        drop(stdin);
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "{bin}: {status:?}");
        let log = only_scope_log(&state, &session);
        assert_eq!(log.lines().count(), 1, "{bin}: {log:?}");
        let record: serde_json::Value = serde_json::from_str(log.trim()).unwrap();
        assert_eq!(record["decision"], "deny", "{bin}: {record}");
    }
}
