//! Tests of lowering `tool_policy` entries.

use super::*;
use engine::pattern_error::PatternError;

fn parts(entry: &str, decision: Decision) -> Vec<LoweredEntry> {
    lower_entry(entry, decision).unwrap().parts
}

fn matcher(entry: &str, decision: Decision) -> Option<InputMatcher> {
    parts(entry, decision)[0].input_matchers.first().cloned()
}

#[test]
fn spec_table() {
    assert_eq!(
        parts("Bash", Decision::Allow),
        [LoweredEntry {
            tools: vec!["Bash".into()],
            input_matchers: vec![]
        }]
    );
    assert_eq!(
        parts("Bash(rm:*)", Decision::Deny)[0].tools,
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
        parts("mcp__github__*", Decision::Allow)[0].tools,
        ["mcp__github__*"]
    );
    assert_eq!(parts("*", Decision::Allow)[0].tools, Vec::<String>::new());
    assert_eq!(matcher("Bash(*)", Decision::Allow), None);
    assert_eq!(matcher("Bash(**)", Decision::Deny), None);
    assert_eq!(matcher("WebFetch(*)", Decision::Allow), None);
    assert_eq!(
        parts("mcp__puppeteer", Decision::Deny)[0].tools,
        ["mcp__puppeteer__*"]
    );
}

#[test]
fn path_entries_reach_their_family() {
    let deny = parts("Read(./.env)", Decision::Deny);
    let fields: Vec<(&[String], &str, MatchOn)> = deny
        .iter()
        .map(|p| {
            let m = &p.input_matchers[0];
            (p.tools.as_slice(), m.field.as_str(), m.on)
        })
        .collect();
    assert_eq!(fields[0].1, "file_path");
    assert_eq!(fields[0].0[0], "Read");
    assert!(
        fields[0].0.contains(&"Edit".to_string()),
        "claude refuses to edit what a Read deny covers"
    );
    let (bash, files) = fields.split_last().unwrap();
    assert!(files.iter().all(|f| f.2 == MatchOn::Path));
    assert_eq!(
        (bash.1, bash.2),
        ("command", MatchOn::CommandPath),
        "cat .env is stopped too"
    );
    assert!(
        fields
            .iter()
            .any(|f| f.1 == "path" && f.0.contains(&"Grep".to_string()))
    );
    let allow = parts("Read(src/**)", Decision::Allow);
    assert_eq!(
        allow.len(),
        1,
        "an allow reaches only the tool it names: {allow:?}"
    );
    assert_eq!(allow[0].input_matchers[0].on, MatchOn::ResolvedPath);
    let edit = parts("Edit(src/**)", Decision::Allow);
    let tools: Vec<&String> = edit.iter().flat_map(|p| &p.tools).collect();
    assert!(tools.iter().any(|t| *t == "Write") && tools.iter().any(|t| *t == "NotebookEdit"));
    let m = matcher("WebFetch(domain:example.com)", Decision::Deny).unwrap();
    assert_eq!(
        (m.field.as_str(), m.on, m.pattern.as_str()),
        ("url", MatchOn::Domain, "example.com")
    );
    let m = matcher("Skill(commit:*)", Decision::Allow).unwrap();
    assert_eq!(
        (m.field.as_str(), m.on, m.pattern.as_str()),
        ("skill", MatchOn::Name, "commit:*")
    );
    let m = matcher("Skill(beta)", Decision::Deny).unwrap();
    assert_eq!(m.search_regex().unwrap().1, "\\x01beta$");
}

#[test]
fn unknown_tools_compile_with_a_note() {
    for entry in [
        "git commit",
        "GlobTool(**)",
        "my_custom_tool",
        "run_shell_command(rm:*)",
        "todowrite",
        "Search(pattern:*)",
        ":(Skill*)",
    ] {
        let lowered = lower_entry(entry, Decision::Ask).unwrap();
        assert!(lowered.note.unwrap().contains("not a tool"), "{entry}");
    }
    assert!(lower_entry("Read", Decision::Allow).unwrap().note.is_none());
}

#[test]
fn near_misses_of_claude_tools_are_errors_naming_the_tool_meant() {
    for (entry, meant) in [
        ("bash(rm:*)", "Bash"),
        ("Reed(./.env)", "Read"),
        ("Web Search(*)", "WebSearch"),
        ("webfetch(domain:x.io)", "WebFetch"),
        ("Bsh", "Bash"),
        ("ls", "LS"),
    ] {
        for decision in [Decision::Deny, Decision::Ask, Decision::Allow] {
            let e = lower_entry(entry, decision).unwrap_err();
            assert!(
                matches!(&e, EntryError::Misspelt { meant: m, .. } if *m == meant),
                "{entry}: {e}"
            );
            let message = e.to_string();
            assert!(
                message.contains(&format!("did you mean `{meant}`?"))
                    && message.contains("never fires"),
                "{entry}: {message}"
            );
        }
    }
    // Tools a harness passes on under their own name, MCP tools and globs are not misspellings.
    for entry in ["todowrite", "skill", "lsp", "mcp__bash__run", "bash*", "*"] {
        lower_entry(entry, Decision::Deny).unwrap_or_else(|e| panic!("{entry}: {e}"));
    }
}

#[test]
fn unmodelled_arguments_are_errors() {
    for entry in ["TodoWrite(x)", "mcp__x__y(arg)", "*(x)"] {
        let e = lower_entry(entry, Decision::Deny).unwrap_err();
        assert!(
            matches!(e, EntryError::UnmodelledArgument { .. }),
            "{entry}: {e}"
        );
        assert!(e.to_string().contains("not modelled"), "{entry}: {e}");
    }
    let e = lower_entry("WebFetch(https://x.com)", Decision::Deny).unwrap_err();
    assert!(matches!(e, EntryError::NotADomain { .. }), "{e}");
    assert!(e.to_string().contains("domain:"), "{e}");
    assert_eq!(
        lower_entry("Bash(ls", Decision::Deny),
        Err(EntryError::UnclosedParenthesis)
    );
    for decision in [Decision::Allow, Decision::Deny] {
        let inert = lower_entry("Bash()", decision).unwrap();
        assert!(inert.parts.is_empty() && inert.note.unwrap().contains("no call"));
    }
    assert_eq!(
        lower_entry("", Decision::Deny),
        Err(EntryError::ToolGlob(ToolGlobError::Empty))
    );
    assert_eq!(
        lower_entry("Bash(a\u{1}b)", Decision::Deny),
        Err(EntryError::Pattern(PatternError::ControlCharacter {
            what: "pattern",
            character: '\u{1}',
        }))
    );
}

/// What claude 2.1.328 was measured to do (corpus/claude-oracle) with entries that look
/// like grants but are not.
#[test]
fn entries_claude_ignores_grant_nothing() {
    assert!(
        lower_entry("Write(out/**)", Decision::Allow)
            .unwrap()
            .parts
            .is_empty()
    );
    assert!(
        !lower_entry("Write(out/**)", Decision::Deny)
            .unwrap()
            .parts
            .is_empty()
    );
    assert!(
        lower_entry("mcp__*", Decision::Allow)
            .unwrap()
            .parts
            .is_empty()
    );
    assert_eq!(parts("mcp__*", Decision::Deny)[0].tools, ["mcp__*"]);
    // `Read(**)` allowed is a path glob (claude's does not reach the home directory).
    assert_eq!(
        matcher("Read(**)", Decision::Allow).unwrap().on,
        MatchOn::ResolvedPath
    );
    assert_eq!(matcher("Read(**)", Decision::Deny), None);
    let edit_star = parts("Edit(*)", Decision::Allow);
    assert_eq!(edit_star.len(), 1);
    assert_eq!(
        edit_star[0].tools,
        ["Edit"],
        "claude's Edit(*) is not applied to Write"
    );
    assert!(
        lower_entry("WebSearch(claude ai)", Decision::Allow)
            .unwrap()
            .parts
            .is_empty()
    );
    // Claude's generic `key:value` deny form.
    let generic = parts("Grep(pattern:*password*)", Decision::Deny);
    let m = &generic.last().unwrap().input_matchers[0];
    assert_eq!(
        (m.field.as_str(), m.pattern.as_str()),
        ("pattern", "^\\s*.*password.*\\s*$")
    );
    let agent = parts("Agent(subagent_type:Explore)", Decision::Deny);
    assert_eq!(
        agent.last().unwrap().input_matchers[0].field,
        "subagent_type"
    );
    assert_eq!(
        parts("Bash(git:*)", Decision::Deny).len(),
        1,
        "no `git` input key"
    );
    let m = matcher("Skill(beta)", Decision::Deny).unwrap();
    assert_eq!(m.search_regex().unwrap().1, "\\x01beta$");
}
