//! `animus-hook test`: run policy test cases against a profile before an agent runs under it.
//!
//! The profile is compiled in memory (nothing is written) and lowered to the automata the hook
//! decides with; each case is decided by them and by the reference evaluator. A case fails when
//! the decision is not the one it expects, or when the two evaluators disagree (a bug). One line
//! per failure at the case's `file:line:column`, then `N passed, N failed`; exit 1 on any
//! failure or error.

use std::path::PathBuf;
use std::process::ExitCode;

use compiler::{Diagnostic, Location};
use engine::Decision;
use serde_json::json;

use crate::diagnostics;
use crate::stdout::outln;
use compiler::cases::{Case, load_cases_file};
use engine::reference::ReferenceEvaluator;
use engine::{CompiledPolicy, Outcome};

#[derive(clap::Args)]
pub struct TestArgs {
    /// The config holding the profile
    #[arg(long, value_name = "FILE")]
    pub config: PathBuf,
    /// The profile's id
    #[arg(long, value_name = "ID")]
    pub agent: String,
    /// One JSON document on stdout instead of lines
    #[arg(long)]
    pub json: bool,
    /// The case files
    #[arg(value_name = "CASES_YAML", required = true)]
    pub cases: Vec<PathBuf>,
}

/// Why no case was run.
#[derive(Debug, thiserror::Error)]
enum TestError {
    /// The profile does not load or compile, or a case file is malformed.
    #[error("{}", diagnostics::render_all(.0))]
    Diagnostics(Vec<Diagnostic>),
    #[error("the compiled policy cannot be loaded: {0}")]
    Load(String),
    #[error("the case files hold no case")]
    NoCases,
}

/// One case the policy decides otherwise (or the two evaluators disagree on).
struct Failure {
    location: Location,
    name: String,
    expected: Decision,
    got: Decision,
    problem: String,
}

pub fn run(args: TestArgs) -> ExitCode {
    match test(&args) {
        Ok((failures, total)) if args.json => {
            let failures: Vec<_> = failures.iter().map(failure_json).collect();
            outln!(
                "{}",
                json!({
                    "agent": args.agent,
                    "config": args.config.display().to_string(),
                    "passed": total - failures.len(),
                    "failed": failures.len(),
                    "failures": failures,
                })
            );
            status(failures.is_empty())
        }
        Ok((failures, total)) => {
            for failure in &failures {
                outln!(
                    "{}: FAILED {}: {}",
                    failure.location,
                    failure.name,
                    failure.problem
                );
            }
            outln!(
                "{} passed, {} failed ({total} cases in {} files, agent `{}` of {})",
                total - failures.len(),
                failures.len(),
                args.cases.len(),
                args.agent,
                args.config.display()
            );
            status(failures.is_empty())
        }
        Err(error) if args.json => {
            let (diagnostics, message) = match &error {
                TestError::Diagnostics(all) => (diagnostics::all_to_json(all), None),
                other => (json!([]), Some(other.to_string())),
            };
            outln!(
                "{}",
                json!({"error": message, "diagnostics": diagnostics, "passed": 0, "failed": 0})
            );
            ExitCode::FAILURE
        }
        Err(error) => {
            eprintln!("{error}");
            eprintln!("animus-hook test: no case was run");
            ExitCode::FAILURE
        }
    }
}

fn status(passed: bool) -> ExitCode {
    if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn failure_json(failure: &Failure) -> serde_json::Value {
    let location = &failure.location;
    json!({
        "file": location.file.to_string(),
        "line": location.line,
        "column": location.column,
        "name": failure.name,
        "expected": failure.expected.to_string(),
        "got": failure.got.to_string(),
        "message": failure.problem,
    })
}

/// Decide every case: the ones that failed, and how many there were.
fn test(args: &TestArgs) -> Result<(Vec<Failure>, usize), TestError> {
    let profile = compiler::profile::load_profile_file(&args.config, &args.agent)
        .map_err(|e| TestError::Diagnostics(e.0))?;
    let compiled = compiler::compile_profile(&profile).map_err(|e| TestError::Diagnostics(e.0))?;
    if !args.json {
        for warning in &compiled.warnings {
            eprintln!("{}", diagnostics::render(warning));
        }
    }
    let json = compiled.policy.to_json();
    let sidecar = compiler::lower::build_sidecar(&compiled.policy, json.as_bytes())
        .map_err(|e| TestError::Diagnostics(vec![e]))?;
    let automaton = CompiledPolicy::from_bytes(&sidecar, json.as_bytes())
        .map_err(|e| TestError::Load(e.to_string()))?;
    let reference =
        ReferenceEvaluator::new(&compiled.policy).map_err(|e| TestError::Load(e.to_string()))?;

    // Every file is read before any case runs: a broken file is reported with all its
    // mistakes, and nothing is half-run.
    let mut cases: Vec<Case> = Vec::new();
    let mut errors = Vec::new();
    for file in &args.cases {
        match load_cases_file(file) {
            Ok(more) => cases.extend(more),
            Err(e) => errors.extend(e.0),
        }
    }
    if !errors.is_empty() {
        return Err(TestError::Diagnostics(errors));
    }
    if cases.is_empty() {
        return Err(TestError::NoCases);
    }
    let mut failures = Vec::new();
    for case in &cases {
        let call = case.call();
        let got = automaton.decide(call);
        let oracle = reference.decide(call);
        let problem =
            if got.decision != oracle.decision || got.deciding_rule != oracle.deciding_rule {
                Some(format!(
                    "the automaton decided {} ({}), the reference evaluator {} ({}): a bug, please \
                 report it with this case",
                    got.decision,
                    by(&got),
                    oracle.decision,
                    by(&oracle)
                ))
            } else if got.decision != case.expect {
                Some(format!(
                    "expected {}, got {} ({})",
                    case.expect,
                    got.decision,
                    by(&got)
                ))
            } else {
                None
            };
        if let Some(problem) = problem {
            failures.push(Failure {
                location: case.location.clone(),
                name: case.name.clone(),
                expected: case.expect,
                got: got.decision,
                problem,
            });
        }
    }
    Ok((failures, cases.len()))
}

fn by(outcome: &Outcome) -> String {
    match &outcome.deciding_rule {
        Some(id) => format!("rule `{id}`"),
        None => "the policy default".into(),
    }
}
