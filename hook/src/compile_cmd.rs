//! `animus-hook compile`.

use std::process::ExitCode;

use crate::cli::CompileArgs;

pub fn run(args: CompileArgs) -> ExitCode {
    match compiler::compile_to_dir(&args.config, &args.agent, &args.out_dir) {
        Ok((path, compiled)) => {
            for warning in &compiled.warnings {
                eprintln!("{warning}");
            }
            let built_in = compiled
                .policy
                .rules
                .iter()
                .filter(|r| {
                    r.id.starts_with(compiler::self_protection::SELF_PROTECTION_ID_PREFIX)
                })
                .count();
            eprintln!(
                "compiled agent `{}`: {} rules ({built_in} of them built-in self-protection), \
                 default {} -> {}",
                args.agent,
                compiled.policy.rules.len(),
                compiled.policy.default_decision,
                path.display()
            );
            ExitCode::SUCCESS
        }
        Err(errors) => {
            eprintln!("{errors}");
            eprintln!("animus-hook compile: failed; nothing was written");
            ExitCode::FAILURE
        }
    }
}
