//! The law of the automaton engine: for every policy and every call it gives exactly the
//! outcome of the reference evaluator — same decision, same reason, same deciding rule, same
//! matched-rule set. Proptest generates policies (tool globs, field regexes with literals,
//! alternations, classes, anchors, `.*` chains, case-insensitivity) and calls over a small
//! alphabet so that rules actually fire.

use engine::reference::ReferenceEvaluator;
use engine::{Call, CompiledPolicy, Decision, HookPolicy, HookPolicyRule, InputMatcher};
use proptest::prelude::*;
use serde_json::{Value, json};
use test_support::assert_has;

/// Compile `policy` both ways and compare them on every call.
fn assert_agree(
    policy: &HookPolicy,
    calls: &[(String, String, Value)],
) -> Result<(), TestCaseError> {
    let json = policy.to_json();
    let sidecar = compiler::lower::build_sidecar(policy, json.as_bytes())
        .map_err(|e| TestCaseError::fail(format!("lowering failed: {e}")))?;
    assert_agree_with(policy, &sidecar, calls)
}

/// Compare the reference evaluator with the given sidecar of `policy` on every call.
fn assert_agree_with(
    policy: &HookPolicy,
    sidecar: &[u8],
    calls: &[(String, String, Value)],
) -> Result<(), TestCaseError> {
    let json = policy.to_json();
    let compiled = CompiledPolicy::from_bytes(sidecar, json.as_bytes())
        .map_err(|e| TestCaseError::fail(format!("loading failed: {e}")))?;
    let reference = ReferenceEvaluator::new(policy).expect("generated regexes compile");
    for (event, tool, input) in calls {
        let call = Call {
            event,
            tool_name: tool,
            tool_input: input,
            places: Default::default(),
        };
        let expected = reference.decide(call);
        let actual = compiled.decide(call);
        prop_assert_eq!(
            &actual,
            &expected,
            "event {} tool {} input {}",
            event,
            tool,
            input
        );
    }
    Ok(())
}

const WORDS: &[&str] = &[
    "rm", "-rf", "git", "push", "--force", "ls", "a", "b", "prod", "é",
];
const SEPARATORS: &[&str] = &[" ", " ", ";", "\n", "", " \\\n", "|"];

fn word() -> impl Strategy<Value = &'static str> {
    proptest::sample::select(WORDS)
}

/// A regex atom over the same alphabet as the inputs.
fn atom() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => word().prop_map(regex_syntax::escape),
        2 => Just(".*".to_string()),
        1 => Just("[^;]*".to_string()),
        1 => Just(r"\s".to_string()),
        1 => Just(" ".to_string()),
        1 => Just("[a-c]+".to_string()),
        1 => Just(".".to_string()),
        1 => Just("^".to_string()),
        1 => Just("$".to_string()),
        1 => Just(r"(?-u:\b)".to_string()),
        1 => Just(r"(?:\s.*)?$".to_string()),
        1 => Just(r"(?:\s|$)".to_string()),
        1 => Just("(?m:^)".to_string()),
        1 => (word(), word()).prop_map(|(a, b)| format!("(?:{}|{})", regex_syntax::escape(a), regex_syntax::escape(b))),
        1 => word().prop_map(|w| format!("(?i:{})", regex_syntax::escape(w))),
        1 => word().prop_map(|w| format!("(?:{})+", regex_syntax::escape(w))),
    ]
}

fn regex() -> impl Strategy<Value = String> {
    fn concat() -> impl Strategy<Value = String> {
        proptest::collection::vec(atom(), 0..5).prop_map(|atoms| atoms.concat())
    }
    prop_oneof![
        4 => concat(),
        1 => (concat(), concat()).prop_map(|(a, b)| format!("{a}|{b}")),
        2 => literal_chain(),
    ]
}

/// `P1.*P2(.*Pn)*`, optionally ending at a word end or at the end of the text: a literal chain
/// (one piece and `$`: a literal at the end). Pieces are one or two
/// words (short ones like `a` are not indexed for presence, longer ones are; pieces repeat
/// within and across chains), so chains share pieces and the piece the compiler indexes
/// varies.
fn literal_chain() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        2 => word().prop_map(String::from),
        1 => (word(), proptest::sample::select(SEPARATORS), word())
            .prop_map(|(a, s, b)| format!("{a}{s}{b}")),
    ];
    (
        proptest::collection::vec(piece, 1..5),
        any::<bool>(),
        0..3usize,
    )
        .prop_map(|(pieces, leading, end)| {
            let pieces: Vec<String> = pieces.iter().map(|p| regex_syntax::escape(p)).collect();
            // Ends: none, a word end, or the end of the text (segment patterns: `P$`,
            // `a.*b$`, which lower to literal matchers without automata).
            format!(
                "{}{}{}",
                if leading { ".*" } else { "" },
                pieces.join(".*"),
                [r"", r"(?:\s.*)?$", "$"][end]
            )
        })
}

const GLOBS: &[&str] = &[
    "Bash",
    "*",
    "mcp__github__*",
    "*Edit",
    "Re*d",
    "B*h*",
    "mcp__*__create*",
    "bash",
    // Nested prefix globs (`P*`) with non-prefix entries sorting between them.
    "B*",
    "Bas*",
    "Bash*",
    "BaZ*",
    "Bat*",
    "mcp__*",
    "mcp__github__create_issue*",
];
const TOOLS: &[&str] = &[
    "Bash",
    "Read",
    "Edit",
    "NotebookEdit",
    "mcp__github__create_issue",
    "bash",
    "Bas",
    "Ba",
    "Bashful",
    "B",
];
const FIELDS: &[&str] = &["command", "file_path", "a.b"];
const EVENTS: &[&str] = &["PreToolUse", "PermissionRequest"];

fn rule() -> impl Strategy<Value = (Vec<String>, Vec<String>, Vec<InputMatcher>, Decision)> {
    (
        proptest::sample::subsequence(EVENTS, 0..=2),
        proptest::sample::subsequence(GLOBS, 0..=2),
        proptest::collection::vec(
            (proptest::sample::select(FIELDS), regex())
                .prop_map(|(field, regex)| InputMatcher::regex(field, regex)),
            0..3,
        ),
        proptest::sample::select(&Decision::ALL[..]),
    )
        .prop_map(|(events, tools, matchers, decision)| {
            (
                events.into_iter().map(String::from).collect(),
                tools.into_iter().map(String::from).collect(),
                matchers,
                decision,
            )
        })
}

fn policy() -> impl Strategy<Value = HookPolicy> {
    (
        proptest::sample::select(&Decision::ALL[..]),
        proptest::collection::vec(rule(), 0..12),
    )
        .prop_map(|(default_decision, rules)| HookPolicy {
            version: 1,
            default_decision,
            rules: rules
                .into_iter()
                .enumerate()
                .map(
                    |(i, (events, tools, input_matchers, decision))| HookPolicyRule {
                        id: format!("rule-{i}"),
                        events,
                        tools,
                        input_matchers,
                        decision,
                        reason: format!("reason {i}"),
                    },
                )
                .collect(),
        })
}

fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec((word(), proptest::sample::select(SEPARATORS)), 0..7)
        .prop_map(|parts| parts.into_iter().map(|(w, s)| format!("{w}{s}")).collect())
}

fn tool_input() -> impl Strategy<Value = Value> {
    prop_oneof![
        4 => text().prop_map(|t| json!({ "command": t })),
        1 => (text(), text()).prop_map(|(a, b)| json!({ "command": [a, 7, b] })),
        1 => text().prop_map(|t| json!({ "file_path": t, "command": null })),
        1 => (text(), text()).prop_map(|(a, b)| json!({ "a": { "b": a }, "command": b })),
        1 => Just(json!({ "command": 12, "file_path": true })),
        1 => Just(json!({})),
    ]
}

fn call() -> impl Strategy<Value = (String, String, Value)> {
    (
        proptest::sample::select(&["PreToolUse", "PermissionRequest", "PostToolUse"][..]),
        proptest::sample::select(TOOLS),
        tool_input(),
    )
        .prop_map(|(e, t, i)| (e.to_string(), t.to_string(), i))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn automaton_agrees_with_reference(policy in policy(), calls in proptest::collection::vec(call(), 1..16)) {
        assert_agree(&policy, &calls)?;
    }
}

fn bash(command: &str) -> (String, String, Value) {
    (
        "PreToolUse".into(),
        "Bash".into(),
        json!({ "command": command }),
    )
}

fn single_rule_policy(regex: &str) -> HookPolicy {
    HookPolicy {
        version: 1,
        default_decision: Decision::Defer,
        rules: vec![HookPolicyRule {
            id: "r".into(),
            events: vec![],
            tools: vec!["Bash".into()],
            input_matchers: vec![InputMatcher::regex("command", regex)],
            decision: Decision::Deny,
            reason: "no".into(),
        }],
    }
}

#[test]
fn dot_crosses_a_line_continuation() {
    let policy = single_rule_policy("deploy .*--env(=| )prod");
    let calls = [
        bash("deploy \\\n  --env prod"),
        bash("deploy --env=prod"),
        bash("deploy\n--env prod"),
    ];
    assert_agree(&policy, &calls).unwrap();
    let json = policy.to_json();
    let sidecar = compiler::lower::build_sidecar(&policy, json.as_bytes()).unwrap();
    let compiled = CompiledPolicy::from_bytes(&sidecar, json.as_bytes()).unwrap();
    let (event, tool, input) = &calls[0];
    let out = compiled.decide(Call {
        event,
        tool_name: tool,
        tool_input: input,
        places: Default::default(),
    });
    assert_eq!(out.decision, Decision::Deny);
    assert_eq!(out.matched, ["r"]);
}

/// `policy` lowered, holding an automaton of the anchored fallback (the test's premise).
fn lowered_with_the_anchored_fallback(policy: &HookPolicy) -> engine::sidecar::SidecarImage {
    let image =
        compiler::lower::lower_policy(policy, &compiler::lower::Budgets::default()).unwrap();
    let kinds: Vec<_> = image.automata.iter().map(|a| (a.search, a.form)).collect();
    assert!(
        kinds
            .iter()
            .any(|(search, _)| *search == engine::sidecar::SearchKind::AnchoredAtEachPosition),
        "expected the anchored fallback, got {kinds:?}"
    );
    image
}

#[test]
fn a_pattern_too_big_unanchored_takes_the_anchored_fallback() {
    // `[ab]a[ab]{14}c` unanchored needs a state per suffix of the last 16 bytes (2^14 and more);
    // anchored it is a chain of 15 states.
    let policy = single_rule_policy("[ab]a[ab]{14}c");
    let json = policy.to_json();
    let image = lowered_with_the_anchored_fallback(&policy);
    let sidecar = image.encode(json.as_bytes()).unwrap();
    assert!(CompiledPolicy::from_bytes(&sidecar, json.as_bytes()).is_ok());
    assert_agree(
        &policy,
        &[
            bash("xx abababababababac"),
            bash("aaaaaaaaaaaaaaac"),
            bash("abababababababab"),
            bash("c aabbabbabbabbabbc"),
        ],
    )
    .unwrap();
}

/// A pattern held at the text's start (`^…`) is searched once from there, never from every
/// position: `^[ab]a[ab]{14}c` is too big unanchored as its unanchored twin is, and the
/// fallback would run it from each of a long command's bytes.
#[test]
fn a_pattern_held_at_the_start_is_searched_from_the_start_only() {
    let policy = single_rule_policy("^[ab]a[ab]{14}c");
    let image =
        compiler::lower::lower_policy(&policy, &compiler::lower::Budgets::default()).unwrap();
    let searches: Vec<_> = image.automata.iter().map(|a| a.search).collect();
    assert_eq!(
        searches,
        [engine::sidecar::SearchKind::AnchoredAtStart],
        "{:?}",
        image.matchers
    );
    let s = format!("aa{}c", "b".repeat(14));
    let calls = [
        bash(&s),
        bash(&format!("{s} and more")),
        bash(&format!("x{s}")),
        bash(&format!("x\n{s}")),
        bash(&format!("ls; {s}")),
        bash(&format!("ls\n{s}")),
        bash(&s[1..]),
    ];
    assert_agree(&policy, &calls).unwrap();
    let json = policy.to_json();
    let sidecar = image.encode(json.as_bytes()).unwrap();
    let compiled = CompiledPolicy::from_bytes(&sidecar, json.as_bytes()).unwrap();
    let decisions: Vec<_> = calls
        .iter()
        .map(|(event, tool, input)| {
            compiled
                .decide(engine::Call {
                    event,
                    tool_name: tool,
                    tool_input: input,
                    places: engine::Places::default(),
                })
                .decision
        })
        .collect();
    // A regex on the command's raw text: `^` is its start, not a segment's or a line's.
    use Decision::{Defer, Deny};
    assert_eq!(decisions, [Deny, Deny, Defer, Defer, Defer, Defer, Defer]);
}

/// A confirmed pattern held at the text's start whose matches start with known literals
/// (`^(rm|git)( [^ ]+)* --force`) is confirmed only on a text that starts with one of them
/// (format 9): its literal (` --force`) elsewhere, or the prefix anywhere but at the start,
/// decides nothing, and every outcome is the reference's.
#[test]
fn a_pattern_confirmed_at_the_start_agrees_where_its_prefix_is_and_is_not() {
    use engine::sidecar::MatcherKind;
    for regex in [
        r"^(rm|git)( [^ ]+)* --force",
        r"(^rm|^git push)( [a-z]+)* --force( |$)",
        r"^rm -rf .*/",
    ] {
        let policy = single_rule_policy(regex);
        let image =
            compiler::lower::lower_policy(&policy, &compiler::lower::Budgets::default()).unwrap();
        let kinds: Vec<_> = image.matchers.iter().map(|m| m.kind).collect();
        assert_eq!(kinds, [MatcherKind::ConfirmedAtStart], "{regex}");
        let calls = [
            bash("rm a --force"),
            bash("git push --force"),
            bash("git push origin --force x"),
            bash("ls && rm a --force"),
            bash(" rm a --force"),
            bash("xrm a --force"),
            bash("rmdir --force"),
            bash("rm -rf a/"),
            bash("ls; rm -rf a/"),
            bash("git --force"),
            bash("--force rm"),
            bash("rm"),
            bash(""),
        ];
        assert_agree(&policy, &calls).unwrap();
    }
}

/// The anchored fallback skips a position whose first byte kills the anchored start state;
/// that start state depends on the byte before (inside a word or not), so the skip must ask
/// it with that byte: the first pattern matches only where the byte before allows, the second
/// only where the byte after (or the end) does.
#[test]
fn the_anchored_fallback_reads_the_byte_before_each_position() {
    // Seventeen bytes: `[ab]a[ab]{14}c`, the pattern without its assertion.
    let s = format!("aa{}c", "b".repeat(14));
    for (regex, matching, not_matching) in [
        (
            r"(?-u:\B)[ab]a[ab]{14}c",
            vec![format!("x{s}"), format!("_{s}"), format!("9{s}")],
            vec![format!("xx {s}"), s.clone(), format!("-{s}")],
        ),
        (
            r"[ab]a[ab]{14}c(?-u:\b)",
            vec![s.clone(), format!("{s} x")],
            vec![format!("{s}x"), format!("{s}_")],
        ),
    ] {
        let policy = single_rule_policy(regex);
        let image = lowered_with_the_anchored_fallback(&policy);
        let calls: Vec<_> = matching
            .iter()
            .chain(&not_matching)
            .map(|c| bash(c))
            .collect();
        assert_agree(&policy, &calls).unwrap();
        let json = policy.to_json();
        let sidecar = image.encode(json.as_bytes()).unwrap();
        let compiled = CompiledPolicy::from_bytes(&sidecar, json.as_bytes()).unwrap();
        for (command, expected) in matching
            .iter()
            .map(|c| (c, Decision::Deny))
            .chain(not_matching.iter().map(|c| (c, Decision::Defer)))
        {
            let (event, tool, input) = bash(command);
            let call = engine::Call {
                event: &event,
                tool_name: &tool,
                tool_input: &input,
                places: engine::Places::default(),
            };
            assert_eq!(
                compiled.decide(call).decision,
                expected,
                "{regex} on {command:?}"
            );
        }
    }
}

#[test]
fn a_pattern_too_big_even_anchored_is_a_clear_compile_error() {
    let policy = single_rule_policy("(?:a|b)*a[ab]{20}");
    let json = policy.to_json();
    let e = compiler::lower::build_sidecar(&policy, json.as_bytes()).unwrap_err();
    let message = e.to_string();
    assert_has(&message, "rule `r`, matcher on `command`");
    assert_has(&message, "too complex");
}

#[test]
fn unicode_word_boundaries_are_a_clear_compile_error() {
    let policy = single_rule_policy(r"\brm\b");
    let e = compiler::lower::build_sidecar(&policy, policy.to_json().as_bytes()).unwrap_err();
    let message = e.to_string();
    assert_has(&message, "rule `r`");
    assert_has(&message, "cannot be compiled into a DFA");
    assert_has(&message, "Unicode word boundar");
}

#[test]
fn many_patterns_with_inner_dot_stars_split_into_budgeted_automata() {
    let words = [
        "alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta",
    ];
    let mut rules = Vec::new();
    for (i, a) in words.iter().enumerate() {
        for b in &words {
            rules.push(HookPolicyRule {
                id: format!("r{i}-{b}"),
                events: vec![],
                tools: vec![],
                // No literal is required in the `(?i)` form, so all of these are scanned.
                input_matchers: vec![InputMatcher::regex("command", format!("(?i){a}.*{b}.*x"))],
                decision: Decision::Deny,
                reason: "r".into(),
            });
        }
    }
    let policy = HookPolicy {
        version: 1,
        default_decision: Decision::Allow,
        rules,
    };
    let budgets = compiler::lower::Budgets {
        group_dfa_bytes: 32 << 10,
        ..Default::default()
    };
    let image = compiler::lower::lower_policy(&policy, &budgets).unwrap();
    assert!(
        image.automata.len() > 1,
        "expected the scan group to be split"
    );
    assert!(
        image.automata.iter().all(|a| a.dfa_bytes.len() <= 64 << 10),
        "every automaton stays within its budget"
    );
    let sidecar = image.encode(policy.to_json().as_bytes()).unwrap();
    assert_agree_with(
        &policy,
        &sidecar,
        &[
            bash("ALPHA then Beta then x"),
            bash("theta eta x"),
            bash("gamma delta"),
            bash("eps zeta ETA THETA X"),
        ],
    )
    .unwrap();
}

/// A Bash rule denying the commands some word of which, read as a path, `glob` matches.
fn command_path_rule(id: &str, glob: &str) -> HookPolicyRule {
    HookPolicyRule {
        id: id.into(),
        events: vec![],
        tools: vec!["Bash".into()],
        input_matchers: vec![InputMatcher {
            field: "command".into(),
            on: engine::policy::MatchOn::CommandPath,
            pattern: glob.into(),
        }],
        decision: Decision::Deny,
        reason: format!("reads {glob}"),
    }
}

/// Path rules read every word of a shell command as a path (`MatchOn::CommandPath`): in a
/// real directory, with words that reach a protected file through a symlink, `..`, a `cd`, a
/// glob or letter case, the compiled engine (which makes only the texts behind its field's
/// tags, as it goes) decides every command as the reference evaluator does, and the cases do
/// reach protected files.
#[test]
fn command_path_rules_agree_with_the_reference_on_real_files() {
    let temp = tempfile::tempdir().unwrap();
    let dir = std::fs::canonicalize(temp.path()).unwrap();
    let home = dir.join("home");
    let project = dir.join("work/p");
    std::fs::create_dir_all(home.join(".ssh")).unwrap();
    std::fs::create_dir_all(project.join("src/deep")).unwrap();
    std::fs::create_dir_all(dir.join("keys")).unwrap();
    std::fs::write(home.join(".ssh/id_rsa"), "k").unwrap();
    std::fs::write(project.join(".env"), "x").unwrap();
    std::fs::write(dir.join("keys/server.pem"), "p").unwrap();
    let link = |target: &std::path::Path, at: &std::path::Path| {
        std::os::unix::fs::symlink(target, at).unwrap();
    };
    link(&home.join(".ssh/id_rsa"), &project.join("notes"));
    link(&project.join(".env"), &project.join("src/innocent"));
    link(&home.join(".ssh"), &project.join("src/deep/k"));
    link(&dir.join("keys/server.pem"), &project.join("cert"));
    let rule = command_path_rule;
    let globs = [
        "~/.ssh/id_rsa",
        "~/.ssh/**",
        "**/.env",
        "**/.env.*.local",
        "**/*.pem",
        "/src/secret/**",
        "//etc/shadow",
    ];
    let policy = HookPolicy {
        version: 1,
        default_decision: Decision::Defer,
        rules: globs
            .iter()
            .enumerate()
            .map(|(i, g)| rule(&format!("r{i}"), g))
            .collect(),
    };
    let image = compiler::lower::lower_policy(&policy, &Default::default()).unwrap();
    // Every glob begins with its base's tag: the field is searched by automata run from each
    // text's start (resumed from a directory's prefix), with no literal index.
    assert!(
        image.fields[0].scan_automata.iter().all(|&a| {
            image.automata[a as usize].search == engine::sidecar::SearchKind::AnchoredAtStart
        }) && !image.fields[0].scan_automata.is_empty(),
        "{:?}",
        image.fields
    );
    let sidecar = image.encode(policy.to_json().as_bytes()).unwrap();
    let json = policy.to_json();
    let compiled = CompiledPolicy::from_bytes(&sidecar, json.as_bytes()).unwrap();
    let reference = ReferenceEvaluator::new(&policy).unwrap();
    let places = engine::Places {
        cwd: project.to_str(),
        home: home.to_str(),
        project_root: project.to_str(),
    };
    let commands = [
        "cat notes",
        "cat NOTES",
        "cd src && cat innocent",
        "cat src/innocent",
        "cat src/deep/k/id_rsa",
        "cat src/deep/k/../k/id_rsa",
        "cat ../../home/.ssh/id_rsa",
        "cat ~/.SSH/ID_RSA",
        "cat cert",
        "cp notes /tmp/x; cat ../p/.env",
        "cat .E*",
        "cat .env.prod.local",
        "tee -a notes < src/innocent",
        "cat src/secret/x",
        "cat /etc/shadow",
        "git status && cd /tmp/build && make -j4 2>&1 | tee build.log",
        "cat src/main.rs README",
        "ls -la src/deep",
        // A directory a glob matches: every text behind its prefix matches there.
        "cd ~/.ssh && cat known_hosts config",
        "cd ../../home/.ssh; cat x",
        "cd src/deep/k && cat config",
        "cd src && cat ../.ENV main.rs ../.env.x.local",
    ];
    let mut denied = 0;
    for command in commands {
        let input = json!({ "command": command });
        let call = Call {
            event: "PreToolUse",
            tool_name: "Bash",
            tool_input: &input,
            places,
        };
        let expected = reference.decide(call);
        assert_eq!(compiled.decide(call), expected, "{command}");
        denied += usize::from(expected.decision == Decision::Deny);
    }
    assert!(
        denied >= 16,
        "the cases reach protected files: {denied} denied"
    );
}

/// A path rule whose glob holds the working directory itself (`Read(//…/work/**)` with the
/// call in `…/work/p`) reaches every word read below it: the match lies inside the prefix the
/// words' texts share, which the compiled engine searches once a call and resumes from, so
/// the match must be taken from the prefix, not only from each word's rest.
#[test]
fn a_glob_holding_the_working_directory_reaches_every_word_below_it() {
    let temp = tempfile::tempdir().unwrap();
    let dir = std::fs::canonicalize(temp.path()).unwrap();
    let project = dir.join("work/p");
    std::fs::create_dir_all(&project).unwrap();
    let glob = format!("/{}/work/**", dir.display());
    let rule = command_path_rule;
    let one = HookPolicy {
        version: 1,
        default_decision: Decision::Defer,
        rules: vec![rule("work", &glob)],
    };
    // Two globs share one dense automaton; one alone is a sparse one.
    let two = HookPolicy {
        rules: vec![rule("work", &glob), rule("keys", "**/*.pem")],
        ..one.clone()
    };
    for policy in [one, two] {
        decides_below_the_working_directory(&policy, &dir, &project);
    }
}

fn decides_below_the_working_directory(
    policy: &HookPolicy,
    dir: &std::path::Path,
    project: &std::path::Path,
) {
    let json = policy.to_json();
    let sidecar = compiler::lower::build_sidecar(policy, json.as_bytes()).unwrap();
    let compiled = CompiledPolicy::from_bytes(&sidecar, json.as_bytes()).unwrap();
    let reference = ReferenceEvaluator::new(policy).unwrap();
    for (cwd, command, expected) in [
        (project, "cat README", Decision::Deny),
        (project, "cat README NOTES", Decision::Deny),
        (dir, "cat README", Decision::Defer),
    ] {
        let input = json!({ "command": command });
        let call = Call {
            event: "PreToolUse",
            tool_name: "Bash",
            tool_input: &input,
            places: engine::Places {
                cwd: cwd.to_str(),
                home: None,
                project_root: cwd.to_str(),
            },
        };
        let decided = compiled.decide(call);
        assert_eq!(decided, reference.decide(call), "{command} in {cwd:?}");
        assert_eq!(decided.decision, expected, "{command} in {cwd:?}");
    }
}
