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

/// Parse a gate payload; the error says what is missing without echoing the input.
pub fn parse_gate_payload(bytes: &[u8]) -> Result<GatePayload, String> {
    let value: Value =
        serde_json::from_slice(bytes).map_err(|e| format!("payload is not JSON ({e})"))?;
    if !value.is_object() {
        return Err("payload is not a JSON object".into());
    }
    tool_name(&value)?;
    serde_json::from_value(value).map_err(|e| format!("payload has an unexpected shape ({e})"))
}

/// The payload's `tool_name`: present, a string, not empty. The error names what is wrong
/// without echoing the payload.
pub fn tool_name(payload: &Value) -> Result<&str, String> {
    match payload.get("tool_name") {
        Some(Value::String(name)) if !name.is_empty() => Ok(name),
        Some(Value::String(_)) => Err("the payload's `tool_name` is empty".into()),
        Some(_) => Err("the payload's `tool_name` is not a string".into()),
        None => Err("the payload has no `tool_name`".into()),
    }
}
