//! Issue 27's classes, as the engine exposes them to pack rules: feeders, interpreters'
//! inline code, options in their normal form, resolved `rm` targets, text fed to clients.

use super::*;

/// Every generous text of `command`.
fn texts(command: &str) -> Vec<String> {
    analyse(command)
        .generous_texts()
        .map(String::from)
        .collect()
}

/// Does some generous text of `command` equal `want`?
fn exposes(command: &str, want: &str) -> bool {
    texts(command).iter().any(|t| t == want)
}

#[test]
fn feeders_expose_the_command_they_run() {
    let mut hidden = Vec::new();
    for (command, want) in [
        ("ls | xargs rm -rf", "rm -rf"),
        ("ls | xargs -0 rm -rf", "rm -rf"),
        ("ls | xargs -I{} rm -rf {}", "rm -rf {}"),
        ("ls | xargs -I {} rm -rf {}", "rm -rf {}"),
        ("ls | xargs -i rm -rf {}", "rm -rf {}"),
        ("ls | xargs -i{} rm -rf {}", "rm -rf {}"),
        ("ls | xargs -n1 rm -rf", "rm -rf"),
        ("ls | xargs -n 1 rm -rf", "rm -rf"),
        ("ls | xargs -P2 rm -rf", "rm -rf"),
        ("ls | xargs --replace rm -rf {}", "rm -rf {}"),
        ("ls | xargs --replace=X rm -rf X", "rm -rf X"),
        ("xargs -a list.txt rm -rf", "rm -rf"),
        ("xargs --arg-file list.txt rm -rf", "rm -rf"),
        ("ls | xargs -d '\\n' rm -rf", "rm -rf"),
        ("ls | xargs -L 1 rm -rf", "rm -rf"),
        ("ls | xargs -l rm -rf", "rm -rf"),
        ("ls | xargs -r rm -rf", "rm -rf"),
        ("ls | xargs --null --no-run-if-empty rm -rf", "rm -rf"),
        ("ls | xargs -I{} bash -c 'rm -rf {}'", "rm -rf {}"),
        ("ls | xargs sudo rm -rf", "rm -rf"),
        ("parallel rm -rf ::: a b", "rm -rf a"),
        ("parallel 'rm -rf {}' ::: /", "rm -rf /"),
        ("parallel -j2 'rm -rf {}' ::: x", "rm -rf x"),
        ("parallel --jobs 2 rm -rf {} ::: x", "rm -rf x"),
        ("parallel -I@ 'rm -rf @' ::: x", "rm -rf @"),
        ("parallel bash -c 'rm -rf {}' ::: x", "rm -rf {}"),
        ("parallel rm -rf :::: list.txt", "rm -rf"),
        ("parallel ::: 'rm -rf x' 'ls'", "rm -rf x"),
        ("echo 'rm -rf x' | parallel", "rm -rf x"),
        ("find . -exec rm -rf {} \\;", "rm -rf {}"),
        ("find . -execdir rm -rf {} +", "rm -rf {}"),
        ("find . -ok rm -rf {} \\;", "rm -rf {}"),
        ("find . -okdir rm -rf {} \\;", "rm -rf {}"),
        ("find . -exec env rm -rf {} \\;", "rm -rf {}"),
        ("find . -exec sudo rm -rf {} \\;", "rm -rf {}"),
        ("find . -exec command rm -rf {} \\;", "rm -rf {}"),
        ("find . -exec busybox rm -rf {} \\;", "rm -rf {}"),
        ("find . -exec nice -n 5 rm -rf {} \\;", "rm -rf {}"),
        ("find / -delete", "find / -delete"),
        ("busybox rm -rf /", "rm -rf /"),
        ("busybox find / -delete", "find / -delete"),
        ("env -P /bin rm -rf x", "rm -rf x"),
        ("env -S 'rm -rf x'", "rm -rf x"),
        ("env -S'rm -rf x'", "rm -rf x"),
        ("env --split-string='rm -rf x'", "rm -rf x"),
        ("env - rm -rf x", "rm -rf x"),
        ("env -i rm -rf x", "rm -rf x"),
        ("env -u HOME rm -rf x", "rm -rf x"),
        ("env -- rm -rf x", "rm -rf x"),
        ("A=1 B= rm -rf x", "rm -rf x"),
        ("env A=1 B= rm -rf x", "rm -rf x"),
    ] {
        if !exposes(command, want) {
            hidden.push(format!("{command:?} lacks {want:?}: {:?}", texts(command)));
        }
    }
    assert!(hidden.is_empty(), "{hidden:#?}");
    // A quoted assignment is a command named `A=1`, not a prefix.
    let got = texts("\"A=1\" rm -rf x");
    assert!(got.iter().any(|t| t == "A=1 rm -rf x"), "{got:?}");
    // Commands a feeder reads from a file are unknown.
    assert!(analyse("parallel :::: cmds.txt").unresolvable().is_some());
    assert!(analyse("cat cmds.txt | parallel").unresolvable().is_some());
    assert!(analyse("parallel \"$CMD\" ::: x").unresolvable().is_some());
}
