//! A Bash command as the shell would run it: the segments rules are matched against.
//!
//! [`analyse`] parses a command (with a real shell parser, under caps on length and nesting),
//! lists the simple commands the shell would run — split at `;`, `&&`, `||`, `|`, `|&`, `&` and
//! newlines, and found inside `( )`, `{ }`, `$( )`, backticks, `<( )`/`>( )`, `if`/`while`/
//! `for`/`case` bodies, function bodies, and the literal string of `bash -c`, `sh -c`,
//! `zsh -c`, `dash -c` and `eval` (recursively, depth-bounded) — and turns each into a
//! [`Segment`] ([`segment`]): quotes removed, whitespace collapsed, wrappers peeled.
//!
//! What pack rules rely on (issue 27), each a generous text (deny and ask only):
//!
//! - **feeders** expose the command they run as a segment: `xargs` (every option spelling),
//!   GNU `parallel` (its template is shell text, run per `:::` argument), `find -exec/-execdir/
//!   -ok/-okdir`, `fd -x`, `busybox <applet>`, `env -S/-P/-/-i/-u`;
//! - **inline code** of python, node/deno/bun, ruby, perl, php and awk is read for what it runs
//!   ([`segment::code`]): a shell-out's literal argument is a script, a deletion is the `rm`
//!   it amounts to; a string only printed is not a command;
//! - **options in their normal form** for `rm`, `git`, `chmod`, `chown`, `chgrp` (full long
//!   names, clusters split, abbreviations expanded, git's global options dropped; `rm -rf`
//!   for any recursive forced `rm`);
//! - **deletion and write targets resolved** against the call's `cwd` ([`targets`],
//!   [`analyse_in`]): `@rm-target <recursive|plain|find|write> <cwd|temp|outside|unknown>
//!   <path>`;
//! - **SQL fed to a client** (`echo 'DROP TABLE t' | psql`, `psql <<EOF`) is the client
//!   given it as an argument (`psql -c DROP TABLE t`).
//!
//! A command that does not parse, or exceeds a cap, is *unparseable*: it is never covered by
//! allow rules, and deny rules still see it through a coarse split of its raw text at the
//! shell's operator characters ([`fallback_segments`]), so a parse failure cannot hide a
//! denied command either.

mod parse;
mod places;
pub mod segment;
pub mod targets;

pub use parse::ParseError;
pub use places::{Places, normalise};
pub use segment::Segment;

/// Longest command parsed, in bytes. Longer ones are unparseable (never covered).
pub const MAX_COMMAND_BYTES: usize = 64 * 1024;
/// Deepest nesting of substitutions, subshells, groups, compound commands and `-c` strings.
pub const MAX_DEPTH: usize = 32;
/// Most segments one command may produce.
pub const MAX_SEGMENTS: usize = 1024;

/// The character the automaton engine puts before a segment's text, so that a pattern
/// anchored at the segment's start is a plain literal (`\x01git status`). No normalised
/// segment contains it: one that would is not coverable, and its deny texts carry a space
/// in its place.
pub const SEGMENT_START: char = '\u{1}';

/// What the shell would run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Analysis {
    /// Every simple command, outermost first.
    pub segments: Vec<Segment>,
    /// Why the command could not be parsed (then `segments` come from the fallback split).
    pub unparseable: Option<ParseError>,
    /// A segment prints, searches or runs a subcommand ([`Segment::prints`],
    /// [`Segment::text_operand`]) and the command may make a program run something else
    /// ([`may_redefine_printers`]): a function, an alias, a sourced file.
    pub programs_redefined: bool,
}

impl Analysis {
    /// Why the command runs text the guard cannot read (`curl … | sh`, `eval "$X"`,
    /// `$CMD -rf /`), if it does: the first such segment's reason. Under a rule that governs
    /// the shell, such a command is at least an ask
    /// (the engine's `semantics::at_least_ask`).
    pub fn unresolvable(&self) -> Option<&str> {
        self.segments.iter().find_map(|s| s.opaque.as_deref())
    }

    /// Can allow rules cover this command at all: it parsed, it has at least one segment,
    /// and every segment has strict texts?
    pub fn coverable(&self) -> bool {
        self.unparseable.is_none()
            && self.segments.iter().any(|s| !s.deny_only)
            && self.covered_segments().all(|s| !s.strict.is_empty())
    }

    /// The segments allow rules must cover: all but the deny-only ones.
    pub fn covered_segments(&self) -> impl Iterator<Item = &Segment> {
        self.segments.iter().filter(|s| !s.deny_only)
    }

    /// Every generous text of every segment.
    pub fn generous_texts(&self) -> impl Iterator<Item = &str> + Clone {
        self.segments
            .iter()
            .flat_map(|s| s.generous.iter().map(String::as_str))
    }

    /// The generous texts path rules read in `command` (the text this analysis is of), each
    /// with its word boundaries ([`ReadText`]): every segment's, but the operands of a
    /// command that only prints (`echo`, `printf`) are not read when nothing in `command`
    /// can take what it prints as input — no pipe, no `<`, no command or process
    /// substitution. A printed path opens nothing: `echo "cat ~/.ssh/id_rsa"` and `echo .env
    /// >> .gitignore` read no secret (the latter's redirection, a file written, is still
    /// read), while `echo ~/.ssh/id_rsa | xargs cat` still gives the path to the rules.
    pub fn path_read_texts<'a>(
        &'a self,
        command: &str,
    ) -> impl Iterator<Item = ReadText<'a>> + Clone {
        let redefinable = self.unparseable.is_some() || self.programs_redefined;
        // Any `(`: a command or process substitution reads the output.
        let output_read = has_pipe(command) || command.contains(['<', '`', '(']);
        let redirected = command.contains('>');
        self.segments.iter().flat_map(move |s| {
            // As written only: a wrapper (`env echo`, `nice printf`) looks the program up
            // in `PATH`, where the agent may have put a file of its own.
            let shell_printer = s.prints && !redefinable;
            let text_operand = s.text_operand.as_deref().filter(|_| !redefinable);
            let printer = shell_printer && !output_read;
            // A printer without a redirection reads and writes nothing: no text at all.
            let texts = if printer && !redirected {
                &s.generous[..0]
            } else {
                &s.generous[..]
            };
            let targets_from = s.generous.len() - s.target_texts as usize;
            texts.iter().enumerate().map(move |(i, text)| ReadText {
                text,
                inner: &s.inner_spaces,
                index: i as u32,
                target: i >= targets_from,
                shell_printer,
                text_operand,
                operands_unread: printer,
            })
        })
    }
}

/// One generous text as path rules read it ([`Analysis::path_read_texts`]): its words, split
/// where the shell split them (a quoted `"a b"` is one word), a deletion target text
/// (`@rm-target …`, [`targets`]) as its resolved path alone.
#[derive(Clone, Copy, Debug)]
pub struct ReadText<'a> {
    /// The text.
    pub text: &'a str,
    /// Its segment's [`Segment::inner_spaces`], and the text's index there.
    inner: &'a [(u32, u32)],
    index: u32,
    /// A deletion target text ([`Segment::target_texts`]).
    target: bool,
    /// The shell's own `echo` or `printf`, named bare as written in a command that cannot
    /// redefine them: its operands are printed, never opened (its redirections are). A
    /// `./echo`, a wrapper's `echo` (looked up in `PATH`) or an `echo` the command redefines
    /// may open what it is given.
    pub shell_printer: bool,
    /// The pattern a search program is given or a program's subcommand
    /// ([`Segment::text_operand`]), when the command cannot redefine the program: the first
    /// word after the program equal to it is text, not a file (`grep -q .env .gitignore`
    /// opens `.gitignore` alone, `git status` no `status`).
    pub text_operand: Option<&'a str>,
    /// A [`Self::shell_printer`] whose output nothing reads: its operands name nothing a
    /// path rule need see.
    pub operands_unread: bool,
}

impl<'a> ReadText<'a> {
    /// The words of the text: split at whitespace, but not at whitespace inside a word; a
    /// deletion target text gives its path alone.
    pub fn words(&self) -> Words<'a> {
        let text = self.text;
        if self.target {
            // `@rm-target <kind> <place> <path>`: the path may hold spaces.
            let path = text.splitn(4, ' ').nth(3);
            return Words::Target(path);
        }
        if self.inner.iter().all(|&(t, _)| t != self.index) {
            return Words::Plain(text.split_whitespace());
        }
        Words::Quoted {
            rest: text,
            at: 0,
            inner: self.inner,
            index: self.index,
        }
    }
}

/// The words of a [`ReadText`].
#[derive(Clone, Debug)]
pub enum Words<'a> {
    /// No word holds whitespace: split at every whitespace.
    Plain(std::str::SplitWhitespace<'a>),
    /// Some word holds whitespace (at these offsets of the text).
    Quoted {
        /// What is left to split, from offset `at` of the text.
        rest: &'a str,
        at: usize,
        inner: &'a [(u32, u32)],
        index: u32,
    },
    /// A deletion target text: its path, once.
    Target(Option<&'a str>),
}

impl<'a> Iterator for Words<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        match self {
            Words::Plain(words) => words.next(),
            Words::Target(path) => path.take(),
            Words::Quoted {
                rest,
                at,
                inner,
                index,
            } => {
                let inner_at = |offset: usize| {
                    inner
                        .iter()
                        .any(|&(t, o)| t == *index && o as usize == offset)
                };
                // Skip the separators, then take characters up to the next one.
                let start = rest
                    .char_indices()
                    .find(|&(i, c)| !c.is_whitespace() || inner_at(*at + i))
                    .map(|(i, _)| i)?;
                let len = rest[start..]
                    .char_indices()
                    .find(|&(i, c)| c.is_whitespace() && !inner_at(*at + start + i))
                    .map_or(rest.len() - start, |(i, _)| i);
                let word = &rest[start..start + len];
                *rest = &rest[start + len..];
                *at += start + len;
                Some(word)
            }
        }
    }
}

impl<'a> From<&'a str> for ReadText<'a> {
    /// A text whose words are split at every whitespace (no quoted word, not a printer).
    fn from(text: &'a str) -> ReadText<'a> {
        ReadText {
            text,
            inner: &[],
            index: 0,
            target: false,
            shell_printer: false,
            text_operand: None,
            operands_unread: false,
        }
    }
}

/// May `command` make `echo` or `printf` run something else: a function defined (`echo() {
/// cat "$@"; }`, `echo ( ) …`, `function echo`), an alias, a builtin disabled (`enable -n
/// echo`, then a file named `echo` on `PATH`), a file sourced (`. ./defs.sh`, `source
/// defs.sh`) or code evaluated? Then a printer's operands are read as any command's. Read on
/// the raw text, generously: a `(` with only blanks before the next `)`, the words
/// `function`, `alias`, `enable`, `source`, `eval`, and `.` as a command.
fn may_redefine_printers(command: &str) -> bool {
    command.match_indices('(').any(|(at, _)| {
        command[at + 1..]
            .trim_start_matches([' ', '\t', '\n', '\\'])
            .starts_with(')')
    }) || ["function", "alias", "enable", "source", "eval"]
        .iter()
        .any(|word| command.contains(word))
        || command
            .split([';', '&', '|', '\n', '{', '}'])
            .any(|piece| piece.trim_start().starts_with(". ") || piece.trim() == ".")
}

/// Does `command` hold a `|` that may be a pipe (`|`, `|&`; not the `||` of a list)? Quoted
/// ones count too: a false pipe only keeps a printer's operands read.
fn has_pipe(command: &str) -> bool {
    let bytes = command.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| {
        b == b'|' && (i == 0 || bytes[i - 1] != b'|') && bytes.get(i + 1) != Some(&b'|')
    })
}

/// `word` as one shell word: as is when it holds only characters with no meaning to the
/// shell, else in single quotes (`it's` → `'it'\''s'`).
pub fn quote_word(word: &str) -> String {
    if !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:@%+,~".contains(&b))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// `text` with [`SEGMENT_START`] in front: what segment-anchored automata search.
pub fn anchored(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 1);
    out.push(SEGMENT_START);
    out.push_str(text);
    out
}

/// [`anchored`] into a reused buffer.
pub fn anchor_into(buffer: &mut String, text: &str) {
    buffer.clear();
    buffer.push(SEGMENT_START);
    buffer.push_str(text);
}

/// The programs of `command` that would read commands from a terminal (see
/// [`segment::reads_commands_from_a_terminal`]); none when it does not parse.
pub fn terminal_interpreters(command: &str) -> Vec<String> {
    let Ok(commands) = parse::simple_commands(command) else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for command in &commands {
        if let Some(program) = segment::reads_commands_from_a_terminal(command)
            && !out.iter().any(|p| p == program)
        {
            out.push(program.to_string());
        }
    }
    out
}

/// Parse `command` and list its segments, its deletion targets read in no known place
/// ([`analyse_in`]).
pub fn analyse(command: &str) -> Analysis {
    analyse_in(command, crate::Places::default())
}

/// Parse `command` and list its segments; each `rm` and deleting `find` also gets its
/// targets resolved in `places` ([`targets`]: `@rm-target …` texts).
pub fn analyse_in(command: &str, places: crate::Places) -> Analysis {
    let mut analysis = match parse::simple_commands(command) {
        Ok(commands) => {
            let mut segments: Vec<Segment> = commands.iter().map(segment::segment_of).collect();
            for (segment, texts) in segments
                .iter_mut()
                .zip(targets::target_texts(&commands, places))
            {
                segment.target_texts = texts.len() as u32;
                segment.generous.extend(texts);
            }
            // A search program is a file looked up in `PATH`: where the command changes
            // `PATH` or the shell's table of program paths (`PATH=. grep …`, `hash -p ./x
            // grep`), its pattern may be handed to a file of the agent's.
            // Nor is a printer then surely the shell's own (`enable -n test; PATH=.:$PATH test
            // -f .env`): `echo`, `printf` and `test` lose their trust (only a false alarm more).
            if command.contains("PATH") || command.contains("hash") {
                segments.iter_mut().for_each(|s| {
                    s.text_operand = None;
                    s.prints = false;
                });
            }
            let programs_redefined = segments
                .iter()
                .any(|s| s.prints || s.text_operand.is_some())
                && may_redefine_printers(command);
            Analysis {
                segments,
                unparseable: None,
                programs_redefined,
            }
        }
        Err(why) => Analysis {
            segments: fallback_segments(command, places),
            unparseable: Some(why),
            programs_redefined: true,
        },
    };
    for segment in &mut analysis.segments {
        if segment.deny_only {
            segment.strict.clear();
        }
        // The sentinel must not occur inside a segment: it would make a pattern anchored at
        // the segment's start match in the middle.
        if segment
            .generous
            .iter()
            .chain(&segment.strict)
            .any(|t| t.contains(SEGMENT_START))
        {
            segment.strict.clear();
            for text in &mut segment.generous {
                *text = text.replace(SEGMENT_START, " ");
            }
        }
    }
    // Claude grants an exact entry (`Bash(mkdir made)`) only when it is the whole command as
    // written (measured on 2.1.328: not `mkdir  made`, nor `mkdir made` inside a compound).
    // A strict text that is not the whole trimmed command gets [`NOT_WHOLE`] after a space: a
    // prefix (`mkdir:*`, `mkdir *`) or a pattern ending in `*` still covers it, an exact one no
    // longer does.
    let whole = command.trim();
    for segment in &mut analysis.segments {
        for text in &mut segment.strict {
            if text != whole {
                text.push(' ');
                text.push(NOT_WHOLE);
            }
        }
    }
    analysis
}

/// Ends the strict text of a segment that is not the whole command ([`analyse`]).
pub const NOT_WHOLE: char = '\u{2}';

/// The segments of a command that did not parse: its raw text split at every shell operator
/// character (`;`, `&`, `|`, `(`, `)`, `{`, `}`, `` ` ``, `<`, `>`, newlines), each piece with
/// quote characters and backslashes removed and whitespace collapsed, wrappers peeled.
/// Coarse on purpose: these feed deny rules only (an unparseable command is never covered).
/// No cap: a command over the parser's caps (length, nesting, segment count) must not hide
/// its tail from a deny. Equal pieces are kept once, so padding (`a;a;a;…`) costs nothing.
/// Each piece's deletion targets are resolved in `places` as a parsed command's are
/// ([`targets`]), so a rule that reads where a deletion lands sees these too.
pub fn fallback_segments(command: &str, places: crate::Places) -> Vec<Segment> {
    let mut seen = std::collections::HashSet::new();
    let commands: Vec<segment::SimpleCommand> = command
        .split(|c: char| {
            matches!(
                c,
                ';' | '&' | '|' | '(' | ')' | '{' | '}' | '`' | '\n' | '<' | '>'
            )
        })
        .filter_map(|piece| {
            let unquoted: String = piece
                .chars()
                .filter(|c| !matches!(c, '\'' | '"' | '\\'))
                .collect();
            let words: Vec<segment::Word> = unquoted
                .split_whitespace()
                .map(|w| segment::Word {
                    text: std::borrow::Cow::Owned(w.to_string()),
                    literal: false,
                    quoted: false,
                })
                .collect();
            if words.is_empty() {
                return None;
            }
            let key: Vec<&str> = words.iter().map(|w| w.text.as_ref()).collect();
            if !seen.insert(key.join(" ")) {
                return None;
            }
            Some(segment::SimpleCommand {
                words,
                unresolved: true,
                ..Default::default()
            })
        })
        .collect();
    commands
        .iter()
        .zip(targets::target_texts(&commands, places))
        .map(|(command, targets)| {
            let mut segment = segment::segment_of(command);
            segment.target_texts = targets.len() as u32;
            segment.generous.extend(targets);
            segment.strict.clear();
            // An unparseable command is seen by denies through this split; it is not
            // called opaque (its pieces are not what runs).
            segment.opaque = None;
            segment
        })
        .collect()
}

#[cfg(test)]
mod feeder_tests;

#[cfg(test)]
mod tests;
