//! `animus-hook import --claude-settings FILE… --agent ID [--meaning claude|allowlist] [--json]`.

use std::process::ExitCode;

use integrations::import::{
    SettingsFile, import_claude_settings, meaning_comment, render_json, render_yaml,
};

use crate::cli::ImportArgs;
use crate::stdout::out;

pub fn run(args: ImportArgs) -> ExitCode {
    let mut files = Vec::new();
    for path in &args.claude_settings {
        match SettingsFile::read(path) {
            Ok(file) => files.push(file),
            Err(e) => {
                eprintln!("animus-hook import: cannot read `{}`: {e}", path.display());
                return ExitCode::FAILURE;
            }
        }
    }
    let mut import = match import_claude_settings(&files) {
        Ok(import) => import,
        Err(errors) => {
            for e in &errors {
                eprintln!("{e}");
            }
            eprintln!("animus-hook import: failed; nothing was printed");
            return ExitCode::FAILURE;
        }
    };
    import.meaning = args.meaning();
    for report in &import.reports {
        eprintln!("{report}");
    }
    if args.json {
        out!("{}", render_json(&import, &args.agent));
    } else {
        out!("{}", render_yaml(&import, &args.agent));
    }
    let kept = import.allow.len() + import.ask.len() + import.deny.len();
    let left_out = import.left_out();
    eprintln!(
        "animus-hook import: {kept} entries imported ({} allow, {} ask, {} deny), {left_out} left out",
        import.allow.len(),
        import.ask.len(),
        import.deny.len()
    );
    eprintln!(
        "animus-hook import: written with `tool_policy.meaning: {}`, {}",
        import.meaning.as_str(),
        meaning_comment(import.meaning)
    );
    if left_out == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}
