//! End-to-end: the real opencode CLI (1.18.33, headless `opencode run`) against a scripted
//! offline mock of an OpenAI-compatible chat-completions API, guarded by the real
//! `animus-hook` through exactly the launch arguments, environment and plugin that
//! `animus-hook inject --provider opencode` produces.
//!
//! Each test scripts the model's tool calls, runs the CLI once, and checks what really
//! happened: whether the tool ran (a marker the tool itself writes), which `tool` message
//! opencode sent back to the model, and what the session log recorded. Every deny test also
//! has a call that is allowed to run in the same session, so a tool that never runs at all (a
//! broken fixture) cannot pass for a blocked one. Every run also checks that opencode asked the
//! mock for chat completions only and `npm install`ed into no config dir.
//!
//! Setup: `scripts/install-opencode-cli.sh` installs the CLI into `.cache/opencode`
//! (`ANIMUS_OPENCODE_BIN` points elsewhere). Without it every test prints `SKIPPED: …` and
//! passes, unless `CI` is set, where a missing CLI fails the suite. `ANIMUS_E2E_KEEP=1` keeps
//! each test's throwaway directories; `ANIMUS_E2E_JOBS` sets how many tests run at once.
//! Run just this suite with `cargo test -p animus-hook --test e2e_opencode [name-filter]`.
//!
//! # How opencode takes the guard (measured on 1.18.33)
//!
//! opencode has no command hooks. inject writes a plugin, `plugins/animus-guard.js`, into a
//! config dir of the session's and sets `OPENCODE_CONFIG_DIR` to it. On
//! `tool.execute.before` the plugin runs `animus-hook emit --provider opencode` and:
//! - the hook prints nothing (allow, defer): the call goes on to opencode's own permissions,
//!   which in a headless run allow everything unless configured;
//! - the hook prints `{"decision":"deny","reason":…}`: the plugin throws the reason, and a
//!   throw blocks the call. The model gets the reason verbatim as the tool's result (no
//!   prefix), stderr shows `Error: <reason>`, and the session goes on to the next turn. The
//!   exit code stays 0. Our ask is such a deny too (a plugin cannot ask);
//! - the hook cannot start, dies of a signal, exits non-zero, prints anything but a deny with
//!   a reason (garbage, even `{"decision":"allow"}`) or outlives the plugin's 30 s: the
//!   plugin throws `animus-hook could not decide this call, so it is blocked (fail closed):
//!   <why>`. opencode itself puts no timeout on a plugin: the plugin brings its own and
//!   kills the hook's process group.
//! - After a call that ran, `tool.execute.after` records its arguments and result; when the
//!   session goes idle, `session.idle` is recorded. A blocked call has no after event.
//!
//! Where the guard cannot hold (the README's residual risks): `--pure` or `OPENCODE_PURE=1`
//! loads no external plugin at all, so the session runs unguarded
//! ([`pure_mode_runs_without_the_guard`]); a hook that exits 0 printing nothing is an
//! abstention, so a no-op put in the hook's place lets every call through; and any other
//! in-process plugin (project `.opencode/plugins/`, global config) runs in the same process,
//! before ours, and can change a call's arguments before the guard sees them.

#[path = "e2e_opencode/mod.rs"]
mod oc;

use oc::cases::*;
use oc::driver::OPENCODE;
use oc::fail_closed::*;
use oc::installed::*;
use oc::mock::selftest::*;

test_support::suite! {
    OPENCODE;
    cli:
    // The slowest first (it waits out the plugin's 30 s gate timeout), so the rest overlap.
    fail_closed_hung_hook_is_killed_at_the_gate_timeout,
    denied_command_does_not_run_and_the_model_sees_why,
    installed_plugin_stops_git_reset_in_a_normally_started_session,
    records_every_gate_and_observer_event, edit_outside_the_allowed_path_is_blocked,
    read_deny_keeps_the_content_from_the_model, mcp_tool_call_is_gated,
    fail_closed_broken_hook_answers, fail_closed_missing_hook_binary,
    hung_decision_is_denied_by_emits_deadline,
    self_protection_keeps_the_agent_off_opencode_config,
    project_config_does_not_unload_the_guard, pure_mode_runs_without_the_guard;
    offline:
    mock_scripts_turns_by_assistant_count_and_skips_the_title,
}
