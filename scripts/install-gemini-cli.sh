#!/usr/bin/env bash
# Install the pinned Gemini CLI for the end-to-end suite (hook/tests/e2e_gemini.rs).
#
# Idempotent (see scripts/install-npm-cli.sh, which it shares with the other installers): on
# success it prints the absolute path of the `gemini` launcher on stdout, and nothing else,
# so callers can do `GEMINI_BIN=$(scripts/install-gemini-cli.sh)`.
#
# `@google/gemini-cli` is a single bundled script (`bundle/gemini.js`) run by Node; 0.61.0
# runs on Node 20 (measured). Its optional native dependencies (keytar, node-pty) need install
# scripts the suite does not rely on: headless mode uses neither, so scripts are not run
# (`--ignore-scripts`).
#
# Environment:
#   ANIMUS_GEMINI_CACHE  install prefix (default: <repo>/.cache/gemini-cli)
set -euo pipefail
# Sets repo_root; defines npm_cli_prefix, installed_version and install_npm_cli.
source "$(dirname "${BASH_SOURCE[0]}")/install-npm-cli.sh"

readonly GEMINI_CLI_VERSION="0.61.0" PACKAGE="@google/gemini-cli"

prefix="$(npm_cli_prefix ANIMUS_GEMINI_CACHE gemini-cli)"

# `gemini --version` prints e.g. "0.61.0". It needs no network, but runs in a throwaway HOME
# with updates and telemetry off anyway, so probing never touches the user's ~/.gemini.
run_version() {
    mkdir -p "$1/.gemini"
    printf '%s\n' '{"general":{"enableAutoUpdate":false,"enableAutoUpdateNotification":false},"telemetry":{"enabled":false},"privacy":{"usageStatisticsEnabled":false}}' \
        >"$1/.gemini/settings.json"
    HOME="$1" timeout 60 "$binary" --version
}
parse_version() { printf '%s\n' "$(printf '%s' "$1" | tail -n 1 | tr -d '[:space:]')"; }

install_npm_cli gemini "$GEMINI_CLI_VERSION" "$PACKAGE" "$prefix" \
    "node_modules/.bin/gemini" --ignore-scripts
