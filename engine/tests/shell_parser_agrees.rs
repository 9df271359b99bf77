//! Our Bash parser against brush-parser, a complete independent Bash parser (a dev-dependency
//! only: it is not fit for the hook, see `BENCHMARKS.md`), on every real command in
//! `../shared/corpus-real`: wherever brush finds a simple command whose program is a literal
//! word, our segments must hold a segment running that program. A parser that lost a command
//! would let a deny miss it.

use std::collections::BTreeMap;

use brush_parser::word::WordPiece;
use brush_parser::{Parser, ParserOptions, ast, word};
use serde_json::Value;

/// Every command string of the real corpus, with its source file.
fn real_commands(shared: &std::path::Path) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let commands = [
        "commands/nl2bash.jsonl",
        "commands/tldr-examples.jsonl",
        "labelled/dcg-corpus.jsonl",
        "labelled/dcg-e2e-fixtures.jsonl",
    ];
    let tool_calls = [
        "adversarial/bypass-cases.jsonl",
        "tool-calls/pretooluse-hook-inputs.jsonl",
    ];
    let files = (commands.map(|f| (f, "/command"))).into_iter();
    for (file, pointer) in files.chain(tool_calls.map(|f| (f, "/tool_input/command"))) {
        let text = std::fs::read_to_string(shared.join("corpus-real").join(file)).unwrap();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let record: Value = serde_json::from_str(line).unwrap();
            if let Some(command) = record.pointer(pointer).and_then(Value::as_str) {
                out.push((file, command.to_string()));
            }
        }
    }
    out
}

/// brush's simple commands' literal program words.
#[derive(Default)]
struct Programs {
    names: Vec<String>,
    failed: bool,
    depth: usize,
}

impl Programs {
    fn list(&mut self, list: &ast::CompoundList) {
        for ast::CompoundListItem(and_or, _) in &list.0 {
            let rest = and_or.additional.iter().map(|x| match x {
                ast::AndOr::And(p) | ast::AndOr::Or(p) => p,
            });
            for pipeline in std::iter::once(&and_or.first).chain(rest) {
                for command in &pipeline.seq {
                    self.command(command);
                }
            }
        }
    }

    fn command(&mut self, command: &ast::Command) {
        use ast::CompoundCommand as C;
        match command {
            ast::Command::Simple(simple) => {
                let items = simple
                    .prefix
                    .iter()
                    .flat_map(|p| p.0.iter())
                    .chain(simple.suffix.iter().flat_map(|s| s.0.iter()));
                for item in items {
                    match item {
                        ast::CommandPrefixOrSuffixItem::Word(w)
                        | ast::CommandPrefixOrSuffixItem::AssignmentWord(_, w) => {
                            self.word(&w.value);
                        }
                        ast::CommandPrefixOrSuffixItem::ProcessSubstitution(_, sub) => {
                            self.list(&sub.list)
                        }
                        ast::CommandPrefixOrSuffixItem::IoRedirect(_) => {}
                    }
                }
                if let Some(program) = &simple.word_or_name
                    && let Some(name) = self.word(&program.value)
                {
                    self.names.push(name);
                }
            }
            ast::Command::Compound(compound, _) => match compound {
                C::BraceGroup(b) => self.list(&b.list),
                C::Subshell(s) => self.list(&s.list),
                C::ForClause(f) => self.list(&f.body.list),
                C::ArithmeticForClause(f) => self.list(&f.body.list),
                C::CaseClause(c) => {
                    for item in &c.cases {
                        if let Some(l) = &item.cmd {
                            self.list(l);
                        }
                    }
                }
                C::IfClause(i) => {
                    self.list(&i.condition);
                    self.list(&i.then);
                    for e in i.elses.iter().flatten() {
                        if let Some(c) = &e.condition {
                            self.list(c);
                        }
                        self.list(&e.body);
                    }
                }
                C::WhileClause(x) | C::UntilClause(x) => {
                    self.list(&x.0);
                    self.list(&x.1.list);
                }
                C::Coprocess(c) => self.command(&c.body),
                C::Arithmetic(_) => {}
            },
            ast::Command::Function(f) => {
                self.command(&ast::Command::Compound(f.body.0.clone(), None));
            }
            ast::Command::ExtendedTest(..) => {}
        }
    }

    /// The word's text if it is literal; commands in its substitutions are listed.
    fn word(&mut self, raw: &str) -> Option<String> {
        let Ok(pieces) = word::parse(raw, &ParserOptions::default()) else {
            self.failed = true;
            return None;
        };
        let mut text = String::new();
        let mut literal = true;
        self.pieces(&pieces, &mut text, &mut literal);
        literal.then_some(text)
    }

    fn pieces(&mut self, pieces: &[word::WordPieceWithSource], text: &mut String, lit: &mut bool) {
        for p in pieces {
            match &p.piece {
                WordPiece::Text(t) | WordPiece::SingleQuotedText(t) => {
                    if t.contains(['*', '?', '~', '[', '{']) {
                        *lit = false;
                    }
                    text.push_str(t)
                }
                WordPiece::EscapeSequence(t) => text.push_str(t.strip_prefix('\\').unwrap_or(t)),
                WordPiece::DoubleQuotedSequence(v) | WordPiece::GettextDoubleQuotedSequence(v) => {
                    self.pieces(v, text, lit)
                }
                WordPiece::CommandSubstitution(s) | WordPiece::BackquotedCommandSubstitution(s) => {
                    *lit = false;
                    if self.depth > 20 {
                        self.failed = true;
                        continue;
                    }
                    self.depth += 1;
                    match Parser::new(s.as_bytes(), &ParserOptions::default()).parse_program() {
                        Ok(program) => {
                            for c in &program.complete_commands {
                                self.list(c);
                            }
                        }
                        Err(_) => self.failed = true,
                    }
                    self.depth -= 1;
                }
                // Not decoded by brush; ours decodes them, so no literal comparison.
                WordPiece::AnsiCQuotedText(_) => *lit = false,
                WordPiece::TildeExpansion(_)
                | WordPiece::ParameterExpansion(_)
                | WordPiece::ArithmeticExpression(_) => *lit = false,
            }
        }
    }
}

#[test]
fn every_command_brush_finds_is_a_segment() {
    let Some(shared) = test_support::shared::shared_dir("every_command_brush_finds_is_a_segment")
    else {
        return;
    };
    let commands = real_commands(&shared);
    assert!(commands.len() > 30_000, "{} commands", commands.len());
    // (both parse, only brush parses, only ours parses, neither) per file.
    let mut tally: BTreeMap<&str, [usize; 4]> = BTreeMap::new();
    let mut missing = Vec::new();
    for (file, command) in &commands {
        let ours = engine::shell::analyse(command);
        let brush = Parser::new(command.as_bytes(), &ParserOptions::default()).parse_program();
        let mut programs = Programs::default();
        if let Ok(program) = &brush {
            for c in &program.complete_commands {
                programs.list(c);
            }
        }
        let brush_ok = brush.is_ok() && !programs.failed;
        let ours_ok = ours.unparseable.is_none();
        let slot = match (ours_ok, brush_ok) {
            (true, true) => 0,
            (false, true) => 1,
            (true, false) => 2,
            (false, false) => 3,
        };
        tally.entry(file).or_default()[slot] += 1;
        if !brush_ok {
            continue;
        }
        // Even an unparseable command's fallback segments must name every program.
        for name in &programs.names {
            let found = ours.segments.iter().any(|s| {
                s.generous.iter().any(|t| {
                    t == name
                        || t.starts_with(&format!("{name} "))
                        || t.split(' ').any(|w| w == name)
                })
            });
            if !found {
                missing.push(format!("{name:?} in {command:?}"));
            }
        }
    }
    let mut only_brush = 0;
    for (file, [both, brush_only, ours_only, neither]) in &tally {
        println!(
            "{file}: both parse {both}, only brush {brush_only}, only ours {ours_only}, neither {neither}"
        );
        only_brush += brush_only;
    }
    assert!(
        missing.is_empty(),
        "{} programs brush found are in no segment, e.g. {:#?}",
        missing.len(),
        &missing[..missing.len().min(20)]
    );
    // Commands bash runs that we cannot parse are never covered (stricter, not looser), but
    // they should stay rare.
    assert!(
        only_brush * 1000 <= commands.len(),
        "{only_brush} of {} commands parse with brush but not with ours",
        commands.len()
    );
}
