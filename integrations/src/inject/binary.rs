//! The hook binary a session runs: found, checked to be this project's hook of this version,
//! and swapped for its lean `emit` twin where one sits beside it.

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use super::{HOOK_BINARY_ENV, KILL_SWITCH_ENV};
use compiler::diagnostic::{Diagnostic, Errors};

/// Run `binary --version` once and accept only this project's hook of this version: its first
/// line is `animus-hook <version>` or `animus-hook-emit <version>`. A binary that answers
/// anything else (`/bin/true` answers nothing) would make every gate a no-op, or speak another
/// protocol; a wrapper must pass `--version` through. Bounded by a 5 s deadline.
pub fn verify_hook_binary(binary: &Path) -> Result<(), Errors> {
    let error = |why: String| {
        Errors::one(
            Diagnostic::error(
                None,
                format!(
                    "the hook binary `{}` is not animus-hook {}: {why}",
                    binary.display(),
                    env!("CARGO_PKG_VERSION")
                ),
            )
            .with_help(
                "name the animus-hook built from this checkout (scripts/build-hook.sh), or a \
                 wrapper that passes `--version` through to it",
            ),
        )
    };
    let mut child = std::process::Command::new(binary)
        .arg("--version")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| error(format!("it cannot be run ({e})")))?;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(5))
            }
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(error("`--version` did not answer within 5 s".into()));
            }
            Err(e) => return Err(error(format!("it cannot be waited for ({e})"))),
        }
    };
    let mut out = String::new();
    if let Some(stdout) = child.stdout.take() {
        use std::io::Read;
        let _ = stdout.take(4096).read_to_string(&mut out);
    }
    let first = out.lines().next().unwrap_or("").trim();
    let version = env!("CARGO_PKG_VERSION");
    let accepted = [
        format!("animus-hook {version}"),
        format!("animus-hook-emit {version}"),
    ];
    if status.success() && accepted.iter().any(|a| a == first) {
        Ok(())
    } else {
        Err(error(format!(
            "`--version` answered {:?} (exit {})",
            first.chars().take(80).collect::<String>(),
            status
                .code()
                .map_or_else(|| "by a signal".to_string(), |c| c.to_string())
        )))
    }
}

/// The file name of the lean twin of `animus-hook` that runs only `emit`.
pub const LEAN_EMIT_BINARY: &str = "animus-hook-emit";

/// The binary the harness entries run: `animus-hook-emit` when it sits, executable, beside a
/// resolved `animus-hook` (same build, same `emit` code, without the compiler linked in, so it
/// starts faster on every tool call), otherwise `hook_binary` itself. A binary with any other
/// name (a wrapper the user chose) is kept as it is.
pub fn lean_emit_binary(hook_binary: PathBuf) -> PathBuf {
    if hook_binary
        .file_name()
        .is_none_or(|name| name != "animus-hook")
    {
        return hook_binary;
    }
    let lean = hook_binary.with_file_name(LEAN_EMIT_BINARY);
    match std::fs::metadata(&lean) {
        Ok(m) if is_executable_file(&m) => lean,
        _ => hook_binary,
    }
}

/// A regular file with an execute bit set.
fn is_executable_file(metadata: &std::fs::Metadata) -> bool {
    metadata.is_file() && metadata.permissions().mode() & 0o111 != 0
}

/// Find `animus-hook`: the explicit argument, `ANIMUS_HOOK_BIN`, the sibling of the running
/// executable, then `PATH`. The result exists, is a file and is executable — a session is never
/// launched with a gate that cannot run.
pub fn resolve_hook_binary(
    explicit: Option<&Path>,
    env: &dyn Fn(&str) -> Option<OsString>,
) -> Result<PathBuf, Errors> {
    let error = |message: String| Errors::one(Diagnostic::error(None, message));
    let check = |path: &Path, source: &str| -> Result<PathBuf, Errors> {
        match std::fs::metadata(path) {
            Ok(m) if is_executable_file(&m) => std::path::absolute(path)
                .map_err(|e| error(format!("animus-hook from {source}: {e}"))),
            Ok(_) => Err(error(format!(
                "animus-hook from {source} (`{}`) is not an executable file",
                path.display()
            ))),
            Err(e) => Err(error(format!(
                "animus-hook from {source} (`{}`) cannot be used: {e}",
                path.display()
            ))),
        }
    };
    if let Some(path) = explicit {
        return check(path, "the explicit argument");
    }
    if let Some(path) = env(HOOK_BINARY_ENV).filter(|v| !v.is_empty()) {
        return check(Path::new(&path), HOOK_BINARY_ENV);
    }
    if let Some(sibling) = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|d| d.join("animus-hook")))
        .filter(|sibling| sibling.is_file())
    {
        return check(&sibling, "beside the running executable");
    }
    if let Some(path) = env("PATH") {
        for dir in std::env::split_paths(&path) {
            let candidate = dir.join("animus-hook");
            if candidate.is_file() {
                return check(&candidate, "PATH");
            }
        }
    }
    Err(error(format!(
        "cannot find the animus-hook binary (not given explicitly, {HOOK_BINARY_ENV} unset, not beside the running \
         executable, not on PATH); refusing to launch a session whose gate cannot run \
         (set {KILL_SWITCH_ENV}=1 to run unguarded on purpose)"
    )))
}
