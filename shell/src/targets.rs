//! Deletion targets resolved against the call's working directory: the texts that let a pack
//! rule tell `rm -rf ./build` (everyday work) from `cd .. && rm -rf x` (a directory no project
//! owns).
//!
//! For every `rm` a command line runs (after wrappers, feeders and `-c` strings are peeled)
//! and every `find` that deletes (`-delete`, or `-exec`/`-execdir`/`-ok`/`-okdir` running
//! `rm`, `unlink`, `shred`, `rmdir`), each target gets one more generous text of its segment
//! (seen by deny and ask, never by allow):
//!
//! ```text
//! @rm-target <recursive|plain|find|write|append> <cwd|temp|outside|unknown> <resolved path>
//! ```
//!
//! (The same text, of kind **write**, for every file the command empties and writes by a
//! redirection (`>`, `>|`, `&>`; not `/dev/null`) or names to `tee`, and of kind **append**
//! for one it appends to (`>>`, `&>>`, `tee -a`): `cd ~ && echo x >> .bashrc` appends to
//! `~/.bashrc`, which a rule on the written file reads however the line spells it.)
//!
//! - **recursive** when `rm` has `-r`/`-R`/`--recursive` (in any spelling the normal form
//!   reads, see `segment::options`), **plain** for another `rm`, **find** for a start path
//!   of a deleting `find` (it deletes what matches below it, placed as its contents);
//! - the **place**: `cwd` strictly inside the payload's `cwd` or the project root (with no
//!   `cwd` in the payload, a relative path that does not climb out of it; neither bounds
//!   anything when it is the home directory or the root); `temp` strictly
//!   inside `/tmp`, `/var/tmp` (or their `/private` forms), a directory the same line made
//!   with `mktemp`, or below `$TMPDIR` (unless the line sets `TMPDIR`, even as a prefix:
//!   `TMPDIR=/elsewhere rm -rf $TMPDIR/x` is not read charitably); `outside` anywhere else
//!   (the working directory itself, `/tmp` itself, the home directory, the root); `unknown`
//!   when the path cannot be known: an expansion (`$X/y`, `` `pwd`/x ``, `$(pwd)`), another
//!   user's home (`~user`), `~-`, `${HOME%/*}`, a directory after `cd -`, `cd "$D"`, `popd`;
//! - the **resolved path**: lexical (`.`, `..` and `//` collapsed, no symlink followed),
//!   absolute, written `~/…` when it lies under the home directory, as written when unknown.
//!
//! An operand `rm` refuses (empty, or naming `.` or `..`: `rm -rf ./` deletes nothing) gets
//! no text.
//!
//! Resolution follows the line: `cd DIR`/`pushd DIR` change the directory later targets are
//! read from (`cd` alone and `cd ~` go home), `NAME=value` and `export NAME=value` with a
//! literal value define `$NAME` (a prefix assignment, `A=x rm $A`, does not: the shell
//! expands the words first), `$HOME`, `${HOME}`, `"${HOME:?}"`, `${HOME%/}`, `~`, `~+`,
//! `$PWD` are read. A line that may be in several directories (a `cd` in a subshell or a
//! branch: this pass reads the line in order, not its control flow) gets one text per
//! directory, so each place is seen. `{}` (a feeder's placeholder) is not a target: `find`'s
//! own start paths are; below a named directory (`/srv/{}`) it is something inside that
//! directory. What `xargs` or `parallel` reads is seen only when its pipe carries a `find`'s
//! listing, directly or through line filters (`find /home -name x | grep y | xargs rm`):
//! that `find`'s start paths are targets of kind **find**, as if it deleted (it lists what
//! is deleted).
//!
//! A rule then reads, say, `^@rm-target recursive (outside|unknown) ` (ask: a recursive delete
//! outside the project and the temporary directories), or a resolved system directory.

use super::segment::{self, SimpleCommand};
use crate::Places;

/// The first word of a target text: no program is named so.
pub const TARGET_MARK: &str = "@rm-target";

/// Most directories one line is read in (beyond, later `cd`s make the place unknown).
const MAX_DIRECTORIES: usize = 4;

/// Temporary directories: a path strictly inside one is `temp`.
const TEMP_DIRECTORIES: &[&str] = &["/tmp", "/var/tmp", "/private/tmp", "/private/var/tmp"];

/// What a word resolves to.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Resolved {
    /// An absolute, normalised path.
    Path(String),
    /// A path relative to a working directory that is not known, not leaving it.
    Relative(String),
    /// A directory `mktemp` made (its text as written).
    Made(String),
    /// Not known (its text as written).
    Unknown,
}

/// A directory the line may be in.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Directory {
    /// Known: absolute, normalised.
    At(String),
    /// The payload's, which it did not give: a relative path is read as inside it.
    Unnamed,
    /// One a `cd` went to that cannot be known (`cd -`, `cd "$D"`, `popd`).
    Lost,
}

impl Directory {
    fn path(&self) -> Option<&str> {
        match self {
            Directory::At(p) => Some(p),
            _ => None,
        }
    }
}

/// A variable's value as the line set it.
#[derive(Clone, Debug)]
enum Value {
    Literal(String),
    /// `$(mktemp …)`: a new directory, harmless to delete wherever it is.
    Made,
    Unknown,
}

/// The target texts of `commands` (one list per command, in order), read in `places`.
pub fn target_texts(commands: &[SimpleCommand], places: Places) -> Vec<Vec<String>> {
    let mut directories = vec![match places.cwd {
        Some(cwd) => Directory::At(crate::normalise(cwd)),
        None => Directory::Unnamed,
    }];
    let mut current = directories[0].clone();
    let mut variables: Vec<(String, Value)> = Vec::new();
    // `$TMPDIR` names the temporary directory, unless the line sets it (even as a prefix,
    // `TMPDIR=/elsewhere rm -rf $TMPDIR/x`, which the shell expands with the old value: a
    // line that plays with it is not read charitably).
    let sets_tmpdir = commands.iter().any(|c| {
        c.assignments
            .iter()
            .map(String::as_str)
            .chain(c.words.iter().map(|w| w.text.as_ref()))
            .any(|w| w.starts_with("TMPDIR="))
    });
    if sets_tmpdir {
        variables.push(("TMPDIR".to_string(), Value::Unknown));
    }
    let mut out = vec![Vec::new(); commands.len()];
    let in_project_root = starts_in_project_root(places);
    for (i, (command, texts)) in commands.iter().zip(&mut out).enumerate() {
        // The files its redirections write (`> f`, `>> f`, `&> f`), read where the line is.
        for redirect in command.redirects.iter().filter(|r| !r.harmless) {
            if let Some(written) = redirect
                .written_as
                .as_deref()
                .filter(|w| spelled_elsewhere(w, &directories, in_project_root))
            {
                // `>>` and `&>>` append; `>`, `>|` and `&>` empty the file first.
                let operator = redirect
                    .text
                    .trim_start_matches(|c: char| c.is_ascii_digit() || c == '&');
                let target = Target {
                    operand: written,
                    kind: if operator.starts_with(">>") {
                        "append"
                    } else {
                        "write"
                    },
                    contents: false,
                };
                push_target(texts, target, &directories, places, &variables);
            }
        }
        let Some(first) = command.words.first() else {
            for assignment in &command.assignments {
                define(&mut variables, assignment);
            }
            continue;
        };
        // Most commands neither move, define, nor delete: decided without allocating.
        let program = segment::basename(&first.text);
        let relevant = matches!(
            program,
            "cd" | "pushd"
                | "popd"
                | "export"
                | "declare"
                | "typeset"
                | "local"
                | "readonly"
                | "rm"
                | "rimraf"
                | "find"
                | "tee"
        );
        if !relevant && !segment::is_wrapper(program) {
            continue;
        }
        let words: Vec<&str> = command.words.iter().map(|w| w.text.as_ref()).collect();
        // The `xargs` or `parallel` stage the deleting program runs under, if any.
        let mut feeder: Option<&[&str]> = None;
        for stage in segment::stages(&words) {
            let program = segment::basename(stage[0]);
            match program {
                "xargs" | "parallel" => {
                    feeder = Some(stage);
                    continue;
                }
                "cd" | "pushd" | "popd" => {
                    let to = match (program, stage.get(1)) {
                        ("popd", _) | (_, Some(&"-")) => None,
                        (_, None) => places.home.map(crate::normalise),
                        (_, Some(dir)) => match resolve(dir, &current, places, &variables) {
                            Resolved::Path(p) => Some(p),
                            _ => None,
                        },
                    };
                    current = to.map_or(Directory::Lost, Directory::At);
                    if !directories.contains(&current) {
                        if directories.len() < MAX_DIRECTORIES {
                            directories.push(current.clone());
                        } else if !directories.contains(&Directory::Lost) {
                            directories.push(Directory::Lost);
                        }
                    }
                }
                "export" | "declare" | "typeset" | "local" | "readonly" => {
                    for word in &stage[1..] {
                        if segment::is_assignment(word) {
                            define(&mut variables, word);
                        }
                    }
                }
                "rm" | "unlink" | "shred" | "rmdir" if program == "rm" || feeder.is_some() => {
                    if program == "rm" {
                        let normal = segment::normal_form(stage);
                        let words: Vec<&str> = match &normal {
                            Some(n) => n.iter().map(String::as_str).collect(),
                            None => stage.to_vec(),
                        };
                        let (options, operands) = split_operands(&words[1..]);
                        let recursive = options.contains(&"--recursive");
                        for operand in operands {
                            let target = Target {
                                operand,
                                kind: if recursive { "recursive" } else { "plain" },
                                contents: false,
                            };
                            push_target(texts, target, &directories, places, &variables);
                        }
                    }
                    // Run by a feeder: it also deletes what its pipe lists.
                    for path in listed_paths(commands, i, feeder, stage) {
                        let target = Target {
                            operand: &path,
                            kind: "find",
                            contents: true,
                        };
                        push_target(texts, target, &directories, places, &variables);
                    }
                }
                // Node's `rm -rf` (`npx rimraf dist`): every operand is deleted recursively.
                "rimraf" => {
                    let (_, operands) = split_operands(&stage[1..]);
                    for operand in operands {
                        let target = Target {
                            operand,
                            kind: "recursive",
                            contents: false,
                        };
                        push_target(texts, target, &directories, places, &variables);
                    }
                }
                "tee" => {
                    let (options, operands) = split_operands(&stage[1..]);
                    let appends = options
                        .iter()
                        .any(|o| *o == "--append" || (!o.starts_with("--") && o.contains('a')));
                    for operand in operands
                        .into_iter()
                        .filter(|w| spelled_elsewhere(w, &directories, in_project_root))
                    {
                        let target = Target {
                            operand,
                            kind: if appends { "append" } else { "write" },
                            contents: false,
                        };
                        push_target(texts, target, &directories, places, &variables);
                    }
                }
                "find" if find_deletes(stage) => {
                    for operand in find_start_paths(stage) {
                        let target = Target {
                            operand,
                            kind: "find",
                            contents: true,
                        };
                        push_target(texts, target, &directories, places, &variables);
                    }
                }
                _ => continue,
            }
            break;
        }
    }
    out
}

/// Programs that pass on lines they read unchanged (all, some, or reordered): a `find`'s
/// listing through them still names paths below its start paths.
const LINE_FILTERS: &[&str] = &[
    "grep", "egrep", "fgrep", "sort", "uniq", "head", "tail", "cat", "tac", "shuf",
];

/// When the deleting program `stage` runs under `feeder` (`xargs`, `parallel`) reading its
/// operands from a pipe, and the pipe into `commands[i]` carries a `find`'s listing (through
/// line filters: `find / -type f | grep log | xargs rm`), the start paths of that `find`: the
/// caller places them as their contents, as for `find … -delete` (what is deleted is what it
/// lists). An `xargs -a FILE` or a `parallel … ::: ARGS` reads no pipe; a listing the line
/// transforms (`sed`, `awk`) or a compound between them is not read.
fn listed_paths(
    commands: &[SimpleCommand],
    i: usize,
    feeder: Option<&[&str]>,
    stage: &[&str],
) -> Vec<String> {
    let Some(feeder) = feeder else {
        return Vec::new();
    };
    // The feeder's own options: the words before the command it runs.
    let options = &feeder[1..feeder.len().saturating_sub(stage.len()).max(1)];
    let reads_a_file = options.iter().any(|o| {
        o.starts_with("--arg-file")
            || (o.starts_with('-') && !o.starts_with("--") && o.contains('a'))
    });
    let has_arguments = segment::basename(feeder[0]) == "parallel"
        && feeder.iter().any(|w| segment::is_parallel_separator(w));
    if reads_a_file || has_arguments {
        return Vec::new();
    }
    listing_find(commands, i)
}

/// The start paths of the `find` whose listing the pipe into `commands[i]` carries, through
/// [`LINE_FILTERS`] (none when the pipe carries anything else).
fn listing_find(commands: &[SimpleCommand], i: usize) -> Vec<String> {
    let mut j = i;
    while commands[j].stdin_piped && j > 0 {
        j -= 1;
        let words: Vec<&str> = commands[j].words.iter().map(|w| w.text.as_ref()).collect();
        let Some(innermost) = segment::stages(&words).last().filter(|s| !s.is_empty()) else {
            return Vec::new();
        };
        match segment::basename(innermost[0]) {
            "find" => {
                return find_start_paths(innermost)
                    .into_iter()
                    .map(str::to_string)
                    .collect();
            }
            filter if LINE_FILTERS.contains(&filter) => continue,
            _ => return Vec::new(),
        }
    }
    Vec::new()
}

/// Does the file `written` names lie somewhere its spelling does not say, so that a rule on
/// written files needs its resolved path: a spelling through the home or a variable (`~/x`,
/// `$HOME/x`), an absolute path not in normal form (`//root/.bashrc`, `/a/../b`), or a relative
/// one read after a `cd` or from a working directory that is not the project root (the home,
/// where `>> .bashrc` writes the user's). An absolute normal path, or a relative one written
/// in the project root with no `cd` before it (`> build.log`, every-day work), is read by
/// those rules as written: no target text (each costs every rule's search).
/// `in_project_root`: the line starts in the project root ([`starts_in_project_root`]).
fn spelled_elsewhere(written: &str, directories: &[Directory], in_project_root: bool) -> bool {
    if let Some(below_root) = written.strip_prefix('/') {
        // Not in normal form: an empty, `.` or `..` component, or a trailing `/`.
        return below_root
            .split('/')
            .any(|component| matches!(component, "" | "." | ".."));
    }
    if written.starts_with(['~', '$', '`']) {
        return true;
    }
    directories.len() > 1 || !in_project_root
}

/// Does the line start in the project root (known, and not the home: a project opened at the
/// home is the home, where `>> .bashrc` writes the user's)?
fn starts_in_project_root(places: Places) -> bool {
    match (places.cwd, places.project_root) {
        (Some(cwd), Some(root)) => {
            let cwd = crate::normalise(cwd);
            cwd == crate::normalise(root)
                && places.home.is_none_or(|home| crate::normalise(home) != cwd)
        }
        _ => false,
    }
}

/// Record `NAME=value` (from a standalone assignment or `export`).
fn define(variables: &mut Vec<(String, Value)>, assignment: &str) {
    let Some((name, value)) = assignment.split_once('=') else {
        return;
    };
    let value = if value.starts_with("$(mktemp") || value.starts_with("`mktemp") {
        Value::Made
    } else if value.contains(['$', '`']) {
        Value::Unknown
    } else {
        Value::Literal(value.to_string())
    };
    variables.retain(|(n, _)| n != name);
    variables.push((name.to_string(), value));
}

/// The options and the operands of an `rm` (words after `--` are operands).
fn split_operands<'w>(args: &[&'w str]) -> (Vec<&'w str>, Vec<&'w str>) {
    let mut options = Vec::new();
    let mut operands = Vec::new();
    let mut after_dashes = false;
    for word in args {
        if after_dashes {
            operands.push(*word);
        } else if *word == "--" {
            after_dashes = true;
        } else if word.len() > 1 && word.starts_with('-') {
            options.push(*word);
        } else {
            operands.push(*word);
        }
    }
    (options, operands)
}

/// Does this `find` delete what it finds?
fn find_deletes(stage: &[&str]) -> bool {
    stage.contains(&"-delete")
        || segment::find_action_commands(stage)
            .into_iter()
            .any(|action| {
                stage[action]
                    .iter()
                    .any(|w| matches!(segment::basename(w), "rm" | "unlink" | "shred" | "rmdir"))
            })
}

/// `find`'s start paths (`.` when none is given).
fn find_start_paths<'w>(stage: &[&'w str]) -> Vec<&'w str> {
    let mut i = 1;
    // Leading options: -H -L -P -D debugopts -Olevel.
    while let Some(word) = stage.get(i) {
        match *word {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => i += 2,
            w if w.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    let paths: Vec<&str> = stage[i.min(stage.len())..]
        .iter()
        .take_while(|w| !w.starts_with(['-', '(', '!', ')']))
        .copied()
        .collect();
    if paths.is_empty() { vec!["."] } else { paths }
}

/// One deletion target.
struct Target<'w> {
    /// As written.
    operand: &'w str,
    /// `recursive`, `plain` or `find`.
    kind: &'static str,
    /// What is deleted is inside it, not it (`find DIR -delete`): placed as its contents.
    contents: bool,
}

/// Push the target texts of `target`: one per directory the line may be in (fewer when they
/// agree).
fn push_target(
    texts: &mut Vec<String>,
    target: Target,
    directories: &[Directory],
    places: Places,
    variables: &[(String, Value)],
) {
    // A placeholder is not a target (module docs); rm refuses an empty operand and one
    // naming `.` or `..` (`rm -rf ./` deletes nothing).
    let trimmed = target.operand.trim_end_matches('/');
    let refused = target.operand.is_empty()
        || (!trimmed.is_empty() && matches!(trimmed.rsplit('/').next(), Some("." | "..")));
    if let Some(at) = target.operand.find("{}") {
        // A placeholder below a named directory (`parallel rm -rf /srv/{}`, `xargs -I{} rm
        // -rf ../{}`): what is deleted is something inside that directory, placed as its
        // contents. A placeholder in the first name (`{}`, `x{}`) names nothing known.
        if let Some(slash) = target.operand[..at].rfind('/') {
            let directory = Target {
                operand: if slash == 0 {
                    "/"
                } else {
                    &target.operand[..slash]
                },
                kind: target.kind,
                contents: true,
            };
            push_target(texts, directory, directories, places, variables);
        }
        return;
    }
    if target.kind != "find" && !target.contents && refused {
        return;
    }
    let kind = target.kind;
    for directory in directories {
        let resolved = resolve(target.operand, directory, places, variables);
        let (place, path) = match &resolved {
            Resolved::Path(p) if target.contents => {
                let inside = if p == "/" {
                    "/x".to_string()
                } else {
                    format!("{p}/x")
                };
                (place_of(&inside, places), home_relative(p, places))
            }
            Resolved::Path(p) => (place_of(p, places), home_relative(p, places)),
            Resolved::Relative(p) => ("cwd", p.clone()),
            Resolved::Made(p) => ("temp", p.clone()),
            Resolved::Unknown => ("unknown", target.operand.to_string()),
        };
        // A target named through the home directory (`~/proj/build`, `$HOME/proj/x`) is not
        // read as the project's even where it resolves inside it: the command names the
        // user's files by the home, as cc-safety-net reads it (a project's own build
        // directory is named from the project: `rm -rf build`, `./build`, its full path).
        let place = if place == "cwd" && through_home(target.operand) {
            "outside"
        } else {
            place
        };
        let text = format!("{TARGET_MARK} {kind} {place} {path}");
        if !texts.contains(&text) {
            texts.push(text);
        }
    }
}

/// Is `operand` (as written, expansions unexpanded) a path spelled through the home
/// directory: `~`, `~user`, `$HOME`, `${HOME}` or `${HOME…}` at its start? (`~+` is the
/// working directory itself, not the home.)
fn through_home(operand: &str) -> bool {
    (operand.starts_with('~') && !operand.starts_with("~+"))
        || operand.starts_with("$HOME")
        || operand.starts_with("${HOME")
}

/// `cwd`, `temp` or `outside` for an absolute normalised path.
fn place_of(path: &str, places: Places) -> &'static str {
    let strictly_in = |base: &str| {
        let base = base.trim_end_matches('/');
        path.len() > base.len() + 1 && path.starts_with(base) && path.as_bytes()[base.len()] == b'/'
    };
    // A working directory (or project root) that is the home directory or the filesystem's
    // root bounds nothing: everything there is the user's (cc-safety-net reads a `cwd` of
    // `$HOME` the same way).
    let home = places.home.map(crate::normalise);
    let home = home.as_deref().map(|h| h.trim_end_matches('/'));
    let in_a_root = [places.cwd, places.project_root]
        .into_iter()
        .flatten()
        .map(crate::normalise)
        .any(|root| {
            let root = root.trim_end_matches('/');
            !root.is_empty() && Some(root) != home && strictly_in(root)
        });
    if in_a_root {
        "cwd"
    } else if TEMP_DIRECTORIES.iter().any(|t| strictly_in(t)) {
        "temp"
    } else {
        "outside"
    }
}

/// `path` as `~/…` when it lies in the home directory (`~` for the home itself).
fn home_relative(path: &str, places: Places) -> String {
    if let Some(home) = places.home.map(crate::normalise)
        && home != "/"
    {
        if path == home {
            return "~".to_string();
        }
        if let Some(rest) = path.strip_prefix(&home)
            && rest.starts_with('/')
        {
            return format!("~{rest}");
        }
    }
    path.to_string()
}

/// Resolve `word` (quotes removed, expansions as written) in `directory`.
fn resolve(
    word: &str,
    directory: &Directory,
    places: Places,
    variables: &[(String, Value)],
) -> Resolved {
    let mut text = word.to_string();
    if text.starts_with('$') {
        let Some((name, operator, rest)) = leading_variable(&text) else {
            return Resolved::Unknown;
        };
        // `${HOME%/}` drops a trailing slash; any other removal could drop more.
        if operator.starts_with('%') && !matches!(operator, "%/" | "%%/") {
            return Resolved::Unknown;
        }
        let value = match variables.iter().rev().find(|(n, _)| n == name) {
            Some((_, Value::Literal(v))) => v.clone(),
            Some((_, Value::Made)) => return Resolved::Made(word.to_string()),
            Some((_, Value::Unknown)) => return Resolved::Unknown,
            None => match name {
                "HOME" => match places.home {
                    Some(home) => home.to_string(),
                    None => return Resolved::Unknown,
                },
                "TMPDIR" => {
                    return match relative_inside(rest) {
                        Some(inside) if !inside.is_empty() => {
                            Resolved::Made(format!("$TMPDIR/{inside}"))
                        }
                        _ => Resolved::Unknown,
                    };
                }
                "PWD" => match directory.path() {
                    Some(d) => d.to_string(),
                    None => return Resolved::Unknown,
                },
                _ => return Resolved::Unknown,
            },
        };
        text = format!("{value}{rest}");
    }
    if text.contains(['$', '`']) {
        return Resolved::Unknown;
    }
    if let Some(rest) = text.strip_prefix('~') {
        let (user, tail) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let base = match user {
            "" => places.home,
            "+" => directory.path(),
            _ => None,
        };
        return match base {
            Some(base) => Resolved::Path(crate::normalise(&format!("{base}{tail}"))),
            None => Resolved::Unknown,
        };
    }
    if text.starts_with('/') {
        return Resolved::Path(crate::normalise(&text));
    }
    match directory {
        Directory::At(directory) => {
            Resolved::Path(crate::normalise(&format!("{directory}/{text}")))
        }
        Directory::Lost => Resolved::Unknown,
        // Relative to a directory nobody named: known only while it stays inside.
        Directory::Unnamed => match relative_inside(&text) {
            Some(inside) if !inside.is_empty() => Resolved::Relative(format!("./{inside}")),
            _ => Resolved::Unknown,
        },
    }
}

/// `path` (relative) with `.`, `..` and empty components collapsed, when it stays inside
/// the directory it is relative to (`a/../b` → `b`, `.` → empty); `None` when it leaves it.
fn relative_inside(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for component in path.split('/') {
        match component {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            name => parts.push(name),
        }
    }
    Some(parts.join("/"))
}

/// A word's leading variable: `$NAME`, `${NAME}`, `${NAME:?…}`, `${NAME:-…}`, `${NAME%/}`…:
/// its name, the operator (empty for none) and the text after the expansion.
fn leading_variable(word: &str) -> Option<(&str, &str, &str)> {
    let body = word.strip_prefix('$')?;
    let is_name = |c: char| c.is_ascii_alphanumeric() || c == '_';
    if let Some(braced) = body.strip_prefix('{') {
        let close = braced.find('}')?;
        let inner = &braced[..close];
        let name_end = inner.find(|c: char| !is_name(c)).unwrap_or(inner.len());
        let (name, operator) = inner.split_at(name_end);
        // `${X}`, `${X:?…}`, `${X?…}`, `${X:-…}`, `${X-…}`, `${X%…}`; not `${X:+…}` (empty
        // or other text), `${X:=…}`, nor a substring `${X:1:2}`.
        let substring = operator
            .strip_prefix(':')
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()));
        let known = operator.is_empty()
            || (operator.starts_with([':', '?', '-', '%'])
                && !operator.starts_with(":+")
                && !operator.starts_with(":=")
                && !substring);
        return (!name.is_empty() && known).then_some((name, operator, &braced[close + 1..]));
    }
    let end = body.find(|c: char| !is_name(c)).unwrap_or(body.len());
    (end > 0).then_some((&body[..end], "", &body[end..]))
}

#[cfg(test)]
mod tests;
