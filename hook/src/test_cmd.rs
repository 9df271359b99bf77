//! `animus-hook test`: run policy test cases against a profile before an agent runs under it.
//!
//! The profile is compiled in memory (nothing is written) and lowered to the automata the hook
//! decides with; each case is decided by them and by the reference evaluator. A case fails when
//! the decision is not the one it expects, or when the two evaluators disagree (a bug). One line
//! per failure at the case's `file:line:column`, then `N passed, N failed`; exit 1 on any
//! failure or error.

use std::path::PathBuf;
use std::process::ExitCode;

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

pub fn run(args: TestArgs) -> ExitCode {
    match test(&args) {
        Ok(0) => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(message) => {
            eprintln!("{message}");
            eprintln!("animus-hook test: no case was run");
            ExitCode::FAILURE
        }
    }
}

/// Run every case; the number that failed.
fn test(args: &TestArgs) -> Result<usize, String> {
    let profile = compiler::profile::load_profile_file(&args.config, &args.agent)
        .map_err(|e| e.to_string())?;
    let compiled = compiler::compile_profile(&profile).map_err(|e| e.to_string())?;
    for warning in &compiled.warnings {
        eprintln!("{warning}");
    }
    let json = compiled.policy.to_json();
    let sidecar = compiler::lower::build_sidecar(&compiled.policy, json.as_bytes())
        .map_err(|e| e.to_string())?;
    let automaton = CompiledPolicy::from_bytes(&sidecar, json.as_bytes())
        .map_err(|e| format!("the compiled policy cannot be loaded: {e}"))?;
    let reference = ReferenceEvaluator::new(&compiled.policy).map_err(|e| e.to_string())?;

    // Every file is read before any case runs: a broken file is reported with all its
    // mistakes, and nothing is half-run.
    let mut cases: Vec<Case> = Vec::new();
    let mut errors = Vec::new();
    for file in &args.cases {
        match load_cases_file(file) {
            Ok(more) => cases.extend(more),
            Err(e) => errors.push(e.to_string()),
        }
    }
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }
    if cases.is_empty() {
        return Err("the case files hold no case".into());
    }

    let mut failed = 0;
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
            failed += 1;
            outln!("{}: FAILED {}: {problem}", case.location, case.name);
        }
    }
    outln!(
        "{} passed, {failed} failed ({} cases in {} files, agent `{}` of {})",
        cases.len() - failed,
        cases.len(),
        args.cases.len(),
        args.agent,
        args.config.display()
    );
    Ok(failed)
}

/// The deciding rule, or the default.
fn by(outcome: &Outcome) -> String {
    match &outcome.deciding_rule {
        Some(id) => format!("rule `{id}`"),
        None => "the policy default".into(),
    }
}
