//! `animus-hook lint`: what in a profile cannot mean what its author meant
//! ([`compiler::lint`]), each finding at its `file:line:column` with its code
//! ([`crate::diagnostics`]); `--ignore` leaves out findings by code, `--json` prints one JSON
//! document.

use std::path::PathBuf;
use std::process::ExitCode;

use compiler::{Diagnostic, Severity};
use serde_json::json;

use crate::diagnostics;
use crate::stdout::outln;

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
    /// Leave out findings of these codes or names (AH203, allow-everything; a comma list)
    #[arg(long, value_name = "CODE", value_delimiter = ',')]
    pub ignore: Vec<String>,
    /// One JSON document on stdout instead of lines
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: LintArgs) -> ExitCode {
    let ignored = match diagnostics::parse_codes(&args.ignore) {
        Ok(codes) => codes,
        Err(e) => {
            eprintln!("animus-hook lint: {e}");
            return ExitCode::from(2);
        }
    };
    let compiled = compiler::profile::load_profile_file(&args.config, &args.agent)
        .and_then(|profile| compiler::compile_profile(&profile).map(|c| (profile, c)));
    let (findings, compiles) = match compiled {
        Ok((profile, compiled)) => (compiler::lint::lint(&profile, &compiled), true),
        Err(errors) => (errors.0, false),
    };
    // Errors are never ignored: the profile would not compile.
    let findings: Vec<Diagnostic> = findings
        .into_iter()
        .filter(|d| d.severity == Severity::Error || !ignored.contains(&d.code))
        .collect();
    let errors = findings
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    let warnings = findings.len() - errors;
    if args.json {
        outln!(
            "{}",
            json!({
                "agent": args.agent,
                "config": args.config.display().to_string(),
                "compiles": compiles,
                "errors": errors,
                "warnings": warnings,
                "diagnostics": diagnostics::all_to_json(&findings),
            })
        );
    } else if !compiles {
        eprintln!("{}", diagnostics::render_all(&findings));
        eprintln!("animus-hook lint: the profile does not compile");
    } else {
        for finding in &findings {
            outln!("{}", diagnostics::render(finding));
        }
        outln!(
            "{errors} errors, {warnings} warnings (agent `{}` of {})",
            args.agent,
            args.config.display()
        );
    }
    if errors > 0 || (args.deny_warnings && warnings > 0) {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
