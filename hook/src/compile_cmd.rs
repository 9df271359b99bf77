//! `animus-hook compile`: diagnostics on stderr with their codes, or (`--json`) one JSON
//! document on stdout: `{"ok", "policy", "rules", "self_protection_rules",
//! "default_decision", "diagnostics"}`.

use std::process::ExitCode;

use serde_json::json;

use crate::cli::CompileArgs;
use crate::diagnostics;
use crate::stdout::outln;

pub fn run(args: CompileArgs) -> ExitCode {
    let result = compiler::compile_to_dir(&args.config, &args.agent, &args.out_dir);
    let (report, status) = match &result {
        Ok((path, compiled)) => {
            let built_in = compiled
                .policy
                .rules
                .iter()
                .filter(|r| {
                    r.id.starts_with(compiler::self_protection::SELF_PROTECTION_ID_PREFIX)
                })
                .count();
            if !args.json {
                for warning in &compiled.warnings {
                    eprintln!("{}", diagnostics::render(warning));
                }
                eprintln!(
                    "compiled agent `{}`: {} rules ({built_in} of them built-in \
                     self-protection), default {} -> {}",
                    args.agent,
                    compiled.policy.rules.len(),
                    compiled.policy.default_decision,
                    path.display()
                );
            }
            let report = json!({
                "ok": true,
                "policy": path.display().to_string(),
                "rules": compiled.policy.rules.len(),
                "self_protection_rules": built_in,
                "default_decision": compiled.policy.default_decision.to_string(),
                "diagnostics": diagnostics::all_to_json(&compiled.warnings),
            });
            (report, ExitCode::SUCCESS)
        }
        Err(errors) => {
            if !args.json {
                eprintln!("{}", diagnostics::render_all(&errors.0));
                eprintln!("animus-hook compile: failed; nothing was written");
            }
            let report = json!({
                "ok": false,
                "policy": null,
                "diagnostics": diagnostics::all_to_json(&errors.0),
            });
            (report, ExitCode::FAILURE)
        }
    };
    if args.json {
        outln!("{report}");
    }
    status
}
