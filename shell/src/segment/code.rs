//! Inline code read for what it runs: the shell commands an interpreter's code string hands to
//! a shell (`os.system("…")`, `child_process.execSync("…")`, `` `…` `` in Ruby and Perl,
//! `system(…)`, `%x(…)`, `qx{…}`, Lua's `os.execute(…)`), the files it deletes (`shutil.rmtree(p)`,
//! `fs.rmSync(p, {recursive: true})`, `FileUtils.rm_rf(p)`, perl `unlink`/`rmtree`) and the
//! files it writes (`open(p, 'w')`, `fs.writeFileSync(p, …)`, `File.write(p, …)`,
//! `file_put_contents(p, …)`): a write as the redirection that does the same, `: > 'p'`
//! (`: >> 'p'` for an append or an in-place update), so the rules on a file written by `>`
//! (the system's files, shell startup files, the guard's own) read it too.
//!
//! [`shell_texts`] returns shell text for each: a shell-out's literal string argument as is
//! (a list argument, `["rm", "-rf", p]`, as its words quoted and joined), a deletion as the
//! equivalent command, `rm -rf 'p'` when it is recursive, `rm 'p'` or `rmdir 'p'` when not.
//! The caller parses each as a script whose commands are seen by deny and ask only, so the
//! `rm` rules apply to a path deleted from Python as to one deleted by `rm`.
//!
//! A string that is only printed or assigned (`print('rm -rf /')`) is not a command, and is
//! not returned. When the code cannot be read that precisely — a shell-out or deletion whose
//! argument is not a literal (`os.system(cmd)`), or code that builds code (`eval`, `exec`,
//! `getattr`, `__import__`, awk's `|` pipes) — every string literal holding a space is
//! returned instead, as the engine did before it read calls: never less than that.

use crate::quote_word;

/// The language of an interpreter's inline code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    Python,
    /// Node, Deno, Bun.
    JavaScript,
    Ruby,
    Perl,
    Php,
    Awk,
    Lua,
    /// `Rscript -e`, `R -e`.
    R,
    Julia,
}

impl Language {
    /// The language `program` (a basename) interprets, if it is one the engine reads.
    pub fn of(program: &str) -> Option<Language> {
        let name = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
        Some(match name {
            "python" | "pypy" => Language::Python,
            "node" | "nodejs" | "deno" | "bun" => Language::JavaScript,
            "ruby" => Language::Ruby,
            "perl" => Language::Perl,
            "php" => Language::Php,
            "awk" | "gawk" | "mawk" | "nawk" => Language::Awk,
            "lua" | "luajit" => Language::Lua,
            "Rscript" | "R" => Language::R,
            "julia" => Language::Julia,
            _ => return None,
        })
    }
}

/// What a call does with its first argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Effect {
    /// Shell text (a list: a command's words).
    Shell,
    /// A program, then (maybe) a list of its arguments: `execFileSync('rm', ['-rf', p])`,
    /// `new Deno.Command('rm', {args: ['-rf', p]})`, R's `system2('rm', c('-rf', p))`.
    ProgramThenArgs,
    /// A program, then the list of its whole argv, its name first: `os.execvp('rm', ['rm',
    /// '-rf', p])`.
    ProgramThenArgv,
    /// Deletes a file or an empty directory.
    Delete,
    /// Deletes a directory tree.
    DeleteTree,
    /// Deletes a tree when its options say `recursive` (`fs.rmSync(p, {recursive: true})`).
    DeleteTreeIfRecursive,
    /// Removes an empty directory.
    Rmdir,
}

/// The calls read per language: a name (matched at an identifier boundary) and its effect.
fn calls(language: Language) -> &'static [(&'static str, Effect)] {
    use Effect::*;
    match language {
        Language::Python => &[
            ("os.system", Shell),
            ("os.popen", Shell),
            ("subprocess.run", Shell),
            ("subprocess.call", Shell),
            ("subprocess.check_call", Shell),
            ("subprocess.check_output", Shell),
            ("subprocess.Popen", Shell),
            ("subprocess.getoutput", Shell),
            ("subprocess.getstatusoutput", Shell),
            ("commands.getoutput", Shell),
            ("shutil.rmtree", DeleteTree),
            ("os.remove", Delete),
            ("os.unlink", Delete),
            ("os.rmdir", Rmdir),
            ("os.removedirs", Rmdir),
            ("os.execv", ProgramThenArgv),
            ("os.execve", ProgramThenArgv),
            ("os.execvp", ProgramThenArgv),
            ("os.execvpe", ProgramThenArgv),
            ("os.posix_spawn", ProgramThenArgv),
            ("os.posix_spawnp", ProgramThenArgv),
        ],
        Language::JavaScript => &[
            ("execSync", Shell),
            ("exec", Shell),
            ("spawnSync", ProgramThenArgs),
            ("spawn", ProgramThenArgs),
            ("execFileSync", ProgramThenArgs),
            ("execFile", ProgramThenArgs),
            ("Deno.Command", ProgramThenArgs),
            ("Bun.spawnSync", Shell),
            ("Bun.spawn", Shell),
            ("rmSync", DeleteTreeIfRecursive),
            ("rmdirSync", DeleteTreeIfRecursive),
            ("unlinkSync", Delete),
            ("fs.rm", DeleteTreeIfRecursive),
            ("fs.rmdir", DeleteTreeIfRecursive),
            ("fs.unlink", Delete),
            ("promises.rm", DeleteTreeIfRecursive),
            ("promises.rmdir", DeleteTreeIfRecursive),
            ("promises.unlink", Delete),
            ("Deno.remove", DeleteTreeIfRecursive),
            ("Deno.removeSync", DeleteTreeIfRecursive),
            ("rimraf", DeleteTree),
            ("rimrafSync", DeleteTree),
        ],
        Language::Ruby => &[
            ("system", Shell),
            ("exec", Shell),
            ("spawn", Shell),
            ("IO.popen", Shell),
            ("Open3.capture2", Shell),
            ("Open3.capture2e", Shell),
            ("Open3.capture3", Shell),
            ("Open3.popen2", Shell),
            ("Open3.popen3", Shell),
            // `include FileUtils` brings them in bare.
            ("rm_rf", DeleteTree),
            ("rm_r", DeleteTree),
            ("FileUtils.rm_rf", DeleteTree),
            ("FileUtils.rm_r", DeleteTree),
            ("FileUtils.remove_dir", DeleteTree),
            ("FileUtils.remove_entry", DeleteTree),
            ("FileUtils.remove_entry_secure", DeleteTree),
            ("FileUtils.rmtree", DeleteTree),
            ("FileUtils.rm_f", Delete),
            ("FileUtils.rm", Delete),
            ("FileUtils.remove", Delete),
            ("FileUtils.rmdir", Rmdir),
            ("File.delete", Delete),
            ("File.unlink", Delete),
            ("Dir.rmdir", Rmdir),
            ("Dir.delete", Rmdir),
            ("Dir.unlink", Rmdir),
        ],
        Language::Perl => &[
            ("system", Shell),
            ("exec", Shell),
            ("unlink", Delete),
            ("rmtree", DeleteTree),
            ("remove_tree", DeleteTree),
            ("rmdir", Rmdir),
        ],
        Language::Php => &[
            ("system", Shell),
            ("exec", Shell),
            ("shell_exec", Shell),
            ("passthru", Shell),
            ("popen", Shell),
            ("proc_open", Shell),
            ("unlink", Delete),
            ("rmdir", Rmdir),
        ],
        Language::Awk => &[("system", Shell)],
        Language::Lua => &[
            ("os.execute", Shell),
            ("io.popen", Shell),
            ("os.remove", Delete),
        ],
        Language::R => &[
            ("system", Shell),
            ("system2", ProgramThenArgs),
            ("unlink", DeleteTreeIfRecursive),
            ("file.remove", Delete),
        ],
        // Julia runs backquoted commands (`run(`rm -rf x`)`), read as Ruby's are.
        Language::Julia => &[("rm", DeleteTreeIfRecursive)],
    }
}

/// How a call writes the file its first argument names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Write {
    /// Empties it first (or creates it): `writeFileSync`, `File.write`.
    Truncates,
    /// Adds to it: `appendFileSync`.
    Appends,
    /// As its mode argument says (`open(p, 'w')`, `File.open(p, 'a')`): nothing when the mode
    /// reads only, or is not a literal.
    ByMode,
}

/// The calls that write a file, per language (matched as [`calls`] are).
fn writes(language: Language) -> &'static [(&'static str, Write)] {
    use Write::*;
    match language {
        // The builtin `open` (and `io.open`, `os.open` with a literal mode never given).
        Language::Python => &[("open", ByMode)],
        Language::JavaScript => &[
            ("writeFileSync", Truncates),
            ("writeFile", Truncates),
            ("appendFileSync", Appends),
            ("appendFile", Appends),
            ("createWriteStream", Truncates),
            ("Deno.writeTextFileSync", Truncates),
            ("Deno.writeTextFile", Truncates),
            ("Deno.writeFileSync", Truncates),
            ("Deno.writeFile", Truncates),
            ("Bun.write", Truncates),
        ],
        Language::Ruby => &[
            ("File.write", Truncates),
            ("File.binwrite", Truncates),
            ("IO.write", Truncates),
            ("IO.binwrite", Truncates),
            ("File.open", ByMode),
        ],
        Language::Php => &[("file_put_contents", Truncates), ("fopen", ByMode)],
        Language::Lua => &[("io.open", ByMode)],
        _ => &[],
    }
}

/// The redirection that writes as the call whose name ends where `rest` starts: `Ok(None)`
/// when it writes nothing (a read mode), `Err(())` when it cannot be read (a path that is no
/// literal, for a call that writes).
fn read_write(language: Language, rest: &str, write: Write) -> Result<Option<String>, ()> {
    let Some(args) = rest.trim_start().strip_prefix('(') else {
        // Not called here (`w = fs.writeFileSync`): the write happens out of sight. Python's
        // `open` is also a word of the code's strings and comments (`print('cannot open')`).
        return if write == Write::ByMode {
            Ok(None)
        } else {
            Err(())
        };
    };
    let path = literal(language, args.trim_start());
    let appends = match write {
        Write::Truncates => {
            // PHP's `file_put_contents(p, s, FILE_APPEND)`.
            language == Language::Php
                && args
                    .split(')')
                    .next()
                    .is_some_and(|a| a.contains("FILE_APPEND"))
        }
        Write::Appends => true,
        Write::ByMode => {
            let after = match &path {
                Some((_, after)) => *after,
                // The path is no literal: what the mode says decides whether that matters.
                None => args.split_once(',').map_or("", |(_, after)| after),
            };
            let after = after.trim_start();
            let after = after.strip_prefix(',').unwrap_or(after).trim_start();
            let after = after.strip_prefix("mode").map_or(after, |m| {
                m.trim_start().trim_start_matches(['=', ':']).trim_start()
            });
            let Some((mode, _)) = literal(language, after) else {
                return Ok(None);
            };
            if mode.contains(['w', 'x']) {
                false
            } else if mode.contains(['a', '+']) {
                true
            } else {
                return Ok(None);
            }
        }
    };
    let Some((path, _)) = path else {
        return Err(());
    };
    let op = if appends { ">>" } else { ">" };
    Ok(Some(format!(": {op} {}", quote_word(&path))))
}

/// Names that build or run code the reader cannot follow: their presence makes the code
/// unreadable (every string literal is returned).
fn dynamic(language: Language) -> &'static [&'static str] {
    match language {
        Language::Python => &[
            "eval",
            "exec",
            "getattr",
            "__import__",
            "importlib",
            "compile",
            "globals",
            "vars",
            "pty",
            "os.exec",
            "os.spawn",
            "os.posix_spawn",
            "ctypes",
            "__builtins__",
        ],
        Language::JavaScript => &["eval", "Function", "require(", "import(", "vm.", "binding"],
        Language::Ruby => &[
            "eval",
            "send",
            "public_send",
            "instance_eval",
            "Kernel",
            "method",
        ],
        Language::Perl => &["eval", "open", "require", "do"],
        Language::Php => &[
            "eval",
            "assert",
            "call_user_func",
            "create_function",
            "pcntl_exec",
        ],
        Language::Awk => &["|"],
        Language::Lua => &["load", "loadstring", "dofile", "require", "debug."],
        Language::R => &["eval", "parse", "do.call", "source", "get("],
        Language::Julia => &["eval", "Meta.parse", "include", "ccall"],
    }
}

/// The shell texts `code` (in `language`) runs or stands for (module docs).
pub fn shell_texts(language: Language, code: &str) -> Vec<String> {
    let mut out = Vec::new();
    // Ruby, Perl and PHP run backquoted text (and `%x(…)`, `qx{…}`) through a shell.
    if matches!(language, Language::Ruby | Language::Perl | Language::Php) {
        out.extend(backquoted(language, code));
    }
    // Julia's command literals: run(`rm -rf x`).
    if language == Language::Julia {
        out.extend(between(code, "`", '`'));
    }
    // zx's and Bun's shell: $`rm -rf x`.
    if language == Language::JavaScript {
        out.extend(between(code, "$`", '`'));
    }
    let mut unreadable = dynamic(language).iter().any(|name| {
        if name.ends_with(['(', '.']) || *name == "|" {
            code.contains(name)
        } else {
            find_name(code, name, 0).is_some()
        }
    });
    // `require('child_process').execSync(…)` is how Node code reaches a shell: `require` of a
    // literal module is not dynamic.
    if language == Language::JavaScript && unreadable {
        unreadable = ["eval", "Function", "import(", "vm.", "binding"]
            .iter()
            .any(|name| code.contains(name))
            || code.match_indices("require(").any(|(at, _)| {
                let after = code[at + "require(".len()..].trim_start();
                !after.starts_with(['\'', '"', '`'])
            });
    }
    // Names brought in under another name (`from os import system`, `import os as o`,
    // PHP's `$f = 'system'; $f(…)`): the calls are out of sight.
    unreadable |= match language {
        Language::Python => {
            code.contains(" as ")
                || ["os", "subprocess", "shutil", "pty", "posix", "commands"]
                    .iter()
                    .any(|module| code.contains(&format!("from {module} ")))
        }
        Language::Php => variable_call(code),
        _ => false,
    };
    for &(name, effect) in calls(language) {
        let mut from = 0;
        while let Some(at) = find_name(code, name, from) {
            from = at + name.len();
            // Julia's `rm` is also a word of the commands its strings print
            // (`println("rm -rf /")`): a name opening a string is no call.
            if language == Language::Julia && code[..at].ends_with(['"', '`']) {
                continue;
            }
            match read_call(language, &code[from..], effect) {
                Some(text) => out.push(text),
                None => unreadable = true,
            }
        }
    }
    for &(name, write) in writes(language) {
        let mut from = 0;
        while let Some(at) = find_name(code, name, from) {
            from = at + name.len();
            match read_write(language, &code[from..], write) {
                Ok(Some(text)) => out.push(text),
                Ok(None) => {}
                Err(()) => unreadable = true,
            }
        }
    }
    // pathlib: `Path('x').unlink()`, `Path('x').rmdir()`, `Path('x').write_text(…)`.
    if language == Language::Python {
        let mut from = 0;
        while let Some(at) = code[from..].find("Path(").map(|i| i + from) {
            from = at + "Path(".len();
            let rest = code[from..].trim_start();
            let Some((path, after)) = literal(language, rest) else {
                continue;
            };
            let after = after.trim_start();
            let Some(after) = after.strip_prefix(')') else {
                continue;
            };
            if after.starts_with(".unlink(") {
                out.push(format!("rm {}", quote_word(&path)));
            } else if after.starts_with(".rmdir(") {
                out.push(format!("rmdir {}", quote_word(&path)));
            } else if after.starts_with(".write_text(") || after.starts_with(".write_bytes(") {
                out.push(format!(": > {}", quote_word(&path)));
            }
        }
    }
    if unreadable {
        out.extend(super::string_literals(code));
    }
    out
}

/// Does PHP `code` call a function through a variable (`$f(…)`)?
fn variable_call(code: &str) -> bool {
    code.match_indices('$').any(|(at, _)| {
        let rest = &code[at + 1..];
        let name = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        name > 0 && rest[name..].trim_start().starts_with('(')
    })
}

/// Where `name` occurs in `code` from `from` on at an identifier boundary (not inside a
/// longer name: `confirm(` holds no `rm(`; `fs.rm` is found in `require('fs').rm` only as
/// `.rm`, which the caller's names do not need).
fn find_name(code: &str, name: &str, from: usize) -> Option<usize> {
    let is_ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    let mut start = from;
    while let Some(i) = code[start..].find(name).map(|i| i + start) {
        let before = code[..i].chars().next_back();
        let after = code[i + name.len()..].chars().next();
        let name_starts_ident = name.starts_with(is_ident);
        let name_ends_ident = name.ends_with(is_ident);
        let joined_before = name_starts_ident && before.is_some_and(is_ident);
        let joined_after = name_ends_ident && after.is_some_and(is_ident);
        if !joined_before && !joined_after {
            return Some(i);
        }
        start = i + name.len();
    }
    None
}

/// Read the call whose name ends where `rest` starts: the shell text it stands for; `None`
/// when it cannot be read — its argument is not a literal, or the name is not called here
/// (`run = os.system`, `system $cmd`, `{execSync: run}`: the call happens out of sight).
fn read_call(language: Language, rest: &str, effect: Effect) -> Option<String> {
    let trimmed = rest.trim_start();
    let args = match trimmed.strip_prefix('(') {
        Some(args) => args.trim_start(),
        // Perl and Ruby call without parentheses: `system "rm -rf x"`, `unlink "x"`.
        None if matches!(language, Language::Perl | Language::Ruby)
            && trimmed.starts_with(['\'', '"']) =>
        {
            trimmed
        }
        None => return None,
    };
    // Ruby's `system("env", …)` and Node's `spawn(cmd, args)` take more than one argument;
    // the first is what matters, the rest are read where they are words.
    let (first, after) = argument(language, args)?;
    let after = after.trim_start();
    let text = match effect {
        Effect::ProgramThenArgs | Effect::ProgramThenArgv => {
            // The program unquoted: `spawn('rm -rf x', {shell: true})` runs a shell.
            let mut text = first;
            if let Some(list) = after.strip_prefix(',').and_then(argument_list) {
                let (joined, _) = argument(language, list)?;
                // An argv names the program again first (argv[0]); its arguments follow.
                let arguments = match effect {
                    Effect::ProgramThenArgv => joined.split_once(' ').map_or("", |(_, a)| a),
                    _ => &joined,
                };
                if !arguments.is_empty() {
                    text.push(' ');
                    text.push_str(arguments);
                }
            }
            text
        }
        // Perl's and Ruby's `system "rm", "-rf", "/"`, `exec(…)`: a program and its arguments
        // as a list, no shell between.
        Effect::Shell
            if matches!(language, Language::Perl | Language::Ruby) && after.starts_with(',') =>
        {
            let mut words = vec![first];
            let mut rest = after;
            while let Some(next) = rest.strip_prefix(',') {
                let (word, after) = literal(language, next.trim_start())?;
                words.push(quote_word(&word));
                rest = after.trim_start();
            }
            if !ends_argument(rest) {
                return None;
            }
            words.join(" ")
        }
        Effect::Shell => first,
        Effect::Delete => format!("rm {}", quote_word(&first)),
        Effect::Rmdir => format!("rmdir {}", quote_word(&first)),
        Effect::DeleteTree => format!("rm -rf {}", quote_word(&first)),
        Effect::DeleteTreeIfRecursive => {
            let options = after.split(')').next().unwrap_or("").to_ascii_lowercase();
            // `{recursive: true}`, `recursive = TRUE` (R), `; recursive=true` (Julia).
            if options.contains("recursive") && options.contains("true") {
                format!("rm -rf {}", quote_word(&first))
            } else {
                format!("rm {}", quote_word(&first))
            }
        }
    };
    Some(text)
}

/// The list of arguments that follows a program in a call, if it is one: `['-rf', p]`, R's
/// `c('-rf', p)` (read as `['-rf', p]`), or the `args` of an options object (`{args: […]}`).
fn argument_list(after: &str) -> Option<&str> {
    let rest = after.trim_start();
    if rest.starts_with('[') || rest.starts_with("c(") {
        return Some(rest);
    }
    let object = rest.strip_prefix('{')?;
    let at = find_name(object, "args", 0)?;
    let list = object[at + "args".len()..].trim_start().strip_prefix(':')?;
    Some(list.trim_start()).filter(|l| l.starts_with('['))
}

/// A call's first argument: a string literal (its text) or a list of them (its words, each
/// quoted as one shell word, joined), and the code after it; `None` for anything else (a
/// variable, an expression: `'rm -rf x'.split()`).
fn argument(language: Language, args: &str) -> Option<(String, &str)> {
    let list = match args.strip_prefix('[') {
        Some(rest) => Some((rest, ']')),
        None if language == Language::R => args.strip_prefix("c(").map(|rest| (rest, ')')),
        None => None,
    };
    if let Some((mut rest, close)) = list {
        let mut words = Vec::new();
        loop {
            rest = rest.trim_start();
            if let Some(after) = rest.strip_prefix(close) {
                return ends_argument(after).then(|| (words.join(" "), after));
            }
            let (word, after) = literal(language, rest)?;
            words.push(quote_word(&word));
            rest = after.trim_start();
            rest = rest.strip_prefix(',').unwrap_or(rest);
        }
    }
    let (text, after) = literal(language, args)?;
    ends_argument(after).then_some((text, after))
}

/// Does the code after an argument end it (`,`, `)`, `;`, the end), rather than continue an
/// expression (`'…'.split()`, `'…' + x`, `'…' % x`)?
fn ends_argument(after: &str) -> bool {
    let after = after.trim_start();
    after.is_empty() || after.starts_with([',', ')', ';', '\n', '}'])
}

/// A string literal at the start of `code` (Python's `r`/`b`/`u`/`f` prefixes and triple
/// quotes, JavaScript's template strings, escapes `\"`, `\'`, `\\` resolved): its text and
/// the code after it.
fn literal(language: Language, code: &str) -> Option<(String, &str)> {
    let mut code = code;
    if language == Language::Python {
        let prefix = code
            .find(['\'', '"'])
            .filter(|&i| i <= 2 && code[..i].bytes().all(|b| b"rRbBuUfF".contains(&b)))?;
        code = &code[prefix..];
    }
    let quote = code
        .chars()
        .next()
        .filter(|c| matches!(c, '\'' | '"' | '`'))?;
    if quote == '`' && language != Language::JavaScript {
        return None;
    }
    let triple: String = std::iter::repeat_n(quote, 3).collect();
    let (body, close) = if language == Language::Python && code.starts_with(&triple) {
        (&code[3..], triple.as_str())
    } else {
        (&code[1..], &code[..1])
    };
    let mut text = String::new();
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        if body[i..].starts_with(close) {
            return Some((text, &body[i + close.len()..]));
        }
        if c == '\\' {
            match chars.next() {
                Some((_, e @ ('\'' | '"' | '\\' | '`'))) => text.push(e),
                Some((_, 'n')) => text.push('\n'),
                Some((_, e)) => {
                    text.push('\\');
                    text.push(e);
                }
                None => return None,
            }
            continue;
        }
        text.push(c);
    }
    None
}

/// Each text in `code` between an `open` and the next `close` after it.
fn between(code: &str, open: &str, close: char) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find(open) {
        let body = &rest[at + open.len()..];
        let Some(end) = body.find(close) else { break };
        out.push(body[..end].to_string());
        rest = &body[end + close.len_utf8()..];
    }
    out
}

/// Backquoted text, `%x(…)` (Ruby) and `qx{…}`/`qx(…)` (Perl): commands run through a shell.
fn backquoted(language: Language, code: &str) -> Vec<String> {
    let mut out = between(code, "`", '`');
    let openers: &[&str] = match language {
        Language::Ruby => &["%x(", "%x{", "%x[", "%x|"],
        Language::Perl => &["qx(", "qx{", "qx[", "qx|", "qx/", "qx'"],
        _ => &[],
    };
    for opener in openers {
        let closer = match opener.chars().last() {
            Some('(') => ')',
            Some('{') => '}',
            Some('[') => ']',
            Some(c) => c,
            None => continue,
        };
        let mut from = 0;
        while let Some(at) = code[from..].find(opener).map(|i| i + from) {
            let body = &code[at + opener.len()..];
            let Some(close) = body.find(closer) else {
                break;
            };
            out.push(body[..close].to_string());
            from = at + opener.len() + close;
        }
    }
    out
}

#[cfg(test)]
mod tests;
