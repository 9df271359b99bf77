#!/usr/bin/env bash
# Runs every test of animus-hook: the workspace's unit, integration, property and doc tests,
# and the benchmarks once each in smoke mode (so the harness cannot rot). This is the README's
# test command, and .ci/run calls it.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== cargo test --workspace"
cargo test --workspace

echo "== benchmarks, smoke mode (each benchmark runs once)"
cargo bench --workspace -- --test
