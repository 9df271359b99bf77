//! The calls `replay` decides again, read from its inputs. Each line of an input is one of:
//!
//! - a **session record** (our log, [`gate::record::reader`]): a gate decision is a call, with
//!   the decision recorded as its `before`; other events are not calls. A record whose tool
//!   input was cut (`tool_input_truncated`, or a record from before tool inputs were kept whole
//!   whose payload was cut) or that holds no payload is **not replayable**: reported, never
//!   guessed at;
//! - a line of a **Claude Code transcript** (`~/.claude/projects/<project>/<session>.jsonl`):
//!   each `tool_use` block of an assistant message is a `PreToolUse` call (`id` → `tool_use_id`,
//!   `name` → `tool_name`, `input` → `tool_input`, the line's `cwd` and `sessionId`);
//! - a **hook payload** (a JSON object with `tool_name`): the call as the harness sent it; a
//!   payload of a non-gate event (`PostToolUse` …) is not a call.
//!
//! Anything else (a transcript's user, system or summary lines) is not a call and is skipped;
//! a line that is not JSON is counted as skipped too.

use std::path::{Path, PathBuf};

use engine::harness::Harness;
use gate::record::reader::{RECORD_VERSION, View, lines};
use serde_json::{Value, json};

/// A decision with its deciding rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decided {
    pub decision: String,
    pub rule: Option<String>,
}

/// One call to decide again.
pub struct Call {
    /// `<file>:<line>` it was read from.
    pub source: String,
    pub tool_use_id: Option<String>,
    pub tool: Option<String>,
    /// The harness that answered, when recorded.
    pub harness: Option<Harness>,
    /// The gate event it was (or would be) decided for.
    pub event: String,
    /// The payload to decide; `Err(why)` when the call cannot be replayed.
    pub payload: Result<Value, NotReplayable>,
    /// The decision recorded for it (a session record's).
    pub recorded: Option<Decided>,
    /// Why the recorded gate could not decide (its deny was the fail-closed one), if so.
    pub recorded_error: Option<String>,
    /// The project root it was decided in (a session record's).
    pub project_root: Option<String>,
}

/// Why a recorded call cannot be decided again.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotReplayable {
    #[error("the record holds no payload (it was not JSON, or the call never finished deciding)")]
    NoPayload,
    /// The record's `tool_input_truncated`.
    #[error("its tool_input was over the 64 KiB a record keeps whole, and was cut")]
    ToolInputCut,
    /// A record of before `tool_input` was kept whole, its `payload_truncated`.
    #[error("recorded before tool inputs were kept whole, and its payload was cut")]
    PayloadCut,
}

/// What reading one input gave.
#[derive(Default)]
pub struct Read {
    pub calls: Vec<Call>,
    /// Lines that were not JSON.
    pub skipped: usize,
}

/// Why an input (a log, its anchor, a directory of logs, payloads) could not be read.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("cannot read `{}`: {source}", path.display())]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "{at}: a record of format version {version}; this animus-hook reads version \
         {RECORD_VERSION}"
    )]
    Version { at: String, version: Value },
}

impl InputError {
    /// A failed read of `path`.
    pub fn read(path: &Path) -> impl FnOnce(std::io::Error) -> InputError + '_ {
        move |source| InputError::Read {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Read the calls of the input at `path`.
pub fn read_input(path: &Path) -> Result<Read, InputError> {
    let bytes = std::fs::read(path).map_err(InputError::read(path))?;
    let mut read = Read::default();
    for line in lines(&bytes) {
        let source = format!("{}:{}", path.display(), line.number);
        if line.bytes.trim_ascii().is_empty() {
            continue;
        }
        let Ok(value) = serde_json::from_slice::<Value>(line.bytes) else {
            read.skipped += 1;
            continue;
        };
        if let Some(v) = value.get("v") {
            if v.as_u64() != Some(RECORD_VERSION) {
                return Err(InputError::Version {
                    at: source,
                    version: v.clone(),
                });
            }
            read.calls.extend(from_record(source, &value));
            continue;
        }
        if value.get("pid").is_some() && value.get("gate").is_some() {
            // A record of the format before the chain.
            read.calls.extend(from_record(source, &value));
            continue;
        }
        if is_transcript_line(&value) {
            read.calls.extend(from_transcript(&source, &value));
        } else if value.get("tool_name").is_some() {
            read.calls.extend(from_payload(source, value));
        }
    }
    Ok(read)
}

/// A gate decision of a session log, as a call.
fn from_record(source: String, record: &Value) -> Option<Call> {
    let view = View(record);
    if !view.gate() {
        return None;
    }
    let recorded = view.decision().map(|d| Decided {
        decision: d.to_string(),
        rule: view.deciding_rule().map(str::to_string),
    });
    let chained = record.get("v").is_some();
    let payload = match view.payload() {
        None => Err(NotReplayable::NoPayload),
        Some(_) if view.tool_input_truncated() => Err(NotReplayable::ToolInputCut),
        Some(_)
            if !chained
                && record.get("payload_truncated").and_then(Value::as_bool) == Some(true) =>
        {
            Err(NotReplayable::PayloadCut)
        }
        Some(payload) => Ok(payload.clone()),
    };
    Some(Call {
        source,
        tool_use_id: view.tool_use_id().map(str::to_string),
        tool: view.tool_name().map(str::to_string),
        harness: view.harness().and_then(Harness::parse),
        event: view.event().unwrap_or("PreToolUse").to_string(),
        payload,
        recorded,
        recorded_error: record
            .get("error")
            .and_then(Value::as_str)
            .map(str::to_string),
        project_root: view.project_root().map(str::to_string),
    })
}

fn is_transcript_line(value: &Value) -> bool {
    value.get("type").and_then(Value::as_str) == Some("assistant")
        && value
            .pointer("/message/content")
            .is_some_and(Value::is_array)
}

/// The `tool_use` blocks of a transcript's assistant message, as `PreToolUse` calls.
fn from_transcript(source: &str, line: &Value) -> Vec<Call> {
    let blocks = line
        .pointer("/message/content")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    blocks
        .iter()
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
        .map(|block| {
            let id = block.get("id").and_then(Value::as_str);
            let name = block.get("name").and_then(Value::as_str);
            let mut payload = json!({
                "hook_event_name": "PreToolUse",
                "tool_name": name,
                "tool_input": block.get("input").cloned().unwrap_or(json!({})),
                "tool_use_id": id,
            });
            for (from, to) in [("cwd", "cwd"), ("sessionId", "session_id")] {
                if let Some(v) = line.get(from) {
                    payload[to] = v.clone();
                }
            }
            Call {
                source: source.to_string(),
                tool_use_id: id.map(str::to_string),
                tool: name.map(str::to_string),
                harness: Some(Harness::Claude),
                event: "PreToolUse".into(),
                payload: Ok(payload),
                recorded: None,
                recorded_error: None,
                project_root: None,
            }
        })
        .collect()
}

/// A hook payload, as a call, when its event is a gate (or it names none).
fn from_payload(source: String, payload: Value) -> Option<Call> {
    let event = payload.get("hook_event_name").and_then(Value::as_str);
    let harness = gate::harness_call::detect(None, event, Some(&payload));
    let event = match event {
        Some(event) if harness.canonical_event(event).is_some() => event.to_string(),
        Some(_) => return None,
        None => harness.gate_events()[0].0.to_string(),
    };
    Some(Call {
        source,
        tool_use_id: payload
            .get("tool_use_id")
            .and_then(Value::as_str)
            .map(str::to_string),
        tool: payload
            .get("tool_name")
            .and_then(Value::as_str)
            .map(str::to_string),
        harness: None,
        event,
        payload: Ok(payload),
        recorded: None,
        recorded_error: None,
        project_root: None,
    })
}
