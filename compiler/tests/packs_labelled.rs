//! Every built-in pack enabled, scored on labelled destructive and safe commands nobody here
//! wrote (`../shared/corpus-real/labelled`: dcg's regression corpus and its end-to-end
//! fixtures). A destructive command is caught when it is denied or asked; a safe one is
//! flagged when it is. Every miss is printed. The rules were not written from these files.
//!
//! The bar is issue 13's, ≥ 95% caught and ≤ 3% flagged per file, raised to what is reached;
//! the printed misses are the work left.

mod common;

use engine::{Call, CompiledPolicy, Decision};

/// Per file: the least share of destructive commands caught, the most share of safe ones
/// flagged (percent).
const BARS: &[(&str, f64, f64)] = &[
    // Misses: `rm -rf ./build` (below) and `echo yes | rm -rf` (rm with no operand).
    ("dcg-corpus.jsonl", 97.0, 1.0),
    // The misses left here are cwd-scoped deletes (`rm -rf ./build`, `rm -rf src`), which the
    // fixtures label destructive and `core.filesystem` leaves alone by its documented choice.
    ("dcg-e2e-fixtures.jsonl", 95.0, 1.0),
];

#[test]
fn every_pack_on_labelled_destructive_and_safe_commands() {
    let Some(shared) = common::shared_dir("every_pack_on_labelled_destructive_and_safe_commands")
    else {
        return;
    };
    let policy = common::packs_policy(None);
    let json = policy.to_json();
    let sidecar =
        compiler::lower::build_sidecar(&policy, json.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    let automaton = CompiledPolicy::from_bytes(&sidecar, json.as_bytes()).unwrap();
    let reference = engine::reference::ReferenceEvaluator::new(&policy).unwrap();
    let mut failures = Vec::new();
    for (file, least_caught, most_flagged) in BARS {
        let text = std::fs::read_to_string(shared.join("corpus-real/labelled").join(file)).unwrap();
        let (mut destructive, mut caught, mut safe, mut flagged) = (0usize, 0usize, 0usize, 0usize);
        let mut misses = Vec::new();
        for line in text.lines() {
            let case: serde_json::Value = serde_json::from_str(line).unwrap();
            // Raw hook payloads (invalid JSON, a non-string command) test the hook, not packs.
            if case.get("input_kind").is_some() {
                continue;
            }
            let command = case["command"].as_str().unwrap();
            let input = serde_json::json!({ "command": command });
            let call = || Call {
                event: "PreToolUse",
                tool_name: "Bash",
                tool_input: &input,
                places: compiler::packs::EXAMPLE_PLACES,
            };
            let out = automaton.decide(call());
            let by_reference = reference.decide(call());
            assert_eq!(
                (out.decision, &out.deciding_rule),
                (by_reference.decision, &by_reference.deciding_rule),
                "{command:?}: the two evaluators disagree"
            );
            let stopped = matches!(out.decision, Decision::Deny | Decision::Ask);
            match case["expected"].as_str().unwrap() {
                "deny" => {
                    destructive += 1;
                    if stopped {
                        caught += 1;
                    } else {
                        misses.push(format!("  missed  {command:?}"));
                    }
                }
                // dcg labels these allow only because it has no pack for them yet
                // (`kubectl delete namespace prod`); the kubernetes pack stops them by design.
                "allow" if case["category"] == "edge_cases/future_packs" => {
                    println!(
                        "  not scored (dcg has no such pack): {command:?} -> {}",
                        out.decision
                    );
                }
                "allow" => {
                    safe += 1;
                    if stopped {
                        flagged += 1;
                        misses.push(format!(
                            "  flagged {command:?} by {}",
                            out.deciding_rule.as_deref().unwrap_or("?")
                        ));
                    }
                }
                // `no-crash` and heredoc sections labelled by a comment: decided above without
                // a panic, not scored.
                _ => {}
            }
        }
        let caught_pct = 100.0 * caught as f64 / destructive.max(1) as f64;
        let flagged_pct = 100.0 * flagged as f64 / safe.max(1) as f64;
        println!(
            "{file}: {caught}/{destructive} destructive caught ({caught_pct:.1}%), \
             {flagged}/{safe} safe flagged ({flagged_pct:.1}%)"
        );
        for miss in &misses {
            println!("{miss}");
        }
        if caught_pct < *least_caught || flagged_pct > *most_flagged {
            failures.push(format!(
                "{file}: {caught_pct:.1}% caught (bar {least_caught}%), {flagged_pct:.1}% \
                 flagged (bar {most_flagged}%)"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The `core` packs over unlabelled real commands (nl2bash and tldr one-liners) and the 1,542
/// real tool calls: how much they stop, with a sample, so over-blocking is visible. The share
/// stopped is held under the bar reached (recorded in `BENCHMARKS.md`).
#[test]
fn core_on_real_commands_and_tool_calls() {
    let Some(shared) = common::shared_dir("core_on_real_commands_and_tool_calls") else {
        return;
    };
    let policy = common::packs_policy(Some("[core]"));
    let reference = engine::reference::ReferenceEvaluator::new(&policy).unwrap();
    // (file, the most share stopped, percent)
    for (file, most) in [
        // 1.0 before issue 26: a command that runs text the guard cannot read (`… | sh` of
        // a pipeline's output, `source <(…)`, a program named by a variable) is now at least
        // an ask under the core packs, which govern the shell.
        ("commands/nl2bash.jsonl", 1.5),
        ("commands/tldr-examples.jsonl", 0.5),
        ("tool-calls/pretooluse-hook-inputs.jsonl", 0.6),
    ] {
        let text = std::fs::read_to_string(shared.join("corpus-real").join(file)).unwrap();
        let (mut total, mut stopped) = (0usize, Vec::new());
        for line in text.lines() {
            let case: serde_json::Value = serde_json::from_str(line).unwrap();
            let (tool, input) = match case.get("tool_name") {
                Some(tool) => (
                    tool.as_str().unwrap().to_string(),
                    case["tool_input"].clone(),
                ),
                None => (
                    "Bash".to_string(),
                    serde_json::json!({ "command": case["command"] }),
                ),
            };
            let cwd = case.get("cwd").and_then(|c| c.as_str());
            let out = reference.decide(Call {
                event: "PreToolUse",
                tool_name: &tool,
                tool_input: &input,
                places: engine::Places {
                    cwd: cwd.or(compiler::packs::EXAMPLE_PLACES.cwd),
                    home: compiler::packs::EXAMPLE_PLACES.home,
                    project_root: cwd.or(compiler::packs::EXAMPLE_PLACES.project_root),
                },
            });
            total += 1;
            if matches!(out.decision, Decision::Deny | Decision::Ask) {
                let shown = input
                    .get("command")
                    .or(input.get("file_path"))
                    .unwrap_or(&input);
                let shown: String = shown.to_string().chars().take(100).collect();
                stopped.push(format!(
                    "  {} {tool} {shown} by {}",
                    out.decision,
                    out.deciding_rule.unwrap_or_default()
                ));
            }
        }
        let pct = 100.0 * stopped.len() as f64 / total.max(1) as f64;
        println!(
            "{file}: core stops {} of {total} ({pct:.2}%)",
            stopped.len()
        );
        for line in stopped.iter().take(60) {
            println!("{line}");
        }
        assert!(
            pct <= most,
            "{file}: core stops {pct:.2}%, over the {most}% bar"
        );
    }
}
