//! What a simple command runs besides itself: `-c` strings, `eval`, `find -exec`, inline
//! code, scripts read from stdin or a file.

use std::borrow::Cow;

use super::code::{Language, shell_texts};
pub use super::feeders::sql_segment;
use super::feeders::{inline_code, parallel_scripts, parallel_template, sql_reads_stdin};
use super::names::NameSet;
use super::wrappers::{is_parallel_separator, peel_stages};
use super::{SimpleCommand, Word, basename};

/// Shells whose `-c` string, here-document or here-string is a script they run.
static SHELLS: NameSet = NameSet::new(&[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh",
]);

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
    /// Why it runs text the guard cannot read, when it does ([`SimpleCommand::opaque`]).
    pub opaque: Option<String>,
    /// Texts that hold shell commands but need not parse as a whole (`make --eval`): parsed
    /// as scripts; one that does not parse makes the command opaque.
    pub lenient_scripts: Vec<String>,
}

/// Does the command (after its wrappers) run a shell that reads its script from stdin (no
/// `-c`, no script file; `-s`, `-` or `/dev/stdin`)?
pub fn reads_script_from_stdin(command: &SimpleCommand) -> bool {
    let words: Vec<&str> = command.words.iter().map(|w| w.text.as_ref()).collect();
    peel_stages(&words).into_iter().any(shell_reads_stdin)
}

/// The names of a process's stdin as a file.
const STDIN_FILES: &[&str] = &["/dev/stdin", "/proc/self/fd/0", "/dev/fd/0"];

/// Is `stage` a shell reading its program from stdin: given only options, or `-s` (the words
/// after it are its parameters), or the operand `-` or `/dev/stdin`?
fn shell_reads_stdin(stage: &[&str]) -> bool {
    // `source /dev/stdin` and `. /dev/stdin`: the running shell reads the script.
    if matches!(stage.first(), Some(&("source" | "."))) {
        return stage.get(1).is_some_and(|file| STDIN_FILES.contains(file));
    }
    if !stage.first().is_some_and(|p| SHELLS.contains(basename(p))) {
        return false;
    }
    let mut i = 1;
    while i < stage.len() {
        let word = stage[i];
        if word == "-" || STDIN_FILES.contains(&word) {
            return true;
        }
        if word == "--" {
            return stage
                .get(i + 1)
                .is_none_or(|w| *w == "-" || STDIN_FILES.contains(w));
        }
        if is_command_option(word) {
            return false;
        }
        if word.starts_with(['-', '+']) {
            if !word.starts_with("--") && word[1..].contains('s') {
                return true;
            }
            i += if takes_a_value(word) { 2 } else { 1 };
            continue;
        }
        return false;
    }
    true
}

/// What reads its program from stdin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StdinProgram {
    /// A shell: the text is a script.
    Shell,
    /// An interpreter of another language: the text is code whose string literals may be
    /// shell commands.
    Interpreter,
    /// A SQL client (`psql`, `mysql`, `mariadb`, `sqlite3`): the text is SQL, exposed as the
    /// client given it as an argument ([`sql_segment`]).
    Sql,
}

/// Interpreters that run the program their stdin carries when given no operand.
static STDIN_INTERPRETERS: NameSet = NameSet::new(&[
    "python", "perl", "ruby", "node", "nodejs", "php", "bun", "deno",
]);

/// Does `command` (after its wrappers) read its program from stdin, and which program is it?
pub fn stdin_program<'c>(command: &'c SimpleCommand) -> Option<(StdinProgram, &'c str)> {
    let words: Vec<&str> = command.words.iter().map(|w| w.text.as_ref()).collect();
    for stage in peel_stages(&words) {
        let Some(first) = stage.first() else { continue };
        // `… | xargs php -l`: xargs reads the pipe; what it runs gets arguments.
        if basename(first) == "xargs" {
            return None;
        }
        // `… | parallel` with no command and no `:::` runs each line it reads as a command.
        if basename(first) == "parallel" {
            let runs_lines = parallel_template(stage).is_none()
                && !stage.iter().any(|w| is_parallel_separator(w));
            if !runs_lines {
                return None;
            }
            let at = words.len() - stage.len();
            return Some((
                StdinProgram::Shell,
                basename(command.words[at].text.as_ref()),
            ));
        }
        let kind = if shell_reads_stdin(stage) {
            StdinProgram::Shell
        } else if sql_reads_stdin(stage) {
            StdinProgram::Sql
        } else {
            let name = basename(first).trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
            // Options only, none giving the code (`-e`, `-E`, `-c`, `-r`, `-p`, `-m`, also in
            // a cluster: `perl -anE'…'`).
            let options_only = stage[1..].iter().all(|w| {
                w.starts_with('-')
                    && (w.starts_with("--") || !w[1..].contains(['e', 'E', 'c', 'r', 'p', 'm']))
            });
            if STDIN_INTERPRETERS.contains(name) && options_only {
                StdinProgram::Interpreter
            } else {
                continue;
            }
        };
        let at = words.len() - stage.len();
        return Some((kind, basename(command.words[at].text.as_ref())));
    }
    None
}

/// The text `command` writes to its stdout, when that is fixed by its words: `echo` and
/// `printf` of literal words (with `%s`, `%b`, `%%` and the common backslash escapes
/// resolved; any other conversion is not followed), `cat` of a literal here-document or
/// here-string. `None` for anything else.
pub fn literal_output(command: &SimpleCommand) -> Option<String> {
    if command.unresolved || !command.words.iter().all(|w| w.literal) {
        return None;
    }
    let words: Vec<&str> = command.words.iter().map(|w| w.text.as_ref()).collect();
    match basename(words.first()?) {
        "echo" => {
            let mut i = 1;
            while words.get(i).is_some_and(|w| {
                w.len() > 1 && w.starts_with('-') && w[1..].bytes().all(|b| b"neE".contains(&b))
            }) {
                i += 1;
            }
            let escapes_on = words[1..i]
                .iter()
                .flat_map(|w| w.chars())
                .rfind(|c| matches!(c, 'e' | 'E'))
                == Some('e');
            let escapes = if escapes_on {
                Escapes::Echo
            } else {
                Escapes::PlainEcho
            };
            unescape(&words[i..].join(" "), escapes).map(|(text, _)| text)
        }
        "printf" => {
            let i = if words.get(1) == Some(&"--") { 2 } else { 1 };
            printf_text(words.get(i)?, &words[i + 1..])
        }
        // Its input is the here-document or here-string unless another redirection of its
        // stdin follows (`cat <<'EOF' < x.sh` writes `x.sh`).
        "cat"
            if (words.len() == 1 || (words.len() == 2 && words[1] == "-"))
                && !command.redirects.iter().any(redirects_stdin_from_a_file) =>
        {
            match (
                command.heredoc_bodies.as_slice(),
                command.here_strings.as_slice(),
            ) {
                ([(body, true)], []) => Some(body.clone()),
                ([], [here]) if here.literal => Some(format!("{}\n", here.text)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Does `redirect` give stdin something other than a here-document or here-string (`<
/// file`, `0<file`, `<&3`, `<> file`)?
fn redirects_stdin_from_a_file(redirect: &super::Redirect) -> bool {
    let operator = redirect
        .text
        .trim_start_matches(|c: char| c.is_ascii_digit());
    let descriptor = &redirect.text[..redirect.text.len() - operator.len()];
    matches!(descriptor, "" | "0") && operator.starts_with('<') && !operator.starts_with("<<")
}

/// Whose backslash escapes [`unescape`] resolves.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Escapes {
    /// `echo -e`'s and `printf %b`'s: octal as `\0NNN`, `\c` ends all output.
    Echo,
    /// Plain `echo`'s: as [`Escapes::Echo`], but `\c` is written as is and the output goes
    /// on, as bash's `echo` writes it (`sh`'s and zsh's stop there: a script piped on is read
    /// whole, more than they run).
    PlainEcho,
    /// A `printf` format's: octal as `\NNN`, `\c` is written as is, and a `%` made by an
    /// escape is written, not a conversion.
    PrintfFormat,
}

/// The backslash escapes of `echo -e` and `printf` resolved: `\n`, `\t`, `\r`, `\a`, `\b`,
/// `\f`, `\v`, `\e`, octal (`\0NNN` for `echo`, `\NNN` for `printf`: `\056env` is `.env`),
/// `\xHH`, `\uHHHH`, `\UHHHHHHHH`, and any other `\X` as `X` — generously: `sh`'s `echo`
/// resolves them, bash's does not without `-e`; a deny may see more, never less. With
/// whether `\c` ended the output there (`echo -e`, `%b`: nothing more is written, by this
/// command at all). `None` when an escape makes a byte that is no character alone (an octal
/// or hex value from 0x80): the output is then not known as text.
fn unescape(text: &str, escapes: Escapes) -> Option<(String, bool)> {
    if !text.contains('\\') {
        return Some((text.to_string(), false));
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    // Up to `most` more digits of `radix` after `value`, from `chars`.
    let digits = |chars: &mut std::iter::Peekable<std::str::Chars>, mut value: u32, radix, most| {
        for _ in 0..most {
            match chars.peek().and_then(|c| c.to_digit(radix)) {
                Some(d) => {
                    value = value * radix + d;
                    chars.next();
                }
                None => break,
            }
        }
        value
    };
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(escape) = chars.next() else {
            out.push('\\');
            break;
        };
        let (code, byte) = match escape {
            'n' => (10, true),
            't' => (9, true),
            'r' => (13, true),
            'a' => (7, true),
            'b' => (8, true),
            'f' => (12, true),
            'v' => (11, true),
            'e' | 'E' => (27, true),
            'c' if escapes == Escapes::Echo => return Some((out, true)),
            '0'..='7' if escapes == Escapes::PrintfFormat => {
                (digits(&mut chars, escape as u32 - '0' as u32, 8, 2), true)
            }
            '0' => (digits(&mut chars, 0, 8, 3), true),
            'x' if chars.peek().is_some_and(char::is_ascii_hexdigit) => {
                (digits(&mut chars, 0, 16, 2), true)
            }
            'u' if chars.peek().is_some_and(char::is_ascii_hexdigit) => {
                (digits(&mut chars, 0, 16, 4), false)
            }
            'U' if chars.peek().is_some_and(char::is_ascii_hexdigit) => {
                (digits(&mut chars, 0, 16, 8), false)
            }
            'c' => {
                out.push_str("\\c");
                continue;
            }
            other => {
                out.push(other);
                continue;
            }
        };
        if byte && code >= 0x80 {
            return None;
        }
        let decoded = char::from_u32(code)?;
        if decoded == '%' && escapes == Escapes::PrintfFormat {
            out.push('%');
        }
        out.push(decoded);
    }
    Some((out, false))
}

/// What `printf FORMAT ARGS…` writes, when every conversion is `%s`, `%b` or `%%`.
fn printf_text(format: &str, args: &[&str]) -> Option<String> {
    let (format, _) = unescape(format, Escapes::PrintfFormat)?;
    let mut out = String::new();
    let mut next = 0;
    // The format is reused while arguments remain (bounded).
    for _ in 0..64 {
        let mut chars = format.chars();
        let mut used = false;
        while let Some(c) = chars.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('%') => out.push('%'),
                Some('s') => {
                    used = true;
                    out.push_str(args.get(next).unwrap_or(&""));
                    next += 1;
                }
                Some('b') => {
                    used = true;
                    let (arg, ended) = unescape(args.get(next).unwrap_or(&""), Escapes::Echo)?;
                    out.push_str(&arg);
                    if ended {
                        return Some(out);
                    }
                    next += 1;
                }
                _ => return None,
            }
        }
        if !used || next >= args.len() {
            return Some(out);
        }
    }
    None
}

/// What a command substitution word (`$(echo rm)`, `` `echo rm` ``) writes, when that is
/// literal text ([`literal_output`] of its one simple command); `None` otherwise.
pub fn command_substitution_output(word: &str) -> Option<String> {
    let body = word
        .strip_prefix("$(")
        .and_then(|w| w.strip_suffix(')'))
        .or_else(|| word.strip_prefix('`').and_then(|w| w.strip_suffix('`')))?;
    single_command_output(body, false)
}

/// What the commands of a process substitution word (`<(echo …)`) write, when that is literal
/// text ([`literal_output`] of its one simple command); `None` otherwise.
pub fn process_substitution_output(word: &str) -> Option<String> {
    let body = word.strip_prefix("<(")?.strip_suffix(')')?;
    single_command_output(body, false)
}

/// What the one simple command of `body` writes, when that is literal text (only `cat` of a
/// literal here-document or here-string when `exact_only`: `echo` and `printf` are read
/// generously, [`literal_output`]). Only a body without further substitutions is read again,
/// so the work stays linear.
fn single_command_output(body: &str, exact_only: bool) -> Option<String> {
    if body.contains("<(") || body.contains(">(") || body.contains("$(") || body.contains('`') {
        return None;
    }
    let commands = crate::parse::simple_commands(body).ok()?;
    match commands.as_slice() {
        [only]
            if !exact_only
                || only
                    .words
                    .first()
                    .is_some_and(|w| basename(&w.text) == "cat") =>
        {
            literal_output(only)
        }
        _ => None,
    }
}

/// The one argument a word that is a double-quoted command substitution and nothing more
/// ([`Word::quoted`]: Claude's `git commit -m "$(cat <<'EOF' … EOF)"`) hands its program,
/// when the substitution writes literal text: that text with its trailing newlines dropped,
/// as the shell drops them. `exact_only` takes only output known byte for byte (`cat` of a
/// literal here-document or here-string), not `echo`'s or `printf`'s, which are read
/// generously. `None` for any other word.
pub fn quoted_substitution_argument(word: &Word, exact_only: bool) -> Option<String> {
    if !word.quoted || word.literal {
        return None;
    }
    let text = word.text.as_ref();
    let body = text
        .strip_prefix("$(")
        .and_then(|w| w.strip_suffix(')'))
        .or_else(|| text.strip_prefix('`').and_then(|w| w.strip_suffix('`')))?;
    let mut output = single_command_output(body, exact_only)?;
    output.truncate(output.trim_end_matches('\n').len());
    Some(output)
}

/// A shell option word that gives the script as an argument: `-c`, or a cluster holding `c`
/// (`-ec`, `-lc`). A long option (`--norc`, `--rcfile`) is not one.
fn is_command_option(word: &str) -> bool {
    word.starts_with('-') && !word.starts_with("--") && word.contains('c')
}

/// A shell option word whose value is the next word: `--rcfile F`, `--init-file F`, or a
/// cluster holding `o` or `O` (`-o pipefail`, `-eo pipefail`, `-co pipefail`, `+O extglob`:
/// bash and dash give each of those letters the next word, wherever it sits in the cluster).
fn takes_a_value(word: &str) -> bool {
    matches!(word, "--rcfile" | "--init-file")
        || (word.len() > 1
            && word.starts_with(['-', '+'])
            && !word.starts_with("--")
            && word[1..].contains(['o', 'O']))
}

/// Interpreters that read commands from their stdin when given no operand (a REPL).
static REPLS: NameSet = NameSet::new(&[
    "python", "node", "nodejs", "deno", "bun", "ruby", "irb", "perl", "php", "lua", "tclsh",
    "wish", "R", "julia", "ghci", "psql", "mysql", "sqlite3", "gdb",
]);

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
        (SHELLS.contains(program)
            && options_only
            && !stage[1..].iter().any(|w| is_command_option(w)))
            || (REPLS.contains(repl) && options_only)
    })?;
    let program = basename(stage.first()?);
    command
        .words
        .iter()
        .map(|w| basename(&w.text))
        .find(|w| *w == program)
}

/// Programs that run a script, inline code or another command given as arguments.
static RUNNERS: NameSet = NameSet::new(&[
    "psql",
    "mysql",
    "mariadb",
    "sqlite3",
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "mksh",
    "ash",
    "fish",
    "csh",
    "tcsh",
    "su",
    "script",
    "runuser",
    "eval",
    "find",
    "python",
    "python2",
    "python3",
    "perl",
    "ruby",
    "node",
    "nodejs",
    "deno",
    "bun",
    "php",
    "awk",
    "gawk",
    "mawk",
    "nawk",
    "lua",
    "luajit",
    "trap",
    "flock",
    "tar",
    "rsync",
    "git",
    "hub",
    "yadm",
    "make",
    "gmake",
    "fd",
    "fdfind",
    "source",
    ".",
    "sg",
    "nix-shell",
    "Rscript",
    "R",
    "julia",
    "pwsh",
    "powershell",
    "osascript",
]);

/// Tools whose output is shell set-up a user evaluates (`eval "$(pyenv init -)"`, `source
/// <(kubectl completion bash)`), with the first word after the program that makes it that
/// output (`None`: any).
const SETUP_PRINTERS: &[(&str, Option<&str>)] = &[
    ("ssh-agent", None),
    ("keychain", Some("--eval")),
    ("dircolors", None),
    ("pyenv", Some("init")),
    ("pyenv", Some("virtualenv-init")),
    ("rbenv", Some("init")),
    ("nodenv", Some("init")),
    ("goenv", Some("init")),
    ("jenv", Some("init")),
    ("plenv", Some("init")),
    ("direnv", Some("hook")),
    ("brew", Some("shellenv")),
    ("fnm", Some("env")),
    ("zoxide", Some("init")),
    ("starship", Some("init")),
    ("mise", Some("activate")),
    ("mise", Some("env")),
    ("rtx", Some("activate")),
    ("opam", Some("env")),
    ("luarocks", Some("path")),
    ("thefuck", Some("--alias")),
    ("minikube", Some("docker-env")),
    ("docker-machine", Some("env")),
    ("register-python-argcomplete", None),
    ("oh-my-posh", Some("init")),
    ("atuin", Some("init")),
    ("mcfly", Some("init")),
    ("fzf", Some("--bash")),
    ("fzf", Some("--zsh")),
    ("poetry", Some("env")),
    ("conda", Some("shell.bash")),
    ("conda", Some("shell.zsh")),
    ("micromamba", Some("shell")),
];

/// Is `word` (`$(…)`, `` `…` ``, `<(…)`, quoted or not) the output of one literal command that
/// prints its own shell set-up: a [`SETUP_PRINTERS`] entry, or a program's `completion`
/// subcommand (`kubectl completion zsh`, `rustup completions bash`; not a downloader's)?
fn prints_its_own_setup(word: &str) -> bool {
    let word = word
        .strip_prefix('"')
        .and_then(|w| w.strip_suffix('"'))
        .unwrap_or(word);
    let Some(body) = word
        .strip_prefix("$(")
        .or_else(|| word.strip_prefix("<("))
        .and_then(|w| w.strip_suffix(')'))
        .or_else(|| word.strip_prefix('`').and_then(|w| w.strip_suffix('`')))
    else {
        return false;
    };
    if body.contains(['$', '`', '(', ')', '<', '>', '|', ';', '&']) {
        return false;
    }
    let Ok(commands) = crate::parse::simple_commands(body) else {
        return false;
    };
    let [only] = commands.as_slice() else {
        return false;
    };
    if !only.assignments.is_empty() || !only.words.iter().all(|w| w.literal) {
        return false;
    }
    let words: Vec<&str> = only.words.iter().map(|w| w.text.as_ref()).collect();
    let Some(&program) = words.first() else {
        return false;
    };
    let program = basename(program);
    let first = words.get(1).copied();
    SETUP_PRINTERS
        .iter()
        .any(|&(name, after)| name == program && (after.is_none() || after == first))
        || (matches!(first, Some("completion" | "completions"))
            && !matches!(
                program,
                "curl" | "wget" | "aria2c" | "fetch" | "nc" | "ncat"
            ))
}

/// Variables naming a file of commands a shell reads at start.
const STARTUP_FILE_VARIABLES: &[&str] = &["BASH_ENV", "ENV"];

/// `git -c` keys whose value is a command git runs (a value starting with `!` is one for
/// any key: aliases, credential helpers).
const GIT_COMMAND_KEYS: &[&str] = &[
    "core.sshcommand",
    "core.pager",
    "core.editor",
    "core.fsmonitor",
    "core.askpass",
    "sequence.editor",
    "diff.external",
    "gpg.program",
    "credential.helper",
    "uploadpack.packobjectshook",
];

/// The scripts and commands `command` runs.
pub fn inner_commands(command: &SimpleCommand) -> Inner {
    // Most commands run nothing but themselves: decide that without allocating.
    let runs_something = command.words.first().is_some_and(|w| {
        let name = basename(&w.text);
        RUNNERS.contains(name) || super::is_wrapper(name)
    });
    if !runs_something && command.here_strings.is_empty() && command.assignments.is_empty() {
        return Inner::default();
    }
    let words: Vec<&str> = command.words.iter().map(|w| w.text.as_ref()).collect();
    let literal: Vec<bool> = command.words.iter().map(|w| w.literal).collect();
    let mut reader = InnerReader {
        command,
        words: &words,
        literal: &literal,
        inner: Inner::default(),
    };
    reader.startup_files();
    for stage in peel_stages(&words) {
        let offset = words.len() - stage.len();
        let Some(program) = stage.first().map(|p| basename(p)) else {
            continue;
        };
        reader.stage(program, stage, offset);
    }
    reader.inner
}

/// What [`inner_commands`] has found so far in one simple command, and the command's words.
struct InnerReader<'c, 's> {
    command: &'c SimpleCommand<'s>,
    words: &'c [&'c str],
    literal: &'c [bool],
    inner: Inner,
}

impl InnerReader<'_, '_> {
    /// The word at `index` is a script: read when literal, leniently when it holds variables
    /// only, else opaque.
    fn script(&mut self, index: usize) {
        let (words, inner) = (self.words, &mut self.inner);
        if self.literal[index] {
            inner.scripts.push(words[index].to_string());
        } else if let Some(script) = quoted_substitution_argument(&self.command.words[index], true)
        {
            // `bash -c "$(cat <<'EOF' … EOF)"`: the script is that text, known exactly. The
            // command is still not one an allow covers as written.
            inner.unresolved = true;
            inner.scripts.push(script);
        } else if !words[index].contains(['`', '(']) {
            // Variables only (`trap "rm -f $tmp" EXIT`, `-e "ssh -p $port"`): the text as
            // written is read (a variable as the program makes it opaque there). Text with
            // substitutions is not read again: its commands are listed already, and reading
            // it at every level would cost exponential time.
            inner.unresolved = true;
            inner.lenient_scripts.push(words[index].to_string());
        } else {
            inner.unresolved = true;
            inner.opaque.get_or_insert_with(|| {
                format!(
                    "`{}` runs `{}`, text the guard cannot read",
                    basename(words[0]),
                    words[index]
                )
            });
        }
    }

    /// A script given as the value of an option (`--to-command=CMD`, `-e CMD`): the text
    /// after `=` or the next word.
    fn option_script(&mut self, index: usize, value: Option<&str>) {
        match value {
            Some(value) if self.literal[index] => self.inner.scripts.push(value.to_string()),
            Some(_) => {
                let words = self.words;
                self.inner.unresolved = true;
                self.inner.opaque.get_or_insert_with(|| {
                    format!(
                        "`{}` runs `{}`, text the guard cannot read",
                        basename(words[0]),
                        words[index]
                    )
                });
            }
            None if index + 1 < self.words.len() => self.script(index + 1),
            None => {}
        }
    }

    /// A file of commands given as a process substitution (`bash <(echo …)`, `source <(…)`,
    /// `BASH_ENV=<(…)`): its literal output is a script; other output cannot be read.
    fn file_of_commands(&mut self, text: &str, what: &str) {
        if !text.starts_with("<(") {
            return;
        }
        match process_substitution_output(text) {
            Some(script) => self.inner.scripts.push(script),
            // `source <(kubectl completion bash)`: the tool's own set-up, as above.
            None if prints_its_own_setup(text) => self.inner.unresolved = true,
            None => {
                self.inner.unresolved = true;
                self.inner.opaque.get_or_insert_with(|| {
                    format!(
                        "{what} reads commands from `{text}`, whose output the guard cannot read"
                    )
                });
            }
        }
    }

    /// `BASH_ENV=<(…) bash -c true`: the shell first runs the file the variable names.
    fn startup_files(&mut self) {
        let runs_a_shell = peel_stages(self.words)
            .any(|stage| stage.first().is_some_and(|p| SHELLS.contains(basename(p))));
        if !runs_a_shell {
            return;
        }
        let command = self.command;
        let words = self.words;
        for assignment in command
            .assignments
            .iter()
            .map(String::as_str)
            .chain(words.iter().copied().filter(|w| super::is_assignment(w)))
        {
            if let Some((name, value)) = assignment.split_once('=')
                && STARTUP_FILE_VARIABLES.contains(&name)
            {
                self.file_of_commands(value, name);
            }
        }
    }

    /// What one stage (`program` and its arguments, after the wrappers peeled) runs; `offset`
    /// is the index of its first word in the command's.
    fn stage(&mut self, program: &str, stage: &[&str], offset: usize) {
        if SHELLS.contains(program) || matches!(program, "su" | "script" | "runuser") {
            self.shell(program, stage, offset);
        }
        if matches!(program, "source" | ".")
            && let Some(file) = stage.get(1)
        {
            self.file_of_commands(file, program);
        }
        // `trap 'CMD' SIGNAL…`: the string runs when the signal comes (a lone operand, `-`
        // and the empty string reset the signals instead).
        if program == "trap" {
            let first = stage
                .iter()
                .skip(1)
                .position(|w| !w.starts_with('-') || *w == "-")
                .map(|i| i + 1);
            if let Some(i) = first
                && stage.len() > i + 1
                && !matches!(stage[i], "-" | "")
            {
                self.script(offset + i);
            }
        }
        if matches!(program, "git" | "hub" | "yadm") {
            self.git_config_command(stage, offset);
        }
        // `flock FILE -c CMD`, `sg GROUP -c CMD`.
        if matches!(program, "flock" | "sg")
            && let Some(i) = stage.iter().position(|w| matches!(*w, "-c" | "--command"))
        {
            self.option_script(offset + i, None);
        }
        if program == "watch" {
            self.watch(stage, offset);
        }
        if matches!(
            program,
            "pwsh" | "powershell" | "pwsh.exe" | "powershell.exe"
        ) {
            self.powershell(stage);
        }
        // `osascript -e 'do shell script "rm -rf ~"'`: AppleScript handing text to sh.
        if program == "osascript" {
            for (i, word) in stage.iter().enumerate() {
                if *word == "-e"
                    && let Some(code) = stage.get(i + 1)
                {
                    self.inner.code_strings.extend(apple_shell_scripts(code));
                }
            }
        }
        // `env -S 'CMD ARGS'`: the string split into the command.
        if program == "env" {
            for (i, word) in stage.iter().enumerate() {
                if matches!(*word, "-S" | "--split-string") {
                    self.option_script(offset + i, None);
                } else if let Some(value) = word
                    .strip_prefix("--split-string=")
                    .or_else(|| word.strip_prefix("-S").filter(|v| !v.is_empty()))
                {
                    self.option_script(offset + i, Some(value));
                }
            }
        }
        if program == "parallel" {
            parallel_scripts(stage, &self.literal[offset..], &mut self.inner);
        }
        self.command_options(program, stage, offset);
        self.executed_commands(program, stage, offset);
        if program == "eval" && stage.len() > 1 {
            self.eval(stage, offset);
        }
        // `psql <<< 'SQL'`: the client given the SQL as an argument.
        if sql_reads_stdin(stage) {
            let command = self.command;
            for here in command.here_strings.iter().filter(|h| h.literal) {
                self.inner.commands.extend(sql_segment(command, &here.text));
            }
        }
        // Inline code: the shell commands it runs and the files it deletes (`code`).
        if let Some(language) = Language::of(program)
            && let Some(code) = inline_code(program, stage)
        {
            self.inner.code_strings.extend(shell_texts(language, code));
        }
        // `python3 - <<< 'CODE'`: an interpreter reading its program from a here-string, as
        // `python3 <<EOF` reads a here-document's (`parse::redirect`). Asked only of a command
        // with a here-string: `stdin_program` peels the command's stages again.
        if !self.command.here_strings.is_empty()
            && let Some(language) = Language::of(program)
            && let Some((StdinProgram::Interpreter, _)) = stdin_program(self.command)
        {
            for here in self.command.here_strings.iter().filter(|h| h.literal) {
                self.inner
                    .code_strings
                    .extend(shell_texts(language, &here.text));
            }
        }
    }

    /// PowerShell's `-Command` (`-c`, `-CommandWithArgs`): the rest of the words are the
    /// command text, read as shell commands for deny and ask (`Remove-Item -Recurse -Force
    /// ~` reads as its words; text that does not parse as shell is data). `-EncodedCommand`
    /// is text the guard cannot read.
    fn powershell(&mut self, stage: &[&str]) {
        let mut i = 1;
        while i < stage.len() {
            let lower = stage[i].to_ascii_lowercase();
            let Some(name) = lower.strip_prefix('-').filter(|n| !n.is_empty()) else {
                // A script file, then its arguments.
                return;
            };
            if matches!(name, "c" | "cwa" | "commandwithargs")
                || (name.len() >= 3 && "command".starts_with(name))
            {
                let text = stage[i + 1..].join(" ");
                if !text.is_empty() {
                    self.inner.code_strings.push(text);
                }
                return;
            }
            if matches!(name, "e" | "ec") || (name.len() >= 2 && "encodedcommand".starts_with(name))
            {
                self.inner.unresolved = true;
                self.inner.opaque.get_or_insert_with(|| {
                    format!("`{}` runs a base64 command the guard cannot read", stage[0])
                });
                return;
            }
            if matches!(name, "f" | "file") {
                return;
            }
            // Parameters taking a value.
            let takes_value = [
                "executionpolicy",
                "ep",
                "workingdirectory",
                "wd",
                "configurationname",
                "outputformat",
                "of",
                "inputformat",
                "if",
                "windowstyle",
                "w",
                "version",
                "v",
                "settingsfile",
                "custompipename",
                "psconsolefile",
            ]
            .contains(&name);
            i += if takes_value { 2 } else { 1 };
        }
    }

    /// A shell (or `su`, `script`, `runuser`): its `-c` string, the here-string it reads as
    /// its program, and a file of commands it is given (`bash <(…)`, `--rcfile <(…)`).
    fn shell(&mut self, program: &str, stage: &[&str], offset: usize) {
        // The first operand after an option cluster holding `c`.
        let mut seen_c = false;
        let shell = SHELLS.contains(program);
        // The value of the option before (`-o pipefail`, `-co pipefail`, `--rcfile FILE`),
        // before or after the `c`: not an operand.
        let mut value_next = false;
        for (i, word) in stage.iter().enumerate().skip(1) {
            if std::mem::take(&mut value_next) {
                continue;
            }
            if seen_c && !word.starts_with(['-', '+']) {
                self.script(offset + i);
                break;
            }
            value_next = shell && takes_a_value(word);
            if (word.starts_with('-') && !word.starts_with("--") && word.contains('c'))
                || *word == "--command"
            {
                seen_c = true;
            } else if !word.starts_with(['-', '+']) && !seen_c && shell {
                // A shell's first operand is its script file; `su USER -c CMD` names the
                // user first.
                break;
            }
        }
        if !SHELLS.contains(program) {
            return;
        }
        if shell_reads_stdin(stage) {
            for here in &self.command.here_strings {
                if here.literal {
                    self.inner.scripts.push(here.text.to_string());
                } else {
                    self.inner.unresolved = true;
                    self.inner.opaque.get_or_insert_with(|| {
                        format!(
                            "`{program}` reads its program from a here-string the guard cannot \
                             read"
                        )
                    });
                }
            }
        }
        // `bash <(…)`, `bash --rcfile <(…) -i`: a file of commands.
        let mut i = 1;
        while i < stage.len() {
            let word = stage[i];
            if matches!(word, "--rcfile" | "--init-file") {
                if let Some(file) = stage.get(i + 1) {
                    self.file_of_commands(file, program);
                }
                i += 2;
                continue;
            }
            if word.starts_with(['-', '+']) && word != "-" {
                if is_command_option(word) {
                    break;
                }
                i += if takes_a_value(word) { 2 } else { 1 };
                continue;
            }
            self.file_of_commands(word, program);
            break;
        }
    }

    /// `watch` runs its arguments through `sh -c` (without `-x`).
    fn watch(&mut self, stage: &[&str], offset: usize) {
        if stage.iter().any(|w| matches!(*w, "-x" | "--exec")) {
            return;
        }
        let rest = &stage[1..];
        let mut i = 0;
        while i < rest.len() && rest[i].starts_with('-') {
            i += if matches!(rest[i], "-n" | "-q" | "--interval" | "--equexit") {
                2
            } else {
                1
            };
        }
        if i < rest.len() {
            if (offset + 1 + i..self.words.len()).all(|j| self.literal[j]) {
                self.inner.scripts.push(rest[i..].join(" "));
            } else {
                self.script(offset + 1 + i);
            }
        }
    }

    /// `eval WORDS`: the words joined, parsed again.
    fn eval(&mut self, stage: &[&str], offset: usize) {
        // A word whose only expansion is a tilde or a brace reads the same when parsed again
        // (`eval rm -rf ~`). Not a glob: the file names it expands to are parsed as code by
        // eval (a file named `x;curl … | sh`). A double-quoted substitution of known text
        // (`eval "$(cat <<'EOF' … EOF)"`) is that text.
        let (words, literal) = (self.words, self.literal);
        let mut script = Vec::with_capacity(stage.len() - 1);
        for i in offset + 1..words.len() {
            if literal[i] || !words[i].contains(['$', '`', '*', '?', '[']) {
                script.push(Cow::Borrowed(words[i]));
            } else if let Some(text) = quoted_substitution_argument(&self.command.words[i], true) {
                self.inner.unresolved = true;
                script.push(Cow::Owned(text));
            } else if prints_its_own_setup(words[i]) {
                // `eval "$(ssh-agent -s)"`: what the tool prints is as much its own as what
                // it does when run; not covered as written, not opaque either.
                self.inner.unresolved = true;
            } else {
                self.inner.unresolved = true;
                self.inner.opaque.get_or_insert_with(|| {
                    format!(
                        "`eval` runs `{}`, text the guard cannot read",
                        stage[1..].join(" ")
                    )
                });
                return;
            }
        }
        self.inner.scripts.push(script.join(" "));
    }

    /// Options whose value is a command the program runs (`tar --to-command`, `rsync -e`,
    /// `make --eval`, `git -c core.pager=…`).
    fn command_options(&mut self, program: &str, stage: &[&str], offset: usize) {
        for (i, word) in stage.iter().enumerate().skip(1) {
            let (name, value) = match word.split_once('=') {
                Some((name, value)) if name.starts_with("--") => (name, Some(value)),
                _ => (*word, None),
            };
            let runs = match program {
                "tar" => self.tar_option(name, value, stage, offset, i),
                "rsync" => matches!(name, "-e" | "--rsh"),
                // `nix-shell --run CMD`, `doppler run --command CMD`, `npx -c CMD`, `npm exec
                // -c CMD`: a script the runner hands to a shell.
                "nix-shell" => matches!(name, "--run" | "--command"),
                "doppler" => name == "--command",
                "npx" => matches!(name, "-c" | "--call"),
                "npm" => {
                    matches!(stage.get(1), Some(&("exec" | "x"))) && matches!(name, "-c" | "--call")
                }
                "make" | "gmake" => {
                    // `make --eval=TEXT`: makefile text, whose recipes are shell commands.
                    // Read as a script; text that does not parse is opaque.
                    let text = match name {
                        "--eval" | "-E" => value
                            .map(|v| (v, offset + i))
                            .or_else(|| stage.get(i + 1).map(|v| (*v, offset + i + 1))),
                        _ if name.starts_with("-E") && name.len() > 2 => {
                            Some((&name[2..], offset + i))
                        }
                        _ => None,
                    };
                    if let Some((text, at)) = text {
                        if self.literal[at] {
                            self.inner.lenient_scripts.push(text.to_string());
                        } else {
                            self.script(at);
                        }
                    }
                    false
                }
                "git" | "hub" | "yadm" if name == "-c" => {
                    self.git_config(stage, offset, i);
                    false
                }
                _ => false,
            };
            if runs {
                self.option_script(offset + i, value);
            }
        }
    }

    /// A `tar` option (`name`, its `=value`, at `stage[i]`); whether its value (or the next
    /// word) is a command for [`InnerReader::option_script`].
    fn tar_option(
        &mut self,
        name: &str,
        value: Option<&str>,
        stage: &[&str],
        offset: usize,
        i: usize,
    ) -> bool {
        match name {
            "--checkpoint-action" => {
                let (action, at) = match value {
                    Some(v) => (Some(v), offset + i),
                    None => (stage.get(i + 1).copied(), offset + i + 1),
                };
                if let Some(cmd) = action.and_then(|a| a.strip_prefix("exec=")) {
                    if self.literal[at] {
                        self.inner.scripts.push(cmd.to_string());
                    } else {
                        self.script(at);
                    }
                }
                false
            }
            "--to-command" | "--use-compress-program" | "--rsh-command" | "-I" => true,
            _ if name.starts_with("-I") && !name.starts_with("--") && name.len() > 2 => {
                if self.literal[offset + i] {
                    self.inner.scripts.push(name[2..].to_string());
                } else {
                    self.script(offset + i);
                }
                false
            }
            _ => false,
        }
    }

    /// `git -c KEY=VALUE` at `stage[i]`: the command the key's value runs (an alias, a pager,
    /// a filter driver, …).
    fn git_config(&mut self, stage: &[&str], offset: usize, i: usize) {
        let Some((key, value)) = stage.get(i + 1).and_then(|kv| kv.split_once('=')) else {
            return;
        };
        let Some(command) = git_key_command(key, value) else {
            return;
        };
        if self.literal[offset + i + 1] {
            self.inner.scripts.push(command.to_string());
        } else {
            self.inner.unresolved = true;
            self.inner.opaque.get_or_insert_with(|| {
                format!("`git -c {}` runs text the guard cannot read", stage[i + 1])
            });
        }
    }

    /// `git config [--global …] KEY VALUE` (and `git config set KEY VALUE`): a value that is a
    /// command git runs later (`alias.x '!rm -rf ~'`, `core.sshCommand`, a filter driver) is
    /// read for deny and ask, as inline code is; nothing runs it now.
    fn git_config_command(&mut self, stage: &[&str], offset: usize) {
        let Some(config) = stage.iter().position(|w| *w == "config") else {
            return;
        };
        let mut operands = Vec::new();
        let mut i = config + 1;
        while i < stage.len() {
            let word = stage[i];
            if matches!(
                word,
                "-f" | "--file" | "--blob" | "--type" | "--default" | "--comment" | "--value"
            ) {
                i += 2;
                continue;
            }
            // `git config set KEY VALUE`: `set` is the verb, not the key.
            let verb = operands.is_empty() && word == "set";
            if !word.starts_with('-') && !verb {
                operands.push(i);
            }
            i += 1;
        }
        if let [key, value, ..] = operands[..]
            && self.literal[offset + value]
            && let Some(command) = git_key_command(stage[key], stage[value])
        {
            self.inner.code_strings.push(command.to_string());
        }
    }

    /// The commands `fd -x CMD` and `find -exec CMD ;` run for each file.
    fn executed_commands(&mut self, program: &str, stage: &[&str], offset: usize) {
        let owned = |from: usize, to: usize| SimpleCommand {
            words: self.command.words[offset + from..offset + to]
                .iter()
                .cloned()
                .map(Word::into_owned)
                .collect(),
            ..Default::default()
        };
        // `fd PATTERN -x CMD ARGS`: the command fd runs for each file.
        if matches!(program, "fd" | "fdfind")
            && let Some(i) = stage
                .iter()
                .position(|w| matches!(*w, "-x" | "--exec" | "-X" | "--exec-batch"))
            && i + 1 < stage.len()
        {
            let end = (i + 1..stage.len())
                .find(|&j| stage[j] == ";")
                .unwrap_or(stage.len());
            let command = owned(i + 1, end);
            self.inner.commands.push(command);
        }
        if program == "find" {
            for action in find_action_commands(stage) {
                let command = owned(action.start, action.end);
                self.inner.commands.push(command);
            }
        }
    }
}

/// Where, in a `find` stage's words, each command its actions run lies (`-exec`, `-execdir`,
/// `-ok`, `-okdir`, up to their `;` or `+`, or to the end when there is none): the words
/// after the action, the terminator excluded. An action with no command gives none.
pub fn find_action_commands(stage: &[&str]) -> Vec<std::ops::Range<usize>> {
    let mut actions = Vec::new();
    let mut i = 1;
    while i < stage.len() {
        if matches!(stage[i], "-exec" | "-execdir" | "-ok" | "-okdir") {
            let end = (i + 1..stage.len())
                .find(|&j| matches!(stage[j], ";" | "+"))
                .unwrap_or(stage.len());
            if end > i + 1 {
                actions.push(i + 1..end);
            }
            i = end;
        }
        i += 1;
    }
    actions
}

/// The command a git config `key` set to `value` runs, if it runs one: a value starting with
/// `!` for any key (aliases, credential helpers), else the whole value of a command key (a
/// pager, an ssh command, a filter, merge or diff driver).
fn git_key_command<'v>(key: &str, value: &'v str) -> Option<&'v str> {
    let key = key.to_ascii_lowercase();
    value.strip_prefix('!').or_else(|| {
        (GIT_COMMAND_KEYS.contains(&key.as_str())
            || (key.starts_with("filter.")
                && (key.ends_with(".clean")
                    || key.ends_with(".smudge")
                    || key.ends_with(".process")))
            || (key.starts_with("merge.") && key.ends_with(".driver"))
            || (key.starts_with("diff.")
                && (key.ends_with(".textconv") || key.ends_with(".command")))
            || key.starts_with("pager."))
        .then_some(value)
    })
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
    if SHELLS.contains(basename(program)) || matches!(program, "source" | ".") {
        operand()
    } else if program.contains('/') {
        Some(program)
    } else {
        None
    }
}

/// The files `command` downloads to (after its wrappers): `curl -o F` / `--output F` (also at
/// the end of a cluster: `-fsSLo F`), `curl -O URL` / `--remote-name` (the URL's last part),
/// `wget URL` (its last part, unless `-O F` / `--output-document=F` names the file; `-O -`
/// writes stdout), `aria2c URL` (`-o F` / `--out=F`).
pub fn downloaded_files(command: &SimpleCommand<'_>) -> Vec<String> {
    // Every command of every parse is asked: most are no downloader, nor wrap one. Decided
    // without allocating, as `inner_commands` does.
    let first = command.words.first().map(|w| basename(&w.text));
    if !first.is_some_and(|p| matches!(p, "curl" | "wget" | "aria2c") || super::is_wrapper(p)) {
        return Vec::new();
    }
    let words: Vec<&str> = command.words.iter().map(|w| w.text.as_ref()).collect();
    let mut files = Vec::new();
    for stage in peel_stages(&words) {
        let Some(&first) = stage.first() else {
            continue;
        };
        let program = basename(first);
        if !matches!(program, "curl" | "wget" | "aria2c") {
            continue;
        }
        // The option that names the file, and whether the URL's name is used without one.
        let (short, long) = match program {
            "curl" => ('o', "--output"),
            "wget" => ('O', "--output-document"),
            _ => ('o', "--out"),
        };
        let mut named: Option<&str> = None;
        let mut remote_name = program != "curl";
        let mut url: Option<&str> = None;
        let mut i = 1;
        while i < stage.len() {
            let word = stage[i];
            if let Some(value) = word.strip_prefix(long).and_then(|v| v.strip_prefix('=')) {
                named = Some(value);
            } else if word == long {
                named = stage.get(i + 1).copied();
                i += 1;
            } else if word.len() > 1 && word.starts_with('-') && !word.starts_with("--") {
                let cluster = &word[1..];
                if program == "curl" && cluster.contains('O') {
                    remote_name = true;
                }
                if let Some(at) = cluster.find(short) {
                    let value = &cluster[at + 1..];
                    if value.is_empty() {
                        named = stage.get(i + 1).copied();
                        i += 1;
                    } else {
                        named = Some(value);
                    }
                }
            } else if matches!(word, "--remote-name" | "--remote-name-all") {
                remote_name = true;
            } else if word.contains("://") && url.is_none() {
                url = Some(word);
            }
            i += 1;
        }
        match named {
            Some("-") => {}
            Some(file) => files.push(file.to_string()),
            None if remote_name => {
                let name = url.and_then(|u| {
                    let path = u.split(['?', '#']).next()?;
                    let (_, after) = path.split_once("://")?;
                    let (_, name) = after.split_once('/')?;
                    name.rsplit('/').next().filter(|n| !n.is_empty())
                });
                files.extend(name.map(String::from));
            }
            None => {}
        }
    }
    files
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

/// The texts AppleScript `code` hands to a shell: each `do shell script "…"` string literal.
fn apple_shell_scripts(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices("do shell script") {
        let rest = code[at + "do shell script".len()..].trim_start();
        let Some(body) = rest.strip_prefix('"') else {
            continue;
        };
        let mut text = String::new();
        let mut chars = body.chars();
        while let Some(c) = chars.next() {
            match c {
                '"' => break,
                '\\' => text.extend(chars.next()),
                c => text.push(c),
            }
        }
        out.push(text);
    }
    out
}
