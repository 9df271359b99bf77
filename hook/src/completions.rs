//! `animus-hook completions <bash|zsh|fish>`: a completion script for the shell, made from the
//! one USAGE text (each command and the options its usage names), so it cannot drift from it.

use std::process::ExitCode;

use crate::cli::{USAGE, command_usage};

/// Every command of [`USAGE`], in its order, with the `--options` its usage block names.
fn commands() -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for line in USAGE.lines() {
        let Some(rest) = line.strip_prefix("  animus-hook ") else {
            continue;
        };
        let Some(name) = rest
            .split_whitespace()
            .next()
            .filter(|n| !n.starts_with('-'))
        else {
            continue;
        };
        if out.iter().any(|(n, _)| n == name) {
            continue;
        }
        // The synopsis only: the block's first line and its continuations (indented, starting
        // with an option), not the description below it.
        let block = command_usage(name).unwrap_or_default();
        let synopsis: String = block
            .lines()
            .enumerate()
            .take_while(|(i, l)| *i == 0 || l.trim_start().starts_with(['-', '[', '<', '(']))
            .map(|(_, l)| format!("{l}\n"))
            .collect();
        let mut options: Vec<String> = Vec::new();
        for word in synopsis.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')) {
            if word.starts_with("--")
                && word.len() > 2
                && word[2..].starts_with(|c: char| c.is_ascii_lowercase())
                && !options.iter().any(|o| o == word)
            {
                options.push(word.to_string());
            }
        }
        options.push("--help".into());
        out.push((name.to_string(), options));
    }
    out
}

pub fn run(shell: &str) -> ExitCode {
    let commands = commands();
    let script = match shell {
        "bash" => bash(&commands),
        "zsh" => zsh(&commands),
        "fish" => fish(&commands),
        other => {
            eprintln!(
                "animus-hook completions: no completions for shell `{other}`: use bash, zsh or fish"
            );
            return ExitCode::from(2);
        }
    };
    print!("{script}");
    ExitCode::SUCCESS
}

fn bash(commands: &[(String, Vec<String>)]) -> String {
    let names: Vec<&str> = commands.iter().map(|(n, _)| n.as_str()).collect();
    let mut cases = String::new();
    for (name, options) in commands {
        cases.push_str(&format!(
            "        {name}) opts=\"{}\" ;;\n",
            options.join(" ")
        ));
    }
    format!(
        "# animus-hook completions for bash: source <(animus-hook completions bash)\n\
_animus_hook() {{\n\
    local cur=\"${{COMP_WORDS[COMP_CWORD]}}\" opts=\"\"\n\
    if [[ $COMP_CWORD -eq 1 ]]; then\n\
        COMPREPLY=($(compgen -W \"{} --help --version\" -- \"$cur\"))\n\
        return\n\
    fi\n\
    case \"${{COMP_WORDS[1]}}\" in\n\
{cases}    esac\n\
    if [[ \"$cur\" == -* ]]; then\n\
        COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n\
    else\n\
        COMPREPLY=($(compgen -f -- \"$cur\"))\n\
    fi\n\
}}\n\
complete -o filenames -F _animus_hook animus-hook\n",
        names.join(" ")
    )
}

fn zsh(commands: &[(String, Vec<String>)]) -> String {
    let mut names = String::new();
    let mut cases = String::new();
    for (name, options) in commands {
        names.push_str(&format!(" {name}"));
        let specs: Vec<String> = options.iter().map(|o| format!("'{o}'")).collect();
        cases.push_str(&format!(
            "        {name}) _arguments {} '*:file:_files' ;;\n",
            specs.join(" ")
        ));
    }
    format!(
        "#compdef animus-hook\n\
# animus-hook completions for zsh: animus-hook completions zsh > \"${{fpath[1]}}/_animus-hook\"\n\
_animus_hook() {{\n\
    if (( CURRENT == 2 )); then\n\
        compadd --{names} --help --version\n\
        return\n\
    fi\n\
    (( CURRENT-- )); shift words\n\
    case $words[1] in\n\
{cases}    esac\n\
}}\n\
_animus_hook \"$@\"\n"
    )
}

fn fish(commands: &[(String, Vec<String>)]) -> String {
    let names: Vec<&str> = commands.iter().map(|(n, _)| n.as_str()).collect();
    let mut out = format!(
        "# animus-hook completions for fish: animus-hook completions fish | source\n\
complete -c animus-hook -f -n __fish_use_subcommand -a '{}'\n",
        names.join(" ")
    );
    for (name, options) in commands {
        for option in options {
            out.push_str(&format!(
                "complete -c animus-hook -n '__fish_seen_subcommand_from {name}' -l {} -r -F\n",
                &option[2..]
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_with_its_options() {
        let commands = commands();
        let names: Vec<&str> = commands.iter().map(|(n, _)| n.as_str()).collect();
        for name in [
            "emit",
            "compile",
            "inject",
            "check",
            "explain",
            "test",
            "lint",
            "diff",
            "import",
            "install",
            "uninstall",
            "doctor",
            "packs",
            "demo",
            "completions",
        ] {
            assert!(names.contains(&name), "{name}: {names:?}");
        }
        let options = |name: &str| commands.iter().find(|(n, _)| n == name).unwrap().1.clone();
        assert!(options("compile").contains(&"--out-dir".to_string()));
        assert!(options("explain").contains(&"--near".to_string()));
        assert!(options("lint").contains(&"--deny-warnings".to_string()));
        assert!(!options("demo").contains(&"--config".to_string()));
        assert!(options("inject").contains(&"--prompt-index".to_string()));
        assert!(options("install").contains(&"--dry-run".to_string()));
        assert!(options("install").contains(&"--plugin-dir".to_string()));
        assert!(options("uninstall").contains(&"--local".to_string()));
        assert!(options("doctor").contains(&"--json".to_string()));
        assert!(options("emit").contains(&"--from-payload".to_string()));
        assert!(
            !options("inject").contains(&"--settings".to_string()),
            "a word of the description is no option"
        );
    }
}
