use super::*;

/// A fake project and home on disk, the guard's places in them.
struct Scratch {
    root: std::path::PathBuf,
    project: String,
    home: String,
    guard: Guard,
}

impl Scratch {
    fn new(name: &str) -> Scratch {
        let root = std::env::temp_dir().join(format!("animus-guard-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let project = root.join("project");
        let home = root.join("home");
        for d in [
            project.join(".claude/commands"),
            project.join("src"),
            home.join(".claude"),
            root.join("run"),
            root.join("bin"),
            root.join("state"),
        ] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(root.join("bin/animus-hook"), "").unwrap();
        std::fs::write(project.join(".claude/settings.json"), "{}").unwrap();
        std::os::unix::fs::symlink(project.join(".claude"), project.join("c")).unwrap();
        std::os::unix::fs::symlink(root.join("run"), project.join("s")).unwrap();
        let s = |p: std::path::PathBuf| p.to_str().unwrap().to_string();
        Scratch {
            project: s(project),
            home: s(home),
            guard: Guard {
                policy_dirs: vec![s(root.join("run"))],
                state_dirs: vec![s(root.join("state"))],
                binaries: vec![s(root.join("bin/animus-hook"))],
            },
            root,
        }
    }

    fn refusal(&self, command: &str) -> Option<Refusal> {
        let places = Places {
            cwd: Some(&self.project),
            home: Some(&self.home),
            project_root: Some(&self.project),
        };
        shell_refusal(command, places, &self.guard)
    }

    fn expand(&self, command: &str) -> String {
        command
            .replace("<RUN>", &self.guard.policy_dirs[0])
            .replace("<STATE>", &self.guard.state_dirs[0])
            .replace("<BIN>", self.root.join("bin").to_str().unwrap())
            .replace("<HOME>", &self.home)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

#[test]
fn copies_moves_and_removals_reaching_the_guard_are_refused() {
    let s = Scratch::new("dest");
    for (command, rule) in [
        ("cp fake <BIN>/", DESTINATION_RULE),
        ("cp fake <BIN>", DESTINATION_RULE),
        ("cp evil/settings.local.json .claude/", DESTINATION_RULE),
        ("cp -t .claude x", DESTINATION_RULE),
        ("cp --target-directory=.claude x", DESTINATION_RULE),
        ("cp -t.claude x", DESTINATION_RULE),
        // Every way the option walker of cp/mv/install and rm/shred/tee/truncate reads a
        // target: a separate long-option value, a cluster ending in `t`, options taking the
        // next word, and `--` before the operands (`cp -- -t .claude/` copies a file `-t`).
        ("cp --target-directory .claude x", DESTINATION_RULE),
        ("cp -rt .claude x", DESTINATION_RULE),
        ("cp -S .bak x .claude/", DESTINATION_RULE),
        ("cp -- x .claude/", DESTINATION_RULE),
        ("cp -- -t .claude/", DESTINATION_RULE),
        ("mv -- .claude x", DESTINATION_RULE),
        ("mv -fS .old .claude x", DESTINATION_RULE),
        ("install -m 755 -- fake <BIN>/", DESTINATION_RULE),
        ("rm -rf -- .claude", DESTINATION_RULE),
        ("rm -r -- s/x", DESTINATION_RULE),
        ("shred -n 1 s/x", DESTINATION_RULE),
        ("shred -un1 -- s/x", DESTINATION_RULE),
        ("tee -a -- .claude/x.json", DESTINATION_RULE),
        ("truncate -s 0 .claude/x.json", DESTINATION_RULE),
        ("truncate -s0 -- .claude/x.json", DESTINATION_RULE),
        ("rsync -a evil/ .claude/", DESTINATION_RULE),
        ("rsync evil/x.json .claude", DESTINATION_RULE),
        ("rsync -a evil/ ./", DESTINATION_RULE),
        ("cp -r evil/.claude .", DESTINATION_RULE),
        ("cp -r evil/. .", DESTINATION_RULE),
        ("cp -r evil/.* .", DESTINATION_RULE),
        ("mv .claude x", DESTINATION_RULE),
        ("mv ~/.claude ~/.c", DESTINATION_RULE),
        ("mv $HOME/.claude /tmp/", DESTINATION_RULE),
        ("cp x c/", DESTINATION_RULE),
        ("cp x ./c", DESTINATION_RULE),
        ("cd src && cp x ../.claude/", DESTINATION_RULE),
        ("cp x src/../.claude", DESTINATION_RULE),
        ("ln -s .claude c2", DESTINATION_RULE),
        ("ln -sf /dev/null .claude/x", DESTINATION_RULE),
        // Files rewritten from a commit the agent may have made, the guard's among them.
        ("git checkout evil -- .claude", DESTINATION_RULE),
        ("git checkout evil .claude", DESTINATION_RULE),
        ("git checkout evil -- .", DESTINATION_RULE),
        ("git checkout evil -- '*.json'", DESTINATION_RULE),
        ("git checkout evil -- ':/.claude'", DESTINATION_RULE),
        ("git -C src checkout evil -- ../.claude", DESTINATION_RULE),
        (
            "git --work-tree=. checkout evil -- .claude",
            DESTINATION_RULE,
        ),
        ("git restore --source evil .claude", DESTINATION_RULE),
        ("git restore -s evil -- .claude", DESTINATION_RULE),
        (
            "git restore --source=evil --staged --worktree .claude",
            DESTINATION_RULE,
        ),
        ("git checkout-index -a -f", DESTINATION_RULE),
        // Ignored files removed too: claude's git-ignored local settings among them.
        ("git clean -fdx", DESTINATION_RULE),
        ("git clean -f -d -X", DESTINATION_RULE),
        ("git clean --force -x .claude", DESTINATION_RULE),
        ("git -C src clean -ffx ..", DESTINATION_RULE),
        ("git clean -fdx ':/'", DESTINATION_RULE),
        // An alias may be checkout: set earlier, or in the command.
        ("git co evil -- .claude", DESTINATION_RULE),
        (
            "git -c alias.co=checkout co evil -- .claude",
            DESTINATION_RULE,
        ),
        ("git restore --source .claude -- .claude", DESTINATION_RULE),
        // A `cd` to a glob the shell expands, then a bare name.
        ("cd .clau* && cp x settings.json", DESTINATION_RULE),
        ("cd .cl?ude; tee settings.json < x", DESTINATION_RULE),
        ("ln -s <RUN> r", NAMES_GUARD_RULE),
        ("ln -s ~ h", DESTINATION_RULE),
        (
            "mkdir d && ln -s .. d/up && cp x d/up/.claude/",
            DESTINATION_RULE,
        ),
        ("install -m755 fake <BIN>/", DESTINATION_RULE),
        ("tar -xf evil.tar -C .claude", DESTINATION_RULE),
        ("tar xzf evil.tgz", DESTINATION_RULE),
        ("unzip evil.zip -d ~/.claude", DESTINATION_RULE),
        ("rm -rf .claude", DESTINATION_RULE),
        ("rm -rf ~/.claude", DESTINATION_RULE),
        ("rm -rf ..", DESTINATION_RULE),
        ("rm -rf s/", DESTINATION_RULE),
        ("rm -r s/x", DESTINATION_RULE),
        ("find . -name '*.json' -delete", DESTINATION_RULE),
        ("find . -type f -delete", DESTINATION_RULE),
        ("find s -delete", DESTINATION_RULE),
        ("find . -name 'settings*' -exec rm {} \\;", DESTINATION_RULE),
        (
            "find ~ -name '*.json' -exec sed -i s/deny/allow/ {} +",
            DESTINATION_RULE,
        ),
        ("rsync -a host:evil/ .", DESTINATION_RULE),
        ("rsync -a host:evil/.claude .", DESTINATION_RULE),
        ("d=.claude; cp x $d/", DESTINATION_RULE),
        ("export D=~/.claude && cp x \"${D}\"", DESTINATION_RULE),
        ("cp x $HOME/.claude/", DESTINATION_RULE),
        ("echo '{}' > c/settings.local.json", DESTINATION_RULE),
        ("echo x > .claude/x.json", DESTINATION_RULE),
        // A printer and a quoted word (stop 41 changed how path rules read them; the guard
        // reads its own way and must still see these).
        ("printf '{}' >> \"c/settings.local.json\"", DESTINATION_RULE),
        ("cp x \"<RUN>/animus-policy.json\"", NAMES_GUARD_RULE),
        ("sudo cp fake <BIN>/", DESTINATION_RULE),
        ("bash -c 'cp x .claude/'", DESTINATION_RULE),
        // Naming the guard's files, inline code included.
        (
            "python3 -c \"import shutil; shutil.copy('p.json', '<RUN>/animus-policy.json')\"",
            NAMES_GUARD_RULE,
        ),
        ("perl -e 'unlink \"<RUN>/x\"'", NAMES_GUARD_RULE),
        (
            "node -e \"require('fs').rmSync('<STATE>', {recursive: true})\"",
            NAMES_GUARD_RULE,
        ),
        ("find <RUN> -name 'animus*' -delete", NAMES_GUARD_RULE),
        ("d=<RUN>; cp evil.json $d/", NAMES_GUARD_RULE),
        ("cp evil .cl''aude/se\"tt\"ings.json", NAMES_GUARD_RULE),
        ("cat ~/.animus/x/sessions/s.jsonl", NAMES_GUARD_RULE),
        ("rm -f $HOME/.animus/x", NAMES_GUARD_RULE),
        ("rm -rf \"$ANIMUS_CONFIG_DIR\"", NAMES_GUARD_RULE),
        ("cp fake <BIN>/animus-hook", NAMES_GUARD_RULE),
        (
            "python3 -c \"open('.claude/settings.local.json','w').write('{}')\"",
            NAMES_GUARD_RULE,
        ),
        (
            "claude -p x --dangerously-skip-permissions",
            NESTED_AGENT_RULE,
        ),
    ] {
        let command = s.expand(command);
        let refusal = s
            .refusal(&command)
            .unwrap_or_else(|| panic!("`{command}` was not refused"));
        assert_eq!(refusal.rule, rule, "{command}: {}", refusal.reason);
        assert!(refusal.reason.contains("animus-hook"), "{}", refusal.reason);
    }
}

#[test]
fn ordinary_work_and_reading_the_guard_places_pass() {
    let s = Scratch::new("ordinary");
    for command in [
        "cp a b",
        "cp -r src backup",
        "cp src/*.rs /tmp/",
        "mv src/x src/y",
        "cat README.md",
        "ls ~/.claude",
        "ls -la .claude/",
        "cp review.md .claude/commands/",
        "rm -rf target build",
        "rm -rf /tmp/x",
        "find . -name '*.pyc' -delete",
        "find src -type f -delete",
        "tar -xzf deps.tgz -C vendor",
        "tar -czf out.tgz src",
        "unzip -l a.zip",
        "rsync -a src/ /tmp/mirror/",
        "ln -s ../lib/libx.so lib/",
        "echo hi > out.txt 2>&1",
        "cargo build 2>/dev/null | tee build.log",
        "git mv src/a.rs src/b.rs",
        "cp $UNKNOWN/x .",
        "/tmp/running/x",
        "mv prisma /tmp/ && mv src/lib/db*.ts /tmp/ 2>/dev/null",
        "cp a b 2> err.log",
        "cp -r src .",
        "cp -r /tmp/x/src ./",
        "rsync -av host:/my/dir .",
        "find . -type f -exec md5sum {} \\;",
        "find . -type d -exec chmod 755 {} +",
        "find src -name '*.rs' -exec sed -i s/a/b/ {} +",
        "unzip -c a.zip",
        "find . -inum 752010 -exec rm {} \\;",
        "find . -depth -empty -type d -delete",
        "find -L . -type l -delete",
        "git checkout main",
        "git checkout -b feature origin/main",
        "git checkout -- src/main.rs",
        "git checkout HEAD~1 -- src/",
        "git checkout HEAD~1 -- 'src/*.rs'",
        "git restore src/x.rs",
        "git restore --staged .",
        "git restore --source=HEAD~1 --staged .",
        "git restore --source HEAD~1 src/lib.rs",
        "git switch -c topic",
        "git clean -fd",
        "git clean -ndx",
        "git clean -fdx --dry-run",
        "git clean -fdx -e .claude",
        "git clean -fdx src/",
        "git clean -fdx ':!.claude'",
        "git st",
        "git co main",
        "git lfs pull",
        "git log evil -- .claude",
        "git diff evil -- .claude",
        "cd sr* && cp a b",
    ] {
        assert_eq!(s.refusal(command), None, "{command}");
    }
}

#[test]
fn shell_globs_match_names_as_the_shell_does() {
    use destinations::glob_matches;
    assert!(glob_matches(".*", ".claude"));
    assert!(!glob_matches("*", ".claude"));
    assert!(glob_matches("*.json", "settings.json"));
    assert!(glob_matches("settings*", "settings.local.json"));
    assert!(glob_matches(".[a-c]laude", ".claude"));
    assert!(!glob_matches("*.pyc", "settings.json"));
    assert!(glob_matches("?", "a"));
}

/// The guard's places are also known by their real paths: a place given through a link (the
/// state directory as a link, the binaries below a linked directory, a home that is a link,
/// a missing settings directory under it) is refused when the command names where the link
/// leads. With the places' resolution switched off, the state, binary and linked-`.codex`
/// cases fail (checked); the home's `.claude`/`.gemini` ones are also caught by name.
#[test]
fn places_given_through_links_are_known_by_their_real_paths() {
    let root = std::env::temp_dir().join(format!("animus-guard-links-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    crate::test_tree::make_tree(
        &root,
        &[
            "project",
            "home/.claude",
            "state",
            "bin",
            "dotfiles/codex",
            "run",
        ],
        &[("bin/animus-hook", "")],
        &[
            ("state", "state-link"),
            ("bin", "bin-link"),
            ("home", "home-link"),
            ("dotfiles/codex", "home/.codex"),
        ],
    );
    let s = |p: &str| root.join(p).to_str().unwrap().to_string();
    let guard = Guard {
        policy_dirs: vec![s("run")],
        state_dirs: vec![s("state-link")],
        binaries: vec![s("bin-link/animus-hook")],
    };
    let (project, home) = (s("project"), s("home-link"));
    let places = Places {
        cwd: Some(&project),
        home: Some(&home),
        project_root: Some(&project),
    };
    let root_text = root.to_str().unwrap();
    for command in [
        // The state directory itself is a link.
        "rm -rf <ROOT>/state",
        "cp evil <ROOT>/state/x.jsonl",
        // The binary lies below a linked directory.
        "rm <ROOT>/bin/animus-hook",
        "cp fake <ROOT>/bin/animus-hook",
        // The home is a link: its settings directory, present and missing.
        "rm -rf <ROOT>/home/.claude",
        "cp evil <ROOT>/home/.gemini/extra.json",
        // A settings directory of the home that is a link itself.
        "rm -rf <ROOT>/dotfiles/codex",
        "cp evil <ROOT>/dotfiles/codex/config.toml",
    ] {
        let command = command.replace("<ROOT>", root_text);
        let refusal = shell_refusal(&command, places, &guard);
        assert_eq!(
            refusal.as_ref().map(|r| r.rule),
            Some(DESTINATION_RULE),
            "{command}: {refusal:?}"
        );
    }
    // Paths beside the places stay ordinary work.
    for command in ["rm -rf <ROOT>/dotfiles/other", "cp x <ROOT>/home/notes.txt"] {
        let command = command.replace("<ROOT>", root_text);
        assert_eq!(shell_refusal(&command, places, &guard), None, "{command}");
    }
    let _ = std::fs::remove_dir_all(&root);
}
