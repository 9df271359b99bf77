//! `animus-hook`: gate and record every tool call an agent makes.
//!
//! Subcommands: `emit` (the hook the harness runs), `compile` (profile → `animus-policy.json`),
//! `check` (what would happen to one payload), `explain` (why: every matched rule, where it
//! matched), `import` (Claude settings files → an agent profile), `verify`, `replay` and `log`
//! (the session logs: proved whole, decided again under a candidate policy, listed), `demo`
//! (the bundled profiles over bundled real payloads). See `animus-hook help`; [`cli`] defines
//! them all.

#![forbid(unsafe_code)]
// Every write to stdout goes through `stdout::out!`/`outln!`: a closed pipe is a quiet exit 0.
#![deny(clippy::print_stdout)]

mod check;
mod cli;
mod compile_cmd;
mod completions;
mod demo;
mod diagnostics;
mod diff_cmd;
mod doctor_cmd;
mod explain_cmd;
mod import_cmd;
mod inject_cmd;
mod install_cmd;
mod line_diff;
mod lint_cmd;
mod log_cmd;
mod packs_cmd;
mod replay_cmd;
mod replay_input;
mod stdout;
mod test_cmd;
mod verify_cmd;

use std::process::ExitCode;

use animus_hook::emit;

fn main() -> ExitCode {
    let mut args: Vec<_> = std::env::args_os().skip(1).collect();
    // The hot path first: `emit` parses its own few flags and never exits non-zero.
    if args.first().is_some_and(|a| a == "emit") {
        // Help only when asked for alone: a harness never passes it, and emit with any other
        // argument is the gate, which fails closed.
        if let [_, only] = &args[..]
            && (only == "--help" || only == "-h")
        {
            return cli::emit_help();
        }
        args.remove(0);
        return emit::run(args);
    }
    cli::run(args)
}
