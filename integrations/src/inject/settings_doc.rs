//! A harness settings file as `install` rewrites it: read in the order it was written, printed
//! back in the same order with the same indentation, so a rewrite changes only what it must.
//!
//! - **Comments refused.** Claude's settings are read as JSON with comments, but a rewrite
//!   cannot keep a comment in its place, and dropping the user's notes silently is worse than
//!   asking: a file with a comment or a trailing comma is refused with the place of the first
//!   one (`file:line:column`), and nothing is written. (Remove them, or use `inject`, which
//!   never writes the user's files.)
//! - **Order kept.** Members print in the order written (the reader keeps it); numbers print
//!   as written (`1.0` stays `1.0`), strings with JSON's escapes.
//! - **Formatting.** The indentation of the file's first indented line is kept (two spaces when
//!   there is none); arrays and objects print one member a line, empty ones as `[]` / `{}`;
//!   the file ends in a newline when it did (or was empty).
//!
//! An empty (or all-blank) file reads as `{}`, as a missing one does.

use compiler::jsonc::{self, Node, SyntaxError, Value};

/// Why a settings file cannot be rewritten; each names the file (and the place, `line:column`).
#[derive(Debug, thiserror::Error)]
pub enum SettingsDocError {
    /// Not JSON (nor JSON with comments).
    #[error("{name}:{source}: the file is not valid JSON; fix it first")]
    Invalid {
        /// The file, for messages.
        name: String,
        /// Where and how it is not JSON.
        source: SyntaxError,
    },
    /// JSON with comments or trailing commas: a rewrite cannot keep them.
    #[error(
        "{name}:{line}:{column}: {what} — this is JSON with comments, and a rewrite cannot keep \
         the file's comments and trailing commas; remove them first"
    )]
    Comments {
        /// The file, for messages.
        name: String,
        /// 1-based line of the first one.
        line: u32,
        /// 1-based column of the first one.
        column: u32,
        /// `a comment` or `a trailing comma`.
        what: &'static str,
    },
    /// The top level is not an object.
    #[error("{name}:{line}:{column}: the settings are {found}, not an object")]
    NotAnObject {
        /// The file, for messages.
        name: String,
        /// 1-based line of the value.
        line: u32,
        /// 1-based column of the value.
        column: u32,
        /// What it is (`an array`, …).
        found: &'static str,
    },
}

/// A parsed settings file and how to print it back.
#[derive(Clone, Debug, PartialEq)]
pub struct SettingsDoc {
    /// The top-level object.
    pub root: Node,
    indent: String,
    final_newline: bool,
}

impl SettingsDoc {
    /// Read `text` (the contents of `name`, for messages). Refused: invalid JSON, JSON with
    /// comments or trailing commas, a top level that is not an object.
    pub fn parse(name: &str, text: &str) -> Result<SettingsDoc, SettingsDocError> {
        if text.trim().is_empty() {
            return Ok(SettingsDoc {
                root: node(Value::Object(Vec::new())),
                indent: "  ".into(),
                final_newline: true,
            });
        }
        let (root, extension) =
            jsonc::parse_noting(text).map_err(|source| SettingsDocError::Invalid {
                name: name.to_string(),
                source,
            })?;
        if let Some(ext) = extension {
            return Err(SettingsDocError::Comments {
                name: name.to_string(),
                line: ext.line,
                column: ext.column,
                what: ext.what,
            });
        }
        if !matches!(root.value, Value::Object(_)) {
            return Err(SettingsDocError::NotAnObject {
                name: name.to_string(),
                line: root.line,
                column: root.column,
                found: root.type_name(),
            });
        }
        let indent = text
            .lines()
            .skip(1)
            .find_map(|line| {
                let width = line.len() - line.trim_start_matches([' ', '\t']).len();
                (width > 0 && width < line.len()).then(|| line[..width].to_string())
            })
            .unwrap_or_else(|| "  ".into());
        Ok(SettingsDoc {
            root,
            indent,
            final_newline: text.ends_with('\n'),
        })
    }

    /// The document as text.
    pub fn print(&self) -> String {
        let mut out = String::new();
        print_value(&self.root.value, &self.indent, 0, &mut out);
        if self.final_newline {
            out.push('\n');
        }
        out
    }

    /// The document without places, for comparing two documents by content.
    pub fn to_json(&self) -> serde_json::Value {
        self.root.to_json()
    }

    /// The top-level object's members.
    pub fn members_mut(&mut self) -> &mut Vec<(String, Node)> {
        match &mut self.root.value {
            Value::Object(members) => members,
            _ => unreachable!("parse keeps only objects"),
        }
    }
}

/// A value with no place (one the installer adds).
pub fn node(value: Value) -> Node {
    Node {
        value,
        line: 0,
        column: 0,
    }
}

/// A string node.
pub fn string(text: &str) -> Node {
    node(Value::String(text.to_string()))
}

/// An object node of `members`, in order.
pub fn object(members: Vec<(&str, Node)>) -> Node {
    node(Value::Object(
        members
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    ))
}

fn print_value(value: &Value, indent: &str, depth: usize, out: &mut String) {
    let pad = |out: &mut String, depth: usize| {
        for _ in 0..depth {
            out.push_str(indent);
        }
    };
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(n),
        Value::String(s) => out.push_str(&quote(s)),
        Value::Array(items) if items.is_empty() => out.push_str("[]"),
        Value::Object(members) if members.is_empty() => out.push_str("{}"),
        Value::Array(items) => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                pad(out, depth + 1);
                print_value(&item.value, indent, depth + 1, out);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            pad(out, depth);
            out.push(']');
        }
        Value::Object(members) => {
            out.push_str("{\n");
            for (i, (key, item)) in members.iter().enumerate() {
                pad(out, depth + 1);
                out.push_str(&quote(key));
                out.push_str(": ");
                print_value(&item.value, indent, depth + 1, out);
                out.push_str(if i + 1 < members.len() { ",\n" } else { "\n" });
            }
            pad(out, depth);
            out.push('}');
        }
    }
}

fn quote(text: &str) -> String {
    serde_json::to_string(text).expect("a string serializes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pretty_file_prints_back_byte_identical() {
        for text in [
            "{\n  \"model\": \"opus\",\n  \"env\": {\n    \"A\": \"1\"\n  },\n  \"n\": 1.50,\n  \
             \"e\": [],\n  \"o\": {},\n  \"s\": \"q\\\"\\u00e9\\n\"\n}\n",
            "{\n\t\"b\": true,\n\t\"a\": [\n\t\tnull,\n\t\t2\n\t]\n}",
            "{\n    \"z\": 1,\n    \"a\": 2\n}\n",
        ] {
            let doc = SettingsDoc::parse("s.json", text).unwrap();
            // Key order kept (`z` before `a`), numbers as written; `é` prints as itself, which
            // reads back the same.
            let printed = doc.print();
            assert_eq!(
                SettingsDoc::parse("s.json", &printed).unwrap().to_json(),
                doc.to_json()
            );
            if !text.contains("\\u00e9") {
                assert_eq!(printed, text);
            }
        }
    }

    #[test]
    fn comments_trailing_commas_and_bad_json_are_refused_with_their_place() {
        let err = |text: &str| SettingsDoc::parse("s.json", text).unwrap_err().to_string();
        let e = err("{\n  // mine\n  \"a\": 1\n}\n");
        assert!(e.starts_with("s.json:2:3: a comment"), "{e}");
        let e = err("{\n  \"a\": 1,\n}\n");
        // The comma itself is named.
        assert!(e.starts_with("s.json:2:9: a trailing comma"), "{e}");
        let e = err("{\n  \"a\": \n}\n");
        assert!(
            e.starts_with("s.json:3:1:") && e.contains("not valid JSON"),
            "{e}"
        );
        let e = err("[1]");
        assert!(e.contains("not an object"), "{e}");
        assert_eq!(SettingsDoc::parse("s.json", " \n").unwrap().print(), "{}\n");
    }
}
