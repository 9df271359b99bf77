//! JSON with comments (JSONC), as Claude's settings files are written, with the place of every
//! value: a small recursive-descent reader whose only job is to say `file:line:column` for each
//! entry it hands on.
//!
//! Accepted beyond strict JSON: `//` and `/* */` comments and a trailing comma before `]` or
//! `}`. Everything else is strict JSON: a syntax error names its line and column.
//!
//! ```
//! use compiler::jsonc::{parse, Value};
//! let doc = parse("// settings\n{\"permissions\": {\"allow\": [\"Bash(ls:*)\",]}}").unwrap();
//! let allow = doc.get("permissions").unwrap().get("allow").unwrap();
//! let Value::Array(items) = &allow.value else { panic!() };
//! assert_eq!((items[0].line, items[0].column), (2, 28));
//! ```

/// A value and where it starts (1-based line and column, counted in characters).
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The value.
    pub value: Value,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
}

/// A JSON value whose members carry their places.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number, as written.
    Number(String),
    /// A string, unescaped.
    String(String),
    /// An array.
    Array(Vec<Node>),
    /// An object's members in the order written (a repeated key keeps every occurrence; the
    /// last one wins in [`Node::get`], as in `JSON.parse`).
    Object(Vec<(String, Node)>),
}

impl Node {
    /// The value without its places, as `serde_json` holds it (a repeated key: the last one).
    pub fn to_json(&self) -> serde_json::Value {
        match &self.value {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => (*b).into(),
            // The reader accepts only JSON number syntax, which serde_json reads back.
            Value::Number(n) => serde_json::from_str(n).unwrap_or(serde_json::Value::Null),
            Value::String(s) => s.clone().into(),
            Value::Array(items) => items.iter().map(Node::to_json).collect(),
            Value::Object(m) => m.iter().map(|(k, v)| (k.clone(), v.to_json())).collect(),
        }
    }

    /// The member `key` of an object (the last one written), if this is an object holding it.
    pub fn get(&self, key: &str) -> Option<&Node> {
        match &self.value {
            Value::Object(members) => members.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// A short name of the value's type, for messages.
    pub fn type_name(&self) -> &'static str {
        match self.value {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "an array",
            Value::Object(_) => "an object",
        }
    }
}

/// A syntax error and where it is.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{column}: {message}")]
pub struct SyntaxError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// What was expected.
    pub message: String,
}

/// How deep arrays and objects may nest (a settings file nests about four levels).
const MAX_DEPTH: usize = 128;

/// Where a document first leaves strict JSON (a comment or a trailing comma), and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extension {
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// `a comment` or `a trailing comma`.
    pub what: &'static str,
}

/// Read one JSONC document.
pub fn parse(text: &str) -> Result<Node, SyntaxError> {
    parse_noting(text).map(|(node, _)| node)
}

/// Read one JSONC document, and say where it first uses what strict JSON does not allow.
pub fn parse_noting(text: &str) -> Result<(Node, Option<Extension>), SyntaxError> {
    let mut reader = Reader {
        chars: text.chars().collect(),
        at: 0,
        line: 1,
        column: 1,
        extension: None,
    };
    // A byte-order mark is not part of the document.
    if reader.peek() == Some('\u{feff}') {
        reader.bump();
    }
    let node = reader.value(0)?;
    reader.skip_space()?;
    match reader.peek() {
        None => Ok((node, reader.extension)),
        Some(c) => Err(reader.error(format!(
            "unexpected `{}` after the document's value",
            c.escape_debug()
        ))),
    }
}

struct Reader {
    chars: Vec<char>,
    at: usize,
    line: u32,
    column: u32,
    extension: Option<Extension>,
}

impl Reader {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += 1;
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn note(&mut self, what: &'static str) {
        if self.extension.is_none() {
            self.extension = Some(Extension {
                line: self.line,
                column: self.column,
                what,
            });
        }
    }

    fn error(&self, message: String) -> SyntaxError {
        SyntaxError {
            line: self.line,
            column: self.column,
            message,
        }
    }

    fn skip_space(&mut self) -> Result<(), SyntaxError> {
        loop {
            match self.peek() {
                Some(' ' | '\t' | '\n' | '\r') => {
                    self.bump();
                }
                Some('/') => match self.chars.get(self.at + 1) {
                    Some('/') => {
                        self.note("a comment");
                        while self.peek().is_some_and(|c| c != '\n') {
                            self.bump();
                        }
                    }
                    Some('*') => {
                        self.note("a comment");
                        let (line, column) = (self.line, self.column);
                        self.bump();
                        self.bump();
                        loop {
                            match self.bump() {
                                Some('*') if self.peek() == Some('/') => {
                                    self.bump();
                                    break;
                                }
                                Some(_) => {}
                                None => {
                                    return Err(SyntaxError {
                                        line,
                                        column,
                                        message: "this `/*` comment is never closed".into(),
                                    });
                                }
                            }
                        }
                    }
                    _ => return Ok(()),
                },
                _ => return Ok(()),
            }
        }
    }

    fn value(&mut self, depth: usize) -> Result<Node, SyntaxError> {
        self.skip_space()?;
        let (line, column) = (self.line, self.column);
        let value = match self.peek() {
            None => return Err(self.error("the document ends where a value was expected".into())),
            Some('{') | Some('[') if depth >= MAX_DEPTH => {
                return Err(self.error(format!("nesting deeper than {MAX_DEPTH} levels")));
            }
            Some('{') => self.object(depth)?,
            Some('[') => self.array(depth)?,
            Some('"') => Value::String(self.string()?),
            Some('t') => self.word("true", Value::Bool(true))?,
            Some('f') => self.word("false", Value::Bool(false))?,
            Some('n') => self.word("null", Value::Null)?,
            Some(c) if c == '-' || c.is_ascii_digit() => self.number()?,
            Some(c) => {
                return Err(self.error(format!(
                    "unexpected `{}` where a value was expected",
                    c.escape_debug()
                )));
            }
        };
        Ok(Node {
            value,
            line,
            column,
        })
    }

    fn word(&mut self, word: &str, value: Value) -> Result<Value, SyntaxError> {
        for expected in word.chars() {
            if self.peek() != Some(expected) {
                return Err(self.error(format!("expected `{word}`")));
            }
            self.bump();
        }
        Ok(value)
    }

    fn number(&mut self) -> Result<Value, SyntaxError> {
        let start = self.at;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | 'e' | 'E'))
        {
            self.bump();
        }
        let text: String = self.chars[start..self.at].iter().collect();
        if serde_json::from_str::<serde_json::Number>(&text).is_err() {
            return Err(self.error(format!("`{text}` is not a JSON number")));
        }
        Ok(Value::Number(text))
    }

    fn string(&mut self) -> Result<String, SyntaxError> {
        self.bump(); // the opening quote
        let mut out = String::new();
        loop {
            let Some(c) = self.bump() else {
                return Err(self.error("the document ends inside a string".into()));
            };
            match c {
                '"' => return Ok(out),
                '\\' => {
                    let Some(e) = self.bump() else {
                        return Err(self.error("the document ends inside a string".into()));
                    };
                    match e {
                        '"' | '\\' | '/' => out.push(e),
                        'b' => out.push('\u{8}'),
                        'f' => out.push('\u{c}'),
                        'n' => out.push('\n'),
                        'r' => out.push('\r'),
                        't' => out.push('\t'),
                        'u' => {
                            let high = self.hex4()?;
                            let code = if (0xd800..0xdc00).contains(&high)
                                && self.peek() == Some('\\')
                                && self.chars.get(self.at + 1) == Some(&'u')
                            {
                                self.bump();
                                self.bump();
                                let low = self.hex4()?;
                                if !(0xdc00..0xe000).contains(&low) {
                                    return Err(self.error("an unpaired surrogate escape".into()));
                                }
                                0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00)
                            } else {
                                high
                            };
                            match char::from_u32(code) {
                                Some(c) => out.push(c),
                                None => {
                                    return Err(self.error("an unpaired surrogate escape".into()));
                                }
                            }
                        }
                        other => {
                            return Err(self.error(format!(
                                "`\\{}` is not a JSON escape",
                                other.escape_debug()
                            )));
                        }
                    }
                }
                c if (c as u32) < 0x20 => {
                    return Err(self.error(format!(
                        "the control character {} must be escaped in a string",
                        c.escape_unicode()
                    )));
                }
                c => out.push(c),
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, SyntaxError> {
        let mut code = 0;
        for _ in 0..4 {
            let digit = self
                .peek()
                .and_then(|c| c.to_digit(16))
                .ok_or_else(|| self.error("`\\u` needs four hex digits".into()))?;
            self.bump();
            code = code * 16 + digit;
        }
        Ok(code)
    }

    fn array(&mut self, depth: usize) -> Result<Value, SyntaxError> {
        self.bump();
        let mut items = Vec::new();
        let mut after_comma = false;
        loop {
            self.skip_space()?;
            if self.peek() == Some(']') {
                if after_comma {
                    self.note("a trailing comma");
                }
                self.bump();
                return Ok(Value::Array(items));
            }
            items.push(self.value(depth + 1)?);
            self.skip_space()?;
            match self.peek() {
                Some(',') => {
                    self.bump();
                    after_comma = true;
                }
                Some(']') => after_comma = false,
                _ => return Err(self.error("expected `,` or `]` after an array item".into())),
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value, SyntaxError> {
        self.bump();
        let mut members = Vec::new();
        let mut after_comma = false;
        loop {
            self.skip_space()?;
            match self.peek() {
                Some('}') => {
                    if after_comma {
                        self.note("a trailing comma");
                    }
                    self.bump();
                    return Ok(Value::Object(members));
                }
                Some('"') => {}
                _ => return Err(self.error("expected a quoted key or `}`".into())),
            }
            let key = self.string()?;
            self.skip_space()?;
            if self.peek() != Some(':') {
                return Err(self.error(format!("expected `:` after the key \"{key}\"")));
            }
            self.bump();
            let value = self.value(depth + 1)?;
            members.push((key, value));
            self.skip_space()?;
            match self.peek() {
                Some(',') => {
                    self.bump();
                    after_comma = true;
                }
                Some('}') => after_comma = false,
                _ => return Err(self.error("expected `,` or `}` after an object member".into())),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_serde_json_on_plain_json() {
        let text = r#"{"a": [1, -2.5e3, true, null, "x\"\u00e9\ud83d\ude00"], "b": {}}"#;
        let plain = Node::to_json;
        assert_eq!(
            plain(&parse(text).unwrap()),
            serde_json::from_str::<serde_json::Value>(text).unwrap()
        );
    }

    #[test]
    fn comments_trailing_commas_and_places() {
        let doc = parse("{\n  /* a */ \"k\": [\n    \"v\", // c\n  ],\n}\n").unwrap();
        let Value::Array(items) = &doc.get("k").unwrap().value else {
            panic!()
        };
        assert_eq!((items[0].line, items[0].column), (3, 5));
        let (_, extension) = parse_noting("{\"a\": [1,],}").unwrap();
        assert_eq!(extension.unwrap().what, "a trailing comma");
        assert_eq!(parse_noting("{\"a\": [1]}").unwrap().1, None);
    }

    #[test]
    fn errors_name_the_place() {
        let e = parse("{\n  \"k\": [1 2]\n}").unwrap_err();
        assert_eq!((e.line, e.column), (2, 11));
        assert!(parse("{\"a\": 1} x").is_err());
        assert!(parse("/* open").is_err());
        assert!(parse("[\"\\x\"]").is_err());
        assert!(
            parse(&"[".repeat(200))
                .unwrap_err()
                .message
                .contains("nesting")
        );
    }
}
