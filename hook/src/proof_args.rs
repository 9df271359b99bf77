//! Argument parsing of the commands that read the session logs: `verify`, `replay`, `log`
//! (the same hand-written lexopt style as [`crate::cli`]).

use std::path::PathBuf;

use lexopt::prelude::*;

use crate::cli::UsageError;

pub fn parse_verify(
    parser: &mut lexopt::Parser,
) -> Result<crate::verify_cmd::VerifyArgs, UsageError> {
    let mut args = crate::verify_cmd::VerifyArgs {
        inputs: Vec::new(),
        session: None,
        project_root: None,
        open: false,
        json: false,
    };
    while let Some(arg) = parser.next()? {
        match arg {
            Long("session") => args.session = Some(parser.value()?.string()?),
            Long("project-root") => args.project_root = Some(PathBuf::from(parser.value()?)),
            Long("open") => args.open = true,
            Long("json") => args.json = true,
            Value(path) => args.inputs.push(PathBuf::from(path)),
            other => return Err(other.unexpected().into()),
        }
    }
    if args.inputs.is_empty() && args.session.is_none() {
        return Err(UsageError(
            "verify needs a log, a directory of logs, or --session <id>".into(),
        ));
    }
    if args.project_root.is_some() && args.session.is_none() {
        return Err(UsageError("--project-root goes with --session <id>".into()));
    }
    Ok(args)
}

pub fn parse_replay(
    parser: &mut lexopt::Parser,
) -> Result<crate::replay_cmd::ReplayArgs, UsageError> {
    use crate::replay_cmd::{PolicySource, ReplayArgs};
    let (mut policy, mut config, mut agent, mut baseline) = (None, None, None, None);
    let (mut provider, mut json, mut stats, mut inputs) = (None, false, false, Vec::new());
    while let Some(arg) = parser.next()? {
        match arg {
            Long("policy") => policy = Some(PathBuf::from(parser.value()?)),
            Long("config") => config = Some(PathBuf::from(parser.value()?)),
            Long("agent") => agent = Some(parser.value()?.string()?),
            Long("baseline") => baseline = Some(PathBuf::from(parser.value()?)),
            Long("provider") => {
                let name = parser.value()?.string()?;
                provider = Some(engine::harness::Harness::parse(&name).ok_or_else(|| {
                    UsageError(format!(
                        "unknown --provider `{name}`; expected one of {}",
                        engine::harness::Harness::ALL
                            .map(engine::harness::Harness::as_str)
                            .join(", ")
                    ))
                })?)
            }
            Long("json") => json = true,
            Long("stats") => stats = true,
            Value(path) => inputs.push(PathBuf::from(path)),
            other => return Err(other.unexpected().into()),
        }
    }
    let policy = match (policy, config, agent) {
        (Some(path), None, None) => PolicySource::Compiled(path),
        (None, Some(config), Some(agent)) => PolicySource::Profile { config, agent },
        (None, None, None) => {
            return Err(UsageError(
                "replay needs the candidate: --policy <file>, or --config <file> --agent <id>"
                    .into(),
            ));
        }
        (Some(_), _, _) => {
            return Err(UsageError(
                "--policy is a compiled candidate: it takes no --config or --agent".into(),
            ));
        }
        (None, Some(_), None) => return Err(UsageError("--config needs --agent <id>".into())),
        (None, None, Some(_)) => return Err(UsageError("--agent needs --config <file>".into())),
    };
    if inputs.is_empty() {
        return Err(UsageError(
            "replay needs inputs: session logs, Claude transcripts or JSONL hook payloads".into(),
        ));
    }
    Ok(ReplayArgs {
        policy,
        baseline,
        provider,
        inputs,
        json,
        stats,
    })
}

pub fn parse_log(parser: &mut lexopt::Parser) -> Result<crate::log_cmd::LogArgs, UsageError> {
    let mut args = crate::log_cmd::LogArgs {
        session: None,
        decisions: Vec::new(),
        since: None,
        project: None,
        follow: false,
        json: false,
        stats: false,
    };
    while let Some(arg) = parser.next()? {
        match arg {
            Long("session") => args.session = Some(parser.value()?.string()?),
            Long("decision") => {
                for d in parser.value()?.string()?.split(',') {
                    let d = d.trim().to_ascii_lowercase();
                    if !matches!(d.as_str(), "deny" | "ask" | "allow" | "defer") {
                        return Err(UsageError(format!(
                            "--decision is deny, ask, allow or defer, not `{d}`"
                        )));
                    }
                    args.decisions.push(d);
                }
            }
            Long("since") => {
                let text = parser.value()?.string()?;
                args.since = Some(
                    crate::log_cmd::parse_since(&text, std::time::SystemTime::now())
                        .map_err(UsageError)?,
                );
            }
            Long("project") => args.project = Some(PathBuf::from(parser.value()?)),
            Long("follow") => args.follow = true,
            Long("json") => args.json = true,
            Long("stats") => args.stats = true,
            other => return Err(other.unexpected().into()),
        }
    }
    if args.follow && args.stats {
        return Err(UsageError(
            "--stats summarises; it does not --follow".into(),
        ));
    }
    Ok(args)
}
