//! The path texts of a shell command: every word a command may open, read as a path
//! ([`each_command_path_text`]).

use std::collections::HashMap;
use std::ops::ControlFlow;

use super::glob::{enables_dot_globs, expand_glob};
use super::resolve::ShortKeysBuild;
use super::texts::{Bases, Below, JoinedTexts, PathTextSink, spellings, under_home};
use super::{Places, Spellings, TagSet};
use crate::shell::ReadText;

/// The texts a deny or ask path rule searches in a shell command ([`each_command_path_text`]),
/// sorted, each once.
pub fn command_path_texts<'t>(
    segment_texts: impl Iterator<Item = ReadText<'t>> + Clone,
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
/// program included (an option's value after `=`, a redirection's target, a word's file after
/// a leading `@` too), so
/// `Read(./.env)` also stops `./.env`, `cat .env`, `grep KEY ./.env` and `cat < .env`. The
/// words are those the program is handed ([`ReadText::words`]): a quoted word with spaces is
/// one (`git commit -m "ignore .env files"` names no `.env`; `cat "my dir/.env"` names that
/// file), and a deletion target text gives its resolved path alone.
/// Options (`-x`) are skipped. There is no cap on the number of words: padding must not hide
/// the last one (the hook's deadline bounds a pathological command, and a deadline denies).
///
/// Symlinks are resolved (one `lstat` per word, the call's dominant cost) for every word a
/// command may open, not for those it cannot: a program name without a `/` (the shell looks
/// it up in `PATH`, never in the working directory, unless `PATH` holds a relative
/// directory), a leading assignment as a whole (`FOO=x`; its value is resolved), and the
/// operands of `echo` and `printf` (printed, never opened; their redirections are resolved).
/// Those words still give their texts as written — but a printer's operands give none when
/// nothing in the command reads what it prints ([`ReadText::operands_unread`]: `echo .env >>
/// .gitignore` writes `.gitignore` and reads no `.env`).
pub fn each_command_path_text<'t>(
    segment_texts: impl Iterator<Item = ReadText<'t>> + Clone,
    places: Places<'_>,
    each: &mut dyn FnMut(&str) -> ControlFlow<()>,
) -> ControlFlow<()> {
    each_command_path_text_for(segment_texts, places, TagSet::ALL, each)
}

/// [`each_command_path_text`], making only the texts behind `tags`: those a field whose
/// matchers are anchored to these bases can match ([`TagSet`]); the texts left out match
/// none of them.
pub fn each_command_path_text_for<'t>(
    segment_texts: impl Iterator<Item = ReadText<'t>> + Clone,
    places: Places<'_>,
    tags: TagSet,
    each: &mut dyn FnMut(&str) -> ControlFlow<()>,
) -> ControlFlow<()> {
    each_command_path_text_into(segment_texts, places, tags, &mut JoinedTexts::new(each))
}

/// [`each_command_path_text_for`] into a [`PathTextSink`]: the texts of the words below a
/// directory come as that directory's prefix and the rest, for a matcher that resumes from
/// each prefix.
pub fn each_command_path_text_into<'t>(
    segment_texts: impl Iterator<Item = ReadText<'t>> + Clone,
    places: Places<'_>,
    tags: TagSet,
    sink: &mut dyn PathTextSink,
) -> ControlFlow<()> {
    let programs_from_cwd = path_searches_relative_directories();
    command_path_texts_into(segment_texts, places, programs_from_cwd, tags, sink)
}

/// Does the last of `words` hand a program the default kubeconfig, `~/.kube/config` spelled
/// from the home (`~/`, `$HOME/`, `${HOME}/`): as `KUBECONFIG=…` (leading, or an
/// `export`/`env` operand), `--kubeconfig=…`, or the word after `--kubeconfig`? Another file
/// handed so may be anything — a link to a file a rule guards, which kubectl may rewrite —
/// and is read as any word is.
fn names_default_kubeconfig(words: &[&str]) -> bool {
    let Some((&word, before)) = words.split_last() else {
        return false;
    };
    let value = word
        .strip_prefix("KUBECONFIG=")
        .or_else(|| word.strip_prefix("--kubeconfig="))
        .or_else(|| (before.last() == Some(&"--kubeconfig")).then_some(word));
    value.is_some_and(|value| {
        ["~", "$HOME", "${HOME}"]
            .iter()
            .any(|home| value.strip_prefix(home) == Some("/.kube/config"))
    })
}

/// Do `words` run `kubectl config` (or OpenShift's `oc config`): a `config` word after the
/// program?
fn runs_kubectl_config<'w>(mut words: impl Iterator<Item = &'w str>) -> bool {
    words.any(|w| matches!(crate::shell::segment::basename(w), "kubectl" | "oc"))
        && words.any(|w| w == "config")
}

/// [`each_command_path_text`], told whether a program name may be a file in the working
/// directory.
#[cfg(test)]
pub(super) fn command_path_texts_with<'t>(
    segment_texts: impl Iterator<Item = ReadText<'t>> + Clone,
    places: Places<'_>,
    programs_from_cwd: bool,
    tags: TagSet,
    each: &mut dyn FnMut(&str) -> ControlFlow<()>,
) -> ControlFlow<()> {
    let sink = &mut JoinedTexts::new(each);
    command_path_texts_into(segment_texts, places, programs_from_cwd, tags, sink)
}

/// [`command_path_texts_with`] into a [`PathTextSink`].
fn command_path_texts_into<'t>(
    segment_texts: impl Iterator<Item = ReadText<'t>> + Clone,
    places: Places<'_>,
    programs_from_cwd: bool,
    tags: TagSet,
    sink: &mut dyn PathTextSink,
) -> ControlFlow<()> {
    let bases = Bases::new(places, Spellings::All).only(tags);
    // The directories a `cd` in the command moves to: a relative word is also read from each
    // (`cd src && cat ../.env` reads the project's `.env`).
    let mut directories: Vec<String> = places.cwd.map(String::from).into_iter().collect();
    // Whether the command makes globs match dotfiles, asked once a glob is met.
    let all_texts = segment_texts.clone();
    let mut dot_globs: Option<bool> = None;
    let mut dots =
        || *dot_globs.get_or_insert_with(|| all_texts.clone().any(|t| enables_dot_globs(t.text)));
    // A command that sets `PATH` (`PATH=.:$PATH .env`, `export PATH=$PWD:$PATH; .env`) runs
    // a bare program name from the directories it names: from the working directory, and
    // from each directory the value spells (read like a `cd` target).
    let mut programs_from_cwd = programs_from_cwd;
    let mut targets: Vec<&str> = Vec::new();
    for text in segment_texts.clone() {
        targets.clear();
        let mut words = text.words();
        if matches!(words.next(), Some("cd" | "pushd"))
            && let Some(target) = words.find(|w| !w.starts_with('-'))
        {
            targets.push(target);
        }
        for value in text.words().filter_map(path_assignment) {
            programs_from_cwd = true;
            targets.extend(value.split(':').filter(|entry| !entry.is_empty()));
        }
        for &target in &targets {
            for spelling in spellings(target, places, Spellings::All, &bases.real, &bases.memo) {
                // A glob the shell expands (`cd .clau*`): the directories it names now.
                let expanded = if spelling.contains(['*', '?', '[']) {
                    expand_glob(&spelling, "/", dots())
                } else {
                    vec![spelling]
                };
                for spelling in expanded {
                    if spelling.starts_with('/') && !directories.contains(&spelling) {
                        directories.push(spelling);
                    }
                }
            }
        }
    }
    // Per directory, the prefixes its words' texts start with (where that shortcut holds).
    let mut belows: Vec<_> = directories.iter().map(|d| bases.below(d)).collect();
    Below::number(&mut belows);
    // The first of `directories` is the working directory only when it is known; without
    // one, every entry is a `cd` target.
    let first_cd_target = usize::from(places.cwd.is_some());
    // The default kubeconfig handed to the tools that use it (`kubectl --kubeconfig
    // ~/.kube/config get pods`, `KUBECONFIG=… helm list`, `export KUBECONFIG=$HOME/.kube/config`)
    // is used to reach the cluster, not printed: not read, as `ssh -i KEY` is not (claude
    // runs these under a Read deny of the file). Unless the command expands the variable
    // (`…; cat $KUBECONFIG`) or runs `kubectl config` (`view --raw` prints the file, `set-*`
    // rewrite it), and only while no link is on the way to the file (a link is read as its
    // target; a file not there yet is no link). Asked lazily: the memo's `lstat`s only for a
    // command naming it.
    let mut kubeconfig_handed: Option<bool> = None;
    let mut default_kubeconfig_used = || {
        *kubeconfig_handed.get_or_insert_with(|| {
            let no_link = places.home.is_some_and(|home| {
                let file = format!("{}/.kube/config", home.trim_end_matches('/'));
                bases.memo.no_link_on_the_way(&file)
            });
            no_link
                && !all_texts.clone().any(|t| {
                    t.text.contains("$KUBECONFIG")
                        || t.text.contains("${KUBECONFIG")
                        || runs_kubectl_config(t.words())
                })
        })
    };
    // Each candidate once, and whether it was resolved.
    let mut seen: HashMap<&str, bool, ShortKeysBuild> =
        HashMap::with_capacity_and_hasher(64, ShortKeysBuild::default());
    let mut scratch = String::new();
    let mut joined = String::new();
    let mut words: Vec<&str> = Vec::new();
    for text in segment_texts {
        words.clear();
        words.extend(text.words());
        let program = words
            .iter()
            .position(|w| !crate::shell::segment::is_assignment(w) && !is_redirection(w));
        // The shell's own printer opens none of its operands (a `./echo`, an `echo` the
        // command redefines, may).
        let prints_only = text.shell_printer;
        // A search program's pattern is text searched for, a subcommand names no file: its
        // first word after the program (unless a bare program name may be a file in the
        // working directory).
        let pattern = text
            .text_operand
            .filter(|_| !programs_from_cwd)
            .and_then(|pattern| {
                let after = program? + 1;
                words[after..]
                    .iter()
                    .position(|w| *w == pattern)
                    .map(|i| after + i)
            });
        // The command a `find` action runs (`-exec grep -l .env {} ;`) is a segment of its
        // own (`find_action_commands`, which the analysis exposes), whose words are read
        // there: the pattern `grep` searches for is no path. An action without its end is
        // read here too.
        let action: Vec<_> = program
            .filter(|&p| crate::shell::segment::basename(words[p]) == "find")
            .map_or(Vec::new(), |p| {
                let find = &words[p..];
                crate::shell::segment::find_action_commands(find)
                    .into_iter()
                    .filter(|action| action.end < find.len())
                    .map(|action| p + action.start..p + action.end)
                    .collect()
            });
        // The program too: running `./secrets/dump.sh` or `./.env` reads the file.
        for (i, &word) in words.iter().enumerate() {
            if action.iter().any(|range| range.contains(&i)) {
                continue;
            }
            if names_default_kubeconfig(&words[..=i]) && default_kubeconfig_used() {
                continue;
            }
            let unredirected = word.trim_start_matches(|c: char| {
                c.is_ascii_digit() || matches!(c, '<' | '>' | '&' | '|')
            });
            let resolve = if is_redirection(word) {
                true
            } else if Some(i) == pattern {
                continue;
            } else if text.operands_unread && prints_only {
                // Printed into a file nothing reads back: opens nothing.
                continue;
            } else if Some(i) == program {
                // A program name without a `/` is looked up in `PATH` (no relative directory
                // in it): running it reads no file its spelling names.
                if !word.contains('/') && !programs_from_cwd {
                    continue;
                }
                true
            } else {
                !prints_only
            };
            // A leading assignment (`FOO=x cmd`) is never a file; its value may be one.
            let assignment =
                program.is_none_or(|p| i < p) && crate::shell::segment::is_assignment(word);
            let value = unredirected.split_once('=').map(|(_, value)| value);
            // `@file` names the file a program reads (`curl -d @~/.ssh/id_rsa`, `-F
            // f=@.env`, `gh api -F body=@notes.md`): read without its `@` too.
            // A word with whitespace at an end is also read without it: the shell drops a
            // command substitution's trailing newlines (`cat "$(cat <<EOF … EOF)"`), which
            // the word as the analysis spells it may keep.
            let trimmed = unredirected.trim();
            let candidates = [
                Some((unredirected, resolve && !assignment)),
                (trimmed.len() != unredirected.len()).then_some((trimmed, resolve && !assignment)),
                unredirected.strip_prefix('@').map(|file| (file, resolve)),
                value.map(|value| (value, resolve)),
                value
                    .and_then(|value| value.strip_prefix('@'))
                    .map(|file| (file, resolve)),
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
                let relative = !candidate.starts_with('/') && !candidate.starts_with('~');
                // A relative word is read from the working directory (the first of
                // `directories` when it is known), then from each `cd` target.
                match belows.first() {
                    Some(Some(below)) if relative && first_cd_target == 1 => {
                        let buffers = (&mut joined, &mut scratch);
                        bases.each_text_below(below, candidate, resolve, buffers, sink)?
                    }
                    _ => {
                        bases.each_text(candidate, resolve, &mut scratch, &mut |t| sink.text(t))?
                    }
                }
                let cd_dirs = directories.iter().zip(&belows).skip(first_cd_target);
                for (directory, below) in cd_dirs.filter(|_| relative) {
                    if let Some(below) = below {
                        let buffers = (&mut joined, &mut scratch);
                        bases.each_text_below(below, candidate, resolve, buffers, sink)?;
                        continue;
                    }
                    joined.clear();
                    joined.push_str(directory);
                    joined.push('/');
                    joined.push_str(candidate);
                    bases.each_text(&joined, resolve, &mut scratch, &mut |t| sink.text(t))?;
                }
                // A word the shell would expand as a glob (`cat .e*`): the files it names now.
                // `~/` is the home's (`cat ~/.s*/id_rsa`); an absolute word is expanded once.
                if resolve && candidate.contains(['*', '?', '[']) {
                    let home_word = under_home(candidate, places.home);
                    let word = home_word.as_deref().unwrap_or(candidate);
                    let root = [String::from("/")];
                    let from = if word.starts_with('/') {
                        &root[..]
                    } else {
                        &directories[..]
                    };
                    for directory in from {
                        for path in expand_glob(word, directory, dots()) {
                            bases.each_text(&path, true, &mut scratch, &mut |t| sink.text(t))?;
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

/// The value a word assigns to `PATH` (`PATH=.:$PATH`, `PATH+=:bin`), as a command's leading
/// assignment or an `export`/`declare`/`env` operand.
fn path_assignment(word: &str) -> Option<&str> {
    word.strip_prefix("PATH=")
        .or_else(|| word.strip_prefix("PATH+="))
}
