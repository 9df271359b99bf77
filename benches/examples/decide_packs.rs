//! Decide one Bash call with every built-in pack enabled, many times, and print the time per
//! call: a steady loop to profile (`perf record`) what `shell-decide/all-packs/200B` measures.
//! Also times the parse and the path texts alone. `DECIDE_PACKS_ONLY=parse|path|decide` runs
//! only that part (for `perf record`); `DECIDE_PACKS_TEXTS=1` prints the segment texts whose
//! words the path rules read.
//! `cargo run --release -p animus-benches --example decide_packs -- [ROUNDS] [COMMAND]`
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rounds: usize = args
        .get(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000)
        .max(20);
    let command = args
        .get(2)
        .map_or(animus_benches::REALISTIC, String::as_str);
    let policy = animus_benches::packs_policy(&compiler::packs::every_pack_list());
    let (json, sidecar) = animus_benches::compile(&policy);
    let compiled = engine::CompiledPolicy::from_bytes(&sidecar, json.as_bytes()).expect("loads");
    let cwd = std::env::current_dir().expect("a working directory");
    let home = std::env::temp_dir();
    let places = engine::Places {
        cwd: cwd.to_str(),
        home: home.to_str(),
        project_root: cwd.to_str(),
    };
    let input = serde_json::json!({ "command": command });
    // The parts, each alone: the parse, and the path texts made (matched against nothing).
    // `DECIDE_PACKS_ONLY=parse|path|decide` times that part alone (for `perf record`).
    let only = std::env::var("DECIDE_PACKS_ONLY").ok();
    let wanted = |what: &str| only.as_deref().is_none_or(|o| what.starts_with(o));
    let time = |what: &str, f: &mut dyn FnMut()| {
        if !wanted(what) {
            return;
        }
        let fastest = animus_benches::fastest_per_call(20, rounds / 20, f);
        println!("{what}: fastest round {fastest:.2} µs");
    };
    time("parse", &mut || {
        std::hint::black_box(engine::shell::analyse(std::hint::black_box(command)));
    });
    let analysis = engine::shell::analyse(command);
    let mut count = 0;
    time("path texts", &mut || {
        count = 0;
        let _ = engine::paths::each_command_path_text(
            analysis.path_read_texts(command),
            places,
            &mut |t| {
                count += t.len();
                std::ops::ControlFlow::Continue(())
            },
        );
    });
    if std::env::var_os("DECIDE_PACKS_TEXTS").is_some() {
        for t in analysis.path_read_texts(command) {
            println!("path-read text: {t:?}");
        }
    }
    if wanted("path") {
        let texts = engine::paths::command_path_texts(analysis.path_read_texts(command), places);
        println!(
            "{} distinct path texts of {count} bytes in all: {texts:?}",
            texts.len()
        );
    }
    let outcome = animus_benches::decide_bash_fresh(&compiled, &input, places);
    println!("{outcome:?}");
    println!("{} rules", policy.rules.len());
    time("decide", &mut || {
        std::hint::black_box(animus_benches::decide_bash_fresh(
            &compiled,
            std::hint::black_box(&input),
            places,
        ));
    });
}
