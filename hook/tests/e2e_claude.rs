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
//!   then the CLI still asks, and with `-p` that means asking the PermissionRequest hook. Our
//!   hook never answers allow (issue 17): a call the policy's allow entries cover is abstained
//!   on, and the CLI grants it from the same entries, which `inject` writes into the session
//!   settings as its own `permissions` — so its own checks still apply (observed: with
//!   `Bash(find:*)`, `find / …` is refused with "find in '/' was blocked…", and `find … -delete`
//!   with "… cannot be auto-allowed by a Bash(find:*) prefix rule"). After such a refusal the
//!   CLI asks the PermissionRequest hook, which abstains again: an allow there would run it.
//! - No output (our `defer`): the CLI's own flow. With `--allowedTools` covering the call it
//!   runs; otherwise the PermissionRequest hook is asked, and if it too is silent the call is
//!   refused (`… needs approval …` / `Claude requested permissions …`).
//! - PermissionRequest `deny`: the `message`. `allow`: the tool runs (our hook never sends it).
//! - A gate entry with `"onFailure": "block"` whose hook is missing (spawn ENOENT), crashes or
//!   outlives its `timeout`: `PreToolUse:<Tool> hook error: [<command> <args…>]: failed|timed
//!   out; blocking because onFailure is "block"`. Note the CLI puts the hook's whole command
//!   line (paths, session id) in front of the model here; without `onFailure` each of these
//!   runs the tool (fails open).
//! - Hook lists from `--settings` and the project's `.claude/settings.json` are concatenated:
//!   both run, in parallel, on every call.

mod e2e;

use e2e::cases::{
    decisions::*, fail_closed::*, installed::*, mock_wire::*, os_boundary::*, packs::*,
    permissions::*, recording::*, shell::*, tools::*, transport::*, wiring::*,
};
use e2e::driver::CLAUDE;

test_support::suite! {
    CLAUDE;
    cli:
    // The slowest first (it waits out the gate's 30 s timeout), so the rest overlap with it.
    fail_closed_hook_timeout, deny_trader_live_order_does_not_run,
    core_pack_stops_git_reset_hard_with_the_safer_way,
    installed_guard_stops_git_reset_in_a_normally_started_session,
    plugin_dir_guards_a_session_that_loads_it,
    installed_sandbox_keeps_the_guard_files_byte_identical,
    allow_allowlisted_command_runs_without_allowed_tools, defer_leaves_the_decision_to_the_cli,
    ask_blocks_in_print_mode_with_the_reason, permission_request_deny_is_obeyed,
    permission_request_never_grants_past_a_user_ask_rule, fail_closed_missing_hook_binary,
    fail_closed_crashing_hook, fail_closed_corrupt_sidecar, fail_closed_stale_sidecar,
    settings_file_is_loaded_beside_user_project_hooks, records_every_lifecycle_event_of_a_run,
    records_two_parallel_tool_calls_intact, write_deny_blocks_the_write,
    edit_deny_blocks_the_edit, read_deny_keeps_the_content_from_the_model,
    mcp_tool_deny_blocks_the_call, non_streaming_fallback_is_gated_too,
    kill_switch_runs_unguarded, covered_command_runs_through_claudes_own_permissions,
    compound_command_with_an_uncovered_part_does_not_run, quoted_deny_does_not_run,
    find_outside_project_is_refused_as_claude_refuses,
    path_deny_reaches_every_spelling_of_the_file, edit_allow_does_not_stretch_past_dotdot,
    webfetch_domain_is_the_parsed_host_and_skills_match_by_name,
    sandbox_keeps_every_guard_file_byte_identical, swapped_policy_stops_the_session;
    offline:
    mock_streams_the_script_turn_by_turn,
    mock_answers_without_streaming_and_breaks_a_stream_once, mock_answers_auxiliary_requests,
}
