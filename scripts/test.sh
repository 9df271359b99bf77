#!/usr/bin/env bash
# Runs every test of animus-hook: the workspace's unit, integration, property and doc tests,
# and the benchmarks once each in smoke mode (so the harness cannot rot). This is the README's
# test command, and .ci/run calls it.
set -euo pipefail
cd "$(dirname "$0")/.."

# The end-to-end suites (hook/tests/e2e_{claude,codex,gemini,opencode}.rs) drive the real
# harness CLIs; install each pinned version into .cache/ first (a no-op when it is there).
# Without one its suite skips — except under CI, where it fails — so only CI insists the
# installs work.
for cli in claude codex gemini opencode; do
    echo "== $cli CLI for the end-to-end suite"
    if ! "scripts/install-$cli-cli.sh"; then
        [[ -z "${CI:-}" ]] || exit 1
        echo "warning: could not install the $cli CLI; its end-to-end suite will be skipped" >&2
    fi
done

# Claude Code's Bash sandbox (the e2e suite's `inject --sandbox` cases) needs bubblewrap and
# socat on Linux: Debian packages, installed when missing (CI runs as root). Without them those
# cases skip, saying so — except under CI, where failing to install them fails the run.
echo "== bubblewrap and socat for the sandbox end-to-end cases"
if ! command -v bwrap > /dev/null 2>&1 || ! command -v socat > /dev/null 2>&1; then
    if ! { command -v apt-get > /dev/null 2>&1 && { apt-get update -qq || true; } && apt-get install -y bubblewrap socat; }; then
        [[ -z "${CI:-}" ]] || { echo "error: cannot install bubblewrap and socat" >&2; exit 1; }
        echo "warning: bubblewrap/socat missing; the sandbox end-to-end cases will be skipped" >&2
    fi
fi

# Formatting and lints, where the toolchain has rustfmt and clippy (rustup's default profile
# does; a minimal toolchain skips them, saying so).
echo "== cargo fmt --check, cargo clippy -D warnings"
if cargo fmt --version > /dev/null 2>&1; then
    cargo fmt --all -- --check
else
    echo "skipped: this toolchain has no rustfmt" >&2
fi
if cargo clippy --version > /dev/null 2>&1; then
    cargo clippy --workspace --all-targets -- -D warnings
else
    echo "skipped: this toolchain has no clippy" >&2
fi

echo "== cargo test --workspace"
cargo test --workspace

# The bundled profiles linted and tested (corpus/cases), as an author runs them. The
# allowlist profile keeps the downgrade warnings it exists to show; the others are clean.
echo "== animus-hook lint over corpus/profiles"
cargo run -q -p animus-hook -- lint --config corpus/profiles/trader.yaml --agent trader --deny-warnings
cargo run -q -p animus-hook -- lint --config corpus/profiles/cautious.yaml --agent cautious --deny-warnings
cargo run -q -p animus-hook -- lint --config corpus/profiles/runtime-config.json --agent trader --deny-warnings
cargo run -q -p animus-hook -- lint --config corpus/profiles/allowlist.yaml --agent reviewer

echo "== animus-hook test over corpus/cases"
for run in "trader.yaml trader trader" "cautious.yaml cautious cautious" \
    "allowlist.yaml reviewer allowlist" "packs-engine.yaml packs packs-engine"; do
    set -- $run
    cargo run -q -p animus-hook -- test --config "corpus/profiles/$1" --agent "$2" \
        "corpus/cases/$3.cases.yaml"
done

echo "== benchmarks, smoke mode (each benchmark runs once)"
cargo bench --workspace -- --test

# The README's other command must stay true on a fresh clone.
echo "== README: cargo run --release -p animus-hook -- demo"
cargo run --release -p animus-hook -- demo > /dev/null
