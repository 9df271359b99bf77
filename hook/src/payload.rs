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
}

/// Parse a gate payload; the error says what is missing without echoing the input.
pub fn parse_gate_payload(bytes: &[u8]) -> Result<GatePayload, String> {
    let value: Value =
        serde_json::from_slice(bytes).map_err(|e| format!("payload is not JSON ({e})"))?;
    let Value::Object(map) = &value else {
        return Err("payload is not a JSON object".into());
    };
    match map.get("tool_name") {
        Some(Value::String(name)) if !name.is_empty() => {}
        Some(Value::String(_)) => return Err("payload has an empty `tool_name`".into()),
        Some(_) => return Err("payload `tool_name` is not a string".into()),
        None => return Err("payload has no `tool_name`".into()),
    }
    serde_json::from_value(value).map_err(|e| format!("payload has an unexpected shape ({e})"))
}
