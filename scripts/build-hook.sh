#!/usr/bin/env bash
# Build the animus-hook binary as it should be installed: release profile, glibc linked
# statically (static-pie). A statically linked hook skips the dynamic loader on every tool
# call — measured here at ~0.3 ms of a ~1.2 ms spawn. Prints the binary's path on stdout.
#
# `+crt-static` cannot be set for the whole workspace: cargo would apply it to proc-macro
# crates too, which cannot be built that way. With an explicit `--target`, RUSTFLAGS reach only
# the target artifacts, so the build goes to target/<host-triple>/release/.
set -euo pipefail
cd "$(dirname "$0")/.."
host="$(rustc -vV | sed -n 's/^host: //p')"
case "$host" in
    *-linux-gnu) flags="-C target-feature=+crt-static" ;;
    *) flags="" ;; # elsewhere the default linking is kept
esac
RUSTFLAGS="${RUSTFLAGS:-} $flags" cargo build --release --target "$host" -p animus-hook >&2
target_dir="${CARGO_TARGET_DIR:-target}"
printf '%s\n' "$(cd "$target_dir/$host/release" && pwd)/animus-hook"
