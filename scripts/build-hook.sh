#!/usr/bin/env bash
# Build the animus-hook binary as it should be installed: release profile, glibc linked
# statically, position-dependent. The hook is spawned on every tool call, so its start-up is
# the floor of every decision: a static binary skips the dynamic loader (measured: --version
# 414k instructions dynamic, 205k static-pie, 81k static non-PIE — an empty static Rust binary
# is 106k), and a non-PIE one skips self-relocation. The price is no ASLR for the hook's own
# image; the hook is safe Rust parsing its input, and the one trusted blob it maps (the sidecar
# DFAs) is guarded by a digest and writable only by whoever can already rewrite the policy.
# Prints the binary's path on stdout.
#
# `+crt-static` cannot be set for the whole workspace: cargo would apply it to proc-macro
# crates too, which cannot be built that way. With an explicit `--target`, RUSTFLAGS reach only
# the target artifacts, so the build goes to target/<host-triple>/release/.
set -euo pipefail
cd "$(dirname "$0")/.."
host="$(rustc -vV | sed -n 's/^host: //p')"
case "$host" in
    *-linux-gnu) flags="-C target-feature=+crt-static -C relocation-model=static" ;;
    *) flags="" ;; # elsewhere the default linking is kept
esac
RUSTFLAGS="${RUSTFLAGS:-} $flags" cargo build --release --target "$host" -p animus-hook >&2
target_dir="${CARGO_TARGET_DIR:-target}"
printf '%s\n' "$(cd "$target_dir/$host/release" && pwd)/animus-hook"
