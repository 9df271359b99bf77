//! Built-in protection packs on the real CLI (issue 13): a profile with `packs: [core]` and no
//! rule of its own stops `git reset --hard`, and the model reads the pack's reason with the
//! safer way; an ordinary git command in the same session runs.

use std::fs;

use crate::e2e::driver::Sandbox;
use crate::e2e::fixtures::*;
use test_support::process::git;

pub fn core_pack_stops_git_reset_hard_with_the_safer_way() {
    let sandbox = Sandbox::new("packs-core");
    let project = &sandbox.project;
    let git = |args: &[&str]| git(project, args);
    git(&["init", "-q"]);
    fs::write(project.join("work.txt"), "committed\n").unwrap();
    git(&["add", "work.txt"]);
    git(&["commit", "-q", "-m", "base"]);
    fs::write(project.join("work.txt"), "uncommitted work\n").unwrap();
    let script = status_then_reset("git reset --hard");
    // `--allowedTools Bash` would run both: only the pack stands in the way.
    let (mock, outcome) = guarded_run(
        &sandbox,
        "e2e/gates.yaml",
        "packs-core",
        &["--allowedTools", "Bash"],
        script,
    );
    assert_blocked_with(
        &outcome,
        &mock,
        "toolu_reset",
        "core.git:reset-hard: git reset --hard discards every uncommitted change",
    );
    let result = mock.tool_result("toolu_reset");
    assert!(
        result.text.contains("Instead: git stash first"),
        "{result:#?}"
    );
    assert_eq!(
        fs::read_to_string(project.join("work.txt")).unwrap(),
        "uncommitted work\n",
        "git reset --hard did not run"
    );
    assert!(!mock.tool_result("toolu_status").is_error);
    assert_eq!(
        fs::read_to_string(project.join("status.txt")).unwrap(),
        " M work.txt\n?? status.txt\n",
        "the ordinary git command ran (its own redirect made status.txt first)"
    );
    let log = sandbox.session_log();
    let reset = gate_record(&log, "PreToolUse", "toolu_reset");
    assert_eq!(reset["decision"], "deny");
    assert_eq!(reset["deciding_rule"], "pack.core.git:reset-hard");
}
