//! Decide, load and compile at 100 / 1k / 10k / 100k rules, per rule shape.
//!
//! `cargo bench -p animus-benches --bench policy` for numbers, `-- --test` for the smoke run
//! (every benchmark once). Sidecar sizes are printed to stderr as `SIZE …` lines while the
//! benchmarks are set up. See `BENCHMARKS.md` for recorded results.

use std::hint::black_box;
use std::time::Duration;

use animus_benches::{
    adversarial_policy, author_policy, command_of_len, compile, real_list_policy, word_pair_policy,
};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use engine::{CompiledPolicy, HookPolicy};

const SIZES: [usize; 4] = [100, 1_000, 10_000, 100_000];

type Shape = (&'static str, fn(usize) -> HookPolicy, &'static [usize]);

const SHAPES: [Shape; 4] = [
    ("word-pairs", word_pair_policy, &SIZES),
    ("real-lists", real_list_policy, &SIZES),
    ("author", author_policy, &[100, 1_000, 10_000]),
    ("adversarial", adversarial_policy, &[100, 1_000]),
];

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("animus-bench-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn decide_and_load(c: &mut Criterion) {
    let command = command_of_len(200, 7);
    let input = serde_json::json!({ "command": command });
    for (shape, make, sizes) in SHAPES {
        let mut decide = c.benchmark_group(format!("decide/{shape}"));
        decide.measurement_time(Duration::from_secs(3));
        let mut compiled_at = Vec::new();
        for &n in sizes {
            let policy = make(n);
            let (json, sidecar) = compile(&policy);
            eprintln!(
                "SIZE {shape} {n} rules: sidecar {} bytes, json {} bytes",
                sidecar.len(),
                json.len()
            );
            let compiled = CompiledPolicy::from_bytes(&sidecar, json.as_bytes()).unwrap();
            decide.bench_with_input(BenchmarkId::from_parameter(n), &compiled, |b, compiled| {
                b.iter(|| {
                    animus_benches::decide_bash_fresh(
                        compiled,
                        black_box(&input),
                        Default::default(),
                    )
                })
            });
            compiled_at.push((n, policy));
        }
        decide.finish();

        // `load`: the files as `animus-hook compile` writes them, stamp included, so the load
        // measured is the hook's (`verification: stamp`, neither file hashed). `load-digest`:
        // the same files without the stamp, both hashed in full (a copied or touched pair).
        let mut load = c.benchmark_group(format!("load/{shape}"));
        load.measurement_time(Duration::from_secs(3));
        let mut written = Vec::new();
        for (n, policy) in compiled_at {
            let dir = temp_dir(&format!("{shape}-{n}"));
            let compiled = compiler::Compiled {
                policy,
                warnings: Vec::new(),
                locations: Vec::new(),
            };
            let path = compiler::write_policy_artifacts(&dir, &compiled).unwrap();
            assert_eq!(
                CompiledPolicy::load(&path).unwrap().verification(),
                engine::sidecar::Verification::Stamp
            );
            load.bench_with_input(BenchmarkId::from_parameter(n), &path, |b, path| {
                b.iter(|| CompiledPolicy::load(black_box(path)).unwrap())
            });
            written.push((n, dir, path));
        }
        load.finish();
        let mut load_digest = c.benchmark_group(format!("load-digest/{shape}"));
        load_digest.measurement_time(Duration::from_secs(3));
        for (n, dir, path) in written {
            std::fs::remove_file(engine::sidecar::stamp_path_for(&path)).unwrap();
            assert_eq!(
                CompiledPolicy::load(&path).unwrap().verification(),
                engine::sidecar::Verification::Digest
            );
            load_digest.bench_with_input(BenchmarkId::from_parameter(n), &path, |b, path| {
                b.iter(|| CompiledPolicy::load(black_box(path)).unwrap())
            });
            let _ = std::fs::remove_dir_all(&dir);
        }
        load_digest.finish();
    }
}

fn compile_time(c: &mut Criterion) {
    for (shape, make, sizes) in SHAPES {
        let mut group = c.benchmark_group(format!("compile/{shape}"));
        group.sample_size(10);
        group.measurement_time(Duration::from_secs(5));
        for &n in sizes {
            let policy = make(n);
            let json = policy.to_json();
            group.bench_with_input(BenchmarkId::from_parameter(n), &policy, |b, policy| {
                b.iter(|| compiler::lower::build_sidecar(policy, json.as_bytes()).unwrap())
            });
        }
        group.finish();
    }
}

criterion_group!(benches, decide_and_load, compile_time);
criterion_main!(benches);
