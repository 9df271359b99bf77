//! `animus-hook lint`: what in a profile cannot mean what its author meant
//! ([`compiler::lint`]), each finding at its `file:line:column`.

use std::path::PathBuf;
use std::process::ExitCode;

use compiler::Severity;

pub struct LintArgs {
    pub config: PathBuf,
    pub agent: String,
    pub deny_warnings: bool,
}

pub fn run(args: LintArgs) -> ExitCode {
    let compiled = compiler::profile::load_profile_file(&args.config, &args.agent)
        .and_then(|profile| compiler::compile_profile(&profile).map(|c| (profile, c)));
    let (profile, compiled) = match compiled {
        Ok(both) => both,
        Err(errors) => {
            eprintln!("{errors}");
            eprintln!("animus-hook lint: the profile does not compile");
            return ExitCode::FAILURE;
        }
    };
    let findings = compiler::lint::lint(&profile, &compiled);
    for finding in &findings {
        println!("{finding}");
    }
    let errors = findings
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    let warnings = findings.len() - errors;
    println!(
        "{errors} errors, {warnings} warnings (agent `{}` of {})",
        args.agent,
        args.config.display()
    );
    if errors > 0 || (args.deny_warnings && warnings > 0) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
