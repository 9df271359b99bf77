//! What the end-to-end cases share: launch arguments, the `./trade` marker script, one guarded
//! run, and lookups in the session log.

use std::fs;
use std::path::{Path, PathBuf};
use test_support::make_dir;

use serde_json::Value;

use crate::e2e::driver::{CLAUDE, Outcome, Sandbox, animus_hook, repo_root};
use crate::e2e::mock_api::{MockApi, Script};

pub const PROMPT: &str = "Run the scripted tool calls.";

pub fn claude() -> PathBuf {
    CLAUDE.path()
}

pub fn profile(name: &str) -> PathBuf {
    repo_root().join("corpus/profiles").join(name)
}

/// The CLI's launch arguments, prompt last: `-p`, then `extra`, then the JSON output format.
/// (`--allowedTools` takes a list, so another option must follow it before the prompt.)
pub fn launch<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["-p"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--output-format", "json", PROMPT]);
    args
}

/// `bash`: a shell call's arguments, as the model sends them.
pub use super::common::{install_trade_script, shell_call as bash, trades, with_trade_script};

/// Inject for agent `agent` of the corpus profile `profile_name`, start a mock with `script`,
/// run the CLI once.
pub fn guarded_run(
    sandbox: &Sandbox,
    profile_name: &str,
    agent: &str,
    extra: &[&str],
    script: Script,
) -> (MockApi, Outcome) {
    let args = sandbox.inject(&profile(profile_name), agent, &launch(extra), None);
    run(sandbox, &args, script)
}

/// [`launch`] as owned strings, for [`run`] and [`Sandbox::run_claude`].
pub fn owned_launch(extra: &[&str]) -> Vec<String> {
    launch(extra).iter().map(|a| a.to_string()).collect()
}

/// `git status --short > status.txt` (ordinary work that must run), then `reset` (`git reset
/// --hard …`, which the core pack stops): the calls the installed-guard cases script.
pub fn status_then_reset(reset: &str) -> Script {
    Script::new()
        .tool_call(
            "toolu_status",
            "Bash",
            bash("git status --short > status.txt"),
        )
        .tool_call("toolu_reset", "Bash", bash(reset))
}

/// The files an attack script in the project tries to change: their paths in
/// `targets.txt` (one a line, for the script to read), and their bytes now, to compare after.
pub fn plant_target_list(project: &Path, targets: &[PathBuf]) -> Vec<Vec<u8>> {
    let list: String = targets
        .iter()
        .map(|t| format!("{}\n", t.display()))
        .collect();
    fs::write(project.join("targets.txt"), list).unwrap();
    targets.iter().map(|t| fs::read(t).unwrap()).collect()
}

/// `attack.py` in the project: for each target of `targets.txt` it appends, truncates, then
/// deletes, and writes what happened into `result` in the project (which stays writable):
/// proof that it ran.
pub fn plant_python_attack(project: &Path, result: &str) {
    let script = format!(
        "out = open('{result}', 'w')\n\
         import os\n\
         for t in open('targets.txt').read().split():\n\
         \x20   for what, act in [('append', lambda: open(t, 'ab').write(b'x')),\n\
         \x20                     ('truncate', lambda: open(t, 'w').close()),\n\
         \x20                     ('unlink', lambda: os.remove(t))]:\n\
         \x20       try:\n\
         \x20           act(); out.write(f'{{what}} {{t}}: done\\n')\n\
         \x20       except OSError as e:\n\
         \x20           out.write(f'{{what}} {{t}}: {{e.strerror}}\\n')\n"
    );
    fs::write(project.join("attack.py"), script).unwrap();
}

/// The trader profile's run of `script` with `--allowedTools Bash` (which would let every
/// call run: only the hook stands in the way), `./trade` installed in the project.
pub fn trader_run(sandbox: &Sandbox, script: Script) -> (MockApi, Outcome) {
    install_trade_script(sandbox);
    guarded_run(
        sandbox,
        "trader.yaml",
        "trader",
        &["--allowedTools", "Bash"],
        script,
    )
}

/// [`guarded_run`] with the hook wired through a [`HookTee`], to read back what it printed (no
/// extra launch arguments), for agent `agent` of the corpus profile `profile_name`.
pub fn guarded_run_teed(
    sandbox: &Sandbox,
    profile_name: &str,
    agent: &str,
    script: Script,
) -> (MockApi, Outcome, HookTee) {
    let tee = HookTee::install(sandbox);
    let args = sandbox.inject(
        &profile(profile_name),
        agent,
        &launch(&[]),
        Some(&tee.binary),
    );
    let (mock, outcome) = run(sandbox, &args, script);
    (mock, outcome, tee)
}

pub fn run(sandbox: &Sandbox, args: &[String], script: Script) -> (MockApi, Outcome) {
    let mock = MockApi::start(script).expect("start the mock API");
    let outcome = sandbox.run_claude(&claude(), &mock, args);
    (mock, outcome)
}

pub use test_support::records::{assert_decision, gate_record, records};

pub fn assert_blocked_with(outcome: &Outcome, mock: &MockApi, tool_use_id: &str, reason: &str) {
    outcome.completed();
    assert_refused_result(mock, tool_use_id, reason);
}

/// The `tool_result` for `tool_use_id` is an error carrying `reason`.
pub fn assert_refused_result(mock: &MockApi, tool_use_id: &str, reason: &str) {
    let result = mock.tool_result(tool_use_id);
    assert!(
        result.is_error,
        "{tool_use_id} should have been refused: {result:#?}"
    );
    assert!(
        result.text.contains(reason),
        "the tool_result for {tool_use_id} should carry {reason:?}: {result:#?}"
    );
}

/// A wrapper around the real `animus-hook` for inject to wire in (`--hook-binary`): it passes
/// each call through unchanged and keeps the payload and everything the hook printed, so a test
/// can tell "the hook answered nothing" (abstained) from an answer. (Not named `animus-hook`,
/// so inject wires the wrapper itself rather than a lean `animus-hook-emit` beside it.)
pub struct HookTee {
    pub binary: PathBuf,
    calls: PathBuf,
}

impl HookTee {
    pub fn install(sandbox: &Sandbox) -> HookTee {
        let dir = sandbox.scratch.root.join("tee");
        let calls = make_dir(&dir, "calls");
        let binary = dir.join("animus-hook-tee");
        test_support::process::write_executable(
            &binary,
            format!(
                "#!/bin/sh\n\
                 [ \"$1\" = --version ] && exec '{real}' --version\n\
                 call=$(mktemp -d '{calls}/call.XXXXXX') || exit 1\n\
                 cat > \"$call/payload\"\n\
                 '{real}' \"$@\" < \"$call/payload\" > \"$call/stdout\"\n\
                 status=$?\n\
                 cat \"$call/stdout\"\n\
                 : > \"$call/done\"\n\
                 exit $status\n",
                calls = calls.display(),
                real = animus_hook().display(),
            )
            .as_bytes(),
        );
        HookTee { binary, calls }
    }

    /// Every finished call on `event`: the payload and what the hook printed on stdout.
    pub fn calls(&self, event: &str) -> Vec<(Value, String)> {
        fs::read_dir(&self.calls)
            .unwrap()
            .flatten()
            .map(|entry| entry.path())
            .filter(|call| call.join("done").exists())
            .map(|call| {
                let payload: Value =
                    serde_json::from_str(&fs::read_to_string(call.join("payload")).unwrap())
                        .unwrap();
                (payload, fs::read_to_string(call.join("stdout")).unwrap())
            })
            .filter(|(payload, _)| payload["hook_event_name"] == event)
            .collect()
    }

    /// What the hook printed on `event` for the call `tool_use_id` (exactly one call expected).
    pub fn printed(&self, event: &str, tool_use_id: &str) -> String {
        let found: Vec<String> = self
            .calls(event)
            .into_iter()
            .filter(|(payload, _)| payload["tool_use_id"] == tool_use_id)
            .map(|(_, stdout)| stdout)
            .collect();
        assert_eq!(
            found.len(),
            1,
            "one {event} hook call for {tool_use_id} expected: {found:?}"
        );
        found.into_iter().next().unwrap()
    }
}
