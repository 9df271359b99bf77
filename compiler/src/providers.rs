//! Which harness-hook configuration vector each provider CLI has.
//!
//! | provider  | vector        | status                                   |
//! |-----------|---------------|------------------------------------------|
//! | claude    | `Settings`    | generated (`--settings <file>`)          |
//! | codex     | `HooksJson`   | classified; not generated yet            |
//! | gemini    | `GeminiHooks` | classified; not generated yet            |
//! | opencode  | `JsPlugin`    | classified; not generated yet            |
//! | others    | `None`        | no harness hook vector                   |
//!
//! **Deviation from the spec's table:** the spec classifies opencode as `HooksJson`. opencode
//! 1.18 has no external command-hook protocol and no `hooks.json`; interception is an
//! in-process JS/TS plugin (`tool.execute.before`) loaded from config or
//! `OPENCODE_CONFIG_DIR` (reference/harness-protocols.md §4.1). Generating a `hooks.json` for it
//! would be silently ignored, so it is classified as what it is.

/// A provider's harness-hook configuration vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HookConfigVector {
    /// A claude settings file passed with `--settings` (additive; hook lists concatenate).
    Settings,
    /// A `hooks.json`-style command-hook config (codex).
    HooksJson,
    /// Gemini CLI `BeforeTool` hooks in settings.
    GeminiHooks,
    /// An in-process JS/TS plugin (opencode `tool.execute.before`).
    JsPlugin,
    /// No harness hook mechanism we can use.
    None,
}

/// Classify a provider tool (a name like `claude`, or a path to its executable).
pub fn harness_hook_config_vector(tool: &str) -> HookConfigVector {
    let name = std::path::Path::new(tool)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(tool);
    match name.to_ascii_lowercase().as_str() {
        "claude" | "claude-code" => HookConfigVector::Settings,
        "codex" => HookConfigVector::HooksJson,
        "gemini" | "gemini-cli" => HookConfigVector::GeminiHooks,
        "opencode" => HookConfigVector::JsPlugin,
        _ => HookConfigVector::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classification() {
        assert_eq!(
            harness_hook_config_vector("claude"),
            HookConfigVector::Settings
        );
        assert_eq!(
            harness_hook_config_vector("/opt/bin/claude"),
            HookConfigVector::Settings
        );
        assert_eq!(
            harness_hook_config_vector("codex"),
            HookConfigVector::HooksJson
        );
        assert_eq!(
            harness_hook_config_vector("gemini"),
            HookConfigVector::GeminiHooks
        );
        assert_eq!(
            harness_hook_config_vector("opencode"),
            HookConfigVector::JsPlugin
        );
        assert_eq!(harness_hook_config_vector("aider"), HookConfigVector::None);
        assert_eq!(harness_hook_config_vector(""), HookConfigVector::None);
    }
}
