//! Built-in protection packs: named deny and ask rules against destructive commands, enabled by
//! a profile's `packs: [core, database.postgresql, …]`.
//!
//! A pack is data: a YAML file in the repository's `packs/` directory, compiled into the binary.
//! Each rule has an id, a decision (`deny` or `ask`, never an allow), why it matters, the safer
//! alternative where there is one, what it matches, and `match`/`not_match` example commands.
//! A rule matches through the forms every other rule uses, so an enabled pack costs the hook
//! what the same rules written by hand would:
//!
//! - `regex`: one or more regexes over a Bash command's text and each of its normalised
//!   segments (quotes removed, wrappers such as `sudo`, `env`, `xargs` peeled, the program's
//!   basename; see `engine::shell`), as an author rule on `Bash.command`;
//! - `entries`: claude permission entries (`Read(~/.ssh/id_*)`), lowered as `tool_policy`
//!   entries of the rule's decision (a `Read(…)` deny also reads every word of a shell command
//!   as a path);
//! - `file_entries`: claude permission entries for the file tools alone (`Edit(~/.bashrc)`):
//!   the shell's words are not read as paths, so `source ~/.bashrc` is not asked about; the
//!   rule's `regex` reads the shell's writes instead.
//!
//! Pack rules are kernel rules: never downgraded, ids `pack.<pack>:<rule>` (the `pack.` prefix
//! is reserved), and the reason names the pack and rule, why, and what to do instead. Their
//! examples are checked whenever a profile enabling the pack compiles (and in this crate's
//! tests for every pack): a failing example is a compile error at the example.
//!
//! A name in `packs` is a pack (`core.git`), a category, the part before the first dot
//! (`core`), which enables every pack in it, or `default`: every pack whose file says
//! `default: true`, the recommended set (everyday destructive commands, with a false-positive
//! rate a developer tolerates all day). Every other pack is opt-in by name or category, so
//! `default` is reserved: no pack or category may be named so.

use std::sync::Arc;

use engine::policy::{InputMatcher, MatchOn};
use engine::{Decision, HookPolicyRule};
use serde::Deserialize;
use serde_saphyr::Spanned;

use crate::diagnostic::{Code, Diagnostic, Errors, Location, quote};
use crate::profile::Located;
use crate::tool_policy::{LoweredEntry, MONITOR_TOOL, lower_entry};

mod embedded;
mod examples;

use embedded::EMBEDDED;
pub use examples::{EXAMPLE_PLACES, check_examples};

/// Rule ids starting with this are pack rules; authors may not use it.
pub const PACK_ID_PREFIX: &str = "pack.";

/// The name in `packs` that enables every pack marked `default: true`.
pub const DEFAULT_SET: &str = "default";

/// One pack.
#[derive(Clone, Debug)]
pub struct Pack {
    /// `core.git`.
    pub name: String,
    /// One line.
    pub description: String,
    /// In the recommended set `packs: [default]` enables.
    pub default: bool,
    /// Its rules.
    pub rules: Vec<PackRule>,
    /// Where the pack is defined.
    pub location: Location,
}

/// One rule of a pack.
#[derive(Clone, Debug)]
pub struct PackRule {
    /// Unique within the pack (`reset-hard`).
    pub id: String,
    /// `deny` or `ask`.
    pub decision: Decision,
    /// Why the command is dangerous (one sentence).
    pub why: String,
    /// The safer alternative, if there is one.
    pub instead: Option<String>,
    /// Regexes over a Bash command and its segments.
    pub regex: Vec<Located<String>>,
    /// Claude permission entries.
    pub entries: Vec<Located<String>>,
    /// Claude permission entries naming files for the file tools alone (`Edit(~/.bashrc)`):
    /// lowered without the shell-word reading a deny or ask entry otherwise adds
    /// ([`file_tool_parts`]).
    pub file_entries: Vec<Located<String>>,
    /// Commands the rule must decide.
    pub examples_match: Vec<Located<String>>,
    /// Commands the rule must leave alone.
    pub examples_not_match: Vec<Located<String>>,
    /// Where the rule is defined.
    pub location: Location,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPack {
    pack: String,
    description: String,
    #[serde(default)]
    default: bool,
    rules: Vec<Spanned<RawRule>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    id: String,
    decision: Decision,
    why: String,
    #[serde(default)]
    instead: Option<String>,
    #[serde(default)]
    regex: Option<OneOrMany>,
    #[serde(default)]
    entries: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    file_entries: Option<Vec<Spanned<String>>>,
    #[serde(default, rename = "match")]
    examples_match: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    not_match: Option<Vec<Spanned<String>>>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(Spanned<String>),
    Many(Vec<Spanned<String>>),
}

/// The category of packs that flag ordinary work on purpose (`strict.secret-reads` asks before
/// any secret is read): opt-in by name, and left out of [`every_pack_list`].
pub const STRICT_CATEGORY: &str = "strict";

/// `packs: [...]` enabling every built-in pack meant to be used together: each category once
/// (`[core, database, …]`), all but [`STRICT_CATEGORY`], whose packs contradict the others'
/// idea of ordinary work (reading a secret through its manager).
pub fn every_pack_list() -> String {
    let mut categories: Vec<&str> = Vec::new();
    for (path, _) in EMBEDDED {
        let file = path.strip_prefix("packs/").unwrap_or(path);
        let category = file.split('.').next().unwrap_or(file);
        if category != STRICT_CATEGORY && !categories.contains(&category) {
            categories.push(category);
        }
    }
    format!("[{}]", categories.join(", "))
}

/// Every built-in pack, parsed and checked (ids, regexes, entries; not the examples, which
/// [`check_examples`] runs).
pub fn catalogue() -> Result<Vec<Pack>, Errors> {
    let mut packs = Vec::new();
    let mut errors = Vec::new();
    for (path, text) in EMBEDDED {
        match parse_pack(path, text) {
            Ok(pack) => packs.push(pack),
            Err(e) => errors.extend(e.0),
        }
    }
    if errors.is_empty() {
        Ok(packs)
    } else {
        Err(Errors(errors))
    }
}

/// Parse one pack file; `path` names it in diagnostics.
pub fn parse_pack(path: &str, text: &str) -> Result<Pack, Errors> {
    let file: Arc<str> = path.into();
    let at = |line: u32, column: u32| Location {
        file: file.clone(),
        line,
        column,
    };
    let loc = |s: &serde_saphyr::Location| at(s.line() as u32, s.column() as u32);
    let raw: RawPack = serde_saphyr::from_str(text).map_err(|e| {
        let (line, column) = e
            .location()
            .map_or((0, 0), |l| (l.line() as u32, l.column() as u32));
        Errors::one(Diagnostic::error(
            Some(at(line, column)),
            format!("invalid pack: {}", quote(&e.to_string())),
        ))
    })?;
    let mut errors = Vec::new();
    let mut error = |location: Location, message: String| {
        errors.push(Diagnostic::error(Some(location), message));
    };
    if let Some(why) = misnamed(&raw.pack, path) {
        error(at(1, 1), why);
    }
    let mut rules: Vec<PackRule> = Vec::new();
    for rule in raw.rules {
        let location = loc(&rule.referenced);
        let r = rule.value;
        if !valid_id(&r.id) {
            error(
                location.clone(),
                format!(
                    "rule id `{}` must be lowercase words joined by `-`",
                    quote(&r.id)
                ),
            );
        }
        if rules.iter().any(|other| other.id == r.id) {
            error(
                location.clone(),
                format!("rule id `{}` is defined twice", r.id),
            );
        }
        if !matches!(r.decision, Decision::Deny | Decision::Ask) {
            error(
                location.clone(),
                format!(
                    "rule `{}`: a pack rule denies or asks, never {}",
                    r.id, r.decision
                ),
            );
        }
        let located = |v: Vec<Spanned<String>>| -> Vec<Located<String>> {
            v.into_iter()
                .map(|s| Located {
                    location: loc(&s.referenced),
                    value: s.value,
                })
                .collect()
        };
        let regex = match r.regex {
            None => Vec::new(),
            Some(OneOrMany::One(one)) => located(vec![one]),
            Some(OneOrMany::Many(many)) => located(many),
        };
        let entries = located(r.entries.unwrap_or_default());
        let file_entries = located(r.file_entries.unwrap_or_default());
        let examples_match = located(r.examples_match.unwrap_or_default());
        let examples_not_match = located(r.not_match.unwrap_or_default());
        for (location, message) in pattern_errors(&r.id, r.decision, &regex, &entries) {
            error(location, message);
        }
        for (location, message) in file_entry_errors(&r.id, r.decision, &file_entries) {
            error(location, message);
        }
        if regex.is_empty() && entries.is_empty() && file_entries.is_empty() {
            error(
                location.clone(),
                format!(
                    "rule `{}` has no `regex`, `entries` or `file_entries`: it matches nothing",
                    r.id
                ),
            );
        }
        if examples_match.is_empty() {
            error(
                location.clone(),
                format!(
                    "rule `{}` has no `match` example: give one command it decides",
                    r.id
                ),
            );
        }
        let reason_len = r.why.len() + r.instead.as_ref().map_or(0, String::len);
        if reason_len > 600 {
            error(
                location.clone(),
                format!(
                    "rule `{}`: `why` and `instead` are {reason_len} bytes; a reason is one or two lines",
                    r.id
                ),
            );
        }
        rules.push(PackRule {
            id: r.id,
            decision: r.decision,
            why: r.why,
            instead: r.instead,
            regex,
            entries,
            file_entries,
            examples_match,
            examples_not_match,
            location,
        });
    }
    if errors.is_empty() {
        Ok(Pack {
            name: raw.pack,
            description: raw.description,
            default: raw.default,
            rules,
            location: at(1, 1),
        })
    } else {
        Err(Errors(errors))
    }
}

/// Why a pack named `pack` in the file `path` is misnamed: not its file's name, not lowercase
/// words joined by `.`, or the reserved default set.
fn misnamed(pack: &str, path: &str) -> Option<String> {
    let expected = path
        .rsplit('/')
        .next()
        .and_then(|f| f.strip_suffix(".yaml"))
        .unwrap_or(path);
    if pack != expected || !valid_name(pack) {
        Some(format!(
            "the pack is named `{}`; its file must be `packs/<name>.yaml` with a name of \
             lowercase words joined by `.` (this file says `{expected}`)",
            quote(pack)
        ))
    } else if category(pack) == DEFAULT_SET {
        Some(format!(
            "the pack is named `{pack}`, but `{DEFAULT_SET}` is reserved: `packs: \
             [{DEFAULT_SET}]` enables the packs marked `default: true`, so no pack or category \
             may be named so"
        ))
    } else {
        None
    }
}

/// The errors of the rule `id`'s regexes and `tool_policy` entries, each at its place.
fn pattern_errors(
    id: &str,
    decision: Decision,
    regex: &[Located<String>],
    entries: &[Located<String>],
) -> Vec<(Location, String)> {
    let mut out = Vec::new();
    for re in regex {
        if let Err(e) = crate::regex_check::check_matcher_regex(&re.value) {
            out.push((
                re.location.clone(),
                format!("rule `{id}`: invalid regex: {e}"),
            ));
        }
    }
    for entry in entries {
        if let Err(e) = lower_entry(&entry.value, decision) {
            out.push((
                entry.location.clone(),
                format!("rule `{id}`: entry `{}` {e}", quote(&entry.value)),
            ));
        }
    }
    out
}

/// The errors of the rule `id`'s `file_entries`: each must lower as a claude entry and reach
/// file tools only ([`file_tool_parts`]): a `Bash(…)` entry there would read the shell, which is
/// what `file_entries` leaves out.
fn file_entry_errors(
    id: &str,
    decision: Decision,
    file_entries: &[Located<String>],
) -> Vec<(Location, String)> {
    let mut out = pattern_errors(id, decision, &[], file_entries);
    for entry in file_entries {
        let Ok(lowered) = lower_entry(&entry.value, decision) else {
            continue;
        };
        let parts = file_tool_parts(lowered.parts);
        // Each part names files: a path matcher on named tools (a part with no tool glob
        // reaches every tool, the shell among them; one with no matcher every call).
        let names_files = |p: &LoweredEntry| {
            !p.tools.is_empty()
                && !p.tools.iter().any(|t| {
                    t == "Bash" || t == MONITOR_TOOL || t == "PowerShell" || t.contains('*')
                })
                && !p.input_matchers.is_empty()
                && p.input_matchers
                    .iter()
                    .all(|m| matches!(m.on, MatchOn::Path | MatchOn::ResolvedPath))
        };
        if parts.is_empty() || !parts.iter().all(names_files) {
            out.push((
                entry.location.clone(),
                format!(
                    "rule `{id}`: `file_entries` holds entries of the file tools (`Read(…)`, \
                     `Edit(…)`); `{}` is not one (put it under `entries`)",
                    quote(&entry.value)
                ),
            ));
        }
    }
    out
}

/// The parts of a lowered entry that read the file tools' own fields: the shell-word reading a
/// deny or ask entry adds ([`MatchOn::CommandPath`]) left out.
fn file_tool_parts(parts: Vec<LoweredEntry>) -> Vec<LoweredEntry> {
    parts
        .into_iter()
        .filter(|part| {
            !part
                .input_matchers
                .iter()
                .any(|m| m.on == MatchOn::CommandPath)
        })
        .collect()
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.split('.').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        })
}

fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && !id.starts_with('-')
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// The category of a pack: its name up to the first dot (`core` for `core.git`).
pub fn category(name: &str) -> &str {
    name.split('.').next().unwrap_or(name)
}

/// The packs `names` enable, each once, in catalogue order: a pack, a category, or
/// [`DEFAULT_SET`]; an unknown name is an error at it.
pub fn resolve<'p>(
    catalogue: &'p [Pack],
    names: &[Located<String>],
) -> Result<Vec<&'p Pack>, Errors> {
    let mut enabled = vec![false; catalogue.len()];
    let mut errors = Vec::new();
    for name in names {
        let mut any = false;
        for (i, pack) in catalogue.iter().enumerate() {
            let named = if name.value == DEFAULT_SET {
                pack.default
            } else {
                pack.name == name.value || category(&pack.name) == name.value
            };
            if named {
                enabled[i] = true;
                any = true;
            }
        }
        if !any {
            let mut known: Vec<&str> = Vec::new();
            for pack in catalogue {
                if !known.contains(&category(&pack.name)) {
                    known.push(category(&pack.name));
                }
            }
            errors.push(
                Diagnostic::error(
                    Some(name.location.clone()),
                    format!("no pack or category `{}`", quote(&name.value)),
                )
                .with_code(Code::UnknownPack)
                .with_help(format!(
                    "`animus-hook packs` lists them; `{DEFAULT_SET}` is the recommended set, \
                     and the categories are {}",
                    known.join(", ")
                )),
            );
        }
    }
    if !errors.is_empty() {
        return Err(Errors(errors));
    }
    Ok(catalogue
        .iter()
        .zip(enabled)
        .filter_map(|(pack, on)| on.then_some(pack))
        .collect())
}

/// The reason a rule of `pack` gives: the pack and rule, why, and what to do instead.
pub fn reason(pack: &Pack, rule: &PackRule) -> String {
    let mut reason = format!(
        "{}:{}: {}",
        pack.name,
        rule.id,
        rule.why.trim_end_matches('.')
    );
    reason.push('.');
    if let Some(instead) = &rule.instead {
        reason.push_str(" Instead: ");
        reason.push_str(instead.trim_end_matches('.'));
        reason.push('.');
    }
    reason
}

/// The policy rules `rule` of `pack` lowers to, each with its location.
pub fn lower_rule(pack: &Pack, rule: &PackRule) -> Vec<(HookPolicyRule, Location)> {
    let reason = reason(pack, rule);
    let mut parts: Vec<(Vec<String>, Vec<InputMatcher>, Location)> = Vec::new();
    for re in &rule.regex {
        parts.push((
            vec!["Bash".into(), MONITOR_TOOL.into()],
            vec![InputMatcher {
                field: "command".into(),
                on: MatchOn::TextAndSegments,
                pattern: re.value.clone(),
            }],
            re.location.clone(),
        ));
    }
    let entries = rule.entries.iter().map(|e| (e, false));
    for (entry, files_only) in entries.chain(rule.file_entries.iter().map(|e| (e, true))) {
        // Checked when the pack was parsed (a file entry names files for the file tools).
        if let Ok(lowered) = lower_entry(&entry.value, rule.decision) {
            let lowered = if files_only {
                file_tool_parts(lowered.parts)
            } else {
                lowered.parts
            };
            for part in lowered {
                parts.push((part.tools, part.input_matchers, entry.location.clone()));
            }
        }
    }
    parts
        .into_iter()
        .enumerate()
        .map(|(i, (tools, input_matchers, location))| {
            let id = if i == 0 {
                format!("{PACK_ID_PREFIX}{}:{}", pack.name, rule.id)
            } else {
                format!("{PACK_ID_PREFIX}{}:{} #{}", pack.name, rule.id, i + 1)
            };
            (
                HookPolicyRule {
                    id,
                    events: Vec::new(),
                    tools,
                    input_matchers,
                    decision: rule.decision,
                    reason: reason.clone(),
                },
                location,
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pack_parses_and_every_example_holds() {
        let packs = catalogue().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(packs.len(), EMBEDDED.len());
        let mut failures = Vec::new();
        for pack in &packs {
            if let Err(e) = check_examples(pack) {
                failures.push(e.to_string());
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    /// The examples are decided by the reference evaluator; the hook decides with the automaton
    /// built from the sidecar, whose DFAs have a size budget. Every rule must fit it.
    #[test]
    fn every_rule_lowers_to_the_automaton() {
        let packs = catalogue().unwrap();
        let mut failures = Vec::new();
        for pack in &packs {
            for rule in &pack.rules {
                let policy = engine::HookPolicy {
                    version: engine::policy::POLICY_VERSION,
                    default_decision: Decision::Defer,
                    rules: lower_rule(pack, rule).into_iter().map(|(r, _)| r).collect(),
                };
                let json = policy.to_json();
                if let Err(e) = crate::lower::build_sidecar(&policy, json.as_bytes()) {
                    failures.push(format!("{}: {}", rule.location, e.message));
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn a_failing_example_is_an_error_at_the_example() {
        let text = "pack: t.x\ndescription: d\nrules:\n  - id: r\n    decision: deny\n    why: w\n    regex: '^rm -rf /$'\n    match: ['rm -rf /', 'rm -rf ~']\n    not_match: ['rm -rf / ']\n";
        let pack = parse_pack("packs/t.x.yaml", text).unwrap();
        let e = check_examples(&pack).unwrap_err().to_string();
        assert!(e.contains("packs/t.x.yaml:8:"), "{e}");
        assert!(e.contains("`rm -rf ~` gets defer, not deny"), "{e}");
        assert!(e.contains("`rm -rf / ` is matched"), "{e}");
    }

    /// `value` written at `p.yaml:<line>:<column>`.
    fn at_place(value: &str, line: u32, column: u32) -> Located<String> {
        let file = "p.yaml".into();
        Located {
            value: value.to_string(),
            location: Location { file, line, column },
        }
    }

    #[test]
    fn names_and_categories_resolve_and_unknown_ones_are_errors() {
        let packs = catalogue().unwrap();
        let at = |v: &str| at_place(v, 3, 7);
        let core = resolve(&packs, &[at("core"), at("core.git")]).unwrap();
        assert!(core.len() >= 2 && core.iter().all(|p| category(&p.name) == "core"));
        let e = resolve(&packs, &[at("cor")]).unwrap_err().to_string();
        assert!(
            e.contains("p.yaml:3:7") && e.contains("no pack or category `cor`"),
            "{e}"
        );
        assert!(e.contains("`default` is the recommended set"), "{e}");
    }

    #[test]
    fn default_enables_exactly_the_packs_marked_default() {
        let packs = catalogue().unwrap();
        let at = |v: &str| at_place(v, 1, 1);
        let default: Vec<&str> = resolve(&packs, &[at("default")])
            .unwrap()
            .iter()
            .map(|p| p.name.as_str())
            .collect();
        let marked: Vec<&str> = packs
            .iter()
            .filter(|p| p.default)
            .map(|p| p.name.as_str())
            .collect();
        assert_eq!(default, marked);
        // The everyday destructive commands are in it; packs for tools few use are opt-in.
        for name in ["core.git", "core.filesystem", "core.secrets"] {
            assert!(
                default.contains(&name),
                "{name} not in default: {default:?}"
            );
        }
        assert!(
            default.len() < packs.len(),
            "every pack is in default: nothing is opt-in"
        );
        // `default` with a name already in it enables each pack once.
        let both = resolve(&packs, &[at("default"), at("core.git")]).unwrap();
        assert_eq!(both.len(), default.len());
    }

    #[test]
    fn default_is_reserved_as_a_pack_and_category_name() {
        for name in ["default", "default.extra"] {
            let text = format!(
                "pack: {name}\ndescription: d\nrules:\n  - id: r\n    decision: deny\n    why: w\n    regex: '^x$'\n    match: ['x']\n"
            );
            let e = parse_pack(&format!("packs/{name}.yaml"), &text)
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(&format!("packs/{name}.yaml:1:1")) && e.contains("is reserved"),
                "{e}"
            );
        }
        // `default: true` is read; without it a pack is opt-in.
        let marked = "pack: t.x\ndescription: d\ndefault: true\nrules:\n  - id: r\n    decision: deny\n    why: w\n    regex: '^x$'\n    match: ['x']\n";
        assert!(parse_pack("packs/t.x.yaml", marked).unwrap().default);
        let plain = marked.replace("default: true\n", "");
        assert!(!parse_pack("packs/t.x.yaml", &plain).unwrap().default);
    }

    /// `file_entries` reach the file tools and not the shell's words: system.persistence asks
    /// before Write or Edit change a shell startup file, a git hook, a login service or an MCP
    /// server list, while reading them (the Read tool, `source ~/.bashrc`) passes.
    #[test]
    fn file_entries_reach_the_file_tools_and_not_the_shell() {
        let packs = catalogue().unwrap();
        let pack = packs
            .iter()
            .find(|p| p.name == "system.persistence")
            .unwrap();
        let policy = engine::HookPolicy {
            version: engine::policy::POLICY_VERSION,
            default_decision: Decision::Defer,
            rules: pack
                .rules
                .iter()
                .flat_map(|r| lower_rule(pack, r))
                .map(|(r, _)| r)
                .collect(),
        };
        let evaluator = engine::reference::ReferenceEvaluator::new(&policy).unwrap();
        let decide = |tool: &str, input: serde_json::Value| {
            evaluator
                .decide(engine::Call {
                    event: "PreToolUse",
                    tool_name: tool,
                    tool_input: &input,
                    places: EXAMPLE_PLACES,
                })
                .decision
        };
        let file = |path: &str| serde_json::json!({ "file_path": path, "content": "x" });
        for (tool, path) in [
            ("Write", "/home/user/.bashrc"),
            ("Edit", "/home/user/.zshrc"),
            ("Write", "/home/user/.config/fish/conf.d/x.fish"),
            ("Write", "/home/user/project/.git/hooks/pre-commit"),
            ("Edit", "/home/user/project/.git/config"),
            ("Write", "/home/user/.config/systemd/user/x.service"),
            ("Write", "/etc/profile.d/x.sh"),
            ("Edit", "/home/user/.claude.json"),
            ("Write", "/home/user/project/.mcp.json"),
            ("Edit", "/home/user/project/.claude/hooks/format.sh"),
            (
                "Write",
                "/home/user/.claude/plugins/cache/m/p/1.0/hooks/hooks.json",
            ),
        ] {
            assert_eq!(decide(tool, file(path)), Decision::Ask, "{tool} {path}");
        }
        for (tool, input) in [
            ("Read", file("/home/user/.bashrc")),
            ("Write", file("/home/user/project/src/main.rs")),
            ("Write", file("/home/user/project/notes/bashrc.md")),
            (
                "Write",
                file("/home/user/project/.claude/commands/review.md"),
            ),
            ("Bash", serde_json::json!({ "command": "source ~/.bashrc" })),
            ("Bash", serde_json::json!({ "command": "cat .mcp.json" })),
            ("Bash", serde_json::json!({ "command": "ls .git/hooks" })),
        ] {
            assert_eq!(
                decide(tool, input.clone()),
                Decision::Defer,
                "{tool} {input}"
            );
        }
    }

    #[test]
    fn file_entries_hold_file_tool_entries_only() {
        for (entry, ok) in [
            ("Edit(~/.bashrc)", true),
            ("Read(~/.bashrc)", true),
            ("Bash(rm:*)", false),
            ("WebFetch(domain:example.com)", false),
            ("*", false),
            ("Edit(", false),
            ("Edit", false),
        ] {
            let text = format!(
                "pack: t.x\ndescription: d\nrules:\n  - id: r\n    decision: ask\n    why: w\n    regex: '^x$'\n    file_entries: ['{entry}']\n    match: ['x']\n"
            );
            let parsed = parse_pack("packs/t.x.yaml", &text);
            assert_eq!(
                parsed.is_ok(),
                ok,
                "{entry}: {:?}",
                parsed.err().map(|e| e.to_string())
            );
            if let Err(e) = parsed {
                assert!(e.to_string().contains("packs/t.x.yaml:8:"), "{e}");
            }
        }
    }

    #[test]
    fn every_file_in_packs_is_compiled_in() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../packs");
        let mut files: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| format!("packs/{}", e.unwrap().file_name().to_string_lossy()))
            .collect();
        files.sort();
        let mut embedded: Vec<String> = EMBEDDED.iter().map(|(p, _)| p.to_string()).collect();
        embedded.sort();
        assert_eq!(files, embedded, "packs/ and packs/embedded.rs disagree");
    }
}
