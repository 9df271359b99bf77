//! The guard's built-in refusals ([`engine::guard::shell_refusal`]) against the real agent
//! commands of `../shared/corpus-real/tool-calls` (Bash calls Claude Code sent to hooks), run
//! in a scratch project whose guard places exist: ordinary work must stay allowed. Every
//! refusal is printed; the few expected ones are named, and any other fails the test.

use std::path::PathBuf;

use engine::Places;
use engine::guard::{Guard, shell_refusal};
use serde_json::Value;

#[test]
fn real_agent_commands_are_not_refused() {
    let Some(corpus) = test_support::shared::corpus_real("real_agent_commands_are_not_refused")
    else {
        return;
    };
    let scratch = test_support::scratch::Scratch::new("guard-real");
    let root = &scratch.root;
    let [project, home] = ["project", "home"].map(|d| scratch.dir(d));
    for d in ["project/.claude", "home/.claude", "run"] {
        scratch.dir(d);
    }
    let s = |p: PathBuf| p.to_str().unwrap().to_string();
    let guard = Guard {
        policy_dirs: vec![s(root.join("run"))],
        state_dirs: vec![s(root.join("state"))],
        binaries: vec!["/usr/local/lib/animus/animus-hook".into()],
    };
    let (project, home) = (s(project), s(home));
    let places = Places {
        cwd: Some(&project),
        home: Some(&home),
        project_root: Some(&project),
    };
    let text =
        std::fs::read_to_string(corpus.join("tool-calls/pretooluse-hook-inputs.jsonl")).unwrap();
    let mut total = 0;
    let mut refused = Vec::new();
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if v["tool_name"] != "Bash" {
            continue;
        }
        let Some(command) = v["tool_input"]["command"].as_str() else {
            continue;
        };
        total += 1;
        if let Some(r) = shell_refusal(command, places, &guard) {
            refused.push((format!("{command} => {}", r.reason), r.rule));
        }
    }
    for (command, rule) in &refused {
        println!("refused ({rule}): {command}");
    }
    println!("{} of {total} real Bash calls refused", refused.len());
    assert!(total > 500, "only {total} Bash calls in the corpus");
    // What is refused names a guard file (reading claude's settings through the shell) or the
    // state directory; nothing else.
    let unexpected: Vec<_> = refused
        .iter()
        .filter(|(c, _)| !(c.contains(".claude/settings") || c.contains("/.animus")))
        .collect();
    assert!(
        unexpected.is_empty(),
        "refused ordinary work: {unexpected:#?}"
    );
}
