//! `animus-hook completions <shell>`: a completion script made by clap_complete from the one
//! definition of the CLI ([`crate::cli::command`]): every command, its options and the values
//! they take (harness names, decisions, shells), so it cannot drift from what is parsed.

use std::process::ExitCode;

use clap_complete::Shell;

use crate::stdout;

const BIN: &str = "animus-hook";

pub fn run(shell: Shell) -> ExitCode {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut crate::cli::command(), BIN, &mut script);
    let mut script = String::from_utf8_lossy(&script).into_owned();
    if shell == Shell::Bash {
        script = bash_hyphen_fix(&script);
    }
    stdout::status(std::io::Write::write_all(
        &mut std::io::stdout().lock(),
        script.as_bytes(),
    ))
}

/// clap_complete's bash script spells a subcommand's state `animus__hook__subcmd__lint` in
/// its dispatch loop but `animus__subcmd__hook__subcmd__lint` in the case arms when the binary's
/// name has a hyphen, so no option after a subcommand ever completed (clap-rs/clap#6421, open
/// as of clap_complete 4.6.12). Spell the arms as the loop does; once fixed upstream this
/// finds nothing to replace.
fn bash_hyphen_fix(script: &str) -> String {
    let arms = format!("{}__subcmd__", BIN.replace('-', "__subcmd__"));
    let state = format!("{}__subcmd__", BIN.replace('-', "__"));
    script.replace(&arms, &state)
}
