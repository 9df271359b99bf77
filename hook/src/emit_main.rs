//! `animus-hook-emit`: `animus-hook emit` alone, for the harness to spawn on every event.
//!
//! It takes exactly the arguments of `animus-hook emit` — with or without the leading `emit`,
//! so a settings entry works with either binary — and behaves identically (the same library
//! code). It does not link the compiler, which makes it start measurably faster. Alone on the
//! command line, `--help` and `--version` answer as usual; anywhere else they are arguments
//! `emit` refuses (a gate denies).
//!
//! It also starts without the Rust runtime (`#![no_main]`: the C library calls `main` below),
//! whose start-up costs ~34 µs of every spawn here; [`gate::emit::start_without_runtime`] and
//! the fatal-signal handlers' own alternate stack do the part of it `emit` needs.

#![no_main]
#![deny(unsafe_code)]

use std::ffi::{CStr, OsString, c_char, c_int};
use std::io::Write;
use std::os::unix::ffi::OsStrExt;

/// The process's entry, called by the C library's start-up with the command line.
// SAFETY (of exporting the symbol): `main` is the one entry the C start-up code calls, with
// this signature; no other `main` is linked (`#![no_main]`).
#[allow(unsafe_code)]
#[unsafe(no_mangle)]
extern "C" fn main(argc: c_int, argv: *const *const c_char) -> c_int {
    gate::emit::start_without_runtime();
    let args = (1..usize::try_from(argc).unwrap_or(0))
        .map(|i| {
            // SAFETY: the C start-up passes `argc` valid pointers in `argv`, each to a
            // NUL-terminated string that lives as long as the process.
            let arg = unsafe { CStr::from_ptr(*argv.add(i)) };
            OsString::from(std::ffi::OsStr::from_bytes(arg.to_bytes()))
        })
        .collect();
    c_int::from(run(args))
}

fn run(mut args: Vec<OsString>) -> u8 {
    if let [only] = &args[..] {
        let mut stdout = std::io::stdout().lock();
        if only == "--help" || only == "-h" {
            // A closed stdout (`animus-hook-emit --help | head -1`) is no error: ignore it.
            let _ = writeln!(
                stdout,
                "animus-hook-emit — `animus-hook emit` without the compiler, for the harness to run\n\n\
                 USAGE:\n  animus-hook-emit [emit] --event <E> --session <id> --project-root <root> \
                 [--policy <animus-policy.json>]\n\nSee `animus-hook help emit`."
            );
            // Nothing flushes stdout at exit without the runtime.
            let _ = stdout.flush();
            return 0;
        }
        if only == "--version" || only == "-V" {
            let _ = writeln!(stdout, "animus-hook-emit {}", env!("CARGO_PKG_VERSION"));
            let _ = stdout.flush();
            return 0;
        }
    }
    if args.first().is_some_and(|a| a == "emit") {
        args.remove(0);
    }
    gate::emit::run_for_status(args)
}
