//! From the simple commands a parse found to the segment texts rules are matched against.
//!
//! A [`SimpleCommand`] is what the parser hands over: its leading assignments, its words after
//! quote removal, its redirections, and whether anything in it could not be resolved to text
//! (an expansion in the program position, a word the parser could not read). This module
//! normalises it and peels wrappers, producing a [`Segment`]:
//!
//! - **generous** texts, for deny and ask: every peel stage (`sudo -u x env A=1 rm -rf /`,
//!   `env A=1 rm -rf /`, `rm -rf /`), each also with the program reduced to its basename
//!   (`/usr/bin/rm` → `rm`), and the redirections appended as written. A deny matches when any
//!   of them matches, so a wrapper cannot hide a command, and a deny on the wrapper itself
//!   (`Bash(sudo:*)`) still sees it.
//! - **strict** texts, for allow: the segment as written, and after the peels Claude itself
//!   applies (`VAR=` prefixes, `timeout`, `time`, `nice`, `nohup`, `stdbuf`, `command`, a bare
//!   `xargs`), program never reduced; none at all when the segment cannot be covered (an
//!   expansion as the program, a redirection to a file, a construct not resolved).

use std::borrow::Cow;

/// A redirection of a simple command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Redirect {
    /// As written, normalised (`2>&1`, `>/dev/null`, `> out.txt`).
    pub text: String,
    /// Does not write or read a file: a descriptor duplication or close (`2>&1`, `>&-`), or
    /// `/dev/null`.
    pub harmless: bool,
    /// The file it writes (`>`, `>>`, `>|`, `&>`, `&>>` to a literal path).
    pub writes: Option<String>,
}

/// A word after quote removal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word<'a> {
    /// The text: literal parts unquoted, expansions kept as written (`$HOME`, `$(date)`);
    /// borrowed from the command when it is written there as is (most words).
    pub text: Cow<'a, str>,
    /// The word holds no expansion: its text is exactly what the program receives.
    pub literal: bool,
}

/// One simple command as the parser found it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SimpleCommand<'a> {
    /// Leading `NAME=value` words.
    pub assignments: Vec<String>,
    /// Program and arguments.
    pub words: Vec<Word<'a>>,
    /// Redirections, in order.
    pub redirects: Vec<Redirect>,
    /// Something in the command could not be resolved (the segment is never covered).
    pub unresolved: bool,
    /// The words of its `<<<` here-strings.
    pub here_strings: Vec<Word<'a>>,
    /// Found in inline code or a written script: seen by deny and ask only.
    pub deny_only: bool,
}

/// One segment: the texts rules are matched against.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Segment {
    /// Texts for deny and ask (any may match).
    pub generous: Vec<String>,
    /// Texts for allow (a rule matching any of them covers the segment); empty when the
    /// segment cannot be covered.
    pub strict: Vec<String>,
    /// Seen only by deny and ask: a command that may run, found in a string of inline code
    /// (`awk 'BEGIN{system("rm -rf x")}'`, `python -c "os.system('…')"`) or in a script file
    /// the same command writes and then runs. Allow rules neither need nor may cover it:
    /// the command that runs it is covered (or not) on its own.
    pub deny_only: bool,
}

/// The basename of a program path (`/usr/bin/rm` → `rm`; `rm` stays).
pub fn basename(program: &str) -> &str {
    match program.rfind('/') {
        Some(i) if i + 1 < program.len() => &program[i + 1..],
        _ => program,
    }
}

/// Is `word` a `NAME=value` assignment?
pub fn is_assignment(word: &str) -> bool {
    match word.find('=') {
        Some(0) | None => false,
        Some(eq) => {
            let name = &word[..eq];
            let name = name.strip_suffix('+').unwrap_or(name);
            !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        }
    }
}

/// How a wrapper's options are read.
struct Wrapper {
    /// The program name (basename).
    name: &'static str,
    /// Short options that take a value in the next word (or attached: `-uroot`).
    short_with_value: &'static str,
    /// Long options that take a value in the next word unless written `--opt=value`.
    long_with_value: &'static [&'static str],
    /// Positional words to skip after the options (`timeout`'s duration).
    positional: usize,
    /// `NAME=value` words after the options are skipped too (`env`).
    assignments: bool,
    /// Claude itself peels this wrapper when matching allow rules (only when written
    /// without options, except the ones in `claude_options_ok`).
    claude_peels: bool,
}

const WRAPPERS: &[Wrapper] = &[
    Wrapper {
        name: "busybox",
        short_with_value: "",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "pkexec",
        short_with_value: "",
        long_with_value: &["--user"],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "runuser",
        short_with_value: "ugGcs",
        long_with_value: &["--user", "--group", "--supp-group", "--command", "--shell"],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "watch",
        short_with_value: "dnq",
        long_with_value: &["--differences", "--interval", "--equexit"],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "setsid",
        short_with_value: "",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "chrt",
        short_with_value: "",
        long_with_value: &[],
        positional: 1,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "taskset",
        short_with_value: "",
        long_with_value: &[],
        positional: 1,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "sudo",
        short_with_value: "ugCDhprtTU",
        long_with_value: &[
            "--user",
            "--group",
            "--close-from",
            "--chdir",
            "--host",
            "--prompt",
            "--role",
            "--type",
            "--other-user",
            "--command-timeout",
            "--chroot",
        ],
        positional: 0,
        assignments: true,
        claude_peels: false,
    },
    Wrapper {
        name: "doas",
        short_with_value: "uC",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "env",
        short_with_value: "uCS",
        long_with_value: &[
            "--unset",
            "--chdir",
            "--split-string",
            "--default-signal",
            "--ignore-signal",
            "--block-signal",
        ],
        positional: 0,
        assignments: true,
        claude_peels: false,
    },
    Wrapper {
        name: "command",
        short_with_value: "",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: true,
    },
    Wrapper {
        name: "builtin",
        short_with_value: "",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: true,
    },
    Wrapper {
        name: "noglob",
        short_with_value: "",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: true,
    },
    Wrapper {
        name: "exec",
        short_with_value: "a",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "nohup",
        short_with_value: "",
        long_with_value: &[],
        positional: 0,
        assignments: false,
        claude_peels: true,
    },
    Wrapper {
        name: "nice",
        short_with_value: "n",
        long_with_value: &["--adjustment"],
        positional: 0,
        assignments: false,
        claude_peels: true,
    },
    Wrapper {
        name: "timeout",
        short_with_value: "sk",
        long_with_value: &["--signal", "--kill-after"],
        positional: 1,
        assignments: false,
        claude_peels: true,
    },
    Wrapper {
        name: "time",
        short_with_value: "fo",
        long_with_value: &["--format", "--output"],
        positional: 0,
        assignments: false,
        claude_peels: true,
    },
    Wrapper {
        name: "stdbuf",
        short_with_value: "ioe",
        long_with_value: &["--input", "--output", "--error"],
        positional: 0,
        assignments: false,
        claude_peels: true,
    },
    Wrapper {
        name: "ionice",
        short_with_value: "cnpPu",
        long_with_value: &["--class", "--classdata", "--pid", "--pgid", "--uid"],
        positional: 0,
        assignments: false,
        claude_peels: false,
    },
    Wrapper {
        name: "xargs",
        short_with_value: "adEeIiLlnPs",
        long_with_value: &[
            "--arg-file",
            "--delimiter",
            "--eof",
            "--replace",
            "--max-lines",
            "--max-args",
            "--max-procs",
            "--max-chars",
            "--process-slot-var",
        ],
        positional: 0,
        assignments: false,
        claude_peels: true,
    },
];

impl Word<'_> {
    /// The same word, owning its text.
    pub fn into_owned<'b>(self) -> Word<'b> {
        Word {
            text: Cow::Owned(self.text.into_owned()),
            literal: self.literal,
        }
    }
}

impl SimpleCommand<'_> {
    /// The same command, owning its texts (for commands parsed from a text that does not
    /// outlive the parse: a backquoted body, a `-c` string, a here-document).
    pub fn into_owned<'b>(self) -> SimpleCommand<'b> {
        SimpleCommand {
            assignments: self.assignments,
            words: self.words.into_iter().map(Word::into_owned).collect(),
            redirects: self.redirects,
            unresolved: self.unresolved,
            here_strings: self
                .here_strings
                .into_iter()
                .map(Word::into_owned)
                .collect(),
            deny_only: self.deny_only,
        }
    }
}

/// Where the wrapped command starts in `words` (whose first word is the wrapper `w`), or
/// `None` when nothing is wrapped (`sudo -l`, `env` alone).
fn wrapped_start(w: &Wrapper, words: &[&str]) -> Option<usize> {
    let mut i = 1;
    while i < words.len() {
        let word = words[i];
        if word == "--" {
            i += 1;
            break;
        }
        if let Some(long) = word.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or(long);
            let takes_value = w.long_with_value.iter().any(|o| o[2..] == *name);
            i += if takes_value && !long.contains('=') {
                2
            } else {
                1
            };
            continue;
        }
        // `nice -5`, `nice -n 5`, `sudo -uroot`, `xargs -0`, `xargs -n1`.
        if word.len() > 1 && word.starts_with('-') {
            let flags = &word[1..];
            let mut skip = 1;
            for (at, c) in flags.char_indices() {
                if w.short_with_value.contains(c) {
                    if at + c.len_utf8() == flags.len() {
                        skip = 2;
                    }
                    break;
                }
            }
            i += skip;
            continue;
        }
        if w.assignments && is_assignment(word) {
            i += 1;
            continue;
        }
        break;
    }
    if w.name == "xargs" {
        // xargs runs `echo` when given no command; nothing to peel into.
        return (i < words.len()).then_some(i);
    }
    let start = i + w.positional;
    (start < words.len()).then_some(start)
}

/// Shells whose `-c` string, here-document or here-string is a script they run.
const SHELLS: &[&str] = &["sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish"];

/// Variables that may prefix a command Claude's allow rules cover: they change no program's
/// behaviour in a way that runs other code. Any other assignment (`PATH=`, `LD_PRELOAD=`,
/// `GIT_SSH_COMMAND=`, `PAGER=`…) leaves only the as-written text to cover.
const SAFE_VARIABLES: &[&str] = &[
    "CI",
    "DEBUG",
    "FORCE_COLOR",
    "LANG",
    "LC_ALL",
    "NODE_ENV",
    "NO_COLOR",
    "PYTHONUNBUFFERED",
    "RUST_BACKTRACE",
    "RUST_LOG",
    "TERM",
    "TZ",
];

/// What a simple command runs besides itself.
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

/// Every peel stage of `words` (the words themselves, then each wrapped command).
fn peel_stages<'w>(words: &'w [&'w str]) -> Vec<&'w [&'w str]> {
    let mut stages = vec![words];
    let mut rest = words;
    while let Some(first) = rest.first() {
        let name = basename(first);
        let Some(wrapper) = WRAPPERS.iter().find(|w| w.name == name) else {
            break;
        };
        let Some(start) = wrapped_start(wrapper, rest) else {
            break;
        };
        rest = &rest[start..];
        stages.push(rest);
        if stages.len() > 16 {
            break;
        }
    }
    stages
}

/// Does the command (after its wrappers) run a shell that reads its script from stdin (no
/// `-c`, no script file)?
pub fn reads_script_from_stdin(command: &SimpleCommand) -> bool {
    let words: Vec<&str> = command.words.iter().map(|w| w.text.as_ref()).collect();
    peel_stages(&words).into_iter().any(|stage| {
        stage.first().is_some_and(|p| SHELLS.contains(&basename(p)))
            && stage[1..]
                .iter()
                .all(|w| w.starts_with('-') && !w.contains('c'))
    })
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

/// The segment of one simple command.
pub fn segment_of(command: &SimpleCommand) -> Segment {
    let words: Vec<&str> = command.words.iter().map(|w| w.text.as_ref()).collect();
    let redirects: Vec<&str> = command.redirects.iter().map(|r| r.text.as_str()).collect();
    let mut segment = Segment {
        deny_only: command.deny_only,
        generous: Vec::with_capacity(2),
        strict: Vec::with_capacity(1),
    };
    let push_generous = |texts: &mut Vec<String>, words: &[&str]| {
        if words.is_empty() {
            return;
        }
        let joined = words.join(" ");
        let base = basename(words[0]);
        let based = if base.len() != words[0].len() {
            Some(
                std::iter::once(base)
                    .chain(words[1..].iter().copied())
                    .collect::<Vec<_>>()
                    .join(" "),
            )
        } else {
            None
        };
        for text in std::iter::once(joined).chain(based) {
            let with = (!redirects.is_empty()).then(|| format!("{text} {}", redirects.join(" ")));
            for text in std::iter::once(text).chain(with) {
                if !texts.contains(&text) {
                    texts.push(text);
                }
            }
        }
    };

    // Generous: the assignments as written, then every peel stage.
    if !command.assignments.is_empty() {
        let all: Vec<&str> = command
            .assignments
            .iter()
            .map(String::as_str)
            .chain(words.iter().copied())
            .collect();
        push_generous(&mut segment.generous, &all);
    }
    for stage in peel_stages(&words) {
        push_generous(&mut segment.generous, stage);
        // `$HOME`, `${HOME}` and `~` name the same directory: a deny written with one sees
        // the others.
        if stage
            .iter()
            .any(|w| w.contains("HOME") || w.starts_with('~'))
        {
            for (from, to) in [("${HOME}", "~"), ("$HOME", "~"), ("~", "$HOME")] {
                if stage.iter().any(|w| w.contains(from)) {
                    let respelled: Vec<String> =
                        stage.iter().map(|w| w.replacen(from, to, 1)).collect();
                    let respelled: Vec<&str> = respelled.iter().map(String::as_str).collect();
                    push_generous(&mut segment.generous, &respelled);
                }
            }
        }
    }

    // A command of redirections alone (`> file` truncates it, `< file` reads it) is seen as
    // its redirections.
    if words.is_empty() && command.assignments.is_empty() && !redirects.is_empty() {
        segment.generous.push(redirects.join(" "));
    }

    // Strict: as written, then Claude's own peels.
    let coverable = !command.deny_only
        && !command.unresolved
        && command.words.first().is_some_and(|w| w.literal)
        && command.redirects.iter().all(|r| r.harmless);
    if coverable && !command.assignments.is_empty() {
        let written: Vec<&str> = command
            .assignments
            .iter()
            .map(String::as_str)
            .chain(words.iter().copied())
            .collect();
        segment.strict.push(written.join(" "));
    }
    let safe_assignments = command.assignments.iter().all(|a| {
        let name = a.split(['=', '[', '+']).next().unwrap_or(a);
        SAFE_VARIABLES.contains(&name)
    });
    if coverable && safe_assignments {
        let mut rest: &[&str] = &words;
        loop {
            let text = rest.join(" ");
            if !segment.strict.contains(&text) {
                segment.strict.push(text);
            }
            let Some(first) = rest.first() else { break };
            let Some(wrapper) = WRAPPERS.iter().find(|w| w.claude_peels && w.name == *first) else {
                break;
            };
            // A bare `xargs` only: with options it changes what runs.
            if wrapper.name == "xargs" && rest.get(1).is_some_and(|w| w.starts_with('-')) {
                break;
            }
            let Some(start) = wrapped_start(wrapper, rest) else {
                break;
            };
            rest = &rest[start..];
        }
    }
    segment
}

#[cfg(test)]
mod tests {
    use super::*;

    fn command(words: &[&str]) -> SimpleCommand<'static> {
        let mut c = SimpleCommand::default();
        for w in words {
            if c.words.is_empty() && is_assignment(w) {
                c.assignments.push(w.to_string());
            } else {
                c.words.push(Word {
                    text: Cow::Owned(w.to_string()),
                    literal: !w.contains('$'),
                });
            }
        }
        c
    }

    #[test]
    fn wrappers_peel_generously() {
        let s = segment_of(&command(&[
            "sudo",
            "-u",
            "root",
            "-E",
            "/usr/bin/rm",
            "-rf",
            "/",
        ]));
        assert!(s.generous.contains(&"rm -rf /".to_string()), "{s:?}");
        assert!(
            s.generous
                .contains(&"sudo -u root -E /usr/bin/rm -rf /".to_string())
        );
        assert!(s.strict.is_empty() || !s.strict.contains(&"rm -rf /".to_string()));
        let s = segment_of(&command(&[
            "A=1", "env", "-i", "B=2", "nice", "-n", "5", "timeout", "-s", "KILL", "10", "xargs",
            "-0", "rm",
        ]));
        assert!(s.generous.contains(&"rm".to_string()), "{s:?}");
        assert!(
            s.generous
                .contains(&"A=1 env -i B=2 nice -n 5 timeout -s KILL 10 xargs -0 rm".to_string())
        );
    }

    #[test]
    fn claude_peels_strictly() {
        let s = segment_of(&command(&["timeout", "10", "git", "status"]));
        assert_eq!(s.strict, ["timeout 10 git status", "git status"]);
        let s = segment_of(&command(&["sudo", "git", "status"]));
        assert_eq!(s.strict, ["sudo git status"]);
        let s = segment_of(&command(&["xargs", "-0", "rm"]));
        assert_eq!(s.strict, ["xargs -0 rm"]);
        let s = segment_of(&command(&["$CMD", "x"]));
        assert!(s.strict.is_empty());
        assert!(s.generous.contains(&"$CMD x".to_string()));
        let s = segment_of(&command(&["FOO=1", "git", "status"]));
        assert_eq!(s.strict, ["FOO=1 git status"]);
        let s = segment_of(&command(&["NODE_ENV=test", "git", "status"]));
        assert_eq!(s.strict, ["NODE_ENV=test git status", "git status"]);
    }

    #[test]
    fn assignments() {
        assert!(is_assignment("A=1") && is_assignment("a_b+=x") && is_assignment("X="));
        assert!(!is_assignment("=x") && !is_assignment("1A=x") && !is_assignment("a-b=x"));
        assert!(!is_assignment("--opt=x"));
    }
}
