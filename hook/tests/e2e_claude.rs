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

/// Every test, by function name.
macro_rules! tests {
    ($($name:ident),* $(,)?) => {
        &[$(Test { name: stringify!($name), run: $name }),*]
    };
}

const TESTS: &[Test] = tests![
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
