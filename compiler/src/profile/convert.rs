//! The selected profile as written (span-carrying raw shapes) and its conversion to an
//! [`AgentProfile`], every error located.

use std::collections::HashMap;
use std::sync::Arc;

use engine::{Decision, GATE_EVENTS};
use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, Visitor};
use serde_saphyr::Spanned;

use super::{
    AgentProfile, AuthorRule, Located, MAX_ENTRY_BYTES, MAX_ID_BYTES, MAX_REASON_BYTES,
    MAX_REGEX_BYTES, Meaning, Observer, ObserverAction, ToolPolicy,
};
use crate::diagnostic::{Code, Diagnostic, Errors, Location, quote};
use crate::events::CLAUDE_HOOK_EVENTS;
use crate::regex_check::check_matcher_regex;

// ---------------------------------------------------------------------------------------------
// Raw, span-carrying shapes as written.

/// The keys of an agent profile animus-hook reads. Every other key belongs to other tools
/// (`model`, a prompt, …) and is skipped, unless it is a near miss of one of these
/// ([`crate::suggest`]) or one of [`MISPLACED`]: a misspelt `tool_policy` would otherwise
/// leave the agent unguarded without a word.
pub(super) const PROFILE_KEYS: &[&str] = &["tool_policy", "packs", "hooks"];

/// Keys that belong one level down, and where.
const MISPLACED: &[(&str, &str)] = &[
    ("allow", "tool_policy"),
    ("deny", "tool_policy"),
    ("ask", "tool_policy"),
    ("meaning", "tool_policy"),
    ("policy_rules", "hooks"),
    ("observers", "hooks"),
];

pub(super) struct RawProfile {
    tool_policy: Option<Spanned<RawToolPolicy>>,
    packs: Option<Vec<Spanned<String>>>,
    hooks: Option<Spanned<RawHooks>>,
    /// Keys that look meant for animus-hook but are not its keys, with the key meant.
    mistaken: Vec<(Spanned<String>, String)>,
}

impl<'de> Deserialize<'de> for RawProfile {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ProfileVisitor;
        impl<'de> Visitor<'de> for ProfileVisitor {
            type Value = RawProfile;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an agent profile (a mapping with tool_policy, packs, hooks)")
            }
            fn visit_unit<E: de::Error>(self) -> Result<RawProfile, E> {
                Ok(RawProfile {
                    tool_policy: None,
                    packs: None,
                    hooks: None,
                    mistaken: Vec::new(),
                })
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RawProfile, A::Error> {
                let mut out = self.visit_unit::<A::Error>()?;
                while let Some(key) = map.next_key::<Spanned<String>>()? {
                    let once = |seen: bool| {
                        if seen {
                            Err(de::Error::custom(format_args!(
                                "duplicate field `{}`",
                                key.value
                            )))
                        } else {
                            Ok(())
                        }
                    };
                    match key.value.as_str() {
                        "tool_policy" => {
                            once(out.tool_policy.is_some())?;
                            out.tool_policy = map.next_value()?;
                        }
                        "packs" => {
                            once(out.packs.is_some())?;
                            out.packs = map.next_value()?;
                        }
                        "hooks" => {
                            once(out.hooks.is_some())?;
                            out.hooks = map.next_value()?;
                        }
                        other => {
                            map.next_value::<IgnoredAny>()?;
                            let meant =
                                crate::suggest::did_you_mean(other, PROFILE_KEYS.iter().copied())
                                    .map(str::to_string)
                                    .or_else(|| {
                                        MISPLACED
                                            .iter()
                                            .find(|(k, _)| {
                                                crate::suggest::closeness(other, k) == Some(0)
                                            })
                                            .map(|(k, under)| format!("{under}.{k}"))
                                    });
                            if let Some(meant) = meant {
                                out.mistaken.push((key, meant));
                            }
                        }
                    }
                }
                Ok(out)
            }
        }
        deserializer.deserialize_map(ProfileVisitor)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawToolPolicy {
    #[serde(default)]
    meaning: Option<Spanned<Meaning>>,
    #[serde(default)]
    allow: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    deny: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    ask: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    examples: Option<Vec<Spanned<crate::cases::RawCase>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHooks {
    #[serde(default)]
    policy_rules: Option<Vec<Spanned<RawRule>>>,
    #[serde(default)]
    observers: Option<Vec<Spanned<RawObserver>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    id: Spanned<String>,
    #[serde(default)]
    events: Option<Spanned<Vec<Spanned<String>>>>,
    #[serde(default)]
    tools: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    input_matchers: Option<Vec<Spanned<RawMatcher>>>,
    decision: Decision,
    #[serde(default)]
    reason: Option<Spanned<String>>,
    #[serde(default)]
    examples: Option<RawExamples>,
}

/// A rule's `examples`: each a Bash command (a string) or a call (`{tool, input}`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExamples {
    #[serde(default, rename = "match")]
    matching: Option<Vec<Spanned<serde_json::Value>>>,
    #[serde(default)]
    not_match: Option<Vec<Spanned<serde_json::Value>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMatcher {
    field: Spanned<String>,
    regex: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawObserver {
    events: Spanned<Vec<Spanned<String>>>,
    action: ObserverAction,
}

pub(super) struct Converter<'f> {
    pub(super) file: &'f Arc<str>,
    pub(super) errors: Vec<Diagnostic>,
}

impl Converter<'_> {
    fn loc<T>(&self, s: &Spanned<T>) -> Location {
        Location {
            file: self.file.clone(),
            line: s.referenced.line() as u32,
            column: s.referenced.column() as u32,
        }
    }

    fn error(&mut self, location: Location, message: String, help: Option<&str>) {
        self.error_coded(Code::InvalidRule, location, message, help);
    }

    fn error_coded(&mut self, code: Code, location: Location, message: String, help: Option<&str>) {
        let mut d = Diagnostic::error(Some(location), message).with_code(code);
        if let Some(h) = help {
            d = d.with_help(h);
        }
        self.errors.push(d);
    }

    /// An error when `value` is over `limit` bytes, naming `what`, its size and its start;
    /// `true` when it is within the limit.
    fn within(&mut self, what: &str, value: &str, limit: usize, location: Location) -> bool {
        if value.len() <= limit {
            return true;
        }
        self.error_coded(
            Code::OverLimit,
            location,
            format!(
                "{what} is {} bytes, over the {limit}-byte limit (it starts `{}`)",
                value.len(),
                quote(value)
            ),
            Some("shorten it; split a long list of alternatives into several entries or rules"),
        );
        false
    }

    pub(super) fn profile(
        mut self,
        agent_id: &str,
        raw: Spanned<RawProfile>,
    ) -> Result<AgentProfile, Errors> {
        let location = self.loc(&raw);
        let RawProfile {
            tool_policy,
            packs,
            hooks,
            mistaken,
        } = raw.value;
        for (key, meant) in mistaken {
            let location = self.loc(&key);
            let help = if meant.contains('.') {
                format!("move it under `{}`", meant.split('.').next().unwrap_or(""))
            } else {
                format!("rename it `{meant}`")
            };
            self.error_coded(
                Code::UnknownKey,
                location,
                format!(
                    "unknown key `{}` in agent `{agent_id}`: did you mean `{meant}`? (as written it \
                     is ignored, and the agent would run without it)",
                    quote(&key.value)
                ),
                Some(&help),
            );
        }
        let packs = packs
            .unwrap_or_default()
            .into_iter()
            .map(|s| Located {
                location: self.loc(&s),
                value: s.value,
            })
            .collect();
        let tool_policy = tool_policy.map(|tp| {
            let mut located = |list: &str, v: Option<Vec<Spanned<String>>>| {
                v.unwrap_or_default()
                    .into_iter()
                    .filter_map(|s| {
                        let location = self.loc(&s);
                        self.within(
                            &format!("tool_policy.{list} entry"),
                            &s.value,
                            MAX_ENTRY_BYTES,
                            location.clone(),
                        )
                        .then_some(Located {
                            location,
                            value: s.value,
                        })
                    })
                    .collect()
            };
            let policy = ToolPolicy {
                meaning: tp.value.meaning.map(|m| m.value).unwrap_or_default(),
                allow: located("allow", tp.value.allow),
                deny: located("deny", tp.value.deny),
                ask: located("ask", tp.value.ask),
            };
            (policy, tp.value.examples.unwrap_or_default())
        });
        let (tool_policy, raw_examples) = match tool_policy {
            Some((policy, examples)) => (Some(policy), examples),
            None => (None, Vec::new()),
        };
        let mut examples = Vec::new();
        for raw in raw_examples {
            let file = self.file.clone();
            let at = move |line: usize, column: usize| Location {
                file: file.clone(),
                line: line as u32,
                column: column as u32,
            };
            match crate::cases::case_from_raw(raw, &at) {
                Ok(case) => examples.push(case),
                Err(mut more) => self.errors.append(&mut more),
            }
        }
        let (mut policy_rules, mut observers) = (Vec::new(), Vec::new());
        if let Some(hooks) = hooks {
            let RawHooks {
                policy_rules: rules,
                observers: obs,
            } = hooks.value;
            let mut ids: HashMap<String, Location> = HashMap::new();
            for rule in rules.unwrap_or_default() {
                if let Some(rule) = self.rule(rule, &mut ids) {
                    policy_rules.push(rule);
                }
            }
            for observer in obs.unwrap_or_default() {
                if let Some(o) = self.observer(observer) {
                    observers.push(o);
                }
            }
        }
        if !self.errors.is_empty() {
            return Err(Errors(self.errors));
        }
        Ok(AgentProfile {
            agent_id: agent_id.to_string(),
            location,
            tool_policy: tool_policy.unwrap_or_default(),
            policy_rules,
            observers,
            packs,
            examples,
        })
    }

    fn rule(
        &mut self,
        raw: Spanned<RawRule>,
        ids: &mut HashMap<String, Location>,
    ) -> Option<AuthorRule> {
        let location = self.loc(&raw);
        let r = raw.value;
        let before = self.errors.len();
        let id_loc = self.loc(&r.id);
        let id = r.id.value;
        // Every message below names the rule; an overlong id is named by its start.
        let shown = quote(&id).into_owned();
        self.check_rule_id(&id, id_loc, &shown, ids);
        let events = r.events.map(|events| {
            let list_loc = self.loc(&events);
            if events.value.is_empty() {
                self.error(
                    list_loc,
                    format!("rule `{shown}`: `events` is empty, so the rule could never apply"),
                    Some("list gate events (PreToolUse, PermissionRequest), or omit `events` to apply to both"),
                );
            }
            events
                .value
                .into_iter()
                .map(|e| {
                    if !GATE_EVENTS.contains(&e.value.as_str()) {
                        let l = self.loc(&e);
                        self.error(
                            l,
                            format!("rule `{shown}`: `{}` is not a gate event; expected one of {}", quote(&e.value), GATE_EVENTS.join(", ")),
                            Some("policy rules decide gate events only; use `observers` to record other events"),
                        );
                    }
                    e.value
                })
                .collect::<Vec<_>>()
        });
        let tools = r
            .tools
            .unwrap_or_default()
            .into_iter()
            .map(|t| {
                let l = self.loc(&t);
                if self.within(
                    &format!("rule `{shown}`: a tool glob"),
                    &t.value,
                    MAX_ENTRY_BYTES,
                    l.clone(),
                ) {
                    if let Err(why) = crate::tool_policy::check_tool_glob(&t.value) {
                        self.error(
                            l,
                            format!("rule `{shown}`: tool `{}` {why}", quote(&t.value)),
                            None,
                        );
                    } else if let Some(meant) = crate::tool_policy::misspelt_tool(&t.value) {
                        let why = crate::tool_policy::never_fires(&t.value, meant);
                        self.error(l, format!("rule `{shown}`: tool {why}"), None);
                    }
                }
                t.value
            })
            .collect();
        let input_matchers = r
            .input_matchers
            .unwrap_or_default()
            .into_iter()
            .map(|m| self.rule_matcher(m.value, &shown))
            .collect();
        if let Some(reason) = &r.reason
            && reason.value.len() > MAX_REASON_BYTES
        {
            let l = self.loc(reason);
            let start: String = reason.value.chars().take(60).collect();
            self.error(
                l,
                format!(
                    "rule `{shown}`: the reason is {} bytes, over the {MAX_REASON_BYTES}-byte limit \
                     (it starts `{start}…`)",
                    reason.value.len()
                ),
                Some("a reason is shown on every call the rule decides: say why in a sentence or two"),
            );
        }
        let (mut examples_match, mut examples_not_match) = (Vec::new(), Vec::new());
        if let Some(examples) = r.examples {
            for (list, into) in [
                (examples.matching, &mut examples_match),
                (examples.not_match, &mut examples_not_match),
            ] {
                for example in list.unwrap_or_default() {
                    let l = self.loc(&example);
                    match crate::cases::example_call(&example.value) {
                        Ok(call) => into.push(Located {
                            value: call,
                            location: l,
                        }),
                        Err(why) => self.error(l, format!("rule `{shown}`: {why}"), None),
                    }
                }
            }
        }
        (self.errors.len() == before).then_some(AuthorRule {
            id,
            events,
            tools,
            input_matchers,
            decision: r.decision,
            reason: r.reason.map(|r| r.value),
            examples_match,
            examples_not_match,
            location,
        })
    }

    /// Check a rule's `id` (at `id_loc`, quoted as `shown`): within its size, not empty, not
    /// a reserved prefix, unique in `ids` (where it is recorded).
    fn check_rule_id(
        &mut self,
        id: &str,
        id_loc: Location,
        shown: &str,
        ids: &mut HashMap<String, Location>,
    ) {
        if !self.within("rule `id`", id, MAX_ID_BYTES, id_loc.clone()) {
            // Reported; the checks below would quote it again.
        } else if id.trim().is_empty() {
            self.error(
                id_loc.clone(),
                "rule `id` is empty".into(),
                Some("give every rule a short, unique id"),
            );
        } else if let Some(prefix) = [
            crate::compile::KERNEL_ID_PREFIX,
            crate::self_protection::SELF_PROTECTION_ID_PREFIX,
            crate::packs::PACK_ID_PREFIX,
        ]
        .into_iter()
        .find(|prefix| id.starts_with(prefix))
        {
            self.error(
                id_loc.clone(),
                format!("rule id `{shown}` uses the reserved prefix `{prefix}`"),
                Some(
                    "that prefix names rules the compiler writes (tool_policy, packs, built-in \
                     self-protection); pick another id",
                ),
            );
        } else if let Some(first) = ids.get(id) {
            let msg = format!("duplicate rule id `{shown}` (first defined at {first})");
            self.error(
                id_loc.clone(),
                msg,
                Some("rule ids must be unique within a profile"),
            );
        } else {
            ids.insert(id.to_string(), id_loc);
        }
    }

    /// One input matcher of the rule quoted as `shown`: its field a dot path, its regex within
    /// its size and valid.
    fn rule_matcher(&mut self, raw: RawMatcher, shown: &str) -> engine::InputMatcher {
        let RawMatcher { field, regex } = raw;
        let l = self.loc(&field);
        if self.within(
            &format!("rule `{shown}`: a matcher `field`"),
            &field.value,
            MAX_ENTRY_BYTES,
            l.clone(),
        ) && !engine::semantics::is_valid_field_path(&field.value)
        {
            self.error(
                l,
                format!("rule `{shown}`: `field: {}` is not a dot path into tool_input", quote(&field.value)),
                Some("write a field name such as `command` or `file_path`, nested names joined by `.`"),
            );
        }
        // The length first: parsing and compiling a huge regex is what took seconds
        // and gigabytes.
        let l = self.loc(&regex);
        if self.within(
            &format!("rule `{shown}`: a matcher `regex`"),
            &regex.value,
            MAX_REGEX_BYTES,
            l.clone(),
        ) && let Err(why) = check_matcher_regex(&regex.value)
        {
            self.error(
                l,
                format!(
                    "rule `{shown}`: invalid regex `{}`: {}",
                    quote(&regex.value),
                    quote(&why.to_string())
                ),
                None,
            );
        }
        engine::InputMatcher::regex(field.value, regex.value)
    }

    fn observer(&mut self, raw: Spanned<RawObserver>) -> Option<Observer> {
        let location = self.loc(&raw);
        let before = self.errors.len();
        let RawObserver { events, action } = raw.value;
        if events.value.is_empty() {
            let l = self.loc(&events);
            self.error(
                l,
                "observer `events` is empty".into(),
                Some("list the harness events to record"),
            );
        }
        let events = events
            .value
            .into_iter()
            .map(|e| {
                if !CLAUDE_HOOK_EVENTS.contains(&e.value.as_str()) {
                    let l = self.loc(&e);
                    self.error(
                        l,
                        format!("observer event `{}` is not a harness hook event", quote(&e.value).escape_debug()),
                        Some("use an event name such as UserPromptSubmit, Notification, SubagentStop or PreCompact"),
                    );
                }
                e.value
            })
            .collect();
        (self.errors.len() == before).then_some(Observer {
            events,
            action,
            location,
        })
    }
}
