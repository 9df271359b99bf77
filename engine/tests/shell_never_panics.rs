//! The parser takes any text an agent can send: it never panics, and an analysis is always
//! one of "parsed, with coverable or uncoverable segments" or "unparseable, never covered".

use proptest::prelude::*;

/// Text over the characters the shell gives meaning to, plus multi-byte characters (slicing on
/// a byte that is not a character boundary panics in Rust).
fn shellish() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "a",
            "rm",
            " ",
            "\t",
            "\n",
            ";",
            "&",
            "|",
            "(",
            ")",
            "{",
            "}",
            "<",
            ">",
            "'",
            "\"",
            "\\",
            "$",
            "`",
            "#",
            "*",
            "?",
            "[",
            "]",
            "=",
            "-c",
            "bash",
            "eval",
            "<<",
            "EOF",
            "$(",
            "${",
            "$((",
            "))",
            "é",
            "💥",
            "\u{1}",
            "if",
            "then",
            "fi",
            "do",
            "done",
            "case",
            "in",
            "esac",
            ";;",
            "for",
            "while",
            "function",
            "[[",
            "]]",
            "!",
            "~",
            ",",
            "find",
            "-exec",
            "sudo",
            "-u",
            "echo",
            "x.sh",
            "sh",
            "awk",
            "'BEGIN{system(\"rm x\")}'",
        ]),
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn analysis_never_panics(command in shellish()) {
        let analysis = engine::shell::analyse(&command);
        if analysis.unparseable.is_some() {
            prop_assert!(!analysis.coverable());
            prop_assert!(analysis.segments.iter().all(|s| s.strict.is_empty()));
        }
        for segment in &analysis.segments {
            for text in segment.generous.iter().chain(&segment.strict) {
                prop_assert!(!text.contains(engine::shell::SEGMENT_START), "{:?}", text);
            }
        }
    }

    #[test]
    fn arbitrary_text_never_panics(command in ".{0,200}") {
        let _ = engine::shell::analyse(&command);
    }
}
