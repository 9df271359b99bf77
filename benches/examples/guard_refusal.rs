//! Time the guard's reading of a deleting command (`engine::guard::shell_refusal`, the place
//! list and the command's paths resolved through one call memo), warm, in a loop: what a
//! `rm -rf` adds to an emit before its cold costs. Fastest of 5 rounds.
//! `cargo run --release -p animus-benches --example guard_refusal -- [ROUNDS] [COMMAND]`
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rounds: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(20_000);
    let command = args.get(2).map_or(
        "git status && cargo build --release 2>&1 | tail -n 20 && rm -rf ./target/tmp",
        String::as_str,
    );
    // A project, a home and the guard's places on disk, as an emit finds them.
    let root = std::env::temp_dir().join(format!("animus-guard-bench-{}", std::process::id()));
    for d in ["project/target", "home/.claude", "state", "bin", "policy"] {
        std::fs::create_dir_all(root.join(d)).expect("a scratch directory");
    }
    let text = |p: &str| root.join(p).to_str().expect("a UTF-8 path").to_string();
    let guard = engine::guard::Guard {
        policy_dirs: vec![text("policy")],
        state_dirs: vec![text("state"), text("home/.animus")],
        binaries: vec![text("bin/animus-hook"), text("bin/animus-hook-emit")],
    };
    let (project, home) = (text("project"), text("home"));
    let places = engine::Places {
        cwd: Some(&project),
        home: Some(&home),
        project_root: Some(&project),
    };
    let time = |what: &str, f: &mut dyn FnMut()| {
        let fastest = animus_benches::fastest_per_call(5, rounds, f);
        println!("{what}: fastest round {fastest:.2} µs");
    };
    time("analysis", &mut || {
        engine::shell::forget_shared();
        std::hint::black_box(engine::shell::analyse_shared(command, places));
    });
    time("analysis + refusal", &mut || {
        engine::shell::forget_shared();
        std::hint::black_box(engine::paths::one_memo_for(|| {
            engine::guard::shell_refusal(command, places, &guard)
        }));
    });
    let _ = std::fs::remove_dir_all(&root);
}
