//! File edits through `apply_patch` (a freeform tool; hooks see `apply_patch {command: <patch>}`
//! and the engine decides every file the patch touches as `Write` (added) or `Edit`
//! (updated, deleted, moved to)). A patch is refused whole if any file in it is.

use std::fs;

use crate::driver::Sandbox;
use crate::fixtures::*;
use crate::mock_responses::Script;
use test_support::assert_has;

fn add_file(path: &str, line: &str) -> String {
    format!("*** Begin Patch\n*** Add File: {path}\n+{line}\n*** End Patch\n")
}

pub fn edit_outside_the_allowed_path_is_blocked() {
    let sandbox = Sandbox::new("edit-allowlist");
    let script = Script::new()
        .patch("call_inside", &add_file("src/inside.txt", "inside"))
        .patch("call_outside", &add_file("notes.txt", "outside"))
        .patch("call_dotdot", &add_file("src/../dotdot.txt", "dotdot"))
        .patch(
            "call_move",
            "*** Begin Patch\n*** Update File: src/inside.txt\n*** Move to: moved.txt\n@@\n-inside\n+moved\n*** End Patch\n",
        )
        .patch(
            "call_mixed",
            "*** Begin Patch\n*** Add File: src/mixed.txt\n+a\n*** Add File: mixed.txt\n+b\n*** End Patch\n",
        );
    let (mock, outcome) = guarded_run(&sandbox, "codex-allowlist", &[], script);
    outcome.completed();
    let project = &sandbox.project;

    let inside = assert_not_blocked(&mock, "call_inside");
    assert_eq!(
        mock.tool_output("call_inside").kind,
        "custom_tool_call_output"
    );
    assert_has(&inside, "Success");
    assert_eq!(
        fs::read_to_string(project.join("src/inside.txt")).unwrap(),
        "inside\n"
    );
    for (call, file) in [
        ("call_outside", "notes.txt"),
        ("call_dotdot", "dotdot.txt"),
        ("call_move", "moved.txt"),
        ("call_mixed", "mixed.txt"),
    ] {
        let text = assert_blocked(&mock, call, DEFAULT_DENY);
        assert!(
            text.contains("*** Begin Patch"),
            "the model sees the patch: {text}"
        );
        assert!(!project.join(file).exists(), "{call} wrote {file}");
    }
    assert!(
        !project.join("src/mixed.txt").exists(),
        "a refused patch is refused whole"
    );
    assert_eq!(
        fs::read_to_string(project.join("src/inside.txt")).unwrap(),
        "inside\n",
        "the refused move left the file alone"
    );

    let log = sandbox.session_log();
    let inside = gate_record(&log, "PreToolUse", "call_inside");
    assert_eq!(inside["tool_name"], "apply_patch");
    assert_eq!(inside["decision"], "allow");
    assert_eq!(inside["left_to_harness"], true);
    assert_decision(&log, "PreToolUse", "call_outside", "deny");
    assert_eq!(records(&log, "PostToolUse").len(), 1, "{log:#?}");
}

pub fn edit_deny_blocks_the_patch_in_a_deferring_profile() {
    let sandbox = Sandbox::new("edit-defer");
    fs::create_dir_all(sandbox.project.join("secret")).unwrap();
    fs::write(sandbox.project.join("secret/existing.txt"), "original\n").unwrap();
    let script = Script::new()
        .patch("call_add", &add_file("secret/new.txt", "x"))
        .patch(
            "call_update",
            "*** Begin Patch\n*** Update File: secret/existing.txt\n@@\n-original\n+changed\n*** End Patch\n",
        )
        .patch("call_free", &add_file("notes.txt", "free"));
    let (mock, outcome) = guarded_run(&sandbox, "codex-defer", &[], script);
    outcome.completed();
    assert_blocked(&mock, "call_add", SECRET_DENY);
    assert_blocked(&mock, "call_update", SECRET_DENY);
    assert!(!sandbox.project.join("secret/new.txt").exists());
    assert_eq!(
        fs::read_to_string(sandbox.project.join("secret/existing.txt")).unwrap(),
        "original\n"
    );
    assert_not_blocked(&mock, "call_free");
    assert_eq!(
        fs::read_to_string(sandbox.project.join("notes.txt")).unwrap(),
        "free\n"
    );
    let log = sandbox.session_log();
    assert_eq!(
        gate_record(&log, "PreToolUse", "call_update")["deciding_rule"],
        "tool_policy.deny:Edit(secret/**)"
    );
    assert_decision(&log, "PreToolUse", "call_free", "defer");
}

/// The reason of the defer profile's `Edit(secret/**)` deny.
const SECRET_DENY: &str = "tool_policy.deny entry `Edit(secret/**)`";

/// `apply_patch` run through the shell (`exec_command` with an `apply_patch <<'EOF'`
/// heredoc): Codex intercepts it, applies the patch itself and fires PreToolUse once, as
/// `Bash` with the heredoc in `command`. The files of a patch in a Codex shell command are
/// decided as edits too, so the `Edit(secret/**)` deny stops it as it stops the same patch
/// through the `apply_patch` tool.
pub fn apply_patch_through_the_shell_meets_edit_rules() {
    let sandbox = Sandbox::new("edit-heredoc");
    let patch = add_file("secret/shell.txt", "through the shell");
    let script = Script::new()
        .patch("call_tool", &patch)
        .exec("call_shell", &format!("apply_patch <<'EOF'\n{patch}EOF\n"));
    let (mock, outcome) = guarded_run(&sandbox, "codex-defer", &[], script);
    outcome.completed();
    assert_blocked(&mock, "call_tool", SECRET_DENY);
    assert_blocked(&mock, "call_shell", SECRET_DENY);
    assert!(!sandbox.project.join("secret/shell.txt").exists());
    let log = sandbox.session_log();
    let record = gate_record(&log, "PreToolUse", "call_shell");
    assert_eq!(record["tool_name"], "Bash");
    assert_eq!(record["decision"], "deny");
}

/// An author rule's regex on `file_path` is written for Claude's absolute paths (`/private/`
/// matches every Claude path under `private/`); an `apply_patch` path is relative to the
/// working directory as the patch writes it (`private/x.txt`). Paths from other harnesses are
/// made absolute before deciding, so the rule catches both spellings.
pub fn path_regex_sees_the_patch_path_absolute() {
    let sandbox = Sandbox::new("edit-regex");
    let absolute = sandbox.project.join("private/absolute.txt");
    let script = Script::new()
        .patch(
            "call_absolute",
            &add_file(&absolute.display().to_string(), "a"),
        )
        .patch("call_relative", &add_file("private/relative.txt", "r"));
    let (mock, outcome) = guarded_run(&sandbox, "codex-defer", &[], script);
    outcome.completed();
    assert_blocked(
        &mock,
        "call_absolute",
        "Files under private/ may not be changed (codex e2e).",
    );
    assert!(!absolute.exists());
    assert_blocked(
        &mock,
        "call_relative",
        "Files under private/ may not be changed (codex e2e).",
    );
    assert!(!sandbox.project.join("private/relative.txt").exists());
}
