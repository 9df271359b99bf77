//! Process-level benchmark: the wall time of `animus-hook emit` (PreToolUse, a 10,000-rule
//! policy with its sidecar, real Claude payloads, recording on) against an empty statically
//! linked Rust binary that reads its stdin to EOF, spawned the same way in the same run, interleaved so both see the same
//! machine state. Reports both medians and their ratio.
//!
//! ```text
//! cargo bench -p animus-benches --bench spawn            # 300 rounds
//! cargo bench -p animus-benches --bench spawn -- --test  # smoke: 5 rounds
//! ```
//!
//! The hook binary is `$ANIMUS_HOOK_BIN`, else the installed form that `scripts/build-hook.sh`
//! builds (release, glibc linked statically). What the harness runs is what `inject` wires:
//! `animus-hook-emit` beside it (the same `emit` without the compiler linked in) — the ratio
//! the issue asks for; `animus-hook emit` itself is measured in the same rounds and reported
//! too. The empty binary is compiled here with `rustc -C target-feature=+crt-static`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn main() {
    let smoke = std::env::args().any(|a| a == "--test");
    let rounds = if smoke { 5 } else { 300 };
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf();
    let work = std::env::temp_dir().join(format!("animus-spawn-bench-{}", std::process::id()));
    std::fs::create_dir_all(work.join("project")).unwrap();

    let full = hook_binary(&repo);
    let hook = integrations::inject::lean_emit_binary(full.clone());
    assert_ne!(
        hook,
        full,
        "`animus-hook-emit` must sit beside {}",
        full.display()
    );
    assert_lean(&hook, &full);
    let empty = empty_static_binary(&work);
    let policy = ten_thousand_rule_policy(&work);
    let payloads: Vec<Vec<u8>> = [
        "PreToolUse.Bash.json",
        "PreToolUse.Bash.git-status.json",
        "PreToolUse.Read.json",
        "PreToolUse.Write.json",
        "PreToolUse.mcp__e2e__echo.json",
    ]
    .iter()
    .map(|name| {
        // The call happens in the bench's project directory, as a real one happens in an
        // existing directory (path rules resolve the call's paths against it).
        let text = std::fs::read_to_string(repo.join("corpus/payloads").join(name)).unwrap();
        text.replace(
            "/home/user/project",
            &work.join("project").display().to_string(),
        )
        .into_bytes()
    })
    .collect();
    let emit_args: Vec<String> = vec![
        "emit".into(),
        "--event".into(),
        "PreToolUse".into(),
        "--session".into(),
        "bench".into(),
        "--project-root".into(),
        work.join("project").display().to_string(),
        "--policy".into(),
        policy.display().to_string(),
    ];
    let state = work.join("state");
    let project = work.join("project");

    // Warm the page cache and check the hook really decides (a deny for the trade payload).
    let trade =
        std::fs::read(repo.join("corpus/payloads/PreToolUse.Bash.trade-live.json")).unwrap();
    for binary in [&hook, &full] {
        let out = spawn(binary, &emit_args, &trade, (&state, &project)).1;
        assert!(
            out.contains("\"permissionDecision\":\"deny\""),
            "the 10k-rule policy must deny `trade --live`: {out}"
        );
    }

    // The same emit with every built-in pack enabled (issue 13: ≤ 1.3× too).
    let packs_policy = all_packs_policy(&work);
    let mut packs_args = emit_args.clone();
    *packs_args.last_mut().unwrap() = packs_policy.display().to_string();

    // Issue 27's command, every pack, the same Bash payload around it: each round spawns it
    // once against the empty binary spawned with the same bytes.
    let build_command =
        "git status && cargo build --release 2>&1 | tail -n 20 && rm -rf ./target/tmp";
    let mut build_payload: serde_json::Value = serde_json::from_slice(&payloads[0]).unwrap();
    build_payload["tool_input"]["command"] = serde_json::Value::from(build_command);
    let build_payload = serde_json::to_vec(&build_payload).unwrap();

    // The same bytes as `cargo install` leaves them: copied, so the page cache holds what a
    // write put there (large folios where the file system has them), where the linker's own
    // output is cached as it mapped it (single pages). The kernel maps a large folio in one
    // fault, so both binaries spawn faster copied (~50 µs each here); the ratio holds
    // (BENCHMARKS.md, stop 47). An emit measured against an empty binary in the other state
    // is off by that much.
    let copied = work.join("copied");
    std::fs::create_dir_all(&copied).unwrap();
    let copy = |from: &PathBuf| {
        let to = copied.join(from.file_name().unwrap());
        std::fs::copy(from, &to).unwrap();
        to
    };
    let (copied_hook, _copied_full, copied_empty) = (copy(&hook), copy(&full), copy(&empty));
    spawn(
        &copied_hook,
        &packs_args,
        &build_payload,
        (&state, &project),
    );

    let mut hook_times = Vec::with_capacity(rounds);
    let mut full_times = Vec::with_capacity(rounds);
    let mut packs_times = Vec::with_capacity(rounds);
    let mut empty_times = Vec::with_capacity(rounds);
    let mut build_times = Vec::with_capacity(rounds);
    let mut build_empty_times = Vec::with_capacity(rounds);
    let mut copied_times = Vec::with_capacity(rounds);
    let mut copied_empty_times = Vec::with_capacity(rounds);
    for i in 0..rounds {
        let payload = &payloads[i % payloads.len()];
        empty_times.push(spawn(&empty, &[], payload, (&state, &project)).0);
        hook_times.push(spawn(&hook, &emit_args, payload, (&state, &project)).0);
        full_times.push(spawn(&full, &emit_args, payload, (&state, &project)).0);
        packs_times.push(spawn(&hook, &packs_args, payload, (&state, &project)).0);
        build_empty_times.push(spawn(&empty, &[], &build_payload, (&state, &project)).0);
        build_times.push(spawn(&hook, &packs_args, &build_payload, (&state, &project)).0);
        copied_empty_times.push(spawn(&copied_empty, &[], &build_payload, (&state, &project)).0);
        copied_times.push(
            spawn(
                &copied_hook,
                &packs_args,
                &build_payload,
                (&state, &project),
            )
            .0,
        );
    }
    let (h, f, p, e) = (
        median(&mut hook_times),
        median(&mut full_times),
        median(&mut packs_times),
        median(&mut empty_times),
    );
    let (b, be) = (median(&mut build_times), median(&mut build_empty_times));
    let (c, ce) = (median(&mut copied_times), median(&mut copied_empty_times));
    let mode = if smoke { ", smoke mode" } else { "" };
    println!(
        "spawn/emit_10k_rules  median {:>8.1} µs   spawn/empty_static median {:>8.1} µs   ratio {:.3} ({rounds} rounds{mode}; animus-hook-emit, as inject wires it)",
        micros(h),
        micros(e),
        h.as_secs_f64() / e.as_secs_f64(),
    );
    println!(
        "spawn/animus-hook_emit median {:>8.1} µs   ratio {:.3} (the full CLI binary, same rounds)",
        micros(f),
        f.as_secs_f64() / e.as_secs_f64(),
    );
    println!(
        "spawn/emit_all_packs  median {:>8.1} µs   ratio {:.3} (animus-hook-emit, every built-in pack, same rounds)",
        micros(p),
        p.as_secs_f64() / e.as_secs_f64(),
    );
    println!(
        "spawn/emit_all_packs_build_command  median {:>8.1} µs   empty {:>8.1} µs   ratio {:.3} (animus-hook-emit, every built-in pack, `{build_command}`)",
        micros(b),
        micros(be),
        b.as_secs_f64() / be.as_secs_f64(),
    );
    println!(
        "spawn/emit_all_packs_build_command_copied  median {:>8.1} µs   empty {:>8.1} µs   ratio {:.3} (the same, both binaries copied as `cargo install` leaves them)",
        micros(c),
        micros(ce),
        c.as_secs_f64() / ce.as_secs_f64(),
    );
    let _ = std::fs::remove_dir_all(&work);
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort_unstable();
    v[v.len() / 2]
}

/// Spawn `bin args` with `stdin`, wait; the wall time and stdout.
fn spawn(
    bin: &Path,
    args: &[String],
    stdin: &[u8],
    (state, cwd): (&Path, &Path),
) -> (Duration, String) {
    let started = Instant::now();
    // In the session's directory, as a harness runs its hooks (Claude Code, Codex and Gemini
    // CLI: the session's cwd, the payload's `cwd`), the empty binary too.
    let mut child = Command::new(bin)
        .args(args)
        .current_dir(cwd)
        .env("ANIMUS_CONFIG_DIR", state)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Every binary here reads its stdin to EOF; a write error would be a bug in the bench.
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        started.elapsed(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The installed `animus-hook-emit` never compiles a regex nor reads YAML nor writes a
/// sidecar: none of `regex-syntax`'s, the YAML parser's or the sidecar encoder's code is linked
/// in. The first two are seen by their panic locations, which name their crates; the encoder by
/// its first error message. The full CLI, which links all three, is the control that the check
/// can see them.
fn assert_lean(lean: &Path, full: &Path) {
    let holds = |binary: &Path, marker: &str| {
        let bytes = std::fs::read(binary).unwrap();
        bytes
            .windows(marker.len())
            .any(|window| window == marker.as_bytes())
    };
    for marker in [
        "regex-syntax",
        "serde-saphyr",
        "the image has no default decision",
    ] {
        assert!(
            holds(full, marker),
            "the control failed: {} holds no `{marker}`",
            full.display()
        );
        assert!(
            !holds(lean, marker),
            "{} links `{marker}`: the hook's path must stay lean (issue 14)",
            lean.display()
        );
    }
}

fn hook_binary(repo: &Path) -> PathBuf {
    if let Some(path) = std::env::var_os("ANIMUS_HOOK_BIN") {
        return PathBuf::from(path);
    }
    eprintln!("building the installed form of animus-hook (scripts/build-hook.sh)");
    let out = Command::new(repo.join("scripts/build-hook.sh"))
        .current_dir(repo)
        .stderr(Stdio::inherit())
        .output()
        .unwrap();
    assert!(out.status.success(), "scripts/build-hook.sh failed");
    PathBuf::from(String::from_utf8(out.stdout).unwrap().trim())
}

fn empty_static_binary(work: &Path) -> PathBuf {
    let source = work.join("empty.rs");
    // It reads its stdin to EOF, as every hook must (DESIGN.md: the harness writes the
    // payload into a pipe), so the baseline pays for the pipe as the hook does.
    std::fs::write(
        &source,
        "use std::io::Read;\nfn main() {\n    let mut payload = Vec::new();\n    \
         std::io::stdin().read_to_end(&mut payload).unwrap();\n}\n",
    )
    .unwrap();
    let out = work.join("empty-static");
    let status = Command::new("rustc")
        .args([
            "-O",
            "-C",
            "target-feature=+crt-static",
            "-C",
            "panic=abort",
            "-o",
        ])
        .arg(&out)
        .arg(&source)
        .status()
        .unwrap();
    assert!(
        status.success(),
        "rustc could not build the empty static binary"
    );
    out
}

/// 10,000 deny rules `Bash(*w1 w2*)` over a fixed vocabulary (the shape the engine issue
/// measured), plus the trader guardrail, compiled with its sidecar.
fn ten_thousand_rule_policy(work: &Path) -> PathBuf {
    const WORDS: &[&str] = &[
        "find",
        "grep",
        "xargs",
        "sort",
        "uniq",
        "awk",
        "sed",
        "tar",
        "curl",
        "wget",
        "chmod",
        "chown",
        "rsync",
        "ssh",
        "docker",
        "kubectl",
        "git",
        "npm",
        "cargo",
        "python",
        "make",
        "psql",
        "redis-cli",
        "terraform",
        "helm",
        "aws",
        "gcloud",
        "systemctl",
        "journalctl",
        "iptables",
        "mount",
        "dd",
        "mkfs",
        "crontab",
        "scp",
        "nc",
        "openssl",
    ];
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    // Real lists deny secrets by path: those rules also read every word of a Bash command
    // as a path (with system calls), so the whole-process number includes that work.
    let mut deny = std::collections::BTreeSet::from(
        [
            "Bash(* --live*)",
            "Read(./.env)",
            "Read(./.env.*)",
            "Read(~/.ssh/**)",
            "Read(**/*.pem)",
            "Edit(./.git/**)",
        ]
        .map(String::from),
    );
    while deny.len() < 10_000 {
        let (a, b) = (WORDS[next() as usize % WORDS.len()], next() % 10_000);
        deny.insert(format!("Bash(*{a} --opt{b}*)"));
    }
    let config = serde_json::json!({"agents": {"bench": {"tool_policy": {"deny": deny}}}});
    let text = serde_json::to_string(&config).unwrap();
    let profile = compiler::load_profile_str(&text, "bench.json".into(), "bench").unwrap();
    let compiled = compiler::compile_profile(&profile).unwrap();
    assert!(compiled.policy.rules.len() >= 10_000);
    compiler::write_policy_artifacts(&work.join("run"), &compiled).unwrap()
}

/// A policy of every built-in pack and nothing else, written to `<work>/packs`.
fn all_packs_policy(work: &Path) -> PathBuf {
    let compiled = animus_benches::packs_compiled(&compiler::packs::every_pack_list());
    compiler::write_policy_artifacts(&work.join("packs"), &compiled).unwrap()
}
