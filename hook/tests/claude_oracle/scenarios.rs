//! The scenarios of the table, in table order: files and edits first, then every other tool.

use super::*;

/// Every scenario, in the order the table stores them.
pub(super) fn scenarios() -> Vec<Scenario> {
    let mut all = file_scenarios();
    all.extend(edit_scenarios());
    all.extend(read_glob_scenarios());
    all.extend(other_scenarios());
    all
}

/// Read and the other file tools against anchored path rules.
fn file_scenarios() -> Vec<Scenario> {
    vec![
        // `./.env` against every spelling of the project's .env, and at depth.
        scenario(
            "files-deny-anchored",
            &["Read(docs/**)"],
            &[],
            &["Read(./.env)"],
        )
        .files(&[".env", "sub/.env", "src/x.ts", "docs/a.md", ".env.local"])
        .home_files(&["outside.txt"])
        .symlink("link.env", ".env")
        .read("{project}/.env")
        .read("{project}/src/../.env")
        .read("{project}/link.env")
        .read("{project}/sub/.env")
        .read("{project}/./.env")
        .read("{project}//.env")
        .read("{project}/.env.local")
        .read("{project}/src/x.ts")
        .grep("MARK", Some("{project}/.env"))
        .glob(".env", None)
        .bash("cat .env")
        .edit("{project}/.env", ".env")
        .read("{project}/docs/a.md")
        .read("{home}/outside.txt")
        .write("{project}/new.txt")
        .done(),
        // `.env` (no anchor) at any depth, outside the project, through a symlink.
        scenario(
            "files-deny-any-depth",
            &["Read(~/**)"],
            &[],
            &["Read(.env)"],
        )
        .files(&[
            ".env",
            "sub/.env",
            "sub/deep/.env",
            "sub/x.env",
            "src/ok.txt",
        ])
        .home_files(&[".env", "proj2/.env", "notes.txt"])
        .symlink("src/env-link", "../sub/deep/.env")
        .symlink("innocent.txt", "{home}/proj2/.env")
        .read("{project}/.env")
        .read("{project}/sub/.env")
        .read("{project}/sub/deep/.env")
        .read("{project}/sub/x.env")
        .read("{project}/src/env-link")
        .read("{project}/innocent.txt")
        .read("{home}/.env")
        .read("{home}/proj2/.env")
        .read("{home}/notes.txt")
        .read("{project}/src/ok.txt")
        .grep("MARK", Some("{project}/sub"))
        .glob("**/.env", None)
        .done(),
        // HOME (`~/`), `//` absolute, `/` root-relative and plain absolute anchors.
        scenario(
            "files-deny-home-and-absolute",
            &["Read(~/notes/**)"],
            &[],
            &[
                "Read(~/.ssh/**)",
                "Read(/{project}/secret/**)",
                "Read(/rootrel/**)",
                "Read(/../project/viasettings/**)",
                "Read({project}/plainabs/**)",
            ],
        )
        .home_files(&[".ssh/id_rsa", ".ssh/config", "notes/n.txt", "other.txt"])
        .files(&[
            "secret/s.txt",
            "rootrel/r.txt",
            "viasettings/v.txt",
            "plainabs/p.txt",
            "sub/rootrel/r.txt",
            "ok.txt",
        ])
        .read("{home}/.ssh/id_rsa")
        .read("{home}/./.ssh/id_rsa")
        .read("{project}/../home/.ssh/id_rsa")
        .read("{home}/.ssh/config")
        .read("~/.ssh/id_rsa")
        .read("{home}/notes/n.txt")
        .read("{home}/other.txt")
        .read("{project}/secret/s.txt")
        .read("{project}/rootrel/r.txt")
        .read("{project}/sub/rootrel/r.txt")
        .read("{project}/viasettings/v.txt")
        .read("{project}/plainabs/p.txt")
        .read("{project}/ok.txt")
        .grep("MARK", Some("{project}/secret"))
        .glob("*", Some("{home}/.ssh"))
        .bash("cat ~/.ssh/id_rsa")
        .done(),
        // `/x` entries with the settings file at the project root.
        scenario(
            "files-root-anchor",
            &["Edit(/src/**)"],
            &[],
            &["Read(/rootrel/**)", "Read(/.env)", "Edit(/src/gen/**)"],
        )
        .settings_in_project()
        .files(&[
            "rootrel/r.txt",
            "sub/rootrel/r.txt",
            ".env",
            "sub/.env",
            "src/a.ts",
            "src/gen/g.ts",
            "lib/src/x.ts",
        ])
        .read("{project}/rootrel/r.txt")
        .read("{project}/sub/rootrel/r.txt")
        .read("{project}/.env")
        .read("{project}/sub/.env")
        .edit("{project}/src/a.ts", "src/a.ts")
        .edit("{project}/src/gen/g.ts", "src/gen/g.ts")
        .edit("{project}/lib/src/x.ts", "lib/src/x.ts")
        .write("{project}/src/new.ts")
        .write("{project}/lib/src/new.ts")
        .done(),
    ]
}

/// Edit and Write grants and denies against Edit, Write and NotebookEdit.
fn edit_scenarios() -> Vec<Scenario> {
    vec![
        // Edit(src/**) as the only grant for writes.
        // (`Read(~/**)`: a file outside the project must be read before it can be edited.)
        scenario("edit-allow-src", &["Edit(src/**)", "Read(~/**)"], &[], &[])
            .files(&["src/a.ts", "src/a/b.ts", "lib/x.ts", "lib/y.ts", "top.ts"])
            .file("src/nb.ipynb", NOTEBOOK)
            .file("lib/nb.ipynb", NOTEBOOK)
            .home_files(&["h.ts"])
            .symlink("src/escape", "../lib")
            .edit("{project}/src/a.ts", "src/a.ts")
            .edit("{project}/src/a/b.ts", "src/a/b.ts")
            .edit("{project}/src/../lib/x.ts", "lib/x.ts")
            .edit("{project}/lib/y.ts", "lib/y.ts")
            .edit("{project}/top.ts", "top.ts")
            .read("{home}/h.ts")
            .edit("{home}/h.ts", "home:h.ts")
            .edit("{project}/src/escape/x.ts", "lib/x.ts")
            .write("{project}/src/new.ts")
            .write("{project}/src/deep/er/new.ts")
            .write("{project}/lib/new.ts")
            .write("{project}/src/../lib/new2.ts")
            .write("{home}/new.ts")
            .read("{project}/src/nb.ipynb")
            .read("{project}/lib/nb.ipynb")
            .notebook("{project}/src/nb.ipynb")
            .notebook("{project}/lib/nb.ipynb")
            .call(
                "MultiEdit",
                json!({"file_path": "{project}/src/a.ts", "edits": [{"old_string": "MARK", "new_string": "MULTI"}]}),
            )
            .done(),
        // Edit(*.ts): a bare file glob.
        scenario("edit-allow-ts-glob", &["Edit(*.ts)", "Read(~/**)"], &[], &[])
            .files(&["a.ts", "src/b.ts", "src/c.js", "deep/x/y/z.ts"])
            .home_files(&["h.ts"])
            .edit("{project}/a.ts", "a.ts")
            .edit("{project}/src/b.ts", "src/b.ts")
            .edit("{project}/src/c.js", "src/c.js")
            .edit("{project}/deep/x/y/z.ts", "deep/x/y/z.ts")
            .read("{home}/h.ts")
            .edit("{home}/h.ts", "home:h.ts")
            .write("{project}/new.ts")
            .write("{project}/src/new.ts")
            .write("{project}/new.js")
            .done(),
        // Edit deny rules against Write and NotebookEdit; allow Edit everywhere else.
        scenario("edit-deny-locked", &["Edit"], &[], &["Edit(locked/**)", "Edit(**/*.lock)"])
            .files(&["locked/a.txt", "free/b.txt", "deps/x.lock", "y.lock", "free/c.txt"])
            .file("locked/nb.ipynb", NOTEBOOK)
            .file("free/nb.ipynb", NOTEBOOK)
            .edit("{project}/locked/a.txt", "locked/a.txt")
            .edit("{project}/free/b.txt", "free/b.txt")
            .edit("{project}/free/../locked/a.txt", "locked/a.txt")
            .edit("{project}/deps/x.lock", "deps/x.lock")
            .edit("{project}/y.lock", "y.lock")
            .write("{project}/locked/new.txt")
            .write("{project}/free/new.txt")
            .write("{project}/new.lock")
            .read("{project}/locked/a.txt")
            .read("{project}/locked/nb.ipynb")
            .read("{project}/free/nb.ipynb")
            .notebook("{project}/locked/nb.ipynb")
            .notebook("{project}/free/nb.ipynb")
            .done(),
        // Rules spelled with `Write(…)` rather than `Edit(…)`.
        scenario(
            "write-rules",
            &["Write(out/**)", "Edit(src/**)"],
            &[],
            &["Write(secret/**)"],
        )
        .files(&["out/x.txt", "secret/y.txt", "src/z.txt"])
        .write("{project}/out/a.txt")
        .write("{project}/src/a.txt")
        .write("{project}/secret/a.txt")
        .edit("{project}/out/x.txt", "out/x.txt")
        .edit("{project}/secret/y.txt", "secret/y.txt")
        .edit("{project}/src/z.txt", "src/z.txt")
        .done(),
    ]
}

/// Globs and directory names against Read, Grep and Glob; ask rules beside allows.
fn read_glob_scenarios() -> Vec<Scenario> {
    vec![
        // `**/*.pem` and a directory name (`secrets`) against Read, Grep and Glob.
        scenario(
            "files-deny-pem-and-dir",
            &["Read(~/**)"],
            &[],
            &["Read(**/*.pem)", "Read(secrets)"],
        )
        .files(&[
            "key.pem",
            "certs/a.pem",
            "deep/x/y.pem",
            "secrets/x.txt",
            "sub/secrets/y.txt",
            "secrets2/z.txt",
            "mysecrets/w.txt",
            "ok.txt",
        ])
        .home_files(&["h.pem"])
        .read("{project}/key.pem")
        .read("{project}/certs/a.pem")
        .read("{project}/deep/x/y.pem")
        .read("{home}/h.pem")
        .read("{project}/secrets/x.txt")
        .read("{project}/sub/secrets/y.txt")
        .read("{project}/secrets2/z.txt")
        .read("{project}/mysecrets/w.txt")
        .read("{project}/ok.txt")
        .grep("MARK", Some("{project}/secrets"))
        .grep("MARK", Some("{project}/certs"))
        .grep("MARK", Some("{project}/certs/a.pem"))
        .glob("*", Some("{project}/secrets"))
        .glob("**/*.pem", None)
        .grep("MARK", None)
        .done(),
        // `Read(secrets/**)` (the usual spelling) against the directory itself.
        scenario(
            "files-deny-dir-glob",
            &["Read(docs/**)"],
            &[],
            &["Read(secrets/**)"],
        )
        .files(&[
            "secrets/x.txt",
            "secrets/deep/y.txt",
            "sub/secrets/z.txt",
            "docs/d.md",
        ])
        .read("{project}/secrets/x.txt")
        .read("{project}/secrets/deep/y.txt")
        .read("{project}/sub/secrets/z.txt")
        .grep("MARK", Some("{project}/secrets"))
        .glob("**", Some("{project}/secrets"))
        .glob("secrets/**", None)
        .bash("ls secrets")
        .bash("cat secrets/x.txt")
        .read("{project}/docs/d.md")
        .done(),
        // Ask rules for Read and Edit beside allow rules.
        scenario(
            "files-ask",
            &["Edit", "Read(~/**)"],
            &["Read(private/**)", "Edit(config/**)", "Read(~/.aws/**)"],
            &[],
        )
        .files(&[
            "private/p.txt",
            "public.txt",
            "config/c.yaml",
            "app.txt",
            "src/private/q.txt",
        ])
        .home_files(&[".aws/credentials", "h.txt"])
        .read("{project}/private/p.txt")
        .read("{project}/public.txt")
        .read("{project}/src/private/q.txt")
        .grep("MARK", Some("{project}/private"))
        .glob("*", Some("{project}/private"))
        .edit("{project}/config/c.yaml", "config/c.yaml")
        .edit("{project}/app.txt", "app.txt")
        .write("{project}/config/new.yaml")
        .read("{home}/.aws/credentials")
        .read("{home}/h.txt")
        .done(),
        // Bash commands naming a file a Read deny covers without printing its bytes, each
        // allowed by its program: which of them claude's own path checks still refuse.
        scenario(
            "bash-names-denied-files",
            &[
                "Bash(ls:*)",
                "Bash(stat:*)",
                "Bash(test:*)",
                "Bash(chmod:*)",
                "Bash(ssh:*)",
                "Bash(ssh-add:*)",
                "Bash(kubectl:*)",
                "Bash(export:*)",
                "Bash(cat:*)",
            ],
            &[],
            &["Read(~/.ssh/id_rsa)", "Read(~/.kube/config)"],
        )
        .home_files(&[".ssh/id_rsa", ".kube/config"])
        .bash("ls -l ~/.ssh/id_rsa")
        .bash("stat ~/.ssh/id_rsa")
        .bash("test -f ~/.ssh/id_rsa")
        .bash("chmod 600 ~/.ssh/id_rsa")
        .bash("ssh -i ~/.ssh/id_rsa -o BatchMode=yes nohost true")
        .bash("ssh-add ~/.ssh/id_rsa")
        .bash("kubectl --kubeconfig ~/.kube/config get pods")
        .bash("KUBECONFIG=$HOME/.kube/config kubectl get ns")
        .bash("export KUBECONFIG=$HOME/.kube/config")
        .bash("cat ~/.kube/config")
        .done(),
    ]
}
