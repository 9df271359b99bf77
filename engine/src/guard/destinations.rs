//! Copies, moves, links, syncs, installs, extractions and removals whose destination (or
//! removed path) is one of the guard's places ([`refusal`]).
//!
//! The places ([`PlaceList`]): the policy and state directories, the project's `.opencode/`
//! and `~/.config/opencode/` (wholly the guard's: nothing may be written, moved or deleted
//! inside them); the hook binaries and the project's `opencode.json(c)` (files); and the
//! directories holding hook settings, `.claude/`, `.codex/`, `.gemini/` of the project and the
//! home, and the binaries' directory ("holders": nothing may be copied, moved or linked
//! *directly* into them, and they may not be replaced, moved or deleted; `.claude/commands/`
//! stays ordinary work). A holder is also recognised by its name alone (`x/.claude/` anywhere),
//! which catches a path through a link made earlier in the same command.
//!
//! A target is read against the call's working directory and every directory a `cd` in the
//! command moves to, with `~`, `$HOME`, `$PWD` and variables the command assigns a literal to
//! expanded, `.`/`..` collapsed, and symlinks on disk resolved. A target that is still not
//! literal (`$(…)`, an unknown variable) is not judged here.

use std::path::Path;

use crate::paths::FsMemo;

use super::Guard;
use crate::paths::{Places, normalise};
use crate::shell::Analysis;
use crate::shell::segment::subcommands::GIT_SHIPPED;
use crate::shell::segment::{basename, is_assignment};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// Everything inside is the guard's.
    Whole,
    /// A directory holding hook settings or binaries: its own entries are the guard's.
    Holder,
    /// One file.
    File,
}

#[derive(Clone, Debug)]
struct Place {
    path: String,
    kind: Kind,
    what: &'static str,
}

const POLICY: &str = "the directory holding this session's compiled policy";
const STATE: &str = "animus-hook's state directory (the session logs)";
const BINARY: &str = "an animus-hook binary the hooks run";
const BINARIES: &str = "the directory of the animus-hook binaries the hooks run";
const SETTINGS: &str = "a directory of a coding agent's settings, which wire its hooks";
const HARNESS: &str = "a coding agent's configuration, which can switch its hooks or plugins off";

/// Names of directories that hold a harness's hook settings, wherever they are.
const HOLDER_NAMES: &[&str] = &[".claude", ".codex", ".gemini"];
/// Files in a holder a `find -name` may reach.
const HELD_FILES: &[&str] = &[
    "settings.json",
    "settings.local.json",
    "config.toml",
    "hooks.json",
    "animus-hook",
    "animus-hook-emit",
];

struct PlaceList {
    places: Vec<Place>,
}

impl PlaceList {
    fn new(guard: &Guard, places: Places<'_>, memo: &FsMemo) -> PlaceList {
        let mut list = PlaceList { places: Vec::new() };
        for dir in &guard.policy_dirs {
            list.push(memo, dir, Kind::Whole, POLICY);
        }
        for dir in &guard.state_dirs {
            list.push(memo, dir, Kind::Whole, STATE);
        }
        if let Some(home) = places.home {
            list.push(memo, &under(home, ".animus"), Kind::Whole, STATE);
            list.push(memo, &under(home, ".config/opencode"), Kind::Whole, HARNESS);
            for name in HOLDER_NAMES {
                list.push(memo, &under(home, name), Kind::Holder, SETTINGS);
            }
        }
        for binary in &guard.binaries {
            list.push(memo, binary, Kind::File, BINARY);
            if let Some((dir, _)) = binary.rsplit_once('/') {
                list.push(
                    memo,
                    if dir.is_empty() { "/" } else { dir },
                    Kind::Holder,
                    BINARIES,
                );
            }
        }
        if let Some(root) = places.project_root {
            for name in HOLDER_NAMES {
                list.push(memo, &under(root, name), Kind::Holder, SETTINGS);
            }
            list.push(memo, &under(root, ".opencode"), Kind::Whole, HARNESS);
            list.push(memo, &under(root, "opencode.json"), Kind::File, HARNESS);
            list.push(memo, &under(root, "opencode.jsonc"), Kind::File, HARNESS);
        }
        list
    }

    /// `path` normalised, and with symlinks resolved when that differs.
    fn push(&mut self, memo: &FsMemo, path: &str, kind: Kind, what: &'static str) {
        let normal = normalise(path);
        for p in [Some(normal.clone()), resolved(&normal, memo)]
            .into_iter()
            .flatten()
        {
            if !self.places.iter().any(|q| q.path == p && q.kind == kind) {
                self.places.push(Place {
                    path: p,
                    kind,
                    what,
                });
            }
        }
    }

    /// A place `target` reaches when written (with everything below it when `subtree`). A
    /// `target` that is a directory already is not written into its parent.
    fn written(&self, target: &str, subtree: bool) -> Option<&Place> {
        let parent = if is_directory(target) {
            ""
        } else {
            parent(target)
        };
        self.places.iter().find(|p| match p.kind {
            Kind::Whole => inside(target, &p.path) || (subtree && inside(&p.path, target)),
            Kind::File => target == p.path || (subtree && inside(&p.path, target)),
            Kind::Holder => {
                target == p.path || parent == p.path || (subtree && inside(&p.path, target))
            }
        })
    }

    /// A place the removal (or move away) of `path` reaches: a place inside it that exists.
    fn removed(&self, path: &str) -> Option<&Place> {
        self.places.iter().find(|p| {
            (p.kind == Kind::Whole && inside(path, &p.path))
                || (inside(&p.path, path) && std::fs::symlink_metadata(&p.path).is_ok())
        })
    }
}

/// `dir/name`, as `format!("{dir}/{name}")` writes it (the callers normalise it).
fn under(dir: &str, name: &str) -> String {
    let mut path = String::with_capacity(dir.len() + 1 + name.len());
    path.push_str(dir);
    path.push('/');
    path.push_str(name);
    path
}

fn is_directory(path: &str) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_dir())
}

/// Is `path` `dir` or below it?
fn inside(path: &str, dir: &str) -> bool {
    let dir = dir.trim_end_matches('/');
    path == dir
        || dir.is_empty()
        || path
            .strip_prefix(dir)
            .is_some_and(|rest| rest.starts_with('/'))
}

fn parent(path: &str) -> &str {
    match path.trim_end_matches('/').rsplit_once('/') {
        Some(("", _)) => "/",
        Some((dir, _)) => dir,
        None => "",
    }
}

/// `path` (absolute, normalised) with symlinks resolved in its longest existing prefix;
/// `None` when that changes nothing or cannot be read, and for a path that is not absolute
/// and normalised (every caller normalises first). A path with no link on the way is told by
/// one walk down it; one with a link is walked back on the text itself, the prefix shortened
/// at its last `/`: the place list resolves a score of paths a call, and `PathBuf`'s
/// component parsing and copies were a quarter of the guard's time for a deleting command.
fn resolved(path: &str, memo: &FsMemo) -> Option<String> {
    if !crate::paths::is_normal(path) {
        return None;
    }
    // No link on the way (the common case, one `lstat` a component, shared by the call): the
    // longest existing prefix is its own real path, and so is the whole.
    if !crate::paths::has_link(path, memo) {
        return None;
    }
    // `path[..end]` is the prefix asked; 0 stands for the root.
    let mut end = path.len();
    loop {
        let prefix = if end == 0 { "/" } else { &path[..end] };
        // `canonicalize`, its `lstat`s shared by the call's places and paths.
        if let Some(real) = memo.real_path(Path::new(prefix)) {
            let real = real.into_os_string().into_string().ok()?;
            let rest = &path[end..];
            let out = match (real.as_str(), rest) {
                ("/", "") => real,
                ("/", rest) => rest.to_string(),
                (_, rest) => real + rest,
            };
            return (out != path).then_some(out);
        }
        if end == 0 {
            return None;
        }
        end = path[..end].rfind('/')?;
    }
}

/// What one command does to the file system, as far as the guard cares.
#[derive(Default)]
struct Effects {
    /// Paths written, and whether a whole tree may land there.
    written: Vec<(String, bool)>,
    /// A copy's destination operand: written as a path unless it is a directory already
    /// (then the sources land inside it, each in `written`).
    onto: Vec<(String, bool)>,
    /// Directories a tree lands in under names the command does not spell (a glob source):
    /// `(directory, name pattern, subtree)`.
    written_as: Vec<(String, String, bool)>,
    /// Paths removed or moved away.
    removed: Vec<String>,
    /// Paths a symbolic link is made to.
    linked_to: Vec<String>,
    /// `find` starting points that delete or run commands, with their `-name` patterns.
    found: Vec<(String, Vec<String>)>,
}

/// The first guard place `analysis` reaches, with what it is.
pub(super) fn refusal(analysis: &Analysis, places: Places<'_>, guard: &Guard) -> Found {
    let texts: Vec<&str> = analysis.generous_texts().collect();
    let effects = effects_of(&texts);
    if effects.is_empty() {
        return None;
    }
    let (variables, directories) = assignments_and_directories(&texts, places);
    // What the file system answers, asked once for the places and the command's paths.
    let memo = FsMemo::default();
    let list = PlaceList::new(guard, places, &memo);
    let paths = |word: &str| -> Vec<String> {
        let Some(word) = expand_word(word, &variables, places) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for p in absolute(&word, &directories, places) {
            if let Some(r) = resolved(&p, &memo) {
                out.push(r);
            }
            out.push(p);
        }
        out
    };
    let reach = Reach {
        effects: &effects,
        list: &list,
        paths: &paths,
    };
    written_place(&reach)
        .or_else(|| written_as_place(&reach))
        .or_else(|| removed_place(&reach))
        .or_else(|| found_place(&reach))
}

/// The variables the command's texts assign a literal to, and the directories it `cd`s to
/// (the call's own first).
fn assignments_and_directories(
    texts: &[&str],
    places: Places<'_>,
) -> (Vec<(String, String)>, Vec<String>) {
    let mut variables: Vec<(String, String)> = Vec::new();
    let mut directories: Vec<String> = places.cwd.map(String::from).into_iter().collect();
    for text in texts {
        let words: Vec<&str> = text.split_whitespace().collect();
        let assignments = match words.first() {
            Some(&("export" | "declare" | "local" | "readonly" | "typeset")) => &words[1..],
            _ => &words[..],
        };
        if !assignments.is_empty() && assignments.iter().all(|w| is_assignment(w)) {
            for w in assignments {
                if let Some((name, value)) = w.split_once('=') {
                    variables.push((name.to_string(), value.to_string()));
                }
            }
        }
    }
    for text in texts {
        let mut words = text.split_whitespace();
        if matches!(words.next(), Some("cd" | "pushd"))
            && let Some(target) = words.find(|w| !w.starts_with('-'))
            && let Some(target) = expand_word(target, &variables, places)
        {
            for dir in absolute(&target, &directories.clone(), places) {
                // A glob the shell expands (`cd .clau*`): the directories it names now.
                let expanded = if dir.contains(['*', '?', '[']) {
                    let dots = texts.iter().any(|t| crate::paths::enables_dot_globs(t));
                    crate::paths::expand_glob(&dir, "/", dots)
                } else {
                    vec![dir]
                };
                for dir in expanded {
                    if !directories.contains(&dir) {
                        directories.push(dir);
                    }
                }
            }
        }
    }
    (variables, directories)
}

/// What the command's texts write, remove, link and find.
fn effects_of(texts: &[&str]) -> Effects {
    let mut effects = Effects::default();
    for text in texts {
        let words: Vec<&str> = text.split_whitespace().collect();
        redirections(&words, &mut effects);
        let words = without_redirections(&words);
        let Some(start) = words.iter().position(|w| !is_assignment(w)) else {
            continue;
        };
        let args = &words[start + 1..];
        match basename(words[start]) {
            "cp" => copy_like(args, b"tS", false, false, &mut effects),
            "mv" => copy_like(args, b"tS", true, true, &mut effects),
            "install" => copy_like(args, b"tSmogZ", false, false, &mut effects),
            "ln" => link(args, &mut effects),
            "rsync" => rsync(args, &mut effects),
            "tar" | "bsdtar" | "gtar" => tar(args, &mut effects),
            "unzip" => unzip(args, &mut effects),
            "rm" | "rmdir" | "unlink" | "shred" => {
                effects
                    .removed
                    .extend(operands(args, b"ns").into_iter().map(String::from));
            }
            "tee" | "truncate" => {
                for target in operands(args, b"sr") {
                    effects.written.push((target.to_string(), false));
                }
            }
            "find" => find(args, &mut effects),
            "git" => git(args, &mut effects),
            _ => {}
        }
    }
    effects
}

impl Effects {
    fn is_empty(&self) -> bool {
        self.written.is_empty()
            && self.onto.is_empty()
            && self.written_as.is_empty()
            && self.removed.is_empty()
            && self.linked_to.is_empty()
            && self.found.is_empty()
    }
}

/// A guard place reached, as [`refusal`] reports it: its path and what it is.
type Found = Option<(String, &'static str)>;

/// What a command does, the guard's places, and the absolute paths a word of it names.
struct Reach<'a> {
    effects: &'a Effects,
    list: &'a PlaceList,
    paths: &'a dyn Fn(&str) -> Vec<String>,
}

fn hit(p: &Place) -> Found {
    Some((p.path.clone(), p.what))
}

/// The guard place a write reaches (into a file, or onto a directory that is not one).
fn written_place(reach: &Reach<'_>) -> Found {
    let (effects, list, paths) = (reach.effects, reach.list, reach.paths);
    let onto = effects
        .onto
        .iter()
        .filter(|(word, _)| paths(word).iter().all(|p| !is_directory(p)));
    for (word, subtree) in effects.written.iter().chain(onto) {
        for path in paths(word) {
            if let Some(p) = list.written(&path, *subtree) {
                return hit(p);
            }
            if holder_by_name(&path, *subtree && !is_directory(&path)) {
                return Some((path, SETTINGS));
            }
        }
    }
    None
}

/// The guard place a tree lands on under a name the command does not spell.
fn written_as_place(reach: &Reach<'_>) -> Found {
    let (effects, list, paths) = (reach.effects, reach.list, reach.paths);
    for (dir, pattern, subtree) in &effects.written_as {
        for dir in paths(dir) {
            for place in &list.places {
                if let Some(rest) = place
                    .path
                    .strip_prefix(&dir)
                    .and_then(|r| r.strip_prefix('/'))
                {
                    let first = rest.split('/').next().unwrap_or(rest);
                    let target = format!("{}/{first}", dir.trim_end_matches('/'));
                    if glob_matches(pattern, first)
                        && let Some(p) = list.written(&target, *subtree)
                    {
                        return hit(p);
                    }
                }
            }
            if *subtree && HOLDER_NAMES.iter().any(|n| glob_matches(pattern, n)) {
                return Some((format!("{dir}/{pattern}"), SETTINGS));
            }
        }
    }
    None
}

/// The guard place removed, moved away or linked to.
fn removed_place(reach: &Reach<'_>) -> Found {
    let (effects, list, paths) = (reach.effects, reach.list, reach.paths);
    for word in effects.removed.iter().chain(&effects.linked_to) {
        for path in paths(word) {
            if let Some(p) = list.removed(&path) {
                return hit(p);
            }
            if let Some(p) = list
                .written(&path, false)
                .filter(|p| p.kind != Kind::Holder)
            {
                return hit(p);
            }
            if list
                .places
                .iter()
                .any(|p| p.kind == Kind::Holder && p.path == path)
                || HOLDER_NAMES.contains(&path.rsplit('/').next().unwrap_or(""))
            {
                return Some((path, SETTINGS));
            }
        }
    }
    None
}

/// The guard place a deleting or executing `find` reaches.
fn found_place(reach: &Reach<'_>) -> Found {
    let (effects, list, paths) = (reach.effects, reach.list, reach.paths);
    for (start, names) in &effects.found {
        for path in paths(start) {
            for place in &list.places {
                let below = inside(&place.path, &path);
                if inside(&path, &place.path) && place.kind == Kind::Whole {
                    return hit(place);
                }
                if !below || std::fs::symlink_metadata(&place.path).is_err() {
                    continue;
                }
                let name = place.path.rsplit('/').next().unwrap_or("");
                let reached = place.kind == Kind::Whole
                    || names.is_empty()
                    || names.iter().any(|n| {
                        glob_matches(n, name)
                            || (place.kind == Kind::Holder
                                && HELD_FILES.iter().any(|f| glob_matches(n, f)))
                    });
                if reached {
                    return hit(place);
                }
            }
        }
    }
    None
}

/// A write at `path` into (or, for a tree, of) a directory named like a settings holder.
fn holder_by_name(path: &str, subtree: bool) -> bool {
    let name_of = |p: &str| p.rsplit('/').next().unwrap_or("").to_string();
    (!is_directory(path) && HOLDER_NAMES.contains(&name_of(parent(path)).as_str()))
        || (subtree && HOLDER_NAMES.contains(&name_of(path).as_str()))
}

/// `word` with `$NAME`/`${NAME}` replaced from `variables` (the last assignment wins), `HOME`
/// and `PWD`; `None` when something in it stays unknown (an expansion, a substitution).
fn expand_word(word: &str, variables: &[(String, String)], places: Places<'_>) -> Option<String> {
    if !word.contains('$') && !word.contains('`') {
        return Some(word.to_string());
    }
    if word.contains('`') || word.contains("$(") {
        return None;
    }
    let mut out = String::new();
    let mut rest = word;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let (name, len) = if let Some(braced) = after.strip_prefix('{') {
            let end = braced.find('}')?;
            (&braced[..end], end + 2)
        } else {
            let end = after
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(after.len());
            (&after[..end], end)
        };
        let value = variables
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .or(match name {
                "HOME" => places.home,
                "PWD" => places.cwd,
                _ => None,
            })?;
        out.push_str(value);
        rest = &after[len..];
    }
    out.push_str(rest);
    Some(out)
}

/// `word` made absolute: against the home for `~`, else against each of `directories`.
fn absolute(word: &str, directories: &[String], places: Places<'_>) -> Vec<String> {
    if word.starts_with('/') {
        return vec![normalise(word)];
    }
    if word == "~" || word.starts_with("~/") {
        return places
            .home
            .map(|home| normalise(&under(home, &word[1..])))
            .into_iter()
            .collect();
    }
    directories
        .iter()
        .map(|dir| normalise(&under(dir, word)))
        .collect()
}

/// Redirection targets among `words` (`>x`, `> x`, `2>>x`, `&>x`): written.
fn redirections(words: &[&str], effects: &mut Effects) {
    let mut words = words.iter();
    while let Some(word) = words.next() {
        let op = word.trim_start_matches(|c: char| c.is_ascii_digit() || c == '&');
        if !op.starts_with('>') {
            continue;
        }
        let target = op.trim_start_matches(['>', '|']);
        let target = if target.is_empty() {
            words.next().copied().unwrap_or("")
        } else {
            target
        };
        if !target.is_empty() && !target.starts_with('&') && target != "/dev/null" {
            effects.written.push((target.to_string(), false));
        }
    }
}

/// `words` without their redirections (the segment texts append them after the operands).
fn without_redirections<'a>(words: &[&'a str]) -> Vec<&'a str> {
    let mut out = Vec::with_capacity(words.len());
    let mut skip_next = false;
    for word in words {
        if std::mem::take(&mut skip_next) {
            continue;
        }
        let op = word.trim_start_matches(|c: char| c.is_ascii_digit() || c == '&');
        if op.starts_with(['>', '<']) && op.len() < word.len() + 1 && !op.is_empty() {
            skip_next = op.trim_start_matches(['>', '<', '|', '&']).is_empty();
            continue;
        }
        out.push(*word);
    }
    out
}

/// A word of a command's arguments: a long option, a short option cluster (without its `-`),
/// or an operand (`-` alone is one, and everything after `--`).
enum ArgWord<'a> {
    Long(&'a str),
    Short(&'a str),
    Operand(&'a str),
}

/// The arguments read in order, an option's value taken on demand ([`ArgWords::value`]).
struct ArgWords<'s, 'a> {
    args: &'s [&'a str],
    next: usize,
    options: bool,
}

impl<'s, 'a> ArgWords<'s, 'a> {
    fn new(args: &'s [&'a str]) -> Self {
        ArgWords {
            args,
            next: 0,
            options: true,
        }
    }

    /// The next word as the option's value (`None` past the end).
    fn value(&mut self) -> Option<&'a str> {
        let value = self.args.get(self.next).copied();
        self.next += 1;
        value
    }
}

impl<'a> Iterator for ArgWords<'_, 'a> {
    type Item = ArgWord<'a>;

    fn next(&mut self) -> Option<ArgWord<'a>> {
        let mut a = self.value()?;
        if self.options && a == "--" {
            self.options = false;
            a = self.value()?;
        }
        Some(if !self.options {
            ArgWord::Operand(a)
        } else if a.starts_with("--") {
            ArgWord::Long(a)
        } else if a.starts_with('-') && a.len() > 1 {
            ArgWord::Short(&a[1..])
        } else {
            ArgWord::Operand(a)
        })
    }
}

/// The operands of `args` (options skipped; a short option in `with_value` takes the next
/// word, or the rest of its cluster; everything after `--` is an operand).
fn operands<'a>(args: &[&'a str], with_value: &[u8]) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut words = ArgWords::new(args);
    while let Some(word) = words.next() {
        match word {
            ArgWord::Operand(a) => out.push(a),
            ArgWord::Short(cluster) => {
                let last = cluster.bytes().position(|c| with_value.contains(&c));
                if last.is_some_and(|pos| pos + 1 == cluster.len()) {
                    words.value();
                }
            }
            ArgWord::Long(_) => {}
        }
    }
    out
}

/// `cp`, `mv`, `install`: `-t DIR`, `--target-directory[=]DIR`, `-T`, the last operand.
fn copy_like(args: &[&str], with_value: &[u8], tree: bool, moves: bool, effects: &mut Effects) {
    let mut target_dir: Option<String> = None;
    let mut no_target_dir = false;
    let mut recursive = tree;
    let mut operands = Vec::new();
    let mut words = ArgWords::new(args);
    while let Some(word) = words.next() {
        match word {
            ArgWord::Long(a) => {
                if let Some(dir) = a.strip_prefix("--target-directory=") {
                    target_dir = Some(dir.into());
                } else if a == "--target-directory" {
                    target_dir = words.value().map(str::to_string);
                } else if a == "--no-target-directory" {
                    no_target_dir = true;
                } else if matches!(a, "--recursive" | "--archive") {
                    recursive = true;
                }
            }
            ArgWord::Short(cluster) => {
                for (pos, c) in cluster.char_indices() {
                    match c {
                        'T' => no_target_dir = true,
                        'r' | 'R' | 'a' => recursive = true,
                        _ => {}
                    }
                    if c == 't' || with_value.contains(&(c as u8)) {
                        let rest = &cluster[pos + 1..];
                        let value = if rest.is_empty() {
                            words.value()
                        } else {
                            Some(rest)
                        };
                        if c == 't' {
                            target_dir = value.map(str::to_string);
                        }
                        break;
                    }
                }
            }
            ArgWord::Operand(a) => operands.push(a),
        }
    }
    let (sources, dir): (&[&str], Option<String>) = match (&target_dir, operands.split_last()) {
        (Some(dir), _) => (&operands[..], Some(dir.clone())),
        (None, Some((dest, sources))) if !sources.is_empty() => {
            if !dest.ends_with('/') {
                effects.onto.push((dest.to_string(), recursive));
            }
            (sources, (!no_target_dir).then(|| dest.to_string()))
        }
        _ => (&[], None),
    };
    if moves {
        effects
            .removed
            .extend(sources.iter().map(|s| s.to_string()));
    }
    if let Some(dir) = dir {
        into_directory(&dir, sources, recursive, false, effects);
    }
}

/// Sources copied into `dir`: each lands at `dir/<its name>` (the contents of a source ending
/// in `/.`, or in `/` when `slash_is_contents`, land in `dir` itself; a glob's names are
/// matched against the places there).
fn into_directory(
    dir: &str,
    sources: &[&str],
    recursive: bool,
    slash_is_contents: bool,
    effects: &mut Effects,
) {
    let dir = dir.trim_end_matches('/');
    let dir = if dir.is_empty() { "/" } else { dir };
    for source in sources {
        let contents = slash_is_contents && source.ends_with('/');
        let name = source
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or("");
        if contents || matches!(name, "" | "." | "..") {
            effects.written.push((dir.to_string(), true));
        } else if name.contains(['*', '?', '[']) {
            effects
                .written_as
                .push((dir.to_string(), name.to_string(), recursive));
        } else {
            effects.written.push((format!("{dir}/{name}"), recursive));
        }
    }
}

/// `ln [-s] TARGET… [LINK|DIR]`, `-t DIR`: the link is written; a link's target is checked as
/// a removal is (a link to a guard place, or to a directory above one, is a way in).
fn link(args: &[&str], effects: &mut Effects) {
    let mut sources_and_dest = Vec::new();
    let mut target_dir = None;
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        i += 1;
        if let Some(dir) = a.strip_prefix("--target-directory=") {
            target_dir = Some(dir);
        } else if a == "-t" || a == "--target-directory" {
            target_dir = args.get(i).copied();
            i += 1;
        } else if let Some(dir) = a.strip_prefix("-t").filter(|_| !a.starts_with("--")) {
            target_dir = Some(dir);
        } else if !a.starts_with('-') || a == "-" {
            sources_and_dest.push(a);
        }
    }
    let (sources, dest) = match (target_dir, sources_and_dest.split_last()) {
        (Some(dir), _) => (&sources_and_dest[..], Some(dir)),
        (None, Some((dest, sources))) if !sources.is_empty() => {
            effects.onto.push((dest.to_string(), false));
            (sources, Some(*dest))
        }
        (None, Some(_)) => (&sources_and_dest[..], Some(".")),
        (None, None) => (&[][..], None),
    };
    effects
        .linked_to
        .extend(sources.iter().map(|s| s.to_string()));
    if let Some(dir) = dest {
        into_directory(dir, sources, false, false, effects);
    }
}

/// `rsync SRC… DEST`: a source ending in `/` copies its contents; remote operands are skipped.
fn rsync(args: &[&str], effects: &mut Effects) {
    const LONG_WITH_VALUE: &[&str] = &[
        "--exclude",
        "--include",
        "--filter",
        "--rsh",
        "--exclude-from",
        "--include-from",
        "--files-from",
        "--chmod",
        "--chown",
        "--temp-dir",
        "--partial-dir",
        "--backup-dir",
        "--log-file",
        "--compare-dest",
        "--link-dest",
        "--copy-dest",
        "--suffix",
    ];
    let mut operands = Vec::new();
    let mut recursive = false;
    let mut removes_sources = false;
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        i += 1;
        if a.starts_with("--") {
            if LONG_WITH_VALUE.contains(&a) {
                i += 1;
            }
            recursive |= matches!(a, "--recursive" | "--archive");
            removes_sources |= a == "--remove-source-files";
        } else if a.starts_with('-') && a.len() > 1 {
            recursive |= a.contains(['r', 'a']);
            if a.ends_with(['e', 'f', 'B', 'T']) {
                i += 1;
            }
        } else {
            operands.push(a);
        }
    }
    // `host:path`: the path part names what lands here.
    fn remote(o: &str) -> Option<&str> {
        o.split('/')
            .next()
            .and_then(|head| head.find(':'))
            .map(|at| &o[at + 1..])
    }
    let Some((dest, sources)) = operands.split_last() else {
        return;
    };
    if sources.is_empty() || remote(dest).is_some() {
        return;
    }
    if removes_sources {
        effects.removed.extend(
            sources
                .iter()
                .filter(|s| remote(s).is_none())
                .map(|s| s.to_string()),
        );
    }
    let sources: Vec<&str> = sources.iter().map(|s| remote(s).unwrap_or(s)).collect();
    if !dest.ends_with('/') {
        effects.onto.push((dest.to_string(), recursive));
    }
    into_directory(dest, &sources, recursive, true, effects);
}

/// `tar` extracting (`x`, `--extract`, `--get`): a tree lands in `-C DIR` (each one), else the
/// working directory.
fn tar(args: &[&str], effects: &mut Effects) {
    let mut extracts = false;
    let mut dirs = Vec::new();
    for (i, a) in args.iter().enumerate() {
        if matches!(*a, "--extract" | "--get") {
            extracts = true;
        } else if let Some(dir) = a.strip_prefix("--directory=") {
            dirs.push(dir);
        } else if *a == "--directory" {
            dirs.extend(args.get(i + 1));
        } else if a.starts_with("--") {
        } else if i == 0 || a.starts_with('-') {
            let cluster = a.trim_start_matches('-');
            if i == 0 || a.starts_with('-') {
                extracts |= cluster.contains('x');
            }
            if let Some(pos) = cluster.find('C').filter(|_| a.starts_with('-')) {
                let rest = &cluster[pos + 1..];
                if rest.is_empty() {
                    dirs.extend(args.get(i + 1));
                } else {
                    dirs.push(rest);
                }
            }
        }
    }
    if extracts {
        if dirs.is_empty() {
            dirs.push(".");
        }
        for dir in dirs {
            effects.written.push((dir.to_string(), true));
        }
    }
}

/// `unzip ARCHIVE [-d DIR]`: a tree lands in `DIR`, else the working directory (not when it
/// only lists, tests or prints).
fn unzip(args: &[&str], effects: &mut Effects) {
    let mut dir = None;
    for (i, a) in args.iter().enumerate() {
        if *a == "-d" {
            dir = args.get(i + 1).copied();
        } else if let Some(d) = a.strip_prefix("-d") {
            dir = Some(d);
        } else if a.starts_with('-') && a.contains(['l', 't', 'p', 'v', 'Z', 'z', 'c']) {
            return;
        }
    }
    effects.written.push((dir.unwrap_or(".").to_string(), true));
}

/// `git [-C DIR]… checkout TREE-ISH [--] PATH…`, `git restore --source=TREE-ISH PATH…` and
/// `git checkout-index`: working-tree files rewritten with what a commit (which the agent may
/// have made) or the index holds, each path as a tree (a directory's files are all
/// rewritten). A pathspec with a glob (git's `*` crosses `/` and matches a leading `.`:
/// `'*.json'` reaches `.claude/settings.json`) rewrites the tree of its literal directory.
/// Restoring from the index alone (`git checkout -- x`, `git restore x`) and switching
/// branches are left to the packs and the sandbox: the paths are not the agent's choice of
/// content, or not named. `git clean -fx` removes (below); an alias is read as a checkout.
fn git(args: &[&str], effects: &mut Effects) {
    // The global options before the subcommand: `-C DIR` (cumulative) and `--work-tree`
    // move where the paths land.
    let mut prefixes: Vec<String> = vec![String::new()];
    let mut at = 0;
    while let Some(&a) = args.get(at) {
        let value = match a {
            "-C" | "--work-tree" => args.get(at + 1).copied(),
            "-c" | "--git-dir" | "--namespace" | "--config-env" => {
                at += 2;
                continue;
            }
            _ => a.strip_prefix("--work-tree="),
        };
        if let Some(dir) = value {
            let dir = dir.trim_end_matches('/');
            let joined = |prefix: &str| {
                if dir.starts_with('/') || prefix.is_empty() {
                    format!("{dir}/")
                } else {
                    format!("{prefix}{dir}/")
                }
            };
            if a == "-C" {
                prefixes = prefixes.iter().map(|p| joined(p)).collect();
            } else {
                // The work tree: the paths may be read from it or from the directory.
                let more: Vec<String> = prefixes.iter().map(|p| joined(p)).collect();
                prefixes.extend(more);
            }
            at += if a.contains('=') { 1 } else { 2 };
            continue;
        }
        if !a.starts_with('-') {
            break;
        }
        at += 1;
    }
    let Some(&subcommand) = args.get(at) else {
        return;
    };
    let rest = &args[(at + 1).min(args.len())..];
    let short = |c: char| short_option_given(rest, c);
    // The paths the subcommand rewrites, and whether it removes them instead.
    let (paths, removes): (Vec<&str>, bool) = match subcommand {
        "restore" => {
            let sourced = short('s') || rest.iter().any(|w| w.starts_with("--source"));
            let worktree = short('W') || rest.contains(&"--worktree");
            let staged = short('S') || rest.contains(&"--staged");
            if sourced && (worktree || !staged) {
                // `--source X`: its value is no path (`-s X` is known to `operands`).
                let value_at = rest.iter().position(|w| *w == "--source").map(|k| k + 1);
                let rest: Vec<&str> = (0..rest.len())
                    .filter(|&k| Some(k) != value_at)
                    .map(|k| rest[k])
                    .collect();
                (operands(&rest, b"s"), false)
            } else {
                (Vec::new(), false)
            }
        }
        // `git clean -f -x` (or `-X`) removes the ignored files too: a harness's local settings
        // (`.claude/settings.local.json`, git-ignored by claude) and an install's wiring in
        // them. Unless dry, or an exclusion (`-e .claude`) keeps the holder.
        "clean" => {
            let force = short('f') || rest.contains(&"--force");
            let dry = short('n') || rest.contains(&"--dry-run");
            let ignored = short('x') || short('X');
            // `-e X`, `-eX`, a cluster ending in `e` (`-fdxe X`), `--exclude[=]X`.
            let mut exclusions: Vec<&str> = Vec::new();
            for (k, w) in rest.iter().enumerate() {
                if let Some(value) = w.strip_prefix("--exclude=") {
                    exclusions.push(value);
                } else if *w == "--exclude" {
                    exclusions.extend(rest.get(k + 1));
                } else if let Some(cluster) = w.strip_prefix('-').filter(|c| !c.starts_with('-'))
                    && let Some(at) = cluster.find('e')
                {
                    match &cluster[at + 1..] {
                        "" => exclusions.extend(rest.get(k + 1)),
                        value => exclusions.push(value),
                    }
                }
            }
            let kept = exclusions.iter().any(|e| {
                let e = e.trim_matches('/');
                HOLDER_NAMES.iter().any(|holder| glob_matches(e, holder))
            });
            if force && !dry && ignored && !kept {
                let paths = operands(rest, b"e");
                (if paths.is_empty() { vec!["."] } else { paths }, true)
            } else {
                (Vec::new(), true)
            }
        }
        "checkout-index" => {
            let mut paths = operands(rest, b"");
            let all = rest
                .iter()
                .any(|w| matches!(*w, "-a" | "--all" | "--stdin") || w.starts_with("--prefix="));
            if all {
                paths.push(".");
            }
            paths.extend(rest.iter().filter_map(|w| w.strip_prefix("--prefix=")));
            (paths, false)
        }
        // `checkout`, and a subcommand git does not ship: an alias may be any command
        // (`git config alias.co checkout`, earlier or in another call; `git -c
        // alias.co=checkout co evil -- .claude`), read as the checkout it may be.
        sub if sub == "checkout" || !GIT_SHIPPED.contains(&sub) => {
            let dashes = rest.iter().position(|w| *w == "--");
            let before = operands(&rest[..dashes.unwrap_or(rest.len())], b"bB");
            let paths = match dashes {
                Some(k) if !before.is_empty() => rest[k + 1..].to_vec(),
                None if before.len() > 1 => before[1..].to_vec(),
                _ => Vec::new(),
            };
            (paths, false)
        }
        _ => (Vec::new(), false),
    };
    for path in paths {
        // Pathspec magic: `:/x` and `:(top)x` are from the top of the work tree (the
        // project, read as the working directory); `:!x` excludes.
        let path = if let Some(magic) = path.strip_prefix(":(") {
            magic.split_once(')').map_or("", |(_, p)| p)
        } else if path.starts_with(":!") || path.starts_with(":^") {
            continue;
        } else {
            path.strip_prefix(":/").unwrap_or(path)
        };
        // A glob is matched by git itself across directories: the tree of its literal part.
        let path = match path.find(['*', '?', '[']) {
            Some(glob) => path[..glob].rsplit_once('/').map_or(".", |(dir, _)| dir),
            None => path,
        };
        let path = if path.is_empty() { "." } else { path };
        for prefix in &prefixes {
            let target = if path.starts_with('/') {
                path.to_string()
            } else {
                format!("{prefix}{path}")
            };
            if removes {
                effects.removed.push(target);
            } else {
                effects.written.push((target, true));
            }
        }
    }
}

/// Does a short option cluster among `args` (`-f`, `-fdx`) hold the letter `c`?
fn short_option_given(args: &[&str], c: char) -> bool {
    args.iter()
        .any(|w| w.starts_with('-') && !w.starts_with("--") && w.contains(c))
}

/// `find START… EXPR` with `-delete`, `-exec`, `-execdir`, `-ok` or `-okdir`.
fn find(args: &[&str], effects: &mut Effects) {
    // `-delete`, or `-exec` of a program that writes or removes what it is handed (`chmod`
    // and the like cannot free the agent: a policy whose mode changed is refused).
    let acts = args.iter().enumerate().any(|(i, a)| match *a {
        "-delete" => true,
        "-exec" | "-execdir" | "-ok" | "-okdir" => {
            let rest = &args[i + 1..];
            let end = rest
                .iter()
                .position(|w| matches!(*w, ";" | "\\;" | "+"))
                .unwrap_or(rest.len());
            let command = &rest[..end];
            match command.first().map(|p| basename(p)) {
                Some(
                    "rm" | "rmdir" | "unlink" | "shred" | "mv" | "cp" | "ln" | "install" | "rsync"
                    | "tee" | "truncate" | "dd" | "perl" | "python" | "python3" | "ruby" | "node"
                    | "sh" | "bash" | "zsh" | "dash",
                ) => true,
                Some("sed") => command
                    .iter()
                    .any(|w| w.starts_with("-i") || *w == "--in-place"),
                _ => false,
            }
        }
        _ => false,
    });
    // Tests no guard file passes: an inode number, an empty file, a link or special file.
    let narrowed = args.windows(2).any(|w| {
        matches!(w[0], "-inum" | "-samefile" | "-links")
            || (w[0] == "-type" && !w[1].contains(['f', 'd']))
    }) || args.contains(&"-empty");
    if !acts || narrowed {
        return;
    }
    let starts: Vec<&str> = args
        .iter()
        .copied()
        .take_while(|a| !a.starts_with('-') && !matches!(*a, "(" | "!" | "\\(" | "\\!"))
        .collect();
    let names: Vec<String> = args
        .windows(2)
        .filter(|w| matches!(w[0], "-name" | "-iname"))
        .map(|w| w[1].to_string())
        .collect();
    let starts = if starts.is_empty() { vec!["."] } else { starts };
    for start in starts {
        effects.found.push((start.to_string(), names.clone()));
    }
}

/// Does the shell glob `pattern` (`*`, `?`, `[…]`) match `name`? A leading `.` must be
/// matched by a `.` (the shell's rule).
pub(crate) fn glob_matches(pattern: &str, name: &str) -> bool {
    if name.starts_with('.') && !pattern.starts_with('.') {
        return false;
    }
    fn go(p: &[char], n: &[char]) -> bool {
        match p.split_first() {
            None => n.is_empty(),
            Some(('*', rest)) => (0..=n.len()).any(|i| go(rest, &n[i..])),
            Some(('?', rest)) => !n.is_empty() && go(rest, &n[1..]),
            Some(('[', rest)) => {
                let Some(close) = rest.iter().skip(1).position(|&c| c == ']').map(|i| i + 1) else {
                    return n.first() == Some(&'[') && go(rest, &n[1..]);
                };
                let (set, after) = (&rest[..close], &rest[close + 1..]);
                let (negate, set) = match set.split_first() {
                    Some(('!' | '^', s)) => (true, s),
                    _ => (false, set),
                };
                let Some(&c) = n.first() else { return false };
                let mut hit = false;
                let mut i = 0;
                while i < set.len() {
                    if i + 2 < set.len() && set[i + 1] == '-' {
                        hit |= set[i] <= c && c <= set[i + 2];
                        i += 3;
                    } else {
                        hit |= set[i] == c;
                        i += 1;
                    }
                }
                hit != negate && go(after, &n[1..])
            }
            Some((c, rest)) => n.first() == Some(c) && go(rest, &n[1..]),
        }
    }
    let p: Vec<char> = pattern.chars().collect();
    let n: Vec<char> = name.chars().collect();
    go(&p, &n)
}
