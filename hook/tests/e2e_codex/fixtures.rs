//! What the Codex end-to-end cases share: the launch arguments, the `./trade` marker script,
//! one guarded run, the checks on what the model got back, and lookups in the session log.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::driver::{Launch, Outcome, Sandbox, repo_root};
use crate::mock_responses::{MockApi, Script};

pub const PROMPT: &str = "Run the scripted tool calls.";
/// What Codex tells the model when a PreToolUse hook blocks a shell command or a patch.
pub const BLOCKED_COMMAND: &str = "Command blocked by PreToolUse hook: ";
/// … and any other tool (MCP).
pub const BLOCKED_TOOL: &str = "Tool call blocked by PreToolUse hook: ";
/// The reason of the allowlist's default deny.
pub const DEFAULT_DENY: &str =
    "Not allowed by this agent's tool policy (allowlist: unlisted tools are denied).";

pub fn profile() -> PathBuf {
    repo_root().join("corpus/profiles/e2e-codex.yaml")
}

/// `codex exec`'s launch arguments against `mock`, then `extra`, then the prompt. The sandbox
/// is `-s workspace-write` unless `extra` names one (`-s <mode>`).
pub fn launch_args(mock: &MockApi, extra: &[String]) -> Vec<String> {
    let provider = format!(
        "model_providers.mock={{name=\"mock\",base_url=\"{}\",wire_api=\"responses\",env_key=\"ANIMUS_E2E_MOCK_KEY\"}}",
        mock.base_url()
    );
    let mut args: Vec<String> = [
        "exec",
        "--skip-git-repo-check",
        "--color",
        "never",
        "-c",
        "model_provider=mock",
        "-c",
        &provider,
        "-m",
        "gpt-5.5",
        "--disable",
        "plugins",
        "-c",
        "analytics.enabled=false",
    ]
    .map(String::from)
    .into();
    if !extra.iter().any(|a| a == "-s") {
        args.extend(["-s".to_owned(), "workspace-write".to_owned()]);
    }
    args.extend_from_slice(extra);
    args.push(PROMPT.to_owned());
    args
}

pub use crate::common::{install_trade_script, trades, with_trade_script};

/// Start a mock with `script`, inject for `agent` of the suite's profile (with `extra` launch
/// arguments and `hook_bin`), let `plant` break something, run Codex once (with `env` on top)
/// and check it stayed offline.
pub fn guarded_run_with(
    sandbox: &Sandbox,
    agent: &str,
    extra: &[String],
    hook_bin: Option<&Path>,
    plant: impl FnOnce(&Sandbox, &mut Launch),
    env: &[(&str, &str)],
    script: Script,
) -> (MockApi, Outcome) {
    let mock = MockApi::start(script).expect("start the mock API");
    let mut launch = sandbox.inject(&profile(), agent, &launch_args(&mock, extra), hook_bin);
    plant(sandbox, &mut launch);
    let outcome = sandbox.run_codex(&mock, &launch, env);
    assert_offline(&mock, &outcome);
    (mock, outcome)
}

/// [`guarded_run_with`] with nothing planted and no extra environment.
pub fn guarded_run(
    sandbox: &Sandbox,
    agent: &str,
    extra: &[String],
    script: Script,
) -> (MockApi, Outcome) {
    guarded_run_with(sandbox, agent, extra, None, |_, _| {}, &[], script)
}

/// Codex asked the mock for model turns and for nothing else (the proxy variables point at the
/// mock, so another connection attempt would be logged there), and it did ask.
pub fn assert_offline(mock: &MockApi, outcome: &Outcome) {
    let stray = mock.stray_requests();
    assert!(
        stray.is_empty(),
        "Codex tried to reach something other than the model: {stray:#?}"
    );
    assert!(
        !mock.model_calls().is_empty(),
        "Codex never called the model: {outcome:#?}"
    );
}

/// The call was refused by the gate: Codex's block text with `reason`, which the model saw.
/// Returns the output text.
pub fn assert_blocked(mock: &MockApi, call_id: &str, reason: &str) -> String {
    let output = mock.tool_output(call_id);
    assert!(
        output.text.starts_with(BLOCKED_COMMAND) || output.text.starts_with(BLOCKED_TOOL),
        "{call_id} should have been blocked by the hook: {output:#?}"
    );
    assert!(
        output.text.contains(reason),
        "the output for {call_id} should carry {reason:?}: {output:#?}"
    );
    output.text
}

/// The call was not blocked by a hook. Returns the output text.
pub fn assert_not_blocked(mock: &MockApi, call_id: &str) -> String {
    let output = mock.tool_output(call_id);
    assert!(
        !output.text.contains("blocked by PreToolUse hook"),
        "{call_id} should have run: {output:#?}"
    );
    output.text
}

pub use test_support::records::{assert_decision, gate_record, records};

/// The `-c` flags that start the suite's MCP server `e2e` (this test binary, run with
/// `--mcp-echo-server <calls>`). With `approved`, its tools are approved in advance: `exec`
/// never asks a human, so otherwise Codex asks the PermissionRequest hooks and, when none
/// allows, refuses the call itself ("requires approval").
pub fn mcp_server_flags(calls_file: &Path, approved: bool) -> Vec<String> {
    let exe = std::env::current_exe().unwrap();
    let mut flags = vec![
        "-c".into(),
        format!(
            "mcp_servers.e2e.command={}",
            toml_string(&exe.display().to_string())
        ),
        "-c".into(),
        format!(
            "mcp_servers.e2e.args=[\"--mcp-echo-server\",{}]",
            toml_string(&calls_file.display().to_string())
        ),
    ];
    if approved {
        flags.push("-c".into());
        flags.push("mcp_servers.e2e.default_tools_approval_mode=\"approve\"".into());
    }
    flags
}

/// The arguments of every `tools/call` the MCP server received.
pub fn mcp_calls(calls_file: &Path) -> Vec<Value> {
    fs::read_to_string(calls_file)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn toml_string(text: &str) -> String {
    serde_json::to_string(text).unwrap()
}
