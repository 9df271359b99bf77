//! Claude's tools as `tool_policy` entries see them: their names, the file tools a path rule
//! reaches, each tool's argument form and its input fields.

/// Claude's tool that runs a background command, to which Bash deny and ask rules apply.
pub const MONITOR_TOOL: &str = "Monitor";

/// Claude's built-in tools (2.1.328) that a `tool_policy` entry may name; any other name that
/// is not an MCP tool compiles, with a warning that Claude has no such tool.
pub const CLAUDE_TOOLS: &[&str] = &[
    "Agent",
    "AskUserQuestion",
    "Bash",
    "BashOutput",
    "Edit",
    "EnterPlanMode",
    "ExitPlanMode",
    "Glob",
    "Grep",
    "KillShell",
    "LS",
    "LSP",
    "ListMcpResourcesTool",
    "Monitor",
    "MultiEdit",
    "NotebookEdit",
    "NotebookRead",
    "PowerShell",
    "ReadMcpResourceTool",
    "Read",
    "SlashCommand",
    "Skill",
    "Task",
    "TaskCreate",
    "TaskGet",
    "TaskList",
    "TaskOutput",
    "TaskStop",
    "TaskUpdate",
    "TodoRead",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
    "Write",
];

/// Tools a harness passes on under their own name (`engine::harness` keeps a name its table
/// does not map) that resemble a Claude tool's: an entry naming one of them fires for that
/// harness, so it is no misspelling ([`misspelt_tool`]). Opencode's `todowrite`, `todoread`,
/// `skill` and `lsp` (its `bash`, `read`, `task`, … are mapped to `Bash`, `Read`, `Agent`, …, so
/// an entry `bash(…)` never fires anywhere).
pub const AS_GIVEN_TOOLS: &[&str] = &["todowrite", "todoread", "skill", "lsp"];

/// The Claude tool `tool` most likely misspells: a name that is no Claude tool, no MCP tool,
/// no glob and none of [`AS_GIVEN_TOOLS`], but differs from a Claude tool only in case, `_`
/// and `-` (`bash`, `webfetch`) or by one edit (`Reed`, two for long names: `WebFecth`). No
/// harness calls a tool by such a name (each maps its own names onto Claude's), so an entry
/// naming it can never fire. Any other unknown name (an opencode custom tool, a Gemini or
/// Codex tool kept under its own name) is not flagged: it is matched by its exact name.
pub fn misspelt_tool(tool: &str) -> Option<&'static str> {
    if tool.contains('*')
        || tool.starts_with("mcp__")
        || CLAUDE_TOOLS.contains(&tool)
        || AS_GIVEN_TOOLS.contains(&tool)
    {
        return None;
    }
    crate::suggest::did_you_mean(tool, CLAUDE_TOOLS.iter().copied())
}

/// The file tools a path rule reaches, and the field holding each one's path: a `Read(…)`
/// entry reaches every tool that reads files, an `Edit(…)` entry every tool that edits them.
pub(super) const READ_FAMILY: &[(&str, &str)] = &[
    ("Read", "file_path"),
    ("NotebookRead", "notebook_path"),
    ("Grep", "path"),
    ("Glob", "path"),
    ("Glob", "pattern"),
    ("LS", "path"),
];
pub(super) const EDIT_FAMILY: &[(&str, &str)] = &[
    ("Edit", "file_path"),
    ("Write", "file_path"),
    ("MultiEdit", "file_path"),
    ("NotebookEdit", "notebook_path"),
];

/// How a tool's argument form is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Argument {
    /// A Claude command pattern over the shell segments of `field`.
    Command(&'static str),
    /// A path glob over the file tools of a family.
    Path(&'static [(&'static str, &'static str)]),
    /// `domain:host` over the URL in `field`.
    Domain(&'static str),
    /// The whole value of `field`: exactly, or (`name:*`) as a prefix.
    Name(&'static str),
}

/// Tools whose argument form we model.
pub(super) fn argument_of(tool: &str) -> Option<Argument> {
    Some(match tool {
        "Bash" | "PowerShell" | "Monitor" => Argument::Command("command"),
        "Read" | "NotebookRead" => Argument::Path(READ_FAMILY),
        "Edit" | "Write" | "MultiEdit" | "NotebookEdit" => Argument::Path(EDIT_FAMILY),
        "Grep" | "Glob" | "LS" => {
            Argument::Path(&[("Grep", "path"), ("Glob", "path"), ("LS", "path")])
        }
        "WebFetch" => Argument::Domain("url"),
        "WebSearch" => Argument::Name("query"),
        "Skill" => Argument::Name("skill"),
        "Task" | "Agent" => Argument::Name("subagent_type"),
        "SlashCommand" => Argument::Name("command"),
        _ => return None,
    })
}

/// The field each tool's own argument form reads, which claude's generic `key:value` form
/// skips.
pub(super) fn content_field(tool: &str) -> &'static str {
    match tool {
        "Bash" | "PowerShell" | "Monitor" => "command",
        "Read" | "Write" | "Edit" | "MultiEdit" => "file_path",
        "NotebookEdit" | "NotebookRead" => "notebook_path",
        "Glob" | "Grep" | "LS" => "path",
        "WebFetch" => "url",
        "LSP" => "filePath",
        _ => "",
    }
}

/// Every input field of a Claude tool whose input is known (its own argument field and
/// [`input_keys`]); `None` for any other tool.
pub(crate) fn known_fields(tool: &str) -> Option<Vec<&'static str>> {
    let keys = input_keys(tool)?;
    let own = content_field(tool);
    Some(
        std::iter::once(own)
            .filter(|f| !f.is_empty())
            .chain(keys.iter().copied())
            .collect(),
    )
}

/// The input keys of claude's built-in tools (2.1.328), where the generic `key:value` form
/// can match; `None` for any other tool (an MCP tool's keys are its own).
pub(super) fn input_keys(tool: &str) -> Option<&'static [&'static str]> {
    Some(match tool {
        "Bash" | "Monitor" => &[
            "description",
            "timeout",
            "run_in_background",
            "dangerouslyDisableSandbox",
        ],
        "Read" => &["offset", "limit", "pages"],
        "Edit" => &["old_string", "new_string", "replace_all"],
        "Write" => &["content"],
        "Glob" => &["pattern"],
        "Grep" => &[
            "pattern",
            "glob",
            "type",
            "output_mode",
            "multiline",
            "head_limit",
        ],
        "WebFetch" => &["prompt"],
        "WebSearch" => &["query", "allowed_domains", "blocked_domains"],
        "Agent" | "Task" => &["description", "prompt", "subagent_type", "model"],
        "Skill" => &["skill", "args"],
        "NotebookEdit" => &["cell_id", "new_source", "cell_type", "edit_mode"],
        _ => return None,
    })
}
