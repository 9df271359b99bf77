use super::*;
use crate::analyse_in;

const PLACES: Places<'static> = Places {
    cwd: Some("/home/user/project"),
    home: Some("/home/user"),
    project_root: Some("/home/user/project"),
};

/// The target texts of `command` run in [`PLACES`].
fn targets(command: &str) -> Vec<String> {
    analyse_in(command, PLACES)
        .generous_texts()
        .filter(|t| t.starts_with(TARGET_MARK))
        .map(String::from)
        .collect()
}

#[test]
fn targets_are_resolved_against_the_cwd() {
    let mut wrong = Vec::new();
    for (command, want) in [
        ("rm -rf ./build", "recursive cwd ~/project/build"),
        (
            "rm -rf node_modules",
            "recursive cwd ~/project/node_modules",
        ),
        ("rm -rf /tmp/x", "recursive temp /tmp/x"),
        ("rm -rf /var/tmp/x/", "recursive temp /var/tmp/x"),
        ("rm -f a.txt", "plain cwd ~/project/a.txt"),
        ("rm -fr build", "recursive cwd ~/project/build"),
        ("rm --recur --forc build", "recursive cwd ~/project/build"),
        ("cd .. && rm -rf x", "recursive outside ~/x"),
        ("rm -rf ../x", "recursive outside ~/x"),
        ("rm -rf ~user/x", "recursive unknown ~user/x"),
        ("rm -rf `pwd`/x", "recursive unknown `pwd`/x"),
        ("rm -rf $(pwd)/x", "recursive unknown $(pwd)/x"),
        (
            "TMPDIR=/elsewhere rm -rf $TMPDIR/x",
            "recursive unknown $TMPDIR/x",
        ),
        ("rm -rf //etc", "recursive outside /etc"),
        ("rm -rf \"${HOME:?}\"", "recursive outside ~"),
        ("rm -rf ${HOME%/}", "recursive outside ~"),
        ("rm -rf ${HOME%/*}", "recursive unknown ${HOME%/*}"),
        ("rm -rf $HOME/.cache", "recursive outside ~/.cache"),
        ("rm -rf ~+/build", "recursive cwd ~/project/build"),
        ("rm -rf ~+", "recursive outside ~/project"),
        ("rm -rf ~-/x", "recursive unknown ~-/x"),
        ("eval rm -rf ~", "recursive outside ~"),
        ("rm -rf /tmp", "recursive outside /tmp"),
        ("rm -rf /tmp/../etc", "recursive outside /etc"),
        ("cd /tmp && rm -rf x", "recursive temp /tmp/x"),
        ("cd && rm -rf Documents", "recursive outside ~/Documents"),
        ("cd - && rm -rf x", "recursive unknown x"),
        ("cd \"$D\" && rm -rf x", "recursive unknown x"),
        ("sudo rm -rf /", "recursive outside /"),
        ("npx rimraf dist", "recursive cwd ~/project/dist"),
        ("npx rimraf ~", "recursive outside ~"),
        (
            "pnpm dlx rimraf --no-preserve-root /",
            "recursive outside /",
        ),
        ("uv run rm -rf ../x", "recursive outside ~/x"),
        ("bundle exec rm -f a.txt", "plain cwd ~/project/a.txt"),
        ("find . -name '*.pyc' -delete", "find cwd ~/project"),
        ("find / -name x -delete", "find outside /"),
        ("find ~/other -exec rm -rf {} +", "find outside ~/other"),
        // A feeder's placeholder below a named directory: something inside it.
        (
            "ls /srv | parallel rm -rf /srv/{}",
            "recursive outside /srv",
        ),
        ("ls | xargs -I{} rm -rf ../{}", "recursive outside ~"),
        ("ls | xargs -I% rm -rf /opt/% ", "recursive outside /opt/%"),
        (
            "parallel rm -rf build/{} ::: a",
            "recursive cwd ~/project/build",
        ),
        ("find /tmp/x -delete", "find temp /tmp/x"),
        ("find -delete", "find cwd ~/project"),
        ("D=/opt/x; rm -rf $D/y", "recursive outside /opt/x/y"),
        ("rm -rf $TMPDIR/x", "recursive temp $TMPDIR/x"),
        ("rm -rf \"${TMPDIR:-/tmp}/x\"", "recursive temp $TMPDIR/x"),
        ("rm -rf $TMPDIR/../x", "recursive unknown $TMPDIR/../x"),
        ("TMPDIR=/tmp/y; rm -rf $TMPDIR/x", "recursive temp /tmp/y/x"),
        ("export D=/tmp/x; rm -rf \"$D\"", "recursive temp /tmp/x"),
        ("t=$(mktemp -d) && rm -rf \"$t\"", "recursive temp $t"),
        (
            "python3 -c \"import shutil; shutil.rmtree('../x')\"",
            "recursive outside ~/x",
        ),
        ("bash -c 'cd / && rm -rf etc'", "recursive outside /etc"),
        ("ls | xargs rm -rf /", "recursive outside /"),
        ("rm -rf -- -x", "recursive cwd ~/project/-x"),
        (
            "rm -rf /home/user/project/build",
            "recursive cwd ~/project/build",
        ),
        // Named through the home: not the project's (`through_home`).
        (
            "rm -rf ~/project/target",
            "recursive outside ~/project/target",
        ),
    ] {
        let want = format!("{TARGET_MARK} {want}");
        let got = targets(command);
        if !got.contains(&want) {
            wrong.push(format!("{command:?}: {got:?} lacks {want:?}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// What a feeder's `rm` reads from a pipe that carries a `find`'s listing (through line
/// filters) is what that `find` lists: its start paths are targets, placed as their contents,
/// as for `find … -delete`. A feeder that reads a file or its own arguments, a listing a
/// program transforms, and a pipe from anything else give none.
#[test]
fn a_find_listing_fed_to_rm_names_its_start_paths() {
    let mut wrong = Vec::new();
    for (command, want) in [
        (
            "find /home -print0 | xargs -0 rm -f",
            &["find outside /home"][..],
        ),
        ("find / -type f | xargs rm", &["find outside /"]),
        (
            "find ~ -name '*.log' | sudo xargs rm -f",
            &["find outside ~"],
        ),
        (
            "find /etc -type f | grep conf | sort | xargs -n1 rm",
            &["find outside /etc"],
        ),
        ("find /srv -type f | parallel rm", &["find outside /srv"]),
        (
            "find /srv -type f | xargs -I{} shred -u {}",
            &["find outside /srv"],
        ),
        (
            "find ./build -name '*.o' | xargs rm -f",
            &["find cwd ~/project/build"],
        ),
        (
            "find . -name '*.pyc' -print0 | xargs -0 rm -f",
            &["find cwd ~/project"],
        ),
        // The line may be in either directory: a text for each (the module docs).
        (
            "cd /var && find log -type f | xargs rm",
            &["find cwd ~/project/log", "find outside /var/log"],
        ),
        ("find / -type f | xargs -a list rm", &[]),
        ("find / -type f | xargs --arg-file=list rm", &[]),
        ("find / | parallel rm ::: a", &[]),
        ("find / -type f | sed 's/x/y/' | xargs rm", &[]),
        ("ls / | xargs rm", &[]),
        ("find / -type f | xargs grep x", &[]),
        ("find / -type f; xargs rm < list", &[]),
    ] {
        // The listing's texts (an `rm`'s own operands give theirs as before).
        wrong.extend(kind_differs(command, "find", want));
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// How the target texts of `kind` of `command` differ from `want` (kind and place first),
/// if they do.
fn kind_differs(command: &str, kind: &str, want: &[&str]) -> Option<String> {
    let want: Vec<String> = want.iter().map(|w| format!("{TARGET_MARK} {w}")).collect();
    let mut got = targets(command);
    got.retain(|t| t.starts_with(&format!("{TARGET_MARK} {kind} ")));
    (got != want).then(|| format!("{command:?}: {got:?}, want {want:?}"))
}

/// A file a redirection or `tee` writes is a target of kind `write` (it is emptied first) or
/// `append`, resolved where the line is: `cd ~ && echo x >> .bashrc` appends to `~/.bashrc`
/// — when the spelling does not say where it lies already (`spelled_elsewhere`). `/dev/null`
/// and descriptor duplications write no file.
#[test]
fn written_files_are_targets_of_kind_write() {
    let mut wrong = Vec::new();
    for (command, want) in [
        ("echo x >> ~/.bashrc", &["append outside ~/.bashrc"][..]),
        (
            "cd ~ && echo 'alias ls=rm' >> .bashrc",
            &["append cwd ~/project/.bashrc", "append outside ~/.bashrc"],
        ),
        (
            "cd && printf x > .zshrc",
            &["write cwd ~/project/.zshrc", "write outside ~/.zshrc"],
        ),
        (
            "cd /etc; sudo tee -a hosts < x",
            &["append cwd ~/project/hosts", "append outside /etc/hosts"],
        ),
        (
            "cd /etc; sudo tee hosts < x",
            &["write cwd ~/project/hosts", "write outside /etc/hosts"],
        ),
        (
            "cd /etc && echo x > hosts",
            &["write cwd ~/project/hosts", "write outside /etc/hosts"],
        ),
        (
            "cd /etc && echo x 2>> hosts &>> hostname",
            &[
                "append cwd ~/project/hosts",
                "append outside /etc/hosts",
                "append cwd ~/project/hostname",
                "append outside /etc/hostname",
            ],
        ),
        (
            "cd /etc; echo x | tee --append hosts",
            &["append cwd ~/project/hosts", "append outside /etc/hosts"],
        ),
        ("echo x >> $HOME/.profile", &["append outside ~/.profile"]),
        (
            "echo x >> //home/user/.bashrc",
            &["append outside ~/.bashrc"],
        ),
        (
            "echo x > /etc/../home/user/.zshrc",
            &["write outside ~/.zshrc"],
        ),
        // What the text says already: no target (each costs every rule's search).
        ("make 2>&1 | tee build.log", &[]),
        ("cat > /tmp/x.txt <<EOF\nhi\nEOF", &[]),
        ("echo x > /home/user/.bashrc", &[]),
        ("ls > /dev/null 2>&1", &[]),
        ("echo hi", &[]),
    ] {
        let want: Vec<String> = want.iter().map(|w| format!("{TARGET_MARK} {w}")).collect();
        let mut got = targets(command);
        got.retain(|t| {
            t.starts_with(&format!("{TARGET_MARK} write "))
                || t.starts_with(&format!("{TARGET_MARK} append "))
        });
        if got != want {
            wrong.push(format!("{command:?}: {got:?}, want {want:?}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// A relative write from a project opened at the home, or from a working directory that is
/// not the project root, is resolved (`>> .bashrc` there writes the user's).
#[test]
fn a_relative_write_outside_the_project_root_is_resolved() {
    let writes = |cwd: &str, root: &str, command: &str| -> Vec<String> {
        let places = Places {
            cwd: Some(cwd),
            home: Some("/home/user"),
            project_root: Some(root),
        };
        analyse_in(command, places)
            .generous_texts()
            .filter(|t| t.starts_with(&format!("{TARGET_MARK} append ")))
            .map(String::from)
            .collect()
    };
    let bashrc = [format!("{TARGET_MARK} append outside ~/.bashrc")];
    assert_eq!(
        writes("/home/user", "/home/user", "echo x >> .bashrc"),
        bashrc
    );
    assert_eq!(
        writes("/home/user", "/home/user/p", "echo x >> .bashrc"),
        bashrc
    );
    assert!(writes("/home/user/p", "/home/user/p", "echo x >> .bashrc").is_empty());
}

#[test]
fn a_working_directory_that_is_the_home_or_the_root_bounds_nothing() {
    for (cwd, root, command, want) in [
        (
            "/home/user",
            "/home/user",
            "rm -rf build",
            "recursive outside ~/build",
        ),
        (
            "/home/user/",
            "/home/user",
            "rm -rf node_modules",
            "recursive outside ~/node_modules",
        ),
        ("/", "/", "rm -rf srv/data", "recursive outside /srv/data"),
        // Only the root that is the home bounds nothing: the project still does.
        (
            "/home/user",
            "/home/user/project",
            "rm -rf project/x",
            "recursive cwd ~/project/x",
        ),
        (
            "/home/user/project",
            "/home/user/project",
            "rm -rf build",
            "recursive cwd ~/project/build",
        ),
        // Named through the home, a path inside the project is not read as the project's.
        (
            "/home/user/project",
            "/home/user/project",
            "rm -rf ~/project/build",
            "recursive outside ~/project/build",
        ),
        (
            "/home/user/project",
            "/home/user/project",
            "rm -rf $HOME/project/build",
            "recursive outside ~/project/build",
        ),
        (
            "/home/user/project",
            "/home/user/project",
            "rm -rf \"${HOME}\"/project/dist",
            "recursive outside ~/project/dist",
        ),
        (
            "/home/user/project",
            "/home/user/project",
            "rm -rf /home/user/project/build",
            "recursive cwd ~/project/build",
        ),
    ] {
        let places = Places {
            cwd: Some(cwd),
            home: Some("/home/user"),
            project_root: Some(root),
        };
        let got: Vec<String> = analyse_in(command, places)
            .generous_texts()
            .filter(|t| t.starts_with(TARGET_MARK))
            .map(String::from)
            .collect();
        let want = format!("{TARGET_MARK} {want}");
        assert!(
            got.contains(&want),
            "{cwd} {command:?}: {got:?} lacks {want:?}"
        );
    }
}

/// A command that does not parse is split coarsely, and each piece's targets are still
/// resolved: a rule reading where a deletion lands must not lose it to a stray quote.
#[test]
fn the_pieces_of_an_unparseable_command_have_targets_too() {
    for (command, want) in [
        ("rm -rf /usr/local 'x", "recursive outside /usr/local"),
        ("cd .. && rm -rf app \"", "recursive outside ~/app"),
        ("rm -rf build 'x", "recursive cwd ~/project/build"),
    ] {
        let analysis = analyse_in(command, PLACES);
        assert!(analysis.unparseable.is_some(), "{command:?} parses");
        let want = format!("{TARGET_MARK} {want}");
        let got: Vec<&str> = analysis
            .generous_texts()
            .filter(|t| t.starts_with(TARGET_MARK))
            .collect();
        assert!(
            got.contains(&want.as_str()),
            "{command:?}: {got:?} lacks {want:?}"
        );
    }
}

#[test]
fn a_line_in_several_directories_is_read_in_each() {
    let got = targets("(cd /tmp && rm -rf x); rm -rf build");
    for want in [
        "recursive temp /tmp/x",
        "recursive cwd ~/project/build",
        "recursive temp /tmp/build",
    ] {
        let want = format!("{TARGET_MARK} {want}");
        assert!(got.contains(&want), "{got:?} lacks {want:?}");
    }
    // What no deletion reaches has no target.
    assert!(targets("ls | xargs -I{} rm -rf {}").is_empty());
    assert!(targets("git status && cargo build").is_empty());
    assert!(targets("find . -name x -print").is_empty());
    // rm refuses these: nothing is deleted.
    assert!(targets("rm -rf . .. ./ ../ ''").is_empty());
}

#[test]
fn without_a_cwd_relative_targets_stay_relative() {
    let places = Places {
        home: Some("/home/user"),
        ..Places::default()
    };
    let texts: Vec<String> = analyse_in("rm -rf build ../x /opt", places)
        .generous_texts()
        .filter(|t| t.starts_with(TARGET_MARK))
        .map(String::from)
        .collect();
    assert_eq!(
        texts,
        [
            "@rm-target recursive cwd ./build",
            "@rm-target recursive unknown ../x",
            "@rm-target recursive outside /opt",
        ]
    );
}
