//! `animus-hook verify`: prove session logs whole (the chain from the anchor to the seal) and
//! that the gate ran for every finished tool call. The checks are
//! [`gate::record::verify`]'s; this is the command around them.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::replay_input::InputError;
use crate::stdout::{out, outln};
use gate::record::{self, verify::Report};

#[derive(clap::Args)]
#[command(group = clap::ArgGroup::new("logs").required(true).args(["inputs", "session"]).multiple(true))]
pub struct VerifyArgs {
    /// Logs, or directories holding them
    #[arg(value_name = "LOG_OR_DIR")]
    pub inputs: Vec<PathBuf>,
    /// The log of this session (under the state root)
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// With --session: the session's project (default: here)
    #[arg(long, value_name = "DIR", requires = "session")]
    pub project_root: Option<PathBuf>,
    /// Accept a log that ends without a seal (a live session)
    #[arg(long)]
    pub open: bool,
    /// One JSON object per log
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: VerifyArgs) -> ExitCode {
    let logs = match logs_of(&args) {
        Ok(logs) => logs,
        Err(e) => {
            eprintln!("animus-hook verify: {e}");
            return ExitCode::from(2);
        }
    };
    let mut all_ok = true;
    for log in &logs {
        let report = match verify_file(log, args.open) {
            Ok(report) => report,
            Err(e) => {
                eprintln!("animus-hook verify: {e}");
                return ExitCode::from(2);
            }
        };
        all_ok &= report.ok();
        if args.json {
            let mut json = serde_json::to_value(&report).unwrap_or_default();
            json["log"] = log.display().to_string().into();
            json["ok"] = report.ok().into();
            outln!("{json}");
        } else {
            out!("{}", render(log, &report));
        }
    }
    if all_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Why the logs to verify could not be found.
#[derive(Debug, thiserror::Error)]
pub enum LogsError {
    #[error("cannot read the cwd: {0}")]
    Cwd(std::io::Error),
    /// No state root, or a session id that cannot name a file.
    #[error(transparent)]
    Session(#[from] record::RecordError),
    #[error(transparent)]
    Input(#[from] InputError),
    /// A directory without a `*.jsonl` under it.
    #[error("`{}` holds no session log (*.jsonl)", .dir.display())]
    NoLogs { dir: PathBuf },
    #[error("name a log, a directory of logs, or --session <id>")]
    NothingNamed,
}

/// The logs the arguments name: `--session` (in `--project-root`, default here), each file
/// given, and the `*.jsonl` under each directory given, at any depth (a `sessions/`
/// directory, a project's state directory, the whole state root).
pub fn logs_of(args: &VerifyArgs) -> Result<Vec<PathBuf>, LogsError> {
    let mut logs = Vec::new();
    if let Some(session) = &args.session {
        let root = match &args.project_root {
            Some(root) => root.clone(),
            None => std::env::current_dir().map_err(LogsError::Cwd)?,
        };
        logs.push(record::session_log_path(&root, session)?);
    }
    for input in &args.inputs {
        if input.is_dir() {
            let found = jsonl_under(input)?;
            if found.is_empty() {
                return Err(LogsError::NoLogs { dir: input.clone() });
            }
            logs.extend(found);
        } else {
            logs.push(input.clone());
        }
    }
    if logs.is_empty() {
        return Err(LogsError::NothingNamed);
    }
    Ok(logs)
}

/// The `*.jsonl` files of `dir`, sorted.
pub fn jsonl_files(dir: &Path) -> Result<Vec<PathBuf>, InputError> {
    let entries = std::fs::read_dir(dir).map_err(InputError::read(dir))?;
    let mut out: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl") && p.is_file())
        .collect();
    out.sort();
    Ok(out)
}

/// The `*.jsonl` files under `dir`, at any depth, sorted; symbolic links are not followed (a
/// link loop would never end).
pub fn jsonl_under(dir: &Path) -> Result<Vec<PathBuf>, InputError> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = std::fs::read_dir(&dir).map_err(InputError::read(&dir))?;
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                stack.push(path);
            } else if kind.is_file() && path.extension().is_some_and(|x| x == "jsonl") {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Verify the log at `path` against its anchor beside it.
pub fn verify_file(path: &Path, allow_open: bool) -> Result<Report, InputError> {
    let log = std::fs::read(path).map_err(InputError::read(path))?;
    let anchor_path = record::anchor_path(path);
    let anchor = match std::fs::read(&anchor_path) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(InputError::read(&anchor_path)(e)),
    };
    Ok(record::verify::verify(&log, anchor.as_deref(), allow_open))
}

/// The report for people: one line when all holds, else the first problem, then each.
fn render(path: &Path, report: &Report) -> String {
    let seqs = report
        .last_seq
        .map_or_else(|| "no record".to_string(), |last| format!("seq 1..{last}"));
    let head = report.head.as_deref().unwrap_or("-");
    if report.ok() {
        return format!(
            "✓ {}: {} records ({seqs}), {}; {} gate decisions, {} finished calls, each gated; \
             head sha256:{head}\n",
            path.display(),
            report.records,
            if report.sealed { "sealed" } else { "open" },
            report.gate_decisions,
            report.finished_calls,
        );
    }
    let mut out = format!(
        "✗ {}: {} problem{} in {} records ({seqs}); first: {}\n",
        path.display(),
        report.problems.len(),
        if report.problems.len() == 1 { "" } else { "s" },
        report.records,
        report.problems[0].message
    );
    for p in &report.problems {
        out.push_str(&format!("  [{}] {}\n", p.kind, p.message));
    }
    out
}
