//! `animus-hook import --claude-settings`: a user's Claude settings files as an agent profile.
//!
//! The files are read as Claude reads them (JSON with comments) and merged the way Claude merges
//! its settings layers, lowest precedence first: the `permissions.allow`, `ask` and `deny` lists
//! are concatenated (an entry listed again keeps its first place), and for the scalar
//! `defaultMode` the highest layer wins. Every entry lands in the profile's `tool_policy` or is
//! reported with its `file:line:column` and why; nothing is dropped silently:
//!
//! - an entry the compiler cannot model is an error and is left out (so the profile still
//!   compiles, and `import` exits non-zero);
//! - an entry that compiles with a caveat (a tool Claude does not have) is kept and warned about;
//! - `defaultMode`, `additionalDirectories` and any other `permissions` key have no place in an
//!   agent profile: each is reported, with what it would have meant;
//! - a bare `*` in `allow` is left out and reported: claude ignores it there, so it must not
//!   widen anything here; so is an entry whose tool is a near miss of a Claude tool's name
//!   (`Web Search(*)`, `bash(rm:*)`), which never fires in claude either (a warning naming
//!   the tool meant).
//!
//! The lists keep the meaning they have in claude: the profile says `meaning: claude`
//! ([`Meaning::Claude`]), so a call no entry names goes to the harness's own flow (the hook
//! abstains: claude asks in `default` mode, runs it in `bypassPermissions` as the user chose),
//! while every `deny` and `ask` entry binds in every permission mode. A user who wants the
//! list as a strict allowlist on purpose sets [`Import::meaning`] to [`Meaning::Allowlist`]
//! (`import --meaning allowlist`): every call the `allow` entries do not cover is then denied.
//!
//! The profile it prints (YAML, or JSON) is accepted by `compile` unchanged.

use std::fmt::Write as _;
use std::sync::Arc;

use engine::Decision;

use compiler::diagnostic::{Diagnostic, Location};
use compiler::jsonc::{self, Node, Value};
use compiler::profile::Meaning;
use compiler::tool_policy::lower_entry;

/// One settings file: its name as the user gave it, and its text.
#[derive(Clone, Debug)]
pub struct SettingsFile {
    /// The name used in locations.
    pub name: Arc<str>,
    /// The file's text.
    pub text: String,
    /// Claude's user settings (`~/.claude/settings.json`, `settings.local.json` beside it),
    /// where a `/x` path rule means `~/.claude/x` rather than the project's `x`.
    pub user_settings: bool,
}

impl SettingsFile {
    /// Read `path`: its text, its name as given, and whether it is the user's own settings
    /// (its directory is `$HOME/.claude`).
    pub fn read(path: &std::path::Path) -> std::io::Result<SettingsFile> {
        let text = std::fs::read_to_string(path)?;
        let dir = std::fs::canonicalize(path)
            .ok()
            .and_then(|p| p.parent().map(std::path::Path::to_path_buf));
        let user_dir = std::env::var_os("HOME")
            .map(|h| std::path::Path::new(&h).join(".claude"))
            .and_then(|d| std::fs::canonicalize(d).ok());
        Ok(SettingsFile {
            name: Arc::from(path.display().to_string()),
            text,
            user_settings: dir.is_some() && dir == user_dir,
        })
    }
}

/// In the user's settings, claude anchors `/x` at `~/.claude` (the settings file's directory):
/// `Read(/secrets/**)` there is `Read(~/.claude/secrets/**)`. `None` for any other entry.
fn user_anchored(entry: &str) -> Option<String> {
    let (tool, relative) = compiler::tool_policy::root_relative_path_entry(entry)?;
    Some(format!("{tool}(~/.claude/{relative})"))
}

/// An entry and where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportedEntry {
    /// The entry, as written.
    pub entry: String,
    /// Where it was first written.
    pub from: Location,
    /// Where it was written again (kept once).
    pub repeated_at: Vec<Location>,
}

/// The merged permissions.
#[derive(Clone, Debug, Default)]
pub struct Import {
    /// The `tool_policy.meaning` the profile is written with: [`Meaning::Claude`] from
    /// [`import_claude_settings`]; a caller may choose [`Meaning::Allowlist`].
    pub meaning: Meaning,
    /// `permissions.allow`, merged.
    pub allow: Vec<ImportedEntry>,
    /// `permissions.ask`, merged.
    pub ask: Vec<ImportedEntry>,
    /// `permissions.deny`, merged.
    pub deny: Vec<ImportedEntry>,
    /// Errors (entries left out) and warnings, in file order.
    pub reports: Vec<Diagnostic>,
    /// The files, lowest precedence first.
    pub files: Vec<Arc<str>>,
}

impl Import {
    /// How many entries were left out (each reported as an error).
    pub fn left_out(&self) -> usize {
        self.reports
            .iter()
            .filter(|d| d.severity == compiler::Severity::Error)
            .count()
    }
}

/// What each `permissions` key other than the three lists means, and why the profile has no
/// place for it.
fn unmodelled_key(key: &str) -> &'static str {
    match key {
        "defaultMode" => {
            "is the permission mode the harness starts in; an agent profile has no place for it \
             (launch claude with `--permission-mode` instead); under `meaning: claude` the hook \
             abstains on a call no entry names, so the mode decides it as it does in claude \
             (under `meaning: allowlist` it is denied in every mode)"
        }
        "additionalDirectories" => {
            "widens where claude's own file tools may work without asking; an agent profile has \
             no place for it (pass `--add-dir` to claude); it grants nothing the hook decides"
        }
        "disableBypassPermissionsMode" => {
            "is a claude setting about its own bypass mode; an agent profile has no place for it"
        }
        _ => "is not a permission list claude's settings define; it is not imported",
    }
}

/// Read and merge `files` (lowest precedence first). Errors about a whole file (unreadable
/// JSONC, `permissions` of the wrong type) stop the import; problems with single entries are
/// reports.
pub fn import_claude_settings(files: &[SettingsFile]) -> Result<Import, Vec<Diagnostic>> {
    let mut import = Import {
        meaning: Meaning::Claude,
        files: files.iter().map(|f| f.name.clone()).collect(),
        ..Import::default()
    };
    let mut fatal = Vec::new();
    let mut default_mode: Option<(String, Location)> = None;
    for file in files {
        let at = |line: u32, column: u32| Location {
            file: file.name.clone(),
            line,
            column,
        };
        let doc = match jsonc::parse_noting(&file.text) {
            Ok((doc, extension)) => {
                if let Some(e) = extension {
                    import.reports.push(Diagnostic::warning(
                        Some(at(e.line, e.column)),
                        format!(
                            "{} is not strict JSON: claude reads settings with JSON.parse and \
                             ignores this whole file, so none of its permissions apply in \
                             claude today; they are imported (the hook enforces them)",
                            e.what
                        ),
                    ));
                }
                doc
            }
            Err(e) => {
                fatal.push(Diagnostic::error(
                    Some(at(e.line, e.column)),
                    format!("not a settings file (JSON with comments): {}", e.message),
                ));
                continue;
            }
        };
        if !matches!(doc.value, Value::Object(_)) {
            fatal.push(Diagnostic::error(
                Some(at(doc.line, doc.column)),
                format!("a settings file is a JSON object, not {}", doc.type_name()),
            ));
            continue;
        }
        let Some(permissions) = doc.get("permissions") else {
            import.reports.push(Diagnostic::warning(
                Some(at(doc.line, doc.column)),
                "has no `permissions`; nothing to import from it",
            ));
            continue;
        };
        let Value::Object(members) = &permissions.value else {
            fatal.push(Diagnostic::error(
                Some(at(permissions.line, permissions.column)),
                format!(
                    "`permissions` is an object, not {}",
                    permissions.type_name()
                ),
            ));
            continue;
        };
        for (key, node) in members {
            let place = at(node.line, node.column);
            let (list, decision) = match key.as_str() {
                "allow" => (&mut import.allow, Decision::Allow),
                "ask" => (&mut import.ask, Decision::Ask),
                "deny" => (&mut import.deny, Decision::Deny),
                "defaultMode" => {
                    if let Value::String(mode) = &node.value {
                        default_mode = Some((mode.clone(), place));
                    } else {
                        import.reports.push(Diagnostic::warning(
                            Some(place),
                            format!(
                                "`permissions.defaultMode` is {}, not a string",
                                node.type_name()
                            ),
                        ));
                    }
                    continue;
                }
                other => {
                    import.reports.push(Diagnostic::warning(
                        Some(place),
                        format!(
                            "`permissions.{other}` {} (value: {})",
                            unmodelled_key(other),
                            summary(node)
                        ),
                    ));
                    continue;
                }
            };
            let Value::Array(items) = &node.value else {
                import.reports.push(Diagnostic::error(
                    Some(place),
                    format!(
                        "`permissions.{key}` is {}, not an array of entries; nothing from it is \
                         imported",
                        node.type_name()
                    ),
                ));
                continue;
            };
            for item in items {
                let place = at(item.line, item.column);
                let Value::String(entry) = &item.value else {
                    import.reports.push(Diagnostic::error(
                        Some(place),
                        format!(
                            "an entry of `permissions.{key}` is {}, not a string; it is left out",
                            item.type_name()
                        ),
                    ));
                    continue;
                };
                import_entry(
                    entry,
                    (key, decision, place),
                    file.user_settings,
                    list,
                    &mut import.reports,
                );
            }
        }
    }
    if let Some((mode, place)) = default_mode {
        import.reports.push(Diagnostic::warning(
            Some(place),
            format!(
                "`permissions.defaultMode` `{mode}` (the highest layer's) {}",
                unmodelled_key("defaultMode")
            ),
        ));
    }
    if fatal.is_empty() {
        Ok(import)
    } else {
        Err(fatal)
    }
}

/// Import one entry of `permissions.<key>` (`written`, at `place`): rewritten when the user's
/// settings anchor it elsewhere, left out (with a report) when claude ignores it, merged when
/// repeated, else lowered to check it and listed.
fn import_entry(
    written: &str,
    (key, decision, place): (&str, Decision, Location),
    user_settings: bool,
    list: &mut Vec<ImportedEntry>,
    reports: &mut Vec<Diagnostic>,
) {
    let rewritten = user_settings.then(|| user_anchored(written)).flatten();
    let entry: &str = rewritten.as_deref().unwrap_or(written);
    if let Some(rewritten) = &rewritten {
        reports.push(Diagnostic::warning(
            Some(place.clone()),
            format!(
                "`permissions.{key}` entry `{written}` is imported as `{rewritten}`: \
                 in the user's settings claude anchors `/x` at `~/.claude`, and in a \
                 profile `/x` is the project root"
            ),
        ));
    }
    if decision == Decision::Allow && entry == "*" {
        reports.push(Diagnostic::warning(
            Some(place),
            "`permissions.allow` entry `*` is left out: claude ignores a bare `*` in \
             an allow list (it grants nothing there), so it must not widen anything \
             here; under `meaning: claude` there is no default deny for it to lift, \
             and under `meaning: allowlist` it would allow every call",
        ));
        return;
    }
    let tool = entry.split_once('(').map_or(entry, |(tool, _)| tool);
    if let Some(meant) = compiler::tool_policy::misspelt_tool(tool) {
        reports.push(Diagnostic::warning(
            Some(place),
            format!(
                "`permissions.{key}` entry `{entry}` is left out: it names {} — \
                 in claude it never fires either, so the list means the same without \
                 it (write `{meant}` for the rule it looks meant to be)",
                compiler::tool_policy::never_fires(tool, meant)
            ),
        ));
        return;
    }
    if let Some(seen) = list.iter_mut().find(|e| e.entry == entry) {
        seen.repeated_at.push(place);
        return;
    }
    match lower_entry(entry, decision) {
        Ok(lowered) => {
            if let Some(note) = lowered.note {
                reports.push(Diagnostic::warning(
                    Some(place.clone()),
                    format!("`permissions.{key}` entry `{entry}` {note}"),
                ));
            }
            list.push(ImportedEntry {
                entry: entry.to_string(),
                from: place,
                repeated_at: Vec::new(),
            });
        }
        Err(why) => reports.push(Diagnostic::error(
            Some(place),
            format!("`permissions.{key}` entry `{entry}` {why}; it is left out"),
        )),
    }
}

/// A short rendering of a value for a report.
fn summary(node: &Node) -> String {
    let text = match &node.value {
        Value::String(s) => format!("{s:?}"),
        Value::Array(items) => format!("{} item(s)", items.len()),
        Value::Object(members) => format!("{} key(s)", members.len()),
        Value::Number(n) => n.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".into(),
    };
    text.chars().take(80).collect()
}

fn lists(import: &Import) -> [(&'static str, &[ImportedEntry]); 3] {
    [
        ("allow", &import.allow),
        ("ask", &import.ask),
        ("deny", &import.deny),
    ]
}

/// The profile as YAML: `agents.<agent>.tool_policy`, each entry followed by a comment naming
/// where it was written.
pub fn render_yaml(import: &Import, agent: &str) -> String {
    let quote = |s: &str| serde_json::to_string(s).expect("a string serializes");
    let mut out = String::from(
        "# Imported by `animus-hook import --claude-settings` from (lowest precedence first):\n",
    );
    for file in &import.files {
        let _ = writeln!(out, "#   {file}");
    }
    let _ = writeln!(out, "agents:\n  {}:\n    tool_policy:", quote(agent));
    for line in wrap(meaning_comment(import.meaning), 90) {
        let _ = writeln!(out, "      # {line}");
    }
    let _ = writeln!(out, "      meaning: {}", import.meaning.as_str());
    for (name, entries) in lists(import) {
        if entries.is_empty() {
            continue;
        }
        let _ = writeln!(out, "      {name}:");
        for e in entries {
            let _ = write!(out, "        - {}  # {}", quote(&e.entry), e.from);
            for again in &e.repeated_at {
                let _ = write!(out, ", again at {again}");
            }
            out.push('\n');
        }
    }
    out
}

/// `text` in lines of at most `width` characters, broken at spaces.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split(' ') {
        let line = lines.last_mut().expect("one line");
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            lines.push(word.to_string());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines
}

/// What `meaning` makes of the lists, as the YAML's comment and `import`'s last line say it.
pub fn meaning_comment(meaning: Meaning) -> &'static str {
    match meaning {
        Meaning::Claude => {
            "claude's meaning: a call no entry names goes to the harness's own flow (claude \
             asks, or runs it where its mode does not ask); deny and ask entries bind in every \
             mode. `meaning: allowlist` denies every call the allow entries do not cover."
        }
        Meaning::Allowlist => {
            "a strict allowlist: every call the allow entries do not cover is denied, in every \
             mode; deny and ask entries bind in every mode. `meaning: claude` leaves unlisted \
             calls to the harness's own flow instead."
        }
    }
}

/// The profile as JSON (`{"agents": {"<agent>": {"tool_policy": …}}}`).
pub fn render_json(import: &Import, agent: &str) -> String {
    let mut tool_policy = serde_json::Map::new();
    tool_policy.insert("meaning".into(), import.meaning.as_str().into());
    for (name, entries) in lists(import) {
        if !entries.is_empty() {
            tool_policy.insert(
                name.into(),
                entries.iter().map(|e| e.entry.clone()).collect(),
            );
        }
    }
    let doc = serde_json::json!({"agents": {agent: {"tool_policy": tool_policy}}});
    let mut text = serde_json::to_string_pretty(&doc).expect("JSON serializes");
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, text: &str) -> SettingsFile {
        SettingsFile {
            name: name.into(),
            text: text.into(),
            user_settings: false,
        }
    }

    #[test]
    fn user_settings_anchor_slash_rules_at_dot_claude() {
        let mut user = file(
            "settings.json",
            "{\"permissions\": {\"deny\": [\"Read(/secrets/**)\", \"Read(//etc/x)\", \"Bash(/bin/x:*)\"]}}",
        );
        user.user_settings = true;
        let import = import_claude_settings(&[user]).unwrap();
        let deny: Vec<&str> = import.deny.iter().map(|e| e.entry.as_str()).collect();
        assert_eq!(
            deny,
            [
                "Read(~/.claude/secrets/**)",
                "Read(//etc/x)",
                "Bash(/bin/x:*)"
            ]
        );
        assert!(
            import
                .reports
                .iter()
                .any(|d| d.message.contains("imported as"))
        );
    }

    #[test]
    fn layers_merge_and_every_entry_is_accounted_for() {
        let user = file(
            "user.json",
            "{\"permissions\": {\"allow\": [\"Bash(ls:*)\", 3], \"defaultMode\": \"plan\"}}",
        );
        let project = file(
            "project.json",
            "// project\n{\"permissions\": {\n  \"allow\": [\"Bash(ls:*)\", \"Read\"],\n  \"deny\": [\"Read(./.env)\"],\n  \"defaultMode\": \"acceptEdits\",\n  \"additionalDirectories\": [\"../x\"],\n}}",
        );
        let import = import_claude_settings(&[user, project]).unwrap();
        let allow: Vec<&str> = import.allow.iter().map(|e| e.entry.as_str()).collect();
        assert_eq!(allow, ["Bash(ls:*)", "Read"]);
        assert_eq!(
            import.allow[0].repeated_at[0].to_string(),
            "project.json:3:13"
        );
        assert_eq!(import.deny[0].from.to_string(), "project.json:4:12");
        assert_eq!(import.left_out(), 1, "{:?}", import.reports);
        let text: Vec<String> = import.reports.iter().map(|d| d.to_string()).collect();
        assert!(
            text.iter()
                .any(|t| t.contains("user.json:1:42") && t.contains("not a string")),
            "{text:?}"
        );
        assert!(text.iter().any(|t| t.contains("`acceptEdits`")), "{text:?}");
        assert!(
            text.iter().any(|t| t.contains("additionalDirectories")),
            "{text:?}"
        );
        let yaml = render_yaml(&import, "me");
        let profile = compiler::load_profile_str(&yaml, "imported.yaml".into(), "me").unwrap();
        compiler::compile_profile(&profile).unwrap();
        assert!(
            yaml.contains("\"Read(./.env)\"  # project.json:4:12"),
            "{yaml}"
        );
        let json = render_json(&import, "me");
        compiler::load_profile_str(&json, "imported.json".into(), "me").unwrap();
    }

    #[test]
    fn a_broken_file_stops_the_import_with_its_place() {
        let errors =
            import_claude_settings(&[file("s.json", "{\n \"permissions\": [}")]).unwrap_err();
        assert_eq!(
            errors[0].location.as_ref().unwrap().to_string(),
            "s.json:2:18"
        );
    }
}
