//! A small test runner for the suites that drive a real harness CLI (their test targets have
//! `harness = false`): the four end-to-end suites, the Claude oracle and the stub-shell suite.
//!
//! Why not libtest: the suite's binary doubles as the stdio MCP server the CLI spawns
//! (`--mcp-echo-server`), which needs a `main` whose stdout carries nothing but JSON-RPC; and
//! a missing CLI must print one `SKIPPED: …` line per test. Output and exit status follow
//! libtest's (`test <name> ... ok`, `test result: ok. N passed; …`), positional arguments
//! filter by substring like libtest's, `--list` lists, other flags are ignored.
//!
//! Tests run on `ANIMUS_E2E_JOBS` threads (default 3): each spends most of its time waiting on
//! the CLI and its hooks, and three at a time keep a 2-core machine responsive.

use std::collections::VecDeque;
use std::panic::{self, AssertUnwindSafe};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Instant;

use crate::pinned_cli::CliError;

pub struct Test {
    pub name: &'static str,
    pub run: fn(),
    /// Needs the suite's CLI (skipped or failed as `skip` says when it is missing).
    pub needs_cli: bool,
}

/// Why every test that needs the CLI is skipped, or `None` to run them.
pub type Skip = Option<String>;

/// A suite's list of [`Test`]s by function name: first those that drive the CLI, then those
/// that do not (`tests![cli: a, b; offline: c]`).
#[macro_export]
macro_rules! tests {
    (cli: $($cli:ident),* ; offline: $($offline:ident),* $(,)?) => {
        &[
            $($crate::runner::Test { name: stringify!($cli), run: $cli, needs_cli: true },)*
            $($crate::runner::Test { name: stringify!($offline), run: $offline, needs_cli: false },)*
        ]
    };
}

/// A suite's `main` and its `TESTS` (the [`tests!`] list that follows `$cli;`), the tests
/// that need the CLI skipped as `$cli.skip_reason()` says ([`crate::pinned_cli`]).
#[macro_export]
macro_rules! suite {
    ($cli:expr; $($list:tt)*) => {
        fn main() -> std::process::ExitCode {
            $crate::runner::main(TESTS, || $cli.skip_reason())
        }

        const TESTS: &[$crate::runner::Test] = $crate::tests![$($list)*];
    };
}

/// A suite's `main`: the stdio MCP server when a CLI starts this binary as one
/// (`--mcp-echo-server <calls file>`), else the tests the arguments select, `skip` saying
/// whether those that need the CLI can run.
pub fn main(tests: &[Test], skip: impl FnOnce() -> Result<Skip, CliError>) -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, calls_file] = args.as_slice()
        && flag == "--mcp-echo-server"
    {
        return match crate::mcp_echo::serve(std::path::Path::new(calls_file)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(_) => ExitCode::FAILURE,
        };
    }
    run(tests, &args, skip())
}

/// Run the tests `args` select; `skip` says whether those that need the CLI can run.
pub fn run(tests: &[Test], args: &[String], skip: Result<Skip, CliError>) -> ExitCode {
    let filters: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let selected: Vec<&Test> = tests
        .iter()
        .filter(|t| filters.is_empty() || filters.iter().any(|f| t.name.contains(f)))
        .collect();
    let filtered_out = tests.len() - selected.len();
    if args.iter().any(|a| a == "--list") {
        for test in &selected {
            println!("{}: test", test.name);
        }
        return ExitCode::SUCCESS;
    }
    println!("\nrunning {} tests", selected.len());
    let started = Instant::now();
    let (mut passed, mut failed, mut skipped) = (Vec::new(), Vec::new(), 0);
    let mut runnable = Vec::new();
    for test in selected {
        match (&skip, test.needs_cli) {
            (Err(why), true) => {
                println!("test {} ... FAILED: {why}", test.name);
                failed.push(test.name);
            }
            (Ok(Some(why)), true) => {
                println!("SKIPPED: {}: {why}", test.name);
                skipped += 1;
            }
            _ => runnable.push((test.name, test.run)),
        }
    }
    let queue = Arc::new(Mutex::new(VecDeque::from(runnable)));
    let results = Arc::new(Mutex::new(Vec::new()));
    let jobs = std::env::var("ANIMUS_E2E_JOBS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n: &usize| n > 0)
        .unwrap_or(3);
    let workers: Vec<_> = (0..jobs)
        .map(|_| {
            let queue = Arc::clone(&queue);
            let results = Arc::clone(&results);
            thread::spawn(move || {
                loop {
                    let Some((name, run)) = queue.lock().unwrap().pop_front() else {
                        break;
                    };
                    let test_started = Instant::now();
                    // A named thread, so a panic message says which test failed.
                    let ok = thread::Builder::new()
                        .name(name.to_owned())
                        .spawn(move || panic::catch_unwind(AssertUnwindSafe(run)).is_ok())
                        .unwrap()
                        .join()
                        .unwrap_or(false);
                    let secs = test_started.elapsed().as_secs_f64();
                    println!(
                        "test {name} ... {} ({secs:.1}s)",
                        if ok { "ok" } else { "FAILED" }
                    );
                    results.lock().unwrap().push((name, ok));
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().unwrap();
    }
    for (name, ok) in results.lock().unwrap().iter() {
        if *ok {
            passed.push(*name);
        } else {
            failed.push(*name);
        }
    }
    if !failed.is_empty() {
        println!("\nfailures:");
        for name in &failed {
            println!("    {name}");
        }
    }
    println!(
        "\ntest result: {}. {} passed; {} failed; {skipped} ignored; 0 measured; {filtered_out} filtered out; finished in {:.2}s\n",
        if failed.is_empty() { "ok" } else { "FAILED" },
        passed.len(),
        failed.len(),
        started.elapsed().as_secs_f64()
    );
    if failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
