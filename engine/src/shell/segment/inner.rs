//! What a simple command runs besides itself: `-c` strings, `eval`, `find -exec`, inline
//! code, scripts read from stdin or a file.

use super::wrappers::{WRAPPERS, peel_stages};
use super::{SimpleCommand, Word, basename};

/// Shells whose `-c` string, here-document or here-string is a script they run.
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"];

#[derive(Debug, Default)]
pub struct Inner {
    /// Script texts it runs (`bash -c 'S'`, `eval S`, `su -c S`, `bash <<< S`).
    pub scripts: Vec<String>,
    /// Commands it runs (`find … -exec CMD {} ;`).
    pub commands: Vec<SimpleCommand<'static>>,
    /// Strings of inline code it runs (`awk '…'`, `python -c '…'`, `perl -e '…'`): each may
    /// hold a shell command (`system("rm -rf x")`), parsed for deny and ask only.
    pub code_strings: Vec<String>,
    /// It runs a script that is not a literal (`bash -c "$X"`, `eval "$CMD"`).
    pub unresolved: bool,
}

/// Does the command (after its wrappers) run a shell that reads its script from stdin (no
/// `-c`, no script file)?
pub fn reads_script_from_stdin(command: &SimpleCommand) -> bool {
    let words: Vec<&str> = command.words.iter().map(|w| w.text.as_ref()).collect();
    peel_stages(&words).into_iter().any(|stage| {
        stage.first().is_some_and(|p| SHELLS.contains(&basename(p)))
            && stage[1..]
                .iter()
                .all(|w| w.starts_with('-') && !is_command_option(w))
    })
}

/// A shell option word that gives the script as an argument: `-c`, or a cluster holding `c`
/// (`-ec`, `-lc`). A long option (`--norc`, `--rcfile`) is not one.
fn is_command_option(word: &str) -> bool {
    word.starts_with('-') && !word.starts_with("--") && word.contains('c')
}

/// Interpreters that read commands from their stdin when given no operand (a REPL).
const REPLS: &[&str] = &[
    "python", "node", "nodejs", "deno", "bun", "ruby", "irb", "perl", "php", "lua", "tclsh",
    "wish", "R", "julia", "ghci", "psql", "mysql", "sqlite3", "gdb",
];

/// The program of `command` (after its wrappers) that would read commands from a terminal: a
/// shell reading its script from stdin, or an interpreter given no operand, whose stdin is not
/// redirected, a here-string or a pipe. (Codex's `write_stdin` tool feeds such a program input
/// that no hook sees.)
pub fn reads_commands_from_a_terminal<'c>(command: &'c SimpleCommand) -> Option<&'c str> {
    let stdin_given = command.stdin_piped
        || !command.here_strings.is_empty()
        || command.redirects.iter().any(|r| {
            r.text
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .starts_with('<')
        });
    if stdin_given {
        return None;
    }
    let words: Vec<&str> = command.words.iter().map(|w| w.text.as_ref()).collect();
    let stage = peel_stages(&words).into_iter().find(|stage| {
        let Some(program) = stage.first().map(|p| basename(p)) else {
            return false;
        };
        let options_only = stage[1..].iter().all(|w| w.starts_with('-'));
        let repl = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        (SHELLS.contains(&program)
            && options_only
            && !stage[1..].iter().any(|w| is_command_option(w)))
            || (REPLS.contains(&repl) && options_only)
    })?;
    let program = basename(stage.first()?);
    command
        .words
        .iter()
        .map(|w| basename(&w.text))
        .find(|w| *w == program)
}

/// Programs that run a script, inline code or another command given as arguments.
const RUNNERS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "su", "script", "runuser", "eval",
    "find", "python", "python2", "python3", "perl", "ruby", "node", "nodejs", "deno", "bun", "php",
    "awk", "gawk", "mawk", "nawk",
];

/// The scripts and commands `command` runs.
pub fn inner_commands(command: &SimpleCommand) -> Inner {
    let mut inner = Inner::default();
    // Most commands run nothing but themselves: decide that without allocating.
    let runs_something = command.words.first().is_some_and(|w| {
        let name = basename(&w.text);
        RUNNERS.contains(&name) || WRAPPERS.iter().any(|wrapper| wrapper.name == name)
    });
    if !runs_something && command.here_strings.is_empty() {
        return inner;
    }
    let words: Vec<&str> = command.words.iter().map(|w| w.text.as_ref()).collect();
    let literal: Vec<bool> = command.words.iter().map(|w| w.literal).collect();
    let script = |inner: &mut Inner, index: usize| {
        if literal[index] {
            inner.scripts.push(words[index].to_string());
        } else {
            inner.unresolved = true;
        }
    };
    for stage in peel_stages(&words) {
        let offset = words.len() - stage.len();
        let Some(program) = stage.first().map(|p| basename(p)) else {
            continue;
        };
        if SHELLS.contains(&program) || matches!(program, "su" | "script" | "runuser") {
            // The first operand after an option cluster holding `c`.
            let mut seen_c = false;
            for (i, word) in stage.iter().enumerate().skip(1) {
                if seen_c && !word.starts_with(['-', '+']) {
                    script(&mut inner, offset + i);
                    break;
                }
                if (word.starts_with('-') && !word.starts_with("--") && word.contains('c'))
                    || *word == "--command"
                {
                    seen_c = true;
                } else if !word.starts_with(['-', '+']) && !seen_c {
                    break;
                }
            }
            if SHELLS.contains(&program) && stage[1..].iter().all(|w| w.starts_with('-')) {
                for here in &command.here_strings {
                    if here.literal {
                        inner.scripts.push(here.text.to_string());
                    } else {
                        inner.unresolved = true;
                    }
                }
            }
        }
        if program == "eval" && stage.len() > 1 {
            if (offset + 1..words.len()).all(|i| literal[i]) {
                inner.scripts.push(stage[1..].join(" "));
            } else {
                inner.unresolved = true;
            }
        }
        // Inline code: its string literals may be shell commands it runs.
        let code_flag: Option<&[&str]> = match program {
            "python" | "python2" | "python3" => Some(&["-c"]),
            "perl" | "ruby" => Some(&["-e", "-E"]),
            "node" | "nodejs" | "deno" | "bun" => Some(&["-e", "-p", "--eval", "--print"]),
            "php" => Some(&["-r"]),
            _ => None,
        };
        let code = match code_flag {
            Some(flags) => stage
                .iter()
                .position(|w| flags.contains(w))
                .and_then(|i| stage.get(i + 1)),
            None if matches!(program, "awk" | "gawk" | "mawk" | "nawk") => {
                stage.iter().skip(1).find(|w| !w.starts_with('-'))
            }
            None => None,
        };
        if let Some(code) = code {
            inner.code_strings.extend(string_literals(code));
        }
        if program == "find" {
            let mut i = 1;
            while i < stage.len() {
                if matches!(stage[i], "-exec" | "-execdir" | "-ok" | "-okdir") {
                    let end = (i + 1..stage.len())
                        .find(|&j| matches!(stage[j], ";" | "+"))
                        .unwrap_or(stage.len());
                    if end > i + 1 {
                        inner.commands.push(SimpleCommand {
                            words: command.words[offset + i + 1..offset + end]
                                .iter()
                                .cloned()
                                .map(Word::into_owned)
                                .collect(),
                            ..Default::default()
                        });
                    }
                    i = end;
                }
                i += 1;
            }
        }
    }
    inner
}

/// The script file `command` runs, if it runs one: `sh F`, `bash -x F`, `source F`, `. F`,
/// `./F`.
pub fn script_file_run<'c>(command: &'c SimpleCommand<'_>) -> Option<&'c str> {
    let program = command.words.first().filter(|w| w.literal)?.text.as_ref();
    let operand = || {
        command
            .words
            .iter()
            .skip(1)
            .find(|w| !w.text.starts_with('-'))
            .filter(|w| w.literal)
            .map(|w| w.text.as_ref())
    };
    if SHELLS.contains(&basename(program)) || matches!(program, "source" | ".") {
        operand()
    } else if program.contains('/') {
        Some(program)
    } else {
        None
    }
}

/// The contents of the `'…'` and `"…"` literals in a piece of inline code (no escapes
/// decoded: what matters is the command text inside).
pub fn string_literals(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(open) = rest.find(['\'', '"']) {
        let quote = rest.as_bytes()[open] as char;
        let body = &rest[open + 1..];
        match body.find(quote) {
            Some(close) => {
                if body[..close].trim().contains(' ') {
                    out.push(body[..close].to_string());
                }
                rest = &body[close + 1..];
            }
            None => break,
        }
    }
    out
}
