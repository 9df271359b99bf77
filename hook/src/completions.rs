//! `animus-hook completions <shell>`: a completion script made by clap_complete from the one
//! definition of the CLI ([`crate::cli::command`]): every command, its options and the values
//! they take (harness names, decisions, shells), so it cannot drift from what is parsed.

use std::process::ExitCode;

use clap_complete::Shell;

use crate::stdout;

pub fn run(shell: Shell) -> ExitCode {
    let mut script = Vec::new();
    clap_complete::generate(
        shell,
        &mut crate::cli::command(),
        "animus-hook",
        &mut script,
    );
    stdout::status(std::io::Write::write_all(
        &mut std::io::stdout().lock(),
        &script,
    ))
}
