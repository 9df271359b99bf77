//! From the simple commands a parse found to the segment texts rules are matched against.
//!
//! A [`SimpleCommand`] is what the parser hands over: its leading assignments, its words after
//! quote removal, its redirections, and whether anything in it could not be resolved to text
//! (an expansion in the program position, a word the parser could not read). This module
//! normalises it and peels wrappers, producing a [`Segment`]:
//!
//! - **generous** texts, for deny and ask: every peel stage (`sudo -u x env A=1 rm -rf /`,
//!   `env A=1 rm -rf /`, `rm -rf /`), each also with the program reduced to its basename
//!   (`/usr/bin/rm` → `rm`), short options merged (`rm -r -f` → `rm -rf`), the normal form of
//!   programs with an option table (`options`: `rm -fr` → `rm --force --recursive`, `git -C d
//!   reset --har` → `git reset --hard`), and the redirections appended as written. A deny
//!   matches when any of them matches, so a wrapper cannot hide a command, and a deny on the
//!   wrapper itself (`Bash(sudo:*)`) still sees it.
//! - **strict** texts, for allow: the segment as written, and after the peels Claude itself
//!   applies (`VAR=` prefixes, `timeout`, `time`, `nice`, `nohup`, `stdbuf`, `command`, a bare
//!   `xargs`), program never reduced; none at all when the segment cannot be covered (an
//!   expansion as the program, a redirection to a file, a construct not resolved).

use std::borrow::Cow;

pub mod code;
mod expand;
mod feeders;
mod inner;
mod names;
mod options;
mod options_git;
pub mod subcommands;
mod wrappers;

pub use inner::{
    Inner, StdinProgram, downloaded_files, find_action_commands, inner_commands, literal_output,
    process_substitution_output, reads_commands_from_a_terminal, reads_script_from_stdin,
    script_file_run, sql_segment, stdin_program, string_literals,
};
pub(crate) use options::normal_form;
use subcommands::subcommand;
pub(crate) use wrappers::is_parallel_separator;
use wrappers::{WRAPPERS, peel_stages, wrapped_start};

/// Is `program` (a basename) a wrapper this module peels (`sudo`, `env`, `xargs`, …) or a
/// runner of a command after a subcommand (`uv run`, `bundle exec`, …)?
pub(crate) fn is_wrapper(program: &str) -> bool {
    wrappers::WRAPPER_SET.contains(program) || wrappers::RUNNER_SET.contains(program)
}

/// Every peel stage of `words`: the words, then each command a wrapper in front runs
/// (`sudo -u x env A=1 rm -rf /` → `env A=1 rm -rf /` → `rm -rf /`).
pub(crate) fn stages<'w>(words: &'w [&'w str]) -> impl Iterator<Item = &'w [&'w str]> {
    peel_stages(words)
}

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
    /// The file a writing redirection names, as written, expansions kept (`~/.bashrc`,
    /// `$HOME/.profile`, `"$D/x"`): what the deletion and write targets resolve.
    pub written_as: Option<String>,
}

/// A word after quote removal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Word<'a> {
    /// The text: literal parts unquoted, expansions kept as written (`$HOME`, `$(date)`);
    /// borrowed from the command when it is written there as is (most words).
    pub text: Cow<'a, str>,
    /// The word holds no expansion: its text is exactly what the program receives.
    pub literal: bool,
    /// The word is one double-quoted string and nothing more (`"$(cat <<'EOF' … EOF)"`):
    /// whatever its expansions make, the program receives it as one argument.
    pub quoted: bool,
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
    /// Its stdin is a pipe from the command before it in a pipeline (`a | b`).
    pub stdin_piped: bool,
    /// The simple command whose output the pipe carries (by index among the commands of the
    /// same parse), when that is one simple command (`echo … | sh`); resolved and cleared at
    /// the end of the parse.
    pub fed_by: Option<usize>,
    /// The bodies of its here-documents, each with whether it is literal (no expansion runs
    /// in it): what `cat <<EOF` writes.
    pub heredoc_bodies: Vec<(String, bool)>,
    /// It runs text the guard cannot read (`curl … | sh`, `eval "$X"`, `trap "$X" EXIT`):
    /// why, in a phrase. Under a rule that governs the shell this is at least an ask.
    pub opaque: Option<String>,
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
    /// It runs text the guard cannot read: why ([`SimpleCommand::opaque`]).
    pub opaque: Option<String>,
    /// Where a generous text holds whitespace inside one word (`git commit -m "ignore .env
    /// files"` hands git one word with spaces): `(index in generous, byte offset)`, sorted.
    /// Path rules read a command's words from its generous texts ([`crate::ReadText`]); these
    /// do not end a word. Empty (no allocation) when no word holds whitespace.
    pub inner_spaces: Vec<(u32, u32)>,
    /// How many of the last generous texts are deletion target texts (`@rm-target …`,
    /// [`crate::targets`]), not the command's words: path rules read each as its path alone.
    /// Known by position, never by the text (a command may be named `@rm-target`).
    pub target_texts: u32,
    /// Its program, as written, is `echo` or `printf` named bare: the shell's own printer
    /// unless the command redefines it ([`crate::ReadText`]). A `./echo` or `/usr/bin/echo`
    /// is a file, which may be anything; `printf -v NAME` stores what it formats in a
    /// variable later commands may read, and is not one. So is the `test` builtin (and `[`,
    /// [`METADATA_PROGRAMS`]), which only answers whether a file exists or what it is, where
    /// the command does not touch `PATH` ([`crate::analyse_in`]). Not `ls` nor `stat`: they
    /// print only names and metadata too, but claude's own path check refuses `ls -l FILE`
    /// and `stat FILE` under a Read deny of FILE (the recorded oracle), and a list the user
    /// brings is never read looser here.
    pub prints: bool,
    /// The operand that is text, not a file: the pattern operand of a search program named
    /// bare (`grep`, `egrep`, `fgrep`, `rg`), when it is surely the pattern: no `-e`/`-f`
    /// (then every operand is a file), only options known to take no value before it, not
    /// empty ([`search_pattern`]); else the subcommand of a program that takes one from a
    /// fixed list (`git status`, `cargo build`, `npm run`: [`subcommand`]).
    pub text_operand: Option<String>,
}

/// Builtins that read a file's metadata only, never its bytes, and print nothing: `test` and
/// `[`. Named bare, each is taken as a printer ([`Segment::prints`]).
pub const METADATA_PROGRAMS: [&str; 2] = ["test", "["];

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

impl Word<'_> {
    /// The same word, owning its text.
    pub fn into_owned<'b>(self) -> Word<'b> {
        Word {
            text: Cow::Owned(self.text.into_owned()),
            literal: self.literal,
            quoted: self.quoted,
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
            stdin_piped: self.stdin_piped,
            fed_by: self.fed_by,
            heredoc_bodies: self.heredoc_bodies,
            opaque: self.opaque,
        }
    }
}

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

/// The segment of one simple command.
pub fn segment_of(command: &SimpleCommand) -> Segment {
    let words: Vec<&str> = command.words.iter().map(|w| w.text.as_ref()).collect();
    // A word that is a double-quoted command substitution writing literal text (Claude's
    // `git commit -m "$(cat <<'EOF' … EOF)"`) hands its program that text as one argument:
    // deny texts read it so (`cat "$(cat <<'EOF'` `.env` `EOF)"` reads `.env`; a message
    // naming `.env` among other words names no file). Allow texts keep it as written.
    let arguments: Vec<Option<String>> = if command.words.iter().any(|w| w.quoted && !w.literal) {
        command
            .words
            .iter()
            .map(|w| inner::quoted_substitution_argument(w, false))
            .collect()
    } else {
        Vec::new()
    };
    let read_words: Vec<&str> = if arguments.iter().any(Option::is_some) {
        words
            .iter()
            .zip(&arguments)
            .map(|(&word, argument)| argument.as_deref().unwrap_or(word))
            .collect()
    } else {
        Vec::new()
    };
    let generous_words: &[&str] = if read_words.is_empty() {
        &words
    } else {
        &read_words
    };
    let mut redirects = String::new();
    let mut redirects_inner = Vec::new();
    push_joined(
        &mut redirects,
        command.redirects.iter().map(|r| r.text.as_str()),
        Some(&mut redirects_inner),
    );
    let mut segment = Segment {
        deny_only: command.deny_only,
        opaque: command.opaque.clone(),
        generous: Vec::with_capacity(4),
        strict: Vec::with_capacity(1),
        inner_spaces: Vec::new(),
        target_texts: 0,
        prints: match words.first() {
            Some(&"echo") => true,
            Some(program) if METADATA_PROGRAMS.contains(program) => true,
            Some(&"printf") => !words.iter().any(|w| w.starts_with("-v")),
            _ => false,
        },
        text_operand: search_pattern(&command.words)
            .or_else(|| subcommand(&command.words))
            .or_else(|| key_operand(&command.words)),
    };
    let mut generous = Generous {
        texts: &mut segment.generous,
        inner: &mut segment.inner_spaces,
        scratch_inner: Vec::new(),
        redirects_inner,
        scratch: String::with_capacity(
            command
                .words
                .iter()
                .map(|w| w.text.len() + 1)
                .sum::<usize>()
                + redirects.len(),
        ),
        redirects,
    };

    // Generous: the assignments as written, then every peel stage.
    if !command.assignments.is_empty() {
        generous.push(&with_assignments(command, generous_words));
    }
    for stage in peel_stages(generous_words) {
        generous.push(stage);
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
                    generous.push(&respelled);
                }
            }
        }
    }

    // Brace expansion and `$IFS`, made as the shell makes them: `{rm,-rf,X}` is `rm -rf X`.
    // The program is followed only when it is not literal (it may then be an expansion).
    let program_expands = command.words.first().is_some_and(|w| !w.literal);
    let mut program = program_expands.then(|| words[0].to_string());
    match expand::expanded_words(&command.words) {
        Ok(Some(expanded)) => {
            if program_expands {
                program = expanded.first().cloned();
            }
            let expanded: Vec<&str> = expanded.iter().map(String::as_str).collect();
            for stage in peel_stages(&expanded) {
                generous.push(stage);
            }
        }
        Ok(None) => {}
        Err(why) => {
            segment.opaque.get_or_insert_with(|| why.to_string());
        }
    }
    // A program that is the output of a literal command (`$(echo rm) -rf X`): that output.
    if let Some(first) = command.words.first().filter(|w| !w.literal)
        && let Some(output) = inner::command_substitution_output(&first.text)
    {
        let resolved: Vec<&str> = output
            .split_whitespace()
            .chain(words[1..].iter().copied())
            .collect();
        program = resolved.first().map(|p| p.to_string());
        for stage in peel_stages(&resolved) {
            generous.push(stage);
        }
    }
    // A program named by an expansion (`$X -rf /`, `$(which rm)`, `r?`, `/usr/bin/[r]m`) runs
    // a command the guard cannot name.
    if let Some(program) = program
        && program_expands
        && program.contains(['$', '`', '*', '?', '['])
    {
        segment.opaque.get_or_insert_with(|| {
            format!("its program `{program}` is an expansion the guard cannot resolve")
        });
    }

    // A command of redirections alone (`> file` truncates it, `< file` reads it) is seen as
    // its redirections.
    let (redirects, redirects_inner) = (generous.redirects, generous.redirects_inner);
    if words.is_empty() && command.assignments.is_empty() && !redirects.is_empty() {
        let index = segment.generous.len() as u32;
        segment
            .inner_spaces
            .extend(redirects_inner.iter().map(|&at| (index, at)));
        segment.generous.push(redirects);
    }

    strict_texts(command, &words, &mut segment.strict);
    segment
}

/// The private key an ssh tool is given to use, never to show: `ssh`/`scp`/`sftp -i KEY` (or
/// `-o IdentityFile=KEY`, the whole word), `ssh-keygen -y -f KEY` / `-l -f KEY` (the public
/// half, a fingerprint), `ssh-add KEY` (loaded into the agent). The key's bytes reach no
/// output, so a rule on reading the file need not see it there; any other word naming the
/// key (`scp -i k k host:`, the second) is read as usual.
fn key_operand(command_words: &[Word]) -> Option<String> {
    // Asked of every segment: decided without allocating for any other program.
    let program = command_words.first()?.text.as_ref();
    if !matches!(program, "ssh" | "scp" | "sftp" | "ssh-keygen" | "ssh-add") {
        return None;
    }
    let words: Vec<&str> = command_words.iter().map(|w| w.text.as_ref()).collect();
    let after = |option: &str| {
        words
            .iter()
            .position(|w| *w == option)
            .and_then(|i| words.get(i + 1))
            .map(|w| w.to_string())
    };
    match program {
        "ssh" | "scp" | "sftp" => after("-i").or_else(|| {
            words
                .iter()
                .find(|w| w.starts_with("IdentityFile="))
                .map(|w| w.to_string())
        }),
        // Only where it reads the key: printing the public half (`-y`) or a fingerprint
        // (`-l`). Generating (`-t`), re-encrypting (`-p`) or editing (`-c`, `-R`) writes the
        // file `-f` names, which every rule on that file must see.
        "ssh-keygen"
            if words.iter().any(|w| matches!(*w, "-y" | "-l"))
                && !words
                    .iter()
                    .any(|w| matches!(*w, "-t" | "-p" | "-c" | "-R" | "-N")) =>
        {
            after("-f")
        }
        "ssh-add" => words[1..]
            .iter()
            .find(|w| !w.starts_with('-'))
            .map(|w| w.to_string()),
        _ => None,
    }
}

/// The pattern operand of `words` when they run a search program named bare whose first
/// operand is surely its pattern ([`Segment::pattern`]). Conservative: any option that may
/// take the next word as its value (`-A 3`, `-t env`, `--ignore-file F`), any `-e`/`-f`
/// (`--regexp`, `--file`, a cluster holding them: then the operands are all files), an empty
/// pattern (the texts do not show an empty word) or one holding an expansion (it may split
/// into several words) give none, and every word is read as a path.
fn search_pattern(command_words: &[Word]) -> Option<String> {
    // Letters that are flags alone (take no value), per program. Decided on the program
    // before anything else: most segments run no search program.
    let flags = match command_words.first()?.text.as_ref() {
        "grep" | "egrep" | "fgrep" => "ivnrRlLcoqswxEFGPHhaIzZbUy",
        "rg" => "ivnlcoqswxFPSuLHNaz",
        _ => return None,
    };
    let sets_patterns = |w: &&str| {
        if let Some(long) = w.strip_prefix("--") {
            long.starts_with("reg") || long.starts_with("fil")
        } else {
            w.starts_with('-') && w.len() > 1 && w[1..].contains(['e', 'f'])
        }
    };
    if command_words
        .iter()
        .any(|w| sets_patterns(&w.text.as_ref()))
    {
        return None;
    }
    // The pattern: a literal word (an expansion may split into several), not empty.
    let pattern =
        |word: &Word| (word.literal && !word.text.is_empty()).then(|| word.text.to_string());
    let mut rest = command_words[1..].iter();
    for whole in rest.by_ref() {
        let word = whole.text.as_ref();
        if word == "--" {
            break;
        }
        if !word.starts_with('-') || word == "-" {
            return pattern(whole);
        }
        let known = match word.strip_prefix("--") {
            // A long option with its value attached, or a known flag.
            Some(long) => {
                long.contains('=')
                    || matches!(
                        long,
                        "ignore-case"
                            | "invert-match"
                            | "line-number"
                            | "recursive"
                            | "files-with-matches"
                            | "files-without-match"
                            | "count"
                            | "only-matching"
                            | "quiet"
                            | "silent"
                            | "word-regexp"
                            | "line-regexp"
                            | "extended-regexp"
                            | "fixed-strings"
                            | "perl-regexp"
                            | "with-filename"
                            | "no-filename"
                            | "text"
                            | "hidden"
                            | "no-ignore"
                            | "smart-case"
                            | "color"
                    )
            }
            None => word[1..].chars().all(|c| flags.contains(c)),
        };
        if !known {
            return None;
        }
    }
    rest.next().and_then(pattern)
}

/// The command's leading assignments, then its `words`: the command as written.
fn with_assignments<'w>(command: &'w SimpleCommand, words: &[&'w str]) -> Vec<&'w str> {
    command
        .assignments
        .iter()
        .map(String::as_str)
        .chain(words.iter().copied())
        .collect()
}

/// The generous texts of one segment as they are made: each candidate is written into one
/// scratch buffer and kept (allocated) only when it is new. Most candidates repeat one
/// already kept (the basename of a bare program, a normal form equal to the text as
/// written), and joining each into a `String` of its own was a fifth of the parse.
struct Generous<'t> {
    texts: &'t mut Vec<String>,
    /// [`Segment::inner_spaces`] of `texts`.
    inner: &'t mut Vec<(u32, u32)>,
    /// The command's redirections joined (`2>&1 >/dev/null`), or empty.
    redirects: String,
    /// The whitespace inside a redirection's word in `redirects` (`>"my file"`).
    redirects_inner: Vec<u32>,
    scratch: String,
    /// The whitespace inside a word of `scratch`.
    scratch_inner: Vec<u32>,
}

impl Generous<'_> {
    /// Add the texts a deny sees for `words` (with the command's redirections): as written,
    /// with the program's basename, short options merged, the option normal form; each also
    /// with the redirections appended.
    fn push(&mut self, words: &[&str]) {
        let Some(&program) = words.first() else {
            return;
        };
        self.push_words(words.iter().copied());
        let base = basename(program);
        if base.len() != program.len() {
            self.push_words(std::iter::once(base).chain(words[1..].iter().copied()));
        }
        // `hub` and `yadm` hand git the words they are given (`hub reset --hard`; yadm on the
        // home's dotfiles repository): read as git too.
        if matches!(base, "hub" | "yadm") {
            let as_git: Vec<&str> = std::iter::once("git")
                .chain(words[1..].iter().copied())
                .collect();
            self.push(&as_git);
        }
        // `rm -r -f` is `rm -rf` to the program: a deny written one way sees the other. Not
        // for `find`, whose primaries are words of their own (`-depth -empty -type d`):
        // merged, they would read as a command that drops its `-empty` test.
        if base != "find"
            && let Some(merged) = expand::merged_short_options(words)
        {
            self.push_words(merged.iter().map(String::as_str));
        }
        // The normal form of programs with an option table (`rm -fr` → `rm --force
        // --recursive`, `git -C d reset --har` → `git reset --hard`; see `options`).
        if let Some(normal) = options::normal_form(words) {
            self.push_words(normal.iter().map(String::as_str));
            if let Some(short) = options::rm_short_form(&normal) {
                self.push_words(short.iter().map(String::as_str));
            }
        }
    }

    /// The text of `words`, then the same with the redirections, each added when new.
    fn push_words<'w>(&mut self, words: impl Iterator<Item = &'w str>) {
        self.scratch.clear();
        self.scratch_inner.clear();
        push_joined(&mut self.scratch, words, Some(&mut self.scratch_inner));
        self.keep_scratch();
        if !self.redirects.is_empty() {
            self.scratch.push(' ');
            let base = self.scratch.len() as u32;
            self.scratch_inner
                .extend(self.redirects_inner.iter().map(|&at| base + at));
            self.scratch.push_str(&self.redirects);
            self.keep_scratch();
        }
    }

    /// Keep the text in `scratch` when it is new. One already kept from other words
    /// (`"a b"` against `a b`) keeps only the inner spaces both have: a space that ends a
    /// word in either is read as ending one (more words, never fewer).
    fn keep_scratch(&mut self) {
        match self.texts.iter().position(|t| *t == self.scratch) {
            None => {
                let index = self.texts.len() as u32;
                self.inner
                    .extend(self.scratch_inner.iter().map(|&at| (index, at)));
                self.texts.push(self.scratch.clone());
            }
            Some(index) => {
                let index = index as u32;
                let scratch_inner = &self.scratch_inner;
                self.inner
                    .retain(|&(text, at)| text != index || scratch_inner.contains(&at));
            }
        }
    }
}

/// The texts an allow covers for `command`: as written, then Claude's own peels; none when
/// it cannot be covered (deny-only, unresolved, a program not literal, a redirection that
/// is not harmless).
fn strict_texts(command: &SimpleCommand, words: &[&str], strict: &mut Vec<String>) {
    // Strict: as written, then Claude's own peels.
    let coverable = !command.deny_only
        && !command.unresolved
        && command.words.first().is_some_and(|w| w.literal)
        && command.redirects.iter().all(|r| r.harmless);
    if coverable && !command.assignments.is_empty() {
        strict.push(joined_with_room(&with_assignments(command, words)));
    }
    let safe_assignments = command.assignments.iter().all(|a| {
        let name = a.split(['=', '[', '+']).next().unwrap_or(a);
        SAFE_VARIABLES.contains(&name)
    });
    if coverable && safe_assignments {
        let mut rest: &[&str] = words;
        loop {
            let text = joined_with_room(rest);
            if !strict.contains(&text) {
                strict.push(text);
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
}

/// `words` joined by spaces, with room for what [`crate::analyse_in`] appends to a strict text
/// that is not the whole command (a space and [`crate::NOT_WHOLE`]) without growing it.
fn joined_with_room(words: &[&str]) -> String {
    let mut text = String::with_capacity(words.iter().map(|w| w.len() + 1).sum::<usize>() + 2);
    push_joined(&mut text, words.iter().copied(), None);
    text
}

/// `words` onto `out`, a space between each (what `join(" ")` makes, into a given buffer),
/// noting in `inner`, when given, the offset in `out` of each whitespace character inside a
/// word.
fn push_joined<'w>(
    out: &mut String,
    words: impl Iterator<Item = &'w str>,
    mut inner: Option<&mut Vec<u32>>,
) {
    for (i, word) in words.enumerate() {
        if i > 0 {
            out.push(' ');
        }
        // A word holding an unexpanded substitution (`"$(cat <<'EOF' … EOF)"`) is the
        // substitution's output, which the text does not show: its whitespace still splits,
        // as code whose words may be what the command reads.
        if let Some(inner) = inner.as_deref_mut()
            && may_hold_whitespace(word)
            && !word.contains("$(")
            && !word.contains('`')
            && word.contains(char::is_whitespace)
        {
            let base = out.len();
            inner.extend(
                word.char_indices()
                    .filter(|(_, c)| c.is_whitespace())
                    .map(|(at, _)| (base + at) as u32),
            );
        }
        out.push_str(word);
    }
}

/// Can `word` hold whitespace? In ASCII that is `\t`..=`\r` or a space; any other byte
/// that may be part of whitespace is outside ASCII (a cheap test before the exact one on
/// characters).
fn may_hold_whitespace(word: &str) -> bool {
    word.bytes()
        .any(|b| matches!(b, b'\t'..=b'\r' | b' ') || !b.is_ascii())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A text met again from words split otherwise keeps only the inner spaces both have, in
    /// either order: a space that ends a word in one spelling ends it for path rules.
    #[test]
    fn a_repeated_text_keeps_the_inner_spaces_both_spellings_have() {
        for quoted_first in [true, false] {
            let (mut texts, mut inner) = (Vec::new(), Vec::new());
            let mut generous = Generous {
                texts: &mut texts,
                inner: &mut inner,
                redirects: String::new(),
                redirects_inner: Vec::new(),
                scratch: String::new(),
                scratch_inner: Vec::new(),
            };
            let (quoted, split): (&[&str], &[&str]) =
                (&["cat", "a b", "c d"], &["cat", "a", "b", "c d"]);
            let order = if quoted_first {
                [quoted, split]
            } else {
                [split, quoted]
            };
            for words in order {
                generous.push_words(words.iter().copied());
            }
            assert_eq!(texts, ["cat a b c d"]);
            // `c d` is one word in both: its space stays inner; `a b` is not.
            assert_eq!(inner, [(0, 9)], "quoted first: {quoted_first}");
        }
    }

    fn command(words: &[&str]) -> SimpleCommand<'static> {
        let mut c = SimpleCommand::default();
        for w in words {
            if c.words.is_empty() && is_assignment(w) {
                c.assignments.push(w.to_string());
            } else {
                c.words.push(Word {
                    text: Cow::Owned(w.to_string()),
                    literal: !w.contains('$'),
                    quoted: false,
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
