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

use std::borrow::Cow;

use super::segment::{Redirect, SimpleCommand, Word};
use super::{MAX_COMMAND_BYTES, MAX_DEPTH, MAX_SEGMENTS};

/// Every simple command of `script`, in the order the parser completes them (a command
/// substitution's commands come before the command whose word holds it).
pub fn simple_commands(script: &str) -> Result<Vec<SimpleCommand<'_>>, String> {
    if script.len() > MAX_COMMAND_BYTES {
        return Err(format!(
            "the command is longer than {MAX_COMMAND_BYTES} bytes"
        ));
    }
    // About one simple command per 40 bytes: growing the vector is most of a long command's
    // reallocation otherwise.
    let mut out = Vec::with_capacity(script.len() / 40 + 4);
    parse_script(script, 0, 0, &mut out)?;
    run_written_scripts(&mut out)?;
    Ok(out)
}

/// A command that writes a literal script to a file (`echo 'rm -rf /' > f.sh`) and one that
/// runs that file (`sh f.sh`) in the same command: the script's commands are listed too, for
/// deny and ask.
fn run_written_scripts(out: &mut Vec<SimpleCommand<'_>>) -> Result<(), String> {
    let same = |a: &str, b: &str| a.trim_start_matches("./") == b.trim_start_matches("./");
    let written: Vec<(String, String)> = out
        .iter()
        .filter_map(|c| {
            let target = c.redirects.iter().find_map(|r| r.writes.clone())?;
            let program = c.program()?;
            if !matches!(program, "echo" | "printf") || !c.words.iter().all(|w| w.literal) {
                return None;
            }
            let body: Vec<&str> = c.words[1..]
                .iter()
                .map(|w| w.text.as_ref())
                .skip_while(|w| w.starts_with('-'))
                .collect();
            Some((target, body.join(" ")))
        })
        .collect();
    if written.is_empty() {
        return Ok(());
    }
    let run: Vec<String> = out
        .iter()
        .filter_map(|c| super::segment::script_file_run(c).map(str::to_string))
        .collect();
    for file in run {
        for (target, body) in &written {
            if same(&file, target) {
                let first = out.len();
                // A written script that does not parse is just data.
                let _ = parse_detached(body, 1, out.len(), out);
                out[first..].iter_mut().for_each(|c| c.deny_only = true);
                if out.len() > MAX_SEGMENTS {
                    return Err(format!(
                        "the command has more than {MAX_SEGMENTS} simple commands"
                    ));
                }
            }
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
) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!("the command nests deeper than {MAX_DEPTH} levels"));
    }
    let mut parser = Parser {
        src: script.as_bytes(),
        text: script,
        pos: 0,
        depth,
        base,
        out,
        heredocs: Vec::new(),
    };
    parser.list(&[Stop::End])?;
    if parser.pos < parser.src.len() {
        return Err(parser.unexpected());
    }
    // A here-document whose delimiter never came ends at the end of the input (bash warns
    // and runs it): there is no body left to read.
    Ok(())
}

/// [`parse_script`] for a text that does not outlive the parse (a backquoted body, a `-c`
/// string, a here-document): its commands are added to `out` owning their words, all or none.
fn parse_detached(
    script: &str,
    depth: usize,
    base: usize,
    out: &mut Vec<SimpleCommand<'_>>,
) -> Result<(), String> {
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

    fn unexpected(&self) -> String {
        match self.peek() {
            None => "unexpected end of the command".into(),
            Some(_) => {
                let rest = &self.text[self.pos..];
                let shown: String = rest.chars().take(20).collect();
                format!(
                    "syntax error at byte {}: unexpected `{}`",
                    self.pos,
                    shown.escape_debug()
                )
            }
        }
    }

    /// List a simple command, and the scripts it runs (`bash -c '…'`, `eval …`, `find -exec`).
    /// How many simple commands are listed so far, nested parses included.
    fn listed(&self) -> usize {
        self.base + self.out.len()
    }

    fn push(&mut self, mut command: SimpleCommand<'s>) -> Result<(), String> {
        if self.listed() >= MAX_SEGMENTS {
            return Err(format!(
                "the command has more than {MAX_SEGMENTS} simple commands"
            ));
        }
        let inner = super::segment::inner_commands(&command);
        if inner.unresolved {
            command.unresolved = true;
        }
        let deny_only = command.deny_only;
        self.out.push(command);
        for script in inner.scripts {
            let first = self.out.len();
            parse_detached(&script, self.depth + 1, self.listed(), self.out)?;
            if deny_only {
                self.out[first..]
                    .iter_mut()
                    .for_each(|c| c.deny_only = true);
            }
        }
        for code in inner.code_strings {
            // A string of inline code that does not parse as shell is just data.
            let first = self.out.len();
            let _ = parse_detached(&code, self.depth + 1, self.listed(), self.out);
            self.out[first..]
                .iter_mut()
                .for_each(|c| c.deny_only = true);
        }
        for mut executed in inner.commands {
            executed.deny_only |= deny_only;
            if self.listed() >= MAX_SEGMENTS {
                return Err(format!(
                    "the command has more than {MAX_SEGMENTS} simple commands"
                ));
            }
            self.out.push(executed);
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
    fn newline(&mut self) -> Result<(), String> {
        debug_assert_eq!(self.peek(), Some(b'\n'));
        self.pos += 1;
        let pending = std::mem::take(&mut self.heredocs);
        for heredoc in pending {
            self.heredoc_body(heredoc)?;
        }
        Ok(())
    }

    /// Skip blanks, comments and newlines.
    fn skip_linebreaks(&mut self) -> Result<(), String> {
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
        self.starts_with(word)
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

    fn expect_word(&mut self, word: &str) -> Result<(), String> {
        self.skip_linebreaks()?;
        if self.at_word(word) {
            self.pos += word.len();
            Ok(())
        } else {
            Err(format!("expected `{word}`: {}", self.unexpected()))
        }
    }

    /// A list: and-or lists separated by `;`, `&` or newlines, up to one of `stops`.
    fn list(&mut self, stops: &[Stop]) -> Result<(), String> {
        loop {
            self.skip_linebreaks()?;
            if self.at_stop(stops) {
                return Ok(());
            }
            if self.pos >= self.src.len() {
                return Err("unexpected end of the command".into());
            }
            self.and_or(stops)?;
            self.skip_blanks();
            match self.peek() {
                Some(b';') if !self.starts_with(";;") && !self.starts_with(";&") => self.pos += 1,
                Some(b'&') if !self.starts_with("&&") && !self.starts_with("&>") => self.pos += 1,
                Some(b'\n') => self.newline()?,
                _ if self.at_stop(stops) => return Ok(()),
                None => return Err("unexpected end of the command".into()),
                Some(_) => return Err(self.unexpected()),
            }
        }
    }

    fn and_or(&mut self, stops: &[Stop]) -> Result<(), String> {
        self.pipeline(stops)?;
        loop {
            self.skip_blanks();
            if self.starts_with("&&") || self.starts_with("||") {
                self.pos += 2;
                self.skip_linebreaks()?;
                self.pipeline(stops)?;
            } else {
                return Ok(());
            }
        }
    }

    fn pipeline(&mut self, stops: &[Stop]) -> Result<(), String> {
        self.skip_blanks();
        loop {
            if self.at_word("!") {
                self.pos += 1;
                self.skip_blanks();
            } else if self.at_word("time") {
                self.pos += 4;
                self.skip_blanks();
                if self.at_word("-p") {
                    self.pos += 2;
                    self.skip_blanks();
                }
            } else {
                break;
            }
        }
        self.command(stops)?;
        loop {
            self.skip_blanks();
            if self.starts_with("|&") {
                self.pos += 2;
            } else if self.peek() == Some(b'|') && !self.starts_with("||") {
                self.pos += 1;
            } else {
                return Ok(());
            }
            self.skip_linebreaks()?;
            self.command(stops)?;
        }
    }

    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T, String>) -> Result<T, String> {
        if self.depth >= MAX_DEPTH {
            return Err(format!("the command nests deeper than {MAX_DEPTH} levels"));
        }
        self.depth += 1;
        let result = f(self);
        self.depth -= 1;
        result
    }

    fn command(&mut self, stops: &[Stop]) -> Result<(), String> {
        self.skip_blanks();
        let first = self.out.len();
        let compound = self.compound(stops)?;
        if compound {
            self.trailing_redirects(first)?;
        }
        Ok(())
    }

    /// A compound command or function definition if one starts here (then `true`), else a
    /// simple command (then `false`).
    fn compound(&mut self, stops: &[Stop]) -> Result<bool, String> {
        if self.starts_with("((") {
            self.pos += 2;
            self.arithmetic(b"))")?;
            return Ok(true);
        }
        if self.peek() == Some(b'(') {
            self.pos += 1;
            self.nested(|p| p.list(&[Stop::Paren]))?;
            self.expect_byte(b')')?;
            return Ok(true);
        }
        if self.at_word("{") {
            self.pos += 1;
            self.nested(|p| p.list(&[Stop::Word("}")]))?;
            self.expect_word("}")?;
            return Ok(true);
        }
        if self.at_word("[[") {
            self.pos += 2;
            self.conditional()?;
            return Ok(true);
        }
        if self.at_word("if") {
            self.pos += 2;
            self.nested(|p| {
                p.list(&[Stop::Word("then")])?;
                p.expect_word("then")?;
                p.list(&[Stop::Word("elif"), Stop::Word("else"), Stop::Word("fi")])?;
                loop {
                    p.skip_linebreaks()?;
                    if p.at_word("elif") {
                        p.pos += 4;
                        p.list(&[Stop::Word("then")])?;
                        p.expect_word("then")?;
                        p.list(&[Stop::Word("elif"), Stop::Word("else"), Stop::Word("fi")])?;
                    } else if p.at_word("else") {
                        p.pos += 4;
                        p.list(&[Stop::Word("fi")])?;
                    } else {
                        return p.expect_word("fi");
                    }
                }
            })?;
            return Ok(true);
        }
        for keyword in ["while", "until"] {
            if self.at_word(keyword) {
                self.pos += keyword.len();
                self.nested(|p| {
                    p.list(&[Stop::Word("do")])?;
                    p.do_group()
                })?;
                return Ok(true);
            }
        }
        for keyword in ["for", "select"] {
            if self.at_word(keyword) {
                self.pos += keyword.len();
                self.nested(|p| p.for_clause())?;
                return Ok(true);
            }
        }
        if self.at_word("case") {
            self.pos += 4;
            self.nested(|p| p.case_clause())?;
            return Ok(true);
        }
        if self.at_word("function") {
            self.pos += 8;
            self.skip_blanks();
            self.word()?;
            self.skip_blanks();
            if self.starts_with("()") {
                self.pos += 2;
            } else if self.peek() == Some(b'(') {
                self.pos += 1;
                self.skip_blanks();
                self.expect_byte(b')')?;
            }
            self.skip_linebreaks()?;
            self.nested(|p| p.command(stops))?;
            return Ok(false);
        }
        if self.at_word("coproc") {
            self.pos += 6;
            self.skip_blanks();
            // `coproc NAME { …; }`: a name before a compound command.
            let save = self.pos;
            if self.peek().is_some_and(is_name_start) {
                while self.peek().is_some_and(is_name_byte) {
                    self.pos += 1;
                }
                self.skip_blanks();
                if !(self.at_word("{") || self.peek() == Some(b'(')) {
                    self.pos = save;
                }
            }
            self.command(stops)?;
            return Ok(false);
        }
        if self.at_stop(stops) || self.peek().is_none() {
            return Err(self.unexpected());
        }
        self.simple_command()?;
        Ok(false)
    }

    fn expect_byte(&mut self, byte: u8) -> Result<(), String> {
        self.skip_blanks();
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(format!(
                "expected `{}`: {}",
                byte as char,
                self.unexpected()
            ))
        }
    }

    fn do_group(&mut self) -> Result<(), String> {
        self.expect_word("do")?;
        self.list(&[Stop::Word("done")])?;
        self.expect_word("done")
    }

    fn for_clause(&mut self) -> Result<(), String> {
        self.skip_blanks();
        if self.starts_with("((") {
            self.pos += 2;
            self.arithmetic(b"))")?;
        } else {
            self.word()?;
            self.skip_linebreaks()?;
            if self.at_word("in") {
                self.pos += 2;
                loop {
                    self.skip_blanks();
                    match self.peek() {
                        Some(b';' | b'\n') | None => break,
                        Some(_) => {
                            self.word()?;
                        }
                    }
                }
            }
        }
        self.skip_blanks();
        if self.peek() == Some(b';') {
            self.pos += 1;
        }
        self.skip_linebreaks()?;
        if self.at_word("{") {
            self.pos += 1;
            self.list(&[Stop::Word("}")])?;
            return self.expect_word("}");
        }
        self.do_group()
    }

    fn case_clause(&mut self) -> Result<(), String> {
        self.skip_blanks();
        self.word()?;
        self.expect_word("in")?;
        loop {
            self.skip_linebreaks()?;
            if self.at_word("esac") {
                self.pos += 4;
                return Ok(());
            }
            if self.peek().is_none() {
                return Err("unexpected end of the command: `case` without `esac`".into());
            }
            if self.peek() == Some(b'(') {
                self.pos += 1;
            }
            loop {
                self.skip_blanks();
                self.word()?;
                self.skip_blanks();
                match self.peek() {
                    Some(b'|') => self.pos += 1,
                    Some(b')') => {
                        self.pos += 1;
                        break;
                    }
                    _ => return Err(self.unexpected()),
                }
            }
            self.list(&[Stop::CaseItem, Stop::Word("esac")])?;
            for terminator in [";;&", ";;", ";&"] {
                if self.starts_with(terminator) {
                    self.pos += terminator.len();
                    break;
                }
            }
        }
    }

    /// `[[ … ]]`: no command runs, but its words may hold substitutions.
    fn conditional(&mut self) -> Result<(), String> {
        loop {
            self.skip_linebreaks()?;
            if self.at_word("]]") {
                self.pos += 2;
                return Ok(());
            }
            match self.peek() {
                None => return Err("unexpected end of the command: `[[` without `]]`".into()),
                Some(b'(' | b')' | b'<' | b'>' | b'!') => self.pos += 1,
                Some(b'&') if self.starts_with("&&") => self.pos += 2,
                Some(b'|') if self.starts_with("||") => self.pos += 2,
                Some(b) if is_meta(b) => return Err(self.unexpected()),
                Some(_) => {
                    self.word()?;
                }
            }
        }
    }

    /// Redirections after a compound command: they apply to every simple command in it
    /// (those listed from `first` on).
    fn trailing_redirects(&mut self, first: usize) -> Result<(), String> {
        let mut command = SimpleCommand::default();
        loop {
            self.skip_blanks();
            if !self.redirect(&mut command)? {
                break;
            }
        }
        for inner in self.out.iter_mut().skip(first) {
            inner.redirects.extend(command.redirects.iter().cloned());
        }
        Ok(())
    }

    fn simple_command(&mut self) -> Result<(), String> {
        let mut command = SimpleCommand {
            words: Vec::with_capacity(8),
            ..SimpleCommand::default()
        };
        let first_heredoc = self.heredocs.len();
        loop {
            self.skip_blanks();
            match self.peek() {
                None | Some(b'\n' | b';' | b'|' | b')') => break,
                Some(b'&') if !self.starts_with("&>") => break,
                Some(b'(') => {
                    // `name ( )`: a function definition.
                    if command.words.len() == 1 && command.assignments.is_empty() {
                        self.pos += 1;
                        self.expect_byte(b')')?;
                        self.skip_linebreaks()?;
                        return self.nested(|p| p.command(&[Stop::End]));
                    }
                    return Err(self.unexpected());
                }
                Some(_) => {}
            }
            if self.redirect(&mut command)? {
                continue;
            }
            if command.words.is_empty() && self.at_assignment() {
                let text = self.assignment(&mut command)?;
                command.assignments.push(text);
                continue;
            }
            let word = self.word()?;
            command.words.push(word);
        }
        let index = self.out.len();
        for heredoc in &mut self.heredocs[first_heredoc..] {
            heredoc.command = Some(index);
        }
        if command.words.is_empty()
            && command.assignments.is_empty()
            && command.redirects.is_empty()
        {
            return Err(self.unexpected());
        }
        self.push(command)
    }

    /// Is the next word `NAME=…`, `NAME+=…` or `NAME[…]=…`?
    fn at_assignment(&self) -> bool {
        let rest = &self.src[self.pos..];
        if !rest.first().is_some_and(|&b| is_name_start(b)) {
            return false;
        }
        let mut i = 1;
        while rest.get(i).is_some_and(|&b| is_name_byte(b)) {
            i += 1;
        }
        if rest.get(i) == Some(&b'[') {
            while rest.get(i).is_some_and(|&b| b != b']' && !is_meta(b)) {
                i += 1;
            }
            if rest.get(i) != Some(&b']') {
                return false;
            }
            i += 1;
        }
        if rest.get(i) == Some(&b'+') {
            i += 1;
        }
        rest.get(i) == Some(&b'=')
    }

    /// An assignment word (`A=1`, `A=(x y)`); its text as written, normalised.
    fn assignment(&mut self, command: &mut SimpleCommand<'s>) -> Result<String, String> {
        let start = self.pos;
        while self.peek() != Some(b'=') {
            self.pos += 1;
        }
        self.pos += 1;
        let name = self.text[start..self.pos].to_string();
        if self.peek() == Some(b'(') {
            // An array: words up to `)`.
            self.pos += 1;
            let mut items = Vec::new();
            loop {
                self.skip_linebreaks()?;
                match self.peek() {
                    Some(b')') => {
                        self.pos += 1;
                        break;
                    }
                    None => return Err("unexpected end of the command in an array".into()),
                    Some(b) if is_meta(b) => return Err(self.unexpected()),
                    Some(_) => {
                        let w = self.word()?;
                        if !w.literal {
                            command.unresolved = true;
                        }
                        items.push(w.text);
                    }
                }
            }
            return Ok(format!("{name}({})", items.join(" ")));
        }
        match self.peek() {
            None => Ok(name),
            Some(b) if is_meta(b) => Ok(name),
            Some(_) => {
                let value = self.word()?;
                if !value.literal {
                    command.unresolved = true;
                }
                Ok(format!("{name}{}", value.text))
            }
        }
    }

    /// A redirection, if one starts here: `[n]>word`, `>>`, `<`, `<>`, `>|`, `&>`, `&>>`,
    /// `>&n`, `<&n`, `<<<word`, `<<DELIM`, `<<-DELIM`, `{var}>word`.
    fn redirect(&mut self, command: &mut SimpleCommand<'s>) -> Result<bool, String> {
        let start = self.pos;
        let mut i = self.pos;
        while self.src.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == self.pos && self.src.get(i) == Some(&b'{') {
            let mut j = i + 1;
            while self.src.get(j).is_some_and(|&b| is_name_byte(b)) {
                j += 1;
            }
            if j > i + 1 && self.src.get(j) == Some(&b'}') {
                i = j + 1;
            }
        }
        let rest = &self.src[i..];
        let operator: &str = if rest.starts_with(b"<<<") {
            "<<<"
        } else if rest.starts_with(b"<<-") {
            "<<-"
        } else if rest.starts_with(b"<<") {
            "<<"
        } else if rest.starts_with(b"&>>") && i == self.pos {
            "&>>"
        } else if rest.starts_with(b"&>") && i == self.pos {
            "&>"
        } else if rest.starts_with(b">>") {
            ">>"
        } else if rest.starts_with(b">&") {
            ">&"
        } else if rest.starts_with(b"<&") {
            "<&"
        } else if rest.starts_with(b">|") {
            ">|"
        } else if rest.starts_with(b"<>") {
            "<>"
        } else if rest.starts_with(b">(") || rest.starts_with(b"<(") {
            // A process substitution is a word, not a redirection.
            return Ok(false);
        } else if rest.starts_with(b">") {
            ">"
        } else if rest.starts_with(b"<") {
            "<"
        } else {
            return Ok(false);
        };
        self.pos = i + operator.len();
        self.skip_blanks();
        if matches!(operator, "<<" | "<<-") {
            let delimiter_start = self.pos;
            let word = self.word()?;
            let raw = &self.text[delimiter_start..self.pos];
            let expands = !raw.contains(['\'', '"', '\\']);
            self.heredocs.push(PendingHeredoc {
                delimiter: word.text.to_string(),
                strip_tabs: operator == "<<-",
                expands,
                command: None,
            });
            command.redirects.push(Redirect {
                text: format!("{}{}", &self.text[start..i + operator.len()], word.text),
                harmless: true,
                writes: None,
            });
            return Ok(true);
        }
        if matches!(self.peek(), None | Some(b'\n' | b';' | b'&' | b'|' | b')')) {
            return Err(format!(
                "a redirection without a target: {}",
                self.unexpected()
            ));
        }
        let target = self.word()?;
        let harmless = match operator {
            ">&" | "<&" => {
                target.text == "-"
                    || target
                        .text
                        .trim_end_matches('-')
                        .bytes()
                        .all(|b| b.is_ascii_digit())
                        && !target.text.is_empty()
            }
            "<<<" => true,
            _ => target.text == "/dev/null",
        } && target.literal;
        if operator == "<<<" {
            command.here_strings.push(target.clone());
        }
        let writes = (matches!(operator, ">" | ">>" | ">|" | "&>" | "&>>") && target.literal)
            .then(|| target.text.to_string());
        command.redirects.push(Redirect {
            text: format!("{}{}", &self.text[start..i + operator.len()], target.text),
            harmless,
            writes,
        });
        Ok(true)
    }

    /// Read the body of `heredoc`, which starts here (just after a newline).
    fn heredoc_body(&mut self, heredoc: PendingHeredoc) -> Result<(), String> {
        let mut body = String::new();
        loop {
            if self.pos >= self.src.len() {
                break;
            }
            let end = self.src[self.pos..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(self.src.len(), |n| self.pos + n);
            let line = &self.text[self.pos..end];
            let compared = if heredoc.strip_tabs {
                line.trim_start_matches('\t')
            } else {
                line
            };
            self.pos = (end + 1).min(self.src.len());
            if compared == heredoc.delimiter {
                break;
            }
            body.push_str(compared);
            body.push('\n');
        }
        if heredoc.expands {
            // The body is expanded like a double-quoted string: substitutions run.
            self.nested(|p| p.scan_expansions(&body))?;
        }
        let owner = heredoc.command.or(self.out.len().checked_sub(1));
        if let Some(command) = owner.and_then(|i| self.out.get_mut(i))
            && super::segment::reads_script_from_stdin(command)
        {
            // `bash <<EOF`: the body is a script the shell runs.
            parse_detached(&body, self.depth + 1, self.listed(), self.out)?;
        }
        Ok(())
    }

    /// Parse the command substitutions in `text` read as the inside of double quotes.
    fn scan_expansions(&mut self, text: &str) -> Result<(), String> {
        if !text.contains(['$', '`']) {
            return Ok(());
        }
        // The text does not outlive this call: its commands are collected apart, then added
        // owning their words.
        let mut detached = Vec::new();
        let mut inner = Parser {
            src: text.as_bytes(),
            text,
            pos: 0,
            depth: self.depth,
            base: self.listed(),
            out: &mut detached,
            heredocs: Vec::new(),
        };
        let mut scratch = String::new();
        while inner.pos < inner.src.len() {
            match inner.peek() {
                Some(b'\\') => {
                    inner.pos += 1;
                    if inner.pos < inner.src.len() {
                        inner.next_char();
                    }
                }
                Some(b'$') => {
                    inner.dollar(&mut scratch, true)?;
                }
                Some(b'`') => {
                    inner.backquote(&mut scratch, true)?;
                }
                Some(_) | None => inner.pos += 1,
            }
        }
        self.out
            .extend(detached.into_iter().map(SimpleCommand::into_owned));
        Ok(())
    }

    /// `(( … ))` or `$(( … ))` from just inside the opening parentheses, up to `close`.
    fn arithmetic(&mut self, close: &[u8]) -> Result<(), String> {
        let mut parens = 0usize;
        loop {
            match self.peek() {
                None => {
                    return Err("unexpected end of the command in an arithmetic expression".into());
                }
                Some(b'(') => {
                    parens += 1;
                    self.pos += 1;
                }
                Some(b')') if parens == 0 && self.src[self.pos..].starts_with(close) => {
                    self.pos += close.len();
                    return Ok(());
                }
                Some(b')') => {
                    parens = parens.saturating_sub(1);
                    self.pos += 1;
                }
                Some(b'$') => {
                    let mut scratch = String::new();
                    self.dollar(&mut scratch, false)?;
                }
                Some(b'`') => {
                    let mut scratch = String::new();
                    self.backquote(&mut scratch, false)?;
                }
                Some(b'\'') => {
                    self.single_quoted(&mut String::new())?;
                }
                Some(b'"') => {
                    self.double_quoted(&mut String::new(), &mut true)?;
                }
                Some(_) => self.pos += 1,
            }
        }
    }

    /// One word: its text after quote removal (expansions kept as written) and whether it
    /// holds no expansion. The text is borrowed from the command while the word is written
    /// there as it reads (no quotes, escapes or expansions: most words), owned otherwise.
    fn word(&mut self) -> Result<Word<'s>, String> {
        let start = self.pos;
        let src = self.text;
        // Process substitution: a word of its own.
        if self.starts_with("<(") || self.starts_with(">(") {
            self.pos += 2;
            self.nested(|p| p.list(&[Stop::Paren]))?;
            self.expect_byte(b')')?;
            return Ok(Word {
                text: Cow::Borrowed(&src[start..self.pos]),
                literal: false,
            });
        }
        let mut owned: Option<String> = None;
        // The text so far, made owned (a quote, an escape or an expansion changes it).
        let own = |owned: &mut Option<String>, upto: usize| {
            if owned.is_none() {
                let mut text = String::with_capacity(upto - start + 16);
                text.push_str(&src[start..upto]);
                *owned = Some(text);
            }
        };
        let mut literal = true;
        let mut brace_open = false;
        let mut brace_list = false;
        let mut bracket_open = false;
        while let Some(b) = self.peek() {
            let here = self.pos;
            // Whether the bytes consumed are the text as written.
            let mut verbatim = true;
            match b {
                b'\\' => {
                    verbatim = false;
                    own(&mut owned, here);
                    let text = owned.as_mut().expect("made owned above");
                    match self.peek_at(1) {
                        Some(b'\n') => self.pos += 2,
                        Some(_) => {
                            self.pos += 1;
                            let c = self.next_char();
                            text.push(c);
                        }
                        None => self.pos += 1,
                    }
                }
                b'\'' | b'"' | b'$' | b'`' => {
                    verbatim = false;
                    own(&mut owned, here);
                    let text = owned.as_mut().expect("made owned above");
                    match b {
                        b'\'' => self.single_quoted(text)?,
                        b'"' => self.double_quoted(text, &mut literal)?,
                        b'$' => {
                            if self.dollar(text, false)? {
                                literal = false;
                            }
                        }
                        _ => {
                            self.backquote(text, false)?;
                            literal = false;
                        }
                    }
                }
                b'~' if here == start => {
                    literal = false;
                    self.pos += 1;
                }
                b'*' | b'?' => {
                    // An extglob `*( … )`, `?( … )`, `@( … )`, `!( … )`, `+( … )` is not
                    // parsed (off by default in a non-interactive bash): an error below.
                    literal = false;
                    self.pos += 1;
                }
                b'[' => {
                    // A bracket expression if a `]` follows in the word (seen below).
                    bracket_open = true;
                    self.pos += 1;
                }
                b']' => {
                    if bracket_open {
                        literal = false;
                    }
                    self.pos += 1;
                }
                b'{' => {
                    brace_open = true;
                    self.pos += 1;
                }
                b',' if brace_open => {
                    brace_list = true;
                    self.pos += 1;
                }
                b'.' if brace_open && self.peek_at(1) == Some(b'.') => {
                    brace_list = true;
                    self.pos += 2;
                }
                b'}' => {
                    if brace_open && brace_list {
                        literal = false;
                    }
                    self.pos += 1;
                }
                b if is_meta(b) => break,
                _ => {
                    // A run of bytes with no meaning to the shell, taken at once. It ends on
                    // an ASCII byte, so on a character boundary.
                    let run = self.src[self.pos..]
                        .iter()
                        .position(|&b| b < 0x80 && !is_plain(b))
                        .map_or(self.src.len(), |n| self.pos + n);
                    if run > self.pos {
                        self.pos = run;
                    } else {
                        self.next_char();
                    }
                }
            }
            if verbatim && let Some(text) = owned.as_mut() {
                text.push_str(&src[here..self.pos]);
            }
        }
        if self.pos == start {
            return Err(self.unexpected());
        }
        let text = match owned {
            Some(text) => Cow::Owned(text),
            None => Cow::Borrowed(&src[start..self.pos]),
        };
        Ok(Word { text, literal })
    }

    fn next_char(&mut self) -> char {
        let c = self.text[self.pos..].chars().next().unwrap_or('\u{fffd}');
        self.pos += c.len_utf8().max(1);
        c
    }

    fn single_quoted(&mut self, text: &mut String) -> Result<(), String> {
        self.pos += 1;
        match self.src[self.pos..].iter().position(|&b| b == b'\'') {
            Some(n) => {
                text.push_str(&self.text[self.pos..self.pos + n]);
                self.pos += n + 1;
                Ok(())
            }
            None => Err("unexpected end of the command: unterminated `'`".into()),
        }
    }

    /// `"…"` (or the inside of `$"…"`), from its opening quote.
    fn double_quoted(&mut self, text: &mut String, literal: &mut bool) -> Result<(), String> {
        self.pos += 1;
        loop {
            match self.peek() {
                None => return Err("unexpected end of the command: unterminated `\"`".into()),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\\') => match self.peek_at(1) {
                    Some(b'\n') => self.pos += 2,
                    Some(b'$' | b'`' | b'"' | b'\\') => {
                        text.push(self.src[self.pos + 1] as char);
                        self.pos += 2;
                    }
                    _ => {
                        text.push('\\');
                        self.pos += 1;
                    }
                },
                Some(b'$') => {
                    if self.dollar(text, true)? {
                        *literal = false;
                    }
                }
                Some(b'`') => {
                    self.backquote(text, true)?;
                    *literal = false;
                }
                Some(_) => {
                    let run = self.src[self.pos..]
                        .iter()
                        .position(|&b| matches!(b, b'"' | b'\\' | b'$' | b'`'))
                        .map_or(self.src.len(), |n| self.pos + n);
                    text.push_str(&self.text[self.pos..run]);
                    self.pos = run;
                }
            }
        }
    }

    /// A `$` form; appends its text (decoded for `$'…'`, as written for expansions). Returns
    /// whether it was an expansion.
    fn dollar(&mut self, text: &mut String, in_double_quotes: bool) -> Result<bool, String> {
        let start = self.pos;
        match self.peek_at(1) {
            Some(b'\'') if !in_double_quotes => {
                self.pos += 2;
                self.ansi_c(text)?;
                Ok(false)
            }
            Some(b'"') if !in_double_quotes => {
                self.pos += 1;
                let mut literal = true;
                self.double_quoted(text, &mut literal)?;
                Ok(!literal)
            }
            Some(b'(') if self.peek_at(2) == Some(b'(') => {
                self.pos += 3;
                self.nested(|p| p.arithmetic(b"))"))?;
                text.push_str(&self.text[start..self.pos]);
                Ok(true)
            }
            Some(b'(') => {
                self.pos += 2;
                self.nested(|p| p.list(&[Stop::Paren]))?;
                self.expect_byte(b')')?;
                text.push_str(&self.text[start..self.pos]);
                Ok(true)
            }
            Some(b'{') => {
                self.pos += 2;
                self.nested(|p| p.parameter_braces())?;
                text.push_str(&self.text[start..self.pos]);
                Ok(true)
            }
            Some(b) if is_name_start(b) => {
                self.pos += 1;
                while self.peek().is_some_and(is_name_byte) {
                    self.pos += 1;
                }
                text.push_str(&self.text[start..self.pos]);
                Ok(true)
            }
            Some(b'0'..=b'9' | b'@' | b'*' | b'#' | b'?' | b'-' | b'$' | b'!') => {
                self.pos += 2;
                text.push_str(&self.text[start..self.pos]);
                Ok(true)
            }
            _ => {
                self.pos += 1;
                text.push('$');
                Ok(false)
            }
        }
    }

    /// `${ … }` from just inside the brace: nested braces, quotes and substitutions.
    fn parameter_braces(&mut self) -> Result<(), String> {
        let mut braces = 0usize;
        let mut scratch = String::new();
        loop {
            match self.peek() {
                None => return Err("unexpected end of the command: unterminated `${`".into()),
                Some(b'}') if braces == 0 => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'}') => {
                    braces -= 1;
                    self.pos += 1;
                }
                Some(b'{') => {
                    braces += 1;
                    self.pos += 1;
                }
                Some(b'\\') => {
                    self.pos += 1;
                    if self.pos < self.src.len() {
                        self.next_char();
                    }
                }
                Some(b'\'') => self.single_quoted(&mut scratch)?,
                Some(b'"') => self.double_quoted(&mut scratch, &mut true)?,
                Some(b'$') => {
                    self.dollar(&mut scratch, false)?;
                }
                Some(b'`') => self.backquote(&mut scratch, false)?,
                Some(_) => {
                    self.next_char();
                }
            }
        }
    }

    /// `` `…` ``: the text up to the closing backquote, unescaped, is parsed as a script.
    fn backquote(&mut self, text: &mut String, in_double_quotes: bool) -> Result<(), String> {
        let start = self.pos;
        self.pos += 1;
        let mut script = String::new();
        loop {
            match self.peek() {
                None => return Err("unexpected end of the command: unterminated `` ` ``".into()),
                Some(b'`') => {
                    self.pos += 1;
                    break;
                }
                Some(b'\\') => match self.peek_at(1) {
                    Some(b'`' | b'\\' | b'$') => {
                        script.push(self.src[self.pos + 1] as char);
                        self.pos += 2;
                    }
                    Some(b'"') if in_double_quotes => {
                        script.push('"');
                        self.pos += 2;
                    }
                    _ => {
                        script.push('\\');
                        self.pos += 1;
                    }
                },
                Some(_) => {
                    let c = self.next_char();
                    script.push(c);
                }
            }
        }
        parse_detached(&script, self.depth + 1, self.listed(), self.out)?;
        if self.listed() > MAX_SEGMENTS {
            return Err(format!(
                "the command has more than {MAX_SEGMENTS} simple commands"
            ));
        }
        text.push_str(&self.text[start..self.pos]);
        Ok(())
    }

    /// The inside of `$'…'`, decoded (`\n`, `\t`, `\xHH`, `\NNN`, `\uHHHH`, `\cX`, …).
    fn ansi_c(&mut self, text: &mut String) -> Result<(), String> {
        loop {
            match self.peek() {
                None => return Err("unexpected end of the command: unterminated `$'`".into()),
                Some(b'\'') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let Some(e) = self.peek() else { continue };
                    if !e.is_ascii() {
                        text.push('\\');
                        continue;
                    }
                    self.pos += 1;
                    let simple = match e {
                        b'a' => Some('\u{7}'),
                        b'b' => Some('\u{8}'),
                        b'e' | b'E' => Some('\u{1b}'),
                        b'f' => Some('\u{c}'),
                        b'n' => Some('\n'),
                        b'r' => Some('\r'),
                        b't' => Some('\t'),
                        b'v' => Some('\u{b}'),
                        b'\\' => Some('\\'),
                        b'\'' => Some('\''),
                        b'"' => Some('"'),
                        b'?' => Some('?'),
                        _ => None,
                    };
                    if let Some(c) = simple {
                        text.push(c);
                        continue;
                    }
                    let digits = |p: &mut Self, max: usize, radix: u32| -> Option<u32> {
                        let begin = p.pos;
                        while p.pos - begin < max
                            && p.peek().is_some_and(|b| (b as char).is_digit(radix))
                        {
                            p.pos += 1;
                        }
                        u32::from_str_radix(&p.text[begin..p.pos], radix).ok()
                    };
                    let code = match e {
                        b'x' => digits(self, 2, 16),
                        b'u' => digits(self, 4, 16),
                        b'U' => digits(self, 8, 16),
                        b'0'..=b'7' => {
                            self.pos -= 1;
                            digits(self, 3, 8)
                        }
                        b'c' => match self.peek() {
                            Some(b) if b.is_ascii() => {
                                self.pos += 1;
                                Some(u32::from(b & 0x1f))
                            }
                            _ => None,
                        },
                        _ => {
                            text.push('\\');
                            text.push(e as char);
                            continue;
                        }
                    };
                    match code {
                        Some(code) if e == b'x' || (b'0'..=b'7').contains(&e) => {
                            // A byte: ASCII as is, others as the Latin-1 character (a lone
                            // byte is no UTF-8; what matters is that it is not lost).
                            text.push(char::from_u32(code & 0xff).unwrap_or('\u{fffd}'));
                        }
                        Some(code) => text.push(char::from_u32(code).unwrap_or('\u{fffd}')),
                        None => {
                            text.push('\\');
                            text.push(e as char);
                        }
                    }
                }
                Some(_) => {
                    let c = self.next_char();
                    text.push(c);
                }
            }
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
