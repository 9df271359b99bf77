//! Rule-set generators shared by the benchmarks.
//!
//! Every generator is deterministic (a fixed-seed xorshift), so a number in `BENCHMARKS.md`
//! can be reproduced exactly. Shapes:
//!
//! - [`word_pair_policy`]: `Bash(*word1 word2*)` with random word pairs from the real
//!   `nl2bash` commands — the measurement in issue 3 and `DESIGN.md`, the worst case for
//!   prefix sharing.
//! - [`real_list_policy`]: the entries of the real permission lists in
//!   `corpus-real/permission-lists/`, cycled and varied with real words to reach the size
//!   (`Bash(git status:*)`, `Bash(npm run * --watch)`, `mcp__github`, …).
//! - [`author_policy`]: author-style field matchers in the spirit of the rule packs
//!   (`(?i)`, classes, alternations, `\s+`, ASCII word boundaries).
//! - [`adversarial_policy`]: `a.*b.*c` and `x[^;]*y` families over real words, the shapes that
//!   explode a naive multi-pattern DFA.
//!
//! Without `../shared` (a checkout with no corpus) synthetic words and entries stand in, and
//! [`corpus_available`] says so.

#![forbid(unsafe_code)]

use std::path::PathBuf;

use engine::{Decision, HookPolicy, HookPolicyRule, InputMatcher};

/// `../shared` beside the repository.
pub fn shared_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared")
}

/// Is the real corpus there?
pub fn corpus_available() -> bool {
    shared_dir().join("corpus-real").is_dir()
}

/// A tiny deterministic generator (xorshift64*).
pub struct Rng(u64);

impl Rng {
    /// A generator from a fixed seed.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    /// The next number below `bound` (`bound > 0`).
    pub fn below(&mut self, bound: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % bound
    }

    /// A random element of `items`.
    pub fn pick<'a>(&mut self, items: &'a [String]) -> &'a str {
        &items[self.below(items.len())]
    }

    /// One of `items`, escaped for a regex.
    pub fn pick_escaped(&mut self, items: &[String]) -> String {
        regex_escape(self.pick(items))
    }
}

/// Real command lines (`nl2bash`), or synthetic ones.
pub fn commands() -> Vec<String> {
    let path = shared_dir().join("corpus-real/commands/nl2bash.jsonl");
    match std::fs::read_to_string(path) {
        Ok(text) => text
            .lines()
            .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
            .filter_map(|v| v["command"].as_str().map(String::from))
            .collect(),
        Err(_) => (0..2000)
            .map(|i| {
                format!(
                    "find . -name w{i} -type f -exec grep -l w{} {{}} \\;",
                    i * 7
                )
            })
            .collect(),
    }
}

/// Distinct plain words of the real commands (letters, digits, `-_.`, 3–12 bytes).
pub fn words() -> Vec<String> {
    let mut words: Vec<String> = commands()
        .iter()
        .flat_map(|c| c.split_whitespace().map(String::from).collect::<Vec<_>>())
        .filter(|w| {
            (3..=12).contains(&w.len())
                && w.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        })
        .collect();
    words.sort();
    words.dedup();
    words
}

/// A command of about `len` bytes made of real words, matching no generated rule on purpose
/// (the common case: most calls hit nothing).
pub fn command_of_len(len: usize, seed: u64) -> String {
    let words = words();
    let mut rng = Rng::new(seed);
    let mut out = String::from("find . -type f");
    while out.len() < len {
        out.push(' ');
        out.push_str(rng.pick(&words));
    }
    out.truncate(len);
    out
}

fn rule(
    id: String,
    tools: &[&str],
    input_matchers: Vec<InputMatcher>,
    decision: Decision,
) -> HookPolicyRule {
    HookPolicyRule {
        reason: format!("bench rule {id}"),
        id,
        events: vec![],
        tools: tools.iter().map(|t| t.to_string()).collect(),
        input_matchers,
        decision,
    }
}

/// A `Bash` rule `id` denying what matches every regex of `regexes` (one matcher on `command`
/// each, the spec's form).
fn bash_deny(id: String, regexes: &[String]) -> HookPolicyRule {
    let matchers = regexes
        .iter()
        .map(|regex| InputMatcher::regex("command", regex.clone()))
        .collect();
    rule(id, &["Bash"], matchers, Decision::Deny)
}

fn policy(default_decision: Decision, rules: Vec<HookPolicyRule>) -> HookPolicy {
    HookPolicy {
        version: 1,
        default_decision,
        rules,
    }
}

/// `n` deny rules `Bash(*word1 word2*)` lowered as the compiler does (a segment pattern).
pub fn word_pair_policy(n: usize) -> HookPolicy {
    let words = words();
    let mut rng = Rng::new(0x5eed_0001);
    let rules = (0..n)
        .map(|i| {
            let entry = format!("Bash(*{} {}*)", rng.pick(&words), rng.pick(&words));
            let lowered = compiler::tool_policy::lower_entry(&entry, Decision::Deny)
                .expect("a word-pair entry lowers");
            rule(
                format!("pair-{i}"),
                &["Bash"],
                lowered.parts[0].input_matchers.clone(),
                Decision::Deny,
            )
        })
        .collect();
    policy(Decision::Defer, rules)
}

/// The real permission-list entries that lower, in a stable order.
pub fn real_entries() -> Vec<String> {
    let mut entries = std::collections::BTreeSet::new();
    if let Ok(dir) = std::fs::read_dir(shared_dir().join("corpus-real/permission-lists")) {
        for file in dir.flatten() {
            let Ok(text) = std::fs::read_to_string(file.path()) else {
                continue;
            };
            let Ok(list) = serde_json::from_str::<serde_json::Value>(&text) else {
                continue;
            };
            for key in ["allow", "deny"] {
                for entry in list["permissions"][key].as_array().into_iter().flatten() {
                    if let Some(entry) = entry.as_str() {
                        entries.insert(entry.to_string());
                    }
                }
            }
        }
    }
    let mut entries: Vec<String> = entries
        .into_iter()
        .filter(|e| e.len() <= 120 && compiler::tool_policy::lower_entry(e, Decision::Deny).is_ok())
        .collect();
    if entries.is_empty() {
        entries = [
            "Bash(git status:*)",
            "Bash(npm run test:*)",
            "Bash(* --force*)",
            "Read",
            "mcp__github",
        ]
        .map(String::from)
        .to_vec();
    }
    entries
}

/// `n` rules from real permission-list entries: the first pass uses them as they are, later
/// passes insert a real word before the closing parenthesis (or vary the MCP server name) so
/// every rule is distinct. Entries alternate between deny and allow; the default is deny (an
/// allowlist), as in a real profile.
pub fn real_list_policy(n: usize) -> HookPolicy {
    let entries = real_entries();
    let words = words();
    let mut rng = Rng::new(0x5eed_0002);
    let mut seen = std::collections::HashSet::new();
    let mut rules = Vec::with_capacity(n);
    let mut i = 0;
    while rules.len() < n {
        let base = &entries[i % entries.len()];
        let entry = if i < entries.len() {
            base.clone()
        } else if let Some(inner) = base.strip_suffix(":*)") {
            format!("{inner} {}:*)", rng.pick(&words))
        } else if let Some(inner) = base.strip_suffix(')') {
            format!("{inner} {})", rng.pick(&words))
        } else {
            format!("mcp__{}_{i}", rng.pick(&words).replace(['.', '-'], "_"))
        };
        i += 1;
        if !seen.insert(entry.clone()) {
            continue;
        }
        let decision = if rules.len() % 2 == 0 {
            Decision::Deny
        } else {
            Decision::Allow
        };
        let Ok(lowered) = compiler::tool_policy::lower_entry(&entry, decision) else {
            continue;
        };
        let reason = match decision {
            Decision::Deny => format!("Denied by tool_policy.deny entry `{entry}`."),
            _ => format!(
                "Covered by tool_policy.allow entry `{entry}`; the grant is left to the \
                 harness's own permission rules, which carry the same entries."
            ),
        };
        // Ids and reasons exactly as `compiler::compile_tool_policy` writes them.
        for (part_index, part) in lowered.parts.into_iter().enumerate() {
            if rules.len() == n {
                break;
            }
            let tools: Vec<&str> = part.tools.iter().map(String::as_str).collect();
            let id = if part_index == 0 {
                format!("tool_policy.{decision}:{entry}")
            } else {
                format!("tool_policy.{decision}:{entry} #{}", part_index + 1)
            };
            let mut kernel_rule = rule(id, &tools, part.input_matchers, decision);
            kernel_rule.reason = reason.clone();
            rules.push(kernel_rule);
        }
    }
    policy(Decision::Deny, rules)
}

/// `n` author-style rules: case-insensitive words, alternations, classes, `\s+`, ASCII word
/// boundaries, two matchers on some rules.
pub fn author_policy(n: usize) -> HookPolicy {
    bash_policy(n, 0x5eed_0003, "author", |i, pick| {
        let (a, b) = (pick(), pick());
        match i % 5 {
            0 => vec![format!(r"(?-u:\b){a}\s+(-[a-z]*f|--force)")],
            1 => vec![format!(r"^(sudo\s+)?{a}(?:\s|$)")],
            2 => vec![format!(r"(?i){a}")],
            3 => vec![format!("{a}|{b}"), format!(r"--[a-z]+={b}")],
            _ => vec![format!(r"{a}\s+[0-9]{{2,4}}")],
        }
    })
}

/// `n` adversarial rules, alternating `w1.*w2.*w3` and `w1[^;]*w2`.
pub fn adversarial_policy(n: usize) -> HookPolicy {
    bash_policy(n, 0x5eed_0004, "adversarial", |i, pick| {
        let (a, b, c) = (pick(), pick(), pick());
        if i % 2 == 0 {
            vec![format!("{a}.*{b}.*{c}")]
        } else {
            vec![format!("{a}[^;]*{b}")]
        }
    })
}

/// `n` `Bash` deny rules `<name>-<i>` (calls nothing matches are deferred): rule `i` matches
/// the regexes `regexes(i, pick)` makes of escaped words `pick` draws (the draws are seeded
/// with `seed`, so the policy is the same every run).
fn bash_policy(
    n: usize,
    seed: u64,
    name: &str,
    mut regexes: impl FnMut(usize, &mut dyn FnMut() -> String) -> Vec<String>,
) -> HookPolicy {
    let words = words();
    let mut rng = Rng::new(seed);
    let rules = (0..n)
        .map(|i| {
            let mut pick = || rng.pick_escaped(&words);
            bash_deny(format!("{name}-{i}"), &regexes(i, &mut pick))
        })
        .collect();
    policy(Decision::Defer, rules)
}

/// Escape regex metacharacters.
pub fn regex_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The policy's JSON and its compiled sidecar.
pub fn compile(policy: &HookPolicy) -> (String, Vec<u8>) {
    let json = policy.to_json();
    let sidecar =
        compiler::lower::build_sidecar(policy, json.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    (json, sidecar)
}

/// Decide a `PreToolUse` Bash call of the command in `input` made in `places`, as a fresh call:
/// the parse the last call remembered is forgotten first ([`engine::shell::forget_shared`]),
/// so a benchmark deciding one command again and again measures what an emit does once. As
/// in an emit, the decision runs inside one fresh file-system memo for the call
/// ([`engine::paths::one_memo_for`]): the path texts' bases and words share its `lstat`s.
pub fn decide_bash_fresh(
    compiled: &engine::CompiledPolicy,
    input: &serde_json::Value,
    places: engine::Places<'_>,
) -> engine::Outcome {
    engine::shell::forget_shared();
    engine::paths::one_memo_for(|| {
        compiled.decide(engine::Call::pre_tool_use("Bash", input, places))
    })
}

/// The fastest of `rounds` rounds of `calls` calls of `f`, in µs a call: the steady figure
/// the `--example` timers print (a slow round is the VM's noise, not the code's).
pub fn fastest_per_call(rounds: usize, calls: usize, f: &mut dyn FnMut()) -> f64 {
    let mut fastest = f64::MAX;
    for _ in 0..rounds {
        let start = std::time::Instant::now();
        for _ in 0..calls {
            f();
        }
        fastest = fastest.min(start.elapsed().as_secs_f64() * 1e6 / calls as f64);
    }
    fastest
}

/// The ~200-byte command the parser comparison used (`BENCHMARKS.md`), decided by the shell
/// bench and `--example decide_packs`.
pub const REALISTIC: &str = "git status && cd /tmp/build && make -j4 2>&1 | tee build.log; \
echo \"done $(date +%s)\" > /tmp/status.txt && ls -la | grep foo && FOO=bar npm run test -- \
--watch=false 2>/dev/null || echo 'tests failed'";

/// The policy of a profile enabling `packs` (a YAML list, e.g.
/// [`compiler::packs::every_pack_list`]) and nothing else.
pub fn packs_policy(packs: &str) -> HookPolicy {
    packs_compiled(packs).policy
}

/// [`packs_policy`] with what the compiler knows of it (to write it as `compile` does).
pub fn packs_compiled(packs: &str) -> compiler::Compiled {
    let profile = compiler::load_profile_str(
        &format!("agents:\n  all:\n    packs: {packs}\n"),
        "all-packs.yaml".into(),
        "all",
    )
    .expect("the pack list loads");
    compiler::compile_profile(&profile).expect("the packs compile")
}
