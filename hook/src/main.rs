//! `animus-hook`: gate and record every tool call an agent makes.
//!
//! Subcommands: `compile` (profile → `animus-policy.json`), `check` (what would happen to one
//! payload), `demo` (the bundled profiles over bundled real payloads). See `--help`.

mod check;
mod cli;
mod compile_cmd;
mod demo;
mod payload;

use std::process::ExitCode;

fn main() -> ExitCode {
    cli::run(std::env::args_os().skip(1).collect())
}
