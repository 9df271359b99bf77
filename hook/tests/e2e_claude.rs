//! End-to-end: the real Claude Code CLI (2.1.328, headless `-p`) against a scripted offline
//! mock of the Messages API, guarded by the real `animus-hook` through the exact launch
//! arguments and settings file that `animus-hook inject` produces.
//!
//! Each test scripts the model's tool calls, runs the CLI once (or twice), and checks what
//! really happened: whether the tool ran (a marker the tool itself writes), which `tool_result`
//! the CLI sent back to the model, and what the session log recorded. Every deny test also has
//! a call that is allowed to run in the same session, so a tool that never runs at all (a
//! broken fixture) cannot pass for a blocked one.
//!
//! Setup: `scripts/install-claude-cli.sh` installs the CLI into `.cache/claude-code`
//! (`ANIMUS_CLAUDE_BIN` points elsewhere). Without it every test prints `SKIPPED: …` and
//! passes — unless `CI` is set, where a missing CLI fails the suite. `ANIMUS_E2E_KEEP=1` keeps
//! each test's throwaway directories; `ANIMUS_E2E_JOBS` sets how many tests run at once.
//! Run just this suite with `cargo test -p animus-hook --test e2e_claude [name-filter]`.
//!
//! # What the CLI does with each hook answer (measured on 2.1.328 in `-p` mode)
//!
//! The `tool_result` the model gets back, with `is_error: true` unless the tool ran:
//! - PreToolUse `deny`: `PreToolUse:<Tool> hook error: <permissionDecisionReason>`.
//! - PreToolUse `ask`: the reason alone; nobody can answer in `-p`, so the call is refused and
//!   no PermissionRequest follows.
//! - PreToolUse `allow`: the tool runs without asking, unless a permission `ask` rule matches —
//!   then the CLI still asks, and with `-p` that means asking the PermissionRequest hook.
//! - No output (our `defer`): the CLI's own flow. With `--allowedTools` covering the call it
//!   runs; otherwise the PermissionRequest hook is asked, and if it too is silent the call is
//!   refused (`… needs approval …` / `Claude requested permissions …`).
//! - PermissionRequest `deny`: the `message`. `allow`: the tool runs.
//! - A gate entry with `"onFailure": "block"` whose hook is missing (spawn ENOENT), crashes or
//!   outlives its `timeout`: `PreToolUse:<Tool> hook error: [<command> <args…>]: failed|timed
//!   out; blocking because onFailure is "block"`. Note the CLI puts the hook's whole command
//!   line (paths, session id) in front of the model here; without `onFailure` each of these
//!   runs the tool (fails open).
//! - Hook lists from `--settings` and the project's `.claude/settings.json` are concatenated:
//!   both run, in parallel, on every call.

mod e2e;

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use serde_json::{Value, json};

use e2e::driver::{Outcome, Sandbox, animus_hook, locate_claude, repo_root};
use e2e::mock_api::{Block, MockApi, Script};
use e2e::runner::{self, Test};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, calls_file] = args.as_slice()
        && flag == "--mcp-echo-server"
    {
        return match e2e::mcp_echo::serve(Path::new(calls_file)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(_) => ExitCode::FAILURE,
        };
    }
    runner::run(TESTS, &args, skip_reason())
}

/// Every test, by function name: first those that drive the CLI, then those that do not.
macro_rules! tests {
    (cli: $($cli:ident),* ; offline: $($offline:ident),* $(,)?) => {
        &[
            $(Test { name: stringify!($cli), run: $cli, needs_cli: true },)*
            $(Test { name: stringify!($offline), run: $offline, needs_cli: false },)*
        ]
    };
}

const TESTS: &[Test] = tests![
    cli:
    // The slowest first (it waits out the gate's 30 s timeout), so the rest overlap with it.
    fail_closed_hook_timeout,
    deny_trader_live_order_does_not_run,
    allow_allowlisted_command_runs_without_allowed_tools,
    defer_leaves_the_decision_to_the_cli,
    ask_blocks_in_print_mode_with_the_reason,
    permission_request_deny_is_obeyed,
    permission_request_allow_is_obeyed,
    fail_closed_missing_hook_binary,
    fail_closed_crashing_hook,
    fail_closed_corrupt_sidecar,
    fail_closed_stale_sidecar,
    settings_file_is_loaded_beside_user_project_hooks,
    records_every_lifecycle_event_of_a_run,
    records_two_parallel_tool_calls_intact,
    write_deny_blocks_the_write,
    edit_deny_blocks_the_edit,
    read_deny_keeps_the_content_from_the_model,
    mcp_tool_deny_blocks_the_call,
    non_streaming_fallback_is_gated_too,
    kill_switch_runs_unguarded;
    offline:
    mock_streams_the_script_turn_by_turn,
    mock_answers_without_streaming_and_breaks_a_stream_once,
    mock_answers_auxiliary_requests,
];

/// `Ok(None)` to run, `Ok(Some(why))` to skip every test, `Err` to fail them.
fn skip_reason() -> Result<Option<String>, String> {
    match locate_claude()? {
        Some(_) => Ok(None),
        None if std::env::var_os("CI").is_some() => Err(
            "the Claude Code CLI is not installed and CI is set: run scripts/install-claude-cli.sh first".into(),
        ),
        None => Ok(Some(
            "the Claude Code CLI is not installed (scripts/install-claude-cli.sh installs it)".into(),
        )),
    }
}

// ---------------------------------------------------------------------------------------------
// Fixtures

const PROMPT: &str = "Run the scripted tool calls.";

fn claude() -> PathBuf {
    locate_claude()
        .unwrap()
        .expect("the runner checked the CLI is installed")
}

fn profile(name: &str) -> PathBuf {
    repo_root().join("corpus/profiles").join(name)
}

/// The CLI's launch arguments, prompt last: `-p`, then `extra`, then the JSON output format.
/// (`--allowedTools` takes a list, so another option must follow it before the prompt.)
fn launch<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["-p"];
    args.extend_from_slice(extra);
    args.extend_from_slice(&["--output-format", "json", PROMPT]);
    args
}

fn bash(command: &str) -> Value {
    json!({"command": command, "description": "scripted by the e2e mock"})
}

/// `./trade` in the project: appends its arguments to `trades.log` (the marker that it ran).
fn install_trade_script(sandbox: &Sandbox) {
    let path = sandbox.project.join("trade");
    fs::write(
        &path,
        "#!/bin/sh\necho \"$*\" >> \"$(dirname \"$0\")/trades.log\"\necho \"traded: $*\"\n",
    )
    .unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
}

fn trades(sandbox: &Sandbox) -> Vec<String> {
    fs::read_to_string(sandbox.project.join("trades.log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// Inject for `profile`/`agent`, start a mock with `script`, run the CLI once.
fn guarded_run(
    sandbox: &Sandbox,
    profile: &Path,
    agent: &str,
    extra: &[&str],
    script: Script,
) -> (MockApi, Outcome) {
    let args = sandbox.inject(profile, agent, &launch(extra), None);
    run(sandbox, &args, script)
}

fn run(sandbox: &Sandbox, args: &[String], script: Script) -> (MockApi, Outcome) {
    let mock = MockApi::start(script).expect("start the mock API");
    let outcome = sandbox.run_claude(&claude(), &mock, args);
    (mock, outcome)
}

/// The records of `event` in the session log.
fn records<'a>(log: &'a [Value], event: &str) -> Vec<&'a Value> {
    log.iter().filter(|r| r["event"] == event).collect()
}

/// The one gate record of `event` for `tool_use_id` (PreToolUse) or, when `tool_use_id` is
/// `None`, for the call whose command is `command` (PermissionRequest carries no id).
fn gate_record<'a>(log: &'a [Value], event: &str, tool_use_id: &str) -> &'a Value {
    let found: Vec<_> = records(log, event)
        .into_iter()
        .filter(|r| r["tool_use_id"] == tool_use_id)
        .collect();
    assert_eq!(
        found.len(),
        1,
        "one {event} record for {tool_use_id} expected in {log:#?}"
    );
    found[0]
}

fn assert_blocked_with(outcome: &Outcome, mock: &MockApi, tool_use_id: &str, reason: &str) {
    outcome.completed();
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

// ---------------------------------------------------------------------------------------------
// Decisions

fn deny_trader_live_order_does_not_run() {
    let sandbox = Sandbox::new("deny");
    install_trade_script(&sandbox);
    let script = Script::new()
        .tool_call("toolu_paper", "Bash", bash("./trade --paper"))
        .tool_call("toolu_live", "Bash", bash("./trade --live"));
    // `--allowedTools Bash` would let both calls run: only the hook stands in the way.
    let (mock, outcome) = guarded_run(
        &sandbox,
        &profile("trader.yaml"),
        "trader",
        &["--allowedTools", "Bash"],
        script,
    );

    assert_blocked_with(
        &outcome,
        &mock,
        "toolu_live",
        "Denied by tool_policy.deny entry `Bash(* --live*)`.",
    );
    assert_eq!(
        trades(&sandbox),
        ["--paper"],
        "the paper order runs, the live one does not"
    );
    assert!(!mock.tool_result("toolu_paper").is_error);
    let log = sandbox.session_log();
    let live = gate_record(&log, "PreToolUse", "toolu_live");
    assert_eq!(live["decision"], "deny");
    assert_eq!(
        live["matched_rules"],
        json!(["tool_policy.deny:Bash(* --live*)"])
    );
    assert_eq!(
        live["evaluator"], "sidecar",
        "the hook decided from the sidecar inject wrote"
    );
}

fn allow_allowlisted_command_runs_without_allowed_tools() {
    let sandbox = Sandbox::new("allow");
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&sandbox.project)
        .status()
        .expect("git is installed");
    assert!(git.success());
    // The redirect creates a file in the project, which the CLI's own flow would not allow
    // without a prompt (and `-p` cannot prompt): it runs only because the hook says allow.
    let script = Script::new().tool_call("toolu_status", "Bash", bash("git status > status.txt"));
    let (mock, outcome) = guarded_run(
        &sandbox,
        &profile("allowlist.yaml"),
        "reviewer",
        &[],
        script,
    );

    outcome.completed();
    let result = mock.tool_result("toolu_status");
    assert!(!result.is_error, "{result:#?}");
    let status = fs::read_to_string(sandbox.project.join("status.txt")).expect("git status ran");
    assert!(status.contains("On branch"), "{status}");
    let log = sandbox.session_log();
    assert_eq!(
        gate_record(&log, "PreToolUse", "toolu_status")["decision"],
        "allow"
    );
    assert!(
        records(&log, "PermissionRequest").is_empty(),
        "an allow at PreToolUse leaves nothing to ask"
    );
}

fn defer_leaves_the_decision_to_the_cli() {
    // The trader profile neither denies nor allows a paper order: the hook abstains, and the
    // CLI's own permission flow decides — yes with `--allowedTools`, no without.
    let script = || Script::new().tool_call("toolu_paper", "Bash", bash("./trade --paper"));

    let permitted = Sandbox::new("defer-permitted");
    install_trade_script(&permitted);
    let (mock, outcome) = guarded_run(
        &permitted,
        &profile("trader.yaml"),
        "trader",
        &["--allowedTools", "Bash(./trade *)"],
        script(),
    );
    outcome.completed();
    assert!(!mock.tool_result("toolu_paper").is_error);
    assert_eq!(trades(&permitted), ["--paper"]);
    assert_eq!(
        gate_record(&permitted.session_log(), "PreToolUse", "toolu_paper")["decision"],
        "defer"
    );

    let refused = Sandbox::new("defer-refused");
    install_trade_script(&refused);
    let (mock, outcome) = guarded_run(&refused, &profile("trader.yaml"), "trader", &[], script());
    outcome.completed();
    let result = mock.tool_result("toolu_paper");
    assert!(result.is_error, "{result:#?}");
    assert!(
        !result.text.contains("animus"),
        "the CLI, not the hook, refused: {result:#?}"
    );
    assert!(trades(&refused).is_empty());
    let log = refused.session_log();
    assert_eq!(
        gate_record(&log, "PreToolUse", "toolu_paper")["decision"],
        "defer"
    );
    let asked = records(&log, "PermissionRequest");
    assert_eq!(
        asked.len(),
        1,
        "the CLI asked its PermissionRequest hook: {log:#?}"
    );
    assert_eq!(asked[0]["decision"], "defer");
}

fn ask_blocks_in_print_mode_with_the_reason() {
    let sandbox = Sandbox::new("ask");
    install_trade_script(&sandbox);
    let script = Script::new()
        .tool_call("toolu_small", "Bash", bash("./trade --size small"))
        .tool_call("toolu_big", "Bash", bash("./trade --size big"));
    let (mock, outcome) = guarded_run(
        &sandbox,
        &profile("e2e/gates.yaml"),
        "asker",
        &["--allowedTools", "Bash"],
        script,
    );

    assert_blocked_with(
        &outcome,
        &mock,
        "toolu_big",
        "Big orders need a human to confirm (e2e ask).",
    );
    assert_eq!(trades(&sandbox), ["--size small"]);
    assert_eq!(
        gate_record(&sandbox.session_log(), "PreToolUse", "toolu_big")["decision"],
        "ask"
    );
}

fn permission_request_deny_is_obeyed() {
    let sandbox = Sandbox::new("permission-deny");
    install_trade_script(&sandbox);
    let script = Script::new().tool_call("toolu_order", "Bash", bash("./trade --paper"));
    let (mock, outcome) = guarded_run(
        &sandbox,
        &profile("e2e/gates.yaml"),
        "permission-denier",
        &[],
        script,
    );

    assert_blocked_with(
        &outcome,
        &mock,
        "toolu_order",
        "Orders need the desk's sign-off (e2e PermissionRequest deny).",
    );
    assert!(trades(&sandbox).is_empty());
    let log = sandbox.session_log();
    assert_eq!(
        gate_record(&log, "PreToolUse", "toolu_order")["decision"],
        "defer"
    );
    let asked = records(&log, "PermissionRequest");
    assert_eq!(asked.len(), 1, "{log:#?}");
    assert_eq!(asked[0]["decision"], "deny");
    assert_eq!(
        asked[0]["payload"]["tool_input"]["command"],
        "./trade --paper"
    );
}

fn permission_request_allow_is_obeyed() {
    let sandbox = Sandbox::new("permission-allow");
    install_trade_script(&sandbox);
    // A user `ask` rule makes the CLI ask even after the hook's PreToolUse allow; in `-p` mode
    // nobody can answer, so the call runs only if the PermissionRequest hook says allow.
    fs::create_dir_all(sandbox.home.join(".claude")).unwrap();
    fs::write(
        sandbox.home.join(".claude/settings.json"),
        json!({"permissions": {"ask": ["Bash(./trade *)"]}}).to_string(),
    )
    .unwrap();
    let script = Script::new().tool_call("toolu_order", "Bash", bash("./trade --paper"));
    let (mock, outcome) = guarded_run(
        &sandbox,
        &profile("e2e/gates.yaml"),
        "permission-allower",
        &[],
        script,
    );

    outcome.completed();
    let result = mock.tool_result("toolu_order");
    assert!(!result.is_error, "{result:#?}");
    assert_eq!(trades(&sandbox), ["--paper"]);
    let log = sandbox.session_log();
    assert_eq!(
        gate_record(&log, "PreToolUse", "toolu_order")["decision"],
        "allow"
    );
    let asked = records(&log, "PermissionRequest");
    assert_eq!(
        asked.len(),
        1,
        "the user's ask rule made the CLI ask: {log:#?}"
    );
    assert_eq!(asked[0]["decision"], "allow");
}

// ---------------------------------------------------------------------------------------------
// Fail closed: each fault is planted after inject wrote its real settings and policy. The
// CLI is started with `--allowedTools Bash`, so a hook failure that failed open would let the
// order run.

/// A private copy of `animus-hook` for inject to wire in, so a test can break it.
fn private_hook_copy(sandbox: &Sandbox) -> PathBuf {
    let dir = sandbox.scratch.root.join("bin");
    fs::create_dir_all(&dir).unwrap();
    let copy = dir.join("animus-hook");
    fs::copy(animus_hook(), &copy).unwrap();
    copy
}

fn replace_with_script(path: &Path, script: &str) {
    fs::remove_file(path).unwrap();
    fs::write(path, script).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

/// Inject with `hook_bin`, plant the fault, run a paper order that would otherwise run, and
/// check it was refused. Returns the refusal text.
fn run_with_fault(
    sandbox: &Sandbox,
    hook_bin: Option<&Path>,
    plant: impl FnOnce(&Sandbox),
) -> String {
    install_trade_script(sandbox);
    let args = sandbox.inject(
        &profile("trader.yaml"),
        "trader",
        &launch(&["--allowedTools", "Bash"]),
        hook_bin,
    );
    plant(sandbox);
    let script = Script::new().tool_call("toolu_order", "Bash", bash("./trade --paper"));
    let (mock, outcome) = run(sandbox, &args, script);
    outcome.completed();
    let result = mock.tool_result("toolu_order");
    assert!(
        result.is_error,
        "a broken gate must block the call: {result:#?}"
    );
    assert!(
        trades(sandbox).is_empty(),
        "the order ran past a broken gate"
    );
    result.text
}

/// The timeout inject gave the PreToolUse gate, in seconds.
fn gate_timeout_secs(sandbox: &Sandbox) -> u64 {
    let settings: Value =
        serde_json::from_str(&fs::read_to_string(sandbox.settings_path()).unwrap()).unwrap();
    settings["hooks"]["PreToolUse"][0]["hooks"][0]["timeout"]
        .as_u64()
        .expect("the gate entry has a timeout")
}

fn fail_closed_missing_hook_binary() {
    let sandbox = Sandbox::new("missing-hook");
    let hook = private_hook_copy(&sandbox);
    let refusal = run_with_fault(&sandbox, Some(&hook), |_| fs::remove_file(&hook).unwrap());
    assert!(
        refusal.contains("blocking because onFailure is \"block\""),
        "{refusal}"
    );
}

fn fail_closed_crashing_hook() {
    let sandbox = Sandbox::new("crashing-hook");
    let hook = private_hook_copy(&sandbox);
    // Dies of SIGSEGV before answering: exit status 139, no output.
    let refusal = run_with_fault(&sandbox, Some(&hook), |_| {
        replace_with_script(&hook, "#!/bin/sh\nkill -SEGV $$\n")
    });
    assert!(
        refusal.contains("blocking because onFailure is \"block\""),
        "{refusal}"
    );
}

fn fail_closed_hook_timeout() {
    let sandbox = Sandbox::new("slow-hook");
    let hook = private_hook_copy(&sandbox);
    let real = animus_hook();
    // Gate calls (the ones with --policy) sleep past the gate's timeout and would then answer
    // with the real hook; observer calls go straight to the real hook.
    let refusal = run_with_fault(&sandbox, Some(&hook), |sandbox| {
        let sleep = gate_timeout_secs(sandbox) + 60;
        replace_with_script(
            &hook,
            &format!(
                "#!/bin/sh\ncase \" $* \" in *\" --policy \"*) sleep {sleep} ;; esac\nexec '{}' \"$@\"\n",
                real.display()
            ),
        )
    });
    assert!(
        refusal.contains("timed out; blocking because onFailure is \"block\""),
        "{refusal}"
    );
}

fn sidecar_path(sandbox: &Sandbox) -> PathBuf {
    let path = sandbox.session_dir.join("animus-policy.sidecar");
    assert!(
        path.is_file(),
        "inject writes the sidecar beside the policy"
    );
    path
}

fn fail_closed_corrupt_sidecar() {
    let sandbox = Sandbox::new("corrupt-sidecar");
    let refusal = run_with_fault(&sandbox, None, |sandbox| {
        let path = sidecar_path(sandbox);
        let mut bytes = fs::read(&path).unwrap();
        let middle = bytes.len() / 2;
        bytes.truncate(middle);
        fs::write(&path, bytes).unwrap();
    });
    // emit's own deny (the hook ran and refused), not the CLI's onFailure.
    assert!(
        refusal.contains("(fail closed)") && refusal.contains("sidecar is truncated"),
        "{refusal}"
    );
}

fn fail_closed_stale_sidecar() {
    let sandbox = Sandbox::new("stale-sidecar");
    // The JSON policy is swapped for an allow-everything one, the sidecar left as it was: a
    // hook that trusted either the stale sidecar (defer) or the new JSON (allow) would let the
    // order run.
    let refusal = run_with_fault(&sandbox, None, |sandbox| {
        let path = sandbox.policy_path();
        let mut policy: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        policy["default_decision"] = json!("allow");
        policy["rules"] = json!([]);
        fs::write(&path, serde_json::to_string_pretty(&policy).unwrap()).unwrap();
        sidecar_path(sandbox);
    });
    assert!(
        refusal.contains("(fail closed)") && refusal.contains("sidecar is stale"),
        "{refusal}"
    );
}

// ---------------------------------------------------------------------------------------------
// Wiring

fn settings_file_is_loaded_beside_user_project_hooks() {
    let sandbox = Sandbox::new("canary");
    install_trade_script(&sandbox);
    // The user's own project hook, in shell form: it appends each PreToolUse payload it sees.
    fs::create_dir_all(sandbox.project.join(".claude")).unwrap();
    fs::write(
        sandbox.project.join(".claude/settings.json"),
        json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{
            "type": "command",
            "command": "cat >> \"$CLAUDE_PROJECT_DIR/user-hook.log\" && echo >> \"$CLAUDE_PROJECT_DIR/user-hook.log\"",
        }]}]}})
        .to_string(),
    )
    .unwrap();
    let script = Script::new()
        .tool_call("toolu_paper", "Bash", bash("./trade --paper"))
        .tool_call("toolu_canary", "Bash", bash("./trade --note animus-canary"));
    let (mock, outcome) = guarded_run(
        &sandbox,
        &profile("e2e/gates.yaml"),
        "canary",
        &["--allowedTools", "Bash"],
        script,
    );

    assert_blocked_with(
        &outcome,
        &mock,
        "toolu_canary",
        "Canary: the animus settings file is loaded (e2e).",
    );
    assert_eq!(trades(&sandbox), ["--paper"]);
    let seen: Vec<Value> = fs::read_to_string(sandbox.project.join("user-hook.log"))
        .expect("the user's project hook ran")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let ids: Vec<&Value> = seen.iter().map(|p| &p["tool_use_id"]).collect();
    assert_eq!(
        ids,
        [&json!("toolu_paper"), &json!("toolu_canary")],
        "the user's hook saw both calls"
    );
}

// ---------------------------------------------------------------------------------------------
// Recording

fn records_every_lifecycle_event_of_a_run() {
    let sandbox = Sandbox::new("lifecycle");
    install_trade_script(&sandbox);
    let script = Script::new().tool_call("toolu_order", "Bash", bash("./trade --paper"));
    let (mock, outcome) = guarded_run(
        &sandbox,
        &profile("trader.yaml"),
        "trader",
        &["--allowedTools", "Bash"],
        script,
    );
    outcome.completed();
    assert!(!mock.tool_result("toolu_order").is_error);

    let log = sandbox.session_log();
    let events: Vec<&str> = log.iter().map(|r| r["event"].as_str().unwrap()).collect();
    for event in [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "Stop",
        "SessionEnd",
    ] {
        assert_eq!(
            events.iter().filter(|e| **e == event).count(),
            1,
            "one {event} record expected, events: {events:?}"
        );
    }
    let position = |event: &str| events.iter().position(|e| *e == event).unwrap();
    assert!(position("SessionStart") < position("PreToolUse"));
    assert!(position("PreToolUse") < position("PostToolUse"));
    assert!(position("PostToolUse") < position("SessionEnd"));
    for record in &log {
        assert_eq!(record["session"], sandbox.session_id.as_str(), "{record:#}");
    }
    let post = records(&log, "PostToolUse")[0];
    assert_eq!(post["tool_use_id"], "toolu_order");
    assert_eq!(post["payload"]["tool_input"]["command"], "./trade --paper");
}

fn records_two_parallel_tool_calls_intact() {
    let sandbox = Sandbox::new("parallel");
    install_trade_script(&sandbox);
    let script = Script::new().turn(vec![
        Block::text("Two orders at once."),
        Block::tool_use("toolu_left", "Bash", bash("./trade --paper left")),
        Block::tool_use("toolu_right", "Bash", bash("./trade --paper right")),
    ]);
    let (mock, outcome) = guarded_run(
        &sandbox,
        &profile("trader.yaml"),
        "trader",
        &["--allowedTools", "Bash"],
        script,
    );
    outcome.completed();
    for id in ["toolu_left", "toolu_right"] {
        assert!(!mock.tool_result(id).is_error);
    }
    let mut ran = trades(&sandbox);
    ran.sort();
    assert_eq!(ran, ["--paper left", "--paper right"]);

    let log = sandbox.session_log();
    for (id, command) in [
        ("toolu_left", "./trade --paper left"),
        ("toolu_right", "./trade --paper right"),
    ] {
        let pre = gate_record(&log, "PreToolUse", id);
        assert_eq!(pre["tool_name"], "Bash");
        assert_eq!(pre["payload"]["tool_input"]["command"], command);
        assert_eq!(pre["decision"], "defer");
        let post: Vec<_> = records(&log, "PostToolUse")
            .into_iter()
            .filter(|r| r["tool_use_id"] == id)
            .collect();
        assert_eq!(post.len(), 1, "{log:#?}");
    }
}

// ---------------------------------------------------------------------------------------------
// Tools beyond Bash: each reaches the gate with the input the real CLI sends, and a deny
// blocks it while a sibling call to the same tool runs.

fn tools_run(sandbox: &Sandbox, extra: &[&str], script: Script) -> MockApi {
    let (mock, outcome) = guarded_run(sandbox, &profile("e2e/gates.yaml"), "tools", extra, script);
    outcome.completed();
    mock
}

fn write_deny_blocks_the_write() {
    let sandbox = Sandbox::new("write");
    let (allowed, blocked) = (
        sandbox.project.join("allowed.txt"),
        sandbox.project.join("blocked.txt"),
    );
    let write = |path: &Path| json!({"file_path": path, "content": "written by the e2e mock\n"});
    let script = Script::new()
        .tool_call("toolu_write_ok", "Write", write(&allowed))
        .tool_call("toolu_write_blocked", "Write", write(&blocked));
    let mock = tools_run(&sandbox, &["--allowedTools", "Write"], script);

    assert!(
        allowed.is_file(),
        "the allowed write ran: {:#?}",
        mock.tool_results()
    );
    assert!(!blocked.exists(), "the denied write did not run");
    let result = mock.tool_result("toolu_write_blocked");
    assert!(
        result.is_error && result.text.contains("Writing blocked.txt is denied (e2e)."),
        "{result:#?}"
    );
    let log = sandbox.session_log();
    let pre = gate_record(&log, "PreToolUse", "toolu_write_blocked");
    assert_eq!(pre["decision"], "deny");
    assert_eq!(pre["payload"]["tool_input"], write(&blocked));
}

fn edit_deny_blocks_the_edit() {
    let sandbox = Sandbox::new("edit");
    let (notes, guarded) = (
        sandbox.project.join("notes.txt"),
        sandbox.project.join("guarded.txt"),
    );
    for path in [&notes, &guarded] {
        fs::write(path, "alpha\n").unwrap();
    }
    // The CLI refuses to edit a file it has not read in the session: read both first.
    let edit =
        |path: &Path| json!({"file_path": path, "old_string": "alpha", "new_string": "omega"});
    let script = Script::new()
        .turn(vec![
            Block::tool_use("toolu_read_notes", "Read", json!({"file_path": notes})),
            Block::tool_use("toolu_read_guarded", "Read", json!({"file_path": guarded})),
        ])
        .tool_call("toolu_edit_ok", "Edit", edit(&notes))
        .tool_call("toolu_edit_blocked", "Edit", edit(&guarded));
    let mock = tools_run(&sandbox, &["--allowedTools", "Read,Edit"], script);

    assert_eq!(
        fs::read_to_string(&notes).unwrap(),
        "omega\n",
        "the allowed edit ran: {:#?}",
        mock.tool_results()
    );
    assert_eq!(
        fs::read_to_string(&guarded).unwrap(),
        "alpha\n",
        "the denied edit did not run"
    );
    let result = mock.tool_result("toolu_edit_blocked");
    assert!(
        result.is_error && result.text.contains("Editing guarded.txt is denied (e2e)."),
        "{result:#?}"
    );
    let log = sandbox.session_log();
    let pre = gate_record(&log, "PreToolUse", "toolu_edit_blocked");
    assert_eq!(pre["decision"], "deny");
    // The CLI fills in `replace_all` before hooks see the input.
    assert_eq!(
        pre["payload"]["tool_input"],
        json!({"file_path": guarded, "old_string": "alpha", "new_string": "omega", "replace_all": false})
    );
}

fn read_deny_keeps_the_content_from_the_model() {
    let sandbox = Sandbox::new("read");
    let (public, secret) = (
        sandbox.project.join("public.txt"),
        sandbox.project.join("secret.txt"),
    );
    fs::write(&public, "public-e2e-content\n").unwrap();
    fs::write(&secret, "TOPSECRET-e2e-content\n").unwrap();
    let script = Script::new()
        .tool_call("toolu_read_public", "Read", json!({"file_path": public}))
        .tool_call("toolu_read_secret", "Read", json!({"file_path": secret}));
    let mock = tools_run(&sandbox, &["--allowedTools", "Read"], script);

    assert!(
        mock.tool_result("toolu_read_public")
            .text
            .contains("public-e2e-content")
    );
    let result = mock.tool_result("toolu_read_secret");
    assert!(
        result.is_error && result.text.contains("Reading secret.txt is denied (e2e)."),
        "{result:#?}"
    );
    for request in mock.model_calls() {
        assert!(
            !request
                .body
                .as_ref()
                .unwrap()
                .to_string()
                .contains("TOPSECRET"),
            "the secret reached the model"
        );
    }
    let log = sandbox.session_log();
    let pre = gate_record(&log, "PreToolUse", "toolu_read_secret");
    assert_eq!(pre["decision"], "deny");
    assert_eq!(pre["payload"]["tool_input"], json!({"file_path": secret}));
}

fn mcp_tool_deny_blocks_the_call() {
    let sandbox = Sandbox::new("mcp");
    let calls = sandbox.scratch.root.join("mcp-calls.jsonl");
    let server = std::env::current_exe().unwrap();
    let mcp_config = json!({"mcpServers": {"e2e": {
        "command": server,
        "args": ["--mcp-echo-server", calls],
    }}})
    .to_string();
    let script = Script::new()
        .tool_call("toolu_echo_ok", "mcp__e2e__echo", json!({"text": "hello"}))
        .tool_call(
            "toolu_echo_blocked",
            "mcp__e2e__echo",
            json!({"text": "forbidden words"}),
        );
    let mock = tools_run(
        &sandbox,
        &[
            "--mcp-config",
            &mcp_config,
            "--allowedTools",
            "mcp__e2e__echo",
        ],
        script,
    );

    let received = fs::read_to_string(&calls).unwrap_or_default();
    assert_eq!(
        received.trim(),
        r#"{"text":"hello"}"#,
        "only the allowed call reached the server"
    );
    assert!(
        mock.tool_result("toolu_echo_ok")
            .text
            .contains("echo: hello")
    );
    let result = mock.tool_result("toolu_echo_blocked");
    assert!(
        result.is_error
            && result
                .text
                .contains("The e2e MCP server may not echo forbidden text."),
        "{result:#?}"
    );
    let log = sandbox.session_log();
    let pre = gate_record(&log, "PreToolUse", "toolu_echo_blocked");
    assert_eq!(pre["decision"], "deny");
    assert_eq!(pre["tool_name"], "mcp__e2e__echo");
    assert_eq!(
        pre["payload"]["tool_input"],
        json!({"text": "forbidden words"})
    );
}

// ---------------------------------------------------------------------------------------------
// Transport

fn non_streaming_fallback_is_gated_too() {
    let sandbox = Sandbox::new("fallback");
    install_trade_script(&sandbox);
    let script =
        Script::new()
            .break_first_stream()
            .tool_call("toolu_live", "Bash", bash("./trade --live"));
    let (mock, outcome) = guarded_run(
        &sandbox,
        &profile("trader.yaml"),
        "trader",
        &["--allowedTools", "Bash"],
        script,
    );

    assert!(
        mock.model_calls().iter().any(|r| !r.is_streaming()),
        "the broken stream made the CLI retry without streaming"
    );
    assert_blocked_with(
        &outcome,
        &mock,
        "toolu_live",
        "Denied by tool_policy.deny entry `Bash(* --live*)`.",
    );
    assert!(trades(&sandbox).is_empty());
}

// ---------------------------------------------------------------------------------------------
// Kill switch

fn kill_switch_runs_unguarded() {
    // `ANIMUS_DISABLE_HARNESS_HOOKS` is the one way to run a guarded profile unguarded: inject
    // writes nothing and leaves the arguments alone, and the live order then runs.
    let sandbox = Sandbox::new("kill-switch");
    install_trade_script(&sandbox);
    let launch = launch(&["--allowedTools", "Bash"]);
    let args = sandbox.inject_with_kill_switch(&profile("trader.yaml"), "trader", &launch);
    assert_eq!(
        args, launch,
        "the kill switch leaves the launch arguments as they were"
    );
    assert_eq!(
        fs::read_dir(&sandbox.session_dir).unwrap().count(),
        0,
        "and writes no file"
    );

    let script = Script::new().tool_call("toolu_live", "Bash", bash("./trade --live"));
    let (mock, outcome) = run(&sandbox, &args, script);
    outcome.completed();
    assert!(!mock.tool_result("toolu_live").is_error);
    assert_eq!(trades(&sandbox), ["--live"]);
    assert!(sandbox.session_log().is_empty(), "no hook ran");
}

// ---------------------------------------------------------------------------------------------
// The mock itself (no CLI needed): the wire format the suite relies on.

/// Send one raw HTTP/1.1 request and return (status, content-type, body) of the answer.
fn http(
    mock: &MockApi,
    method: &str,
    path: &str,
    body: Option<&Value>,
    chunked: bool,
) -> (u16, String, String) {
    use std::io::{Read, Write};
    let address = mock.base_url().trim_start_matches("http://").to_owned();
    let mut stream = std::net::TcpStream::connect(&address).unwrap();
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(10)))
        .unwrap();
    let body = body.map(Value::to_string).unwrap_or_default();
    let mut request = format!(
        "{method} {path} HTTP/1.1\r\nhost: {address}\r\ncontent-type: application/json\r\n"
    );
    if chunked {
        let (first, second) = body.split_at(body.len() / 2);
        request.push_str("transfer-encoding: chunked\r\n\r\n");
        for part in [first, second, ""] {
            request.push_str(&format!("{:x}\r\n{part}\r\n", part.len()));
        }
    } else {
        request.push_str(&format!("content-length: {}\r\n\r\n{body}", body.len()));
    }
    stream.write_all(request.as_bytes()).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").expect("a complete head");
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    let content_type = head
        .lines()
        .find_map(|l| l.strip_prefix("content-type: "))
        .unwrap_or_default()
        .to_owned();
    (status, content_type, body.to_owned())
}

/// A Messages request whose conversation already holds `assistant_turns` assistant messages.
fn messages_request(assistant_turns: usize, stream: bool) -> Value {
    let mut messages = vec![json!({"role": "user", "content": "go"})];
    for turn in 0..assistant_turns {
        messages.push(json!({"role": "assistant", "content": [{"type": "text", "text": "…"}]}));
        messages.push(json!({"role": "user", "content": [{
            "type": "tool_result", "tool_use_id": format!("toolu_{turn}"),
            "content": [{"type": "text", "text": format!("result {turn}")}], "is_error": turn == 1,
        }]}));
    }
    json!({"model": "claude-e2e", "stream": stream, "max_tokens": 100, "messages": messages, "tools": []})
}

/// The `(event, data)` pairs of an SSE body; each `event:` must name its data's `type`.
fn sse(body: &str) -> Vec<Value> {
    body.split("\n\n")
        .filter(|frame| !frame.trim().is_empty())
        .map(|frame| {
            let (event, data) = frame.split_once('\n').expect("event and data lines");
            let data: Value = serde_json::from_str(data.strip_prefix("data: ").unwrap()).unwrap();
            assert_eq!(
                event.strip_prefix("event: "),
                data["type"].as_str(),
                "{frame}"
            );
            data
        })
        .collect()
}

fn mock_streams_the_script_turn_by_turn() {
    let mock = MockApi::start(
        Script::new()
            .tool_call("toolu_0", "Bash", bash("echo one"))
            .turn(vec![
                Block::text("two at once"),
                Block::tool_use("toolu_1", "Read", json!({"file_path": "/x"})),
                Block::tool_use("toolu_2", "Bash", bash("echo two")),
            ]),
    )
    .unwrap();

    let (status, content_type, body) = http(
        &mock,
        "POST",
        "/v1/messages?beta=true",
        Some(&messages_request(0, true)),
        false,
    );
    assert_eq!((status, content_type.as_str()), (200, "text/event-stream"));
    let events = sse(&body);
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop"
        ]
    );
    assert_eq!(events[0]["message"]["content"], json!([]));
    assert_eq!(events[1]["content_block"]["id"], "toolu_0");
    let input: Value =
        serde_json::from_str(events[2]["delta"]["partial_json"].as_str().unwrap()).unwrap();
    assert_eq!(input, bash("echo one"));
    assert_eq!(events[4]["delta"]["stop_reason"], "tool_use");

    let events = sse(&http(
        &mock,
        "POST",
        "/v1/messages",
        Some(&messages_request(1, true)),
        false,
    )
    .2);
    let starts: Vec<(&Value, &Value)> = events
        .iter()
        .filter(|e| e["type"] == "content_block_start")
        .map(|e| (&e["index"], &e["content_block"]["type"]))
        .collect();
    assert_eq!(
        starts,
        [
            (&json!(0), &json!("text")),
            (&json!(1), &json!("tool_use")),
            (&json!(2), &json!("tool_use"))
        ]
    );
    assert_eq!(events[events.len() - 2]["delta"]["stop_reason"], "tool_use");

    let events = sse(&http(
        &mock,
        "POST",
        "/v1/messages",
        Some(&messages_request(2, true)),
        false,
    )
    .2);
    assert_eq!(
        events[2]["delta"]["text"], "all done",
        "past the script: the final text"
    );
    assert_eq!(events[events.len() - 2]["delta"]["stop_reason"], "end_turn");

    let results = mock.tool_results();
    let summary: Vec<(&str, bool, &str)> = results
        .iter()
        .map(|r| (r.tool_use_id.as_str(), r.is_error, r.text.as_str()))
        .collect();
    assert_eq!(
        summary,
        [
            ("toolu_0", false, "result 0"),
            ("toolu_1", true, "result 1")
        ]
    );
}

fn mock_answers_without_streaming_and_breaks_a_stream_once() {
    let mock = MockApi::start(Script::new().break_first_stream().tool_call(
        "toolu_0",
        "Bash",
        bash("echo"),
    ))
    .unwrap();

    let (status, _, broken) = http(
        &mock,
        "POST",
        "/v1/messages",
        Some(&messages_request(0, true)),
        true,
    );
    assert_eq!(status, 200);
    let types: Vec<Value> = sse(&broken).iter().map(|e| e["type"].clone()).collect();
    assert_eq!(
        types,
        [json!("message_start")],
        "cut off after message_start"
    );

    let (status, content_type, body) = http(
        &mock,
        "POST",
        "/v1/messages",
        Some(&messages_request(0, false)),
        true,
    );
    assert_eq!((status, content_type.as_str()), (200, "application/json"));
    let message: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(message["stop_reason"], "tool_use");
    assert_eq!(message["content"][0]["input"], bash("echo"));

    let whole = sse(&http(
        &mock,
        "POST",
        "/v1/messages",
        Some(&messages_request(0, true)),
        false,
    )
    .2);
    assert_eq!(
        whole.last().unwrap()["type"],
        "message_stop",
        "only the first stream breaks"
    );
    // The chunked request bodies were read whole.
    let streaming: Vec<bool> = mock
        .model_calls()
        .iter()
        .map(|r| r.is_streaming())
        .collect();
    assert_eq!(streaming, [true, false, true]);
}

fn mock_answers_auxiliary_requests() {
    let mock = MockApi::start(Script::new()).unwrap();
    assert_eq!(http(&mock, "HEAD", "/api/hello", None, false).0, 200);
    let (status, _, body) = http(
        &mock,
        "POST",
        "/v1/messages/count_tokens?beta=true",
        Some(&messages_request(0, false)),
        false,
    );
    assert_eq!(status, 200);
    assert!(serde_json::from_str::<Value>(&body).unwrap()["input_tokens"].is_u64());
    let (status, _, body) = http(&mock, "GET", "/v1/models", None, false);
    assert_eq!(status, 404);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap()["type"],
        "error"
    );
    let log: Vec<(String, String)> = mock
        .requests()
        .into_iter()
        .map(|r| (r.method, r.path))
        .collect();
    assert_eq!(
        log,
        [
            ("HEAD".into(), "/api/hello".into()),
            ("POST".into(), "/v1/messages/count_tokens?beta=true".into()),
            ("GET".into(), "/v1/models".into()),
        ]
    );
    assert!(
        mock.model_calls().is_empty(),
        "count_tokens is not a model call"
    );
}
