//! A line diff for `install --dry-run` and `uninstall --dry-run`: the changed lines with three
//! lines of context, `-` for a line removed, `+` for one added (the longest common subsequence
//! of the lines; a settings file is small).

/// `before` → `after` as a unified-style diff of `name`; empty when they are equal.
pub fn unified(name: &str, before: &str, after: &str) -> String {
    let a: Vec<&str> = before.lines().collect();
    let b: Vec<&str> = after.lines().collect();
    // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let mut ops: Vec<(char, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            ops.push((' ', a[i]));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            // A removal before the addition that replaces it.
            ops.push(('-', a[i]));
            i += 1;
        } else {
            ops.push(('+', b[j]));
            j += 1;
        }
    }
    if ops.iter().all(|(op, _)| *op == ' ') {
        return String::new();
    }
    const CONTEXT: usize = 3;
    let near_change = |k: usize| {
        let lo = k.saturating_sub(CONTEXT);
        let hi = (k + CONTEXT).min(ops.len() - 1);
        ops[lo..=hi].iter().any(|(op, _)| *op != ' ')
    };
    let mut out = format!("--- {name}\n+++ {name} (after)\n");
    let mut skipped = false;
    for (k, (op, line)) in ops.iter().enumerate() {
        if *op == ' ' && !near_change(k) {
            skipped = true;
            continue;
        }
        if skipped {
            out.push_str("@@\n");
            skipped = false;
        }
        out.push(*op);
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn changed_lines_with_context() {
        let before = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let after = "a\nb\nc\nd\nE\nf\ng\nh\ni\n";
        assert_eq!(
            super::unified("s", before, after),
            "--- s\n+++ s (after)\n@@\nb\nc\nd\n-e\n+E\nf\ng\nh\n+i\n"
                .lines()
                .map(|l| if l.starts_with(['-', '+', '@']) {
                    format!("{l}\n")
                } else {
                    format!(" {l}\n")
                })
                .collect::<String>()
        );
        assert_eq!(super::unified("s", "x\n", "x\n"), "");
    }
}
