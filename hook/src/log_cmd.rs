//! `animus-hook log`: the recorded gate decisions, newest last.
//!
//! Reads every session log under the state root (`$ANIMUS_CONFIG_DIR`, else `~/.animus`), or
//! the one project's with `--project`, through the reader `verify` uses
//! ([`gate::record::reader`]). A line that is not a record is skipped (`verify` names it).

use std::collections::BTreeMap;
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use gate::record::reader::{Entry, View, lines, parse, shorten};
use serde_json::Value;

use crate::replay_input::InputError;

#[derive(clap::Args)]
pub struct LogArgs {
    /// Only this session's decisions
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// Only these decisions (repeat it, or a comma list)
    #[arg(long = "decision", value_name = "DECISION", value_delimiter = ',',
          value_parser = DecisionParser)]
    pub decisions: Vec<String>,
    /// Since when: RFC 3339, a date, or a span back from now (90s, 30m, 2h, 7d, 2w)
    #[arg(long, value_name = "WHEN", value_parser = since_now)]
    pub since: Option<i64>, // microseconds since the epoch
    /// Only this project's sessions
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,
    /// Then print new decisions as they are recorded
    #[arg(long, conflicts_with = "stats")]
    pub follow: bool,
    /// Each record as recorded, one a line
    #[arg(long)]
    pub json: bool,
    /// Count decisions per session and denies/asks per rule
    #[arg(long)]
    pub stats: bool,
}

/// `--decision`: deny, ask, allow or defer, in any case, with spaces around it ignored
/// (`--decision "deny, ask"`).
#[derive(Clone)]
struct DecisionParser;

const DECISIONS: [&str; 4] = ["deny", "ask", "allow", "defer"];

impl clap::builder::TypedValueParser for DecisionParser {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        match value.to_str().map(|v| v.trim().to_ascii_lowercase()) {
            Some(decision) if DECISIONS.contains(&decision.as_str()) => Ok(decision),
            // clap's own error, naming the values.
            _ => clap::builder::PossibleValuesParser::new(DECISIONS).parse_ref(cmd, arg, value),
        }
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            DECISIONS.into_iter().map(clap::builder::PossibleValue::new),
        ))
    }
}

/// `--since` as clap parses it: relative to now.
fn since_now(text: &str) -> Result<i64, SinceError> {
    parse_since(text, SystemTime::now())
}

/// A `--since` that is neither a time nor a span; clap reports it.
#[derive(Debug, thiserror::Error)]
#[error(
    "--since `{text}` is neither an RFC 3339 time (2026-12-04T10:00:00Z, or a date) nor a span \
     back from now (90s, 30m, 2h, 7d, 2w)"
)]
pub struct SinceError {
    /// The value given.
    pub text: String,
}

/// `--since`: RFC 3339 (or a date), or a span back from now: `90s`, `30m`, `2h`, `7d`, `2w`.
pub fn parse_since(text: &str, now: SystemTime) -> Result<i64, SinceError> {
    if let Some(at) = gate::time::parse_rfc3339_micros(text) {
        return Ok(at);
    }
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let seconds = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        _ => 0,
    };
    let n: i64 = number.parse().unwrap_or(-1);
    if seconds == 0 || n < 0 {
        return Err(SinceError {
            text: text.to_string(),
        });
    }
    let now = now
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_micros() as i64;
    Ok(now - n.saturating_mul(seconds).saturating_mul(1_000_000))
}

pub fn run(args: LogArgs) -> ExitCode {
    match log(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("animus-hook log: {e}");
            ExitCode::from(2)
        }
    }
}

/// Why the logs could not be listed.
#[derive(Debug, thiserror::Error)]
enum LogError {
    #[error(transparent)]
    Input(#[from] InputError),
    /// No state root, or no scope for the project.
    #[error(transparent)]
    State(#[from] gate::record::RecordError),
}

fn log(args: &LogArgs) -> Result<(), LogError> {
    let mut shown: Vec<(String, Value, String)> = Vec::new();
    let mut offsets: BTreeMap<PathBuf, u64> = BTreeMap::new();
    for path in session_logs(args)? {
        let bytes = std::fs::read(&path).map_err(InputError::read(&path))?;
        let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        for (record, raw) in records(&bytes[..whole]) {
            if keep(args, &record) {
                let ts = View(&record).ts().unwrap_or_default().to_string();
                shown.push((ts, record, raw));
            }
        }
        offsets.insert(path, whole as u64);
    }
    // Newest last, across sessions (the timestamps are all UTC, in one format).
    shown.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out = std::io::stdout().lock();
    if args.stats {
        let records: Vec<&Value> = shown.iter().map(|(_, r, _)| r).collect();
        let _ = out.write_all(stats(&records).as_bytes());
        return Ok(());
    }
    for (_, record, raw) in &shown {
        let _ = out.write_all(line_for(args, record, raw).as_bytes());
    }
    let _ = out.flush();
    drop(out);
    if args.follow {
        follow(args, offsets)?;
    }
    Ok(())
}

/// The session logs to read.
fn session_logs(args: &LogArgs) -> Result<Vec<PathBuf>, LogError> {
    let root = gate::record::state_root()?;
    let scopes: Vec<PathBuf> = match &args.project {
        Some(project) => {
            vec![root.join(gate::record::repo_scope(project)?)]
        }
        None => match std::fs::read_dir(&root) {
            Ok(entries) => {
                let mut dirs: Vec<PathBuf> = entries
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.join("sessions").is_dir())
                    .collect();
                dirs.sort();
                dirs
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(InputError::read(&root)(e).into()),
        },
    };
    let mut logs = Vec::new();
    for scope in scopes {
        let sessions = scope.join("sessions");
        if !sessions.is_dir() {
            continue;
        }
        for log in crate::verify_cmd::jsonl_files(&sessions)? {
            let stem = log.file_stem().map(|s| s.to_string_lossy().into_owned());
            if args
                .session
                .as_ref()
                .is_none_or(|s| Some(s) == stem.as_ref())
            {
                logs.push(log);
            }
        }
    }
    Ok(logs)
}

/// The records of whole lines of a log, each with its line as written.
fn records(bytes: &[u8]) -> Vec<(Value, String)> {
    lines(bytes)
        .into_iter()
        .filter(|l| l.terminated)
        .filter_map(|l| match parse(l.bytes) {
            Entry::Chained { record, .. } | Entry::Unchained(record) => {
                Some((record, String::from_utf8_lossy(l.bytes).into_owned()))
            }
            Entry::Invalid(_) => None,
        })
        .collect()
}

/// A gate decision that passes the filters.
fn keep(args: &LogArgs, record: &Value) -> bool {
    let view = View(record);
    let Some(decision) = view.decision() else {
        return false;
    };
    if !view.gate() {
        return false;
    }
    if !args.decisions.is_empty() && !args.decisions.iter().any(|d| d == decision) {
        return false;
    }
    if let Some(session) = &args.session
        && view.session() != Some(session.as_str())
    {
        return false;
    }
    if let Some(since) = args.since {
        let at = view.ts().and_then(gate::time::parse_rfc3339_micros);
        if at.is_none_or(|at| at < since) {
            return false;
        }
    }
    true
}

/// One record as printed: the line as recorded (`--json`), or its columns.
fn line_for(args: &LogArgs, record: &Value, raw: &str) -> String {
    if args.json {
        return format!("{raw}\n");
    }
    let view = View(record);
    let ts = view.ts().unwrap_or("-");
    // To the second: the microseconds are in --json.
    let ts = ts.get(..19).map_or(ts.to_string(), |t| format!("{t}Z"));
    format!(
        "{ts}  {}  {}  {}  {}  {}  {}  {}\n",
        shorten(view.session().unwrap_or("-"), 24),
        view.harness().unwrap_or("-"),
        shorten(view.tool_name().unwrap_or("-"), 24),
        shorten(&view.subject().unwrap_or_else(|| "-".into()), 60),
        view.decision().unwrap_or("-").to_uppercase(),
        view.deciding_rule().unwrap_or("(default)"),
        shorten(view.reason().unwrap_or(""), 100),
    )
}

/// `--stats`: per session, the decisions counted; per rule, its denies and asks; the top rules.
fn stats(records: &[&Value]) -> String {
    #[derive(Default)]
    struct Counts {
        deny: usize,
        ask: usize,
        allow: usize,
        defer: usize,
    }
    impl Counts {
        fn add(&mut self, decision: &str) {
            match decision {
                "deny" => self.deny += 1,
                "ask" => self.ask += 1,
                "allow" => self.allow += 1,
                _ => self.defer += 1,
            }
        }
    }
    let mut sessions: BTreeMap<String, (Counts, String, String)> = BTreeMap::new();
    let mut rules: BTreeMap<String, Counts> = BTreeMap::new();
    for record in records {
        let view = View(record);
        let decision = view.decision().unwrap_or("defer");
        let ts = view.ts().unwrap_or_default().to_string();
        let entry = sessions
            .entry(view.session().unwrap_or("-").to_string())
            .or_insert_with(|| (Counts::default(), ts.clone(), ts.clone()));
        entry.0.add(decision);
        entry.2 = ts;
        if matches!(decision, "deny" | "ask") {
            rules
                .entry(view.deciding_rule().unwrap_or("(default)").to_string())
                .or_default()
                .add(decision);
        }
    }
    let mut out = format!(
        "{} decisions in {} sessions\n\nper session:      deny   ask  allow  defer  first .. last\n",
        records.len(),
        sessions.len()
    );
    for (session, (c, first, last)) in &sessions {
        out.push_str(&format!(
            "  {:<14} {:>6} {:>5} {:>6} {:>6}  {} .. {}\n",
            shorten(session, 14),
            c.deny,
            c.ask,
            c.allow,
            c.defer,
            first.get(..19).unwrap_or(first),
            last.get(..19).unwrap_or(last)
        ));
    }
    let mut top: Vec<(&String, &Counts)> = rules.iter().collect();
    top.sort_by(|a, b| {
        (b.1.deny + b.1.ask)
            .cmp(&(a.1.deny + a.1.ask))
            .then(a.0.cmp(b.0))
    });
    out.push_str("\ntop rules (deny, ask):\n");
    if top.is_empty() {
        out.push_str("  (none: nothing was denied or asked)\n");
    }
    for (rule, c) in top.iter().take(10) {
        out.push_str(&format!("  {:>6} {:>5}  {rule}\n", c.deny, c.ask));
    }
    out
}

/// `--follow`: print each new record that passes the filters as it is written, polling the
/// logs (and any new one) four times a second, until interrupted.
fn follow(args: &LogArgs, mut offsets: BTreeMap<PathBuf, u64>) -> Result<(), LogError> {
    loop {
        std::thread::sleep(Duration::from_millis(250));
        for path in session_logs(args)? {
            let from = offsets.get(&path).copied().unwrap_or(0);
            let Some((bytes, whole)) = read_from(&path, from) else {
                continue;
            };
            let mut out = std::io::stdout().lock();
            for (record, raw) in records(&bytes[..whole]) {
                if keep(args, &record) {
                    // A closed stdout (`log --follow | head`) ends the command.
                    if out
                        .write_all(line_for(args, &record, &raw).as_bytes())
                        .and_then(|()| out.flush())
                        .is_err()
                    {
                        return Ok(());
                    }
                }
            }
            offsets.insert(path, from + whole as u64);
        }
    }
}

/// The bytes of `path` from `from`, and how many of them are whole lines.
fn read_from(path: &Path, from: u64) -> Option<(Vec<u8>, usize)> {
    use std::io::Read;
    let mut file = std::fs::File::open(path).ok()?;
    if file.metadata().ok()?.len() <= from {
        return None;
    }
    file.seek(std::io::SeekFrom::Start(from)).ok()?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).ok()?;
    let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    Some((bytes, whole))
}
