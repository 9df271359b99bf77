//! The live checks of `doctor`: the exact installed gate command run on two synthetic calls,
//! and the harness CLI's version, each bounded in time.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{Report, arg_after, env};

/// Run the installed gate command on two synthetic payloads: a shell call that removes the
/// installed policy (the built-in self-protection denies it under every profile) must be
/// denied, and `git status` must get no answer.
pub(super) fn probe(
    binary: &str,
    args: &[String],
    policy: &Path,
    fix: &str,
) -> Result<String, (String, String)> {
    // Not the policy's directory: a shell call made there is the guard's own business, and
    // is denied. The probes are recorded, as session `animus-doctor`, under the temp dir's
    // scope.
    let cwd = std::env::temp_dir();
    // Claude's gate, or opencode's (whose plugin names the tool `bash`).
    // Claude's gate, opencode's or Gemini's, each with its own name for the shell tool.
    let (event, tool) = match arg_after(args, "--event").as_deref() {
        Some("tool.execute.before") => ("tool.execute.before", "bash"),
        Some("BeforeTool") => ("BeforeTool", "run_shell_command"),
        _ => ("PreToolUse", "Bash"),
    };
    let payload = |command: &str| {
        json!({
            "session_id": "animus-doctor",
            "cwd": cwd,
            "hook_event_name": event,
            "tool_name": tool,
            "tool_input": {"command": command},
            "tool_use_id": "toolu_doctor",
            "permission_mode": "default",
        })
        .to_string()
    };
    let mut args = args.to_vec();
    if let Some(i) = args.iter().position(|a| a == "--event")
        && let Some(given) = args.get_mut(i + 1)
    {
        *given = event.into();
    }
    let failed = |e: String| (e, fix.to_string());
    let no_answer = |e: ChildError| failed(e.to_string());
    let deny = run_gate(
        binary,
        &args,
        &payload(&format!("rm -f {}", policy.display())),
    )
    .map_err(no_answer)?;
    let denied: Option<Value> = serde_json::from_str(deny.trim()).ok();
    let decision = denied
        .as_ref()
        .and_then(|v| {
            v.pointer("/hookSpecificOutput/permissionDecision")
                .or_else(|| v.get("decision"))
        })
        .and_then(Value::as_str);
    if decision != Some("deny") {
        return Err(failed(format!(
            "the installed gate did not deny removing its own policy; it answered {:?}",
            deny.trim()
        )));
    }
    let benign = run_gate(binary, &args, &payload("git status")).map_err(no_answer)?;
    if !benign.trim().is_empty() {
        return Err(failed(format!(
            "the installed gate answered `git status` with {:?} (expected nothing)",
            benign.trim()
        )));
    }
    Ok("denies removing its own policy, leaves `git status` to claude".into())
}

/// Why a child (the installed gate, a harness CLI) gave no answer.
#[derive(Debug, thiserror::Error)]
enum ChildError {
    #[error("cannot run {binary}: {source}")]
    Spawn {
        binary: String,
        source: std::io::Error,
    },
    #[error("{0}")]
    Wait(std::io::Error),
    #[error("no answer within {} s", .0.as_secs())]
    Timeout(Duration),
}

/// Run `binary args` with `payload` on stdin, bounded; its stdout.
fn run_gate(binary: &str, args: &[String], payload: &str) -> Result<String, ChildError> {
    let mut child = Command::new(binary)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|source| ChildError::Spawn {
            binary: binary.to_string(),
            source,
        })?;
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(payload.as_bytes());
    }
    let out = wait_bounded(child, Duration::from_secs(40))?;
    Ok(String::from_utf8_lossy(&out).into_owned())
}

fn wait_bounded(mut child: std::process::Child, limit: Duration) -> Result<Vec<u8>, ChildError> {
    let started = Instant::now();
    loop {
        if child.try_wait().map_err(ChildError::Wait)?.is_some() {
            let out = child.wait_with_output().map_err(ChildError::Wait)?;
            return Ok(out.stdout);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Err(ChildError::Timeout(limit));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// `<name> --version`, when `name` is on `PATH` (nothing when it is not).
pub(super) fn cli_version(report: &mut Report, name: &str) {
    let Some(path) = env("PATH") else { return };
    let Some(claude) = std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
    else {
        return;
    };
    let child = Command::new(&claude)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn();
    let result = child
        .map_err(ChildError::Wait)
        .and_then(|c| wait_bounded(c, Duration::from_secs(20)));
    match result {
        Ok(out) if !out.is_empty() => report.pass(
            format!("{name} CLI"),
            format!(
                "{} {}",
                claude.display(),
                String::from_utf8_lossy(&out).trim()
            ),
        ),
        Ok(_) => report.fail(
            format!("{name} CLI"),
            format!("{} --version printed nothing", claude.display()),
            format!("reinstall {name}"),
        ),
        Err(e) => report.fail(
            format!("{name} CLI"),
            format!("{}: {e}", claude.display()),
            format!("reinstall {name}"),
        ),
    }
}
