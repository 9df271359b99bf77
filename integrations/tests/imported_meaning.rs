//! Issue 25 item 2 measured on real material: every permission list in
//! `../shared/corpus-real/permission-lists/` is imported (`integrations::import`, what `animus-hook
//! import --claude-settings` runs) and a sample of the real commands of
//! `../shared/corpus-real/commands/*.jsonl` is decided under the policy it compiles to.
//!
//! Under the Claude meaning (what `import` writes) no call is denied or asked unless one of the
//! list's own `deny` or `ask` entries decides it: a call no entry names is left to the
//! harness's own flow (`defer`), a covered call is never answered `allow` by the hook. Under
//! `--meaning allowlist` the same import denies what its allow entries do not cover. The rates
//! are printed (run with `--nocapture`).

// The compiler suites' helpers (repository root, schema check, located entries).
#[path = "../../compiler/tests/common/mod.rs"]
mod common;

use std::sync::Arc;

use compiler::Meaning;
use engine::Decision;
use engine::reference::ReferenceEvaluator;
use integrations::import::{SettingsFile, import_claude_settings, render_yaml};
use serde_json::Value;
use test_support::shared::shared_dir;

/// Every this-many-th command of each file is decided (about 1,700 of the 34,000).
const STRIDE: usize = 20;

#[test]
fn imported_lists_deny_or_ask_only_what_their_own_entries_name() {
    let name = "imported_lists_deny_or_ask_only_what_their_own_entries_name";
    let Some(shared) = shared_dir(name) else {
        return;
    };
    let commands = sampled_commands(&shared);
    assert!(commands.len() > 1000, "{} commands", commands.len());
    let lists = test_support::shared::permission_lists(&shared.join("corpus-real"));

    // (decisions, denied, asked, denied by the default) per meaning.
    let mut claude = [0usize; 4];
    let mut allowlist = [0usize; 4];
    for list in &lists {
        let file = list.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(list).unwrap();
        let mut import = import_claude_settings(&[SettingsFile {
            name: Arc::from(file.as_str()),
            text,
            user_settings: false,
        }])
        .unwrap_or_else(|e| panic!("{file}: {e:?}"));
        assert_eq!(import.meaning, Meaning::Claude, "{file}: import's meaning");
        for (meaning, counts) in [
            (Meaning::Claude, &mut claude),
            (Meaning::Allowlist, &mut allowlist),
        ] {
            import.meaning = meaning;
            let yaml = render_yaml(&import, "x");
            assert!(
                yaml.contains(&format!("meaning: {}", meaning.as_str())),
                "{file}: the profile says its meaning"
            );
            let profile = compiler::load_profile_str(&yaml, format!("{file}.yaml").into(), "x")
                .unwrap_or_else(|e| panic!("{file}: {e}"));
            let compiled =
                compiler::compile_profile(&profile).unwrap_or_else(|e| panic!("{file}: {e}"));
            let policy = &compiled.policy;
            let expected_default = if meaning == Meaning::Allowlist && !import.allow.is_empty() {
                Decision::Deny
            } else {
                Decision::Defer
            };
            assert_eq!(
                policy.default_decision, expected_default,
                "{file} {meaning:?}"
            );
            let evaluator = ReferenceEvaluator::new(policy).unwrap();
            for command in &commands {
                let input = serde_json::json!({ "command": command });
                let outcome = evaluator.decide(engine::Call::pre_tool_use(
                    "Bash",
                    &input,
                    Default::default(),
                ));
                counts[0] += 1;
                match outcome.decision {
                    Decision::Deny => counts[1] += 1,
                    Decision::Ask => counts[2] += 1,
                    _ => continue,
                }
                let rule = outcome.deciding_rule.as_deref().unwrap_or("");
                let unreadable = rule.is_empty()
                    && outcome.decision == Decision::Ask
                    && outcome
                        .reason
                        .starts_with("The guard cannot read what this command runs: ");
                if rule.is_empty() && !unreadable {
                    counts[3] += 1;
                }
                if meaning == Meaning::Claude {
                    only_own_entries(&file, &import, command, &outcome, unreadable);
                }
            }
        }
    }
    let rate = |n: usize, of: usize| 100.0 * n as f64 / of.max(1) as f64;
    println!(
        "imported lists: {} lists x {} commands. Claude meaning: {} denied ({:.2}%), {} asked \
         ({:.2}%), every one by the list's own deny/ask entry, {} by the default. Strict \
         allowlist: {} denied ({:.2}%, {} by the default), {} asked ({:.2}%)",
        lists.len(),
        commands.len(),
        claude[1],
        rate(claude[1], claude[0]),
        claude[2],
        rate(claude[2], claude[0]),
        claude[3],
        allowlist[1],
        rate(allowlist[1], allowlist[0]),
        allowlist[3],
        allowlist[2],
        rate(allowlist[2], allowlist[0]),
    );
    assert_eq!(
        claude[3], 0,
        "no call is denied by a default under the Claude meaning"
    );
    assert!(
        allowlist[3] > claude[1],
        "the strict allowlist denies unlisted calls: {} by the default",
        allowlist[3]
    );
}

/// The commands decided: every `STRIDE`-th of the real command files.
fn sampled_commands(shared: &std::path::Path) -> Vec<String> {
    let mut commands = Vec::new();
    for file in ["nl2bash.jsonl", "tldr-examples.jsonl"] {
        let path = shared.join("corpus-real/commands").join(file);
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for (i, line) in text.lines().enumerate().filter(|(i, _)| i % STRIDE == 0) {
            let record: Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), i + 1));
            let command = record["command"]
                .as_str()
                .unwrap_or_else(|| panic!("{}:{}: no `command`", path.display(), i + 1));
            commands.push(command.to_string());
        }
    }
    commands
}

/// Under the Claude meaning only the list's own deny and ask entries deny or ask `command`
/// (an unreadable command asks by the entry governing the shell).
fn only_own_entries(
    file: &str,
    import: &integrations::import::Import,
    command: &str,
    outcome: &engine::Outcome,
    unreadable: bool,
) {
    let rule = outcome.deciding_rule.as_deref().unwrap_or("");
    if unreadable {
        // A command running text the guard cannot read is at least ask when one of
        // the list's own deny or ask entries governs the shell (issue 26): that
        // entry, named in the reason, is what asks.
        let governing = outcome
            .reason
            .strip_prefix("The guard cannot read what this command runs: ")
            .and_then(|r| r.split("Rule `").nth(1))
            .and_then(|r| r.split('`').next())
            .unwrap_or("");
        let own = |list: &str, entries: &[integrations::import::ImportedEntry]| {
            governing
                .strip_prefix(&format!("tool_policy.{list}:"))
                .map(|e| e.split(" #").next().unwrap_or(e))
                .is_some_and(|e| entries.iter().any(|x| x.entry == e))
        };
        assert!(
            outcome.decision == Decision::Ask
                && (own("deny", &import.deny) || own("ask", &import.ask)),
            "{file}: `{command}` is {} with no deciding rule ({}), not by one of the \
             list's own entries",
            outcome.decision,
            outcome.reason
        );
        return;
    }
    // Only the list's own deny and ask entries deny or ask.
    let list_name = if outcome.decision == Decision::Deny {
        "deny"
    } else {
        "ask"
    };
    let entries = if outcome.decision == Decision::Deny {
        &import.deny
    } else {
        &import.ask
    };
    let entry = rule
        .strip_prefix(&format!("tool_policy.{list_name}:"))
        .map(|e| e.split(" #").next().unwrap_or(e));
    assert!(
        entry.is_some_and(|e| entries.iter().any(|x| x.entry == e)),
        "{file}: `{command}` is {} by `{rule}`, not by one of the list's own \
         {list_name} entries",
        outcome.decision
    );
}
