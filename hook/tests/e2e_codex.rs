//! End-to-end: the real OpenAI Codex CLI (0.169.0, `codex exec`) against a scripted offline mock
//! of the Responses API, guarded by the real `animus-hook` through the exact launch arguments
//! that `animus-hook inject --provider codex --json` produces (`-c hooks.<Event>=…` flags and
//! their trust in `-c hooks.state=…`).
//!
//! Each test scripts the model's tool calls, runs Codex once, and checks what really happened:
//! whether the tool ran (a marker the tool itself writes, a file a patch adds, the MCP server's
//! call log), which output Codex sent back to the model in its next request, and what the
//! session log recorded. Every deny test also has a call that runs in the same session, so a
//! tool that never runs at all (a broken fixture) cannot pass for a blocked one. Every run also
//! checks Codex reached nothing but the mock.
//!
//! Setup: `scripts/install-codex-cli.sh` installs the CLI into `.cache/codex`
//! (`ANIMUS_CODEX_BIN` points elsewhere). Without it every test that needs it prints
//! `SKIPPED: …` and passes — unless `CI` is set, where a missing CLI fails the suite.
//! `ANIMUS_E2E_KEEP=1` keeps each test's throwaway directories; `ANIMUS_E2E_JOBS` sets how many
//! tests run at once. Run just this suite with
//! `cargo test -p animus-hook --test e2e_codex [name-filter]`.
//!
//! # What Codex does with each hook answer (measured on 0.169.0, `exec`)
//!
//! - PreToolUse deny (`permissionDecision: "deny"` with a reason, or exit 2 with stderr): the
//!   call does not run; the model gets `Command blocked by PreToolUse hook: <reason>. Command:
//!   <command or patch>` (shell, `apply_patch`) or `Tool call blocked by PreToolUse hook:
//!   <reason>. Tool: <name>` (MCP). No PostToolUse follows. `codex exec` still exits 0.
//! - No output, exit 0 (our allow and defer): Codex's own flow; in `exec` (approval `never`,
//!   `-s workspace-write`) the call runs in the sandbox.
//! - Every hook *failure* runs the call, silently for the model: exit 1, a crash, a missing
//!   command, exit 2 without stderr, Codex's own timeout (it kills the hook), and any output
//!   it does not accept on exit 0 (`ask`, `allow`, plain text, bad JSON). Inject's shell line
//!   turns every one of them into a block (`cases/faults.rs`): it takes the hook's answer and
//!   passes on only exit 0 with nothing or a JSON object, else exits 2 with a reason.
//! - An untrusted hook, or one whose trust hash is stale, is skipped without a word.
//! - `write_stdin` (typing into a command started with a tty) fires no PreToolUse: so starting a
//!   program that would read commands from a terminal is denied under Codex
//!   (`write_stdin_has_no_terminal_to_feed`).

#[path = "e2e_codex/cases/mod.rs"]
mod cases;
#[path = "e2e/common.rs"]
mod common;
#[path = "e2e_codex/driver.rs"]
mod driver;
#[path = "e2e_codex/fixtures.rs"]
mod fixtures;
#[path = "e2e_codex/mock_responses.rs"]
mod mock_responses;

use cases::{
    edits::*, faults::*, installed::*, mcp::*, mock_wire::*, recording::*, shell::*, wiring::*,
};
use driver::CODEX;

test_support::suite! {
    CODEX;
    cli:
    // The slowest first (they wait out a hook's timeout), so the rest overlap with them.
    fail_closed_hung_hook, fail_closed_when_deciding_hangs,
    denied_command_does_not_run_and_allowed_one_does,
    installed_hooks_stop_git_reset_in_a_normally_started_session,
    deferred_command_runs_and_ask_is_a_deny_naming_a_human,
    edit_outside_the_allowed_path_is_blocked, edit_deny_blocks_the_patch_in_a_deferring_profile,
    mcp_call_is_gated, mcp_permission_request_reaches_the_gate, records_every_event_of_a_run,
    records_two_parallel_calls_intact, every_injected_hook_is_trusted_by_codex,
    wrong_trust_hash_makes_codex_skip_the_gate_silently,
    user_hooks_still_run_and_project_config_cannot_unhook_the_gate,
    fail_closed_missing_hook_binary, fail_closed_crashing_hook, fail_closed_panicking_hook,
    fail_closed_corrupt_sidecar, fail_closed_deleted_policy, fail_closed_garbage_on_exit_0,
    write_stdin_has_no_terminal_to_feed, apply_patch_through_the_shell_meets_edit_rules,
    path_regex_sees_the_patch_path_absolute;
    offline:
    mock_answers_turn_by_turn_and_refuses_strays,
}
