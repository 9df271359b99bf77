//! Redirections, and the bodies of here-documents.

use super::{
    ParseError, Parser, PendingHeredoc, Redirect, SimpleCommand, is_name_byte, parse_detached,
};

impl<'s> Parser<'s, '_> {
    /// A redirection, if one starts here: `[n]>word`, `>>`, `<`, `<>`, `>|`, `&>`, `&>>`,
    /// `>&n`, `<&n`, `<<<word`, `<<DELIM`, `<<-DELIM`, `{var}>word`.
    pub(super) fn redirect(&mut self, command: &mut SimpleCommand<'s>) -> Result<bool, ParseError> {
        let start = self.pos;
        let mut i = self.pos;
        while self.src.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == self.pos && self.src.get(i) == Some(&b'{') {
            let mut j = i + 1;
            while self.src.get(j).is_some_and(|&b| is_name_byte(b)) {
                j += 1;
            }
            if j > i + 1 && self.src.get(j) == Some(&b'}') {
                i = j + 1;
            }
        }
        let rest = &self.src[i..];
        let operator: &str = if rest.starts_with(b"<<<") {
            "<<<"
        } else if rest.starts_with(b"<<-") {
            "<<-"
        } else if rest.starts_with(b"<<") {
            "<<"
        } else if rest.starts_with(b"&>>") && i == self.pos {
            "&>>"
        } else if rest.starts_with(b"&>") && i == self.pos {
            "&>"
        } else if rest.starts_with(b">>") {
            ">>"
        } else if rest.starts_with(b">&") {
            ">&"
        } else if rest.starts_with(b"<&") {
            "<&"
        } else if rest.starts_with(b">|") {
            ">|"
        } else if rest.starts_with(b"<>") {
            "<>"
        } else if rest.starts_with(b">(") || rest.starts_with(b"<(") {
            // A process substitution is a word, not a redirection.
            return Ok(false);
        } else if rest.starts_with(b">") {
            ">"
        } else if rest.starts_with(b"<") {
            "<"
        } else {
            return Ok(false);
        };
        self.pos = i + operator.len();
        self.skip_blanks();
        if matches!(operator, "<<" | "<<-") {
            let delimiter_start = self.pos;
            let word = self.word()?;
            let raw = &self.text[delimiter_start..self.pos];
            let expands = !raw.contains(['\'', '"', '\\']);
            self.heredocs.push(PendingHeredoc {
                delimiter: word.text.to_string(),
                strip_tabs: operator == "<<-",
                expands,
                command: None,
            });
            command.redirects.push(Redirect {
                text: format!("{}{}", &self.text[start..i + operator.len()], word.text),
                harmless: true,
                writes: None,
                written_as: None,
            });
            return Ok(true);
        }
        if matches!(self.peek(), None | Some(b'\n' | b';' | b'&' | b'|' | b')')) {
            return Err(ParseError::RedirectWithoutTarget {
                found: Box::new(self.unexpected()),
            });
        }
        let target = self.word()?;
        let harmless = match operator {
            ">&" | "<&" => {
                target.text == "-"
                    || target
                        .text
                        .trim_end_matches('-')
                        .bytes()
                        .all(|b| b.is_ascii_digit())
                        && !target.text.is_empty()
            }
            "<<<" => true,
            _ => target.text == "/dev/null",
        } && target.literal;
        if operator == "<<<" {
            command.here_strings.push(target.clone());
        }
        let written_as =
            matches!(operator, ">" | ">>" | ">|" | "&>" | "&>>").then(|| target.text.to_string());
        let writes = written_as.clone().filter(|_| target.literal);
        command.redirects.push(Redirect {
            text: format!("{}{}", &self.text[start..i + operator.len()], target.text),
            harmless,
            writes,
            written_as,
        });
        Ok(true)
    }

    /// Read the body of `heredoc`, which starts here (just after a newline).
    pub(super) fn heredoc_body(&mut self, heredoc: PendingHeredoc) -> Result<(), ParseError> {
        let mut body = String::new();
        loop {
            if self.pos >= self.src.len() {
                break;
            }
            let end = self.src[self.pos..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(self.src.len(), |n| self.pos + n);
            let line = &self.text[self.pos..end];
            let compared = if heredoc.strip_tabs {
                line.trim_start_matches('\t')
            } else {
                line
            };
            self.pos = (end + 1).min(self.src.len());
            if compared == heredoc.delimiter {
                break;
            }
            body.push_str(compared);
            body.push('\n');
        }
        if heredoc.expands {
            // The body is expanded like a double-quoted string: substitutions run.
            self.nested(|p| p.scan_expansions(&body))?;
        }
        let owner = heredoc.command.or(self.out.len().checked_sub(1));
        if let Some(command) = owner.and_then(|i| self.out.get_mut(i)) {
            // What `cat <<EOF` writes (to a shell it is piped into, say).
            let literal = !heredoc.expands || !body.contains(['$', '`']);
            command.heredoc_bodies.push((body.clone(), literal));
        }
        if let Some(command) = owner.and_then(|i| self.out.get_mut(i))
            && crate::segment::reads_script_from_stdin(command)
        {
            // `bash <<EOF`: the body is a script the shell runs.
            parse_detached(&body, self.depth + 1, self.listed(), self.out)?;
        } else if let Some(command) = owner.and_then(|i| self.out.get(i))
            && heredoc_literal(&body, heredoc.expands)
            && let Some(sql) = crate::segment::sql_segment(command, &body)
        {
            // `psql <<EOF`: the client given the SQL as an argument, for deny and ask.
            if self.listed() >= crate::MAX_SEGMENTS {
                return Err(ParseError::TooManyCommands);
            }
            self.out.push(sql);
        } else if let Some(command) = owner.and_then(|i| self.out.get(i))
            && let Some((crate::segment::StdinProgram::Interpreter, program)) =
                crate::segment::stdin_program(command)
            && let Some(language) = crate::segment::code::Language::of(program)
        {
            // `python3 <<EOF`: the body is code; what it runs and deletes, for deny and ask.
            for text in crate::segment::code::shell_texts(language, &body) {
                let first = self.out.len();
                let _ = parse_detached(&text, self.depth + 1, self.listed(), self.out);
                self.out[first..]
                    .iter_mut()
                    .for_each(|c| c.deny_only = true);
            }
        }
        Ok(())
    }
}

/// Is a here-document's body the text the program reads (no expansion runs in it)?
fn heredoc_literal(body: &str, expands: bool) -> bool {
    !expands || !body.contains(['$', '`'])
}
