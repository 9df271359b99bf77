//! Expansions: `$…`, `${…}`, `$(…)`, `$((…))`, backquotes, and the command substitutions
//! of an expanding here-document.

use super::{
    MAX_SEGMENTS, ParseError, Parser, SimpleCommand, Stop, is_name_byte, is_name_start,
    parse_detached,
};

impl<'s> Parser<'s, '_> {
    /// Parse the command substitutions in `text` read as the inside of double quotes.
    pub(super) fn scan_expansions(&mut self, text: &str) -> Result<(), ParseError> {
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
            last_simple: None,
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
    pub(super) fn arithmetic(&mut self, close: &[u8]) -> Result<(), ParseError> {
        let mut parens = 0usize;
        loop {
            match self.peek() {
                None => {
                    return Err(ParseError::end_inside(" in an arithmetic expression"));
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

    /// A `$` form; appends its text (decoded for `$'…'`, as written for expansions). Returns
    /// whether it was an expansion.
    pub(super) fn dollar(
        &mut self,
        text: &mut String,
        in_double_quotes: bool,
    ) -> Result<bool, ParseError> {
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
    fn parameter_braces(&mut self) -> Result<(), ParseError> {
        let mut braces = 0usize;
        let mut scratch = String::new();
        loop {
            match self.peek() {
                None => return Err(ParseError::end_inside(": unterminated `${`")),
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
    pub(super) fn backquote(
        &mut self,
        text: &mut String,
        in_double_quotes: bool,
    ) -> Result<(), ParseError> {
        let start = self.pos;
        self.pos += 1;
        let mut script = String::new();
        loop {
            match self.peek() {
                None => return Err(ParseError::end_inside(": unterminated `` ` ``")),
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
            return Err(ParseError::TooManyCommands);
        }
        text.push_str(&self.text[start..self.pos]);
        Ok(())
    }
}
