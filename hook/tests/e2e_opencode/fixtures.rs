//! What the cases share: the `./trade` marker script, one guarded run (which also checks the
//! run stayed offline and installed nothing), and lookups in the session log.

use std::path::PathBuf;

use super::driver::{Launch, OPENCODE, Outcome, Sandbox, repo_root};
use super::mock::{MockApi, Script, is_completion};

/// The suite's own profiles (`corpus/profiles/e2e-opencode.yaml`).
pub fn profile() -> PathBuf {
    repo_root().join("corpus/profiles/e2e-opencode.yaml")
}

pub fn opencode() -> PathBuf {
    OPENCODE.path()
}

/// A shell call's arguments, as the model sends them.
pub use super::common::shell_call as bash;

pub use super::common::{install_trade_script, trades, with_trade_script};

/// Inject `agent` of the suite's profile, start a mock with `script`, run the CLI once, and
/// check the run completed (the model's last turn reached) and stayed offline.
pub fn guarded_run(sandbox: &Sandbox, agent: &str, script: Script) -> (MockApi, Outcome) {
    let launch = sandbox.inject(&profile(), agent, &[], None);
    let (mock, outcome) = run(sandbox, &launch, script, &[]);
    (mock, outcome)
}

/// Run `launch` against a mock with `script`; checks the session reached the model's last
/// turn and that opencode talked to nothing but the mock's chat completions and installed
/// nothing into its config dirs.
pub fn run(
    sandbox: &Sandbox,
    launch: &Launch,
    script: Script,
    extra_env: &[(&str, &str)],
) -> (MockApi, Outcome) {
    let last_words = script.last_words().to_owned();
    let mock = MockApi::start(script).expect("start the mock API");
    let outcome = sandbox.run_opencode(&opencode(), &mock, launch, extra_env);
    outcome.completed(&last_words);
    assert_offline(sandbox, &mock);
    (mock, outcome)
}

/// Every request was a chat completion, and opencode `npm install`ed into no config dir
/// (an install writes a `package.json` there).
pub fn assert_offline(sandbox: &Sandbox, mock: &MockApi) {
    let requests = mock.requests();
    assert!(!requests.is_empty(), "opencode never called the mock");
    for request in &requests {
        assert!(
            is_completion(request),
            "opencode asked the mock for something else: {} {}",
            request.method,
            request.path
        );
    }
    for dir in [sandbox.config_dir(), sandbox.home.join(".config/opencode")] {
        assert!(
            !dir.join("package.json").exists(),
            "opencode ran npm install in {}",
            dir.display()
        );
    }
}

pub use test_support::records::{assert_decision, gate_record as record, records};

/// The gate's record of `call_id`: `(decision, deciding rule, reason)`.
pub fn decided(sandbox: &Sandbox, call_id: &str) -> (String, String, String) {
    let log = sandbox.session_log();
    let gate = record(&log, "tool.execute.before", call_id);
    let text = |key: &str| gate[key].as_str().unwrap_or_default().to_owned();
    (text("decision"), text("deciding_rule"), text("reason"))
}

/// The call was denied by the gate and the model got the gate's reason, verbatim, as the
/// tool's result; returns the reason.
pub fn assert_denied(sandbox: &Sandbox, mock: &MockApi, call_id: &str) -> String {
    let (decision, _, reason) = decided(sandbox, call_id);
    assert_eq!(decision, "deny", "{call_id} was denied");
    let told = mock.tool_message(call_id);
    assert_eq!(
        told, reason,
        "the model got the gate's reason for {call_id}"
    );
    reason
}

pub use super::common::private_hook_copy;
pub use super::common::replace_with_script;
