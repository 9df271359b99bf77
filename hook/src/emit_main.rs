//! `animus-hook-emit`: `animus-hook emit` alone, for the harness to spawn on every event.
//!
//! It takes exactly the arguments of `animus-hook emit` — with or without the leading `emit`,
//! so a settings entry works with either binary — and behaves identically (the same library
//! code). It does not link the compiler, which makes it start measurably faster. Alone on the
//! command line, `--help` and `--version` answer as usual; anywhere else they are arguments
//! `emit` refuses (a gate denies).

#![forbid(unsafe_code)]

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args: Vec<_> = std::env::args_os().skip(1).collect();
    if let [only] = &args[..] {
        if only == "--help" || only == "-h" {
            // A closed stdout (`animus-hook-emit --help | head -1`) is no error: ignore it.
            let _ = writeln!(
                std::io::stdout().lock(),
                "animus-hook-emit — `animus-hook emit` without the compiler, for the harness to run\n\n\
                 USAGE:\n  animus-hook-emit [emit] --event <E> --session <id> --project-root <root> \
                 [--policy <animus-policy.json>]\n\nSee `animus-hook help emit`."
            );
            return ExitCode::SUCCESS;
        }
        if only == "--version" || only == "-V" {
            let _ = writeln!(
                std::io::stdout().lock(),
                "animus-hook-emit {}",
                env!("CARGO_PKG_VERSION")
            );
            return ExitCode::SUCCESS;
        }
    }
    if args.first().is_some_and(|a| a == "emit") {
        args.remove(0);
    }
    gate::emit::run(args)
}
