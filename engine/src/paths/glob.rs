//! Path globs: a rule's argument read ([`PathGlob`]), its regex, the gitignore matcher that
//! defines it, and a shell glob word expanded against the file system ([`expand_glob`]).

use crate::pattern_error::PatternError;

use std::path::Path;

use super::Anchor;

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
    pub fn parse(argument: &str) -> Result<PathGlob, PatternError> {
        if argument.is_empty() {
            return Err(PatternError::Empty {
                what: "path pattern",
            });
        }
        if let Some(c) = argument.chars().find(|c| c.is_control()) {
            return Err(PatternError::ControlCharacter {
                what: "path pattern",
                character: c,
            });
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
    ///
    /// [`path_texts`]: super::path_texts
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

/// Most paths one glob word expands to in [`expand_glob`].
pub const MAX_GLOB_EXPANSION: usize = 4096;

/// The existing paths a shell glob word names, relative to `directory` unless absolute (`~/`
/// expanded by the caller's spellings, not here): each `/`-separated component matched
/// against the entries of the directories reached so far, as the shell does (a leading `.`
/// matched only by a component starting with `.`, as bash does by default, unless `dots`:
/// the command turned on bash's `dotglob` or zsh's `globdots`, [`enables_dot_globs`]). At
/// most [`MAX_GLOB_EXPANSION`] paths.
pub fn expand_glob(word: &str, directory: &str, dots: bool) -> Vec<String> {
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
                if name.starts_with('.') && !component.starts_with('.') && !dots {
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

/// Does a command's text turn on globs matching names that start with `.` (bash's `shopt -s
/// dotglob`, a `GLOBIGNORE` assignment, which does too, zsh's `setopt globdots` in any of
/// its spellings)? Read generously: a mention is enough (`.` and `..` stay unmatched).
pub fn enables_dot_globs(text: &str) -> bool {
    let folded: String = text
        .chars()
        .filter(|c| *c != '_')
        .flat_map(char::to_lowercase)
        .collect();
    ["dotglob", "globignore", "globdots"]
        .iter()
        .any(|option| folded.contains(option))
}
