//! Lowering `tool_policy` entries (claude permission syntax) into rule parts.
//!
//! | entry                | tools               | input matcher                          |
//! |----------------------|---------------------|----------------------------------------|
//! | `Bash`, `Bash(*)`    | `Bash`              | —                                      |
//! | `Bash(* --live*)`    | `Bash`              | `command` ~ `.* --live.*`              |
//! | `Bash(npm test:*)`   | `Bash`              | `command` ~ `npm test(?:\s.*)?$`       |
//! | `Bash(ls *)`         | `Bash`              | `command` ~ `ls(?:\s.*)?$`             |
//! | `mcp__github__*`     | `mcp__github__*`    | —                                      |
//! | `mcp__github`        | `mcp__github__*`    | —                                      |
//! | `*`                  | (every tool)        | —                                      |
//!
//! An argument glob becomes an unanchored regex over `command`: `*` becomes `.*`, everything
//! else is escaped. Two refinements follow claude's own documented meaning where the spec's
//! table is silent, because the literal reading would produce rules that silently never match:
//! a trailing ` *` or the legacy `:*` suffix is a word boundary — the prefix followed by
//! whitespace or the end of the command (`ls *` matches `ls` and `ls -la`, not `lsof`); and a
//! bare `mcp__<server>` names every tool of that server, as in claude.
//!
//! An argument form on any tool whose argument field is not modelled yet (`Read(./.env)`,
//! `WebFetch(domain:x)`, `Agent(model:opus)`) is an error, never a rule that cannot match.

use engine::InputMatcher;

/// The rule parts one entry lowers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoweredEntry {
    /// Tool globs; empty = every tool.
    pub tools: Vec<String>,
    /// At most one matcher (on `command`).
    pub input_matchers: Vec<InputMatcher>,
}

/// Tools whose argument form we model, and the `tool_input` field it applies to.
const ARGUMENT_FIELDS: &[(&str, &str)] = &[("Bash", "command")];

/// Is `glob` a valid tool-name glob? The error completes "tool `x` …".
pub fn check_tool_glob(glob: &str) -> Result<(), String> {
    if glob.is_empty() {
        return Err("is empty".into());
    }
    match glob
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '*' | '.')))
    {
        Some(c) => Err(format!(
            "contains `{}`; a tool glob is made of letters, digits, `_`, `-`, `.` and `*`",
            c.escape_debug()
        )),
        None => Ok(()),
    }
}

/// Lower one entry; the error is a sentence about the entry.
pub fn lower_entry(entry: &str) -> Result<LoweredEntry, String> {
    let (tool, argument) = match entry.find('(') {
        None => (entry, None),
        Some(open) => {
            let Some(inner) = entry[open + 1..].strip_suffix(')') else {
                return Err("has an opening `(` but does not end with `)`".into());
            };
            (&entry[..open], Some(inner))
        }
    };
    check_tool_glob(tool).map_err(|why| format!("has a tool name that {why}"))?;
    let tool_glob = if tool == "*" {
        None
    } else if let Some(server) = tool
        .strip_prefix("mcp__")
        .filter(|s| !s.contains("__") && !s.contains('*'))
    {
        Some(format!("mcp__{server}__*"))
    } else {
        Some(tool.to_string())
    };
    let tools: Vec<String> = tool_glob.into_iter().collect();
    let Some(argument) = argument else {
        return Ok(LoweredEntry {
            tools,
            input_matchers: Vec::new(),
        });
    };
    let Some(&(_, field)) = ARGUMENT_FIELDS.iter().find(|(t, _)| *t == tool) else {
        return Err(format!(
            "uses an argument form, but the argument field of `{tool}` is not modelled yet \
             (only {} are); a rule that cannot match would silently weaken the policy",
            ARGUMENT_FIELDS
                .iter()
                .map(|(t, _)| format!("`{t}(…)`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    };
    if argument.is_empty() {
        return Err(
            "has an empty argument `()`; write the tool name alone to match every call".into(),
        );
    }
    if argument.chars().all(|c| c == '*') {
        return Ok(LoweredEntry {
            tools,
            input_matchers: Vec::new(),
        });
    }
    Ok(LoweredEntry {
        tools,
        input_matchers: vec![InputMatcher {
            field: field.to_string(),
            regex: argument_glob_to_regex(argument),
        }],
    })
}

/// `*` → `.*`, everything else escaped; a trailing ` *` or `:*` is a word boundary.
pub fn argument_glob_to_regex(glob: &str) -> String {
    let word_prefix = glob
        .strip_suffix(":*")
        .or_else(|| glob.strip_suffix(" *"))
        .filter(|prefix| !prefix.is_empty() && !prefix.ends_with('*'));
    match word_prefix {
        Some(prefix) => format!("{}(?:\\s.*)?$", star_glob_to_regex(prefix.trim_end())),
        None => star_glob_to_regex(glob),
    }
}

fn star_glob_to_regex(glob: &str) -> String {
    glob.split('*')
        .map(escape_literal)
        .collect::<Vec<_>>()
        .join(".*")
}

/// Escape the characters that are special outside a character class, and only those, so the
/// compiled regex reads like the entry (`.* --live.*`, not `.* \-\-live.*`).
fn escape_literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(
            c,
            '\\' | '.' | '+' | '*' | '?' | '(' | ')' | '|' | '[' | ']' | '{' | '}' | '^' | '$'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matcher(entry: &str) -> Option<String> {
        lower_entry(entry)
            .unwrap()
            .input_matchers
            .first()
            .map(|m| m.regex.clone())
    }

    #[test]
    fn spec_table() {
        assert_eq!(
            lower_entry("Bash").unwrap(),
            LoweredEntry {
                tools: vec!["Bash".into()],
                input_matchers: vec![]
            }
        );
        assert_eq!(matcher("Bash(* --live*)").as_deref(), Some(".* --live.*"));
        assert_eq!(
            lower_entry("mcp__github__*").unwrap().tools,
            ["mcp__github__*"]
        );
        assert_eq!(lower_entry("*").unwrap().tools, Vec::<String>::new());
    }

    #[test]
    fn claude_refinements() {
        assert_eq!(
            matcher("Bash(npm run test:*)").as_deref(),
            Some("npm run test(?:\\s.*)?$")
        );
        assert_eq!(matcher("Bash(ls *)").as_deref(), Some("ls(?:\\s.*)?$"));
        assert_eq!(matcher("Bash(*)"), None);
        assert_eq!(matcher("Bash(git:* push)").as_deref(), Some("git:.* push"));
        assert_eq!(
            lower_entry("mcp__puppeteer").unwrap().tools,
            ["mcp__puppeteer__*"]
        );
    }

    #[test]
    fn unmodelled_arguments_are_errors() {
        for entry in [
            "Read(./.env)",
            "WebFetch(domain:example.com)",
            "Agent(model:opus)",
            "*(x)",
        ] {
            let e = lower_entry(entry).unwrap_err();
            assert!(e.contains("not modelled"), "{entry}: {e}");
        }
        assert!(lower_entry("Bash(ls").unwrap_err().contains("`)`"));
        assert!(
            lower_entry("Bash()")
                .unwrap_err()
                .contains("empty argument")
        );
        assert!(lower_entry("Ba sh").unwrap_err().contains("tool name"));
        assert!(lower_entry("").unwrap_err().contains("empty"));
    }
}
