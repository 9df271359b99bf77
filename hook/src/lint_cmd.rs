//! `animus-hook lint`: what in a profile cannot mean what its author meant
//! ([`compiler::lint`]), each finding at its `file:line:column`.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::stdout::outln;
use compiler::Severity;

#[derive(clap::Args)]
pub struct LintArgs {
    /// The config holding the profile
    #[arg(long, value_name = "FILE")]
    pub config: PathBuf,
    /// The profile's id
    #[arg(long, value_name = "ID")]
    pub agent: String,
    /// Exit 1 on warnings too
    #[arg(long)]
    pub deny_warnings: bool,
    /// Leave out findings with these codes or names (AH203, allow-everything; repeat it or a
    /// comma list)
    #[arg(long, value_name = "CODE", value_delimiter = ',')]
    pub ignore: Vec<String>,
    /// One JSON document on stdout instead of lines
    #[arg(long)]
    pub json: bool,
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
        outln!("{finding}");
    }
    let errors = findings
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    let warnings = findings.len() - errors;
    outln!(
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
