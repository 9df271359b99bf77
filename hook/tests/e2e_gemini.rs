//! End-to-end: the real Gemini CLI (`@google/gemini-cli` 0.61.0, headless `-p`) against a
//! scripted offline mock of the Gemini API, guarded by the real `animus-hook` through the exact
//! launch arguments and environment that `animus-hook inject --provider gemini --json` prints.
//!
//! Each test scripts the model's tool calls, runs the CLI once, and checks what really
//! happened: whether the tool ran (a marker the tool itself writes, a file, the MCP server's
//! call log), which `functionResponse` the CLI sent back to the model, that the CLI called
//! nothing but the mock's model endpoint, and what the session log recorded. Every deny test
//! also has a call that is allowed to run in the same session, so a tool that never runs at
//! all (a broken fixture) cannot pass for a blocked one.
//!
//! Setup: `scripts/install-gemini-cli.sh` installs the CLI into `.cache/gemini-cli`
//! (`ANIMUS_GEMINI_BIN` points elsewhere). Without it every test prints `SKIPPED: …` and
//! passes — unless `CI` is set, where a missing CLI fails the suite. `ANIMUS_E2E_KEEP=1` keeps
//! each test's directories (under `target/tmp`); `ANIMUS_E2E_JOBS` sets how many tests run at
//! once. Run just this suite with `cargo test -p animus-hook --test e2e_gemini [name-filter]`.
//! How the CLI is kept offline, and why sessions live under `target/tmp`: `e2e_gemini/driver.rs`.
//!
//! # What the CLI does with each hook answer (measured on 0.61.0, `BeforeTool`)
//!
//! The model gets `functionResponse.response`: `{"output": …}` when the tool ran,
//! `{"error": "Tool execution blocked: <reason>"}` when a hook blocked it.
//! - `{"decision":"deny","reason":R}` (our deny): blocked with R.
//! - No output, exit 0 (our abstain on allow/defer): Gemini's own policy decides.
//! - Exit 2: blocked, with the hook's stderr (or non-JSON stdout) as the reason. inject's
//!   gate line turns every other outcome of the gate (missing, crash, non-zero exit, no answer
//!   within its `timeout -k 2 25`, an answer that is neither nothing nor a JSON object) into
//!   exit 2 with its own reason.
//! - `decision: "ask"`: the headless run hangs; our hook never sends it to Gemini (an ask is a
//!   deny naming the human).
//! - Fails open (the call runs) without that line: Gemini's own hook timeout (30 s here; the
//!   line's `timeout` ends the hook first), exit 1 or any non-2 failure, and non-JSON text
//!   with exit 0 (shown as a "system message"; `fail_closed_garbage_with_exit_zero`).

#[path = "e2e/common.rs"]
mod common;

#[path = "e2e_gemini/mod.rs"]
mod e2e_gemini;

use e2e_gemini::cases::{
    fail_closed::*, installed::*, mock_wire::*, recording::*, settings::*, shell::*, tools::*,
};
use e2e_gemini::driver::GEMINI;

test_support::suite! {
    GEMINI;
    cli:
    installed_hooks_stop_git_reset_in_a_normally_started_session,
    // The slowest first (it waits out the wrapper's 25 s kill), so the rest overlap with it.
    fail_closed_hung_hook, shell_deny_does_not_run_and_the_model_sees_the_reason,
    allowlist_runs_covered_commands_only, parallel_calls_in_one_turn_are_gated_each,
    edit_outside_the_allowed_path_is_blocked, mcp_call_is_gated, records_every_event_of_a_run,
    project_settings_hooks_disabled_is_ignored,
    project_settings_disabling_guessable_names_is_ignored,
    user_settings_cannot_switch_the_hook_off, fail_closed_missing_hook_binary,
    fail_closed_crashing_hook, fail_closed_panicking_hook, fail_closed_garbage_output,
    fail_closed_hook_deadline, fail_closed_corrupt_sidecar, fail_closed_garbage_with_exit_zero,
    user_settings_written_after_inject_are_not_read;
    offline:
    mock_plays_the_script_turn_by_turn,
}
