//! The authoring CLI's help, usage errors and closed stdout, as a user meets them: `help`,
//! `help <command>`, a misspelt flag answered with that command's usage and a suggestion,
//! and `animus-hook demo | head -1` ending quietly.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use test_support::assert_has;

use common::{bin, repo, run_cli, run_hook};

/// `animus-hook help` lists every command, one line each, without any command's usage.
#[test]
fn help_lists_the_commands() {
    for args in [&["help"][..], &["--help"], &["-h"]] {
        let run = run_cli(args);
        assert_eq!(run.code, Some(0), "{args:?}: {}", run.stderr);
        for command in [
            "compile",
            "lint",
            "test",
            "explain",
            "replay",
            "completions",
        ] {
            assert!(
                run.stdout
                    .lines()
                    .any(|l| l.trim_start().starts_with(command)),
                "{args:?} lists {command}: {}",
                run.stdout
            );
        }
        assert!(run.stdout.contains("Usage: animus-hook <COMMAND>"));
        assert!(run.stdout.lines().all(|l| l.chars().count() <= 100));
    }
    // No command at all: the same list, as a usage error.
    let run = run_cli(&[]);
    assert_eq!(run.code, Some(2));
    assert!(run.stderr.contains("Usage: animus-hook <COMMAND>"));
}

/// `help <command>` is `<command> --help`: that command's usage only.
#[test]
fn help_names_one_command() {
    for command in ["compile", "lint", "test", "log", "emit", "install"] {
        let help = run_cli(&["help", command]);
        assert_eq!(help.code, Some(0), "{command}: {}", help.stderr);
        assert!(
            help.stdout
                .contains(&format!("Usage: animus-hook {command} ")),
            "{command}: {}",
            help.stdout
        );
        assert_eq!(help.stdout.matches("Usage: animus-hook").count(), 1);
        assert!(
            help.stdout.lines().all(|l| l.chars().count() <= 100),
            "{command}: a line over 100 columns:\n{}",
            help.stdout
        );
        let flag = run_cli(&[command, "--help"]);
        assert_eq!(flag.stdout, help.stdout);
    }
    let run = run_cli(&["help", "frobnicate"]);
    assert_eq!(run.code, Some(2));
}

/// Every command's help, as `help` lists them, fits in 100 columns (clap wraps it there).
#[test]
fn every_help_fits_in_100_columns() {
    let list = run_cli(&["help"]).stdout;
    let commands: Vec<&str> = list
        .lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() > 15, "{list}");
    for command in commands {
        for flag in ["-h", "--help"] {
            let run = run_cli(&[command, flag]);
            assert_eq!(run.code, Some(0), "{command} {flag}: {}", run.stderr);
            for line in run.stdout.lines() {
                assert!(line.chars().count() <= 100, "{command} {flag}: {line}");
            }
        }
    }
}

/// A misspelt flag: exit 2, the suggestion, and that command's usage line only.
#[test]
fn a_misspelt_flag_gets_a_suggestion_and_its_command_usage() {
    let run = run_cli(&["compile", "--out", "o"]);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    assert_has(&run.stderr, "unexpected argument '--out'");
    assert_has(&run.stderr, "a similar argument exists: '--out-dir'");
    assert_has(&run.stderr, "Usage: animus-hook compile ");
    assert_eq!(
        run.stderr.matches("animus-hook ").count(),
        1,
        "{}",
        run.stderr
    );
    assert!(run.stderr.lines().count() < 10, "{}", run.stderr);

    let run = run_cli(&["lnit"]);
    assert_eq!(run.code, Some(2));
    assert_has(&run.stderr, "a similar subcommand exists: 'lint'");
}

/// A flag given twice: the last one wins, as with the hand-written parser.
#[test]
fn a_repeated_flag_overrides_itself() {
    let run = run_cli(&["packs", "--json", "--json"]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    serde_json::from_str::<serde_json::Value>(&run.stdout).unwrap();
}

/// `args`, with stdout a pipe whose reading end is already closed: every write fails (EPIPE).
fn with_stdout_closed(args: &[&str]) -> std::process::Output {
    binary_with_stdout_closed(bin(), args)
}

fn binary_with_stdout_closed(binary: &str, args: &[&str]) -> std::process::Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    Command::new(binary)
        .args(args)
        .current_dir(repo())
        .stdin(Stdio::null())
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

/// `animus-hook demo | head -1`: a real pipe read for one line and then closed. Exit 0, and
/// nothing on stderr (no panic, no "Broken pipe").
#[test]
fn demo_into_head_ends_quietly() {
    let mut child = Command::new(bin())
        .arg("demo")
        .current_dir(repo())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("profile `"), "{first}");
    // The reader is dropped: the pipe's read end is closed.
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");

    // The same with no line read at all, so that the first write already fails.
    let output = with_stdout_closed(&["demo"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&output.stderr), "");
}

/// Every command that prints: a closed stdout is a quiet exit 0.
#[test]
fn a_closed_stdout_is_a_quiet_exit_0_everywhere() {
    let trader = "corpus/profiles/trader.yaml";
    for args in [
        &["packs"][..],
        &["packs", "--json"],
        &["help"],
        &["--help"],
        &["--version"],
        &["help", "compile"],
        &["lint", "--help"],
        &["completions", "bash"],
        &["completions", "zsh"],
        &["lint", "--config", trader, "--agent", "trader"],
        &["lint", "--config", trader, "--agent", "trader", "--json"],
        &[
            "test",
            "--config",
            trader,
            "--agent",
            "trader",
            "corpus/cases/trader.cases.yaml",
        ],
        &[
            "test",
            "--config",
            trader,
            "--agent",
            "trader",
            "--json",
            "corpus/cases/trader.cases.yaml",
        ],
        &[
            "import",
            "--claude-settings",
            "corpus/claude-settings/project.settings.json",
            "--agent",
            "a",
        ],
    ] {
        let output = with_stdout_closed(args);
        assert_eq!(
            output.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            !stderr.contains("panicked") && !stderr.contains("Broken pipe"),
            "{args:?}: {stderr}"
        );
    }
    // The lean binary's own help and version too.
    for args in [["--help"], ["--version"]] {
        let output = binary_with_stdout_closed(common::lean_bin(), &args);
        assert_eq!(output.status.code(), Some(0), "{args:?}");
        assert_eq!(String::from_utf8_lossy(&output.stderr), "", "{args:?}");
    }
}

/// `log --decision` takes any case and a comma list with spaces, as the hand-written parser
/// did; a value outside the four is a usage error naming them.
#[test]
fn log_decisions_take_any_case_and_spaces() {
    let state = common::temp_dir("log-decisions");
    let env = [("ANIMUS_CONFIG_DIR", state.to_str().unwrap())];
    let run = run_hook(&["log", "--decision", " Deny, ASK"], Some(b""), &env);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let run = run_hook(&["log", "--decision", "deny,maybe"], Some(b""), &env);
    assert_eq!(run.code, Some(2));
    assert_has(&run.stderr, "[possible values: deny, ask, allow, defer]");
}
