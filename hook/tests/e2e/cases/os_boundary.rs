//! The OS boundary (issue 26 item 1): under `inject --sandbox`, Claude Code's Bash sandbox
//! makes the guard's files read-only to every program a Bash command runs. Python, Perl and
//! shell scripts (run by the model; the paths come from a file, so no command names a guard
//! file and the parse layer does not see them) try to modify the policy, the hook binary and
//! `.claude/settings.local.json`: each fails with "Read-only file system" and every file
//! stays byte-identical. And a policy swapped during the session (another compiled policy
//! copied over the session's) makes the next call a deny naming the pin mismatch.

use std::fs;
use std::path::PathBuf;

use crate::e2e::common::{self, inject};
use crate::e2e::driver::{Sandbox, animus_hook};
use crate::e2e::fixtures::*;
use crate::e2e::mock_api::Script;

/// `Some(why)` when bubblewrap or socat is missing (the sandbox cannot start); under CI that
/// is a failure instead (`scripts/test.sh` installs them).
pub fn sandbox_tools_missing() -> Option<String> {
    let missing: Vec<&str> = ["bwrap", "socat"]
        .into_iter()
        .filter(|tool| {
            !std::process::Command::new("sh")
                .args(["-c", &format!("command -v {tool}")])
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .collect();
    if missing.is_empty() {
        return None;
    }
    let why = format!(
        "{} not installed (apt-get install -y bubblewrap socat)",
        missing.join(", ")
    );
    assert!(!test_support::under_ci(), "CI is set and {why}");
    Some(why)
}

/// Inject for `cautious.yaml` with `--sandbox`, the hook a private copy, the user's home and
/// state dir the sandbox's; returns the launch arguments and the hook binary.
fn inject_sandboxed(sandbox: &Sandbox, extra: &[&str]) -> (Vec<String>, PathBuf) {
    let hook = common::private_hook_copy(sandbox);
    let launch: Vec<String> = launch(extra).iter().map(|a| a.to_string()).collect();
    let printed = inject(
        "claude",
        &profile("cautious.yaml"),
        "cautious",
        &sandbox.dirs,
        Some(&hook),
        &launch,
        |command| {
            command
                .args(["--prompt-last", "--sandbox"])
                .env("HOME", &sandbox.home)
                .env("ANIMUS_CONFIG_DIR", &sandbox.state_dir);
        },
    );
    (printed.args, hook)
}

pub fn sandbox_keeps_every_guard_file_byte_identical() {
    if let Some(why) = sandbox_tools_missing() {
        println!("SKIPPED: {why}");
        return;
    }
    let sandbox = Sandbox::new("os-boundary");
    let (args, hook) = inject_sandboxed(&sandbox, &["--allowedTools", "Bash"]);
    let settings_local = sandbox.project.join(".claude/settings.local.json");
    fs::create_dir_all(settings_local.parent().unwrap()).unwrap();
    fs::write(&settings_local, "{\"permissions\": {}}\n").unwrap();
    let targets = [sandbox.policy_path(), hook.clone(), settings_local.clone()];
    let before = plant_target_list(&sandbox.project, &targets);
    // Each script appends to every target, then truncates it, then tries to delete it, and
    // writes what happened into the project (which stays writable): proof that it ran.
    plant_python_attack(&sandbox.project, "result-py.txt");
    fs::write(
        sandbox.project.join("attack.pl"),
        "open(my $out, '>', 'result-pl.txt');\n\
         open(my $list, '<', 'targets.txt');\n\
         for my $t (map { chomp; $_ } <$list>) {\n\
         \x20 if (open(my $f, '>>', $t)) { print $f 'x'; close $f; print $out \"append $t: done\\n\" } else { print $out \"append $t: $!\\n\" }\n\
         \x20 if (unlink $t) { print $out \"unlink $t: done\\n\" } else { print $out \"unlink $t: $!\\n\" }\n\
         \x20 if (rename $t, \"$t.moved\") { print $out \"rename $t: done\\n\" } else { print $out \"rename $t: $!\\n\" }\n\
         }\n",
    )
    .unwrap();
    fs::write(
        sandbox.project.join("attack.sh"),
        "exec > result-sh.txt 2>&1\n\
         while read -r t; do\n\
         \x20 echo x >> \"$t\" && echo \"append $t: done\"\n\
         \x20 : > \"$t\" && echo \"truncate $t: done\"\n\
         \x20 cp /dev/null \"$t\" && echo \"cp $t: done\"\n\
         \x20 mv \"$t\" \"$t.moved\" && echo \"mv $t: done\"\n\
         \x20 rm -f \"$t\" && echo \"rm $t: done\"\n\
         done < targets.txt\n\
         echo finished\n",
    )
    .unwrap();
    let script = Script::new()
        .tool_call("toolu_py", "Bash", bash("python3 attack.py"))
        .tool_call("toolu_pl", "Bash", bash("perl attack.pl"))
        .tool_call("toolu_sh", "Bash", bash("bash attack.sh"));
    let (mock, outcome) = run(&sandbox, &args, script);
    outcome.completed();
    for (target, bytes) in targets.iter().zip(&before) {
        let now = fs::read(target).unwrap_or_else(|e| panic!("{}: {e}", target.display()));
        assert!(
            &now == bytes,
            "{} changed under the sandbox",
            target.display()
        );
        assert!(!PathBuf::from(format!("{}.moved", target.display())).exists());
    }
    for (lang, id) in [("py", "toolu_py"), ("pl", "toolu_pl"), ("sh", "toolu_sh")] {
        let result = fs::read_to_string(sandbox.project.join(format!("result-{lang}.txt")))
            .unwrap_or_else(|e| {
                panic!(
                    "the {lang} script did not run ({e}): {:#?}",
                    mock.tool_result(id)
                )
            });
        assert!(!result.contains(": done"), "{lang}: {result}");
        assert!(result.contains("Read-only file system"), "{lang}: {result}");
    }
    // The hook still recorded every call, from outside the sandbox, into a denied state dir.
    let log = sandbox.session_log();
    for id in ["toolu_py", "toolu_pl", "toolu_sh"] {
        gate_record(&log, "PreToolUse", id);
    }
}

pub fn swapped_policy_stops_the_session() {
    let sandbox = with_trade_script(Sandbox::new("pin-swap"));
    let args = sandbox.inject(
        &profile("cautious.yaml"),
        "cautious",
        &launch(&["--allowedTools", "Bash"]),
        None,
    );
    // Another compiled policy, copied over the session's (all three files).
    let other = sandbox.scratch.root.join("other");
    let out = std::process::Command::new(animus_hook())
        .args(["compile", "--config"])
        .arg(profile("cautious.yaml"))
        .args(["--agent", "cautious", "--out-dir"])
        .arg(&other)
        .output()
        .unwrap();
    assert!(out.status.success());
    let policy = sandbox.policy_path();
    for f in [
        |p: &std::path::Path| p.to_path_buf(),
        engine::sidecar::sidecar_path_for,
        engine::sidecar::stamp_path_for,
    ] {
        fs::copy(f(&other.join("animus-policy.json")), f(&policy)).unwrap();
    }
    let script = Script::new().tool_call("toolu_order", "Bash", bash("./trade --paper"));
    let (mock, outcome) = run(&sandbox, &args, script);
    assert_blocked_with(
        &outcome,
        &mock,
        "toolu_order",
        "the policy is not the one this session pinned",
    );
    assert!(
        trades(&sandbox).is_empty(),
        "the order ran past a swapped policy"
    );
}
