//! The texts path matchers search for a path value: its spellings ([`spellings`]), each
//! written relative to the call's bases ([`Bases`]) behind their tags ([`path_texts`]).

use std::borrow::Cow;
use std::ops::ControlFlow;

use super::resolve::{FsMemo, is_normal, join, normalise, relative_to, resolve_from};
use super::{CWD_TAG, HOME_TAG, PROJECT_TAG, Places, ROOT_TAG, Spellings, TagSet};

/// The path as given with `~` expanded (when it starts with one and the home is known), and
/// the path made absolute against the working directory (or project root): `None` for a
/// relative path when neither is known.
fn expand(value: &str, places: Places<'_>) -> (Option<String>, Option<String>) {
    let expanded = match under_home(value, places.home) {
        Some(path) => Some(path),
        None if value == "~" => places.home.map(String::from),
        None => None,
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

/// `~/x` below the home, when it is known: `x` joined to it, any slashes at its start being
/// empty names the shell keeps inside the home (`~//.ssh` is the home's `.ssh`, not `/.ssh`).
pub(super) fn under_home(value: &str, home: Option<&str>) -> Option<String> {
    let rest = value.strip_prefix("~/")?;
    Some(join(home?, rest.trim_start_matches('/')))
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
    pub(super) real: Vec<String>,
    /// What this call asked the file system.
    pub(super) memo: FsMemo,
    /// The tags whose texts are made (the others can match no matcher of the field).
    tags: TagSet,
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
            tags: TagSet::ALL,
        }
    }

    /// The same bases, making only the texts behind `tags` (the others match none of the
    /// field's matchers, [`TagSet`]).
    pub fn only(mut self, tags: TagSet) -> Bases<'a> {
        self.tags = tags;
        self
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
    pub(super) fn each_text(
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

    /// The prefixes of the texts of words below `directory` ([`Self::each_text_below`]);
    /// `None` where that shortcut does not hold and each word goes through [`Self::each_text`]:
    /// for [`Spellings::Resolved`], for a directory that is not absolute and normal or is the
    /// root, and when a base lies strictly inside the directory (a word could then reach it).
    pub(super) fn below(&self, directory: &str) -> Option<Below> {
        if self.which != Spellings::All || directory == "/" || !is_normal(directory) {
            return None;
        }
        if self
            .list
            .iter()
            .any(|(_, base)| relative_to(base, directory).is_some())
        {
            return None;
        }
        let mut prefixes = Vec::new();
        let mut add = |tag: char, rel: Option<&str>| {
            let mut prefix = String::with_capacity(rel.map_or(0, str::len) + 4);
            prefix.push(tag);
            prefix.push('/');
            if let Some(rel) = rel {
                push_folded(&mut prefix, rel, true);
                prefix.push('/');
            }
            prefixes.push(prefix);
        };
        if self.tags.holds(ROOT_TAG) {
            add(ROOT_TAG, Some(&directory[1..]));
        }
        for (tag, base) in &self.list {
            if !self.tags.holds(*tag) {
                continue;
            }
            if directory == base.trim_end_matches('/') {
                add(*tag, None);
            } else if let Some(rel) = relative_to(directory, base) {
                add(*tag, Some(rel));
            }
        }
        Some(Below {
            directory: directory.to_string(),
            prefixes,
            first_id: 0,
        })
    }

    /// [`Self::each_text`] of `word` below `below`'s directory: for a plain relative word
    /// whose path has no link on the way (or is not resolved), its one spelling lies under the
    /// bases that hold the directory, so each text is a prefix and the folded word; any other
    /// word takes [`Self::each_text`] of the joined path. `path` is scratch for the join.
    pub(super) fn each_text_below(
        &self,
        below: &Below,
        word: &str,
        resolve: bool,
        (path, scratch): (&mut String, &mut String),
        sink: &mut dyn PathTextSink,
    ) -> ControlFlow<()> {
        path.clear();
        path.push_str(&below.directory);
        path.push('/');
        path.push_str(word);
        let plain = is_plain_relative(word)
            && (!resolve || matches!(resolve_from(path, &self.real, &self.memo), Cow::Borrowed(_)));
        if !plain {
            return self.each_text(path, resolve, scratch, &mut |t| sink.text(t));
        }
        // The word's part of every text, folded once.
        scratch.clear();
        push_folded(scratch, word, true);
        scratch.push('/');
        for (i, prefix) in below.prefixes.iter().enumerate() {
            sink.joined(below.first_id + i, prefix, scratch)?;
        }
        ControlFlow::Continue(())
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
            if !self.tags.holds(CWD_TAG) {
                return ControlFlow::Continue(());
            }
            tagged_text(scratch, CWD_TAG, spelling, fold);
            return each(scratch);
        };
        if self.tags.holds(ROOT_TAG) {
            tagged_text(scratch, ROOT_TAG, rooted, fold);
            each(scratch)?;
        }
        for (tag, base) in &self.list {
            if !self.tags.holds(*tag) {
                continue;
            }
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
    push_folded(text, rel, fold);
    text.push('/');
}

/// `part` onto `text` as path texts write it: lower case when `fold`, control characters as
/// `?`. Character by character, so a text made in pieces is the text made whole.
fn push_folded(text: &mut String, part: &str, fold: bool) {
    if part.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        // The common case, printable ASCII: copied whole, folded in place.
        let start = text.len();
        text.push_str(part);
        if fold {
            text[start..].make_ascii_lowercase();
        }
    } else if part.is_ascii() {
        for byte in part.bytes() {
            text.push(match byte {
                0..0x20 | 0x7f => '?',
                _ if fold => byte.to_ascii_lowercase() as char,
                _ => byte as char,
            });
        }
    } else {
        for c in part.chars() {
            if c.is_control() {
                text.push('?');
            } else if fold {
                text.extend(c.to_lowercase());
            } else {
                text.push(c);
            }
        }
    }
}

/// Where the texts of a command's paths go ([`super::each_command_path_text_into`]): each
/// whole, or, for the many words below one directory, as one of that directory's few
/// prefixes and the rest. A matcher may then search each prefix once and resume from there
/// for every word; [`JoinedTexts`] joins them for one that reads whole texts.
pub trait PathTextSink {
    /// One text.
    fn text(&mut self, text: &str) -> ControlFlow<()>;
    /// The text `prefix` followed by `rest`. The texts of one command pass the same few
    /// prefixes (a tag, `/`, a directory relative to a base, `/`, folded) again and again,
    /// each always with the same small `id` (numbered from 0), and no two prefixes with one.
    fn joined(&mut self, id: usize, prefix: &str, rest: &str) -> ControlFlow<()>;
}

/// A [`PathTextSink`] handing each text, joined, to a closure.
pub struct JoinedTexts<'a> {
    each: &'a mut dyn FnMut(&str) -> ControlFlow<()>,
    scratch: String,
}

impl<'a> JoinedTexts<'a> {
    /// Each text to `each`.
    pub fn new(each: &'a mut dyn FnMut(&str) -> ControlFlow<()>) -> JoinedTexts<'a> {
        JoinedTexts {
            each,
            scratch: String::new(),
        }
    }
}

impl PathTextSink for JoinedTexts<'_> {
    fn text(&mut self, text: &str) -> ControlFlow<()> {
        (self.each)(text)
    }

    fn joined(&mut self, _: usize, prefix: &str, rest: &str) -> ControlFlow<()> {
        self.scratch.clear();
        self.scratch.push_str(prefix);
        self.scratch.push_str(rest);
        (self.each)(&self.scratch)
    }
}

/// The texts of words read below one directory, made from per-base prefixes
/// ([`Bases::below`], [`Bases::each_text_below`]).
#[derive(Clone, Debug)]
pub(super) struct Below {
    /// The directory: absolute, normal, not the root.
    directory: String,
    /// For each wanted tag whose base holds the directory (or is it): the text up to the word,
    /// the tag, `/`, the directory relative to the base and a `/`, folded.
    prefixes: Vec<String>,
    /// The id of the first prefix ([`PathTextSink::joined`]); the others follow it.
    first_id: usize,
}

impl Below {
    /// Number the prefixes of `belows` one after another, from 0.
    pub(super) fn number(belows: &mut [Option<Below>]) {
        let mut next = 0;
        for below in belows.iter_mut().flatten() {
            below.first_id = next;
            next += below.prefixes.len();
        }
    }
}

/// Is `word` a relative path of plain names (no empty, `.` or `..` component, no `~`)?
/// Below a normal directory it makes a normal path.
fn is_plain_relative(word: &str) -> bool {
    !word.is_empty()
        && !word.starts_with('~')
        && word.split('/').all(|name| !matches!(name, "" | "." | ".."))
}

/// The texts path matchers search for one path value: each spelling ([`spellings`]) written
/// relative to every base it lies under, behind the base's tag. Control characters in a path
/// become `?` so that no text holds a tag anywhere but at its start.
pub fn path_texts(value: &str, places: Places<'_>, which: Spellings) -> Vec<String> {
    let mut texts = Vec::new();
    Bases::new(places, which).texts_into(value, &mut texts);
    texts
}
