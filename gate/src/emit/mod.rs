//! `animus-hook emit`: the hot path the harness runs on every event.
//!
//! ```text
//! animus-hook emit [--provider claude|codex|gemini|opencode] --event <E>
//!     (--session <id> --project-root <root> | --from-payload)
//!     [--policy <animus-policy.json> [--policy-digest sha256:<hex>]]
//! ```
//!
//! `--from-payload` (what `animus-hook install` writes) takes the session id from each
//! payload's `session_id` and the project from its `cwd` ([`from_payload`]), so one command in
//! the user's settings serves every session.
//!
//! `--policy-digest` pins the policy: `inject` writes the SHA-256 of the policy's stamp into
//! every gate command, and a policy whose files are not the pinned ones (another compiled
//! policy copied over the session's, a file edited) is a deny naming the mismatch
//! ([`engine::sidecar::stamp`] says how this is proved without hashing the files).
//!
//! With `--policy` and a gate event of the harness (`PreToolUse` and `PermissionRequest` for
//! Claude Code and Codex, `BeforeTool` for Gemini CLI, `tool.execute.before` for the opencode
//! plugin) it decides and prints the harness's decision line; otherwise it only records. The
//! harness is `--provider`, else the one whose gate event `--event` names, else Codex when the
//! payload carries Codex's `turn_id`, else Claude Code. Each call is decided as the canonical
//! calls it stands for ([`engine::harness`]). It exits 0, except for `--policy`
//! given to an event that is not a gate (a settings mistake: exit 1 with an error, after
//! recording). A fatal signal (a policy file changed under its map) answers deny too.
//!
//! ## Fail closed
//!
//! For a gate, every failure — bad arguments, policy unreadable or invalid, sidecar stale or
//! corrupt, stdin not JSON, over the size cap or never closed, no `tool_name`, an invalid
//! session id (under `--from-payload`: a payload with no valid `session_id` or no absolute
//! `cwd`), a record that cannot be written, a panic — prints an explicit **deny** naming
//! the cause (never the command line or payload content). A deadline timer answers deny if
//! the whole run exceeds its deadline, so a hung stdin or a pathological policy cannot hang the
//! harness (see [`deadline`]). Observer events never block and print nothing, whatever fails.
//!
//! ## The record
//!
//! Every event appends one record to the session log ([`crate::record`]): chained to the one
//! before it (`seq`, and the SHA-256 of the previous line, from the session's anchor), so
//! `animus-hook verify` can prove the log whole; a `SessionEnd` seals it. The record of a call
//! that never finished deciding (a fatal signal, the deadline) is chained by the same code.
//!
//! ## When recording fails
//!
//! A gate whose event cannot be recorded **denies** ("cannot record this call …"): a call that
//! could run without a trace in the session log would defeat the log's purpose (a later check
//! flags tool calls the gate never saw), and the kill switch — not a full disk or an unwritable
//! state directory — is the only way to run unguarded. A deny stays a deny in every case.

mod deadline;
mod event;
pub mod from_payload;
mod output;
mod process;

use std::ffi::OsString;
use std::io::{Read, Write};
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use engine::harness::Harness;
use engine::{Decision, Outcome};
use serde_json::Value;

use crate::harness_call::CallError;
use crate::payload::PayloadError;
use crate::policy_source::HookPolicyError;
use crate::record;
use crate::{harness_call, policy_source};
use event::{event_record, open_log};

pub use output::harness_line;
pub use process::start_without_runtime;

/// Largest payload read from stdin.
pub const MAX_PAYLOAD_BYTES: u64 = 10 * 1024 * 1024;
/// Default deadline for the whole run; `ANIMUS_HOOK_DEADLINE_MS` overrides it (100–60000).
pub const DEFAULT_DEADLINE_MS: u64 = 10_000;

#[derive(Clone, Default)]
struct EmitArgs {
    event: Option<String>,
    session: Option<String>,
    project_root: Option<PathBuf>,
    /// `--from-payload`: the session and the project come from each payload.
    from_payload: bool,
    policy: Option<PathBuf>,
    /// `--policy-digest`, as given (checked when the policy is loaded).
    policy_digest: Option<String>,
    /// `--provider`, when given and known.
    provider: Option<Harness>,
    /// Argument problems, kept rather than aborting: a gate must still answer deny.
    problems: Vec<String>,
}

/// How this run must answer.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Role {
    /// Decide and print; the event the harness configured.
    Gate(String),
    /// Record only; print nothing.
    Observer,
}

pub fn run(args: Vec<OsString>) -> ExitCode {
    ExitCode::from(run_for_status(args))
}

/// [`run`], giving the process's exit status as a number (for a `main` that returns it to the
/// C library: `animus-hook-emit` starts without the Rust runtime).
pub fn run_for_status(args: Vec<OsString>) -> u8 {
    let args = parse_args(args);
    let harness = harness_of(&args);
    let role = role_of(&args, harness);
    let deadline = deadline();
    start_deadline(harness, &role, deadline);
    let result = panic::catch_unwind(AssertUnwindSafe(|| handle(&args, harness, &role)));
    if let Err(panic) = result {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        if let Role::Gate(event) = &role {
            answer(harness_line(
                harness,
                event,
                Decision::Deny,
                &fail_closed_reason(&format!("internal error ({what})")),
            ));
        }
    }
    // `--policy` on an event that gates nothing is a mistake in the hook's settings (the
    // policy is never read): the event is recorded, and the harness shows the error.
    if role == Role::Observer
        && args.policy.is_some()
        && let Some(event) = &args.event
    {
        eprintln!(
            "animus-hook emit: `--policy` is only read by the gate events ({}); `--event \
             {event}` records without deciding, so drop `--policy` from this hook's settings",
            gate_names(harness).join(", ")
        );
        return 1;
    }
    0
}

fn parse_args(args: Vec<OsString>) -> EmitArgs {
    use lexopt::prelude::*;
    let mut out = EmitArgs::default();
    let mut parser = lexopt::Parser::from_args(args);
    loop {
        let arg = match parser.next() {
            Ok(Some(arg)) => arg,
            Ok(None) => break,
            Err(e) => {
                out.problems.push(e.to_string());
                break;
            }
        };
        let mut value = |parser: &mut lexopt::Parser, name: &str| -> Option<String> {
            match parser.value().map(|v| v.into_string()) {
                Ok(Ok(v)) => Some(v),
                Ok(Err(_)) => {
                    out.problems.push(format!("{name} is not valid UTF-8"));
                    None
                }
                Err(e) => {
                    out.problems.push(e.to_string());
                    None
                }
            }
        };
        match arg {
            Long("event") => out.event = value(&mut parser, "--event"),
            Long("session") => out.session = value(&mut parser, "--session"),
            Long("project-root") => {
                out.project_root = value(&mut parser, "--project-root").map(PathBuf::from)
            }
            Long("from-payload") => out.from_payload = true,
            Long("policy") => out.policy = value(&mut parser, "--policy").map(PathBuf::from),
            Long("policy-digest") => out.policy_digest = value(&mut parser, "--policy-digest"),
            Long("provider") => {
                if let Some(name) = value(&mut parser, "--provider") {
                    match Harness::parse(&name) {
                        Some(harness) => out.provider = Some(harness),
                        None => out.problems.push(format!(
                            "unknown --provider `{name}`; expected one of {}",
                            Harness::ALL.map(Harness::as_str).join(", ")
                        )),
                    }
                }
            }
            other => out.problems.push(other.unexpected().to_string()),
        }
    }
    out
}

/// The harness this run answers before the payload is read ([`harness_call::detect`]
/// without it: Claude's and Codex's answers differ only for an ask).
fn harness_of(args: &EmitArgs) -> Harness {
    harness_call::detect(args.provider, args.event.as_deref(), None)
}

/// The harness's gate event names.
fn gate_names(harness: Harness) -> Vec<&'static str> {
    harness
        .gate_events()
        .iter()
        .map(|(native, _)| *native)
        .collect()
}

/// With `--policy`, a gate event (or no usable event at all) makes this run a gate: it must
/// answer. Without `--policy`, or for a non-gate event, it only records.
fn role_of(args: &EmitArgs, harness: Harness) -> Role {
    match (&args.policy, args.event.as_deref()) {
        (Some(_), Some(event)) if harness.canonical_event(event).is_some() => {
            Role::Gate(event.to_string())
        }
        // A mistyped gate event (`Pretooluse`) with a policy must not silently become an
        // observer: it answers as the gate it names, with a deny (see `evaluate`).
        (Some(_), Some(event)) => match gate_event_like(harness, event) {
            Some(gate) => Role::Gate(gate.to_string()),
            None => Role::Observer,
        },
        (Some(_), None) => Role::Gate(gate_names(harness)[0].into()),
        _ => Role::Observer,
    }
}

/// The gate event `event` is a misspelling of: equal but for letter case, `_`, `-` and `.`.
fn gate_event_like(harness: Harness, event: &str) -> Option<&'static str> {
    let folded = |s: &str| -> String {
        s.chars()
            .filter(|c| !matches!(c, '_' | '-' | '.'))
            .flat_map(char::to_lowercase)
            .collect()
    };
    gate_names(harness)
        .into_iter()
        .find(|gate| folded(gate) == folded(event))
}

fn deadline() -> Duration {
    let ms = std::env::var("ANIMUS_HOOK_DEADLINE_MS")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .map_or(DEFAULT_DEADLINE_MS, |v| v.clamp(100, 60_000));
    Duration::from_millis(ms)
}

/// Arm the deadline: a gate denies when it passes, an observer exits silently (an observer
/// never blocks, and never hangs the harness either).
fn start_deadline(harness: Harness, role: &Role, deadline: Duration) {
    let ms = deadline.as_millis();
    let (line, note) = match role {
        Role::Gate(event) => {
            let cause =
                format!("no decision within {ms} ms (stdin never closed, or evaluation hung)");
            (
                harness_line(harness, event, Decision::Deny, &fail_closed_reason(&cause)),
                format!("animus-hook emit: {cause}; denied\n"),
            )
        }
        Role::Observer => (
            None,
            format!(
                "animus-hook emit: gave up after {ms} ms (stdin never closed); event not recorded\n"
            ),
        ),
    };
    let crash_line = match role {
        Role::Gate(event) => {
            harness_line(harness, event, Decision::Deny, &fail_closed_reason(CRASHED))
        }
        Role::Observer => None,
    };
    if !deadline::arm_crash(crash_line) {
        eprintln!("animus-hook emit: could not install the fatal-signal handlers");
    }
    if !deadline::arm(deadline, line, note) {
        // Without the timer the main path still answers; only a hang would go unanswered, and
        // the harness entry's own timeout with `onFailure: block` covers that.
        eprintln!("animus-hook emit: could not arm the {ms} ms deadline");
    }
}

/// Print `line` unless the deadline already answered; returns whether this call answered.
fn answer(line: Option<String>) -> bool {
    if !deadline::claim() {
        return false;
    }
    if let Some(line) = line {
        let mut stdout = std::io::stdout().lock();
        // One write of one line: the harness reads a single JSON document.
        let _ = stdout.write_all(line.as_bytes());
        let _ = stdout.flush();
    }
    true
}

/// The error of the record a fatal signal or the deadline appends for the main path.
const UNFINISHED: &str = "the hook did not finish deciding: it crashed on a fatal signal, or \
                          its deadline passed (its stderr and its answer say which)";

/// The cause a fatal signal's deny gives.
const CRASHED: &str = "the hook crashed on a fatal signal (SIGBUS: a mapped policy file was \
                       changed in place under it)";

fn fail_closed_reason(cause: &str) -> String {
    format!("animus-hook could not evaluate this call, so it is denied (fail closed): {cause}.")
}

/// What happened to the payload and the decision, for the record.
#[derive(Default)]
struct Evaluation {
    outcome: Option<Outcome>,
    error: Option<String>,
    policy_digest: Option<String>,
    evaluator: Option<&'static str>,
    decide_us: Option<u128>,
}

fn handle(args: &EmitArgs, harness: Harness, role: &Role) {
    let started = Instant::now();
    // Fault injection for the fault-matrix tests; compiled into debug builds only.
    #[cfg(debug_assertions)]
    if std::env::var_os("ANIMUS_HOOK_FAULT").is_some_and(|v| v == "panic") {
        panic!("injected fault");
    }
    let (payload, facts) = read_payload();
    let (payload_value, payload_error) = match payload {
        Ok(value) => (Some(value), None),
        Err(e) => (None, Some(e)),
    };
    let resolved;
    let args = if args.from_payload {
        resolved = from_payload::resolve(args, payload_value.as_ref());
        &resolved
    } else {
        args
    };
    let harness = match &payload_value {
        Some(payload) if args.provider.is_none() && harness == Harness::Claude => {
            harness_call::detect(None, args.event.as_deref(), Some(payload))
        }
        _ => harness,
    };
    // The log is opened before deciding, so that a fatal signal or the deadline while
    // deciding still leaves a record (prepared here) beside its deny.
    let log = open_log(args);
    if let Ok((session_log, _)) = &log {
        let crash = Evaluation {
            error: Some(UNFINISHED.into()),
            ..Evaluation::default()
        };
        let record = event_record(
            args,
            (harness, role),
            payload_value.as_ref(),
            facts.as_ref(),
            &crash,
            started,
            true,
        );
        if let Ok(line) = record {
            use std::os::fd::AsRawFd;
            deadline::set_last_record(
                session_log.file.as_raw_fd(),
                session_log.anchor.as_raw_fd(),
                line,
            );
        }
    }
    let evaluation = match role {
        Role::Gate(event) => evaluate(args, harness, event, payload_value.as_ref(), payload_error),
        Role::Observer => Evaluation {
            error: payload_error.map(|e| e.to_string()),
            ..Evaluation::default()
        },
    };
    let recorded = log.and_then(|(session_log, path)| {
        let line = event_record(
            args,
            (harness, role),
            payload_value.as_ref(),
            facts.as_ref(),
            &evaluation,
            started,
            false,
        )?;
        // From here the real record is written: a crash after it must not add a second one.
        deadline::set_last_record(-1, -1, Vec::new());
        Ok(record::append_line(session_log, &path, &line)?)
    });
    match role {
        Role::Observer => {
            if let Err(e) = recorded {
                eprintln!("animus-hook emit: event not recorded: {e}");
            }
            answer(None);
        }
        Role::Gate(event) => {
            let (decision, reason) = match (&evaluation.outcome, &evaluation.error, recorded) {
                (_, Some(cause), _) => (Decision::Deny, fail_closed_reason(cause)),
                (Some(out), None, Ok(())) => (out.decision, out.reason.clone()),
                (Some(out), None, Err(e)) if out.decision == Decision::Deny => {
                    eprintln!("animus-hook emit: event not recorded: {e}");
                    (Decision::Deny, out.reason.clone())
                }
                (_, None, Err(e)) => (
                    Decision::Deny,
                    fail_closed_reason(&format!(
                        "cannot record this call to the session log ({e})"
                    )),
                ),
                (None, None, Ok(())) => (
                    Decision::Deny,
                    fail_closed_reason("no decision was reached"),
                ),
            };
            answer(harness_line(harness, event, decision, &reason));
        }
    }
}

/// What the record says of the exact bytes read: their length and SHA-256, so a record whose
/// strings were cut still identifies the payload the decision was made on.
struct PayloadFacts {
    bytes: usize,
    sha256: String,
}

/// Read stdin once, at most [`MAX_PAYLOAD_BYTES`], and parse it as a JSON object. The facts of
/// the bytes read are returned whenever stdin could be read.
fn read_payload() -> (Result<Value, ReadPayloadError>, Option<PayloadFacts>) {
    let mut bytes = Vec::new();
    if let Err(e) = std::io::stdin()
        .lock()
        .take(MAX_PAYLOAD_BYTES + 1)
        .read_to_end(&mut bytes)
    {
        return (Err(ReadPayloadError::Stdin(e)), None);
    }
    let facts = PayloadFacts {
        bytes: bytes.len(),
        sha256: crate::sha256::hex(&crate::sha256::sha256(&bytes)),
    };
    if bytes.len() as u64 > MAX_PAYLOAD_BYTES {
        return (
            Err(ReadPayloadError::TooLarge {
                cap_mib: MAX_PAYLOAD_BYTES / (1024 * 1024),
            }),
            Some(facts),
        );
    }
    let parsed = serde_json::from_slice::<Value>(&bytes)
        .map_err(ReadPayloadError::NotJson)
        .and_then(|value| {
            if value.is_object() {
                Ok(value)
            } else {
                Err(ReadPayloadError::NotAnObject)
            }
        });
    (parsed, Some(facts))
}

/// Why the payload on stdin cannot be decided on; the record's `error` and a gate's deny.
#[derive(Debug, thiserror::Error)]
enum ReadPayloadError {
    #[error("cannot read the payload from stdin ({0})")]
    Stdin(std::io::Error),
    #[error("the payload exceeds the {cap_mib} MiB cap")]
    TooLarge { cap_mib: u64 },
    #[error("the payload is not JSON ({0})")]
    NotJson(serde_json::Error),
    #[error("the payload is not a JSON object")]
    NotAnObject,
}

/// Why a gate could not decide; the record's `error` and the deny's cause (fail closed).
#[derive(Debug, thiserror::Error)]
enum EvaluateError {
    /// The first of the argument problems.
    #[error("invalid arguments ({0})")]
    InvalidArguments(String),
    #[error("missing --event")]
    MissingEvent,
    #[error(
        "`--event {given}` is not a gate event (did you mean `{event}`?); fix the hook's settings"
    )]
    WrongEvent { given: String, event: String },
    #[error(transparent)]
    Unreadable(ReadPayloadError),
    #[error("no payload")]
    NoPayload,
    #[error("the payload's `hook_event_name` is not a string")]
    EventNameNotAString,
    #[error("the payload is for event `{sent}` but this hook gates `{event}`")]
    OtherEvent { sent: String, event: String },
    #[error(transparent)]
    Payload(#[from] PayloadError),
    #[error("missing --policy")]
    MissingPolicy,
    /// `--policy-digest` is not a pin.
    #[error(transparent)]
    Pin(#[from] engine::sidecar::stamp::PinError),
    #[error(transparent)]
    Policy(#[from] HookPolicyError),
    #[error(transparent)]
    Call(#[from] CallError<HookPolicyError>),
}

fn evaluate(
    args: &EmitArgs,
    harness: Harness,
    event: &str,
    payload: Option<&Value>,
    payload_error: Option<ReadPayloadError>,
) -> Evaluation {
    let mut evaluation = Evaluation::default();
    let failure = (|| -> Result<Outcome, EvaluateError> {
        if let Some(problem) = args.problems.first() {
            return Err(EvaluateError::InvalidArguments(problem.clone()));
        }
        match args.event.as_deref() {
            None => return Err(EvaluateError::MissingEvent),
            Some(given) if given != event => {
                return Err(EvaluateError::WrongEvent {
                    given: given.to_string(),
                    event: event.to_string(),
                });
            }
            Some(_) => {}
        }
        if let Some(e) = payload_error {
            return Err(EvaluateError::Unreadable(e));
        }
        let payload = payload.ok_or(EvaluateError::NoPayload)?;
        if payload
            .get("hook_event_name")
            .is_some_and(|v| !v.is_string() && !v.is_null())
        {
            return Err(EvaluateError::EventNameNotAString);
        }
        if let Some(sent) = payload.get("hook_event_name").and_then(Value::as_str)
            && sent != event
        {
            return Err(EvaluateError::OtherEvent {
                sent: sent.to_string(),
                event: event.to_string(),
            });
        }
        // A payload without a usable tool is reported before the policy is read.
        crate::payload::tool_name(payload)?;
        CallError::<HookPolicyError>::gate_event(harness, event)?;
        let policy_path = args.policy.as_deref().ok_or(EvaluateError::MissingPolicy)?;
        let pin = args
            .policy_digest
            .as_deref()
            .map(engine::sidecar::stamp::parse_pin)
            .transpose()
            .map_err(EvaluateError::Pin)?;
        let loaded = policy_source::load_for_hook(policy_path, pin.as_ref())?;
        #[cfg(debug_assertions)]
        change_sidecar_under_the_map(policy_path);
        evaluation.policy_digest = Some(policy_source::digest(&loaded));
        evaluation.evaluator = Some(policy_source::evaluator(&loaded));
        let started = Instant::now();
        let home = crate::places::home_dir();
        let project_root = args.project_root.as_deref().and_then(|p| p.to_str());
        let places = crate::places::of_payload(payload, home.as_deref(), project_root);
        // One look at the file system for the whole call: the guard's places, the policy's
        // path texts and the guard's reading of the command share their `lstat`s.
        let outcome = engine::paths::one_memo_for(|| {
            harness_call::decide(harness, event, payload, places, policy_path, |call| {
                policy_source::decide(&loaded, call)
            })
        })?;
        evaluation.decide_us = Some(started.elapsed().as_micros());
        // The process ends right after recording: leave the two file maps to the kernel's
        // teardown at exit instead of unmapping them now (two `munmap`s and TLB flushes).
        std::mem::forget(loaded);
        Ok(outcome)
    })();
    match failure {
        Ok(outcome) => evaluation.outcome = Some(outcome),
        Err(e) => evaluation.error = Some(e.to_string()),
    }
    evaluation
}

/// Fault injection for the fault tests (debug builds only): between loading the policy and
/// deciding, `ANIMUS_HOOK_FAULT=truncate-sidecar` truncates the mapped sidecar (the next read
/// of a page past the end raises SIGBUS), `rewrite-sidecar` writes its bytes back in place
/// (as a `cp` over it does), changing the file under the map, `hang-deciding` never ends, and
/// `stack-overflow` recurses until the stack's guard page faults (`SIGSEGV`, answered from the
/// alternate signal stack).
#[cfg(debug_assertions)]
fn change_sidecar_under_the_map(policy: &std::path::Path) {
    let fault = std::env::var("ANIMUS_HOOK_FAULT").unwrap_or_default();
    let sidecar = engine::sidecar::sidecar_path_for(policy);
    let open = || std::fs::OpenOptions::new().write(true).open(&sidecar);
    match fault.as_str() {
        "truncate-sidecar" => {
            let _ = open().and_then(|f| f.set_len(0));
        }
        "rewrite-sidecar" => {
            let _ = std::fs::read(&sidecar).and_then(|bytes| open()?.write_all(&bytes));
        }
        // A decision that never ends: the deadline must answer, and record.
        "hang-deciding" => std::thread::sleep(Duration::from_secs(60)),
        "stack-overflow" => {
            // The point: it never returns.
            #[allow(unconditional_recursion)]
            fn deeper(depth: u64) -> u64 {
                let frame = std::hint::black_box([depth; 512]);
                deeper(depth + 1) + frame[(depth % 512) as usize]
            }
            std::hint::black_box(deeper(0));
        }
        _ => {}
    }
}
