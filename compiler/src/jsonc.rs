//! JSON with comments (JSONC), as Claude's settings files are written, with the place of every
//! value, so that each entry handed on can be named by `file:line:column`.
//!
//! Accepted beyond strict JSON: `//` and `/* */` comments and a trailing comma before `]` or
//! `}`. Everything else is strict JSON: a syntax error names its line and column. The reading
//! is dprint's `jsonc-parser` (the parser of a formatter millions of files go through), with
//! every extension it offers beyond those two switched off; this module turns its syntax tree
//! into [`Node`]s (1-based line and column in characters, members in the order written, a
//! repeated key kept, numbers as written) and holds the two rules the parser does not: a
//! number is a JSON number, and nesting stops at [`MAX_DEPTH`] levels.
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
pub const MAX_DEPTH: usize = 128;

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
    use jsonc_parser::{CollectOptions, CommentCollectionStrategy, ParseOptions};
    // A byte-order mark is not part of the document (it still takes a column).
    let (body, bom) = match text.strip_prefix('\u{feff}') {
        Some(rest) => (rest, 1),
        None => (text, 0),
    };
    let places = Places::new(body, bom);
    let options = ParseOptions {
        allow_comments: true,
        allow_trailing_commas: true,
        allow_loose_object_property_names: false,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };
    let collect = CollectOptions {
        comments: CommentCollectionStrategy::AsTokens,
        tokens: true,
    };
    let parsed = jsonc_parser::parse_to_ast(body, &collect, &options).map_err(|e| {
        let (line, column) = places.at(e.range().start);
        SyntaxError {
            line,
            column,
            message: lowercase_first(&e.kind().to_string()),
        }
    })?;
    let Some(value) = parsed.value else {
        let (line, column) = places.at(body.len());
        return Err(SyntaxError {
            line,
            column,
            message: "the document holds no value".into(),
        });
    };
    let node = places.node(body, &value, 0)?;
    let extension = parsed
        .tokens
        .as_deref()
        .and_then(|tokens| first_extension(tokens, &places));
    Ok((node, extension))
}

/// `Expected comma` as `expected comma`, as every other message here reads.
fn lowercase_first(message: &str) -> String {
    let mut chars = message.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The first comment or trailing comma among `tokens` (comments included, in order).
fn first_extension(
    tokens: &[jsonc_parser::tokens::TokenAndRange<'_>],
    places: &Places,
) -> Option<Extension> {
    use jsonc_parser::tokens::Token;
    let significant = |t: &&jsonc_parser::tokens::TokenAndRange<'_>| {
        !matches!(t.token, Token::CommentLine(_) | Token::CommentBlock(_))
    };
    for (i, token) in tokens.iter().enumerate() {
        let what = match token.token {
            Token::CommentLine(_) | Token::CommentBlock(_) => "a comment",
            Token::Comma
                if tokens[i + 1..]
                    .iter()
                    .find(significant)
                    .is_some_and(|next| {
                        matches!(next.token, Token::CloseBrace | Token::CloseBracket)
                    }) =>
            {
                "a trailing comma"
            }
            _ => continue,
        };
        let (line, column) = places.at(token.range.start);
        return Some(Extension { line, column, what });
    }
    None
}

/// Byte offsets of the text as 1-based lines and columns (in characters).
struct Places {
    /// The byte offset where each line starts.
    starts: Vec<usize>,
    text: String,
    /// Columns taken before the first line's text (a byte-order mark).
    first_line_shift: u32,
}

impl Places {
    fn new(text: &str, first_line_shift: u32) -> Places {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Places {
            starts,
            text: text.to_string(),
            first_line_shift,
        }
    }

    fn at(&self, offset: usize) -> (u32, u32) {
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let column = self.text[start..offset.min(self.text.len())]
            .chars()
            .count() as u32
            + 1;
        let shift = if line == 0 { self.first_line_shift } else { 0 };
        (line as u32 + 1, column + shift)
    }

    fn error(&self, offset: usize, message: String) -> SyntaxError {
        let (line, column) = self.at(offset);
        SyntaxError {
            line,
            column,
            message,
        }
    }

    /// `value` (of `text`) as a [`Node`], `depth` levels down.
    fn node(
        &self,
        text: &str,
        value: &jsonc_parser::ast::Value<'_>,
        depth: usize,
    ) -> Result<Node, SyntaxError> {
        use jsonc_parser::ast::Value as Ast;
        use jsonc_parser::common::Ranged;
        let start = value.range().start;
        let value = match value {
            Ast::NullKeyword(_) => Value::Null,
            Ast::BooleanLit(b) => Value::Bool(b.value),
            Ast::NumberLit(n) => {
                if serde_json::from_str::<serde_json::Number>(n.value).is_err() {
                    return Err(self.error(start, format!("`{}` is not a JSON number", n.value)));
                }
                Value::Number(n.value.to_string())
            }
            Ast::StringLit(s) => Value::String(self.string(text, s)?),
            Ast::Array(_) | Ast::Object(_) if depth >= MAX_DEPTH => {
                return Err(self.error(start, format!("nesting deeper than {MAX_DEPTH} levels")));
            }
            Ast::Array(array) => Value::Array(
                array
                    .elements
                    .iter()
                    .map(|item| self.node(text, item, depth + 1))
                    .collect::<Result<_, _>>()?,
            ),
            Ast::Object(object) => Value::Object(
                object
                    .properties
                    .iter()
                    .map(|member| {
                        let key = match &member.name {
                            jsonc_parser::ast::ObjectPropName::String(key) => {
                                self.string(text, key)?
                            }
                            jsonc_parser::ast::ObjectPropName::Word(word) => {
                                return Err(
                                    self.error(word.range.start, "expected a quoted key".into())
                                );
                            }
                        };
                        Ok((key, self.node(text, &member.value, depth + 1)?))
                    })
                    .collect::<Result<_, _>>()?,
            ),
        };
        let (line, column) = self.at(start);
        Ok(Node {
            value,
            line,
            column,
        })
    }

    /// A string literal's value, refused when it holds a raw control character (JSON wants
    /// them escaped).
    fn string(
        &self,
        text: &str,
        literal: &jsonc_parser::ast::StringLit<'_>,
    ) -> Result<String, SyntaxError> {
        let raw = &text[literal.range.start..literal.range.end];
        if let Some((at, c)) = raw.char_indices().find(|(_, c)| (*c as u32) < 0x20) {
            return Err(self.error(
                literal.range.start + at,
                format!(
                    "the control character {} must be escaped in a string",
                    c.escape_unicode()
                ),
            ));
        }
        Ok(literal.value.to_string())
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
        // A missing comma is named right after the value it should follow.
        let e = parse("{\n  \"k\": [1 2]\n}").unwrap_err();
        assert_eq!(
            (e.line, e.column, e.message.as_str()),
            (2, 10, "expected comma")
        );
        let e = parse("[\"a\tb\"]").unwrap_err();
        assert_eq!((e.line, e.column), (1, 4), "{e}");
        assert!(parse("[01]").is_err() && parse("[1.]").is_err() && parse("[0x1]").is_err());
        assert!(parse("{a: 1}").is_err() && parse("['a']").is_err() && parse("[NaN]").is_err());
        assert!(parse("").is_err() && parse("[1,,2]").is_err() && parse("[\"\\ud800\"]").is_err());
        assert!(parse("{\"a\": 1} x").is_err());
        assert!(parse("/* open").is_err());
        assert!(parse("[\"\\x\"]").is_err());
        assert!(
            parse(&format!("{}{}", "[".repeat(200), "]".repeat(200)))
                .unwrap_err()
                .message
                .contains("nesting")
        );
    }
}
