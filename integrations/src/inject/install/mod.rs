//! `animus-hook install`: wire the guard into the user's own Claude Code settings, so every
//! session the user starts normally is guarded — no launcher, no `--settings`.
//!
//! ## What is written
//!
//! - **The policy**, compiled into the install directory under the state root
//!   (`$ANIMUS_CONFIG_DIR`, else `~/.animus`): `installed/claude-user/` for the user's settings,
//!   `installed/claude-project-<repo-scope>[-local]/` for a project's. Its source is a profile
//!   given with `--config/--agent`, or by default [`INSTALL_PACKS`] plus the `deny` and `ask`
//!   entries of every settings file Claude reads for that scope ([`settings_sources`]), so the
//!   user's own refusals bind in every permission mode, `bypassPermissions` included. The
//!   generated profile is kept beside the policy (`profile.yaml`), with a manifest
//!   (`install.json`) naming the sources, so `doctor` can recompile and find drift. An
//!   unchanged policy is not rewritten: rewriting would change its pin.
//! - **The hooks**, into the settings file ([`settings_path`]): gate entries (`PreToolUse`,
//!   `PermissionRequest`) in exec form with `"onFailure": "block"` and the pinned policy digest,
//!   and observer entries recording the session (see [`super::KERNEL_OBSERVER_EVENTS`]). Each
//!   runs `animus-hook emit --from-payload`: the session id and the project come from each
//!   call's payload, so one command serves every session.
//!
//! Every other key, hook and permission of the file stays as it was, in its order and
//! indentation ([`super::settings_doc`]); the `permissions` block is never touched: the
//! installer grants nothing. A file with comments is refused rather than stripped of them.
//!
//! The other targets ([`Scope`]): a Claude Code plugin directory (`--plugin-dir`: the same
//! hooks in `hooks/hooks.json`, a `.claude-plugin/plugin.json` beside it), and opencode's global
//! config (`--harness opencode`: the guard plugin `plugins/animus-guard.js`). With `--sandbox`,
//! Claude's Bash sandbox ([`sandbox_block`]) goes into the settings too. The places of a target
//! the built-in self-protection rules do not cover are protected by the installed policy
//! ([`guarded_places`]).
//!
//! ## How it is written
//!
//! Idempotent: our entries are found by what they run (`emit … --from-payload`, [`is_ours`]),
//! removed and added again, so a second install with the same policy leaves the file
//! byte-identical, and writes nothing at all. When the file changes, a timestamped backup of the
//! exact bytes comes first (`<file>.animus-backup-<UTC time>`), then the new text is written to
//! a temporary file beside it with the same mode and renamed over it. A settings file that is a
//! symbolic link (a dotfiles checkout) is written through: the link's target is replaced.
//! Before anything is written, the settings file must parse and its directory must take a new
//! file; otherwise nothing changes anywhere.
//!
//! `uninstall` ([`plan_uninstall`]) removes exactly our entries (and an event list or `hooks`
//! object left empty by that). When what remains equals a backup that holds nothing of ours
//! (with or without an empty `hooks` the user had), that backup's exact bytes are restored.

use std::path::{Path, PathBuf};

use compiler::jsonc::{Node, Value};

use super::settings_doc::{SettingsDoc, SettingsDocError, node, object, string};
use super::{GATE_TIMEOUT_SECS, OBSERVER_TIMEOUT_SECS, TOOL_EVENTS};

/// The packs a default install enables.
///
/// `default`: every pack whose YAML says `default: true` (everyday destructive commands at a
/// false-positive rate a developer tolerates all day); every other pack is opt-in.
pub const INSTALL_PACKS: &str = "default";
/// The agent id of the generated profile.
pub const INSTALL_AGENT: &str = "installed";
/// The manifest beside an installed policy.
pub const MANIFEST_FILE: &str = "install.json";
/// The generated profile beside an installed policy (a default install).
pub const PROFILE_FILE: &str = "profile.yaml";
/// The argument that marks an entry as ours.
pub const FROM_PAYLOAD: &str = "--from-payload";
/// Where Claude reads managed (administrator) settings on Linux.
pub const MANAGED_SETTINGS: &str = "/etc/claude-code/managed-settings.json";

/// Which settings file the hooks go into.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The user's settings: `$CLAUDE_CONFIG_DIR/settings.json`, else `~/.claude/settings.json`.
    User,
    /// A project's settings: `<root>/.claude/settings.json`, or `settings.local.json` (the
    /// user's own, not checked in) when `local`.
    Project { root: PathBuf, local: bool },
    /// A Claude Code plugin directory (`install --plugin-dir`): `.claude-plugin/plugin.json`
    /// and `hooks/hooks.json`, for `claude --plugin-dir <dir>` or a plugin marketplace. Its
    /// policy's sources are the user's, as for [`Scope::User`].
    Plugin { dir: PathBuf },
    /// opencode's global config directory (`$XDG_CONFIG_HOME/opencode`, else
    /// `~/.config/opencode`): the guard plugin `plugins/animus-guard.js`
    /// ([`super::opencode::installed_plugin`]). Its policy's sources are the user's Claude
    /// settings, as for [`Scope::User`] (a policy is written in Claude's tool names).
    Opencode { config_dir: PathBuf },
    /// Gemini CLI's user settings (`$GEMINI_CLI_HOME/.gemini/settings.json`, else
    /// `~/.gemini/settings.json`, [`gemini`]). Its policy's sources are the user's Claude
    /// settings, as for [`Scope::User`].
    Gemini { home: PathBuf },
    /// Codex's home (`$CODEX_HOME`, else `~/.codex`, [`codex`]): the hooks in its `hooks.json`,
    /// their trust in its `config.toml`. Its policy's sources are the user's Claude settings,
    /// as for [`Scope::User`].
    Codex { home: PathBuf },
}

impl Scope {
    /// `user`, `project` or `project-local`, for messages and the manifest.
    pub fn name(&self) -> &'static str {
        match self {
            Scope::User => "user",
            Scope::Project { local: false, .. } => "project",
            Scope::Project { local: true, .. } => "project-local",
            Scope::Plugin { .. } => "plugin",
            Scope::Opencode { .. } => "opencode",
            Scope::Gemini { .. } => "gemini",
            Scope::Codex { .. } => "codex",
        }
    }
}

/// Claude's user configuration directory: `$CLAUDE_CONFIG_DIR` when set, else `~/.claude`.
pub fn claude_config_dir(
    env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
) -> Result<PathBuf, PlaceError> {
    if let Some(dir) = env("CLAUDE_CONFIG_DIR").filter(|v| !v.is_empty()) {
        let dir = PathBuf::from(dir);
        return if dir.is_absolute() {
            Ok(dir)
        } else {
            Err(PlaceError::RelativeClaudeConfigDir(dir))
        };
    }
    match env("HOME").filter(|v| !v.is_empty()).map(PathBuf::from) {
        Some(home) if home.is_absolute() => Ok(home.join(".claude")),
        _ => Err(PlaceError::NoHome {
            unset: "CLAUDE_CONFIG_DIR",
        }),
    }
}

/// The settings file `scope` names.
pub fn settings_path(
    scope: &Scope,
    env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
) -> Result<PathBuf, PlaceError> {
    Ok(match scope {
        Scope::User => claude_config_dir(env)?.join("settings.json"),
        Scope::Project { root, local } => root.join(".claude").join(if *local {
            "settings.local.json"
        } else {
            "settings.json"
        }),
        Scope::Plugin { dir } => dir.join("hooks").join("hooks.json"),
        Scope::Opencode { config_dir } => config_dir
            .join("plugins")
            .join(super::opencode::PLUGIN_FILE_NAME),
        Scope::Gemini { home } => home.join(".gemini").join("settings.json"),
        Scope::Codex { home } => home.join(codex::HOOKS_FILE),
    })
}

/// Gemini CLI's home: `$GEMINI_CLI_HOME`, else `$HOME`.
pub fn gemini_home(
    env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
) -> Result<PathBuf, PlaceError> {
    env(super::gemini::HOME_ENV)
        .filter(|v| !v.is_empty())
        .or_else(|| env("HOME").filter(|v| !v.is_empty()))
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .ok_or(PlaceError::NoGeminiHome)
}

/// opencode's global config directory: `$XDG_CONFIG_HOME/opencode`, else `~/.config/opencode`.
pub fn opencode_config_dir(
    env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
) -> Result<PathBuf, PlaceError> {
    if let Some(dir) = env("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
    {
        return Ok(dir.join("opencode"));
    }
    match env("HOME").filter(|v| !v.is_empty()).map(PathBuf::from) {
        Some(home) if home.is_absolute() => Ok(home.join(".config/opencode")),
        _ => Err(PlaceError::NoHome {
            unset: "XDG_CONFIG_HOME",
        }),
    }
}

/// The plugin's manifest, inside its directory.
pub const PLUGIN_MANIFEST: &str = ".claude-plugin/plugin.json";

/// The manifest `install --plugin-dir` writes when the directory has none.
pub fn plugin_manifest() -> String {
    format!(
        "{{\n  \"name\": \"animus-guard\",\n  \"version\": \"{}\",\n  \"description\": \"animus-hook: \
         every tool call is decided by the guard's compiled policy before it runs (fail \
         closed)\"\n}}\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// The places of `scope`'s wiring that the built-in self-protection rules do not already
/// cover: a plugin's whole directory (its `hooks.json` wires the guard for every session that
/// loads it). Claude's settings files are covered already.
pub fn guarded_places(scope: &Scope) -> Vec<compiler::self_protection::Protected> {
    match scope {
        Scope::Plugin { dir } => {
            let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone());
            vec![compiler::self_protection::Protected {
                what: "the guard's claude plugin, which wires its hooks into every session that \
                       loads it",
                glob: format!("{}/**", compiler::self_protection::absolute_glob(&dir)),
            }]
        }
        Scope::Opencode { config_dir } => {
            let dir = std::fs::canonicalize(config_dir).unwrap_or_else(|_| config_dir.clone());
            vec![compiler::self_protection::Protected {
                what: "opencode's config directory, where the guard's plugin is loaded from",
                glob: format!("{}/**", compiler::self_protection::absolute_glob(&dir)),
            }]
        }
        Scope::Gemini { home } => {
            let file = home.join(".gemini/settings.json");
            vec![compiler::self_protection::Protected {
                what: "Gemini CLI's settings, which wire the guard's hooks",
                glob: compiler::self_protection::absolute_glob(
                    &std::fs::canonicalize(&file).unwrap_or(file),
                ),
            }]
        }
        Scope::Codex { home } => [codex::HOOKS_FILE, codex::CONFIG_FILE]
            .into_iter()
            .map(|file| compiler::self_protection::Protected {
                what: "Codex's hooks and their trust, which wire the guard's hooks",
                glob: compiler::self_protection::absolute_glob(&home.join(file)),
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// Every settings file Claude reads for `scope`, lowest precedence first (those that exist):
/// the user's, then for a project its `settings.json` and `settings.local.json`, then the
/// managed settings. A user install reads no project's files: its policy serves every project,
/// and Claude applies each project's own lists itself.
pub fn settings_sources(
    scope: &Scope,
    env: &dyn Fn(&str) -> Option<std::ffi::OsString>,
) -> Result<Vec<PathBuf>, PlaceError> {
    let mut files = vec![claude_config_dir(env)?.join("settings.json")];
    if let Scope::Project { root, .. } = scope {
        files.push(root.join(".claude/settings.json"));
        files.push(root.join(".claude/settings.local.json"));
    }
    files.push(PathBuf::from(MANAGED_SETTINGS));
    Ok(files.into_iter().filter(|f| f.is_file()).collect())
}

/// The generated profile of a default install: [`INSTALL_PACKS`] and the `deny`/`ask` entries
/// of `sources` (never their `allow`: the installer grants nothing), in Claude's meaning.
/// Returns the profile's YAML and the problems with single entries (each left out, with its
/// `file:line:column`; Claude still applies them itself).
pub fn generated_profile(
    sources: &[PathBuf],
    user_settings: &Path,
) -> Result<(String, Vec<String>), GenerateError> {
    let mut files = Vec::new();
    // Where every allow entry is written: problems with them do not matter here (no allow
    // entry is used), so they are not reported.
    let mut allow_places = Vec::new();
    for path in sources {
        let text = std::fs::read_to_string(path).map_err(|source| GenerateError::Read {
            path: path.clone(),
            source,
        })?;
        let name: std::sync::Arc<str> = std::sync::Arc::from(path.display().to_string());
        if let Ok(doc) = compiler::jsonc::parse(&text)
            && let Some(Value::Array(items)) = doc
                .get("permissions")
                .and_then(|p| p.get("allow"))
                .map(|a| &a.value)
        {
            for item in items {
                allow_places.push((name.clone(), item.line, item.column));
            }
        }
        files.push(crate::import::SettingsFile {
            name,
            text,
            user_settings: path == user_settings,
        });
    }
    let mut import = crate::import::import_claude_settings(&files)
        .map_err(|errors| GenerateError::Import(compiler::Errors(errors)))?;
    import.meaning = compiler::profile::Meaning::Claude;
    let reports = import
        .reports
        .iter()
        .filter(|d| {
            !d.location.as_ref().is_some_and(|l| {
                allow_places
                    .iter()
                    .any(|(f, line, column)| *f == l.file && *line == l.line && *column == l.column)
            })
        })
        .map(ToString::to_string)
        .collect();
    import.allow.clear();
    let yaml = crate::import::render_yaml(&import, INSTALL_AGENT);
    let yaml = yaml.replacen(
        "    tool_policy:\n",
        &format!(
            "    # Written by `animus-hook install`: the built-in packs, and the user's own deny \
             and ask entries.\n    packs: [{INSTALL_PACKS}]\n    tool_policy:\n"
        ),
        1,
    );
    Ok((yaml, reports))
}

/// Is this hook handler one `install` wrote: a command running `emit … --from-payload`?
pub fn is_ours(handler: &Node) -> bool {
    // Gemini runs a shell line: ours names `'emit'` and `'--from-payload'` in it.
    if let Some(Value::String(command)) = handler.get("command").map(|c| &c.value)
        && handler.get("args").is_none()
        && command.contains("'emit'")
        && command.contains(&format!("'{FROM_PAYLOAD}'"))
    {
        return true;
    }
    let Some(Value::Array(args)) = handler.get("args").map(|a| &a.value) else {
        return false;
    };
    fn text(n: &Node) -> Option<&str> {
        match &n.value {
            Value::String(s) => Some(s.as_str()),
            _ => None,
        }
    }
    args.first().and_then(text) == Some("emit")
        && args.iter().any(|a| text(a) == Some(FROM_PAYLOAD))
}

/// What the installed hooks run: the binary, the policy and its pin.
#[derive(Clone, Debug)]
pub struct InstalledHook {
    pub binary: String,
    pub policy: String,
    pub policy_digest: String,
    /// Events recorded without deciding (the kernel's and the profile's observers).
    pub observers: Vec<String>,
}

impl InstalledHook {
    /// The handler for `event`.
    fn handler(&self, event: &str, gate: bool) -> Node {
        let mut args = vec![
            string("emit"),
            string("--event"),
            string(event),
            string(FROM_PAYLOAD),
        ];
        if gate {
            args.extend([
                string("--policy"),
                string(&self.policy),
                string("--policy-digest"),
                string(&self.policy_digest),
            ]);
        }
        let timeout = if gate {
            GATE_TIMEOUT_SECS
        } else {
            OBSERVER_TIMEOUT_SECS
        };
        let mut members = vec![
            ("type", string("command")),
            ("command", string(&self.binary)),
            ("args", node(Value::Array(args))),
            ("timeout", node(Value::Number(timeout.to_string()))),
        ];
        if gate {
            members.push(("onFailure", string("block")));
        }
        object(members)
    }

    /// Every event with its group (`matcher` for tool events), gates first.
    fn groups(&self) -> Vec<(String, Node)> {
        let gates = engine::GATE_EVENTS.iter().map(|e| (e.to_string(), true));
        let observers = self.observers.iter().map(|e| (e.clone(), false));
        gates
            .chain(observers)
            .map(|(event, gate)| {
                let mut members = Vec::new();
                if TOOL_EVENTS.contains(&event.as_str()) {
                    members.push(("matcher", string("*")));
                }
                members.push((
                    "hooks",
                    node(Value::Array(vec![self.handler(&event, gate)])),
                ));
                let group = object(members);
                (event, group)
            })
            .collect()
    }
}

/// `doc` without any entry of ours: a handler of ours leaves its group, a group left with no
/// handler leaves its event, an event left with no group leaves `hooks`, and `hooks` left empty
/// leaves the file. Returns how many handlers were removed.
pub fn remove_ours(doc: &mut SettingsDoc) -> usize {
    remove_ours_keeping(doc, false)
}

/// [`remove_ours`]; with `keep_hooks`, a `hooks` object left empty stays in its place (install
/// is about to add ours back into it: the file keeps its order).
pub(crate) fn remove_ours_keeping(doc: &mut SettingsDoc, keep_hooks: bool) -> usize {
    let mut removed = 0;
    let members = doc.members_mut();
    let Some(at) = members.iter().rposition(|(k, _)| k == "hooks") else {
        return 0;
    };
    let Value::Object(events) = &mut members[at].1.value else {
        return 0;
    };
    for (_, groups) in events.iter_mut() {
        let Value::Array(list) = &mut groups.value else {
            continue;
        };
        for group in list.iter_mut() {
            let Value::Object(fields) = &mut group.value else {
                continue;
            };
            for (key, handlers) in fields.iter_mut() {
                if key != "hooks" {
                    continue;
                }
                if let Value::Array(handlers) = &mut handlers.value {
                    let before = handlers.len();
                    handlers.retain(|h| !is_ours(h));
                    removed += before - handlers.len();
                }
            }
        }
        if removed > 0 {
            list.retain(|group| {
                !matches!(group.get("hooks").map(|h| &h.value), Some(Value::Array(h)) if h.is_empty())
            });
        }
    }
    if removed > 0 {
        events.retain(|(_, groups)| !matches!(&groups.value, Value::Array(l) if l.is_empty()));
        if events.is_empty() && !keep_hooks {
            members.remove(at);
        }
    }
    removed
}

/// `doc` with our entries (those of an earlier install replaced): each event's group is added
/// after the user's own.
pub fn add_ours(doc: &mut SettingsDoc, hook: &InstalledHook) -> Result<(), ShapeError> {
    remove_ours_keeping(doc, true);
    let events = hooks_mut(doc)?;
    for (event, group) in hook.groups() {
        push_group(events, event, group)?;
    }
    Ok(())
}

/// The `hooks` object of `doc` (added last when missing) as its members.
pub(crate) fn hooks_mut(doc: &mut SettingsDoc) -> Result<&mut Vec<(String, Node)>, ShapeError> {
    let members = doc.members_mut();
    let at = match members.iter().rposition(|(k, _)| k == "hooks") {
        Some(at) => at,
        None => {
            members.push(("hooks".into(), node(Value::Object(Vec::new()))));
            members.len() - 1
        }
    };
    match &mut members[at].1.value {
        Value::Object(events) => Ok(events),
        _ => Err(ShapeError::HooksNotAnObject),
    }
}

/// `group` added after the groups of `event` in `events` (a list made for it when missing).
pub(crate) fn push_group(
    events: &mut Vec<(String, Node)>,
    event: String,
    group: Node,
) -> Result<(), ShapeError> {
    match events.iter_mut().rev().find(|(k, _)| *k == event) {
        Some((_, groups)) => match &mut groups.value {
            Value::Array(list) => list.push(group),
            other => {
                let found = Node {
                    value: other.clone(),
                    line: 0,
                    column: 0,
                }
                .type_name();
                return Err(ShapeError::EventNotAList {
                    event,
                    found: Some(found),
                });
            }
        },
        None => events.push((event, node(Value::Array(vec![group])))),
    }
    Ok(())
}

/// Each event of `doc`'s `hooks` with its list of matcher groups (an event whose value is no
/// list is passed over).
pub(crate) fn event_groups(doc: &SettingsDoc) -> impl Iterator<Item = (&String, &Vec<Node>)> {
    let events = match doc.root.get("hooks").map(|h| &h.value) {
        Some(Value::Object(events)) => events.as_slice(),
        _ => &[],
    };
    events
        .iter()
        .filter_map(|(event, groups)| match &groups.value {
            Value::Array(list) => Some((event, list)),
            _ => None,
        })
}

/// The handlers of ours in `doc`: (event, handler).
pub fn our_handlers(doc: &SettingsDoc) -> Vec<(String, Node)> {
    let mut out = Vec::new();
    for (event, list) in event_groups(doc) {
        for group in list {
            if let Some(Value::Array(handlers)) = group.get("hooks").map(|h| &h.value) {
                for handler in handlers.iter().filter(|h| is_ours(h)) {
                    out.push((event.clone(), handler.clone()));
                }
            }
        }
    }
    out
}

/// Backups of `settings`, newest first.
pub fn backups(settings: &Path) -> Vec<PathBuf> {
    let (Some(dir), Some(name)) = (settings.parent(), settings.file_name()) else {
        return Vec::new();
    };
    let prefix = format!("{}.animus-backup-", name.to_string_lossy());
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found.reverse();
    found
}

/// The text `uninstall` leaves: `current` without our entries — or, when that equals a backup
/// holding nothing of ours, that backup's exact bytes (its formatting and comments). Returns
/// the text, how many handlers were removed, and the backup restored.
pub fn plan_uninstall(
    settings: &Path,
    current: &str,
) -> Result<(String, usize, Option<PathBuf>), SettingsDocError> {
    let name = settings.display().to_string();
    let mut doc = SettingsDoc::parse(&name, current)?;
    let mut kept = doc.clone();
    let removed = remove_ours(&mut doc);
    if removed == 0 {
        return Ok((current.to_string(), 0, None));
    }
    // What is left, with and without a `hooks` object left empty (the user may have had one
    // before install): a backup equal to either is the file as it was.
    remove_ours_keeping(&mut kept, true);
    let left = [doc.to_json(), kept.to_json()];
    for backup in backups(settings) {
        let Ok(text) = std::fs::read_to_string(&backup) else {
            continue;
        };
        // A backup with comments is compared through the comment-tolerant reader.
        let Ok(parsed) = compiler::jsonc::parse(&text) else {
            continue;
        };
        let holds_ours = match SettingsDoc::parse(&name, &text) {
            Ok(backup_doc) => !our_handlers(&backup_doc).is_empty(),
            Err(_) => false,
        };
        if !holds_ours && left.contains(&parsed.to_json()) {
            return Ok((text, removed, Some(backup)));
        }
    }
    Ok((doc.print(), removed, None))
}

pub mod codex;
mod error;
mod files;
pub mod gemini;
mod members;
pub use error::{GenerateError, PlaceError, ShapeError};
pub use files::{WriteError, backup, check_writable, write_settings, write_target};
pub use members::{SandboxBlockError, remove_member_if, sandbox_block, set_member};

#[cfg(test)]
mod tests;
