//! Print how a generated policy's sidecar divides between automata kinds.
//! `cargo run --release -p animus-benches --example sidecar_breakdown -- real-lists 10000`
//! (`every-pack` for the built-in packs; `SIDECAR_EACH_AUTOMATON=1` lists every automaton)
use std::collections::BTreeMap;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let policy = match args.get(1).map(String::as_str).unwrap_or("real-lists") {
        "word-pairs" => animus_benches::word_pair_policy(n),
        "author" => animus_benches::author_policy(n),
        "adversarial" => animus_benches::adversarial_policy(n),
        "every-pack" => animus_benches::packs_policy(&compiler::packs::every_pack_list()),
        _ => animus_benches::real_list_policy(n),
    };
    let start = std::time::Instant::now();
    let image =
        compiler::lower::lower_policy(&policy, &compiler::lower::Budgets::default()).unwrap();
    let elapsed = start.elapsed();
    let mut kinds: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for m in &image.matchers {
        kinds.entry(format!("matcher {:?}", m.kind)).or_default().0 += 1;
    }
    let tool_bytes: usize = image
        .tool_automata
        .iter()
        .map(|&i| image.automata[i as usize].dfa_bytes.len())
        .sum();
    println!(
        "tool globs: {} ({} exact names and {} prefixes in sorted tables; the rest in {} automata of {tool_bytes} bytes)",
        image.glob_count,
        image.exact_tools.len(),
        image.tool_prefixes.len(),
        image.tool_automata.len(),
    );
    for a in &image.automata {
        let e = kinds
            .entry(format!(
                "automaton {:?} {:?} patterns={}",
                a.search,
                a.form,
                if a.targets.len() > 1 { "many" } else { "1" }
            ))
            .or_default();
        e.0 += 1;
        e.1 += a.dfa_bytes.len();
    }
    if std::env::var_os("SIDECAR_EACH_AUTOMATON").is_some() {
        for (i, a) in image.automata.iter().enumerate() {
            println!(
                "automaton {i}: {:?} {:?}, {} patterns, {} bytes",
                a.search,
                a.form,
                a.targets.len(),
                a.dfa_bytes.len()
            );
        }
    }
    for (k, (count, bytes)) in kinds {
        println!("{k}: {count} ({bytes} bytes)");
    }
    let json = policy.to_json();
    let bytes = image.encode(json.as_bytes()).unwrap();
    println!(
        "total sidecar {} bytes, lowered in {elapsed:?}",
        bytes.len()
    );
    // What the `decide` benchmark's call (a 200-byte command) matches.
    let compiled = engine::CompiledPolicy::from_bytes(&bytes, json.as_bytes()).unwrap();
    let input = serde_json::json!({ "command": animus_benches::command_of_len(200, 7) });
    let outcome = compiled.decide(engine::Call::pre_tool_use(
        "Bash",
        &input,
        Default::default(),
    ));
    println!(
        "the decide benchmark's call: {} ({} rules matched)",
        outcome.decision,
        outcome.matched.len()
    );
    // The work no index can skip: where the command really contains a matcher's literal or a
    // chain's piece (counted naively, each distinct literal of a field once per position).
    let command = input["command"].as_str().unwrap_or("").as_bytes();
    let mut literals: std::collections::BTreeSet<&[u8]> = std::collections::BTreeSet::new();
    for m in &image.matchers {
        literals.extend(m.literals.iter().chain(&m.chain).map(Vec::as_slice));
    }
    let occurrences: usize = (0..command.len())
        .map(|at| {
            literals
                .iter()
                .filter(|l| command[at..].starts_with(l))
                .count()
        })
        .sum();
    println!(
        "the command's literal occurrences: {occurrences} (of {} distinct literals)",
        literals.len()
    );
    // An optional repeat count: decide that call in a loop (for a profiler), timed in 20
    // rounds; the fastest round is the least disturbed by a noisy machine.
    if let Some(repeat) = args.get(3).and_then(|s| s.parse::<u32>().ok()) {
        let per_round = (repeat / 20).max(1);
        let mut rounds: Vec<std::time::Duration> = (0..20)
            .map(|_| {
                let started = std::time::Instant::now();
                for _ in 0..per_round {
                    std::hint::black_box(compiled.decide(engine::Call::pre_tool_use(
                        "Bash",
                        &input,
                        Default::default(),
                    )));
                }
                started.elapsed() / per_round
            })
            .collect();
        rounds.sort();
        println!(
            "decide: {:?} per call (fastest of 20 rounds), median {:?}",
            rounds[0], rounds[10]
        );
    }
}
