//! Lowering `tool_policy` entries (claude permission syntax) into rule parts.
//!
//! | entry                   | list        | tools            | input matcher                                  |
//! |-------------------------|-------------|------------------|------------------------------------------------|
//! | `Bash`, `Bash(*)`       | allow       | `Bash`           | —                                              |
//! | `Bash`, `Bash(*)`       | deny, ask   | `Bash`, `Monitor`| —                                              |
//! | `Bash(git push:*)`      | deny, ask   | `Bash`, `Monitor`| `command`, `segment: "git push:*"` (any segment) |
//! | `Bash(git status:*)`    | allow       | `Bash`           | `command`, `covers: "git status:*"` (every segment) |
//! | `mcp__github__*`        | any         | `mcp__github__*` | —                                              |
//! | `mcp__github`           | any         | `mcp__github__*` | —                                              |
//! | `*`                     | any         | (every tool)     | —                                              |
//!
//! A `Bash(P)` argument is a Claude pattern ([`engine::semantics::ClaudePattern`]): a
//! trailing `:*` or ` *` is a prefix ending at a word boundary, `*` elsewhere any run, no `*`
//! the whole segment. It is matched against the command's segments ([`engine::shell`]), never
//! against the raw text: a deny matches when any segment does (generously: wrappers peeled,
//! program basenames), an allow covers a call only when every segment is covered (strictly).
//! A bare `mcp__<server>` names every tool of that server, as in claude.
//!
//! An argument form on any tool whose argument field is not modelled yet (`Read(./.env)`,
//! `WebFetch(domain:x)`, `Agent(model:opus)`) is an error, never a rule that cannot match.

use engine::Decision;
use engine::InputMatcher;
use engine::policy::MatchOn;
use engine::semantics::ClaudePattern;

/// The rule parts one entry lowers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoweredEntry {
    /// Tool globs; empty = every tool.
    pub tools: Vec<String>,
    /// At most one matcher (on `command`).
    pub input_matchers: Vec<InputMatcher>,
}

/// Claude's tool that runs a background command, to which Bash deny and ask rules apply.
pub const MONITOR_TOOL: &str = "Monitor";

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

/// Lower one entry of the list whose decision is `decision`; the error is a sentence about
/// the entry.
pub fn lower_entry(entry: &str, decision: Decision) -> Result<LoweredEntry, String> {
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
    let mut tools: Vec<String> = tool_glob.into_iter().collect();
    // Claude applies Bash rules to its Monitor tool (a background command in `command`): a
    // deny or ask must reach it too. An allow does not stretch to it (Claude grants it from
    // the same entry, or the call gets the default).
    if tool == "Bash" && decision != Decision::Allow {
        tools.push(MONITOR_TOOL.to_string());
    }
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
    let pattern = ClaudePattern::parse(argument)?;
    if pattern.matches_everything() {
        return Ok(LoweredEntry {
            tools,
            input_matchers: Vec::new(),
        });
    }
    Ok(LoweredEntry {
        tools,
        input_matchers: vec![InputMatcher {
            field: field.to_string(),
            on: if decision == Decision::Allow {
                MatchOn::Cover
            } else {
                MatchOn::Segment
            },
            pattern: argument.to_string(),
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matcher(entry: &str, decision: Decision) -> Option<InputMatcher> {
        lower_entry(entry, decision)
            .unwrap()
            .input_matchers
            .first()
            .cloned()
    }

    #[test]
    fn spec_table() {
        assert_eq!(
            lower_entry("Bash", Decision::Allow).unwrap(),
            LoweredEntry {
                tools: vec!["Bash".into()],
                input_matchers: vec![]
            }
        );
        assert_eq!(
            lower_entry("Bash(rm:*)", Decision::Deny).unwrap().tools,
            ["Bash", "Monitor"],
            "Claude applies Bash rules to Monitor: a deny reaches it"
        );
        let m = matcher("Bash(* --live*)", Decision::Deny).unwrap();
        assert_eq!((m.on, m.pattern.as_str()), (MatchOn::Segment, "* --live*"));
        let m = matcher("Bash(git status:*)", Decision::Allow).unwrap();
        assert_eq!((m.on, m.pattern.as_str()), (MatchOn::Cover, "git status:*"));
        let m = matcher("Bash(rm *)", Decision::Ask).unwrap();
        assert_eq!((m.on, m.pattern.as_str()), (MatchOn::Segment, "rm *"));
        assert_eq!(
            lower_entry("mcp__github__*", Decision::Allow)
                .unwrap()
                .tools,
            ["mcp__github__*"]
        );
        assert_eq!(
            lower_entry("*", Decision::Allow).unwrap().tools,
            Vec::<String>::new()
        );
        assert_eq!(matcher("Bash(*)", Decision::Allow), None);
        assert_eq!(matcher("Bash(**)", Decision::Deny), None);
        assert_eq!(
            lower_entry("mcp__puppeteer", Decision::Deny).unwrap().tools,
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
            let e = lower_entry(entry, Decision::Deny).unwrap_err();
            assert!(e.contains("not modelled"), "{entry}: {e}");
        }
        assert!(
            lower_entry("Bash(ls", Decision::Deny)
                .unwrap_err()
                .contains("`)`")
        );
        assert!(
            lower_entry("Bash()", Decision::Deny)
                .unwrap_err()
                .contains("empty argument")
        );
        assert!(
            lower_entry("Ba sh", Decision::Deny)
                .unwrap_err()
                .contains("tool name")
        );
        assert!(
            lower_entry("", Decision::Deny)
                .unwrap_err()
                .contains("empty")
        );
        assert!(
            lower_entry("Bash(a\u{1}b)", Decision::Deny)
                .unwrap_err()
                .contains("control character")
        );
    }
}
