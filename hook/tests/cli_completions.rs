//! `animus-hook completions`: the bash script really completes, in a real bash.

mod common;

use common::run_hook;
use test_support::assert_has;
use test_support::process::succeed;

/// What bash's completion offers for `words` (the last one being completed).
fn complete(words: &str) -> String {
    let script = run_hook(&["completions", "bash"], Some(b""), &[]).stdout;
    let out = succeed(
        std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "eval \"$1\"; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); _animus_hook; echo \"${{COMPREPLY[*]}}\""
        ))
        .arg("complete")
        .arg(script),
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn bash_completes_commands_and_their_options() {
    assert_eq!(complete("animus-hook ex"), "explain");
    assert_eq!(complete("animus-hook co"), "compile completions");
    assert_eq!(complete("animus-hook lint --de"), "--deny-warnings");
    assert_eq!(complete("animus-hook compile --out"), "--out-dir");
    assert_eq!(
        complete("animus-hook diff --with"),
        "--without-self-protection"
    );
}

#[test]
fn each_shell_gets_a_script_and_an_unknown_one_a_usage_error() {
    for (shell, says) in [
        ("bash", "complete -o filenames -F _animus_hook animus-hook"),
        ("zsh", "#compdef animus-hook"),
        (
            "fish",
            "complete -c animus-hook -f -n __fish_use_subcommand",
        ),
    ] {
        let run = run_hook(&["completions", shell], Some(b""), &[]);
        assert_eq!(run.code, Some(0), "{shell}: {}", run.stderr);
        assert!(run.stdout.contains(says), "{shell}: {}", run.stdout);
        assert!(run.stdout.contains("explain"), "{shell}: {}", run.stdout);
    }
    let run = run_hook(&["completions", "tcsh"], Some(b""), &[]);
    assert_eq!(run.code, Some(2));
    assert_has(&run.stderr, "use bash, zsh or fish");
    let run = run_hook(&["completions"], Some(b""), &[]);
    assert_eq!(run.code, Some(2));
}
