//! Fail closed: each fault is planted after inject wrote its real wiring and policy. The call
//! is `./trade --paper`, which the allowlist covers: the hook abstains on it and Codex runs it
//! (see `denied_command_does_not_run_and_allowed_one_does`), so a fault that failed open would
//! let it run.
//!
//! Codex by itself fails open on every hook failure (exit 1, a crash, a missing command, its
//! own timeout, exit 2 without stderr: the call runs, and the model gets no hint). Inject's
//! shell line turns each of these into a block: the gate runs under `timeout -k 2 25`, a few
//! seconds inside Codex's timeout, its answer is taken, and anything but exit 0 with nothing or
//! a JSON object becomes exit 2 with a reason, which Codex treats as a block — a hook that
//! exits 0 after printing something Codex does not accept included
//! (`fail_closed_garbage_on_exit_0`).

use std::fs;
use std::path::Path;

use crate::common::{self, assert_pin_refusal, replace_with_script};
use crate::driver::{Sandbox, animus_hook};
use crate::fixtures::*;
use crate::mock_responses::Script;
use test_support::assert_has;

/// The reason inject's shell line gives when the hook failed.
const WIRING_BLOCK: &str = "animus-hook could not decide this call (the hook failed with exit";

/// Inject with `hook_bin`, plant the fault, run a paper order that would otherwise run (with
/// `env` on top), and check it was refused. Returns the refusal the model saw.
fn run_with_fault(
    sandbox: &Sandbox,
    hook_bin: Option<&Path>,
    plant: impl FnOnce(&Sandbox),
    env: &[(&str, &str)],
) -> String {
    install_trade_script(sandbox);
    let script = Script::new().exec("call_order", "./trade --paper");
    let (mock, outcome) = guarded_run_with(
        sandbox,
        "codex-allowlist",
        &[],
        hook_bin,
        |sandbox, _| plant(sandbox),
        env,
        script,
    );
    outcome.completed();
    let output = mock.tool_output("call_order");
    assert!(
        output.text.starts_with(BLOCKED_COMMAND),
        "a broken gate must block the call: {output:#?}\n{outcome:#?}"
    );
    assert!(
        trades(sandbox).is_empty(),
        "the order ran past a broken gate"
    );
    assert_eq!(
        outcome.hook_lines("PreToolUse", "Blocked"),
        1,
        "{}",
        outcome.stderr
    );
    output.text
}

pub fn fail_closed_missing_hook_binary() {
    let sandbox = Sandbox::new("missing-hook");
    let hook = common::private_hook_copy(&sandbox);
    let refusal = run_with_fault(
        &sandbox,
        Some(&hook),
        |_| fs::remove_file(&hook).unwrap(),
        &[],
    );
    assert!(
        refusal.contains(&format!("{WIRING_BLOCK} 127)")),
        "{refusal}"
    );
    assert_has(&refusal, "No such file or directory");
}

pub fn fail_closed_crashing_hook() {
    let sandbox = Sandbox::new("crashing-hook");
    let hook = common::private_hook_copy(&sandbox);
    // Dies of SIGSEGV before answering: no output, status 139.
    let refusal = run_with_fault(
        &sandbox,
        Some(&hook),
        |_| replace_with_script(&hook, "#!/bin/sh\nkill -SEGV $$\n"),
        &[],
    );
    assert!(
        refusal.contains(&format!("{WIRING_BLOCK} 139)")),
        "{refusal}"
    );
}

pub fn fail_closed_panicking_hook() {
    let sandbox = Sandbox::new("panicking-hook");
    // The real hook, panicking on entry (debug builds' fault injection; the hooks inherit
    // Codex's environment): emit catches its own panic and denies.
    let refusal = run_with_fault(&sandbox, None, |_| {}, &[("ANIMUS_HOOK_FAULT", "panic")]);
    assert_has(&refusal, "(fail closed): internal error (injected fault)");
}

pub fn fail_closed_hung_hook() {
    let sandbox = Sandbox::new("hung-hook");
    let hook = common::private_hook_copy(&sandbox);
    let real = animus_hook();
    // Gate calls (the ones with --policy) sleep past Codex's own 30 s hook timeout, which by
    // itself would kill the hook and run the call; inject's `timeout -k 2 25` gets there
    // first. Observer calls go straight to the real hook.
    let refusal = run_with_fault(
        &sandbox,
        Some(&hook),
        |_| {
            replace_with_script(
                &hook,
                &format!(
                    "#!/bin/sh\ncase \" $* \" in *\" --policy \"*) sleep 90 ;; esac\nexec '{}' \"$@\"\n",
                    real.display()
                ),
            )
        },
        &[],
    );
    assert!(
        refusal.contains(&format!("{WIRING_BLOCK} 124: no answer within 25 s)")),
        "{refusal}"
    );
    // `timeout` ends the hook with SIGTERM and exits itself: no shell job line quoting the
    // hook's command line reaches the model.
    assert!(
        !refusal.contains("Killed") && !refusal.contains("'emit'"),
        "{refusal}"
    );
}

pub fn fail_closed_when_deciding_hangs() {
    let sandbox = Sandbox::new("hang-deciding");
    // The real hook, stuck while deciding: its own deadline answers deny.
    let refusal = run_with_fault(
        &sandbox,
        None,
        |_| {},
        &[("ANIMUS_HOOK_FAULT", "hang-deciding")],
    );
    assert_has(&refusal, "(fail closed)");
    assert!(
        !refusal.contains(WIRING_BLOCK),
        "emit answered itself: {refusal}"
    );
}

pub fn fail_closed_corrupt_sidecar() {
    let sandbox = Sandbox::new("corrupt-sidecar");
    let refusal = run_with_fault(
        &sandbox,
        None,
        |sandbox| {
            let path = sandbox.session_dir.join("animus-policy.sidecar");
            let mut bytes = fs::read(&path).expect("inject writes the sidecar beside the policy");
            bytes.truncate(bytes.len() / 2);
            fs::write(&path, bytes).unwrap();
        },
        &[],
    );
    // emit's own deny (the hook ran and refused), not the wiring's.
    assert_pin_refusal(&refusal, "animus-policy.sidecar");
}

pub fn fail_closed_deleted_policy() {
    let sandbox = Sandbox::new("deleted-policy");
    let refusal = run_with_fault(
        &sandbox,
        None,
        |sandbox| fs::remove_file(sandbox.policy_path()).unwrap(),
        &[],
    );
    assert_has(&refusal, "fail closed");
}

/// A hook that exits 0 after printing something Codex does not accept would fail open in
/// Codex 0.169.0 (plain text is taken as context, invalid JSON is a failed hook: the call
/// runs). The gate's shell line passes on only nothing or a JSON object, so each of these is a
/// block; so is the same garbage with a failing exit.
pub fn fail_closed_garbage_on_exit_0() {
    let sandbox = with_trade_script(Sandbox::new("garbage-hook"));
    let hook = common::private_hook_copy(&sandbox);
    let real = animus_hook();
    let script = Script::new()
        .exec("call_text", "./trade --paper text")
        .exec("call_json", "./trade --paper badjson")
        .exec("call_exit1", "./trade --paper exit1");
    let (mock, outcome) = guarded_run_with(
        &sandbox,
        "codex-allowlist",
        &[],
        Some(&hook),
        |_, _| {
            replace_with_script(
                &hook,
                &format!(
                    "#!/bin/sh\ncase \" $* \" in *\" --policy \"*) ;; *) exec '{}' \"$@\" ;; esac\n\
                     payload=$(cat)\n\
                     case \"$payload\" in\n\
                     *text*) echo 'this is not json' ;;\n\
                     *badjson*) echo '{{not valid json' ;;\n\
                     *) echo 'garbage'; exit 1 ;;\n\
                     esac\n",
                    real.display()
                ),
            )
        },
        &[],
        script,
    );
    outcome.completed();
    assert_blocked(&mock, "call_exit1", WIRING_BLOCK);
    let not_a_decision = "animus-hook answered something that is not a decision";
    assert_blocked(&mock, "call_text", not_a_decision);
    assert_blocked(&mock, "call_json", not_a_decision);
    assert!(trades(&sandbox).is_empty(), "{:?}", trades(&sandbox));
}
