//! Building scenarios: the settings, the fixture files and the calls, numbered in order.

use super::*;

/// The settings file of most scenarios: beside HOME and the project, in neither.
pub(super) const OUTSIDE_SETTINGS: &str = "{home}/../settings/oracle.settings.json";

/// A scenario under construction: calls are numbered `c1`, `c2`, … in order.
pub(super) struct Build(pub(super) Scenario);

pub(super) fn scenario(name: &str, allow: &[&str], ask: &[&str], deny: &[&str]) -> Build {
    let list = |l: &[&str]| l.iter().map(|e| e.to_string()).collect();
    Build(Scenario {
        name: name.into(),
        settings_file: OUTSIDE_SETTINGS.into(),
        permissions: Permissions {
            allow: list(allow),
            ask: list(ask),
            deny: list(deny),
        },
        files: BTreeMap::new(),
        home_files: BTreeMap::new(),
        symlinks: BTreeMap::new(),
        calls: Vec::new(),
    })
}

/// The marker in the fixture at `path` (what a Read that ran returns, what an Edit replaces).
pub(super) fn marker(path: &str) -> String {
    format!("MARK-{}", path.replace(['/', '.', ':'], "_"))
}

impl Build {
    /// Project files, each holding its marker.
    pub(super) fn files(mut self, paths: &[&str]) -> Self {
        for path in paths {
            self.0
                .files
                .insert(path.to_string(), format!("{}\n", marker(path)));
        }
        self
    }

    pub(super) fn file(mut self, path: &str, content: &str) -> Self {
        self.0.files.insert(path.into(), content.into());
        self
    }

    /// Files under HOME, each holding its marker (`home_` in front).
    pub(super) fn home_files(mut self, paths: &[&str]) -> Self {
        for path in paths {
            self.0.home_files.insert(
                path.to_string(),
                format!("{}\n", marker(&format!("home/{path}"))),
            );
        }
        self
    }

    pub(super) fn symlink(mut self, link: &str, target: &str) -> Self {
        self.0.symlinks.insert(link.into(), target.into());
        self
    }

    /// A skill `.claude/skills/<name>/SKILL.md` (extra frontmatter lines in `front`).
    pub(super) fn skill(self, name: &str, front: &str) -> Self {
        let content = format!(
            "---\nname: {name}\ndescription: The {name} skill of the oracle.\n{front}---\n{}\n",
            marker(&format!("skill/{name}"))
        );
        self.file(&format!(".claude/skills/{name}/SKILL.md"), &content)
    }

    /// Write the settings file at the project root instead.
    pub(super) fn settings_in_project(mut self) -> Self {
        self.0.settings_file = "{project}/oracle.settings.json".into();
        self
    }

    pub(super) fn call(mut self, tool: &str, input: Value) -> Self {
        let id = format!("c{}", self.0.calls.len() + 1);
        self.0.calls.push(Call {
            id,
            tool: tool.into(),
            input,
            claude: String::new(),
            message: String::new(),
        });
        self
    }

    pub(super) fn read(self, path: &str) -> Self {
        self.call("Read", json!({"file_path": path}))
    }

    /// Edit the fixture `fixture` (`home:` in front for a HOME file) through the path `path`:
    /// its marker gets ` EDITED-<id>` after it.
    pub(super) fn edit(self, path: &str, fixture: &str) -> Self {
        let mark = match fixture.strip_prefix("home:") {
            Some(home) => marker(&format!("home/{home}")),
            None => marker(fixture),
        };
        let id = format!("c{}", self.0.calls.len() + 1);
        self.call(
            "Edit",
            json!({"file_path": path, "old_string": mark, "new_string": format!("{mark} EDITED-{id}")}),
        )
    }

    pub(super) fn write(self, path: &str) -> Self {
        let id = format!("c{}", self.0.calls.len() + 1);
        self.call(
            "Write",
            json!({"file_path": path, "content": format!("WRITTEN-{id}\n")}),
        )
    }

    pub(super) fn notebook(self, path: &str) -> Self {
        let id = format!("c{}", self.0.calls.len() + 1);
        self.call(
            "NotebookEdit",
            json!({"notebook_path": path, "cell_id": "cell1", "new_source": format!("print('EDITED-{id}')")}),
        )
    }

    pub(super) fn glob(self, pattern: &str, path: Option<&str>) -> Self {
        let input = match path {
            Some(path) => json!({"pattern": pattern, "path": path}),
            None => json!({"pattern": pattern}),
        };
        self.call("Glob", input)
    }

    pub(super) fn grep(self, pattern: &str, path: Option<&str>) -> Self {
        let input = match path {
            Some(path) => json!({"pattern": pattern, "path": path}),
            None => json!({"pattern": pattern}),
        };
        self.call("Grep", input)
    }

    pub(super) fn bash(self, command: &str) -> Self {
        self.call(
            "Bash",
            json!({"command": command, "description": "scripted by the oracle"}),
        )
    }

    pub(super) fn fetch(self, url: &str) -> Self {
        self.call(
            "WebFetch",
            json!({"url": url, "prompt": "Summarise the page."}),
        )
    }

    pub(super) fn skill_call(self, skill: &str) -> Self {
        self.call("Skill", json!({"skill": skill}))
    }

    pub(super) fn agent(self, tool: &str, subagent_type: &str) -> Self {
        self.call(
            tool,
            json!({"description": "oracle subagent", "prompt": "Say hello.", "subagent_type": subagent_type}),
        )
    }

    pub(super) fn mcp(self, tool: &str) -> Self {
        let id = format!("c{}", self.0.calls.len() + 1);
        self.call(tool, json!({"text": format!("oracle-{id}")}))
    }

    /// Each tool of both MCP servers (`e2e`, `other`): `echo`, then `shout`.
    pub(super) fn every_mcp_tool(self) -> Self {
        let tools = [
            "mcp__e2e__echo",
            "mcp__e2e__shout",
            "mcp__other__echo",
            "mcp__other__shout",
        ];
        tools.into_iter().fold(self, Self::mcp)
    }

    pub(super) fn done(self) -> Scenario {
        self.0
    }
}

/// A notebook with one code cell, `cell1`.
pub(super) const NOTEBOOK: &str = r#"{"cells": [{"cell_type": "code", "id": "cell1", "metadata": {}, "source": ["print('MARK-notebook')"], "outputs": [], "execution_count": null}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}"#;
