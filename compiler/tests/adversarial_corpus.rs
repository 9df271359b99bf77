//! The shared adversarial corpus (`../shared/corpus-real/adversarial/bypass-cases.jsonl`):
//! 133 known permission-matching bypasses and over-matches from public issue threads, each with
//! the rules it was reported under and the decision a correct engine returns. Each case is
//! compiled as a profile's `tool_policy` and decided by the automaton engine (checked against
//! the reference evaluator).
//!
//! - **Never looser:** no case expecting `ask` or `deny` may come back `allow` (covered).
//! - A case expecting `ask` is met by `ask` or by `deny` (an uncovered call under an allowlist
//!   gets the default, deny: stricter than Claude's prompt, which a headless run denies too).
//! - `no-match` means none of the case's rules may fire; a deny that fires anyway is counted
//!   as stricter (a deny may be more generous than Claude), not as a miss.
//! - An `ask` expected under a policy without allow entries is met by `defer`: the hook
//!   abstains and Claude's own permission flow, holding the same entries, prompts.
//! - An `allow` expected and a deny returned (a segment Claude's reporter expected covered that
//!   we do not cover: an assignment prefix of an unknown variable) is stricter, not a miss.
//! - The cases with no rules (class `pack`, one `windows`) carry no rules: they are expectations for built-in protection
//!   packs (a later issue), counted apart.
//! - Cases whose rules use an argument form not modelled yet (`Read(…)`, `WebFetch(domain:…)`)
//!   cannot compile; they are counted apart, and listed.

mod common;

use compiler::profile::ToolPolicy;
use engine::reference::ReferenceEvaluator;
use engine::{Call, Decision};
use serde_json::Value;
use test_support::shared::shared_dir;

fn located(list: &Value) -> Vec<compiler::profile::Located<String>> {
    let entries: Vec<&str> = list
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    common::located(&entries)
}

#[test]
fn the_adversarial_corpus_is_met() {
    let Some(shared) = shared_dir("the_adversarial_corpus_is_met") else {
        return;
    };
    let text =
        std::fs::read_to_string(shared.join("corpus-real/adversarial/bypass-cases.jsonl")).unwrap();
    let (mut met, mut looser, mut misses, mut unmodelled) = (0, Vec::new(), Vec::new(), Vec::new());
    let (mut stricter, mut packs) = (Vec::new(), Vec::new());
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).unwrap();
        let id = case["id"].as_str().unwrap();
        let rules = &case["rules"];
        let tool_policy = ToolPolicy {
            allow: located(&rules["allow"]),
            deny: located(&rules["deny"]),
            ask: located(&rules["ask"]),
            ..ToolPolicy::default()
        };
        let (policy, compiled) = match common::compile_entries(&tool_policy) {
            Ok(compiled) => compiled,
            Err(e) => {
                unmodelled.push(format!("{id}: {e}"));
                continue;
            }
        };
        // Where the call happens: the case's `cwd` when it names one, and the home of the
        // user its paths belong to (`/home/<user>`, the corpus's convention).
        let cwd = case["cwd"].as_str();
        let home = home_of(
            cwd.into_iter().chain(
                case["tool_input"]
                    .as_object()
                    .into_iter()
                    .flat_map(|o| o.values().filter_map(|v| v.as_str())),
            ),
        );
        let call = Call {
            event: "PreToolUse",
            tool_name: case["tool_name"].as_str().unwrap(),
            tool_input: &case["tool_input"],
            places: engine::Places {
                cwd,
                home: Some(home.as_deref().unwrap_or("/home/user")),
                project_root: cwd,
            },
        };
        let outcome = compiled.decide(call);
        assert_eq!(
            outcome,
            ReferenceEvaluator::new(&policy).unwrap().decide(call),
            "{id}: the engines disagree"
        );
        let expected = case["expected"].as_str().unwrap();
        let ok = match expected {
            "deny" => outcome.decision == Decision::Deny,
            "ask" => {
                matches!(outcome.decision, Decision::Ask | Decision::Deny)
                    || (outcome.decision == Decision::Defer && tool_policy.allow.is_empty())
            }
            // Not blocked: granted, or (no allow entries) left to claude.
            "allow" => {
                outcome.decision == Decision::Allow
                    || (outcome.decision == Decision::Defer && tool_policy.allow.is_empty())
            }
            "no-match" => outcome.matched.is_empty(),
            other => panic!("{id}: unknown expectation {other}"),
        };
        let is_stricter =
            !ok && outcome.decision == Decision::Deny && matches!(expected, "no-match" | "allow");
        let summary = format!(
            "{id} ({}): expected {expected}, got {} by {:?} for {}",
            case["class"].as_str().unwrap_or(""),
            outcome.decision,
            outcome.deciding_rule,
            case["tool_input"]
        );
        if ok {
            met += 1;
        } else if is_stricter {
            stricter.push(summary);
        } else if case["rules"].as_object().is_none_or(|r| r.is_empty()) {
            packs.push(summary);
        } else if outcome.decision == Decision::Allow && matches!(expected, "ask" | "deny") {
            looser.push(summary);
        } else {
            misses.push(summary);
        }
    }
    println!(
        "adversarial corpus: {met} met, {} stricter, {} allowed where ask/deny is expected, \
         {} missed, {} pack cases unmet (no rules given), {} not compilable yet",
        stricter.len(),
        looser.len(),
        misses.len(),
        packs.len(),
        unmodelled.len()
    );
    for (what, lines) in [
        ("stricter", &stricter),
        ("missed", &misses),
        ("pack", &packs),
        ("not compilable", &unmodelled),
    ] {
        for line in lines {
            println!("  {what}: {}", line.lines().next().unwrap_or(""));
        }
    }
    assert!(
        looser.is_empty(),
        "allowed where ask or deny is expected: {looser:#?}"
    );
    assert!(misses.len() <= 5, "{} misses: {misses:#?}", misses.len());
}

/// The home directory `/home/<user>` the first of `paths` under `/home/` lies in.
fn home_of<'a>(paths: impl Iterator<Item = &'a str>) -> Option<String> {
    paths
        .filter_map(|p| p.strip_prefix("/home/"))
        .filter_map(|rest| rest.split('/').next())
        .find(|user| !user.is_empty())
        .map(|user| format!("/home/{user}"))
}
