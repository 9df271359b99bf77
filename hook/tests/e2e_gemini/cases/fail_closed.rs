//! Fail closed: each fault is planted after inject wrote its real settings and policy, on a
//! paper order the trader profile defers and Gemini's policy would run. inject runs the gate
//! as `out=$(timeout -k 2 25 <hook> …)`, passing on only a clean answer (else `exit 2` with
//! the reason) under Gemini's 30 s hook timeout: Gemini blocks on exit 2 and shows the model the stderr text, while its
//! own failures (a hook timeout, any other exit code, non-JSON output) would run the call.
//!
//! The control that the fixture works is in the same wiring's passing cases (the paper order
//! runs there); here the model must get the wrapper's or emit's own reason, which only the
//! hook line can produce.

use std::fs;
use std::path::Path;
use std::time::Duration;

use crate::common::{self, replace_with_script};
use crate::e2e_gemini::driver::{Outcome, Sandbox, animus_hook};
use crate::e2e_gemini::fixtures::*;
use crate::e2e_gemini::mock_gemini::{MockGemini, Script};
use test_support::assert_has;

/// What the wrapper tells the model when the hook failed.
const WRAPPER: &str = "animus-hook could not decide this call (the hook failed with exit";

/// Gate calls (those given `--policy`) run `gate`; observer calls go to the real hook.
fn gate_only(gate: &str) -> String {
    format!(
        "#!/bin/sh\ncase \" $* \" in *\" --policy \"*) {gate} ;; esac\nexec '{}' \"$@\"\n",
        animus_hook().display()
    )
}

/// Inject (with `hook_bin` if given), plant the fault, run a paper order; return the run.
fn run_paper_order(
    sandbox: &Sandbox,
    hook_bin: Option<&Path>,
    plant: impl FnOnce(&Sandbox),
    env: &[(&str, &str)],
) -> (MockGemini, Outcome) {
    install_trade_script(sandbox);
    let script = Script::new().call("run_shell_command", shell("./trade --paper"));
    let (mock, outcome) = run_with(
        sandbox,
        &profile("trader.yaml"),
        "trader",
        hook_bin,
        |sandbox, _| plant(sandbox),
        env,
        script,
    );
    completed(&mock, &outcome);
    (mock, outcome)
}

/// [`run_paper_order`] with a private copy of the hook, which `plant` breaks first.
fn run_with_private_hook(sandbox: &Sandbox, plant: impl FnOnce(&Path)) -> (MockGemini, Outcome) {
    let hook = common::private_hook_copy(sandbox);
    run_paper_order(sandbox, Some(&hook), |_| plant(&hook), &[])
}

/// [`run_paper_order`] with a private copy of the hook whose gate line runs `gate` instead.
fn run_with_broken_gate(sandbox: &Sandbox, gate: &str) -> (MockGemini, Outcome) {
    run_with_private_hook(sandbox, |hook| replace_with_script(hook, &gate_only(gate)))
}

/// The order was refused with `reason` and did not run.
fn assert_refused(sandbox: &Sandbox, mock: &MockGemini, reason: &str) -> String {
    assert_blocked_with(mock, 0, reason);
    assert!(
        trades(sandbox).is_empty(),
        "the order ran past a broken gate"
    );
    mock.error(0).unwrap()
}

pub fn fail_closed_missing_hook_binary() {
    let sandbox = Sandbox::new("missing-hook");
    let (mock, _) = run_with_private_hook(&sandbox, |hook| fs::remove_file(hook).unwrap());
    // `timeout` cannot run it: exit 127.
    assert_refused(&sandbox, &mock, &format!("{WRAPPER} 127)"));
}

pub fn fail_closed_crashing_hook() {
    let sandbox = Sandbox::new("crashing-hook");
    // Dies of SIGSEGV before answering: no output, exit status 139.
    let (mock, _) = run_with_broken_gate(&sandbox, "kill -SEGV $$");
    assert_refused(&sandbox, &mock, &format!("{WRAPPER} 139)"));
}

/// The real hook panicking (debug builds inject the fault from the environment, which Gemini
/// passes to its hooks): emit's panic handler answers deny itself.
pub fn fail_closed_panicking_hook() {
    let sandbox = Sandbox::new("panicking-hook");
    let (mock, _) = run_paper_order(&sandbox, None, |_| {}, &[("ANIMUS_HOOK_FAULT", "panic")]);
    let refusal = assert_refused(
        &sandbox,
        &mock,
        "(fail closed): internal error (injected fault)",
    );
    assert!(
        !refusal.contains(WRAPPER),
        "emit answered, not the wrapper: {refusal}"
    );
}

/// Garbage on stdout and a failing exit: Gemini would show it as a system message and run
/// the call (exit 1); the gate's shell line keeps the hook's output and exits 2 with its own
/// reason, a block.
pub fn fail_closed_garbage_output() {
    let sandbox = Sandbox::new("garbage-hook");
    let (mock, _) = run_with_broken_gate(&sandbox, "echo 'not json {'; exit 1");
    let refusal = assert_refused(&sandbox, &mock, WRAPPER);
    assert!(!refusal.contains("not json"), "{refusal}");
}

/// A gate that never answers: `timeout -k 2 25` kills it inside Gemini's 30 s, and the
/// wrapper blocks. (The slowest case; listed first so the rest overlap with it.) Measured
/// once by hand too: a hook whose child outlives the kill, holding the pipes open, is blocked
/// the same way at 25 s (Gemini settles on the shell's exit, not on the pipes closing).
/// `timeout` ends the hook with SIGTERM and exits 124 itself: no shell job line quoting the
/// hook's command line reaches the model.
pub fn fail_closed_hung_hook() {
    let sandbox = Sandbox::new("hung-hook");
    let (mock, outcome) = run_with_broken_gate(&sandbox, "exec sleep 600");
    let refusal = assert_refused(
        &sandbox,
        &mock,
        &format!("{WRAPPER} 124: no answer within 25 s)"),
    );
    assert!(
        !refusal.contains("Killed") && !refusal.contains("'emit'"),
        "{refusal}"
    );
    assert!(outcome.elapsed >= Duration::from_secs(25), "{outcome:#?}");
}

/// The real hook hanging while it decides: emit's own deadline answers deny long before the
/// wrapper's kill.
pub fn fail_closed_hook_deadline() {
    let sandbox = Sandbox::new("deadline-hook");
    let (mock, _) = run_paper_order(
        &sandbox,
        None,
        |_| {},
        &[
            ("ANIMUS_HOOK_FAULT", "hang-deciding"),
            ("ANIMUS_HOOK_DEADLINE_MS", "1500"),
        ],
    );
    let refusal = assert_refused(&sandbox, &mock, "fail closed");
    assert!(
        !refusal.contains(WRAPPER),
        "emit answered, not the wrapper: {refusal}"
    );
    // Which timer answered is in the reason (the plugin's or the wrapper's would say its own
    // words); the wall time is not asserted: on a loaded machine it says nothing more.
}

pub fn fail_closed_corrupt_sidecar() {
    let sandbox = Sandbox::new("corrupt-sidecar");
    let (mock, _) = run_paper_order(
        &sandbox,
        None,
        |sandbox| {
            let path = sandbox.session_dir.join("animus-policy.sidecar");
            let mut bytes = fs::read(&path).expect("inject writes the sidecar beside the policy");
            let middle = bytes.len() / 2;
            bytes.truncate(middle);
            fs::write(&path, bytes).unwrap();
        },
        &[],
    );
    // emit's own deny (the hook ran and refused), not the wrapper's.
    let refusal = assert_refused(&sandbox, &mock, "animus-policy.sidecar` has SHA-256");
    assert_has(&refusal, "(fail closed)");
}

/// A hook that prints non-JSON text and exits 0: Gemini 0.61.0 takes such text as a system
/// message and runs the call, so the gate's shell line passes on only nothing or a JSON
/// object, and blocks anything else.
pub fn fail_closed_garbage_with_exit_zero() {
    let sandbox = Sandbox::new("garbage-exit0");
    let (mock, _) = run_with_broken_gate(&sandbox, "echo 'not json {'; exit 0");
    let refusal = assert_refused(
        &sandbox,
        &mock,
        "animus-hook answered something that is not a decision",
    );
    assert_has(&refusal, "(fail closed)");
}
