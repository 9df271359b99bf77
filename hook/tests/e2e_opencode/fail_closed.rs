//! Fail closed: the plugin inject generates is the only thing between opencode and a tool
//! (opencode runs every tool unasked in a headless run, and waits on a plugin forever). Each
//! fault is planted after inject wrote its real plugin and policy, in a private copy of the
//! hook that inject wired in. Where a fault can be aimed at one call, the same session also
//! has a control call that goes through the real hook and runs.

use std::fs;
use std::path::Path;
use std::time::Duration;

use super::cases::FAIL_CLOSED;
use super::driver::{Launch, Sandbox, animus_hook};
use super::fixtures::*;
use super::mock::{MockApi, Script};

/// Inject the guard profile with a private hook copy, let `plant` break it, then run `script`.
fn run_with_fault(
    sandbox: &Sandbox,
    script: Script,
    extra_env: &[(&str, &str)],
    plant: impl FnOnce(&Path),
) -> (MockApi, super::driver::Outcome) {
    install_trade_script(sandbox);
    let hook = private_hook_copy(sandbox);
    let launch: Launch = sandbox.inject(&profile(), "guard", &[], Some(&hook));
    let plugin = fs::read_to_string(sandbox.plugin_path()).unwrap();
    assert!(
        plugin.contains(&format!("const HOOK = {:?};", hook.display().to_string())),
        "the plugin runs the private copy"
    );
    plant(&hook);
    run(sandbox, &launch, script, extra_env)
}

/// A hook that acts out the fault its gate payload names (`fault=<name>` in the command) and
/// passes every other call to the real hook.
fn fault_acting_hook(hook: &Path, pid_file: &Path) {
    replace_with_script(
        hook,
        &format!(
            "#!/bin/sh\n\
             payload=$(cat)\n\
             case \" $* \" in *\" --policy \"*)\n\
               case \"$payload\" in\n\
                 *fault=segv*) kill -SEGV $$ ;;\n\
                 *fault=exit3*) echo 'the hook broke' >&2; exit 3 ;;\n\
                 *fault=garbage*) echo 'this is not JSON'; exit 0 ;;\n\
                 *fault=allow*) echo '{{\"decision\":\"allow\"}}'; exit 0 ;;\n\
                 *fault=bare-deny*) echo '{{\"decision\":\"deny\"}}'; exit 0 ;;\n\
                 *fault=silent*) exit 0 ;;\n\
                 *fault=hang*) echo $$ > '{pid}'; exec sleep 600 ;;\n\
               esac ;;\n\
             esac\n\
             printf '%s' \"$payload\" | exec '{real}' \"$@\"\n",
            pid = pid_file.display(),
            real = animus_hook().display(),
        ),
    );
}

pub fn fail_closed_broken_hook_answers() {
    let sandbox = Sandbox::new("broken-answers");
    let pid_file = sandbox.scratch.root.join("hung.pid");
    let faults = ["segv", "exit3", "garbage", "allow", "bare-deny", "silent"];
    let mut script = Script::new().call("call_control", "bash", bash("./trade --paper control"));
    for fault in faults {
        script = script.call(
            &format!("call_{fault}"),
            "bash",
            bash(&format!("./trade --paper fault={fault}")),
        );
    }
    let (mock, _) = run_with_fault(&sandbox, script.final_text("faults done"), &[], |hook| {
        fault_acting_hook(hook, &pid_file)
    });
    // The control went through the real hook and ran.
    assert_eq!(decided(&sandbox, "call_control").0, "defer");
    assert_eq!(
        mock.tool_message("call_control"),
        "traded: --paper control\n"
    );
    for (fault, why) in [
        ("segv", "the hook was killed by SIGSEGV"),
        ("exit3", "the hook exited with status 3"),
        ("garbage", "the hook's answer is not JSON"),
        // Any JSON but a deny with a reason: our hook never prints allow.
        ("allow", "the hook's answer is not a deny"),
        ("bare-deny", "the hook's answer is not a deny"),
    ] {
        assert_eq!(
            mock.tool_message(&format!("call_{fault}")),
            format!("{FAIL_CLOSED}{why}"),
            "{fault}"
        );
    }
    // Exit 0 with no output is the hook abstaining (how `emit` answers allow and defer): the
    // call runs. So a hook that is silently replaced by a no-op fails open (a residual risk).
    assert_eq!(
        trades(&sandbox),
        ["--paper control", "--paper fault=silent"],
        "only the control and the abstained call ran"
    );
}

pub fn fail_closed_missing_hook_binary() {
    let sandbox = Sandbox::new("missing-hook");
    let script = Script::new()
        .call("call_order", "bash", bash("./trade --paper"))
        .final_text("missing done");
    let (mock, _) = run_with_fault(&sandbox, script, &[], |hook| fs::remove_file(hook).unwrap());
    let told = mock.tool_message("call_order");
    // Bun's spawn error, e.g. "ENOENT: no such file or directory, posix_spawn '<path>'".
    assert!(
        told.starts_with(&format!("{FAIL_CLOSED}the hook did not start ("))
            && told.contains("ENOENT"),
        "{told}"
    );
    assert!(
        trades(&sandbox).is_empty(),
        "the order ran past a missing hook"
    );
    assert!(sandbox.session_log().is_empty());
}

/// Whether process `pid` is still alive (a zombie is not).
fn alive(pid: u32) -> bool {
    fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            stat.rsplit_once(") ")
                .map(|(_, rest)| !rest.starts_with('Z'))
        })
        .unwrap_or(false)
}

/// The slowest case: it waits out the plugin's 30 s gate timeout.
pub fn fail_closed_hung_hook_is_killed_at_the_gate_timeout() {
    let sandbox = Sandbox::new("hung-hook");
    let pid_file = sandbox.scratch.root.join("hung.pid");
    let script = Script::new()
        .call("call_control", "bash", bash("./trade --paper control"))
        .call("call_hang", "bash", bash("./trade --paper fault=hang"))
        .final_text("hang done");
    let (mock, outcome) = run_with_fault(&sandbox, script, &[], |hook| {
        fault_acting_hook(hook, &pid_file)
    });
    assert_eq!(
        mock.tool_message("call_control"),
        "traded: --paper control\n"
    );
    assert_eq!(
        mock.tool_message("call_hang"),
        format!("{FAIL_CLOSED}the hook did not answer within 30000 ms")
    );
    assert!(outcome.elapsed >= Duration::from_secs(30), "{outcome:#?}");
    assert_eq!(trades(&sandbox), ["--paper control"]);
    // The plugin killed the hung hook's process group: nothing is left behind (the hook runs
    // in a group of its own, which the driver's kill of opencode's group does not reach).
    let pid: u32 = fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let gone = (0..100).any(|_| {
        !alive(pid) || {
            std::thread::sleep(Duration::from_millis(50));
            false
        }
    });
    if !gone {
        let _ = std::process::Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    }
    assert!(gone, "the hung hook {pid} outlived the plugin's timeout");
}

/// `emit`'s own deadline (debug builds can make a decision hang): it denies well before the
/// plugin's timeout, and the deny reaches the model. The fault travels in opencode's
/// environment, which the plugin passes on to the hook.
pub fn hung_decision_is_denied_by_emits_deadline() {
    if !cfg!(debug_assertions) {
        println!(
            "SKIPPED: hung_decision_is_denied_by_emits_deadline: fault injection needs a debug build"
        );
        return;
    }
    let sandbox = with_trade_script(Sandbox::new("hung-decision"));
    let launch = sandbox.inject(&profile(), "guard", &[], None);
    let script = Script::new()
        .call("call_order", "bash", bash("./trade --paper"))
        .final_text("deadline done");
    let env = [
        ("ANIMUS_HOOK_FAULT", "hang-deciding"),
        ("ANIMUS_HOOK_DEADLINE_MS", "1500"),
    ];
    let (mock, _) = run(&sandbox, &launch, script, &env);
    assert_eq!(decided(&sandbox, "call_order").0, "deny");
    let told = mock.tool_message("call_order");
    assert!(
        told.starts_with("animus-hook could not evaluate this call, so it is denied (fail closed)")
            && told.contains("no decision within 1500 ms"),
        "{told}"
    );
    assert!(trades(&sandbox).is_empty());
    // Which timer answered is in the reason (the plugin's or the wrapper's would say its own
    // words); the wall time is not asserted: on a loaded machine it says nothing more.
}
