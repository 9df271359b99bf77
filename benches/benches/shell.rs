//! The shell parser alone, and parse + decide through the automaton engine, for a realistic
//! 200-byte command and a 4 KB command of 40 segments, at 10,000 real-list rules.
//!
//! `cargo bench -p animus-benches --bench shell`; `-- --test` for the smoke run. Recorded
//! results and the parser choice are in `BENCHMARKS.md`.

use std::hint::black_box;
use std::time::Duration;

use animus_benches::{REALISTIC, compile, real_list_policy};
use criterion::{Criterion, criterion_group, criterion_main};
use engine::CompiledPolicy;

/// About 4 KB: 40 realistic segments of about 100 bytes, joined in turn by `; `, ` | ` and
/// ` && `.
fn forty_segments() -> String {
    let segments = [
        "git log --oneline -n 20 --format='%h %s' --author=\"someone@example.com\" -- src/engine",
        "grep -rn \"TODO\" src/ --include='*.rs' --exclude-dir=target --color=never -e 'fixme'",
        "cargo test --workspace --release -- --nocapture --test-threads=2 shell::tests::",
        "find . -name '*.tmp' -type f -mtime +7 -not -path './target/*' -print",
        "sed -n '1,40p' README.md docs/architecture.md docs/semantics.md CHANGELOG.md",
        "echo \"build finished for the release candidate of animus-hook on the CI runner\"",
        "npm run lint -- --fix --max-warnings=0 --cache --cache-location .cache/eslint",
        "docker compose -f deploy/compose.yaml --project-name animus ps --format json",
    ];
    let mut out = String::new();
    for i in 0..40 {
        if i > 0 {
            out.push_str(["; ", " | ", " && "][i % 3]);
        }
        out.push_str(segments[i % segments.len()]);
        out.push_str(" --verbose --color=never");
    }
    out
}

fn shell(c: &mut Criterion) {
    let long = forty_segments();
    let analysis = engine::shell::analyse(&long);
    assert!(analysis.unparseable.is_none());
    eprintln!(
        "SHELL the long command: {} bytes, {} segments; the realistic one: {} bytes, {} segments",
        long.len(),
        analysis.segments.len(),
        REALISTIC.len(),
        engine::shell::analyse(REALISTIC).segments.len()
    );
    let mut parse = c.benchmark_group("shell-parse");
    parse.measurement_time(Duration::from_secs(3));
    parse.bench_function("200B", |b| {
        b.iter(|| engine::shell::analyse(black_box(REALISTIC)))
    });
    parse.bench_function("4KB-40-segments", |b| {
        b.iter(|| engine::shell::analyse(black_box(&long)))
    });
    parse.finish();

    let policy = real_list_policy(10_000);
    let (json, sidecar) = compile(&policy);
    let compiled = CompiledPolicy::from_bytes(&sidecar, json.as_bytes()).unwrap();
    let mut decide = c.benchmark_group("shell-decide/real-lists-10k");
    decide.measurement_time(Duration::from_secs(3));
    // The call happens somewhere real: path rules (`Read(./.env)` denies read every word of
    // a command as a path) resolve each word against this directory, with system calls.
    let cwd = std::env::current_dir().unwrap();
    let home = std::env::temp_dir();
    let places = engine::Places {
        cwd: cwd.to_str(),
        home: home.to_str(),
        project_root: cwd.to_str(),
    };
    for (name, command) in [("200B", REALISTIC), ("4KB-40-segments", long.as_str())] {
        bench_decide(&mut decide, name, &compiled, command, places);
    }
    decide.finish();

    // Every built-in pack enabled and nothing else (issue 13: ≤ 20 µs for the 200-byte
    // command). core.secrets holds path entries, so every word is also read as a path.
    // The same without core.secrets (the regex rules alone), and the first ten packs without
    // it (the variant measured before issue 27 added 57 packs).
    let mut decide = c.benchmark_group("shell-decide/all-packs");
    decide.measurement_time(Duration::from_secs(3));
    let every_pack = compiler::packs::every_pack_list();
    // Every pack but core.secrets, the only one with path entries: what the path rules cost
    // is the difference between this line and "200B".
    let but_secrets = every_pack.replace("core,", "core.git, core.filesystem, core.shell,");
    assert_ne!(
        but_secrets, every_pack,
        "every_pack_list() names the core category"
    );
    for (name, packs) in [
        ("200B", every_pack.as_str()),
        ("200B-every-pack-but-core.secrets", but_secrets.as_str()),
        (
            "200B-without-path-rules",
            "[core.git, core.filesystem, core.shell, database, containers, kubernetes, cloud, infra]",
        ),
    ] {
        let policy = animus_benches::packs_policy(packs);
        let (json, sidecar) = compile(&policy);
        let compiled = CompiledPolicy::from_bytes(&sidecar, json.as_bytes()).unwrap();
        eprintln!(
            "SHELL {name}: {} rules, sidecar {} bytes",
            policy.rules.len(),
            sidecar.len()
        );
        bench_decide(&mut decide, name, &compiled, REALISTIC, places);
    }
    decide.finish();
}

/// One benchmark: `compiled` deciding a `PreToolUse` Bash call of `command` in `places`.
fn bench_decide(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    name: &str,
    compiled: &CompiledPolicy,
    command: &str,
    places: engine::Places<'_>,
) {
    let input = serde_json::json!({ "command": command });
    group.bench_function(name, |b| {
        b.iter(|| animus_benches::decide_bash_fresh(compiled, black_box(&input), places))
    });
}

criterion_group!(benches, shell);
criterion_main!(benches);
