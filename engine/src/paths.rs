//! File paths as Claude's `Read(…)`/`Edit(…)` rules see them, and the texts path matchers search.
//!
//! A path rule's argument is a gitignore-style glob with an anchor ([`PathGlob`]):
//!
//! | anchor | base directory | example |
//! |---|---|---|
//! | `//x` | the filesystem root | `Read(//etc/**)` |
//! | `~/x` | the user's home | `Read(~/.ssh/**)` |
//! | `/x` | the project root | `Edit(/src/**)` |
//! | `./x`, `x` | the call's working directory | `Read(./.env)`, `Read(**/*.pem)` |
//!
//! Below its base the glob is read as gitignore reads it: a glob without a `/` (other than a
//! trailing one) matches at any depth (`.env` is `**/.env`), `*` and `?` never cross a `/`,
//! `**/` is any number of directories, a trailing `/**` everything inside, and a glob that
//! matches a directory matches everything inside it.
//!
//! A path from a call is spelled several ways ([`path_texts`]): as given, made absolute
//! against the call's working directory with `~` expanded and `.`/`..` collapsed, and with
//! symlinks resolved. Each spelling is then written relative to every base it lies under,
//! behind that base's tag character ([`ROOT_TAG`], [`HOME_TAG`], [`PROJECT_TAG`], [`CWD_TAG`]),
//! and a glob becomes a regex over those texts ([`PathGlob::regex`]): `Read(~/.ssh/**)` is
//! `\x03\.ssh/.*(?:/.*)?$`. Deny and ask rules match any spelling ([`Spellings::All`]), allow
//! rules only the resolved one ([`Spellings::Resolved`]): `Read(./.env)` denies `.env`,
//! `src/../.env` and a symlink to it; `Edit(src/**)` does not allow `src/../lib/x`.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::Path;

/// The tag before a path written relative to the filesystem root (`//` rules).
pub const ROOT_TAG: char = '\u{2}';
/// The tag before a path written relative to the user's home (`~/` rules).
pub const HOME_TAG: char = '\u{3}';
/// The tag before a path written relative to the project root (`/` rules).
pub const PROJECT_TAG: char = '\u{4}';
/// The tag before a path written relative to the call's working directory (`./` and bare rules).
pub const CWD_TAG: char = '\u{5}';

/// Where a call happens: the directories path rules are anchored to. Any may be unknown; a
/// base that is unknown anchors nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Places<'a> {
    /// The call's working directory (the payload's `cwd`).
    pub cwd: Option<&'a str>,
    /// The user's home directory.
    pub home: Option<&'a str>,
    /// The project root (where the project's `.claude/settings.json` lives).
    pub project_root: Option<&'a str>,
}

/// Which spellings of a path a matcher looks at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spellings {
    /// As given, normalised and resolved (deny and ask: any spelling may be the one meant).
    All,
    /// Only the resolved path (allow: the file really reached).
    Resolved,
}

/// The base directory a path glob is anchored to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    /// `//x`: the filesystem root.
    Root,
    /// `~/x`: the user's home.
    Home,
    /// `/x`: the project root.
    Project,
    /// `./x` or `x`: the call's working directory.
    Cwd,
}

impl Anchor {
    /// The tag character texts relative to this base carry.
    pub fn tag(self) -> char {
        match self {
            Anchor::Root => ROOT_TAG,
            Anchor::Home => HOME_TAG,
            Anchor::Project => PROJECT_TAG,
            Anchor::Cwd => CWD_TAG,
        }
    }
}

/// A path rule's argument, read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathGlob {
    /// The base.
    pub anchor: Anchor,
    /// The glob below the base, without the anchor and without a trailing `/`.
    pub glob: String,
}

impl PathGlob {
    /// Read a rule argument (`~/.ssh/**`, `./.env`, `//etc/passwd`); the error is a sentence.
    pub fn parse(argument: &str) -> Result<PathGlob, String> {
        if argument.is_empty() {
            return Err("the path pattern is empty".into());
        }
        if let Some(c) = argument.chars().find(|c| c.is_control()) {
            return Err(format!(
                "the path pattern contains the control character {}",
                c.escape_unicode()
            ));
        }
        let (anchor, rest) = if let Some(rest) = argument.strip_prefix("//") {
            (Anchor::Root, rest)
        } else if argument == "~" {
            (Anchor::Home, "**")
        } else if let Some(rest) = argument.strip_prefix("~/") {
            (Anchor::Home, rest)
        } else if let Some(rest) = argument.strip_prefix('/') {
            (Anchor::Project, rest)
        } else if let Some(rest) = argument.strip_prefix("./") {
            (Anchor::Cwd, rest)
        } else if argument == "." {
            (Anchor::Cwd, "**")
        } else {
            (Anchor::Cwd, argument)
        };
        let glob = rest.strip_suffix('/').unwrap_or(rest);
        let glob = if glob.is_empty() { "**" } else { glob };
        Ok(PathGlob {
            anchor,
            glob: glob.to_string(),
        })
    }

    /// Does the glob sit at a fixed place below its base (it holds a `/`), rather than match
    /// at any depth?
    pub fn is_rooted(&self) -> bool {
        self.glob.contains('/')
    }

    /// The regex the evaluators search in a path's texts ([`path_texts`]). `generous` (deny,
    /// ask): a glob relative to the working directory matches at any depth below it even when
    /// it holds a `/` (claude denies `sub/secrets/x` under `Read(secrets/**)`); an allow keeps
    /// gitignore's reading, where such a glob sits at the working directory.
    pub fn regex(&self, generous: bool) -> String {
        // Texts are slash-wrapped (`\x05/sub/.env/`), so a component is a literal between
        // two `/`, a match of a directory covers what is inside (the text goes on after its
        // `/`), and most globs become plain literal chains the automaton finds without a DFA.
        let anywhere = !self.is_rooted() || (generous && self.anchor == Anchor::Cwd);
        let mut out = String::new();
        push_escaped_char(&mut out, self.anchor.tag());
        out.push_str(if anywhere { ".*/" } else { "/" });
        if generous {
            // A deny or ask ignores letter case, as claude's path rules do (its texts are
            // lower case, see [`Spellings::All`]), and is read generously: `*` and `?` may
            // cross a `/`, `**` is any run, and a directory glob also matches the directory.
            let glob = self.glob.to_lowercase();
            let mut components: Vec<&str> = glob.split('/').collect();
            while components.first() == Some(&"**") && components.len() > 1 {
                components.remove(0);
                if !anywhere {
                    out.push_str(".*");
                }
            }
            while components.last() == Some(&"**") && components.len() > 1 {
                components.pop();
            }
            let last = components.len() - 1;
            for (i, component) in components.iter().enumerate() {
                if *component == "**" {
                    out.push_str(".*");
                    continue;
                }
                generous_component(&mut out, component);
                if i != last || *component != "**" {
                    out.push('/');
                }
            }
            return out;
        }
        // An allow reads the glob exactly as gitignore does, except that a trailing `/**`
        // also matches the directory itself (claude rewrites `x/**` to the directory `x`).
        let mut components: Vec<&str> = self.glob.split('/').collect();
        if components.len() > 1 && components[0] == "**" {
            // A leading `**/` is "at any depth" (written so the automaton finds a literal).
            components.remove(0);
            if !anywhere {
                out.pop();
                out.push_str(".*/");
            }
        }
        let last = components.len() - 1;
        for (i, component) in components.iter().enumerate() {
            if *component == "**" {
                // Inner: any number of directories; trailing: anything inside.
                if i != last {
                    out.push_str("(?:.*/)?");
                } else if components.len() == 1 {
                    out.push_str(".*");
                }
                continue;
            }
            // `.*/` and a component starting with `*`: the `*` is part of the run (no `/`
            // can separate them), so the regex stays a literal chain.
            match component.strip_prefix('*') {
                Some(rest) if i == 0 && out.ends_with(".*/") && !rest.starts_with('*') => {
                    out.pop();
                    glob_component(&mut out, rest);
                }
                _ => glob_component(&mut out, component),
            }
            out.push('/');
        }
        out
    }

    /// Does the glob match one path text (a tag, then a path relative to that base)? The
    /// definition the regex is tested against: a straightforward gitignore matcher.
    pub fn matches_text(&self, text: &str) -> bool {
        let Some(rest) = text.strip_prefix(self.anchor.tag()) else {
            return false;
        };
        let rest = rest.strip_prefix('/').unwrap_or(rest);
        let rest = rest.strip_suffix('/').unwrap_or(rest);
        let own_glob = &self.glob;
        let path: Vec<&str> = rest.split('/').collect();
        let glob: Vec<&str> = own_glob.split('/').collect();
        let anywhere = !self.is_rooted();
        // A match of the path or of any of its parent directories.
        (1..=path.len()).any(|n| {
            let prefix = &path[..n];
            if !anywhere {
                components_match(&glob, prefix)
            } else {
                (0..n).any(|start| components_match(&glob, &prefix[start..]))
            }
        })
    }
}

fn components_match(glob: &[&str], path: &[&str]) -> bool {
    match glob.split_first() {
        None => path.is_empty(),
        Some((&"**", rest)) => {
            if rest.is_empty() {
                // A trailing `**` matches everything inside, and (claude rewrites `x/**` to
                // the directory `x`) the directory itself.
                return true;
            }
            (0..=path.len()).any(|skip| components_match(rest, &path[skip..]))
        }
        Some((first, rest)) => path
            .split_first()
            .is_some_and(|(p, prest)| component_matches(first, p) && components_match(rest, prest)),
    }
}

/// One glob component against one path component (`*`, `?`, `[…]`, `\\x`), directly.
fn component_matches(glob: &str, name: &str) -> bool {
    let glob: Vec<char> = glob.chars().collect();
    let name: Vec<char> = name.chars().collect();
    glob_chars_match(&glob, &name)
}

fn glob_chars_match(glob: &[char], name: &[char]) -> bool {
    let Some((&first, rest)) = glob.split_first() else {
        return name.is_empty();
    };
    match first {
        '*' => (0..=name.len()).any(|k| glob_chars_match(rest, &name[k..])),
        '?' => !name.is_empty() && glob_chars_match(rest, &name[1..]),
        '\\' if !rest.is_empty() => {
            name.first() == Some(&rest[0]) && glob_chars_match(&rest[1..], &name[1..])
        }
        '[' => match class_end(glob, 0) {
            Some(end) => {
                let Some(&c) = name.first() else {
                    return false;
                };
                let mut body = &glob[1..end];
                let negated = matches!(body.first(), Some('!' | '^'));
                if negated {
                    body = &body[1..];
                }
                let mut members = Vec::new();
                let mut k = 0;
                while k < body.len() {
                    let mut lo = body[k];
                    if lo == '\\' && k + 1 < body.len() {
                        k += 1;
                        lo = body[k];
                    }
                    if k + 2 < body.len() && body[k + 1] == '-' {
                        let mut hi = body[k + 2];
                        k += 2;
                        if hi == '\\' && k + 1 < body.len() {
                            k += 1;
                            hi = body[k];
                        }
                        members.push((lo, hi));
                    } else {
                        members.push((lo, lo));
                    }
                    k += 1;
                }
                let inside = members.iter().any(|&(lo, hi)| lo <= c && c <= hi);
                inside != negated && glob_chars_match(&glob[end + 1..], &name[1..])
            }
            None => name.first() == Some(&'[') && glob_chars_match(rest, &name[1..]),
        },
        c => name.first() == Some(&c) && glob_chars_match(rest, &name[1..]),
    }
}

/// Translate one glob component generously: `*` is any run and `?` any character (either may
/// cross a `/`: a deny may match more), classes as written, the rest literal.
fn generous_component(out: &mut String, component: &str) {
    translate_component(out, component, (".*", "."));
}

/// Translate one glob component (no `/`) into regex syntax.
fn glob_component(out: &mut String, component: &str) {
    translate_component(out, component, ("[^/]*", "[^/]"));
}

/// [`glob_component`] and [`generous_component`]: `*` and `?` become `wildcards`.
fn translate_component(out: &mut String, component: &str, wildcards: (&str, &str)) {
    let chars: Vec<char> = component.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        match chars[i] {
            '*' => {
                while i + 1 < chars.len() && chars[i + 1] == '*' {
                    i += 1;
                }
                out.push_str(wildcards.0);
            }
            '?' => out.push_str(wildcards.1),
            '\\' if i + 1 < chars.len() => {
                i += 1;
                push_escaped_char(out, chars[i]);
            }
            '[' => match class_end(&chars, i) {
                Some(end) => {
                    let mut body = &chars[i + 1..end];
                    out.push('[');
                    if let Some((&c, rest)) = body.split_first()
                        && (c == '!' || c == '^')
                    {
                        out.push_str("^/");
                        body = rest;
                    }
                    let mut k = 0;
                    while k < body.len() {
                        let c = body[k];
                        if c == '\\' && k + 1 < body.len() {
                            k += 1;
                            push_class_char(out, body[k]);
                        } else if c == '-' && k > 0 && k + 1 < body.len() {
                            out.push('-');
                        } else {
                            push_class_char(out, c);
                        }
                        k += 1;
                    }
                    out.push(']');
                    i = end;
                }
                None => push_escaped_char(out, '['),
            },
            c => push_escaped_char(out, c),
        }
        i += 1;
    }
}

/// The index of the `]` closing the class opened at `open`, if any.
fn class_end(chars: &[char], open: usize) -> Option<usize> {
    let mut k = open + 1;
    if k < chars.len() && (chars[k] == '!' || chars[k] == '^') {
        k += 1;
    }
    if k < chars.len() && chars[k] == ']' {
        k += 1;
    }
    while k < chars.len() {
        match chars[k] {
            '\\' => k += 2,
            ']' => return Some(k),
            _ => k += 1,
        }
    }
    None
}

fn push_escaped_char(out: &mut String, c: char) {
    if c.is_control() {
        out.push_str(&format!("\\x{{{:x}}}", c as u32));
    } else {
        out.push_str(&crate::semantics::escape_literal(
            c.encode_utf8(&mut [0; 4]),
        ));
    }
}

fn push_class_char(out: &mut String, c: char) {
    if matches!(c, '[' | ']' | '\\' | '^' | '-' | '&' | '~') {
        out.push('\\');
    }
    out.push(c);
}

/// Collapse `.` and `..` in a path, lexically, as an absolute path (`/a/b/../c` → `/a/c`; `..`
/// at the root stays at the root; a relative path is read from the root).
pub fn normalise(path: &str) -> String {
    let mut out = String::with_capacity(path.len() + 1);
    for component in path.split('/') {
        match component {
            "" | "." => {}
            ".." => {
                let parent = out.rfind('/').unwrap_or(0);
                out.truncate(parent);
            }
            name => {
                out.push('/');
                out.push_str(name);
            }
        }
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

/// Is `path` already what [`normalise`] makes of it (absolute, no empty, `.` or `..`
/// component, no trailing `/`)?
fn is_normal(path: &str) -> bool {
    path == "/"
        || path.strip_prefix('/').is_some_and(|rest| {
            rest.split('/')
                .all(|component| !matches!(component, "" | "." | ".."))
        })
}

/// `rest` below `base`, as `Path::join` joins them: an absolute `rest` replaces the base, and
/// one separator goes between them unless the base is empty or already ends with one.
fn join(base: &str, rest: &str) -> String {
    if rest.starts_with('/') || base.is_empty() {
        return rest.to_string();
    }
    let mut out = String::with_capacity(base.len() + rest.len() + 1);
    out.push_str(base);
    if !base.ends_with('/') {
        out.push('/');
    }
    out.push_str(rest);
    out
}

/// The directory holding `path` and its name in it (`/a/b` → `/a`, `b`); `None` for the root.
fn parent_and_name(path: &str) -> Option<(&str, &str)> {
    let (parent, name) = path.rsplit_once('/')?;
    if name.is_empty() {
        return None;
    }
    Some((if parent.is_empty() { "/" } else { parent }, name))
}

/// The path with symlinks resolved: the longest existing ancestor canonicalised, the rest
/// appended (a file about to be written does not exist yet; its directory may be a link). The
/// file system is asked through the call's `memo`. `normalised` is a [`normalise`]d path.
pub fn resolve(normalised: &str, memo: &FsMemo) -> String {
    match walk(normalised, 0, memo) {
        Walk::NoLink | Walk::Missing => normalised.to_string(),
        Walk::Link => through_links(normalised, memo),
    }
}

/// How a walk down a path's components ended.
enum Walk {
    /// Every component exists and none is a link.
    NoLink,
    /// A component does not exist, and none above it is a link.
    Missing,
    /// A component is a symbolic link.
    Link,
}

/// Walk down `normalised` from byte `from` (the end of a prefix known to hold no link), one
/// `lstat` a component, each asked once a call through `memo`: most paths of a command hold
/// no link, and then they are their own resolution with no `realpath` (a `readlink` a
/// component) at all.
fn walk(normalised: &str, from: usize, memo: &FsMemo) -> Walk {
    let mut end = from;
    for component in normalised[from..].split('/') {
        end += component.len();
        if !component.is_empty() {
            match memo.lstat(&normalised[..end]) {
                Some(true) => return Walk::Link,
                Some(false) => {}
                None => return Walk::Missing,
            }
        }
        end += 1;
    }
    Walk::NoLink
}

/// [`resolve`] of a path with a link on the way: the deepest existing ancestor, found with
/// one `lstat` a level, canonicalised once, the rest appended.
fn through_links(normalised: &str, memo: &FsMemo) -> String {
    let mut existing = normalised;
    while memo.lstat(existing).is_none() {
        let Some((parent, _)) = parent_and_name(existing) else {
            return normalised.to_string();
        };
        existing = parent;
    }
    let Some(real) = memo.canonicalize(existing) else {
        // A dangling link (or a loop): what it names cannot be read; keep the path as given.
        return normalised.to_string();
    };
    let missing = &normalised[existing.len()..];
    if missing.is_empty() {
        return real;
    }
    // What remains may hold `..` after a link: collapse it against the real parent.
    normalise(&join(&real, missing.trim_start_matches('/')))
}

/// What one call has asked the file system, asked once: the words of a command share their
/// directories (`cd /tmp/build && make && tee build.log` reads `/tmp/build` and `/tmp` for
/// every word), and a call's files are read as they are at one moment anyway. (Reading a
/// directory whole instead measured 12 µs against 0.8 µs an `lstat`: not worth it below
/// fifteen names.)
#[derive(Clone, Debug, Default)]
pub struct FsMemo {
    /// `lstat`: `None` when it failed, else whether the path is a symbolic link.
    lstat: RefCell<HashMap<String, Option<bool>, FnvBuild>>,
    /// `canonicalize`: `None` when it failed.
    canonical: RefCell<HashMap<String, Option<String>, FnvBuild>>,
}

/// FNV-1a: the memo's keys are a call's own paths, a few dozen short strings, where SipHash's
/// defence against chosen collisions buys nothing and cost a tenth of the path texts' time.
/// (A command built to collide costs the hook time only, and the deadline bounds that.)
#[derive(Clone, Copy, Debug)]
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

type FnvBuild = std::hash::BuildHasherDefault<Fnv>;

impl FsMemo {
    /// `lstat(path)`: `None` when it fails, else whether `path` is a symbolic link.
    fn lstat(&self, path: &str) -> Option<bool> {
        if let Some(known) = self.lstat.borrow().get(path) {
            return *known;
        }
        // Below a directory known to be missing nothing exists: every word a command reads
        // from a `cd` target that is not there (yet) costs no system call.
        if let Some((parent, _)) = parent_and_name(path)
            && self.lstat.borrow().get(parent) == Some(&None)
        {
            return None;
        }
        let found = lstat(path);
        self.lstat.borrow_mut().insert(path.to_string(), found);
        found
    }

    /// `canonicalize(path)`: a normal path with no link on the way is its own, found with the
    /// `lstat`s of [`walk`] (memoised for the words below it); any other through `realpath`.
    fn canonical(&self, path: &str) -> Option<String> {
        if !is_normal(path) {
            return self.canonicalize(path);
        }
        match walk(path, 0, self) {
            Walk::NoLink => Some(path.to_string()),
            Walk::Missing => None,
            Walk::Link => self.canonicalize(path),
        }
    }

    fn canonicalize(&self, path: &str) -> Option<String> {
        if let Some(known) = self.canonical.borrow().get(path) {
            return known.clone();
        }
        let found = std::fs::canonicalize(path)
            .ok()
            .map(|p| p.to_string_lossy().into_owned());
        self.canonical
            .borrow_mut()
            .insert(path.to_string(), found.clone());
        found
    }
}

/// `lstat(path)`, asked of the file system: `None` when it fails, else whether `path` is a
/// symbolic link.
fn lstat(path: &str) -> Option<bool> {
    std::fs::symlink_metadata(path)
        .ok()
        .map(|m| m.file_type().is_symlink())
}

/// [`resolve`], walking down only below the deepest of `real_bases` (the call's directories,
/// canonicalised once per call) the path lies under.
pub fn resolve_from<'n>(normalised: &'n str, real_bases: &[String], memo: &FsMemo) -> Cow<'n, str> {
    let rest = real_bases
        .iter()
        .filter_map(|b| relative_to(normalised, b).map(|rest| (b, rest)))
        .max_by_key(|(b, _)| b.len())
        .map(|(_, rest)| rest);
    let from = rest.map_or(0, |rest| normalised.len() - rest.len());
    match walk(normalised, from, memo) {
        Walk::NoLink | Walk::Missing => Cow::Borrowed(normalised),
        Walk::Link => Cow::Owned(through_links(normalised, memo)),
    }
}

/// The path as given with `~` expanded (when it starts with one and the home is known), and
/// the path made absolute against the working directory (or project root): `None` for a
/// relative path when neither is known.
fn expand(value: &str, places: Places<'_>) -> (Option<String>, Option<String>) {
    let expanded: Option<String> = match (value.strip_prefix("~/"), places.home) {
        (Some(rest), Some(home)) => Some(join(home, rest)),
        _ if value == "~" => places.home.map(String::from),
        _ => None,
    };
    let given = expanded.as_deref().unwrap_or(value);
    let absolute = if given.starts_with('/') {
        Some(given.to_string())
    } else {
        places
            .cwd
            .or(places.project_root)
            .map(|cwd| join(cwd, given))
    };
    (expanded, absolute)
}

/// The path made absolute ([`expand`]) with `.` and `..` collapsed; `None` for a relative path
/// when no base is known, and for `~` when the home is not.
fn absolute_normalised(value: &str, places: Places<'_>) -> Option<String> {
    if value == "~" && places.home.is_none() {
        return None;
    }
    expand(value, places).1.map(|absolute| normalise(&absolute))
}

/// The spellings of a path value from a call, each absolute (except the as-given spelling of
/// a relative path when the working directory is unknown), without duplicates.
pub fn spellings(
    value: &str,
    places: Places<'_>,
    which: Spellings,
    real_bases: &[String],
    memo: &FsMemo,
) -> Vec<String> {
    let mut out = Vec::new();
    let _ = each_spelling(value, places, which, (real_bases, memo, true), &mut |s| {
        out.push(s.to_string());
        ControlFlow::Continue(())
    });
    out
}

/// Each spelling of [`spellings`], in order: as given (made absolute), normalised, with `~`
/// expanded, resolved. Without `resolve` the file system is not asked: the normalised
/// spelling stands for the resolved one.
fn each_spelling(
    value: &str,
    places: Places<'_>,
    which: Spellings,
    (real_bases, memo, resolve): (&[String], &FsMemo, bool),
    each: &mut dyn FnMut(&str) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let (expanded, absolute) = expand(value, places);
    let Some(absolute) = absolute else {
        if which == Spellings::All {
            return each(value);
        }
        return ControlFlow::Continue(());
    };
    let normalised = if is_normal(&absolute) {
        Cow::Borrowed(absolute.as_str())
    } else {
        Cow::Owned(normalise(&absolute))
    };
    let resolved = if resolve {
        resolve_from(&normalised, real_bases, memo)
    } else {
        Cow::Borrowed(&*normalised)
    };
    let candidates = match which {
        Spellings::All => [
            Some(absolute.as_str()),
            Some(&*normalised),
            expanded.as_deref(),
            Some(&*resolved),
        ],
        Spellings::Resolved => [Some(&*resolved), None, None, None],
    };
    let mut given: [&str; 4] = [""; 4];
    let mut count = 0;
    for spelling in candidates.into_iter().flatten() {
        if given[..count].contains(&spelling) {
            continue;
        }
        given[count] = spelling;
        count += 1;
        each(spelling)?;
    }
    ControlFlow::Continue(())
}

/// The base directories of one call, each as given and resolved, computed once per call.
#[derive(Clone, Debug)]
pub struct Bases<'a> {
    which: Spellings,
    places: Places<'a>,
    /// `(tag, base)` pairs, every spelling of every known base.
    list: Vec<(char, String)>,
    /// The bases with symlinks resolved (for [`resolve_from`]).
    real: Vec<String>,
    /// What this call asked the file system.
    memo: FsMemo,
}

impl<'a> Bases<'a> {
    /// The bases of `places` for matchers reading `which` spellings. Deny and ask matchers
    /// ([`Spellings::All`]) also read a path relative to the project root as relative to the
    /// working directory (a `./x` rule still protects the project's file after a `cd`).
    pub fn new(places: Places<'a>, which: Spellings) -> Bases<'a> {
        let memo = FsMemo::default();
        // Each distinct base is canonicalised once.
        let mut canonical: Vec<(&str, Option<String>)> = Vec::new();
        for base in [places.cwd, places.home, places.project_root]
            .into_iter()
            .flatten()
            .filter(|b| b.starts_with('/'))
        {
            if !canonical.iter().any(|(b, _)| *b == base) {
                canonical.push((base, memo.canonical(base)));
            }
        }
        let spellings_of = |base: Option<&str>| -> Vec<String> {
            let Some(base) = base.filter(|b| b.starts_with('/')) else {
                return Vec::new();
            };
            let mut out = vec![normalise(base)];
            if let Some((_, Some(resolved))) = canonical.iter().find(|(b, _)| *b == base)
                && !out.contains(resolved)
            {
                out.push(resolved.clone());
            }
            out
        };
        let mut list = Vec::new();
        let pairs = [
            (HOME_TAG, places.home),
            (PROJECT_TAG, places.project_root),
            (CWD_TAG, places.cwd),
            (
                CWD_TAG,
                places.project_root.filter(|_| which == Spellings::All),
            ),
        ];
        for (tag, base) in pairs {
            for spelling in spellings_of(base) {
                if !list.contains(&(tag, spelling.clone())) {
                    list.push((tag, spelling));
                }
            }
        }
        let mut real: Vec<String> = Vec::new();
        for (_, resolved) in &canonical {
            if let Some(resolved) = resolved
                && !real.contains(resolved)
            {
                real.push(resolved.clone());
            }
        }
        Bases {
            which,
            real,
            places,
            list,
            memo,
        }
    }

    /// Add the texts of one path value to `texts` (without duplicates). For
    /// [`Spellings::Resolved`] a text is offered only when the path as written (normalised)
    /// and the resolved path both have it: an allow must hold for the path the call names and
    /// for the file it reaches (claude asks for a link inside an allowed tree to a file outside
    /// it, and for a link outside to a file inside).
    pub fn texts_into(&self, value: &str, texts: &mut Vec<String>) {
        let mut scratch = String::new();
        if self.which == Spellings::Resolved {
            let Some(normalised) = absolute_normalised(value, self.places) else {
                return;
            };
            let resolved = resolve_from(&normalised, &self.real, &self.memo);
            let mut of_resolved = Vec::new();
            let _ = self.each_relative_text(&resolved, &mut scratch, &mut |t| {
                of_resolved.push(t.to_string());
                ControlFlow::Continue(())
            });
            let _ = self.each_relative_text(&normalised, &mut scratch, &mut |t| {
                if of_resolved.iter().any(|r| r == t) && !texts.iter().any(|x| x == t) {
                    texts.push(t.to_string());
                }
                ControlFlow::Continue(())
            });
            return;
        }
        let start = texts.len();
        let _ = self.each_text(value, true, &mut scratch, &mut |t| {
            if !texts[start..].iter().any(|x| x == t) {
                texts.push(t.to_string());
            }
            ControlFlow::Continue(())
        });
    }

    /// Each text of one path value for [`Spellings::All`] (a text may come more than once),
    /// symlinks resolved only when `resolve`.
    fn each_text(
        &self,
        value: &str,
        resolve: bool,
        scratch: &mut String,
        each: &mut dyn FnMut(&str) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        let context = (self.real.as_slice(), &self.memo, resolve);
        each_spelling(value, self.places, self.which, context, &mut |spelling| {
            self.each_relative_text(spelling, scratch, each)
        })
    }

    /// The texts of one spelling: relative to each base it lies under, behind its tag, each
    /// written into `scratch` in turn.
    fn each_relative_text(
        &self,
        spelling: &str,
        scratch: &mut String,
        each: &mut dyn FnMut(&str) -> ControlFlow<()>,
    ) -> ControlFlow<()> {
        // Deny and ask texts are lower case: those matchers ignore letter case.
        let fold = self.which == Spellings::All;
        let Some(rooted) = spelling.strip_prefix('/') else {
            // A relative path whose working directory is unknown: relative to the cwd.
            tagged_text(scratch, CWD_TAG, spelling, fold);
            return each(scratch);
        };
        tagged_text(scratch, ROOT_TAG, rooted, fold);
        each(scratch)?;
        for (tag, base) in &self.list {
            if let Some(rel) = relative_to(spelling, base) {
                tagged_text(scratch, *tag, rel, fold);
                each(scratch)?;
            }
        }
        ControlFlow::Continue(())
    }
}

/// One path text into `text`: `tag`, `/`, the path relative to the tag's base (lower case
/// when `fold`, control characters as `?`), `/`.
fn tagged_text(text: &mut String, tag: char, rel: &str, fold: bool) {
    text.clear();
    text.push(tag);
    text.push('/');
    if rel.is_ascii() {
        for byte in rel.bytes() {
            text.push(match byte {
                0..0x20 | 0x7f => '?',
                _ if fold => byte.to_ascii_lowercase() as char,
                _ => byte as char,
            });
        }
    } else {
        for c in rel.chars() {
            if c.is_control() {
                text.push('?');
            } else if fold {
                text.extend(c.to_lowercase());
            } else {
                text.push(c);
            }
        }
    }
    text.push('/');
}

/// The texts path matchers search for one path value: each spelling ([`spellings`]) written
/// relative to every base it lies under, behind the base's tag. Control characters in a path
/// become `?` so that no text holds a tag anywhere but at its start.
pub fn path_texts(value: &str, places: Places<'_>, which: Spellings) -> Vec<String> {
    let mut texts = Vec::new();
    Bases::new(places, which).texts_into(value, &mut texts);
    texts
}

/// The texts a deny or ask path rule searches in a shell command ([`each_command_path_text`]),
/// sorted, each once.
pub fn command_path_texts<'t>(
    segment_texts: impl Iterator<Item = &'t str> + Clone,
    places: Places<'_>,
) -> Vec<String> {
    let mut texts = Vec::new();
    let _ = each_command_path_text(segment_texts, places, &mut |t| {
        texts.push(t.to_string());
        ControlFlow::Continue(())
    });
    texts.sort_unstable();
    texts.dedup();
    texts
}

/// Each text a deny or ask path rule searches in a shell command (a text may come more than
/// once; nothing is kept): every word of every generous segment text read as a path, the
/// program included (an option's value after `=`, a redirection's target too), so
/// `Read(./.env)` also stops `./.env`, `cat .env`, `grep KEY ./.env` and `cat < .env`.
/// Options (`-x`) are skipped. There is no cap on the number of words: padding must not hide
/// the last one (the hook's deadline bounds a pathological command, and a deadline denies).
///
/// Symlinks are resolved (one `lstat` per word, the call's dominant cost) for every word a
/// command may open, not for those it cannot: a program name without a `/` (the shell looks
/// it up in `PATH`, never in the working directory, unless `PATH` holds a relative
/// directory), a leading assignment as a whole (`FOO=x`; its value is resolved), and the
/// operands of `echo` and `printf` (printed, never opened; their redirections are resolved).
/// Those words still give their texts as written.
pub fn each_command_path_text<'t>(
    segment_texts: impl Iterator<Item = &'t str> + Clone,
    places: Places<'_>,
    each: &mut dyn FnMut(&str) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let programs_from_cwd = path_searches_relative_directories();
    command_path_texts_with(segment_texts, places, programs_from_cwd, each)
}

/// [`each_command_path_text`], told whether a program name may be a file in the working
/// directory.
fn command_path_texts_with<'t>(
    segment_texts: impl Iterator<Item = &'t str> + Clone,
    places: Places<'_>,
    programs_from_cwd: bool,
    each: &mut dyn FnMut(&str) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let bases = Bases::new(places, Spellings::All);
    // The directories a `cd` in the command moves to: a relative word is also read from each
    // (`cd src && cat ../.env` reads the project's `.env`).
    let mut directories: Vec<String> = places.cwd.map(String::from).into_iter().collect();
    for text in segment_texts.clone() {
        let mut words = text.split_whitespace();
        if matches!(words.next(), Some("cd" | "pushd"))
            && let Some(target) = words.find(|w| !w.starts_with('-'))
        {
            for spelling in spellings(target, places, Spellings::All, &bases.real, &bases.memo) {
                if spelling.starts_with('/') && !directories.contains(&spelling) {
                    directories.push(spelling);
                }
            }
        }
    }
    // Each candidate once, and whether it was resolved.
    let mut seen: HashMap<&str, bool, FnvBuild> = HashMap::default();
    let mut scratch = String::new();
    let mut joined = String::new();
    for text in segment_texts {
        let program = text
            .split_whitespace()
            .position(|w| !crate::shell::segment::is_assignment(w) && !is_redirection(w));
        let prints_only = program
            .and_then(|i| text.split_whitespace().nth(i))
            .is_some_and(|p| matches!(crate::shell::segment::basename(p), "echo" | "printf"));
        // The program too: running `./secrets/dump.sh` or `./.env` reads the file.
        for (i, word) in text.split_whitespace().enumerate() {
            let unredirected = word.trim_start_matches(|c: char| {
                c.is_ascii_digit() || matches!(c, '<' | '>' | '&' | '|')
            });
            let resolve = if is_redirection(word) {
                true
            } else if Some(i) == program {
                word.contains('/') || programs_from_cwd
            } else {
                !prints_only
            };
            // A leading assignment (`FOO=x cmd`) is never a file; its value may be one.
            let assignment =
                crate::shell::segment::is_assignment(word) && program.is_none_or(|p| i < p);
            let candidates = [
                Some((unredirected, resolve && !assignment)),
                unredirected
                    .split_once('=')
                    .map(|(_, value)| (value, resolve)),
            ];
            for (candidate, resolve) in candidates.into_iter().flatten() {
                if candidate.is_empty() || candidate.starts_with('-') {
                    continue;
                }
                match seen.get(candidate) {
                    Some(&resolved) if resolved || !resolve => continue,
                    _ => {
                        seen.insert(candidate, resolve);
                    }
                }
                bases.each_text(candidate, resolve, &mut scratch, each)?;
                let relative = !candidate.starts_with('/') && !candidate.starts_with('~');
                for directory in directories.iter().skip(1).filter(|_| relative) {
                    joined.clear();
                    joined.push_str(directory);
                    joined.push('/');
                    joined.push_str(candidate);
                    bases.each_text(&joined, resolve, &mut scratch, each)?;
                }
                // A word the shell would expand as a glob (`cat .e*`): the files it names now.
                if resolve && candidate.contains(['*', '?', '[']) {
                    for directory in &directories {
                        for path in expand_glob(candidate, directory) {
                            bases.each_text(&path, true, &mut scratch, each)?;
                        }
                    }
                }
            }
        }
    }
    ControlFlow::Continue(())
}

/// Is `word` a redirection (`>out`, `2>>log`, `<in`, `&>all`) as the segment texts write
/// them, the target attached?
fn is_redirection(word: &str) -> bool {
    word.trim_start_matches(|c: char| c.is_ascii_digit())
        .starts_with(['<', '>', '&'])
        && word.contains(['<', '>'])
}

/// Does this process's `PATH` name a relative directory (`.`, or an empty entry): then a
/// program name without a `/` may be a file in the working directory.
fn path_searches_relative_directories() -> bool {
    std::env::var_os("PATH").is_some_and(|path| {
        path.as_encoded_bytes()
            .split(|&b| b == b':')
            .any(|dir| !dir.starts_with(b"/"))
    })
}

/// Most paths one glob word expands to in [`expand_glob`].
pub const MAX_GLOB_EXPANSION: usize = 4096;

/// The existing paths a shell glob word names, relative to `directory` unless absolute (`~/`
/// expanded by the caller's spellings, not here): each `/`-separated component matched
/// against the entries of the directories reached so far, as the shell does (a leading `.`
/// matched only by a component starting with `.`, as bash does by default). At most
/// [`MAX_GLOB_EXPANSION`] paths.
pub fn expand_glob(word: &str, directory: &str) -> Vec<String> {
    let (mut reached, rest) = match word.strip_prefix('/') {
        Some(rest) => (vec![String::from("/")], rest),
        None => (vec![directory.trim_end_matches('/').to_string()], word),
    };
    for component in rest.split('/').filter(|c| !c.is_empty()) {
        let mut next = Vec::new();
        for dir in &reached {
            let join = |name: &str| {
                if dir == "/" {
                    format!("/{name}")
                } else {
                    format!("{dir}/{name}")
                }
            };
            if !component.contains(['*', '?', '[']) {
                next.push(join(component));
                continue;
            }
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name();
                let Some(name) = name.to_str() else {
                    continue;
                };
                if name.starts_with('.') && !component.starts_with('.') {
                    continue;
                }
                if component_matches(component, name) {
                    next.push(join(name));
                    if next.len() >= MAX_GLOB_EXPANSION {
                        break;
                    }
                }
            }
        }
        reached = next;
        if reached.is_empty() {
            break;
        }
    }
    reached.retain(|p| Path::new(p).exists());
    reached
}

/// `path` relative to `base`, when it lies strictly inside it.
fn relative_to<'p>(path: &'p str, base: &str) -> Option<&'p str> {
    let base = base.trim_end_matches('/');
    path.strip_prefix(base)?
        .strip_prefix('/')
        .filter(|rel| !rel.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn places() -> Places<'static> {
        Places {
            cwd: Some("/p"),
            home: Some("/h"),
            project_root: Some("/p"),
        }
    }

    fn denies(rule: &str, path: &str) -> bool {
        let glob = PathGlob::parse(rule).unwrap();
        let re = regex::Regex::new(&glob.regex(true)).unwrap();
        let texts = path_texts(path, places(), Spellings::All);
        texts.iter().any(|t| re.is_match(t))
    }

    /// The allow regex is exactly the gitignore definition ([`PathGlob::matches_text`]).
    #[test]
    fn the_strict_regex_is_the_definition() {
        let globs = [
            ".env",
            "./.env",
            "src/**",
            "src/*.ts",
            "*.ts",
            "**/*.pem",
            "a/**/b",
            "~/.ssh/**",
            "//etc/passwd",
            "/src/**",
            "secrets",
            "a[0-9].txt",
            "a?c",
            "**",
            "*",
            "x/y/",
        ];
        let paths = [
            "/p/.env",
            "/p/sub/.env",
            "/p/src/a.ts",
            "/p/src/a/b.ts",
            "/p/x/src/a.ts",
            "/p/a/b",
            "/p/a/x/y/b",
            "/p/a/xb",
            "/h/.ssh/id",
            "/etc/passwd",
            "/etc/passwd/x",
            "/p/secrets/k",
            "/p/a5.txt",
            "/p/abc",
            "/p/a/c",
            "/p/x/y/z",
            "/p/k.pem",
            "/src/a",
        ];
        for g in globs {
            let glob = PathGlob::parse(g).unwrap();
            let re = regex::Regex::new(&glob.regex(false)).unwrap();
            for p in paths {
                for text in path_texts(p, places(), Spellings::Resolved) {
                    assert_eq!(
                        re.is_match(&text),
                        glob.matches_text(&text),
                        "{g} on {text:?}: {}",
                        glob.regex(false)
                    );
                }
            }
        }
    }

    #[test]
    fn anchors_and_depth() {
        assert!(denies("./.env", "/p/.env"));
        assert!(denies("./.env", ".env"));
        assert!(denies("./.env", "/p/src/../.env"));
        assert!(denies(".env", "/p/sub/.env"));
        assert!(!denies(".env", "/p/.envrc"));
        assert!(
            denies(".env", "/p/.ENV"),
            "a deny ignores letter case, as claude's does"
        );
        assert!(denies("~/.ssh/**", "/h/.ssh/id_rsa"));
        assert!(denies("~/.ssh/**", "~/.ssh/id_rsa"));
        assert!(!denies("~/.ssh/**", "/p/.ssh/id_rsa"));
        assert!(denies("//etc/**", "/etc/passwd"));
        assert!(denies("/src/**", "/p/src/a/b.ts"));
        assert!(!denies("/src/**", "/src/a.ts"));
        assert!(denies("**/*.pem", "/p/a/b/c.pem"));
        assert!(denies("*.pem", "/p/a/b/c.pem"));
        assert!(denies("secrets", "/p/secrets/x"));
        assert!(denies("secrets/", "/p/a/secrets/x"));
        assert!(denies("src/*.ts", "/p/src/a.ts"));
        assert!(
            denies("src/*.ts", "/p/src/a/b.ts"),
            "a deny's * may cross a /: more generous"
        );
        // A deny relative to the cwd reaches any depth, as claude's does.
        assert!(denies("src/*.ts", "/p/x/src/a.ts"));
        assert!(denies("secrets/**", "/p/sub/secrets/z.txt"));
        assert!(!denies("/src/**", "/p/x/src/a.ts"));
        assert!(denies("a[0-9].txt", "/p/a5.txt"));
        assert!(!denies("a[!0-9].txt", "/p/a5.txt"));
        assert!(denies(".env.*", "/p/.env.local"));
        assert!(denies("//**/TODO.md", "/x/y/TODO.md"));
        assert!(denies("/x\\(1\\)/**", "/p/x(1)/y"));
    }

    #[test]
    fn allow_sees_only_the_resolved_path() {
        let glob = PathGlob::parse("src/**").unwrap();
        let re = regex::Regex::new(&glob.regex(false)).unwrap();
        assert!(
            !re.is_match(&format!("{CWD_TAG}x/src/a.rs")),
            "an allow stays anchored"
        );
        let covers = |path: &str| {
            path_texts(path, places(), Spellings::Resolved)
                .iter()
                .any(|t| re.is_match(t))
        };
        assert!(covers("/p/src/a.rs"));
        assert!(covers("src/a.rs"));
        assert!(!covers("/p/src/../lib/x"));
        assert!(!covers("src/../lib/x"));
    }

    #[test]
    fn symlinks_resolve() {
        let dir = std::env::temp_dir().join(format!("animus-paths-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("p/src")).unwrap();
        std::fs::write(dir.join("p/.env"), "x").unwrap();
        std::os::unix::fs::symlink(dir.join("p/.env"), dir.join("p/src/innocent")).unwrap();
        std::os::unix::fs::symlink(dir.join("p"), dir.join("p/src/up")).unwrap();
        let root = std::fs::canonicalize(dir.join("p")).unwrap();
        let root = root.to_str().unwrap();
        let places = Places {
            cwd: Some(root),
            home: None,
            project_root: Some(root),
        };
        let glob = PathGlob::parse("./.env").unwrap();
        let re = regex::Regex::new(&glob.regex(true)).unwrap();
        for path in ["src/innocent", "src/up/.env", "src/up/new-file/../.env"] {
            let texts = path_texts(path, places, Spellings::All);
            assert!(texts.iter().any(|t| re.is_match(t)), "{path}: {texts:?}");
        }
        // Allow: a link inside src/ to a file outside it is not covered by `src/**`.
        let src = PathGlob::parse("src/**").unwrap();
        let re = regex::Regex::new(&src.regex(false)).unwrap();
        let texts = path_texts("src/innocent", places, Spellings::Resolved);
        assert!(!texts.iter().any(|t| re.is_match(t)), "{texts:?}");
        // Nor a link outside `src/` to a file inside it, nor through a linked directory.
        std::fs::write(dir.join("p/src/real.txt"), "x").unwrap();
        std::os::unix::fs::symlink(dir.join("p/src/real.txt"), dir.join("p/outer")).unwrap();
        let texts = path_texts("outer", places, Spellings::Resolved);
        assert!(!texts.iter().any(|t| re.is_match(t)), "{texts:?}");
        let texts = path_texts("src/real.txt", places, Spellings::Resolved);
        assert!(texts.iter().any(|t| re.is_match(t)), "{texts:?}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn words_a_command_cannot_open_are_not_resolved() {
        let dir = std::env::temp_dir().join(format!("animus-unopened-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("p")).unwrap();
        std::fs::write(dir.join("p/.env"), "x").unwrap();
        std::os::unix::fs::symlink(dir.join("p/.env"), dir.join("p/innocent")).unwrap();
        let root = std::fs::canonicalize(dir.join("p")).unwrap();
        let root = root.to_str().unwrap();
        let places = Places {
            cwd: Some(root),
            home: Some("/nonexistent-home"),
            project_root: Some(root),
        };
        let re = regex::Regex::new(&PathGlob::parse("./.env").unwrap().regex(true)).unwrap();
        let denied = |command: &str, programs_from_cwd: bool| {
            let analysis = crate::shell::analyse(command);
            let mut found = false;
            let _ = command_path_texts_with(
                analysis.generous_texts(),
                places,
                programs_from_cwd,
                &mut |t| {
                    found |= re.is_match(t);
                    ControlFlow::Continue(())
                },
            );
            found
        };
        assert!(denied("cat innocent", false), "an operand is resolved");
        assert!(denied("FOO=1 cat innocent", false));
        assert!(
            denied("FOO=innocent make", false),
            "an assignment's value is resolved"
        );
        assert!(
            denied("cat FOO=innocent", false),
            "an operand's value after = too"
        );
        assert!(
            denied("./innocent", false),
            "a program named by a path is resolved"
        );
        assert!(
            denied("echo hi >innocent", false),
            "echo's redirection is resolved"
        );
        assert!(denied("echo hi 2>>innocent", false));
        assert!(
            denied(">innocent", false),
            "a redirection alone truncates its file"
        );
        assert!(denied("FOO=1 >innocent", false));
        assert!(
            denied(">innocent echo hi", false),
            "a leading redirection is no program"
        );
        assert!(
            denied("env innocent", false),
            "a wrapper's operand is resolved"
        );
        assert!(
            denied("echo innocent; cat innocent", false),
            "resolved where it may be opened"
        );
        assert!(
            !denied("echo innocent", false),
            "echo prints its operands, never opens them"
        );
        assert!(!denied("printf '%s' innocent", false));
        assert!(
            !denied("innocent --version", false),
            "a program is looked up in PATH"
        );
        assert!(
            denied("innocent --version", true),
            "unless PATH names a relative directory"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn command_words_are_read_as_the_shell_would() {
        let dir = std::env::temp_dir().join(format!("animus-words-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("p/src")).unwrap();
        std::fs::write(dir.join("p/.env"), "x").unwrap();
        let root = std::fs::canonicalize(dir.join("p")).unwrap();
        let root = root.to_str().unwrap();
        let places = Places {
            cwd: Some(root),
            home: Some("/nonexistent-home"),
            project_root: Some(root),
        };
        let glob = PathGlob::parse("./.env").unwrap();
        let re = regex::Regex::new(&glob.regex(true)).unwrap();
        let denied = |command: &str| {
            let analysis = crate::shell::analyse(command);
            command_path_texts(analysis.generous_texts(), places)
                .iter()
                .any(|t| re.is_match(t))
        };
        assert!(denied("cat .env"));
        assert!(denied("./.env"), "running the file reads it");
        assert!(denied("cat < .env"));
        assert!(denied("grep --file=.env x"));
        assert!(denied("cat .e*"), "a glob the shell expands to .env");
        assert!(denied("cat .en?"));
        assert!(denied("cd src && cat ../.env"), "relative to the cd target");
        assert!(!denied("cat .envrc README"));
        assert!(!denied("cat src/*"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
