//! `install --harness codex`: the guard's hooks in the user's own Codex home
//! (`$CODEX_HOME`, else `~/.codex`), so every `codex` the user starts is guarded.
//!
//! Two files, both the user's, both kept as they were but for what is ours:
//!
//! - **`hooks.json`** (JSON, the settings file of this scope): the entries
//!   `inject --provider codex` passes as `-c hooks.<Event>=…` flags — the gates on `PreToolUse`
//!   and `PermissionRequest` as the shell line that blocks on any failure, observers on
//!   `PostToolUse`, `SessionStart`, `SessionEnd` and `Stop` — running `emit --from-payload`
//!   (Codex's payloads carry `session_id` and `cwd`). Each event's group of ours comes after the
//!   user's own groups.
//! - **`config.toml`**: Codex runs a hook that is not managed only once it is trusted, and skips
//!   an untrusted one *silently*. Trust is `[hooks.state."<hooks.json>:<event>:<group>:<handler>"]
//!   trusted_hash = "sha256:…"` in the user's config, keyed by the canonical path of
//!   `hooks.json` and the handler's place in it (measured on 0.169.0's `hooks/list`). Install
//!   writes the trust of exactly its own handlers, never of anything else. Because the key is a
//!   place, removing or adding a group of ours moves the user's own later groups: their trust
//!   entries move with them ([`CodexConfig::retrust`]), so a hook the user trusted stays trusted
//!   and one the user did not trust stays untrusted. `features.hooks = false` would switch
//!   every hook off: install sets it `true`, and `uninstall` puts back what was there.
//!
//! The TOML is edited with `toml_edit`: every comment, key and table order the user wrote stays.

use std::path::{Path, PathBuf};

use toml_edit::{DocumentMut, Item, Table, TableLike};

use super::super::codex::{
    CODEX_HOOK_EVENTS, Handler, KERNEL_OBSERVERS, OBSERVER_TIMEOUT_SECS, effective_timeout,
    snake_case, trust_hash,
};
use super::super::settings_doc::{node, object, string};
use super::{
    PlaceError, SettingsDoc, ShapeError, event_groups, hooks_mut, is_ours, push_group,
    remove_ours_keeping,
};
use compiler::jsonc::{Node, Value};

/// The variable that moves Codex's whole configuration home.
pub const HOME_ENV: &str = "CODEX_HOME";
/// The hooks file in the Codex home (the settings file of a codex install).
pub const HOOKS_FILE: &str = "hooks.json";
/// The configuration file in the Codex home, where hook trust is kept.
pub const CONFIG_FILE: &str = "config.toml";

/// Codex's home: `$CODEX_HOME`, else `~/.codex`; canonical when it exists, as Codex keys trust
/// by the canonical path of `hooks.json` (measured: a symlinked `CODEX_HOME` lists its hooks
/// under the link's target).
pub fn codex_home(env: &dyn Fn(&str) -> Option<std::ffi::OsString>) -> Result<PathBuf, PlaceError> {
    let home = match env(HOME_ENV).filter(|v| !v.is_empty()) {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            if !dir.is_absolute() {
                return Err(PlaceError::RelativeCodexHome(dir));
            }
            dir
        }
        None => match env("HOME").filter(|v| !v.is_empty()).map(PathBuf::from) {
            Some(home) if home.is_absolute() => home.join(".codex"),
            _ => Err(PlaceError::NoHome { unset: HOME_ENV })?,
        },
    };
    Ok(std::fs::canonicalize(&home).unwrap_or(home))
}

/// The events of a codex install: the gates, then [`KERNEL_OBSERVERS`] and the profile's own
/// observers that Codex has (`observers`, in Claude's names, which Codex shares).
fn events(observers: &[String]) -> Vec<(String, bool)> {
    let mut events: Vec<(String, bool)> = engine::harness::Harness::Codex
        .gate_events()
        .iter()
        .map(|(event, _)| (event.to_string(), true))
        .collect();
    for event in KERNEL_OBSERVERS
        .iter()
        .map(|e| e.to_string())
        .chain(observers.iter().cloned())
    {
        if CODEX_HOOK_EVENTS.contains(&event.as_str()) && !events.iter().any(|(e, _)| *e == event) {
            events.push((event, false));
        }
    }
    events
}

/// `doc` (the user's `hooks.json`) with our entries, an earlier install's replaced: one group
/// per event after the user's own.
pub fn add_ours(
    doc: &mut SettingsDoc,
    command: (&str, &str, &str),
    observers: &[String],
) -> Result<(), ShapeError> {
    remove_ours_keeping(doc, true);
    let hook = super::super::HookCommand::installed(engine::harness::Harness::Codex, command);
    let event_lists = hooks_mut(doc)?;
    for (event, gate) in events(observers) {
        let handler = Handler::of(&hook, &event, gate);
        let mut fields = Vec::new();
        if let Some(matcher) = handler.matcher {
            fields.push(("matcher", string(matcher)));
        }
        let entry = object(vec![
            ("type", string("command")),
            ("command", string(&handler.command)),
            ("timeout", node(Value::Number(handler.timeout.to_string()))),
        ]);
        fields.push(("hooks", node(Value::Array(vec![entry]))));
        push_group(event_lists, event, object(fields))?;
    }
    Ok(())
}

/// One command handler of `hooks.json` where Codex keys its trust, and, when it is ours, the
/// hash Codex trusts it by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slot {
    /// The event, as `hooks.json` names it (`PreToolUse`).
    pub event: String,
    /// `<hooks.json>:<event in snake case>:<group>:<handler>`.
    pub key: String,
    /// Our handler's trust hash; `None` for the user's.
    pub ours: Option<String>,
}

/// Every handler of `doc` (a `hooks.json` at `hooks_path`) in Codex's order, with its trust key.
pub fn slots(doc: &SettingsDoc, hooks_path: &Path) -> Vec<Slot> {
    let mut out = Vec::new();
    for (event, groups) in event_groups(doc) {
        for (g, group) in groups.iter().enumerate() {
            let matcher = match group.get("matcher").map(|m| &m.value) {
                Some(Value::String(m)) => Some(m.as_str()),
                _ => None,
            };
            let Some(Value::Array(handlers)) = group.get("hooks").map(|h| &h.value) else {
                continue;
            };
            for (h, handler) in handlers.iter().enumerate() {
                let ours = is_ours(handler).then(|| our_hash(event, matcher, handler));
                out.push(Slot {
                    event: event.clone(),
                    key: format!("{}:{}:{g}:{h}", hooks_path.display(), snake_case(event)),
                    ours,
                });
            }
        }
    }
    out
}

/// The trust hash of our `handler` of `event` in a group with `matcher`.
fn our_hash(event: &str, matcher: Option<&str>, handler: &Node) -> String {
    let json = handler.to_json();
    let command = json["command"].as_str().unwrap_or_default();
    let timeout = json["timeout"].as_u64().unwrap_or(OBSERVER_TIMEOUT_SECS);
    trust_hash(event, command, effective_timeout(event, timeout), matcher)
}

/// Why the user's `config.toml` cannot be read or changed; nothing is written then.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// Not TOML: the parser's message names the line and column.
    #[error("`{path}` is not valid TOML, so it is left as it is: {message}")]
    Parse { path: String, message: String },
    /// `hooks`, `hooks.state` or `features` is there but is not a table.
    #[error(
        "`{path}`: `{key}` is not a table, so the guard's hook trust cannot be written into it"
    )]
    NotATable { path: String, key: &'static str },
}

/// The user's Codex `config.toml`, edited in place.
pub struct CodexConfig {
    path: String,
    doc: DocumentMut,
}

impl CodexConfig {
    /// Parse `text` (the contents of `path`; empty for a file that does not exist).
    pub fn parse(path: &str, text: &str) -> Result<CodexConfig, ConfigError> {
        let doc = text
            .parse::<DocumentMut>()
            .map_err(|e| ConfigError::Parse {
                path: path.to_string(),
                message: e.to_string().trim_end().to_string(),
            })?;
        let config = CodexConfig {
            path: path.to_string(),
            doc,
        };
        // Shapes are checked now, before anything is written.
        for key in ["hooks", "features"] {
            config.table(&[key])?;
        }
        config.table(&["hooks", "state"])?;
        Ok(config)
    }

    /// The text, every byte the user wrote kept.
    pub fn print(&self) -> String {
        self.doc.to_string()
    }

    /// The table at `path`, if there is one.
    fn table(&self, path: &[&'static str]) -> Result<Option<&dyn TableLike>, ConfigError> {
        let mut table: &dyn TableLike = self.doc.as_table();
        for key in path {
            match table.get(key) {
                None => return Ok(None),
                Some(item) => {
                    table = item.as_table_like().ok_or_else(|| ConfigError::NotATable {
                        path: self.path.clone(),
                        key,
                    })?;
                }
            }
        }
        Ok(Some(table))
    }

    /// The table at `path`, made (implicit: no header of its own) when missing.
    fn table_mut(&mut self, path: &[&'static str]) -> Result<&mut dyn TableLike, ConfigError> {
        let file = self.path.clone();
        let mut table: &mut dyn TableLike = self.doc.as_table_mut();
        for key in path {
            if table.get(key).is_none() {
                let mut new = Table::new();
                new.set_implicit(true);
                table.insert(key, Item::Table(new));
            }
            table = table.get_mut(key).and_then(Item::as_table_like_mut).ok_or(
                ConfigError::NotATable {
                    path: file.clone(),
                    key,
                },
            )?;
        }
        Ok(table)
    }

    /// `features.hooks`, when set to a boolean.
    pub fn hooks_feature(&self) -> Option<bool> {
        self.table(&["features"])
            .ok()
            .flatten()?
            .get("hooks")?
            .as_bool()
    }

    /// Set `features.hooks` to `value`, or remove it (and a `[features]` left empty) for `None`.
    pub fn set_hooks_feature(&mut self, value: Option<bool>) -> Result<(), ConfigError> {
        match value {
            Some(value) => {
                self.table_mut(&["features"])?
                    .insert("hooks", toml_edit::value(value));
            }
            None => {
                let features = self.table_mut(&["features"])?;
                features.remove("hooks");
                if features.is_empty() {
                    self.doc.as_table_mut().remove("features");
                }
            }
        }
        Ok(())
    }

    /// The trust hash `config.toml` holds for `key`.
    pub fn trusted_hash(&self, key: &str) -> Option<String> {
        let state = self.table(&["hooks", "state"]).ok().flatten()?;
        let entry = state.get(key)?.as_table_like()?;
        entry.get("trusted_hash")?.as_str().map(String::from)
    }

    /// The trust that goes with `hooks.json` changing from `before` to `after` (both at
    /// `hooks_path`): our old handlers' entries removed, our new handlers trusted, and the
    /// user's own entries moved with their handlers. Nothing else is touched; an entry that
    /// already holds what it must is left as it is (a second install changes no byte).
    pub fn retrust(
        &mut self,
        hooks_path: &Path,
        before: &SettingsDoc,
        after: &SettingsDoc,
    ) -> Result<(), ConfigError> {
        let old = slots(before, hooks_path);
        let new = slots(after, hooks_path);
        // The user's handlers keep their order within each event: the n-th before is the n-th
        // after. Their trust entries follow them.
        let mut moves: Vec<(String, String)> = Vec::new();
        let mut events: Vec<&str> = old.iter().map(|s| s.event.as_str()).collect();
        events.dedup();
        for event in events {
            let theirs = |slots: &[Slot]| -> Vec<String> {
                slots
                    .iter()
                    .filter(|s| s.event == event && s.ours.is_none())
                    .map(|s| s.key.clone())
                    .collect()
            };
            for (from, to) in theirs(&old).into_iter().zip(theirs(&new)) {
                if from != to {
                    moves.push((from, to));
                }
            }
        }
        let wanted: Vec<(&str, &str)> = new
            .iter()
            .filter_map(|s| s.ours.as_deref().map(|hash| (s.key.as_str(), hash)))
            .collect();
        let stale: Vec<String> = old
            .iter()
            .filter(|s| s.ours.is_some() && !wanted.iter().any(|(key, _)| *key == s.key))
            .map(|s| s.key.clone())
            .collect();
        let needed: Vec<(String, String)> = wanted
            .iter()
            .filter(|(key, hash)| self.trusted_hash(key).as_deref() != Some(*hash))
            .map(|(key, hash)| (key.to_string(), hash.to_string()))
            .collect();
        if moves.is_empty() && stale.is_empty() && needed.is_empty() {
            return Ok(());
        }
        let state = self.table_mut(&["hooks", "state"])?;
        let moved: Vec<(String, Item)> = moves
            .iter()
            .filter_map(|(from, to)| state.remove(from).map(|item| (to.clone(), item)))
            .collect();
        for key in &stale {
            state.remove(key);
        }
        for (to, item) in moved {
            state.insert(&to, item);
        }
        for (key, hash) in needed {
            // A stale entry of ours is corrected where it stands; a missing one is added.
            match state.get_mut(&key).and_then(Item::as_table_like_mut) {
                Some(entry) => {
                    entry.insert("trusted_hash", toml_edit::value(hash));
                }
                None => {
                    let mut entry = Table::new();
                    entry.insert("trusted_hash", toml_edit::value(hash));
                    state.insert(&key, Item::Table(entry));
                }
            }
        }
        self.drop_empty_trust();
        Ok(())
    }

    /// `hooks.state` and `hooks` removed when left empty and implicit (no header the user wrote).
    fn drop_empty_trust(&mut self) {
        let root = self.doc.as_table_mut();
        let Some(hooks) = root.get_mut("hooks").and_then(Item::as_table_mut) else {
            return;
        };
        if hooks
            .get("state")
            .and_then(Item::as_table)
            .is_some_and(|state| state.is_empty() && state.is_implicit())
        {
            hooks.remove("state");
        }
        if hooks.is_empty() && hooks.is_implicit() {
            root.remove("hooks");
        }
    }

    /// Problems with the trust of our handlers in `doc` (at `hooks_path`): each one Codex would
    /// skip without a word.
    pub fn untrusted_ours(&self, hooks_path: &Path, doc: &SettingsDoc) -> Vec<String> {
        slots(doc, hooks_path)
            .into_iter()
            .filter_map(|slot| {
                let hash = slot.ours?;
                match self.trusted_hash(&slot.key) {
                    Some(found) if found == hash => None,
                    Some(_) => Some(format!("`{}` is trusted for another definition", slot.key)),
                    None => Some(format!("`{}` is not trusted", slot.key)),
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inject::codex::{GATE_TIMEOUT_SECS, TOOL_EVENTS};

    const HOOKS_PATH: &str = "/home/u/.codex/hooks.json";

    fn hooks(text: &str) -> SettingsDoc {
        SettingsDoc::parse(HOOKS_PATH, text).unwrap()
    }

    fn installed(text: &str) -> SettingsDoc {
        let mut doc = hooks(text);
        add_ours(
            &mut doc,
            ("/bin/animus-hook", "/s/policy.json", "sha256:00"),
            &[],
        )
        .unwrap();
        doc
    }

    const USERS: &str = r#"{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "my-check", "timeout": 5}]}
    ]
  }
}
"#;

    const CONFIG: &str = "# my codex\nmodel = \"gpt-5.5\" # the best\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n\n[hooks.state.\"/home/u/.codex/hooks.json:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:mine\"\n";

    #[test]
    fn install_trusts_exactly_ours_and_keeps_every_byte_of_the_users() {
        let before = hooks(USERS);
        let after = installed(USERS);
        let mut config = CodexConfig::parse("config.toml", CONFIG).unwrap();
        config
            .retrust(Path::new(HOOKS_PATH), &before, &after)
            .unwrap();
        let text = config.print();
        assert!(text.starts_with(CONFIG), "{text}");
        assert!(
            config
                .untrusted_ours(Path::new(HOOKS_PATH), &after)
                .is_empty()
        );
        // The gates, then four observers: six handlers of ours, each trusted.
        let ours: Vec<Slot> = slots(&after, Path::new(HOOKS_PATH))
            .into_iter()
            .filter(|s| s.ours.is_some())
            .collect();
        assert_eq!(ours.len(), 6, "{ours:#?}");
        assert_eq!(ours[0].key, format!("{HOOKS_PATH}:pre_tool_use:1:0"));
        // The user's own trust is untouched.
        assert_eq!(
            config
                .trusted_hash(&format!("{HOOKS_PATH}:pre_tool_use:0:0"))
                .as_deref(),
            Some("sha256:mine")
        );
        // A second install changes nothing.
        let mut again = CodexConfig::parse("config.toml", &text).unwrap();
        again
            .retrust(Path::new(HOOKS_PATH), &after, &installed(USERS))
            .unwrap();
        assert_eq!(again.print(), text);
        // Uninstall gives the file back byte for byte.
        let mut removed = after.clone();
        super::super::remove_ours(&mut removed);
        again
            .retrust(Path::new(HOOKS_PATH), &after, &removed)
            .unwrap();
        assert_eq!(again.print(), CONFIG);
    }

    #[test]
    fn a_users_later_group_keeps_its_trust_when_ours_goes() {
        // The user added a group after ours and trusted it at index 2.
        let mut after = installed(USERS);
        let mut config = CodexConfig::parse("config.toml", CONFIG).unwrap();
        config
            .retrust(Path::new(HOOKS_PATH), &hooks(USERS), &after)
            .unwrap();
        let members = after.members_mut();
        let Value::Object(events) = &mut members[0].1.value else {
            panic!()
        };
        let Value::Array(list) = &mut events[0].1.value else {
            panic!()
        };
        list.push(
            compiler::jsonc::parse(r#"{"hooks": [{"type": "command", "command": "later"}]}"#)
                .unwrap(),
        );
        let with_later = after.clone();
        let later_key = format!("{HOOKS_PATH}:pre_tool_use:2:0");
        config
            .table_mut(&["hooks", "state"])
            .unwrap()
            .insert(&later_key, {
                let mut t = Table::new();
                t.insert("trusted_hash", toml_edit::value("sha256:later"));
                Item::Table(t)
            });
        let mut removed = with_later.clone();
        super::super::remove_ours(&mut removed);
        config
            .retrust(Path::new(HOOKS_PATH), &with_later, &removed)
            .unwrap();
        assert_eq!(config.trusted_hash(&later_key), None);
        assert_eq!(
            config
                .trusted_hash(&format!("{HOOKS_PATH}:pre_tool_use:1:0"))
                .as_deref(),
            Some("sha256:later"),
            "{}",
            config.print()
        );
    }

    #[test]
    fn a_new_config_holds_only_our_trust_and_uninstall_empties_it() {
        let before = hooks("");
        let after = installed("");
        let mut config = CodexConfig::parse("config.toml", "").unwrap();
        config
            .retrust(Path::new(HOOKS_PATH), &before, &after)
            .unwrap();
        let text = config.print();
        assert!(
            text.starts_with(&format!(
                "[hooks.state.\"{HOOKS_PATH}:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:"
            )),
            "{text}"
        );
        let mut removed = after.clone();
        super::super::remove_ours(&mut removed);
        config
            .retrust(Path::new(HOOKS_PATH), &after, &removed)
            .unwrap();
        assert_eq!(config.print(), "");
    }

    #[test]
    fn broken_or_misshapen_config_is_refused_with_its_place() {
        let refused = |text| CodexConfig::parse("config.toml", text).err().unwrap();
        let err = refused("model = \n");
        assert!(err.to_string().contains("line 1"), "{err}");
        for (text, key) in [
            ("hooks = 3\n", "hooks"),
            ("[hooks]\nstate = \"x\"\n", "state"),
        ] {
            let err = refused(text);
            assert!(
                matches!(err, ConfigError::NotATable { key: k, .. } if k == key),
                "{text}: {err}"
            );
        }
    }

    #[test]
    fn features_hooks_is_set_and_put_back() {
        let text = "[features]\nhooks = false\nother = 1\n";
        let mut config = CodexConfig::parse("config.toml", text).unwrap();
        assert_eq!(config.hooks_feature(), Some(false));
        config.set_hooks_feature(Some(true)).unwrap();
        assert_eq!(config.print(), "[features]\nhooks = true\nother = 1\n");
        config.set_hooks_feature(Some(false)).unwrap();
        assert_eq!(config.print(), text);
    }

    #[test]
    fn our_handlers_are_codexs_shell_lines() {
        let doc = installed(USERS);
        let json = doc.to_json();
        let gate = &json["hooks"]["PreToolUse"][1];
        assert_eq!(gate["matcher"], "*");
        let handler = &gate["hooks"][0];
        assert_eq!(handler["timeout"], GATE_TIMEOUT_SECS);
        let command = handler["command"].as_str().unwrap();
        assert!(command.starts_with("out=$(timeout -k 2 "), "{command}");
        assert!(command.contains("'--from-payload'") && command.contains("'--policy-digest'"));
        // SessionEnd's is clamped as Codex clamps it (else its hash would not match).
        assert_eq!(json["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"], 3);
        assert!(TOOL_EVENTS.contains(&"PreToolUse"));
    }
}
