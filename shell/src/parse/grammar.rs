//! The grammar above words: lists, and-or lists, pipelines, compound commands, simple
//! commands and assignments.

use super::{
    MAX_DEPTH, ParseError, Parser, SimpleCommand, Stop, is_meta, is_name_byte, is_name_start,
};

/// The producer of a pipe whose output is not one simple command's (`(a; b) | sh`): no
/// command has this index, so its output is never literal.
const UNKNOWN_PRODUCER: usize = usize::MAX;

impl<'s> Parser<'s, '_> {
    /// A list: and-or lists separated by `;`, `&` or newlines, up to one of `stops`.
    pub(super) fn list(&mut self, stops: &[Stop]) -> Result<(), ParseError> {
        loop {
            self.skip_linebreaks()?;
            if self.at_stop(stops) {
                return Ok(());
            }
            if self.pos >= self.src.len() {
                return Err(ParseError::END);
            }
            self.and_or(stops)?;
            self.skip_blanks();
            match self.peek() {
                Some(b';') if !self.starts_with(";;") && !self.starts_with(";&") => self.pos += 1,
                Some(b'&') if !self.starts_with("&&") && !self.starts_with("&>") => self.pos += 1,
                Some(b'\n') => self.newline()?,
                _ if self.at_stop(stops) => return Ok(()),
                None => return Err(ParseError::END),
                Some(_) => return Err(self.unexpected()),
            }
        }
    }

    fn and_or(&mut self, stops: &[Stop]) -> Result<(), ParseError> {
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

    fn pipeline(&mut self, stops: &[Stop]) -> Result<(), ParseError> {
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
        // The simple command whose output the next stage reads; [`UNKNOWN_PRODUCER`] after a
        // compound one (its output is not one command's).
        self.last_simple = None;
        let mut producer = if self.command(stops)? {
            Some(UNKNOWN_PRODUCER)
        } else {
            self.last_simple.or(Some(UNKNOWN_PRODUCER))
        };
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
            let first = self.out.len();
            self.last_simple = None;
            let compound = self.command(stops)?;
            for command in self.out.iter_mut().skip(first) {
                command.stdin_piped = true;
                if command.fed_by.is_none() {
                    command.fed_by = producer;
                }
            }
            producer = if compound {
                Some(UNKNOWN_PRODUCER)
            } else {
                self.last_simple.or(Some(UNKNOWN_PRODUCER))
            };
        }
    }

    pub(super) fn nested<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, ParseError>,
    ) -> Result<T, ParseError> {
        if self.depth >= MAX_DEPTH {
            return Err(ParseError::TooDeep);
        }
        self.depth += 1;
        let result = f(self);
        self.depth -= 1;
        result
    }

    /// A command; whether it was a compound one.
    fn command(&mut self, stops: &[Stop]) -> Result<bool, ParseError> {
        self.skip_blanks();
        let first = self.out.len();
        let compound = self.compound(stops)?;
        if compound {
            self.trailing_redirects(first)?;
        }
        Ok(compound)
    }

    /// A compound command or function definition if one starts here (then `true`), else a
    /// simple command (then `false`).
    fn compound(&mut self, stops: &[Stop]) -> Result<bool, ParseError> {
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
            return Ok(true);
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

    pub(super) fn expect_byte(&mut self, byte: u8) -> Result<(), ParseError> {
        self.skip_blanks();
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(ParseError::Expected {
                expected: (byte as char).to_string(),
                found: Box::new(self.unexpected()),
            })
        }
    }

    fn do_group(&mut self) -> Result<(), ParseError> {
        self.expect_word("do")?;
        self.list(&[Stop::Word("done")])?;
        self.expect_word("done")
    }

    fn for_clause(&mut self) -> Result<(), ParseError> {
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

    fn case_clause(&mut self) -> Result<(), ParseError> {
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
                return Err(ParseError::end_inside(": `case` without `esac`"));
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
    fn conditional(&mut self) -> Result<(), ParseError> {
        loop {
            self.skip_linebreaks()?;
            if self.at_word("]]") {
                self.pos += 2;
                return Ok(());
            }
            match self.peek() {
                None => return Err(ParseError::end_inside(": `[[` without `]]`")),
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
    fn trailing_redirects(&mut self, first: usize) -> Result<(), ParseError> {
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

    fn simple_command(&mut self) -> Result<(), ParseError> {
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
                        return self.nested(|p| p.command(&[Stop::End])).map(|_| ());
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
        self.last_simple = Some(index);
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
    fn assignment(&mut self, command: &mut SimpleCommand<'s>) -> Result<String, ParseError> {
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
                    None => return Err(ParseError::end_inside(" in an array")),
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
            // `BASH_ENV=<(…)`: a process substitution is the value.
            Some(b) if is_meta(b) && !self.starts_with("<(") && !self.starts_with(">(") => Ok(name),
            Some(_) => {
                let value = self.word()?;
                if !value.literal {
                    command.unresolved = true;
                }
                Ok(format!("{name}{}", value.text))
            }
        }
    }
}
