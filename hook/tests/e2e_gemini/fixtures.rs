//! What the Gemini cases share: the `./trade` marker script, one guarded run, lookups in the
//! session log, and the checks every run makes.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::e2e_gemini::driver::{GEMINI, Launch, Outcome, Sandbox, launch_args, repo_root};
use crate::e2e_gemini::mock_gemini::{MockGemini, Script};

/// The reason of an allowlist's default deny.
pub const UNLISTED: &str =
    "Not allowed by this agent's tool policy (allowlist: unlisted tools are denied).";

pub fn gemini() -> PathBuf {
    GEMINI.path()
}

pub fn profile(name: &str) -> PathBuf {
    repo_root().join("corpus/profiles").join(name)
}

/// The suite's own profile file.
pub fn gemini_profile() -> PathBuf {
    profile("e2e-gemini.yaml")
}

/// `shell`: a shell call's arguments, as the model sends them.
pub use crate::common::{install_trade_script, shell_call as shell, trades, with_trade_script};

/// Inject for `profile`/`agent` (`hook_bin` overrides the hook binary), then `prepare` (plant a
/// fault, write settings), then run the CLI once against a mock playing `script`.
pub fn run_with(
    sandbox: &Sandbox,
    profile: &Path,
    agent: &str,
    hook_bin: Option<&Path>,
    prepare: impl FnOnce(&Sandbox, &Launch),
    extra_env: &[(&str, &str)],
    script: Script,
) -> (MockGemini, Outcome) {
    let launch = sandbox.inject(profile, agent, &launch_args(sandbox), hook_bin);
    prepare(sandbox, &launch);
    let mock = MockGemini::start(script).expect("start the mock Gemini API");
    let outcome = sandbox.run_gemini(&gemini(), &mock, &launch, extra_env);
    (mock, outcome)
}

/// Inject and run once; the run must complete the whole script with nothing but model turns.
/// [`guarded_run`] under the trader profile.
pub fn trader_run(sandbox: &Sandbox, script: Script) -> (MockGemini, Outcome) {
    guarded_run(sandbox, &profile("trader.yaml"), "trader", script)
}

pub fn guarded_run(
    sandbox: &Sandbox,
    profile: &Path,
    agent: &str,
    script: Script,
) -> (MockGemini, Outcome) {
    let (mock, outcome) = run_with(sandbox, profile, agent, None, |_, _| {}, &[], script);
    completed(&mock, &outcome);
    (mock, outcome)
}

/// The run went through the whole script and back to the model, and the CLI called nothing
/// but the mock's model endpoint.
pub fn completed(mock: &MockGemini, outcome: &Outcome) {
    outcome.completed();
    mock.assert_only_model_turns(mock.full_run_turns());
}

/// The call number `index` of the script was refused, and the model was told `reason`.
pub fn assert_blocked_with(mock: &MockGemini, index: usize, reason: &str) {
    let error = mock.error(index).unwrap_or_else(|| {
        panic!(
            "call {index} should have been refused: {:#?}",
            mock.response(index)
        )
    });
    assert!(
        error.starts_with("Tool execution blocked: ") && error.contains(reason),
        "the model should have been told {reason:?} for call {index}: {error}"
    );
}

/// The call number `index` of the script ran, and its output holds `text`.
pub fn assert_ran_with(mock: &MockGemini, index: usize, text: &str) {
    let response = mock.response(index);
    let output = response["output"].as_str().unwrap_or_default();
    assert!(
        response.get("error").is_none() && output.contains(text),
        "call {index} should have run and returned {text:?}: {response:#?}"
    );
}

use test_support::records::one_record;
pub use test_support::records::records;

/// The one gate (`BeforeTool`) record whose tool input has `field` = `value`.
pub fn gate_record<'a>(log: &'a [Value], field: &str, value: &str) -> &'a Value {
    one_record(log, "BeforeTool", &format!("{field}={value:?}"), |r| {
        r["payload"]["tool_input"][field] == value
    })
}

/// Fails the test unless the one gate record whose tool input has `field` = `value` has
/// `decision`.
#[track_caller]
pub fn assert_decision(log: &[Value], field: &str, value: &str, decision: &str) {
    let record = gate_record(log, field, value);
    assert_eq!(
        record["decision"], decision,
        "the decision on {value}: {record:#}"
    );
}
