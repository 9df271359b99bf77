# Sourced by scripts/install-{claude,codex,gemini,opencode}-cli.sh: what installing a pinned
# harness CLI from npm into a cache folder inside the repository (git-ignored) shares. Never
# into a global prefix, so the end-to-end suites always run the exact version they were written
# against. npm is used with its configured registry; nothing here names a host.
#
# The sourcing script (which sources this first, for `repo_root` and `npm_cli_prefix`) defines
# `run_version HOME`, which runs `"$binary" --version` with HOME a throwaway directory (so
# probing never touches the user's own settings), and `parse_version OUTPUT`, which prints the
# version in what it printed. Then it calls
# `install_npm_cli NAME VERSION PACKAGE PREFIX BINARY [npm flags…]`, which sets `binary`.

# The repository (this file is in its scripts/).
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# The install prefix of a CLI: `$CACHE_VAR` when set, else `<repo>/.cache/DIR`.
npm_cli_prefix() {
    local cache_var="$1" dir="$2"
    printf '%s\n' "${!cache_var:-$repo_root/.cache/$dir}"
}

# The installed version, or a failure when nothing runnable is there.
installed_version() {
    [[ -x "$binary" ]] || return 1
    local home out
    home="$(mktemp -d)"
    out="$(run_version "$home" 2>/dev/null </dev/null)" || { rm -rf "$home"; return 1; }
    rm -rf "$home"
    parse_version "$out"
}

# Install PACKAGE@VERSION into PREFIX with npm (the extra flags after BINARY, the path of the
# binary under PREFIX, which is what `binary` holds from then on), idempotently:
# when the cache already holds a runnable binary of the pinned version it does nothing. On
# success it prints the absolute path of the binary on stdout, and nothing else (npm's own
# progress goes to stderr), so callers can do `BIN=$(scripts/install-<name>-cli.sh)`. Fails
# when npm is missing, fails, or leaves anything but the pinned version behind.
install_npm_cli() {
    local name="$1" version="$2" package="$3" prefix="$4"
    binary="$prefix/$5"
    shift 5
    if [[ "$(installed_version || true)" == "$version" ]]; then
        printf '%s\n' "$binary"
        return 0
    fi
    command -v npm >/dev/null || { echo "install-$name-cli: npm is required" >&2; return 1; }
    mkdir -p "$prefix"
    # A package.json of our own keeps npm from walking up into the repository looking for one.
    [[ -f "$prefix/package.json" ]] || printf '{"private":true}\n' >"$prefix/package.json"
    npm install --prefix "$prefix" --no-save --no-audit --no-fund --loglevel=error \
        "$@" "$package@$version" >&2
    local found
    found="$(installed_version || true)"
    if [[ "$found" != "$version" ]]; then
        echo "install-$name-cli: expected $version at $binary, found '${found:-nothing runnable}'" >&2
        return 1
    fi
    printf '%s\n' "$binary"
}
