//! `animus-hook completions`: the bash script (clap_complete's, from the CLI's one definition)
//! really completes commands, options and their values, in a real bash.

mod common;

use common::run_cli;
use test_support::assert_has;
use test_support::process::succeed;

/// What bash's completion offers for `words` (the last one being completed; "" for a new
/// word).
fn complete(words: &[&str]) -> String {
    let script = run_cli(&["completions", "bash"]).stdout;
    assert!(
        script.contains("-F _animus__hook"),
        "the completion function's name changed:\n{script}"
    );
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let out = succeed(
        std::process::Command::new("bash")
            .arg("-c")
            .arg(format!(
                "eval \"$1\"; COMP_WORDS=({}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
             _animus__hook animus-hook \"${{COMP_WORDS[COMP_CWORD]}}\" \
             \"${{COMP_WORDS[COMP_CWORD-1]}}\"; echo \"${{COMPREPLY[*]}}\"",
                quoted.join(" ")
            ))
            .arg("complete")
            .arg(script),
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn bash_completes_commands_and_their_options() {
    assert_eq!(complete(&["animus-hook", "ex"]), "explain");
    assert_eq!(complete(&["animus-hook", "co"]), "compile completions");
    assert_eq!(
        complete(&["animus-hook", "lint", "--de"]),
        "--deny-warnings"
    );
    assert_eq!(complete(&["animus-hook", "compile", "--out"]), "--out-dir");
    assert_eq!(
        complete(&["animus-hook", "diff", "--with"]),
        "--without-self-protection"
    );
}

/// Options that take a fixed set of values complete them: harness names, decisions, shells.
#[test]
fn bash_completes_option_values() {
    let providers = "claude codex gemini opencode";
    // Each command line (the word being completed last) and what it completes to.
    for (line, completes) in [
        ("check --provider ", providers),
        ("replay --provider ", providers),
        ("inject --provider co", "codex"),
        ("install --harness ", "claude opencode gemini codex"),
        ("log --decision ", "deny ask allow defer"),
        ("install --scope ", "user project"),
        ("import --meaning ", "claude allowlist"),
    ] {
        let words: Vec<&str> = std::iter::once("animus-hook")
            .chain(line.split(' '))
            .collect();
        assert_eq!(complete(&words), completes, "{line:?}");
    }
    assert!(complete(&["animus-hook", "completions", ""]).contains("bash"));
}

#[test]
fn each_shell_gets_a_script_and_an_unknown_one_a_usage_error() {
    for (shell, says) in [
        ("bash", "complete -F _animus__hook"),
        ("zsh", "#compdef animus-hook"),
        ("fish", "complete -c animus-hook"),
    ] {
        let run = run_cli(&["completions", shell]);
        assert_eq!(run.code, Some(0), "{shell}: {}", run.stderr);
        assert!(run.stdout.contains(says), "{shell}: {}", run.stdout);
        assert!(run.stdout.contains("explain"), "{shell}: {}", run.stdout);
        assert!(run.stdout.contains("opencode"), "{shell}: {}", run.stdout);
    }
    let run = run_cli(&["completions", "tcsh"]);
    assert_eq!(run.code, Some(2));
    assert_has(&run.stderr, "invalid value 'tcsh'");
    assert_has(&run.stderr, "bash");
    let run = run_cli(&["completions"]);
    assert_eq!(run.code, Some(2));
}
