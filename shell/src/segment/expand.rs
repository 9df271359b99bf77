//! Expansions the shell makes before it runs a command, made here too so deny and ask rules
//! see the words the program receives: brace expansion (`{rm,-rf,X}` → `rm -rf X`,
//! `rm -{r,f} X` → `rm -r -f X`, `/tmp/{a,b}`, `{1..3}`) and `$IFS` read as the whitespace it
//! holds by default (`rm$IFS-rf$IFS X` → `rm -rf X`). Bounded: a command whose expansion
//! would exceed [`MAX_EXPANDED_WORDS`] words is not followed (the caller treats it as text the
//! guard cannot read).

use super::Word;

/// A command whose expansions make more than [`MAX_EXPANDED_WORDS`] words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "its brace expansion makes more than {MAX_EXPANDED_WORDS} words, which the guard does not follow"
)]
pub struct TooManyWords;

/// Most words the expansions of one command may produce.
pub const MAX_EXPANDED_WORDS: usize = 256;

/// The words `words` expand to, or `Ok(None)` when no word holds a brace expansion or `$IFS`
/// (the common case, decided without allocating). Only words the parser marked as not literal
/// are looked at: a quoted `'{a,b}'` is literal and stays as it is. The error is a phrase.
pub fn expanded_words(words: &[Word]) -> Result<Option<Vec<String>>, TooManyWords> {
    if !words
        .iter()
        .any(|w| !w.literal && (w.text.contains('{') || w.text.contains("IFS")))
    {
        return Ok(None);
    }
    let mut out = Vec::new();
    let mut budget = MAX_EXPANDED_WORDS;
    for word in words {
        if word.literal {
            if budget == 0 {
                return Err(TooManyWords);
            }
            budget -= 1;
            out.push(word.text.to_string());
            continue;
        }
        let spaced = ifs_as_space(&word.text);
        for piece in spaced.split_whitespace() {
            brace_expand(piece, &mut out, &mut budget).map_err(|()| TooManyWords)?;
        }
    }
    Ok(Some(out))
}

/// `$IFS`, `${IFS}` and `${IFS:0:1}` replaced by a space (the default `IFS` starts with one).
fn ifs_as_space(word: &str) -> String {
    if !word.contains("IFS") {
        return word.to_string();
    }
    let mut out = String::with_capacity(word.len());
    let mut rest = word;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let form = ["{IFS}", "{IFS:0:1}", "{IFS::1}", "{IFS:0}"]
            .into_iter()
            .find(|f| after.starts_with(f))
            .map(str::len)
            .or_else(|| {
                after.strip_prefix("IFS").and_then(|tail| {
                    (!tail.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_'))
                        .then_some(3)
                })
            });
        match form {
            Some(len) => {
                out.push(' ');
                rest = &after[len..];
            }
            None => {
                out.push('$');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Push the brace expansion of `word` onto `out` (empty results dropped, as the shell does),
/// spending one unit of `budget` per word; `Err` when the budget runs out.
fn brace_expand(word: &str, out: &mut Vec<String>, budget: &mut usize) -> Result<(), ()> {
    let b = word.as_bytes();
    let mut i = 0;
    while i < b.len() {
        // `${…}` is a parameter expansion, not a brace expansion.
        if b[i] == b'{' && (i == 0 || b[i - 1] != b'$') {
            let mut depth = 0usize;
            let mut commas = Vec::new();
            let mut close = None;
            for (j, &c) in b.iter().enumerate().skip(i + 1) {
                match c {
                    b'{' => depth += 1,
                    b'}' if depth == 0 => {
                        close = Some(j);
                        break;
                    }
                    b'}' => depth -= 1,
                    b',' if depth == 0 => commas.push(j),
                    _ => {}
                }
            }
            if let Some(close) = close {
                let alternatives: Option<Vec<String>> = if commas.is_empty() {
                    sequence(&word[i + 1..close], *budget)?
                } else {
                    let mut parts = Vec::with_capacity(commas.len() + 1);
                    let mut from = i + 1;
                    for &comma in commas.iter().chain(std::iter::once(&close)) {
                        parts.push(word[from..comma].to_string());
                        from = comma + 1;
                    }
                    Some(parts)
                };
                if let Some(alternatives) = alternatives {
                    for alternative in alternatives {
                        let expanded =
                            format!("{}{}{}", &word[..i], alternative, &word[close + 1..]);
                        brace_expand(&expanded, out, budget)?;
                    }
                    return Ok(());
                }
            }
        }
        i += 1;
    }
    if word.is_empty() {
        return Ok(());
    }
    if *budget == 0 {
        return Err(());
    }
    *budget -= 1;
    out.push(word.to_string());
    Ok(())
}

/// The items of a sequence expression (`1..3`, `a..e`, `10..1..2`), `Ok(None)` when `inner`
/// is not one, `Err` when it has more than `budget` items.
fn sequence(inner: &str, budget: usize) -> Result<Option<Vec<String>>, ()> {
    let parts: Vec<&str> = inner.split("..").collect();
    if !(2..=3).contains(&parts.len()) {
        return Ok(None);
    }
    let step = match parts.get(2) {
        Some(s) => match s.parse::<i64>() {
            Ok(0) => 1,
            Ok(n) => n.unsigned_abs(),
            Err(_) => return Ok(None),
        },
        None => 1,
    };
    let (from, to, letters) = match (parts[0].parse::<i64>(), parts[1].parse::<i64>()) {
        (Ok(a), Ok(b)) => (a, b, false),
        _ => {
            let (mut a, mut b) = (parts[0].chars(), parts[1].chars());
            match (a.next(), a.next(), b.next(), b.next()) {
                (Some(a), None, Some(b), None)
                    if a.is_ascii_alphabetic() && b.is_ascii_alphabetic() =>
                {
                    (a as i64, b as i64, true)
                }
                _ => return Ok(None),
            }
        }
    };
    let count = from.abs_diff(to) / step + 1;
    if count > budget as u64 {
        return Err(());
    }
    let items = (0..count)
        .map(|k| {
            let offset = (k * step) as i64;
            let n = if from <= to {
                from + offset
            } else {
                from - offset
            };
            if letters {
                char::from_u32(n as u32).map_or_else(String::new, String::from)
            } else {
                n.to_string()
            }
        })
        .collect();
    Ok(Some(items))
}

/// The words with each run of two or more single-letter-cluster short options merged into one
/// (`rm -r -f X` → `rm -rf X`), as a program reading its options with `getopt` takes them;
/// `None` when there is no such run. A deny written `rm -rf` then sees `rm -r -f`.
pub fn merged_short_options(words: &[&str]) -> Option<Vec<String>> {
    let is_cluster = |w: &str| {
        w.len() >= 2 && w.starts_with('-') && w[1..].bytes().all(|b| b.is_ascii_alphabetic())
    };
    if !words
        .windows(2)
        .any(|p| is_cluster(p[0]) && is_cluster(p[1]))
    {
        return None;
    }
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut previous_cluster = false;
    for (i, &word) in words.iter().enumerate() {
        if word == "--" {
            out.extend(words[i..].iter().map(|w| w.to_string()));
            break;
        }
        if is_cluster(word) && previous_cluster {
            out.last_mut()
                .expect("a cluster before")
                .push_str(&word[1..]);
        } else {
            out.push(word.to_string());
        }
        previous_cluster = is_cluster(word);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::borrow::Cow;

    fn word(text: &str, literal: bool) -> Word<'static> {
        Word {
            text: Cow::Owned(text.to_string()),
            literal,
            quoted: false,
        }
    }

    #[test]
    fn braces_and_ifs() {
        let expand = |words: &[(&str, bool)]| {
            let words: Vec<Word> = words.iter().map(|(t, l)| word(t, *l)).collect();
            expanded_words(&words).unwrap().map(|w| w.join(" "))
        };
        // (words with whether each is literal, the words the shell runs)
        let cases: &[(&[(&str, bool)], &str)] = &[
            (&[("{rm,-rf,X}", false)], "rm -rf X"),
            (
                &[("rm", true), ("-{r,f}", false), ("X", true)],
                "rm -r -f X",
            ),
            (&[("ls", true), ("/tmp/{a,b}", false)], "ls /tmp/a /tmp/b"),
            (&[("echo", true), ("{1..3}", false)], "echo 1 2 3"),
            (&[("echo", true), ("{c..a}", false)], "echo c b a"),
            (&[("echo", true), ("x{a,{b,c}}", false)], "echo xa xb xc"),
            (&[("rm$IFS-rf$IFS", false), ("X", true)], "rm -rf X"),
            (&[("rm${IFS}-rf${IFS}X", false)], "rm -rf X"),
            (&[("echo", true), ("$IFSX", false)], "echo $IFSX"),
            (&[("echo", true), ("${x}", false)], "echo ${x}"),
        ];
        for (words, runs) in cases {
            assert_eq!(expand(words).as_deref(), Some(*runs), "{words:?}");
        }
        assert_eq!(expand(&[("ls", true), ("{a,b}", true)]), None);
        assert_eq!(expand(&[("ls", true), ("$x", false)]), None);
        let wide: Vec<Word> = vec![word(&"{a,b}".repeat(20), false)];
        assert!(expanded_words(&wide).is_err());
        let long: Vec<Word> = vec![word("{1..100000000}", false)];
        assert!(expanded_words(&long).is_err());
    }

    #[test]
    fn short_options_merge() {
        let merged = merged_short_options(&["rm", "-r", "-f", "X"]).unwrap();
        assert_eq!(merged, ["rm", "-rf", "X"]);
        let merged = merged_short_options(&["rm", "-r", "-f", "--", "-x", "-y"]).unwrap();
        assert_eq!(merged, ["rm", "-rf", "--", "-x", "-y"]);
        assert!(merged_short_options(&["rm", "-rf", "X"]).is_none());
        assert!(merged_short_options(&["git", "log", "-n", "5"]).is_none());
    }
}
