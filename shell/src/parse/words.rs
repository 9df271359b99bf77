//! Words: quote removal (`'…'`, `"…"`, `$'…'`, `\`), process substitutions, and whether a
//! word is literal.

use std::borrow::Cow;

use super::{ParseError, Parser, Stop, Word, is_meta, is_plain};

impl<'s> Parser<'s, '_> {
    /// One word: its text after quote removal (expansions kept as written) and whether it
    /// holds no expansion. The text is borrowed from the command while the word is written
    /// there as it reads (no quotes, escapes or expansions: most words), owned otherwise.
    pub(super) fn word(&mut self) -> Result<Word<'s>, ParseError> {
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
                quoted: false,
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
        // Where the double-quoted string the word opens with ends.
        let mut first_quoted_end = None;
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
                        b'"' => {
                            self.double_quoted(text, &mut literal)?;
                            if here == start {
                                first_quoted_end = Some(self.pos);
                            }
                        }
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
                // `A=<(…)` inside a word: a process substitution too (bash outside POSIX
                // mode).
                b'<' | b'>' if here != start && self.peek_at(1) == Some(b'(') => {
                    self.pos += 2;
                    self.nested(|p| p.list(&[Stop::Paren]))?;
                    self.expect_byte(b')')?;
                    literal = false;
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
        Ok(Word {
            text,
            literal,
            quoted: first_quoted_end == Some(self.pos),
        })
    }

    pub(super) fn next_char(&mut self) -> char {
        let c = self.text[self.pos..].chars().next().unwrap_or('\u{fffd}');
        self.pos += c.len_utf8().max(1);
        c
    }

    pub(super) fn single_quoted(&mut self, text: &mut String) -> Result<(), ParseError> {
        self.pos += 1;
        match self.src[self.pos..].iter().position(|&b| b == b'\'') {
            Some(n) => {
                text.push_str(&self.text[self.pos..self.pos + n]);
                self.pos += n + 1;
                Ok(())
            }
            None => Err(ParseError::end_inside(": unterminated `'`")),
        }
    }

    /// `"…"` (or the inside of `$"…"`), from its opening quote.
    pub(super) fn double_quoted(
        &mut self,
        text: &mut String,
        literal: &mut bool,
    ) -> Result<(), ParseError> {
        self.pos += 1;
        loop {
            match self.peek() {
                None => return Err(ParseError::end_inside(": unterminated `\"`")),
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

    /// The inside of `$'…'`, decoded (`\n`, `\t`, `\xHH`, `\NNN`, `\uHHHH`, `\cX`, …).
    pub(super) fn ansi_c(&mut self, text: &mut String) -> Result<(), ParseError> {
        loop {
            match self.peek() {
                None => return Err(ParseError::end_inside(": unterminated `$'`")),
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
