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
    assert!(analyse("parallel -a cmds.txt").unresolvable().is_some());
    assert!(
        analyse("parallel -j4 -a cmds.txt rm {}")
            .unresolvable()
            .is_none()
    );
    assert!(analyse("cat cmds.txt | parallel").unresolvable().is_some());
    assert!(analyse("parallel \"$CMD\" ::: x").unresolvable().is_some());
}

#[test]
fn options_are_seen_in_their_normal_form() {
    for (command, want) in [
        ("rm -fr /", "rm --force --recursive /"),
        ("sudo rm --recur --forc /", "rm --recursive --force /"),
        ("git -C repo reset --har", "git reset --hard"),
        (
            "git --git-dir=.git --work-tree=. reset --hard",
            "git reset --hard",
        ),
        ("GIT CHECKOUT -- f", "git checkout -- f"),
        ("git clean -fdx", "git clean --force -d -x"),
        ("cd x && git push -f", "git push --force"),
        ("find . -exec git reset --har \\;", "git reset --hard"),
        ("chmod -R 777 /", "chmod --recursive 777 /"),
    ] {
        assert!(exposes(command, want), "{command:?}: {:?}", texts(command));
    }
}

#[test]
fn inline_code_is_read_for_what_it_runs() {
    for (command, want) in [
        (
            "python3 -c \"import os; os.system('rm -rf /')\"",
            "rm -rf /",
        ),
        (
            "python -c \"import shutil; shutil.rmtree('/x')\"",
            "rm -rf /x",
        ),
        (
            "node -e \"require('child_process').execSync('rm -rf /')\"",
            "rm -rf /",
        ),
        (
            "node --eval=\"require('fs').rmSync('/x', {recursive: true})\"",
            "rm -rf /x",
        ),
        (
            "deno eval \"Deno.removeSync('/x', {recursive: true})\"",
            "rm -rf /x",
        ),
        ("bun -e \"require('fs').unlinkSync('f')\"", "rm f"),
        ("ruby -e 'system(\"rm -rf /\")'", "rm -rf /"),
        ("ruby -e 'puts `rm -rf /`'", "rm -rf /"),
        ("perl -e 'system \"rm -rf /\"'", "rm -rf /"),
        ("perl -ne 'unlink \"/etc/passwd\"' x", "rm /etc/passwd"),
        ("perl -E'qx{rm -rf /}'", "rm -rf /"),
        ("php -r 'system(\"rm -rf /\");'", "rm -rf /"),
        ("lua -e 'os.execute(\"rm -rf /\")'", "rm -rf /"),
        ("luajit -e \"os.remove('/etc/passwd')\"", "rm /etc/passwd"),
        ("awk 'BEGIN{system(\"rm -rf /\")}'", "rm -rf /"),
        ("awk -v x=1 'BEGIN{system(\"rm -rf /\")}'", "rm -rf /"),
        (
            "python3 <<'EOF'\nimport shutil\nshutil.rmtree('/x')\nEOF",
            "rm -rf /x",
        ),
        (
            "echo \"import os; os.system('rm -rf /')\" | python3",
            "rm -rf /",
        ),
        // A here-string is the program of an interpreter given no code option.
        (
            "python3 - <<< 'import shutil; shutil.rmtree(\"/x\")'",
            "rm -rf /x",
        ),
        (
            "node <<< \"require('fs').rmSync('/x', {recursive: true})\"",
            "rm -rf /x",
        ),
        ("sudo ruby <<< 'system(\"rm -rf /\")'", "rm -rf /"),
        // Text that runs later: an alias's body where the same command uses the alias, a
        // command git is configured to run.
        ("alias x='rm -rf /'\nx", "rm -rf /"),
        (
            "alias ll='ls -la' gs='git reset --hard'; gs",
            "git reset --hard",
        ),
        (
            "git config alias.x '!git reset --hard' && git x",
            "git reset --hard",
        ),
        (
            "git config --global --add alias.nuke '!rm -rf /'",
            "rm -rf /",
        ),
        ("git config set core.sshCommand 'rm -rf /'", "rm -rf /"),
        (
            "python3 -c \"import os; c='rm -rf /'; os.system(c)\"",
            "rm -rf /",
        ),
    ] {
        let a = analyse(command);
        let found = a
            .segments
            .iter()
            .any(|s| s.deny_only && s.generous.iter().any(|t| t == want));
        assert!(found, "{command:?}: {a:?}");
    }
    // Only printed: not a command (issue 27's false positive).
    for command in [
        "python3 -c \"print('rm -rf /')\"",
        "node -e \"console.log('rm -rf /')\"",
        "ruby -e 'puts \"rm -rf /\"'",
        "lua -e 'print(\"rm -rf /\")'",
        "echo \"cat ~/.ssh/id_rsa\"",
        "python3 - <<< 'print(\"rm -rf /\")'",
        // The here-string is the script's input, not its program.
        "python3 tool.py <<< 'rm -rf /'",
        // An alias defined and not used here; one whose body holds an expansion.
        "alias x='rm -rf /'",
        "alias v='$EDITOR rm -rf /'; v",
        // A git setting that is not a command.
        "git config user.name 'rm -rf /'",
        "git config --file rm -rf",
    ] {
        let got = texts(command);
        assert!(
            !got.iter()
                .any(|t| t.starts_with("rm ") || t.starts_with("cat ")),
            "{command:?}: {got:?}"
        );
    }
}

#[test]
fn sql_fed_to_a_client_is_its_argument() {
    for (command, want) in [
        ("echo \"DROP TABLE t\" | psql", "psql -c DROP TABLE t"),
        (
            "echo 'DROP TABLE t;' | psql -U admin mydb",
            "psql -U admin mydb -c DROP TABLE t;",
        ),
        (
            "psql mydb <<EOF\nDROP\n  TABLE t;\nEOF",
            "psql mydb -c DROP TABLE t;",
        ),
        ("psql <<< 'TRUNCATE orders'", "psql -c TRUNCATE orders"),
        (
            "printf 'DROP DATABASE x' | mysql -u root",
            "mysql -u root -e DROP DATABASE x",
        ),
        (
            "cat <<'EOF' | mariadb\nDELETE FROM t\nEOF",
            "mariadb -e DELETE FROM t",
        ),
        (
            "echo 'DROP TABLE t' | sqlite3 app.db",
            "sqlite3 app.db DROP TABLE t",
        ),
        (
            "echo 'DROP TABLE t' | sudo -u postgres psql",
            "psql -c DROP TABLE t",
        ),
    ] {
        assert!(exposes(command, want), "{command:?}: {:?}", texts(command));
    }
    // A client given its SQL otherwise reads no stdin SQL; unknown text stays unknown.
    assert!(
        !texts("echo 'DROP TABLE t' | psql -c 'select 1'")
            .iter()
            .any(|t| t.contains("-c DROP"))
    );
    assert!(analyse("mysql db < dump.sql").unresolvable().is_none());
    assert!(analyse("cat x.sql | psql").unresolvable().is_none());
}

#[test]
fn eval_of_known_words_is_read_and_of_a_glob_is_not() {
    assert!(exposes("eval rm -rf ~", "rm -rf ~"));
    assert!(analyse("eval rm -rf ~").unresolvable().is_none());
    // The names a glob expands to are code to eval: not read.
    assert!(analyse("eval echo *").unresolvable().is_some());
    assert!(analyse("eval \"$CMD\"").unresolvable().is_some());
}
