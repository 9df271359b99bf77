//! What feeders hand on: GNU parallel's command template and arguments, SQL fed to a
//! client's stdin, an interpreter's inline code argument.

use super::inner::Inner;
use super::wrappers::{WRAPPERS, is_parallel_separator, peel_stages, wrapped_start};
use super::{SimpleCommand, Word, basename};

/// SQL clients that run the SQL their stdin carries: the option that gives them SQL as an
/// argument (`None`: sqlite3 takes it as the operand after the database), and the options
/// that give them SQL (or a file of it) instead of stdin.
const SQL_CLIENTS: &[(&str, Option<&str>, &[&str])] = &[
    ("psql", Some("-c"), &["-c", "-f", "--command", "--file"]),
    ("mysql", Some("-e"), &["-e", "--execute"]),
    ("mariadb", Some("-e"), &["-e", "--execute"]),
    ("sqlite3", None, &["-init", "-cmd"]),
];

/// The SQL client `stage` runs when it reads its SQL from stdin (no option giving SQL, and
/// for sqlite3 no SQL operand after the database).
fn sql_client(
    stage: &[&str],
) -> Option<&'static (&'static str, Option<&'static str>, &'static [&'static str])> {
    let client = SQL_CLIENTS
        .iter()
        .find(|(name, _, _)| stage.first().is_some_and(|p| basename(p) == *name))?;
    let gives_sql = stage[1..].iter().any(|w| {
        client.2.iter().any(|option| {
            w == option
                || (option.starts_with("--") && w.starts_with(&format!("{option}=")))
                || (!option.starts_with("--")
                    && option.len() == 2
                    && w.len() > 2
                    && w.starts_with(option)
                    && !w.starts_with("--"))
        })
    });
    let operands = stage[1..].iter().filter(|w| !w.starts_with('-')).count();
    (!gives_sql && (client.1.is_some() || operands <= 1)).then_some(client)
}

/// Does `stage` run a SQL client reading its SQL from stdin?
pub(super) fn sql_reads_stdin(stage: &[&str]) -> bool {
    sql_client(stage).is_some()
}

/// The segment a SQL client fed `sql` on its stdin stands for: the client given it as an
/// argument (`echo 'DROP TABLE t' | psql db` → `psql db -c 'DROP TABLE t'`, `mysql -e`,
/// `sqlite3 db 'SQL'`), whitespace runs in the SQL collapsed to one space. Seen by deny and
/// ask only. `None` when `command` is not such a client.
pub fn sql_segment(command: &SimpleCommand, sql: &str) -> Option<SimpleCommand<'static>> {
    let words: Vec<&str> = command.words.iter().map(|w| w.text.as_ref()).collect();
    let (stage, (_, flag, _)) = peel_stages(&words)
        .into_iter()
        .find_map(|stage| sql_client(stage).map(|client| (stage, client)))?;
    let at = words.len() - stage.len();
    let mut out: Vec<Word<'static>> = command.words[at..]
        .iter()
        .cloned()
        .map(Word::into_owned)
        .collect();
    let word = |text: String| Word {
        text: std::borrow::Cow::Owned(text),
        literal: true,
        quoted: false,
    };
    if let Some(flag) = flag {
        out.push(word(flag.to_string()));
    }
    out.push(word(sql.split_whitespace().collect::<Vec<_>>().join(" ")));
    Some(SimpleCommand {
        words: out,
        deny_only: true,
        ..Default::default()
    })
}

/// The inline code `stage` (an interpreter and its arguments) runs: `python -c CODE`,
/// `perl -e CODE` (also in a cluster, `-ne`, `-lane`, or attached, `-e'…'`), `ruby -e`,
/// `node -e/-p/--eval/--print[=]CODE`, `bun -e`, `deno eval CODE`, `php -r CODE`,
/// `lua -e CODE`, awk's program (its first operand, after `-v var=x`, `-F sep`; none with
/// `-f file`).
pub(super) fn inline_code<'s>(program: &str, stage: &[&'s str]) -> Option<&'s str> {
    let name = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    let next = |i: usize| stage.get(i + 1).copied();
    for (i, word) in stage.iter().enumerate().skip(1) {
        match name {
            "python" | "pypy" => {
                if *word == "-c" {
                    return next(i);
                }
                if let Some(code) = word.strip_prefix("-c").filter(|c| !c.is_empty()) {
                    return Some(code);
                }
            }
            "perl" | "ruby" => {
                // The letters giving the code, and those whose value is the rest of the
                // word (`-MFile::Path`, `-i.bak`, `-rjson`: no code in it).
                let (code_letters, value_letters) = if name == "perl" {
                    ("eE", "MmIixCdD0l")
                } else {
                    ("e", "IrCEFixKTW0l")
                };
                if let Some(cluster) = word.strip_prefix('-').filter(|w| !w.starts_with('-')) {
                    for (at, c) in cluster.char_indices() {
                        if code_letters.contains(c) {
                            let rest = &cluster[at + 1..];
                            return if rest.is_empty() { next(i) } else { Some(rest) };
                        }
                        // `-l` takes optional octal digits: `-lane` is -l -a -n -e.
                        if c == 'l' {
                            if cluster[at + 1..].starts_with(|d: char| d.is_ascii_digit()) {
                                break;
                            }
                            continue;
                        }
                        if value_letters.contains(c) {
                            break;
                        }
                    }
                }
            }
            "node" | "nodejs" | "bun" | "deno" => {
                if matches!(*word, "-e" | "-p" | "-pe" | "--eval" | "--print")
                    || (name == "deno" && i == 1 && *word == "eval")
                {
                    return next(i);
                }
                if let Some(code) = word
                    .strip_prefix("--eval=")
                    .or_else(|| word.strip_prefix("--print="))
                {
                    return Some(code);
                }
            }
            "php" if *word == "-r" => return next(i),
            "lua" | "luajit" if *word == "-e" => return next(i),
            "Rscript" | "R" if *word == "-e" => return next(i),
            "julia" if matches!(*word, "-e" | "-E" | "--eval" | "--print") => return next(i),
            _ => {}
        }
    }
    if matches!(name, "awk" | "gawk" | "mawk" | "nawk") {
        let mut i = 1;
        while i < stage.len() {
            let word = stage[i];
            if matches!(word, "-f" | "--file") || word.starts_with("-f") && word.len() > 2 {
                return None;
            }
            if word == "--" {
                return next(i);
            }
            if !word.starts_with('-') || word == "-" {
                return Some(word);
            }
            i += if matches!(word, "-v" | "-F" | "--assign" | "--field-separator") {
                2
            } else {
                1
            };
        }
    }
    None
}

/// Where GNU parallel's command template starts in `stage` and where it ends (the first
/// `:::`-like separator or the end); `None` when there is no template.
pub(super) fn parallel_template(stage: &[&str]) -> Option<(usize, usize)> {
    let wrapper = WRAPPERS.iter().find(|w| w.name == "parallel")?;
    let start = wrapped_start(wrapper, stage)?;
    let end = (start..stage.len())
        .find(|&i| is_parallel_separator(stage[i]))
        .unwrap_or(stage.len());
    (end > start).then_some((start, end))
}

/// Most `:::` arguments substituted into a parallel template, each a script of its own.
const MAX_PARALLEL_ARGUMENTS: usize = 16;

/// GNU parallel runs its command template through a shell, once per argument: the template
/// (its words joined by spaces, as parallel joins them) is a script, and so is the template
/// with each literal `:::` argument put at `{}` (or appended when there is no `{}`), quoted
/// as parallel quotes it. With no template, each `:::` argument is a command of its own.
/// `literal` says which words of `stage` are literal.
pub(super) fn parallel_scripts(stage: &[&str], literal: &[bool], inner: &mut Inner) {
    let separator = stage.iter().position(|w| is_parallel_separator(w));
    let mut arguments: Vec<&str> = Vec::new();
    let mut readable = true;
    if let Some(first) = separator {
        let mut from_file = false;
        for (i, word) in stage.iter().enumerate().skip(first) {
            if is_parallel_separator(word) {
                from_file = word.starts_with("::::");
                continue;
            }
            if from_file || !literal[i] {
                readable = false;
            } else if arguments.len() < MAX_PARALLEL_ARGUMENTS {
                arguments.push(word);
            }
        }
    }
    let unreadable = |inner: &mut Inner, what: &str| {
        inner.unresolved = true;
        inner
            .opaque
            .get_or_insert_with(|| format!("`parallel` runs {what} the guard cannot read"));
    };
    match parallel_template(stage) {
        Some((start, end)) => {
            if !(start..end).all(|i| literal[i]) {
                unreadable(inner, "a command template");
                return;
            }
            let template = stage[start..end].join(" ");
            for argument in &arguments {
                let quoted = crate::quote_word(argument);
                let script = if template.contains("{}") {
                    template.replace("{}", &quoted)
                } else {
                    format!("{template} {quoted}")
                };
                inner.scripts.push(script);
            }
            inner.scripts.push(template);
        }
        None if separator.is_some() => {
            if !readable {
                unreadable(inner, "commands");
            }
            inner
                .scripts
                .extend(arguments.iter().map(|a| a.to_string()));
        }
        // `parallel -a cmds.txt`: commands from a file.
        None if stage.iter().any(|w| {
            matches!(*w, "-a" | "--arg-file") || w.starts_with("--arg-file=") || w.starts_with("-a")
        }) =>
        {
            unreadable(inner, "commands from a file")
        }
        None => {}
    }
}
