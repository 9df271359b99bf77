//! `animus-hook-emit`: `animus-hook emit` alone, for the harness to spawn on every event.
//!
//! It takes exactly the arguments of `animus-hook emit` — with or without the leading `emit`,
//! so a settings entry works with either binary — and behaves identically (the same library
//! code). It does not link the compiler, which makes it start measurably faster.

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut args: Vec<_> = std::env::args_os().skip(1).collect();
    if args.first().is_some_and(|a| a == "emit") {
        args.remove(0);
    }
    animus_hook::emit::run(args)
}
