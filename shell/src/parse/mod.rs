//! A recursive-descent parser for the Bash grammar, producing the simple commands a script
//! would run.
//!
//! It follows the grammar of the Bash manual ("Shell Grammar", "Quoting", "Shell Expansions",
//! "Redirections"): lists (`;`, `&`, newline), and-or lists (`&&`, `||`), pipelines (`|`,
//! `|&`, `!`, `time`), compound commands (`( )`, `{ }`, `(( ))`, `[[ ]]`, `if`, `while`,
//! `until`, `for`, `select`, `case`), function definitions, `coproc`, and words with every kind
//! of quoting and expansion (`'…'`, `"…"`, `$'…'`, `$"…"`, `\`, `$x`, `${…}`, `$(…)`,
//! `` `…` ``, `$((…))`, `<(…)`, `>(…)`), assignments (including arrays), redirections and
//! here-documents. Command substitutions, process substitutions and backquotes are parsed in
//! place, so the commands inside them are listed too.
//!
//! **Bounded.** Every byte is read once per nesting level, and nesting is capped at
//! [`MAX_DEPTH`](super::MAX_DEPTH) (backquoted text, which must be unescaped and read again, and
//! `bash -c` strings count as levels), input at [`MAX_COMMAND_BYTES`](super::MAX_COMMAND_BYTES),
//! output at [`MAX_SEGMENTS`](super::MAX_SEGMENTS): the time is linear in the input, and a cap
//! reached is an error ("unparseable"), never a hang or a stack overflow.
//!
//! The parser is tested against brush-parser, a complete independent Bash parser, on tens of
//! thousands of real commands (`engine/tests/shell_parser_agrees.rs`).

use super::segment::{Redirect, SimpleCommand, Word};
use super::{MAX_COMMAND_BYTES, MAX_DEPTH, MAX_SEGMENTS};
pub use error::ParseError;

mod error;
mod expansions;
mod grammar;
mod redirect;
mod words;

/// Every simple command of `script`, in the order the parser completes them (a command
/// substitution's commands come before the command whose word holds it).
pub fn simple_commands(script: &str) -> Result<Vec<SimpleCommand<'_>>, ParseError> {
    if script.len() > MAX_COMMAND_BYTES {
        return Err(ParseError::TooLong);
    }
    // About one simple command per 40 bytes: growing the vector is most of a long command's
    // reallocation otherwise.
    let mut out = Vec::with_capacity(script.len() / 40 + 4);
    parse_script(script, 0, 0, &mut out)?;
    run_written_scripts(&mut out)?;
    run_aliases(&mut out)?;
    Ok(out)
}

/// A command that writes a script to a file (`echo 'rm -rf /' > f.sh`, `printf '%s\n' 'rm -rf
/// ~' > f.sh`, `cat > f.sh <<'EOF'`) and one that runs that file (`sh f.sh`, `source f.sh`,
/// `./f.sh`) in the same command: the script's commands are listed too, for deny and ask. A
/// file the same command downloads (`curl -o f.sh URL`, `wget URL`) and then runs is code
/// nobody has read, as `curl URL | sh` is: that run is opaque.
fn run_written_scripts(out: &mut Vec<SimpleCommand<'_>>) -> Result<(), ParseError> {
    let same = |a: &str, b: &str| a.trim_start_matches("./") == b.trim_start_matches("./");
    let mut written: Vec<(String, String)> = Vec::new();
    let mut downloaded: Vec<String> = Vec::new();
    for c in out.iter() {
        if let Some(target) = c.redirects.iter().find_map(|r| r.writes.clone())
            && let Some(body) = written_text(c)
        {
            written.push((target, body));
        }
        downloaded.extend(super::segment::downloaded_files(c));
    }
    if written.is_empty() && downloaded.is_empty() {
        return Ok(());
    }
    let mut run: Vec<String> = Vec::new();
    for c in out.iter_mut() {
        let Some(file) = super::segment::script_file_run(c).map(str::to_string) else {
            continue;
        };
        if let Some(from) = downloaded.iter().find(|d| same(&file, d)) {
            c.opaque.get_or_insert_with(|| {
                format!("it runs `{from}`, which the same command downloads: code nobody has read")
            });
        }
        run.push(file);
    }
    for file in run {
        for (target, body) in &written {
            if same(&file, target) {
                list_for_deny_only(body, out)?;
            }
        }
    }
    Ok(())
}

/// The text `command` writes to its stdout when that is a script's text: its literal output
/// ([`super::segment::literal_output`]), else what an `echo` or `printf` prints with its
/// expansions as written (`echo rm -rf ~ > f.sh`: the rules read `~` as the home it expands
/// to).
fn written_text(command: &SimpleCommand<'_>) -> Option<String> {
    if let Some(text) = super::segment::literal_output(command) {
        return Some(text);
    }
    let program = command.program()?;
    let mut words = command.words[1..]
        .iter()
        .map(|w| w.text.as_ref())
        .skip_while(|w| w.starts_with('-'))
        .peekable();
    // `printf FORMAT ARGS…` with a conversion in the format: the arguments are the text.
    if program == "printf" && words.peek().is_some_and(|format| format.contains('%')) {
        words.next();
    }
    matches!(program, "echo" | "printf").then(|| words.collect::<Vec<_>>().join(" "))
}

/// List the commands of `text`, which the line runs later (a script it writes, an alias's
/// body), for deny and ask only. Text that does not parse is just data.
fn list_for_deny_only(text: &str, out: &mut Vec<SimpleCommand<'_>>) -> Result<(), ParseError> {
    let first = out.len();
    let _ = parse_detached(text, 1, out.len(), out);
    out[first..].iter_mut().for_each(|c| c.deny_only = true);
    if out.len() > MAX_SEGMENTS {
        return Err(ParseError::TooManyCommands);
    }
    Ok(())
}

/// An alias the same command defines and then uses (`alias x='rm -rf ~'` and, on a later
/// line, `x`, which runs where aliases expand): the alias's body is listed too, for deny and
/// ask. A body holding an expansion is not followed (what it runs is read where it is used);
/// defining an alias alone runs nothing.
fn run_aliases(out: &mut Vec<SimpleCommand<'_>>) -> Result<(), ParseError> {
    let defined: Vec<(String, String)> = out
        .iter()
        .filter(|c| c.program() == Some("alias"))
        .flat_map(|c| c.words[1..].iter())
        .filter(|w| w.literal)
        .filter_map(|w| {
            let (name, body) = w.text.split_once('=')?;
            (!name.is_empty() && !body.contains(['$', '`']))
                .then(|| (name.to_string(), body.to_string()))
        })
        .collect();
    if defined.is_empty() {
        return Ok(());
    }
    let used: Vec<String> = out
        .iter()
        .filter_map(|c| c.program().map(str::to_string))
        .collect();
    for (name, body) in &defined {
        if used.iter().any(|program| program == name) {
            list_for_deny_only(body, out)?;
        }
    }
    Ok(())
}

/// Parse a whole script (a command string, a backquoted text, a `-c` string) at `depth`;
/// `base` simple commands are already listed (the cap counts them all).
pub(super) fn parse_script<'s>(
    script: &'s str,
    depth: usize,
    base: usize,
    out: &mut Vec<SimpleCommand<'s>>,
) -> Result<(), ParseError> {
    if depth > MAX_DEPTH {
        return Err(ParseError::TooDeep);
    }
    let mut parser = Parser {
        src: script.as_bytes(),
        text: script,
        pos: 0,
        depth,
        base,
        out,
        heredocs: Vec::new(),
        last_simple: None,
    };
    let first = parser.out.len();
    parser.list(&[Stop::End])?;
    if parser.pos < parser.src.len() {
        return Err(parser.unexpected());
    }
    resolve_feeds(first, depth, base, out)?;
    // A here-document whose delimiter never came ends at the end of the input (bash warns
    // and runs it): there is no body left to read.
    Ok(())
}

/// The commands from `first` on that read their program from a pipe (`echo '…' | sh`,
/// `printf … | bash`, `cat <<EOF | sh`, `… | python3`): the text the pipe carries, when the
/// command writing it writes literal text, is parsed as the script they run (for an
/// interpreter, its string literals, for deny and ask); otherwise the reader is opaque.
fn resolve_feeds(
    first: usize,
    depth: usize,
    base: usize,
    out: &mut Vec<SimpleCommand<'_>>,
) -> Result<(), ParseError> {
    use crate::segment::code::{Language, shell_texts};
    use crate::segment::{StdinProgram, literal_output, stdin_program, string_literals};
    let end = out.len();
    for i in first..end {
        let Some(producer) = out[i].fed_by.take() else {
            continue;
        };
        let Some((kind, program)) = stdin_program(&out[i]).map(|(k, p)| (k, p.to_string())) else {
            continue;
        };
        let text = out.get(producer).and_then(literal_output);
        let deny_only = out[i].deny_only;
        let at = out.len();
        let parsed = match (&text, kind) {
            (Some(text), StdinProgram::Shell) => {
                parse_detached(text, depth + 1, base + out.len(), out).is_ok()
            }
            (Some(text), StdinProgram::Interpreter) => {
                let language = Language::of(&program);
                let texts = match language {
                    Some(language) => shell_texts(language, text),
                    None => string_literals(text),
                };
                for code in texts {
                    let from = out.len();
                    let _ = parse_detached(&code, depth + 1, base + out.len(), out);
                    out[from..].iter_mut().for_each(|c| c.deny_only = true);
                }
                true
            }
            (Some(text), StdinProgram::Sql) => {
                if let Some(sql) = crate::segment::sql_segment(&out[i], text) {
                    out.push(sql);
                }
                true
            }
            // SQL the guard cannot read is the client's business, as a file it reads is.
            (None, StdinProgram::Sql) => true,
            (None, _) => false,
        };
        if deny_only {
            out[at..].iter_mut().for_each(|c| c.deny_only = true);
        }
        if !parsed {
            out[i].opaque.get_or_insert_with(|| {
                let why = if text.is_some() {
                    "text that does not parse"
                } else {
                    "text the guard cannot read"
                };
                format!("`{program}` reads its program from a pipe carrying {why}")
            });
        }
        if base + out.len() > MAX_SEGMENTS {
            return Err(ParseError::TooManyCommands);
        }
    }
    Ok(())
}

/// [`parse_script`] for a text that does not outlive the parse (a backquoted body, a `-c`
/// string, a here-document): its commands are added to `out` owning their words, all or none.
fn parse_detached(
    script: &str,
    depth: usize,
    base: usize,
    out: &mut Vec<SimpleCommand<'_>>,
) -> Result<(), ParseError> {
    let mut detached = Vec::new();
    parse_script(script, depth, base, &mut detached)?;
    out.extend(detached.into_iter().map(SimpleCommand::into_owned));
    Ok(())
}

/// What ends a list.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// The end of the input.
    End,
    /// `)`: a subshell, a command or process substitution.
    Paren,
    /// A reserved word (`}`, `then`, `fi`, `do`, `done`, `else`, `elif`, `esac`).
    Word(&'static str),
    /// `;;`, `;&`, `;;&`: the end of a case item.
    CaseItem,
}

/// A here-document waiting for its body (read after the next newline).
struct PendingHeredoc {
    delimiter: String,
    strip_tabs: bool,
    expands: bool,
    /// The command it belongs to, by index in `out`, if already pushed; else the command
    /// being built takes it.
    command: Option<usize>,
}

struct Parser<'s, 'o> {
    src: &'s [u8],
    text: &'s str,
    pos: usize,
    depth: usize,
    /// Simple commands listed before `out`'s (by the parse this one is nested in).
    base: usize,
    out: &'o mut Vec<SimpleCommand<'s>>,
    heredocs: Vec<PendingHeredoc>,
    /// The last simple command listed (by index in `out`): a pipeline's producer.
    last_simple: Option<usize>,
}

/// Bytes that end an unquoted word.
fn is_meta(b: u8) -> bool {
    matches!(
        b,
        b' ' | b'\t' | b'\n' | b';' | b'&' | b'|' | b'(' | b')' | b'<' | b'>'
    )
}

/// An ASCII byte with no meaning to the shell inside an unquoted word (`.` and `,` count as
/// meaningful: brace expansion).
fn is_plain(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'-' | b'_' | b'/' | b'=' | b':' | b'+' | b'@' | b'%' | b'^'
        )
}

fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl<'s> Parser<'s, '_> {
    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<u8> {
        self.src.get(self.pos + offset).copied()
    }

    fn starts_with(&self, s: &str) -> bool {
        self.src[self.pos..].starts_with(s.as_bytes())
    }

    fn unexpected(&self) -> ParseError {
        match self.peek() {
            None => ParseError::END,
            Some(_) => ParseError::Unexpected {
                at: self.pos,
                shown: self.text[self.pos..]
                    .chars()
                    .take(20)
                    .collect::<String>()
                    .escape_debug()
                    .to_string(),
            },
        }
    }

    /// List a simple command, and the scripts it runs (`bash -c '…'`, `eval …`, `find -exec`).
    /// How many simple commands are listed so far, nested parses included.
    fn listed(&self) -> usize {
        self.base + self.out.len()
    }

    /// The commands listed from `first` on run inside a deny-only command: they are too.
    fn inherit_deny_only(&mut self, first: usize, deny_only: bool) {
        if deny_only {
            self.out[first..]
                .iter_mut()
                .for_each(|c| c.deny_only = true);
        }
    }

    fn push(&mut self, mut command: SimpleCommand<'s>) -> Result<(), ParseError> {
        if self.listed() >= MAX_SEGMENTS {
            return Err(ParseError::TooManyCommands);
        }
        let inner = super::segment::inner_commands(&command);
        if inner.unresolved {
            command.unresolved = true;
        }
        if command.opaque.is_none() {
            command.opaque = inner.opaque;
        }
        let opaque_at = self.out.len();
        let deny_only = command.deny_only;
        self.out.push(command);
        for script in inner.scripts {
            let first = self.out.len();
            parse_detached(&script, self.depth + 1, self.listed(), self.out)?;
            self.inherit_deny_only(first, deny_only);
        }
        for text in inner.lenient_scripts {
            let first = self.out.len();
            if parse_detached(&text, self.depth + 1, self.listed(), self.out).is_err() {
                self.out[opaque_at].opaque.get_or_insert_with(|| {
                    "it runs text that does not parse as shell commands".to_string()
                });
            }
            self.inherit_deny_only(first, deny_only);
        }
        for code in inner.code_strings {
            // A string of inline code that does not parse as shell is just data.
            let first = self.out.len();
            let _ = parse_detached(&code, self.depth + 1, self.listed(), self.out);
            self.inherit_deny_only(first, true);
        }
        // A command another runs (`find … -exec sh -c '…' \;`, `fd -x …`) is read as any
        // command is, its own `-c` strings and inline code included. Each is a strict part of
        // the words of the command that runs it, so this ends.
        for mut executed in inner.commands {
            executed.deny_only |= deny_only;
            self.push(executed)?;
        }
        Ok(())
    }

    /// Skip spaces, tabs, line continuations and a comment (not the newline ending it).
    fn skip_blanks(&mut self) {
        loop {
            match self.peek() {
                Some(b' ' | b'\t') => self.pos += 1,
                Some(b'\\') if self.peek_at(1) == Some(b'\n') => self.pos += 2,
                Some(b'#') => {
                    while self.peek().is_some_and(|b| b != b'\n') {
                        self.pos += 1;
                    }
                }
                _ => return,
            }
        }
    }

    /// Consume one newline, then the bodies of the here-documents waiting for it.
    fn newline(&mut self) -> Result<(), ParseError> {
        debug_assert_eq!(self.peek(), Some(b'\n'));
        self.pos += 1;
        let pending = std::mem::take(&mut self.heredocs);
        for heredoc in pending {
            self.heredoc_body(heredoc)?;
        }
        Ok(())
    }

    /// Skip blanks, comments and newlines.
    fn skip_linebreaks(&mut self) -> Result<(), ParseError> {
        loop {
            self.skip_blanks();
            if self.peek() == Some(b'\n') {
                self.newline()?;
            } else {
                return Ok(());
            }
        }
    }

    /// Is the next token the reserved word `word` (followed by a metacharacter or the end)?
    fn at_word(&self, word: &str) -> bool {
        // The first byte first: most words are not the reserved word asked about.
        self.src.get(self.pos) == word.as_bytes().first()
            && self.starts_with(word)
            && self
                .src
                .get(self.pos + word.len())
                .is_none_or(|&b| is_meta(b))
    }

    fn at_stop(&self, stops: &[Stop]) -> bool {
        stops.iter().any(|stop| match stop {
            Stop::End => self.pos >= self.src.len(),
            Stop::Paren => self.peek() == Some(b')'),
            Stop::Word(w) => self.at_word(w),
            Stop::CaseItem => self.starts_with(";;") || self.starts_with(";&"),
        })
    }

    fn expect_word(&mut self, word: &str) -> Result<(), ParseError> {
        self.skip_linebreaks()?;
        if self.at_word(word) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(ParseError::Expected {
                expected: word.to_string(),
                found: Box::new(self.unexpected()),
            })
        }
    }
}

impl SimpleCommand<'_> {
    /// The program word, if literal.
    pub fn program(&self) -> Option<&str> {
        self.words
            .first()
            .filter(|w| w.literal)
            .map(|w| w.text.as_ref())
    }
}
