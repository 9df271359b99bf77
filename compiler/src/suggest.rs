//! "Did you mean …?": the known word a misspelt one most likely stands for.
//!
//! Used for keys (`toolPolicy`, `tool_polcy`, `pack` → `tool_policy`, `packs`), enum values and
//! tool names (`bash`, `Reed` → `Bash`, `Read`). A word is close to a known one when they are
//! the same ignoring case, `_` and `-` (`toolPolicy`, `Tool-Policy`), or when few edits turn
//! one into the other (insertions, deletions, substitutions and swaps of neighbours, counted
//! case-insensitively): at most one edit for words under eight characters, two for longer
//! ones. Short words stay strict so that unrelated names (`tools` beside `hooks`, two edits)
//! are not taken for typos.

/// `word` lower-cased with `_` and `-` dropped: `toolPolicy`, `tool-policy` → `toolpolicy`.
fn folded(word: &str) -> String {
    word.chars()
        .filter(|c| !matches!(c, '_' | '-'))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The optimal string alignment distance between `a` and `b` (edits: insert, delete,
/// substitute, swap two neighbours).
fn distance(a: &[char], b: &[char]) -> usize {
    let (n, m) = (a.len(), b.len());
    let mut d = vec![vec![0usize; m + 1]; n + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=n {
        for j in 1..=m {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[n][m]
}

/// How far `word` is from `known`, when close enough to be a misspelling of it: 0 when they
/// differ only in case, `_` and `-`.
pub(crate) fn closeness(word: &str, known: &str) -> Option<usize> {
    let (w, k) = (folded(word), folded(known));
    if w == k {
        return Some(0);
    }
    // Long words are compared on their first 64 characters' length only: a key or a tool
    // name is short, and a long one is no typo of a short known word.
    if w.len() > 64 {
        return None;
    }
    let (w, k): (Vec<char>, Vec<char>) = (w.chars().collect(), k.chars().collect());
    let allowed = if k.len() < 8 { 1 } else { 2 };
    let d = distance(&w, &k);
    (d <= allowed).then_some(d)
}

/// The known word `word` most likely misspells (the closest; the first of equals), or `None`
/// when it is no near miss of any. `word` itself, when known, is not a misspelling.
pub(crate) fn did_you_mean<'k>(
    word: &str,
    known: impl IntoIterator<Item = &'k str>,
) -> Option<&'k str> {
    let mut best: Option<(usize, &str)> = None;
    for k in known {
        if k == word {
            return None;
        }
        if let Some(d) = closeness(word, k)
            && best.is_none_or(|(b, _)| d < b)
        {
            best = Some((d, k));
        }
    }
    best.map(|(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEYS: &[&str] = &["tool_policy", "packs", "hooks"];

    #[test]
    fn near_misses_of_keys() {
        let mean = |w| did_you_mean(w, KEYS.iter().copied());
        assert_eq!(mean("toolPolicy"), Some("tool_policy"));
        assert_eq!(mean("tool_polcy"), Some("tool_policy"));
        assert_eq!(mean("tool-policy"), Some("tool_policy"));
        assert_eq!(mean("ToolPolicy"), Some("tool_policy"));
        assert_eq!(mean("tool_poilcy"), Some("tool_policy"));
        assert_eq!(mean("pack"), Some("packs"));
        assert_eq!(mean("Packs"), Some("packs"));
        assert_eq!(mean("hook"), Some("hooks"));
        assert_eq!(mean("tool_policy"), None);
        // Other tools' keys of an agent profile are no typos.
        for other in [
            "model",
            "tools",
            "prompt",
            "system_prompt",
            "instructions",
            "policy",
        ] {
            assert_eq!(mean(other), None, "{other}");
        }
    }

    #[test]
    fn near_misses_of_tools() {
        let tools = ["Bash", "Read", "Edit", "WebFetch", "LS", "LSP"];
        let mean = |w| did_you_mean(w, tools.iter().copied());
        assert_eq!(mean("bash"), Some("Bash"));
        assert_eq!(mean("Reed"), Some("Read"));
        assert_eq!(mean("WebFecth"), Some("WebFetch"));
        assert_eq!(mean("ls"), Some("LS"));
        assert_eq!(mean("LSP"), None);
        assert_eq!(mean("my_custom_tool"), None);
        assert_eq!(mean(&"x".repeat(1000)), None);
    }
}
