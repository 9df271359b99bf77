//! The cost of the session log's hash chain per record: 1,000 appends of a real record, through
//! the chained writer (`gate::record::append_line`: lock, read the last line back, hash it,
//! write) against the append it replaced (lock, read the last byte, write), interleaved over
//! rounds so both see the same machine. Each append opens the log (and, chained, its anchor)
//! as every `emit` process does. Also the worst case: each previous record holding a tool input
//! of the 64 KiB kept whole, which the next append hashes.
//!
//! ```text
//! cargo bench -p animus-benches --bench record            # 15 rounds of 1,000 appends
//! cargo bench -p animus-benches --bench record -- --test  # smoke: 1 round of 100
//! ```

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use gate::record::{SessionLog, append_line};

fn main() {
    let smoke = std::env::args().any(|a| a == "--test");
    let (rounds, appends) = if smoke { (1, 100) } else { (15, 1000) };
    let dir = std::env::temp_dir().join(format!("animus-record-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf();
    let payload: serde_json::Value = serde_json::from_slice(
        &std::fs::read(repo.join("corpus/payloads/PreToolUse.Bash.trade-live.json")).unwrap(),
    )
    .unwrap();
    let typical = body(&payload);
    let mut big = payload.clone();
    big["tool_input"]["command"] = "x".repeat(60 * 1024).into();
    let worst = body(&big);
    for (name, body) in [("typical", &typical), ("64 KiB tool input", &worst)] {
        let mut hashing: Vec<Duration> = (0..rounds)
            .map(|_| {
                time(appends, || {
                    std::hint::black_box(engine::sha256::sha256(std::hint::black_box(body)));
                })
            })
            .collect();
        let hash = median(&mut hashing).as_secs_f64() * 1e6 / appends as f64;
        let (mut chained, mut plain) = (Vec::new(), Vec::new());
        for round in 0..rounds {
            let log = dir.join(format!("{round}.jsonl"));
            std::fs::write(log.with_extension("anchor"), b"{\"v\":1}\n").unwrap();
            let _ = std::fs::remove_file(&log);
            chained.push(time(appends, || append_chained(&log, body)));
            let _ = std::fs::remove_file(&log);
            plain.push(time(appends, || append_plain(&log, body)));
        }
        let (c, p) = (median(&mut chained), median(&mut plain));
        let per = |d: Duration| d.as_secs_f64() * 1e6 / appends as f64;
        println!(
            "record append, {name} record ({} bytes): chained {:.1} µs, unchained {:.1} µs per \
             record; the chain costs {:.1} µs ({:.2}x), of which SHA-256 of the line {hash:.1} µs; \
             median of {rounds} rounds of {appends}",
            body.len(),
            per(c),
            per(p),
            per(c) - per(p),
            per(c) / per(p)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A record body as `emit` writes it for `payload` (the keys it has; values typical).
fn body(payload: &serde_json::Value) -> Vec<u8> {
    let record = serde_json::json!({
        "decide_us": 41, "deciding_rule": "tool_policy.deny:Bash(* --live*)", "decision": "deny",
        "elapsed_us": 612, "error": null, "evaluator": "sidecar (verified by stamp)",
        "event": "PreToolUse", "gate": true, "harness": "claude", "left_to_harness": false,
        "matched_rules": ["tool_policy.deny:Bash(* --live*)"], "payload": payload,
        "payload_bytes": 420, "payload_sha256": "0".repeat(64), "payload_truncated": false,
        "pid": 4242, "policy": "/tmp/run/animus-policy.json", "policy_digest": "sha256:00",
        "project_root": "/home/user/project", "reason": "Denied by tool_policy.deny entry.",
        "seal": false, "session": "bench", "tool_input_truncated": false, "tool_name": "Bash",
        "tool_use_id": "toolu_bench", "ts": "2026-12-04T20:00:00.000000Z"
    });
    let mut line = serde_json::to_vec(&record).unwrap();
    line.push(b'\n');
    line
}

fn time(n: usize, mut f: impl FnMut()) -> Duration {
    let started = Instant::now();
    for _ in 0..n {
        f();
    }
    started.elapsed()
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn open(path: &Path) -> File {
    OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .open(path)
        .unwrap()
}

fn append_chained(log: &Path, body: &[u8]) {
    let session = SessionLog {
        file: open(log),
        anchor: File::open(log.with_extension("anchor")).unwrap(),
    };
    append_line(session, log, body).unwrap();
}

/// The append before the chain: lock, read the last byte (a torn last line), one write.
fn append_plain(log: &Path, body: &[u8]) {
    let mut file = open(log);
    file.lock().unwrap();
    let len = file.metadata().unwrap().len();
    if len > 0 {
        let mut last = [0u8; 1];
        file.read_exact_at(&mut last, len - 1).unwrap();
        assert_eq!(last[0], b'\n');
    }
    file.write_all(body).unwrap();
}
