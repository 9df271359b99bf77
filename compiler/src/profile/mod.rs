//! Loading an agent profile's `tool_policy` and `hooks` blocks.
//!
//! The same [`AgentProfile`] shape is read from both sources the spec names, in YAML or JSON:
//! the agent runtime config (`agents.<id>`) and workflow YAML (`agent_profiles.<id>`).
//! Everything outside the selected profile's `tool_policy` and `hooks` is ignored — those files
//! carry much else — while inside them an unknown key, a wrong type, an empty `events` list, an
//! unknown observer event or action, or an invalid regex is an error naming `file:line:column`.
//!
//! JSON is read with the YAML parser (JSON is YAML 1.2 flow syntax), so both formats get the
//! same precise locations.

use std::cell::RefCell;
use std::path::Path;
use std::sync::Arc;

use engine::Decision;
use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde_saphyr::Spanned;

use crate::diagnostic::{Code, Diagnostic, Errors, Location, quote};

mod convert;

use convert::{Converter, RawProfile};

/// A value with the place it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Located<T> {
    /// The value.
    pub value: T,
    /// Where it was written.
    pub location: Location,
}

/// The part of an agent profile that animus-hook compiles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentProfile {
    /// The profile's id (`agents.<id>` / `agent_profiles.<id>`).
    pub agent_id: String,
    /// Where the profile was defined.
    pub location: Location,
    /// `tool_policy { allow, deny, ask }` in claude permission syntax.
    pub tool_policy: ToolPolicy,
    /// `hooks.policy_rules`: author guardrail rules (tighten-only).
    pub policy_rules: Vec<AuthorRule>,
    /// `hooks.observers`: extra events routed to `animus-hook emit` (record-only).
    pub observers: Vec<Observer>,
    /// `packs`: built-in protection packs (or categories of them) to enable, as written; the
    /// names are resolved when compiling ([`crate::packs`]).
    pub packs: Vec<Located<String>>,
    /// `tool_policy.examples`: calls with the decision the compiled profile must give them,
    /// checked by `compile` (the case-file form of [`crate::cases`]).
    pub examples: Vec<crate::cases::Case>,
}

/// Whose meaning a `tool_policy`'s lists have (`tool_policy.meaning`): what the hook does with
/// a call no entry names, and with a bare `*` allow.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Meaning {
    /// The spec's seed profile (the default when the key is absent): a non-empty `allow` is an
    /// allowlist, every call it does not cover is denied, and a bare `*` allows every tool.
    #[default]
    Allowlist,
    /// The list means what it means to Claude (what `import` writes): a call no entry names
    /// goes to the harness's own flow (the hook abstains: Claude asks, or runs it in a mode
    /// that does not ask), `deny` and `ask` entries bind in every permission mode, and a bare
    /// `*` allow is ignored, as Claude ignores it.
    Claude,
}

impl Meaning {
    /// The name as written in a profile.
    pub fn as_str(self) -> &'static str {
        match self {
            Meaning::Allowlist => "allowlist",
            Meaning::Claude => "claude",
        }
    }
}

/// `tool_policy`: claude permission-rule entries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ToolPolicy {
    /// `meaning`: how unlisted calls and a bare `*` allow are read (default: allowlist).
    pub meaning: Meaning,
    /// Entries compiled to allow rules; non-empty makes the policy an allowlist under
    /// [`Meaning::Allowlist`].
    pub allow: Vec<Located<String>>,
    /// Entries compiled to deny rules.
    pub deny: Vec<Located<String>>,
    /// Entries compiled to ask rules.
    pub ask: Vec<Located<String>>,
}

/// An author rule from `hooks.policy_rules`, validated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AuthorRule {
    /// The author's id (unique within the profile).
    pub id: String,
    /// Gate events, or `None` for every gate event.
    pub events: Option<Vec<String>>,
    /// Tool-name globs; empty = every tool.
    pub tools: Vec<String>,
    /// Field matchers, all of which must hold.
    pub input_matchers: Vec<engine::InputMatcher>,
    /// The decision the author asked for (before tightening).
    pub decision: Decision,
    /// The author's reason, if any.
    pub reason: Option<String>,
    /// `examples.match`: calls (`(tool, tool_input)`) the rule must match, checked by `compile`.
    pub examples_match: Vec<Located<(String, serde_json::Value)>>,
    /// `examples.not_match`: calls the rule must not match.
    pub examples_not_match: Vec<Located<(String, serde_json::Value)>>,
    /// Where the rule was written.
    pub location: Location,
}

/// An author observer from `hooks.observers`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observer {
    /// Harness event names to record.
    pub events: Vec<String>,
    /// The built-in action.
    pub action: ObserverAction,
    /// Where the observer was written.
    pub location: Location,
}

/// The named built-in observer actions. An author picks one; the kernel writes the command.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ObserverAction {
    /// Record the event to the session log.
    Record,
}

/// The longest reason a rule may give, in bytes: it is shown to the model or the user on every
/// call the rule decides.
pub const MAX_REASON_BYTES: usize = 1024;

/// The longest config file [`load_profile_file`] and [`load_profile_str`] read, in bytes
/// (64 MiB). A real permission list of 100,000 entries is ~4 MB and 100,000 author rules with
/// a matcher each ~16 MB in block style. With [`MAX_CONFIG_NODES`] it bounds what a hostile or
/// mistaken file can make the parser and the compiler hold.
pub const MAX_CONFIG_BYTES: usize = 64 << 20;

/// The longest `tool_policy` entry, tool glob or matcher field, in bytes (64 KiB). Unbounded,
/// a 50 MB entry took 19 s and 5 GB to fail deep inside the regex compiler; real entries are a
/// few dozen bytes.
pub const MAX_ENTRY_BYTES: usize = 64 << 10;

/// The longest author matcher regex, in bytes (64 KiB): checked before the regex is parsed.
pub const MAX_REGEX_BYTES: usize = 64 << 10;

/// The longest author rule id, in bytes: an id names the rule in every decision record and
/// diagnostic, so it is a name, not a document.
pub const MAX_ID_BYTES: usize = 1024;

// The top level: only the selected profile is deserialized; every other profile and key is
// skipped unread. serde-saphyr has no seeded entry point, so the selection travels through a
// thread-local set for the duration of one `load` call.
thread_local! {
    static SELECTED_AGENT: RefCell<Option<String>> = const { RefCell::new(None) };
}

#[derive(Deserialize)]
struct RawConfig {
    #[serde(default)]
    agents: Option<Spanned<ProfileMap>>,
    #[serde(default)]
    agent_profiles: Option<Spanned<ProfileMap>>,
}

struct ProfileMap {
    ids: Vec<String>,
    selected: Option<Spanned<RawProfile>>,
}

impl<'de> Deserialize<'de> for ProfileMap {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MapVisitor;
        impl<'de> Visitor<'de> for MapVisitor {
            type Value = ProfileMap;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a mapping from agent id to agent profile")
            }
            fn visit_unit<E: de::Error>(self) -> Result<ProfileMap, E> {
                Ok(ProfileMap {
                    ids: Vec::new(),
                    selected: None,
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ProfileMap, A::Error> {
                let wanted = SELECTED_AGENT.with(|s| s.borrow().clone());
                let mut out = ProfileMap {
                    ids: Vec::new(),
                    selected: None,
                };
                while let Some(key) = map.next_key::<String>()? {
                    if wanted.as_deref() == Some(key.as_str()) {
                        out.selected = Some(map.next_value::<Spanned<RawProfile>>()?);
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                    out.ids.push(key);
                }
                Ok(out)
            }
        }
        deserializer.deserialize_map(MapVisitor)
    }
}

struct SelectionGuard;
impl SelectionGuard {
    fn set(agent: &str) -> Self {
        SELECTED_AGENT.with(|s| *s.borrow_mut() = Some(agent.to_string()));
        SelectionGuard
    }
}
impl Drop for SelectionGuard {
    fn drop(&mut self) {
        SELECTED_AGENT.with(|s| *s.borrow_mut() = None);
    }
}

// ---------------------------------------------------------------------------------------------

/// Read `path` and load profile `agent_id` from it. A file over [`MAX_CONFIG_BYTES`] is an
/// error before it is read (or, for a file that grows or a pipe, as soon as it passes the cap).
pub fn load_profile_file(path: &Path, agent_id: &str) -> Result<AgentProfile, Errors> {
    use std::io::Read;
    let name: Arc<str> = path.display().to_string().into();
    let whole_file = Location {
        file: name.clone(),
        line: 0,
        column: 0,
    };
    let unreadable = |e: std::io::Error| {
        Diagnostic::error(Some(whole_file.clone()), format!("cannot read config: {e}"))
    };
    let file = std::fs::File::open(path).map_err(unreadable)?;
    let len = file.metadata().map_err(unreadable)?.len();
    if len > MAX_CONFIG_BYTES as u64 {
        return Err(config_too_large(whole_file, len).into());
    }
    let mut text = String::new();
    file.take(MAX_CONFIG_BYTES as u64 + 1)
        .read_to_string(&mut text)
        .map_err(unreadable)?;
    load_profile_str(&text, name, agent_id)
}

fn config_too_large(location: Location, len: u64) -> Diagnostic {
    Diagnostic::error(
        Some(location),
        format!(
            "the config is {len} bytes, over the {MAX_CONFIG_BYTES}-byte ({} MiB) limit",
            MAX_CONFIG_BYTES >> 20
        ),
    ).with_code(Code::OverLimit)
    .with_help("a profile's tool_policy and hooks fit in far less; split the file or drop what the agent does not use")
}

/// The most YAML nodes (scalars, lists, mappings) a config may hold: 4,000,000. 100,000
/// author rules written out in block style are 1.5 million nodes and 16 MB; 4 million 1-byte
/// entries (`[a,a,…]`, 8 MB) already take ~1.5 GB to hold and lower, and the 64 MiB size cap
/// alone would admit 33 million of them (measured: 11.5 GB).
pub const MAX_CONFIG_NODES: usize = 4_000_000;

/// serde-saphyr's default budget (250,000 nodes, 1,000,000 events) is sized for configs of a
/// few hundred kilobytes: a profile of 100,000 author rules (~15 nodes each) exceeded it. A
/// node takes at least two bytes of input in any layout (`a,`, `- `), so the budget grows
/// with the input, one node per two bytes and two events per node, up to
/// [`MAX_CONFIG_NODES`]. Aliases, anchors and depth keep serde-saphyr's defaults: those bound
/// expansion, not size.
fn parse_budget(input_len: usize) -> serde_saphyr::Budget {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_nodes = (input_len / 2).clamp(budget.max_nodes, MAX_CONFIG_NODES);
    budget.max_events = budget.max_events.max(2 * budget.max_nodes + 64);
    budget
}

/// Load profile `agent_id` from config text; `file` names the source in diagnostics.
pub fn load_profile_str(
    text: &str,
    file: Arc<str>,
    agent_id: &str,
) -> Result<AgentProfile, Errors> {
    let at = |line: u32, column: u32| Location {
        file: file.clone(),
        line,
        column,
    };
    if text.len() > MAX_CONFIG_BYTES {
        return Err(config_too_large(at(0, 0), text.len() as u64).into());
    }
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(parse_budget(text.len()));
    let raw: RawConfig = {
        let _guard = SelectionGuard::set(agent_id);
        serde_saphyr::from_str_with_options(text, options).map_err(|e| {
            let (line, column) = e
                .location()
                .map_or((0, 0), |l| (l.line() as u32, l.column() as u32));
            let message = describe_parse_error(&e);
            let code = if message.starts_with("unknown key") {
                Code::UnknownKey
            } else {
                Code::InvalidConfig
            };
            Diagnostic::error(Some(at(line, column)), message).with_code(code)
        })?
    };

    let mut found: Vec<(&str, Spanned<RawProfile>)> = Vec::new();
    let mut known = Vec::new();
    for (section, map) in [
        ("agents", raw.agents),
        ("agent_profiles", raw.agent_profiles),
    ] {
        if let Some(map) = map {
            let map = map.value;
            known.extend(map.ids.iter().map(|id| format!("{section}.{}", quote(id))));
            if let Some(profile) = map.selected {
                found.push((section, profile));
            }
        }
    }
    let (section, profile) = match found.len() {
        1 => found.pop().expect("one profile"),
        0 => {
            let listing = if known.is_empty() {
                "the file defines no `agents` or `agent_profiles` section".to_string()
            } else {
                format!("the agents defined here are: {}", known.join(", "))
            };
            return Err(Diagnostic::error(
                Some(at(0, 0)),
                format!("no agent `{agent_id}` in `agents` or `agent_profiles`; {listing}"),
            )
            .with_code(Code::UnknownAgent)
            .into());
        }
        _ => {
            return Err(Diagnostic::error(
                Some(at(0, 0)),
                format!(
                    "agent `{agent_id}` is defined in both `agents` and `agent_profiles`; keep one"
                ),
            )
            .with_code(Code::UnknownAgent)
            .into());
        }
    };
    let _ = section;
    Converter {
        file: &file,
        errors: Vec::new(),
    }
    .profile(agent_id, profile)
}

/// serde-saphyr renders `error: line L column C: <message>` plus a source excerpt; we print
/// the location ourselves, so keep only the message, phrased for a config author.
fn describe_parse_error(e: &serde_saphyr::Error) -> String {
    if let serde_saphyr::Error::Budget { breach, .. } = e.without_snippet() {
        return format!(
            "the config is beyond what the parser accepts (budget breached: {breach:?}): at most \
             {MAX_CONFIG_NODES} YAML nodes (values, lists and mappings), nested at most 64 deep, \
             with at most 50,000 aliases"
        );
    }
    let first = crate::diagnostic::error_line(&e.to_string());
    if let Some(message) = unknown_name(&first) {
        return message;
    }
    match first.as_str() {
        "" => "invalid YAML/JSON".to_string(),
        "expected sequence start" => "wrong type: expected a list here".to_string(),
        "expected mapping start" => "wrong type: expected a mapping (key: value) here".to_string(),
        // The message may name an unknown key or a value, which the input can make any length.
        other => quote(other).into_owned(),
    }
}

/// serde's "unknown field `x`, expected one of `a`, `b`" (or "unknown variant …"), said with
/// the name most likely meant: "unknown key `alow`: did you mean `allow`? (expected one of
/// allow, deny, …)".
fn unknown_name(message: &str) -> Option<String> {
    let (what, rest) = [("field", "key"), ("variant", "value")]
        .into_iter()
        .find_map(|(serde, ours)| {
            message
                .strip_prefix(&format!("unknown {serde} `"))
                .map(|rest| (ours, rest))
        })?;
    let (name, expected) = rest.split_once("`, expected ")?;
    let expected = expected.strip_prefix("one of ").unwrap_or(expected);
    let known: Vec<&str> = expected
        .split([',', ' '])
        .map(|w| w.trim_matches('`'))
        .filter(|w| !w.is_empty() && *w != "or")
        .collect();
    let mean = crate::suggest::did_you_mean(name, known.iter().copied())
        .map(|k| format!(": did you mean `{k}`?"))
        .unwrap_or_default();
    Some(format!(
        "unknown {what} `{}`{mean} (expected one of {})",
        quote(name),
        known.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error_of(yaml: &str) -> String {
        load_profile_str(yaml, "p.yaml".into(), "a")
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn a_misspelt_profile_key_is_an_error_naming_the_key_meant() {
        for (key, meant, at) in [
            ("toolPolicy", "tool_policy", "p.yaml:4:5"),
            ("tool_polcy", "tool_policy", "p.yaml:4:5"),
            ("pack", "packs", "p.yaml:4:5"),
            ("Hooks", "hooks", "p.yaml:4:5"),
            ("deny", "tool_policy.deny", "p.yaml:4:5"),
            ("policy_rules", "hooks.policy_rules", "p.yaml:4:5"),
        ] {
            let yaml = format!("agents:\n  a:\n    model: x\n    {key}: [core]\n");
            let error = error_of(&yaml);
            assert!(
                error.starts_with(at)
                    && error.contains(&format!("unknown key `{key}`"))
                    && error.contains(&format!("did you mean `{meant}`?")),
                "{key}: {error}"
            );
        }
        // Other tools' keys of the profile stay allowed.
        let yaml = "agents:\n  a:\n    model: x\n    tools: [a]\n    prompt: hi\n    tool_policy: {deny: [Bash]}\n";
        load_profile_str(yaml, "p.yaml".into(), "a").unwrap();
    }

    #[test]
    fn unknown_keys_inside_the_blocks_say_which_key_was_meant() {
        for (yaml, at, wanted) in [
            (
                "agents:\n  a:\n    tool_policy:\n      alow: [Bash]\n",
                "p.yaml:4:7",
                "unknown key `alow`: did you mean `allow`?",
            ),
            (
                "agents:\n  a:\n    tool_policy:\n      meaning: claud\n",
                "p.yaml:4:16",
                "unknown value `claud`: did you mean `claude`?",
            ),
            (
                "agents:\n  a:\n    hooks:\n      policy_rule: []\n",
                "p.yaml:4:7",
                "did you mean `policy_rules`?",
            ),
            (
                "agents:\n  a:\n    hooks:\n      observers: [{events: [Stop], acton: record}]\n",
                "p.yaml:4:",
                "did you mean `action`?",
            ),
            (
                "agents:\n  a:\n    hooks:\n      policy_rules:\n        - {id: x, decision: deny, input_matchers: [{field: command, regx: rm}]}\n",
                "p.yaml:5:",
                "did you mean `regex`?",
            ),
            (
                "agents:\n  a:\n    hooks:\n      policy_rules:\n        - {id: x, decison: deny}\n",
                "p.yaml:5:",
                "did you mean `decision`?",
            ),
        ] {
            let error = error_of(yaml);
            assert!(
                error.starts_with(at) && error.contains(wanted),
                "{yaml}: {error}"
            );
        }
    }

    #[test]
    fn the_parse_budget_grows_with_the_input_up_to_the_node_cap() {
        let default = serde_saphyr::Budget::default();
        assert_eq!(parse_budget(1000).max_nodes, default.max_nodes);
        // 100,000 author rules in block style: 16 MB, 1.5 million nodes, 3 million events.
        let rules = parse_budget(16_077_860);
        assert!(rules.max_nodes >= 1_500_000 && rules.max_events >= 3_000_000);
        let capped = parse_budget(MAX_CONFIG_BYTES);
        assert_eq!(capped.max_nodes, MAX_CONFIG_NODES);
        assert_eq!(capped.max_events, 2 * MAX_CONFIG_NODES + 64);
    }

    #[test]
    fn a_breached_budget_is_a_located_error_in_words() {
        // Nesting deeper than the default 64 levels.
        let yaml = format!(
            "agents:\n  a:\n    x: {}{}\n",
            "[".repeat(100),
            "]".repeat(100)
        );
        let error = load_profile_str(&yaml, "deep.yaml".into(), "a")
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("deep.yaml:3:") && error.contains("beyond what the parser accepts"),
            "{error}"
        );
    }
}
