//! Fail closed: each fault is planted after inject wrote its real settings and policy. The
//! CLI is started with `--allowedTools Bash`, so a hook failure that failed open would let the
//! order run.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::e2e::common::{self, assert_pin_refusal, replace_with_script};
use crate::e2e::driver::{Sandbox, animus_hook};
use crate::e2e::fixtures::*;
use crate::e2e::mock_api::Script;
use test_support::assert_has;

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

pub fn fail_closed_missing_hook_binary() {
    let sandbox = Sandbox::new("missing-hook");
    let hook = common::private_hook_copy(&sandbox);
    let refusal = run_with_fault(&sandbox, Some(&hook), |_| fs::remove_file(&hook).unwrap());
    assert_has(&refusal, "blocking because onFailure is \"block\"");
}

pub fn fail_closed_crashing_hook() {
    let sandbox = Sandbox::new("crashing-hook");
    let hook = common::private_hook_copy(&sandbox);
    // Dies of SIGSEGV before answering: exit status 139, no output.
    let refusal = run_with_fault(&sandbox, Some(&hook), |_| {
        replace_with_script(&hook, "#!/bin/sh\nkill -SEGV $$\n")
    });
    assert_has(&refusal, "blocking because onFailure is \"block\"");
}

pub fn fail_closed_hook_timeout() {
    let sandbox = Sandbox::new("slow-hook");
    let hook = common::private_hook_copy(&sandbox);
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
    assert_has(
        &refusal,
        "timed out; blocking because onFailure is \"block\"",
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

pub fn fail_closed_corrupt_sidecar() {
    let sandbox = Sandbox::new("corrupt-sidecar");
    let refusal = run_with_fault(&sandbox, None, |sandbox| {
        let path = sidecar_path(sandbox);
        let mut bytes = fs::read(&path).unwrap();
        let middle = bytes.len() / 2;
        bytes.truncate(middle);
        fs::write(&path, bytes).unwrap();
    });
    // emit's own deny (the hook ran and refused), not the CLI's onFailure. The session is pinned
    // (inject puts the policy's digest on the gate line), so the changed file is caught as
    // not the pinned one before the sidecar's own checks (emit_faults covers those unpinned).
    assert_pin_refusal(&refusal, "animus-policy.sidecar");
}

pub fn fail_closed_stale_sidecar() {
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
    assert_pin_refusal(&refusal, "animus-policy.json");
}
