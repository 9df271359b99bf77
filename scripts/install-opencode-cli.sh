#!/usr/bin/env bash
# Install the pinned opencode CLI for the end-to-end suite (hook/tests/e2e_opencode.rs).
#
# Idempotent (see scripts/install-npm-cli.sh, which it shares with the other installers): on
# success it prints the absolute path of the native `opencode` binary on stdout, and nothing else,
# so callers can do `OPENCODE_BIN=$(scripts/install-opencode-cli.sh)`.
#
# The npm package `opencode-ai` is a thin wrapper: its optional dependency
# `opencode-<platform>` (e.g. `opencode-linux-x64`) carries the native, Bun-compiled executable
# (~185 MB), and the wrapper's postinstall step (`node postinstall.mjs`) links it over
# `bin/opencode.exe` (the name is `.exe` on every platform). So scripts must run
# (`--ignore-scripts=false`, whatever the user's npm config says). npm is used with its
# configured registry; this script names no host.
#
# Environment:
#   ANIMUS_OPENCODE_CACHE  install prefix (default: <repo>/.cache/opencode)
set -euo pipefail
# Sets repo_root; defines npm_cli_prefix, installed_version and install_npm_cli.
source "$(dirname "${BASH_SOURCE[0]}")/install-npm-cli.sh"

readonly OPENCODE_VERSION="1.18.33" PACKAGE="opencode-ai"

prefix="$(npm_cli_prefix ANIMUS_OPENCODE_CACHE opencode)"

# `opencode --version` prints e.g. "1.18.33". Run it in a throwaway HOME, offline, so probing
# never touches the user's ~/.config/opencode nor the network.
run_version() {
    env -i PATH=/usr/bin:/bin HOME="$1" XDG_CONFIG_HOME="$1/.config" \
        XDG_DATA_HOME="$1/.local/share" XDG_CACHE_HOME="$1/.cache" \
        XDG_STATE_HOME="$1/.local/state" OPENCODE_DISABLE_AUTOUPDATE=1 \
        OPENCODE_DISABLE_MODELS_FETCH=1 \
        timeout 60 "$binary" --version
}
parse_version() { printf '%s\n' "${1%% *}"; }

# Scripts must run (the postinstall step links the binary), whatever the user's npm config says.
install_npm_cli opencode "$OPENCODE_VERSION" "$PACKAGE" "$prefix" \
    "node_modules/$PACKAGE/bin/opencode.exe" --ignore-scripts=false
