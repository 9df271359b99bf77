//! The built-in packs scored on labelled destructive and safe commands: every pack enabled, and
//! the recommended set (`packs: [default]`) on its own.
//!
//! - `corpus/labelled/packs-classes.jsonl` (this repository): cases written per class of issue
//!   27 (git, secrets, secret managers, backups, remote sync, search, messaging, CI/CD,
//!   platforms, storage, DNS, CDN, load balancers, monitoring, payment, email, feature flags,
//!   packages, system, cloud, infrastructure, Kubernetes, containers, SQL and databases,
//!   filesystem), each naming the pack it exercises.
//! - `../shared/corpus-real/labelled` (nobody here wrote them): dcg's regression corpus and its
//!   end-to-end fixtures. The rules were not written from these files.
//!
//! A destructive command is caught when it is denied or asked; a safe one is flagged when it
//! is. Every miss is printed. `default` is held to the destructive cases of the packs it
//! enables (an opt-in pack's cases are not its job) and to every safe case.
//!
//! The bars are what is reached, so a rule change that loses a case fails here; the printed
//! misses are the work left.

mod common;

use std::collections::BTreeMap;

use engine::reference::ReferenceEvaluator;
use engine::{Call, CompiledPolicy, Decision, HookPolicy};
use test_support::shared::shared_dir;

/// One labelled command.
struct Case {
    command: String,
    destructive: bool,
    /// The pack the case exercises (ours only).
    pack: Option<String>,
    /// The class (ours) or dcg's category.
    class: String,
    /// The call's working directory, also its project root, when the case names one (a case
    /// about where a deletion lands); otherwise [`compiler::packs::EXAMPLE_PLACES`]'s.
    cwd: Option<String>,
}

fn read_cases(path: &std::path::Path) -> Vec<Case> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut cases = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let case: serde_json::Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), i + 1));
        // Raw hook payloads (invalid JSON, a non-string command) test the hook, not packs.
        if case.get("input_kind").is_some() {
            continue;
        }
        // dcg labels these allow only because it has no pack for them yet (`kubectl delete
        // namespace prod`); the kubernetes pack stops them by design.
        if case["category"] == "edge_cases/future_packs" {
            continue;
        }
        let destructive = match case["expected"].as_str().unwrap() {
            "deny" => true,
            "allow" => false,
            // `no-crash` and heredoc sections labelled by a comment: not scored.
            _ => continue,
        };
        cases.push(Case {
            command: case["command"].as_str().unwrap().to_string(),
            destructive,
            pack: case["pack"].as_str().map(String::from),
            class: case["class"]
                .as_str()
                .or(case["category"].as_str())
                .unwrap_or("?")
                .to_string(),
            cwd: case["cwd"].as_str().map(String::from),
        });
    }
    cases
}

/// Both evaluators of one policy; they must agree on every case.
struct Guard<'p> {
    automaton: CompiledPolicy,
    reference: ReferenceEvaluator<'p>,
}

impl<'p> Guard<'p> {
    fn new(policy: &'p HookPolicy) -> Self {
        let json = policy.to_json();
        let sidecar = compiler::lower::build_sidecar(policy, json.as_bytes())
            .unwrap_or_else(|e| panic!("{e}"));
        Guard {
            automaton: CompiledPolicy::from_bytes(&sidecar, json.as_bytes()).unwrap(),
            reference: ReferenceEvaluator::new(policy).unwrap(),
        }
    }

    /// The decision and deciding rule for a Bash command run in `cwd` (also the project
    /// root; [`compiler::packs::EXAMPLE_PLACES`] when `None`).
    fn decide(&self, command: &str, cwd: Option<&str>) -> (Decision, Option<String>) {
        let input = serde_json::json!({ "command": command });
        let mut places = compiler::packs::EXAMPLE_PLACES;
        if let Some(cwd) = cwd {
            places.cwd = Some(cwd);
            places.project_root = Some(cwd);
        }
        let call = || Call {
            event: "PreToolUse",
            tool_name: "Bash",
            tool_input: &input,
            places,
        };
        let out = self.automaton.decide(call());
        let by_reference = self.reference.decide(call());
        assert_eq!(
            (out.decision, &out.deciding_rule),
            (by_reference.decision, &by_reference.deciding_rule),
            "{command:?}: the two evaluators disagree"
        );
        (out.decision, out.deciding_rule)
    }
}

/// How a set of packs did on a set of cases.
#[derive(Default)]
struct Score {
    destructive: usize,
    caught: usize,
    safe: usize,
    flagged: usize,
    misses: Vec<String>,
}

impl Score {
    fn caught_pct(&self) -> f64 {
        100.0 * self.caught as f64 / self.destructive.max(1) as f64
    }
    fn flagged_pct(&self) -> f64 {
        100.0 * self.flagged as f64 / self.safe.max(1) as f64
    }
}

/// Score `cases`; a destructive case counts only when `counts` says so (`default` is not
/// held to an opt-in pack's cases).
fn score(guard: &Guard, cases: &[Case], counts: impl Fn(&Case) -> bool) -> Score {
    let mut s = Score::default();
    for case in cases {
        let (decision, rule) = guard.decide(&case.command, case.cwd.as_deref());
        let stopped = matches!(decision, Decision::Deny | Decision::Ask);
        if case.destructive {
            if !counts(case) {
                continue;
            }
            s.destructive += 1;
            if stopped {
                s.caught += 1;
            } else {
                s.misses
                    .push(format!("  missed  [{}] {:?}", case.class, case.command));
            }
        } else {
            s.safe += 1;
            if stopped {
                s.flagged += 1;
                s.misses.push(format!(
                    "  flagged [{}] {:?} by {}",
                    case.class,
                    case.command,
                    rule.as_deref().unwrap_or("?")
                ));
            }
        }
    }
    s
}

/// Print `s` and return a failure when it is under the bar.
fn report(name: &str, s: &Score, least_caught: f64, most_flagged: f64) -> Option<String> {
    println!(
        "{name}: {}/{} destructive caught ({:.1}%), {}/{} safe flagged ({:.1}%)",
        s.caught,
        s.destructive,
        s.caught_pct(),
        s.flagged,
        s.safe,
        s.flagged_pct()
    );
    for miss in &s.misses {
        println!("{miss}");
    }
    (s.caught_pct() < least_caught || s.flagged_pct() > most_flagged).then(|| {
        format!(
            "{name}: {:.1}% caught (bar {least_caught}%), {:.1}% flagged (bar {most_flagged}%)",
            s.caught_pct(),
            s.flagged_pct()
        )
    })
}

/// The packs `packs: [default]` enables.
fn default_packs() -> Vec<String> {
    compiler::packs::catalogue()
        .unwrap()
        .into_iter()
        .filter(|p| p.default)
        .map(|p| p.name)
        .collect()
}

#[test]
fn every_pack_and_default_on_our_labelled_classes() {
    let cases = read_cases(&common::repo_root().join("corpus/labelled/packs-classes.jsonl"));
    assert!(cases.len() >= 200, "{} cases", cases.len());
    // Every case names a pack that exists.
    let catalogue = compiler::packs::catalogue().unwrap();
    for case in &cases {
        let pack = case.pack.as_deref().unwrap();
        assert!(
            catalogue.iter().any(|p| p.name == pack),
            "{:?} names no pack `{pack}`",
            case.command
        );
    }
    let (every_policy, default_policy) = (
        common::packs_policy(None),
        common::packs_policy(Some("[default]")),
    );
    let every = Guard::new(&every_policy);
    let default = Guard::new(&default_policy);
    let in_default = default_packs();
    let mut failures = Vec::new();

    // The safe cases flagged: `echo "cat ~/.ssh/id_rsa"`: core.secrets' `Read(~/.ssh/id_rsa)`
    // entry reads every word of a command as a path, echo's operands included (as text, by the
    // engine's choice in `paths/command.rs`, so `echo ~/.ssh/id_rsa | xargs cat` is still
    // stopped); telling the two apart needs the pipe, which the engine's feeders work sees.
    // And `sudo fdisk -l` (listing partitions), which core.filesystem's disk-write denies as
    // it denies every fdisk.
    let all = score(&every, &cases, |_| true);
    failures.extend(report("packs-classes.jsonl, every pack", &all, 100.0, 1.0));
    let def = score(&default, &cases, |c| {
        in_default.contains(c.pack.as_ref().unwrap())
    });
    failures.extend(report("packs-classes.jsonl, default", &def, 100.0, 1.0));

    // Per class, every pack: where the cases are, so a regression names its family.
    let mut classes: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for case in cases.iter().filter(|c| c.destructive) {
        let (decision, _) = every.decide(&case.command, case.cwd.as_deref());
        let entry = classes.entry(&case.class).or_default();
        entry.0 += 1;
        entry.1 += usize::from(matches!(decision, Decision::Deny | Decision::Ask));
    }
    for (class, (total, caught)) in &classes {
        println!("  {class}: {caught}/{total}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_pack_and_default_on_dcg_labelled_commands() {
    let Some(shared) = shared_dir("every_pack_and_default_on_dcg_labelled_commands") else {
        return;
    };
    let (every_policy, default_policy) = (
        common::packs_policy(None),
        common::packs_policy(Some("[default]")),
    );
    let every = Guard::new(&every_policy);
    let default = Guard::new(&default_policy);
    // (file, every pack: least caught, most flagged; default: least caught, most flagged)
    // Every pack's misses are cwd-scoped deletes (`rm -rf ./build`, `rm -rf src`), which the
    // fixtures label destructive and `core.filesystem` leaves alone by its documented choice.
    // dcg's corpus is core commands, so default scores as every pack does.
    let bars: &[(&str, f64, f64, f64, f64)] = &[
        ("dcg-corpus.jsonl", 98.5, 1.0, 98.5, 1.0),
        ("dcg-e2e-fixtures.jsonl", 95.0, 1.0, 95.0, 1.0),
    ];
    let mut failures = Vec::new();
    for (file, every_caught, every_flagged, default_caught, default_flagged) in bars {
        let cases = read_cases(&shared.join("corpus-real/labelled").join(file));
        let s = score(&every, &cases, |_| true);
        failures.extend(report(
            &format!("{file}, every pack"),
            &s,
            *every_caught,
            *every_flagged,
        ));
        let s = score(&default, &cases, |_| true);
        failures.extend(report(
            &format!("{file}, default"),
            &s,
            *default_caught,
            *default_flagged,
        ));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The `default` packs over unlabelled real commands (nl2bash and tldr one-liners) and the
/// 1,542 real tool calls: how much they stop (deny and ask apart), with a sample, so
/// over-blocking is visible. The share stopped is held under the bar reached (recorded in
/// `BENCHMARKS.md`).
#[test]
fn default_on_real_commands_and_tool_calls() {
    let Some(shared) = shared_dir("default_on_real_commands_and_tool_calls") else {
        return;
    };
    let policy = common::packs_policy(Some("[default]"));
    let reference = ReferenceEvaluator::new(&policy).unwrap();
    // (file, the most share stopped, percent)
    for (file, most) in [
        // 1.32% under `core` alone: default adds rsync --delete, chmod/chown of system
        // paths and the cloud, storage and database deletes these one-liners demonstrate;
        // the engine's feeders and resolved rm targets (`find /dir -exec rm {} \;`,
        // `rm -rf "$(pwd -P)"/*`, `rm -fR "${TMP}/"`) add ten more (1.59%); asking before a
        // recursive delete whose targets come from its input or a search (`find … | xargs rm
        // -rf`, `find … -exec rm -rf {} \;`: 69 one-liners, each a deletion nobody listed
        // first; cc-safety-net blocks them too) brings it to 2.40%. Asking before `find …
        // -delete` / `-exec rm` from a directory outside the cwd, the project and /tmp
        // (`find /home/backups … -delete`, `find $DIR -exec rm {} \;`: the `rm -rf` of the same
        // place asks already) and before `shred` adds 61, 3.11%; `chmod 777`/`666` of a
        // single file (world-writable, dcg's catalogue) 2 more, 3.13%. A `find` from the
        // working directory that deletes everything under it (`find . -delete`, `find ./ -type
        // f -exec rm -rf {} \;`: `rm -rf .` by another name, which asks already) 3 more, 3.17%.
        // `history -cr` (erasing the shell history) 1 more, 272 of 8,557 (3.18%). Reading the
        // `sh -c` string `find -exec` runs as any command (`find . -iname .svn -exec bash -c
        // 'rm -rf {}' \;`, a recursive delete of what a search finds, asked as `-exec rm -rf
        // {}` is) 2 more, 274 (3.20%). Asking before every `find … -delete` (inside the
        // project too: `find . -name '*.pyc' -delete`) and every `xargs` that hands its input
        // to a shell (`xargs -I{} sh -c '…'`, `xargs bash`), as cc-safety-net's README blocks
        // both, 86 more: 360 (4.21%). Asking before code planted to run later
        // (system.persistence: a crontab installed from a file or stdin, `crontab -e`, a
        // `.git/hooks` file written or made executable), 17 more: 377 (4.41%); a program
        // linked into `~/bin` (on the user's PATH, ahead of the system's), 3 more: 380 (4.44%).
        // A `find`'s listing piped to a feeder's delete read as that `find` deleting (`find
        // /home -name x | xargs rm`, `… -print0 | xargs -0 rm -f`, `… | xargs -0 rmdir`: the
        // start path is the target, as for `find /home -name x -delete`, which stops
        // already), 42 more: 422 (4.93%). `source /dev/stdin` read as the shell reading
        // its script from the pipe, as `| sh` is (`grep "=" myfile | source /dev/stdin` runs
        // whatever lines the file holds), 1 more: 423 (4.94%). A `find` from `/tmp` that
        // deletes is a temporary directory's cleanup, not a top-level directory's (16 fewer
        // denies; a `find /tmp … -delete` is still asked, as every deleting find is): 407
        // (4.76%). (`ssh-keygen -t rsa … -f ~/.ssh/id_rsa`, which overwrites the key, stays
        // denied: only `-y`/`-l`, which read it, leave the key unread.)
        ("commands/nl2bash.jsonl", 4.76),
        // 0.51% under `core` alone: tldr pages show each tool's delete commands (1.38%);
        // `shred`'s, `git tag -d`'s, `git merge/rebase/revert --abort`'s, `Remove-Item
        // -Recurse`'s and `git clone -c core.sshCommand=…` are asked about since, 1.44%;
        // with `terraform taint`/`workspace delete`, `kubectl cordon`/`taint`/`scale
        // --replicas=0`, `helm upgrade --force`, btrfs/LVM/mdadm surgery and `umount -f`
        // (dcg's catalogue), 1.50%; with `gpg --export-secret-keys`, `unshadow /etc/passwd
        // /etc/shadow` and `find . -delete` since, 383 of 25,570 (1.498%); with `history -c`,
        // `setenforce 0`, `aa-teardown` and `apparmor_parser -R` (turning off SELinux or
        // AppArmor), 387 (1.51%). A program word holding a bracket glob is an expansion the
        // guard cannot name (`/usr/bin/[r]m -rf ~`): the glob pages' bare patterns (`[abc]`,
        // `[a-z][3-9]`, `[!a]`: not commands anyone runs) are asked about, 395 (1.54%). With
        // `kubectl rollout undo` (as `helm rollback` is) and `kubectl replace --force`, 397 (1.55%).
        // With `utmpdump -r … > /var/log/wtmp` (a login record overwritten) and `git
        // checkout-index -a -f [-n]` (the index's files written over uncommitted changes), 400
        // (1.56%). With `git clean -f -- path …` (a pathspec after `--`) and `git restore -p`
        // (every hunk offered for discarding; cc-safety-net blocks a restore without
        // --staged), and the catalogue round's rules, 403 (1.58%). Asking before code
        // planted to run later (system.persistence: `crontab -e`/`crontab file`, `at`/`batch`
        // jobs, `systemd-run --on-calendar`, `systemctl link|edit`, `launchctl load`, and
        // the pages' `… completion bash >> ~/.bashrc`/`starship init zsh >> ~/.zshrc`, code
        // that runs in every later shell), 30 more: 433 (1.69%); `direnv allow`, 1 more:
        // 434 (1.70%).
        ("commands/tldr-examples.jsonl", 1.70),
        // Every stop here comes from the core packs.
        ("tool-calls/pretooluse-hook-inputs.jsonl", 0.5),
    ] {
        let text = std::fs::read_to_string(shared.join("corpus-real").join(file)).unwrap();
        let (mut total, mut denied, mut stopped) = (0usize, 0usize, Vec::new());
        let mut by_pack: BTreeMap<String, usize> = BTreeMap::new();
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
                denied += usize::from(out.decision == Decision::Deny);
                // `pack.core.git:reset-hard #2` → `core.git`; a stop no rule names (an
                // unresolvable command under a rule that governs the shell) → `(shell)`.
                let pack = out
                    .deciding_rule
                    .as_deref()
                    .and_then(|r| r.strip_prefix("pack."))
                    .and_then(|r| r.split(':').next())
                    .unwrap_or("(shell)");
                *by_pack.entry(pack.to_string()).or_default() += 1;
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
            "{file}: default stops {} of {total} ({pct:.2}%): {denied} deny, {} ask",
            stopped.len(),
            stopped.len() - denied
        );
        let tally: Vec<String> = by_pack.iter().map(|(p, n)| format!("{p} {n}")).collect();
        println!("  by pack: {}", tally.join(", "));
        for line in stopped.iter().take(80) {
            println!("{line}");
        }
        assert!(
            pct <= most,
            "{file}: default stops {pct:.2}%, over the {most}% bar"
        );
    }
}
