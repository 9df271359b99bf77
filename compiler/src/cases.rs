//! Policy test cases (`animus-hook test`): a YAML or JSON list of calls, each with the decision
//! the policy must give it.
//!
//! ```yaml
//! - command: "git reset --hard"          # a Bash call
//!   expect: deny
//! - call: {tool: Read, input: {file_path: /home/user/project/.env}}
//!   expect: ask
//!   cwd: /home/user/project              # where the call happens (default: as here;
//!                                        # `project_root` and `home` likewise, `/home/user`)
//! - name: status is left to claude
//!   command: "git status"
//!   expect: defer
//!   event: PermissionRequest             # default PreToolUse
//! ```
//!
//! `expect` is one of `deny`, `ask`, `allow` (the call is covered by the allow entries; the
//! hook then leaves the grant to claude's own rules) or `defer`. Every error names
//! `file:line:column`.

use std::path::Path;
use std::sync::Arc;

use engine::{Decision, GATE_EVENTS};
use serde::Deserialize;
use serde_saphyr::Spanned;

use crate::diagnostic::{Diagnostic, Errors, Location, quote};
use crate::profile::MAX_CONFIG_BYTES;

/// The place a case is decided in when its file does not say: a project in a home directory.
pub const DEFAULT_CWD: &str = "/home/user/project";

/// The home directory of a case that does not name one (`~` in rules and calls).
pub const DEFAULT_HOME: &str = "/home/user";

/// One test case.
#[derive(Clone, Debug, PartialEq)]
pub struct Case {
    /// The case's name, or a summary of its call.
    pub name: String,
    /// The tool called.
    pub tool: String,
    /// The call's `tool_input`.
    pub input: serde_json::Value,
    /// The decision the policy must give.
    pub expect: Decision,
    /// The gate event.
    pub event: String,
    /// Where the call happens.
    pub cwd: String,
    /// The project root (default: `cwd`).
    pub project_root: String,
    /// The user's home directory.
    pub home: String,
    /// Where the case was written.
    pub location: Location,
}

/// A case as written (also `tool_policy.examples` in a profile).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RawCase {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    call: Option<RawCall>,
    expect: Spanned<String>,
    #[serde(default)]
    event: Option<Spanned<String>>,
    #[serde(default)]
    cwd: Option<Spanned<String>>,
    #[serde(default)]
    project_root: Option<Spanned<String>>,
    #[serde(default)]
    home: Option<Spanned<String>>,
}

// JSON values have no NaN: equality is an equivalence.
impl Eq for Case {}

impl Case {
    /// The call the case makes, where it makes it.
    pub fn call(&self) -> engine::Call<'_> {
        engine::Call {
            event: &self.event,
            tool_name: &self.tool,
            tool_input: &self.input,
            places: engine::Places {
                cwd: Some(&self.cwd),
                home: Some(&self.home),
                project_root: Some(&self.project_root),
            },
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCall {
    tool: String,
    #[serde(default)]
    input: Option<serde_json::Value>,
}

/// Read the cases of `path`.
pub fn load_cases_file(path: &Path) -> Result<Vec<Case>, Errors> {
    let name: Arc<str> = path.display().to_string().into();
    let whole = Location {
        file: name.clone(),
        line: 0,
        column: 0,
    };
    let len = std::fs::metadata(path)
        .map_err(|e| Diagnostic::error(Some(whole.clone()), format!("cannot read cases: {e}")))?
        .len();
    if len > MAX_CONFIG_BYTES as u64 {
        return Err(Diagnostic::error(
            Some(whole),
            format!("the case file is {len} bytes, over the {MAX_CONFIG_BYTES}-byte limit"),
        )
        .into());
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| Diagnostic::error(Some(whole.clone()), format!("cannot read cases: {e}")))?;
    load_cases_str(&text, name)
}

/// Read cases from `text`; `file` names the source in diagnostics.
pub fn load_cases_str(text: &str, file: Arc<str>) -> Result<Vec<Case>, Errors> {
    let at = |line: usize, column: usize| Location {
        file: file.clone(),
        line: line as u32,
        column: column as u32,
    };
    let raw: Vec<Spanned<RawCase>> = serde_saphyr::from_str(text).map_err(|e| {
        let (line, column) = e
            .location()
            .map_or((0, 0), |l| (l.line() as usize, l.column() as usize));
        let first = crate::diagnostic::error_line(&e.to_string());
        Diagnostic::error(Some(at(line, column)), quote(&first).into_owned()).with_help(
            "a case file is a list of `- command: \"…\"` or `- call: {tool: …, input: {…}}` \
             entries, each with `expect: deny|ask|allow|defer`",
        )
    })?;
    let mut errors = Vec::new();
    let mut cases = Vec::new();
    for spanned in raw {
        match case_from_raw(spanned, &at) {
            Ok(case) => cases.push(case),
            Err(mut more) => errors.append(&mut more),
        }
    }
    if errors.is_empty() {
        Ok(cases)
    } else {
        Err(Errors(errors))
    }
}

/// One case from its written form; every mistake in it, each at its place.
pub(crate) fn case_from_raw(
    spanned: Spanned<RawCase>,
    at: &dyn Fn(usize, usize) -> Location,
) -> Result<Case, Vec<Diagnostic>> {
    let mut errors = Vec::new();
    let location = at(
        spanned.referenced.line() as usize,
        spanned.referenced.column() as usize,
    );
    let case = spanned.value;
    let spot =
        |s: &Spanned<String>| at(s.referenced.line() as usize, s.referenced.column() as usize);
    let (tool, input) = match (case.command, case.call) {
        (Some(command), None) => (
            "Bash".to_string(),
            serde_json::json!({ "command": command }),
        ),
        (None, Some(call)) => {
            let input = call.input.unwrap_or_else(|| serde_json::json!({}));
            if !input.is_object() {
                errors.push(Diagnostic::error(
                    Some(location.clone()),
                    "`call.input` must be a mapping (the tool's input)",
                ));
                return Err(errors);
            }
            (call.tool, input)
        }
        _ => {
            errors.push(Diagnostic::error(
                Some(location.clone()),
                "a case needs exactly one of `command` (a Bash call) and `call` ({tool, input})",
            ));
            return Err(errors);
        }
    };
    let expect = match case.expect.value.as_str() {
        "deny" => Decision::Deny,
        "ask" => Decision::Ask,
        "allow" => Decision::Allow,
        "defer" => Decision::Defer,
        other => {
            errors.push(
                Diagnostic::error(
                    Some(spot(&case.expect)),
                    format!("`expect: {}` is not a decision", quote(other)),
                )
                .with_help("expect one of deny, ask, allow, defer"),
            );
            return Err(errors);
        }
    };
    let event = match case.event {
        Some(event) if !GATE_EVENTS.contains(&event.value.as_str()) => {
            errors.push(Diagnostic::error(
                Some(spot(&event)),
                format!(
                    "`event: {}` is not a gate event ({})",
                    quote(&event.value),
                    GATE_EVENTS.join(", ")
                ),
            ));
            return Err(errors);
        }
        Some(event) => event.value,
        None => "PreToolUse".to_string(),
    };
    let mut absolute = |value: Option<Spanned<String>>, what: &str| match value {
        Some(v) if !v.value.starts_with('/') => {
            errors.push(Diagnostic::error(
                Some(spot(&v)),
                format!("`{what}: {}` is not an absolute path", quote(&v.value)),
            ));
            None
        }
        Some(v) => Some(Some(v.value)),
        None => Some(None),
    };
    let (Some(cwd), Some(project_root), Some(home)) = (
        absolute(case.cwd, "cwd"),
        absolute(case.project_root, "project_root"),
        absolute(case.home, "home"),
    ) else {
        return Err(errors);
    };
    let cwd = cwd.unwrap_or_else(|| DEFAULT_CWD.to_string());
    let name = case.name.unwrap_or_else(|| summary(&tool, &input));
    Ok(Case {
        name,
        tool,
        input,
        expect,
        event,
        project_root: project_root.unwrap_or_else(|| cwd.clone()),
        home: home.unwrap_or_else(|| DEFAULT_HOME.to_string()),
        cwd,
        location,
    })
}

/// A rule example that is neither a Bash command nor a `{tool, input}` mapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("an example is a Bash command (a string) or `{{tool: …, input: {{…}}}}`")]
pub(crate) struct NotAnExample;

/// A rule example as written: a string is a Bash command, a mapping `{tool, input}` any call.
pub(crate) fn example_call(
    value: &serde_json::Value,
) -> Result<(String, serde_json::Value), NotAnExample> {
    match value {
        serde_json::Value::String(command) => {
            Ok(("Bash".into(), serde_json::json!({ "command": command })))
        }
        serde_json::Value::Object(map) => {
            let tool = map.get("tool").and_then(|t| t.as_str());
            let input = map.get("input").cloned().unwrap_or(serde_json::json!({}));
            match (tool, map.keys().all(|k| k == "tool" || k == "input")) {
                (Some(tool), true) if input.is_object() => Ok((tool.to_string(), input)),
                _ => Err(NotAnExample),
            }
        }
        _ => Err(NotAnExample),
    }
}

/// A one-line summary of a call: `Bash: git status`, `Read: {"file_path":"…"}` (at most 120
/// bytes of it).
pub fn summary(tool: &str, input: &serde_json::Value) -> String {
    let detail = match input.get("command").and_then(|c| c.as_str()) {
        Some(command) if tool == "Bash" => command.to_string(),
        _ => input.to_string(),
    };
    format!("{tool}: {}", quote(&detail))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(text: &str) -> Result<Vec<Case>, Errors> {
        load_cases_str(text, "cases.yaml".into())
    }

    #[test]
    fn commands_and_calls() {
        let cases = load(
            "- command: git reset --hard\n  expect: deny\n\
             - name: dotenv\n  call: {tool: Read, input: {file_path: /p/.env}}\n  expect: ask\n  cwd: /p\n",
        )
        .unwrap();
        assert_eq!(cases.len(), 2);
        assert_eq!(cases[0].tool, "Bash");
        assert_eq!(cases[0].input["command"], "git reset --hard");
        assert_eq!(cases[0].expect, Decision::Deny);
        assert_eq!(cases[0].cwd, DEFAULT_CWD);
        assert_eq!(cases[0].name, "Bash: git reset --hard");
        assert_eq!(cases[0].location.line, 1);
        assert_eq!(cases[1].name, "dotenv");
        assert_eq!(cases[1].input["file_path"], "/p/.env");
        assert_eq!(
            (cases[1].cwd.as_str(), cases[1].project_root.as_str()),
            ("/p", "/p")
        );
        assert_eq!(cases[1].location.line, 3);
    }

    #[test]
    fn mistakes_name_their_place() {
        // Each case file, and what its error must say.
        let cases: [(&str, &[&str]); 8] = [
            (
                "- command: ls\n  expect: maybe\n",
                &["cases.yaml:2:11", "not a decision"],
            ),
            ("- expect: deny\n", &["cases.yaml:1:3", "exactly one of"]),
            (
                "- command: ls\n  call: {tool: Read}\n  expect: deny\n",
                &["exactly one of"],
            ),
            (
                "- command: ls\n  expect: deny\n  cwd: relative\n",
                &["cases.yaml:3:8", "not an absolute path"],
            ),
            (
                "- command: ls\n  expect: deny\n  event: Stop\n",
                &["not a gate event"],
            ),
            (
                "- command: ls\n  expect: deny\n  colour: red\n",
                &["cases.yaml:3", "colour"],
            ),
            ("command: ls\n", &["cases.yaml:1"]),
            (
                "- call: {tool: Read, input: [1]}\n  expect: deny\n",
                &["must be a mapping"],
            ),
        ];
        for (text, says) in cases {
            let e = load(text).unwrap_err().to_string();
            for part in says {
                assert!(e.contains(part), "{text:?}: {part:?} not in {e}");
            }
        }
    }
}
