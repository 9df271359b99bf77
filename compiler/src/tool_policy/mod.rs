//! Lowering `tool_policy` entries (claude permission syntax) into rule parts.
//!
//! | entry                   | list        | tools                                   | input matcher |
//! |-------------------------|-------------|-----------------------------------------|---------------|
//! | `Bash`, `Bash(*)`       | allow       | `Bash`                                  | — |
//! | `Bash`, `Bash(*)`       | deny, ask   | `Bash`, `Monitor`                       | — |
//! | `Bash(git push:*)`      | deny, ask   | `Bash`, `Monitor`                       | `command`, `segment` (any segment) |
//! | `Bash(git status:*)`    | allow       | `Bash`                                  | `command`, `covers` (every segment) |
//! | `Read(./.env)`          | deny, ask   | Read, NotebookRead, Grep, Glob, LS, the edit tools; Bash, Monitor, PowerShell | `file_path`/`notebook_path`/`path`/`pattern`: `path`; `command`: `command_path` |
//! | `Read(src/**)`          | allow       | `Read`                                  | `file_path`, `resolved_path` |
//! | `Edit(src/**)`          | any         | Edit, Write, MultiEdit, NotebookEdit (and Bash words for deny, ask) | `path` / `resolved_path` |
//! | `WebFetch(domain:x.io)` | deny, ask / allow | `WebFetch`                        | `url`, `domain` / `exact_domain` |
//! | `Skill(commit:*)`, `Agent(Explore)` | any | `Skill`; `Agent` (and `Task` for deny, ask) | `skill` / `subagent_type`, `name` |
//! | `Grep(pattern:*pw*)`    | deny, ask   | `Grep`                                  | `pattern`, regex (claude's generic `key:value`) |
//! | `mcp__github__*`        | any         | `mcp__github__*`                        | — |
//! | `mcp__github`           | any         | `mcp__github__*`                        | — |
//! | `*`                     | any         | (every tool)                            | — |
//!
//! A `Bash(P)` argument is a Claude pattern ([`engine::semantics::ClaudePattern`]): a
//! trailing `:*` or ` *` is a prefix ending at a word boundary, `*` elsewhere any run, no `*`
//! the whole segment. It is matched against the command's segments ([`engine::shell`]), never
//! against the raw text: a deny matches when any segment does (generously: wrappers peeled,
//! program basenames), an allow covers a call only when every segment is covered (strictly).
//! Path globs are [`engine::paths`], domains [`engine::web`]. A bare `mcp__<server>` names every
//! tool of that server, as in claude.
//!
//! What claude 2.1.328 was measured (`corpus/claude-oracle`) to read as matching or granting
//! nothing compiles to no rule, with a note: `Tool()`, `Write(…)`/`MultiEdit(…)`/
//! `NotebookEdit(…)`/`WebSearch(q)` allows, a tool glob such as `mcp__*` in an allow. A name
//! claude has no tool for compiles with a note (it may be another harness's tool kept under
//! its own name), unless it is a near miss of a Claude tool's name (`bash`, `Reed`): no
//! harness calls a tool that, so such an entry is an error with the name meant
//! ([`misspelt_tool`]). An argument form that cannot be modelled (`WebFetch(https://…)`,
//! `mcp__x__y(arg)`) is an error, never a rule that cannot match.

use engine::Decision;
use engine::InputMatcher;
use engine::policy::MatchOn;
use engine::semantics::ClaudePattern;

use crate::diagnostic::quote;

#[cfg(test)]
mod tests;
mod tools;

pub(crate) use tools::known_fields;
pub use tools::{AS_GIVEN_TOOLS, CLAUDE_TOOLS, MONITOR_TOOL, misspelt_tool};
use tools::{Argument, EDIT_FAMILY, READ_FAMILY, argument_of, content_field, input_keys};

/// One rule one entry lowers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoweredEntry {
    /// Tool globs; empty = every tool.
    pub tools: Vec<String>,
    /// At most one matcher.
    pub input_matchers: Vec<InputMatcher>,
}

/// What one entry lowers to: one rule per group of tools sharing the argument's field (a
/// `Read(…)` entry reaches `Read.file_path` and `Grep.path`), and a caveat worth a warning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lowered {
    /// The rules, the entry's own tool first.
    pub parts: Vec<LoweredEntry>,
    /// Said as a warning: the entry compiles, but may not mean what it looks like.
    pub note: Option<String>,
}

/// Is `glob` a valid tool-name glob? The error completes "tool `x` …". Claude's own settings
/// hold names with spaces and punctuation (`Web Search`, `git commit`); only what would make
/// the entry ambiguous is refused.
pub fn check_tool_glob(glob: &str) -> Result<(), ToolGlobError> {
    if glob.is_empty() {
        return Err(ToolGlobError::Empty);
    }
    match glob
        .chars()
        .find(|c| c.is_control() || matches!(c, '(' | ')'))
    {
        Some(c) => Err(ToolGlobError::Forbidden(c)),
        None => Ok(()),
    }
}

/// Why a tool-name glob is refused; the message completes "tool `x` …".
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ToolGlobError {
    /// No name.
    #[error("is empty")]
    Empty,
    /// A parenthesis or a control character.
    #[error(
        "contains `{}`; a tool name holds no parentheses or control characters",
        .0.escape_debug()
    )]
    Forbidden(char),
}

/// Why an entry (`Bash(git push:*)`, `Read(./.env)`) cannot be lowered; the message completes
/// "entry `x` …".
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EntryError {
    /// `Bash)`.
    #[error("has a `)` without an opening `(`")]
    UnopenedParenthesis,
    /// `Bash(ls`.
    #[error("has an opening `(` but does not end with `)`")]
    UnclosedParenthesis,
    /// The tool part is not a tool-name glob.
    #[error("has a tool name that {0}")]
    ToolGlob(#[from] ToolGlobError),
    /// A near miss of one of Claude's tools (`bash`, `Reed`).
    #[error("names {}", never_fires(.tool, .meant))]
    Misspelt {
        /// The tool as written.
        tool: String,
        /// Claude's tool it resembles.
        meant: &'static str,
    },
    /// An argument to a tool whose argument we do not model.
    #[error(
        "uses an argument form, but the argument of `{}` is not modelled (only Bash, \
         PowerShell, Read, Edit, Write, MultiEdit, NotebookEdit, Grep, Glob, LS, WebFetch, \
         WebSearch, Skill, Task, Agent and SlashCommand take one); a rule that cannot match \
         would silently weaken the policy",
        quote(.tool)
    )]
    UnmodelledArgument {
        /// The tool as written.
        tool: String,
    },
    /// A WebFetch argument without `domain:`.
    #[error(
        "has the argument `{}`; claude's WebFetch rules take `domain:<host>` (as in \
         `WebFetch(domain:example.com)`)",
        quote(.argument)
    )]
    NotADomain {
        /// The argument as written.
        argument: String,
    },
    /// The argument does not read as its kind of pattern.
    #[error("{0}")]
    Pattern(#[from] engine::pattern_error::PatternError),
}

/// The error for a tool name that is a near miss of Claude's tool `meant`.
pub fn never_fires(tool: &str, meant: &str) -> String {
    format!(
        "`{}`, no tool any harness calls: did you mean `{meant}`? (tool names are \
         case-sensitive; as written it never fires)",
        quote(tool)
    )
}

/// Split an entry into its tool and argument (`Read(./.env)` → `Read`, `./.env`). The
/// argument ends at the entry's last character, a `)`; `\(` and `\)` inside it stay escaped.
fn split_entry(entry: &str) -> Result<(&str, Option<&str>), EntryError> {
    match entry.find('(') {
        None if entry.contains(')') => Err(EntryError::UnopenedParenthesis),
        None => Ok((entry, None)),
        Some(open) => {
            let Some(inner) = entry[open + 1..].strip_suffix(')') else {
                return Err(EntryError::UnclosedParenthesis);
            };
            Ok((&entry[..open], Some(inner)))
        }
    }
}

/// A path entry anchored at its settings' root, `/x` (`Read(/src/**)`): its tool and the glob
/// below that root (`src/**`). `None` for any other entry (`//x`, `~/x`, `./x`, not a file
/// tool). Claude's root differs by where the entry is written (the `integrations` crate's `import`
/// and `inject`); in a profile it is the project root.
pub fn root_relative_path_entry(entry: &str) -> Option<(&str, &str)> {
    let (tool, argument) = split_entry(entry).ok()?;
    let relative = argument?
        .strip_prefix('/')
        .filter(|r| !r.starts_with('/'))?;
    matches!(argument_of(tool), Some(Argument::Path(_))).then_some((tool, relative))
}

/// Lower one entry of the list whose decision is `decision`; the error is a sentence about
/// the entry.
pub fn lower_entry(entry: &str, decision: Decision) -> Result<Lowered, EntryError> {
    let (tool, argument) = split_entry(entry)?;
    check_tool_glob(tool)?;
    if let Some(meant) = misspelt_tool(tool) {
        return Err(EntryError::Misspelt {
            tool: tool.to_string(),
            meant,
        });
    }
    let is_mcp = tool.starts_with("mcp__");
    let note = (tool != "*" && !is_mcp && !CLAUDE_TOOLS.contains(&tool)).then(|| {
        format!(
            "names `{}`, which is not a tool claude {} has (a tool is matched by its exact \
             name): the rule is kept, and matches only a tool of that name",
            quote(tool),
            CLAUDE_VERSION
        )
    });
    let mut tools = tools_named(tool, decision);
    let bare = |tools: Vec<String>, note: Option<String>| Lowered {
        parts: vec![LoweredEntry {
            tools,
            input_matchers: Vec::new(),
        }],
        note,
    };
    if let Some(why) = grants_nothing(tool, argument, decision) {
        return Ok(Lowered {
            parts: Vec::new(),
            note: Some(why),
        });
    }
    let Some(argument) = argument else {
        return Ok(bare(tools, note));
    };
    // `Tool(*)` and `Tool(**)` are the bare tool, except for an allow on a file tool: there
    // claude reads them as path globs below the working directory (`Read(**)` does not
    // reach the home directory).
    let path_allow =
        decision == Decision::Allow && matches!(argument_of(tool), Some(Argument::Path(_)));
    if argument.chars().all(|c| c == '*') && !path_allow {
        return Ok(bare(tools, note));
    }
    // `Edit(*)` allowed: claude applies it to Edit alone (Write is still asked), inside the
    // working directory.
    if argument == "*" && tool == "Edit" && decision == Decision::Allow {
        return Ok(Lowered {
            parts: vec![LoweredEntry {
                tools,
                input_matchers: vec![InputMatcher {
                    field: "file_path".into(),
                    on: MatchOn::ResolvedPath,
                    pattern: "**".into(),
                }],
            }],
            note,
        });
    }
    // A tool claude does not have (`Search(pattern:*)`, `:(Skill*)`): no call ever names it,
    // so its argument decides nothing; the rule is the bare tool, and the note says so.
    if argument_of(tool).is_none() && tool != "*" && !is_mcp && !CLAUDE_TOOLS.contains(&tool) {
        let note = format!(
            "names `{}`, which is not a tool claude {CLAUDE_VERSION} has (a tool is matched \
             by its exact name); its argument `{}` is not read: the rule matches any \
             call to a tool of that name, and claude makes none",
            quote(tool),
            quote(argument)
        );
        return Ok(bare(tools, Some(note)));
    }
    let Some(form) = argument_of(tool) else {
        return Err(EntryError::UnmodelledArgument {
            tool: tool.to_string(),
        });
    };
    let generous = decision != Decision::Allow;
    // Claude's generic `key:value` form (deny and ask only): any tool, matched on its input
    // key `key` with a `*` glob (`Grep(pattern:*password*)`, `Agent(subagent_type:Explore)`).
    let generic = generous
        .then(|| generic_key_value(tool, argument, &tools))
        .flatten();
    // WebSearch has no argument field in claude: `WebSearch(query)` matches nothing there, so
    // an allow grants nothing (a deny or ask is read generously, on `query`).
    if tool == "WebSearch" && decision == Decision::Allow {
        return Ok(Lowered {
            parts: Vec::new(),
            note: Some(format!(
                "grants nothing in claude {CLAUDE_VERSION}, where only the bare `WebSearch` \
                 matches; it compiles to no rule"
            )),
        });
    }
    let one = |tools: Vec<String>, field: &str, on: MatchOn, pattern: &str| {
        vec![LoweredEntry {
            tools,
            input_matchers: vec![InputMatcher {
                field: field.to_string(),
                on,
                pattern: pattern.to_string(),
            }],
        }]
    };
    // How an argument matches: the generous way, or the strict one.
    let matched_on = |generous_way, strict_way| if generous { generous_way } else { strict_way };
    let mut parts = match form {
        Argument::Command(field) => {
            if ClaudePattern::parse(argument)?.matches_everything() {
                return Ok(bare(tools, note));
            }
            let on = matched_on(MatchOn::Segment, MatchOn::Cover);
            one(tools, field, on, argument)
        }
        Argument::Path(family) => {
            engine::paths::PathGlob::parse(argument)?;
            path_parts(tool, family, argument, generous)
        }
        Argument::Domain(field) => {
            let Some(domain) = argument.strip_prefix("domain:") else {
                return Err(EntryError::NotADomain {
                    argument: argument.to_string(),
                });
            };
            engine::web::DomainPattern::parse(domain)?;
            let on = matched_on(MatchOn::Domain, MatchOn::ExactDomain);
            one(tools, field, on, domain)
        }
        Argument::Name(field) => {
            // `Task` and `Agent` are the same tool under its two names.
            if (tool == "Task" || tool == "Agent") && generous {
                tools = vec!["Agent".into(), "Task".into()];
            }
            engine::semantics::name_regex(argument)?;
            one(tools, field, MatchOn::Name, argument)
        }
    };
    parts.extend(generic);
    Ok(Lowered { parts, note })
}

/// The tools an entry naming `tool` reaches: the tool glob itself (an MCP server's name
/// stands for all its tools), and for a Bash deny or ask, Claude's Monitor tool.
fn tools_named(tool: &str, decision: Decision) -> Vec<String> {
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
    tools
}

/// Why an entry Claude reads as matching no call compiles to no rule (said as a warning), or
/// `None` when it may match.
fn grants_nothing(tool: &str, argument: Option<&str>, decision: Decision) -> Option<String> {
    // Claude accepts a tool glob in an allow list only after a literal `mcp__<server>__`
    // (`mcp__*` grants nothing there): such an allow grants nothing here either.
    if decision == Decision::Allow
        && tool.contains('*')
        && tool != "*"
        && !claude_accepts_allow_glob(tool)
    {
        return Some(format!(
            "is a tool glob claude {CLAUDE_VERSION} does not accept in an allow list (it grants \
             nothing there); it compiles to no rule (list the tools, or `mcp__<server>`)"
        ));
    }
    let argument = argument?;
    if argument.is_empty() {
        // Measured on claude 2.1.328 (corpus/claude-oracle): `Bash()`, `TodoRead()` and
        // `WebSearch()` match no call, in allow and deny alike.
        return Some(format!(
            "has an empty argument `()`: claude {CLAUDE_VERSION} matches no call with it, so it \
             compiles to no rule (write `{}` alone to match every call)",
            quote(tool)
        ));
    }
    // Claude reads file edits through `Edit(…)` rules only: a `Write(…)`, `MultiEdit(…)` or
    // `NotebookEdit(…)` allow grants nothing in claude (measured), so it grants nothing here.
    // (As a deny or ask it is read as the `Edit(…)` it resembles: more generous.)
    if decision == Decision::Allow && matches!(tool, "Write" | "MultiEdit" | "NotebookEdit") {
        return Some(format!(
            "grants nothing in claude {CLAUDE_VERSION}, whose file-edit grants are `Edit(…)` \
             entries (they cover Write and NotebookEdit too); it compiles to no rule (write \
             `Edit({})`)",
            quote(argument)
        ));
    }
    None
}

/// The rules of a path entry (`Read(./.env)`) on a tool of `family`: one per field of the
/// tools reached, the entry's own tool's field first, and for a deny or ask one more over
/// every word of a shell command.
fn path_parts(
    tool: &str,
    family: &[(&'static str, &'static str)],
    argument: &str,
    generous: bool,
) -> Vec<LoweredEntry> {
    // Deny and ask reach every tool of the family; an allow only the tool it names (and, for
    // `Edit`, the tools Claude documents it for: every file-editing tool). A Read deny or ask
    // also stops the file tools that edit (claude refuses to edit a file a Read deny covers).
    let reached: Vec<(&str, &str)> = family
        .iter()
        .chain(if generous && family == READ_FAMILY {
            EDIT_FAMILY
        } else {
            &[]
        })
        .filter(|(t, _)| generous || *t == tool || tool == "Edit")
        .copied()
        .collect();
    let mut fields_in_order: Vec<&str> = Vec::new();
    // The entry's own tool's field first.
    if let Some((_, own)) = reached.iter().find(|(t, _)| *t == tool) {
        fields_in_order.push(own);
    }
    for (_, f) in &reached {
        if !fields_in_order.contains(f) {
            fields_in_order.push(f);
        }
    }
    let on = if generous {
        MatchOn::Path
    } else {
        MatchOn::ResolvedPath
    };
    let mut parts: Vec<LoweredEntry> = fields_in_order
        .into_iter()
        .map(|field| LoweredEntry {
            tools: reached
                .iter()
                .filter(|(_, f)| *f == field)
                .map(|(t, _)| t.to_string())
                .collect(),
            input_matchers: vec![InputMatcher {
                field: field.to_string(),
                on,
                pattern: argument.to_string(),
            }],
        })
        .collect();
    // A deny or ask also reads every word of a shell command as a path: `cat .env` must not
    // read what `Read(./.env)` denies (claude's own rules stop at its file tools; a deny may
    // be more generous).
    if generous {
        parts.push(LoweredEntry {
            tools: vec!["Bash".into(), MONITOR_TOOL.into(), "PowerShell".into()],
            input_matchers: vec![InputMatcher {
                field: "command".into(),
                on: MatchOn::CommandPath,
                pattern: argument.to_string(),
            }],
        });
    }
    parts
}

/// The rule of claude's generic `key:value` deny/ask form, when `argument` is one: split at
/// the first `:`, both sides trimmed and non-empty, the key a plain input name other than the
/// tool's own argument field. The value is a `*` glob over the whole (trimmed) input value.
fn generic_key_value(tool: &str, argument: &str, tools: &[String]) -> Option<LoweredEntry> {
    let (key, value) = argument.split_once(':')?;
    let (key, value) = (key.trim(), value.trim());
    if key.is_empty()
        || value.is_empty()
        || key == content_field(tool)
        || !key
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        || input_keys(tool).is_some_and(|keys| !keys.contains(&key))
    {
        return None;
    }
    let body: Vec<String> = value
        .split('*')
        .map(engine::semantics::escape_literal)
        .collect();
    Some(LoweredEntry {
        tools: tools.to_vec(),
        input_matchers: vec![InputMatcher::regex(
            key,
            format!("^\\s*{}\\s*$", body.join(".*")),
        )],
    })
}

/// The claude version whose tools and rule forms this module follows.
pub const CLAUDE_VERSION: &str = "2.1.328";

/// Does Claude accept `glob` as the tool part of an allow entry: `*` only after a literal
/// `mcp__<server>__`?
pub fn claude_accepts_allow_glob(glob: &str) -> bool {
    glob.strip_prefix("mcp__")
        .and_then(|rest| rest.split_once("__"))
        .is_some_and(|(server, _)| !server.is_empty() && !server.contains('*'))
}
