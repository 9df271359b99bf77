//! The parts of a harness hook payload that deciding needs.

use serde::Deserialize;
use serde_json::Value;

/// A gate payload (Claude's PreToolUse / PermissionRequest shape). Unknown fields are ignored:
/// the harness adds fields between versions.
#[derive(Debug, Deserialize)]
pub struct GatePayload {
    #[serde(default)]
    pub hook_event_name: Option<String>,
    pub tool_name: String,
    #[serde(default)]
    pub tool_input: Value,
    /// The working directory of the call (path rules made relative to it).
    #[serde(default)]
    pub cwd: Option<String>,
}

/// Why a payload cannot be decided on; the message says what is wrong without echoing the
/// input. On the hook's path every one of them is a deny (fail closed).
#[derive(Debug, thiserror::Error)]
pub enum PayloadError {
    /// Not JSON at all.
    #[error("payload is not JSON ({0})")]
    NotJson(serde_json::Error),
    /// JSON, but not an object.
    #[error("payload is not a JSON object")]
    NotAnObject,
    /// No `tool_name`.
    #[error("the payload has no `tool_name`")]
    NoToolName,
    /// A `tool_name` that is not a string.
    #[error("the payload's `tool_name` is not a string")]
    ToolNameNotAString,
    /// An empty `tool_name`.
    #[error("the payload's `tool_name` is empty")]
    EmptyToolName,
    /// An object whose members do not have the gate payload's types.
    #[error("payload has an unexpected shape ({0})")]
    Shape(serde_json::Error),
}

/// Parse a gate payload.
pub fn parse_gate_payload(bytes: &[u8]) -> Result<GatePayload, PayloadError> {
    let value: Value = serde_json::from_slice(bytes).map_err(PayloadError::NotJson)?;
    if !value.is_object() {
        return Err(PayloadError::NotAnObject);
    }
    tool_name(&value)?;
    serde_json::from_value(value).map_err(PayloadError::Shape)
}

/// The payload's `tool_name`: present, a string, not empty.
pub fn tool_name(payload: &Value) -> Result<&str, PayloadError> {
    match payload.get("tool_name") {
        Some(Value::String(name)) if !name.is_empty() => Ok(name),
        Some(Value::String(_)) => Err(PayloadError::EmptyToolName),
        Some(_) => Err(PayloadError::ToolNameNotAString),
        None => Err(PayloadError::NoToolName),
    }
}
