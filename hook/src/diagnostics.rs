//! Compiler diagnostics as the CLI shows them: with their code in text
//! (`p.yaml:4:7: warning[AH203]: …`) and as JSON objects for `--json`
//! (`{"code", "name", "severity", "file", "line", "column", "message", "help"}`), one format
//! for `compile`, `lint` and `test`.

use compiler::diagnostic::Code;
use compiler::{Diagnostic, Severity};
use serde_json::{Value, json};

fn severity(diagnostic: &Diagnostic) -> &'static str {
    match diagnostic.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// `file:line:column: warning[AH203]: message`, and `  help: …` on the next line.
pub fn render(diagnostic: &Diagnostic) -> String {
    let mut text = String::new();
    if let Some(location) = &diagnostic.location {
        text.push_str(&format!("{location}: "));
    }
    text.push_str(&format!(
        "{}[{}]: {}",
        severity(diagnostic),
        diagnostic.code.as_str(),
        diagnostic.message
    ));
    if let Some(help) = &diagnostic.help {
        text.push_str(&format!("\n  help: {help}"));
    }
    text
}

/// Every diagnostic of `errors`, one [`render`] each, a line apart.
pub fn render_all(errors: &[Diagnostic]) -> String {
    errors.iter().map(render).collect::<Vec<_>>().join("\n")
}

/// `diagnostic` as one JSON object; `file`, `line` and `column` are null when it is about no
/// place, `line` and `column` when the parser could not tell.
pub fn to_json(diagnostic: &Diagnostic) -> Value {
    let location = diagnostic.location.as_ref();
    let known = |n: u32| (n > 0).then_some(n);
    json!({
        "code": diagnostic.code.as_str(),
        "name": diagnostic.code.name(),
        "severity": severity(diagnostic),
        "file": location.map(|l| l.file.to_string()),
        "line": location.and_then(|l| known(l.line)),
        "column": location.and_then(|l| known(l.column)),
        "message": diagnostic.message,
        "help": diagnostic.help,
    })
}

/// `diagnostics` as a JSON array.
pub fn all_to_json(diagnostics: &[Diagnostic]) -> Value {
    Value::Array(diagnostics.iter().map(to_json).collect())
}

/// The codes `names` name (`AH203` or `allow-everything`), or the first name that is none.
pub fn parse_codes(names: &[String]) -> Result<Vec<Code>, UnknownCode> {
    names
        .iter()
        .map(|name| Code::parse(name.trim()).ok_or_else(|| UnknownCode { name: name.clone() }))
        .collect()
}

/// An `--ignore` that names no diagnostic.
#[derive(Debug, thiserror::Error)]
#[error(
    "--ignore `{name}` is no diagnostic code (AH203) or name (allow-everything); the table is \
     in the README"
)]
pub struct UnknownCode {
    /// The name given.
    pub name: String,
}
