//! Claude's read-only knowledge: the Bash commands Claude Code runs with no permission rule at
//! all, as a conservative model the guard can use where its own answer would otherwise be
//! stricter than Claude's without any rule asking for it.
//!
//! A policy whose default is deny (an allowlist) refuses every command no allow entry covers.
//! Claude alone runs many of those unasked (`ls`, `cat`, `grep`, `find` without `-exec`,
//! `git status`, …; measured in `corpus/claude-readonly/table.json`). So when the default
//! would deny a Bash call, no rule matched it at all (no deny, ask, pack or self-protection
//! rule, no allow) and [`recognises`] says its command is read-only, the evaluators abstain
//! instead ([`crate::semantics::read_only_default`]): Claude then applies its own checks, which
//! ask about anything they do not run.
//!
//! # The model
//!
//! `readonly/model.json` lists programs (and for `git`, subcommands) with the options and words
//! that make them write or run other programs (`find -exec`, `sort -o`). A command is read-only
//! when it is a pipeline (`|` only) of simple commands that are each a listed program without
//! any of its listed options or words, and the whole text is plain: no `$`, backquote,
//! redirection, `;`, `&`, parentheses, braces, backslash, `~`, `!`, `#`, newline or control
//! character; no word that is an absolute path, reaches above the working directory (`..`), or
//! is a leading dot glob (`.*`). Anything else is not read-only — including what Claude would
//! in fact run: the model may only be narrower than Claude, never wider (checked against every
//! command Claude asked about in the measured table).
//!
//! # Cost
//!
//! The model is parsed once per process, and only when a default deny is about to answer a
//! Bash call; a plain scan of the command follows (no allocation beyond its words).

use std::collections::HashMap;
use std::sync::OnceLock;

use serde::Deserialize;

/// The model as data.
pub const MODEL_JSON: &str = include_str!("readonly/model.json");

#[derive(Debug, Default, Deserialize)]
struct Program {
    /// Options that make the program write or run something: a word equal to one, or
    /// starting with it and `=`; a short option (`-o`) also inside a cluster (`-uo`) or with
    /// its value attached (`-ofile`).
    #[serde(default)]
    options: Vec<String>,
    /// Words that make it write or run something wherever they stand (`find -exec`).
    #[serde(default)]
    words: Vec<String>,
    /// At most this many operands (words not starting with `-`); `uniq in out` writes `out`.
    #[serde(default)]
    max_operands: Option<usize>,
    /// When present, the only options allowed, each as a word of its own (no clusters, no
    /// attached values): Claude checks such programs' flags against a list of its own.
    #[serde(default)]
    flags: Option<Vec<String>>,
    /// When present, the first operand must be one of these, each with its own options.
    #[serde(default)]
    subcommands: Option<HashMap<String, Program>>,
}

#[derive(Debug, Deserialize)]
struct Model {
    #[allow(dead_code)]
    claude_version: String,
    programs: HashMap<String, Program>,
}

fn model() -> &'static Model {
    static MODEL: OnceLock<Model> = OnceLock::new();
    MODEL.get_or_init(|| {
        serde_json::from_str(MODEL_JSON).expect("readonly/model.json is valid (unit-tested)")
    })
}

/// The CLI version the model was measured on.
pub fn claude_version() -> &'static str {
    &model().claude_version
}

/// Characters that make a command more than a plain pipeline of words.
fn forbidden(c: char) -> bool {
    matches!(
        c,
        '$' | '`' | '>' | '<' | ';' | '&' | '(' | ')' | '{' | '}' | '\\' | '~' | '!' | '#'
    ) || c.is_control()
}

/// Is `command` one the model says Claude runs unasked (read-only, inside the working
/// directory)? Conservative: `false` for anything it cannot be sure of.
pub fn recognises(command: &str) -> bool {
    if command.len() > 4096 || !command.is_ascii() || command.chars().any(forbidden) {
        return false;
    }
    let Some(words) = split_words(command) else {
        return false;
    };
    let mut stages = words.split(|w| w.pipe);
    stages.all(|stage| {
        let words: Vec<&str> = stage.iter().map(|w| w.text.as_str()).collect();
        simple_command_is_read_only(&words)
    })
}

struct Word {
    text: String,
    /// A `|` between stages (unquoted).
    pipe: bool,
}

/// The words of `command` with quotes removed, `|` as its own word; `None` for an unbalanced
/// quote, a `||`, or an unquoted glob character (`*`, `?`, `[`, `]`: the shell would expand it
/// before the program runs, and Claude asks about such words).
fn split_words(command: &str) -> Option<Vec<Word>> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut in_word = false;
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' | '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some(q) if q == c => break,
                        Some(other) => current.push(other),
                        None => return None,
                    }
                }
            }
            '|' => {
                if chars.peek() == Some(&'|') {
                    return None;
                }
                if in_word {
                    words.push(Word {
                        text: std::mem::take(&mut current),
                        pipe: false,
                    });
                    in_word = false;
                }
                words.push(Word {
                    text: String::new(),
                    pipe: true,
                });
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(Word {
                        text: std::mem::take(&mut current),
                        pipe: false,
                    });
                    in_word = false;
                }
            }
            '*' | '?' | '[' | ']' => return None,
            c => {
                in_word = true;
                current.push(c);
            }
        }
    }
    if in_word {
        words.push(Word {
            text: current,
            pipe: false,
        });
    }
    Some(words)
}

/// A word that names a place outside the working directory, or may.
fn leaves_working_directory(word: &str) -> bool {
    let value = match word.split_once('=') {
        Some((option, value)) if option.starts_with('-') => value,
        _ => word,
    };
    value.starts_with('/')
        || value.starts_with('.') && value[1..].starts_with(['*', '?', '['])
        || value.contains("/.*")
        || value.split('/').any(|part| part == "..")
        || word.starts_with('-') && word.contains('/') && !word.contains('=')
}

fn simple_command_is_read_only(words: &[&str]) -> bool {
    let Some((program, args)) = words.split_first() else {
        return false;
    };
    let Some(spec) = model().programs.get(*program) else {
        return false;
    };
    if args
        .iter()
        .any(|w| w.is_empty() || leaves_working_directory(w))
    {
        return false;
    }
    arguments_are_read_only(spec, args)
}

fn arguments_are_read_only(spec: &Program, args: &[&str]) -> bool {
    if let Some(subcommands) = &spec.subcommands {
        // The subcommand must come first: a global option (`git -C dir`, `git -c k=v`) is
        // not modelled.
        let Some((first, rest)) = args.split_first() else {
            return false;
        };
        return subcommands
            .get(*first)
            .is_some_and(|sub| arguments_are_read_only(sub, rest));
    }
    if let Some(flags) = &spec.flags
        && args
            .iter()
            .any(|w| w.starts_with('-') && !flags.iter().any(|f| f == w))
    {
        return false;
    }
    if args.iter().any(|w| spec.words.iter().any(|d| d == w)) {
        return false;
    }
    if args
        .iter()
        .any(|w| spec.options.iter().any(|o| option_used(w, o)))
    {
        return false;
    }
    if let Some(max) = spec.max_operands {
        // After `--` every word is an operand.
        let operands = args.iter().filter(|w| !w.starts_with('-')).count();
        if operands > max || args.contains(&"--") {
            return false;
        }
    }
    true
}

/// Does `word` use `option`?
fn option_used(word: &str, option: &str) -> bool {
    if word == option {
        return true;
    }
    if option.starts_with("--") {
        return word
            .strip_prefix(option)
            .is_some_and(|rest| rest.starts_with('='));
    }
    // A short option: alone, in a cluster (`-uo`), or with its value attached (`-ofile`).
    let letter = &option[1..];
    word.starts_with('-') && !word.starts_with("--") && word[1..].contains(letter)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The law, over the measured table (`corpus/claude-readonly/table.json`): no command
    /// Claude asked about or refused with no rule is one the model recognises.
    #[test]
    fn never_looser_than_the_measured_table() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../corpus/claude-readonly/table.json"
        );
        let text = std::fs::read_to_string(path).expect("the measured table");
        let table: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(table["claude_version"], claude_version());
        let (mut ran, mut recognised, mut looser) = (0, 0, Vec::new());
        for row in table["commands"].as_array().unwrap() {
            let command = row["command"].as_str().unwrap();
            let read_only = recognises(command);
            if row["claude"] == "ran" {
                ran += 1;
                recognised += usize::from(read_only);
            } else if read_only {
                looser.push(format!("{command:?}: {}", row["message"]));
            }
        }
        println!("{ran} ran unasked, {recognised} of them recognised");
        assert!(looser.is_empty(), "{}", looser.join("\n"));
        assert!(ran > 0 && recognised * 3 >= ran, "{recognised} of {ran}");
    }

    #[test]
    fn the_model_parses() {
        assert!(!model().programs.is_empty());
        assert_eq!(claude_version(), "2.1.328");
    }

    #[test]
    fn read_only_commands() {
        for command in [
            "ls -la",
            "cat README.md",
            "grep -rn 'foo bar' src",
            "find . -name '*.rs' -type f",
            "find src -type d | sort",
            "git status",
            "git log --oneline -5",
            "wc -l src/main.rs",
            "sort -u names.txt",
        ] {
            assert!(recognises(command), "{command}");
        }
    }

    #[test]
    fn anything_that_may_write_run_or_leave_is_not() {
        for command in [
            "find . -name x -exec rm {} +",
            "find . -delete",
            "sort -o out.txt in.txt",
            "sort -uo out.txt in.txt",
            "sort --output=out.txt in.txt",
            "sort -nrk 2,2",
            "uniq -w12 -c file",
            "uniq in.txt out.txt",
            "cat /etc/passwd",
            "cat ../secret",
            "cat ~/.ssh/id_rsa",
            "ls .*",
            "ls > out.txt",
            "cat x; rm y",
            "cat x && rm y",
            "cat x || rm y",
            "cat $(rm y)",
            "cat `rm y`",
            "git push",
            "git -C .. status",
            "git diff --output=x",
            "rm -rf x",
            "echo 'unterminated",
            "grep --file=/etc/shadow x",
            "tail -f log",
            "cat x | sh",
            "file * | grep ASCII",
            "find . \u{2013}name '*.txt'",
            "pwd -P",
            "cat file1.txt | grep -Fvf file2.txt",
            "",
        ] {
            assert!(!recognises(command), "{command}");
        }
    }
}
