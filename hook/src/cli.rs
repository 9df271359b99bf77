//! The authoring CLI's definition (clap, derive): one type per command drives its parsing,
//! `help` and `help <command>`, its usage errors (with clap's did-you-mean) and the shell
//! completions ([`crate::completions`]), so the four cannot drift apart.
//!
//! `emit` is the exception: the harness runs it on every tool call, so `main.rs` hands it to
//! gate's own lexopt parser before clap sees the arguments (the lean `animus-hook-emit` links
//! no clap at all). Its variant here only documents it, for `help emit` and the completions.
//!
//! Exit status 2 on any usage error, 0 for help and version, as before clap.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, CommandFactory, FromArgMatches, Parser, ValueEnum};
use engine::harness::Harness;

use crate::explain_cmd::{CallSource, ExplainArgs};
use crate::inject_cmd::{InjectArgs, PromptPosition};
use crate::replay_cmd::{PolicySource, ReplayArgs};
use crate::stdout;

mod commands;

pub use commands::Command;

/// animus-hook — a guardrail kernel for coding agents
#[derive(Parser)]
#[command(
    name = "animus-hook",
    version,
    arg_required_else_help = true,
    after_help = "`animus-hook help <command>` (or `<command> --help`) describes one command."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The whole CLI as clap sees it. A flag repeated overrides itself (lexopt's behaviour, which
/// scripts may rely on): `--json --json` is not an error.
pub fn command() -> clap::Command {
    Cli::command()
        .args_override_self(true)
        .mut_subcommands(|sub| sub.args_override_self(true))
}

/// Parse `args` (without the program name) and run the command.
pub fn run(args: Vec<OsString>) -> ExitCode {
    let argv = std::iter::once(OsString::from("animus-hook")).chain(args);
    let parsed = command()
        .try_get_matches_from(argv)
        .and_then(|mut matches| Cli::from_arg_matches_mut(&mut matches));
    match parsed {
        Ok(cli) => cli.command.run(),
        Err(error) => {
            // Help and version go to stdout (status 0, a closed stdout too); usage errors to
            // stderr (status 2, whether or not it could be written).
            let printed = error.print();
            if error.use_stderr() {
                ExitCode::from(2)
            } else {
                stdout::status(printed)
            }
        }
    }
}

/// `emit --help`: emit's usage, from its definition here.
pub fn emit_help() -> ExitCode {
    let mut cli = command();
    cli.build();
    let emit = cli
        .find_subcommand_mut("emit")
        .expect("emit is a subcommand");
    stdout::status(emit.write_long_help(&mut std::io::stdout().lock()))
}

/// Any string, offering `names` to the completions and the help: for values whose command
/// explains a refusal better than clap can (an unknown `--harness` names the ones there are).
#[derive(Clone)]
pub struct Suggest(pub Vec<&'static str>);

impl TypedValueParser for Suggest {
    type Value = String;

    fn parse_ref(
        &self,
        _: &clap::Command,
        _: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        value
            .to_str()
            .map(str::to_owned)
            .ok_or_else(|| clap::Error::new(clap::error::ErrorKind::InvalidUtf8))
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.0.iter().map(PossibleValue::new)))
    }
}

/// Every harness's name, as `--provider` takes it.
pub fn harness_names() -> Vec<&'static str> {
    Harness::ALL.map(Harness::as_str).to_vec()
}

/// `--provider <harness>`: one of [`Harness::ALL`].
pub fn harness_parser() -> impl TypedValueParser<Value = Harness> {
    PossibleValuesParser::new(harness_names())
        .map(|name| Harness::parse(&name).expect("clap checked the name"))
}

/// `--input <json>`: a JSON object.
fn json_object(text: &str) -> Result<serde_json::Value, JsonInputError> {
    let input: serde_json::Value = serde_json::from_str(text).map_err(JsonInputError::NotJson)?;
    if input.is_object() {
        Ok(input)
    } else {
        Err(JsonInputError::NotAnObject)
    }
}

/// An `--input` that is not a JSON object; clap reports it.
#[derive(Debug, thiserror::Error)]
pub enum JsonInputError {
    #[error("not JSON: {0}")]
    NotJson(serde_json::Error),
    #[error("not a JSON object")]
    NotAnObject,
}

#[derive(Args)]
pub struct CompileArgs {
    /// The config holding the profile (YAML or JSON)
    #[arg(long, value_name = "FILE")]
    pub config: PathBuf,
    /// The profile: agents.<id> or agent_profiles.<id>
    #[arg(long, value_name = "ID")]
    pub agent: String,
    /// Where to write animus-policy.json (and its sidecar and stamp)
    #[arg(long, value_name = "DIR")]
    pub out_dir: PathBuf,
    /// Print the outcome and every diagnostic as one JSON document on stdout
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct CheckArgs {
    /// The compiled policy
    #[arg(long, value_name = "FILE")]
    pub policy: PathBuf,
    /// Whose payload shape stdin holds (default: claude's)
    #[arg(long, value_name = "HARNESS", value_parser = harness_parser())]
    pub provider: Option<Harness>,
    /// The hook event (default: the payload's)
    #[arg(long, value_name = "E")]
    pub event: Option<String>,
    /// Where path rules are anchored (default: the payload's cwd)
    #[arg(long, value_name = "DIR")]
    pub project_root: Option<PathBuf>,
    /// Print the decision as JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct ExplainOptions {
    /// The compiled policy
    #[arg(long, value_name = "FILE")]
    policy: PathBuf,
    /// The hook event (default: PreToolUse)
    #[arg(long, value_name = "E")]
    event: Option<String>,
    /// Where path rules are anchored
    #[arg(long, value_name = "DIR")]
    project_root: Option<PathBuf>,
    /// A Bash call: this command
    #[arg(long, value_name = "CMD", conflicts_with_all = ["tool", "input"])]
    command: Option<String>,
    /// Any tool's call: the tool's name (with --input)
    #[arg(long, value_name = "NAME", requires = "input")]
    tool: Option<String>,
    /// Any tool's call: its input, a JSON object (with --tool)
    #[arg(long, value_name = "JSON", requires = "tool", value_parser = json_object)]
    input: Option<serde_json::Value>,
    /// Where the call is made (default: here)
    #[arg(long, value_name = "DIR")]
    cwd: Option<PathBuf>,
    /// Also the rules whose event and tool apply but that did not match
    #[arg(long)]
    near: bool,
    /// Print the explanation as one JSON document
    #[arg(long)]
    json: bool,
}

impl From<ExplainOptions> for ExplainArgs {
    fn from(o: ExplainOptions) -> Self {
        let source = match (o.command, o.tool, o.input) {
            (Some(command), _, _) => CallSource::Command(command),
            (None, Some(name), Some(input)) => CallSource::Tool { name, input },
            // clap's `requires` leaves no other shape.
            _ => CallSource::Stdin,
        };
        ExplainArgs {
            policy: o.policy,
            event: o.event,
            project_root: o.project_root,
            cwd: o.cwd,
            source,
            near: o.near,
            json: o.json,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
pub enum MeaningArg {
    /// Claude's: unlisted calls go to the harness's own flow
    Claude,
    /// A strict allowlist: unlisted calls are denied
    Allowlist,
}

#[derive(Args)]
pub struct ImportArgs {
    /// Claude settings files, lowest precedence first
    #[arg(long, value_name = "FILE", required = true, num_args = 1..)]
    pub claude_settings: Vec<PathBuf>,
    /// The id of the agent profile to print
    #[arg(long, value_name = "ID")]
    pub agent: String,
    /// The lists' meaning in the profile
    #[arg(long, value_enum, default_value_t = MeaningArg::Claude)]
    pub meaning: MeaningArg,
    /// Print the profile as JSON instead of YAML
    #[arg(long)]
    pub json: bool,
}

impl ImportArgs {
    pub fn meaning(&self) -> compiler::Meaning {
        match self.meaning {
            MeaningArg::Claude => compiler::Meaning::Claude,
            MeaningArg::Allowlist => compiler::Meaning::Allowlist,
        }
    }
}

#[derive(Args)]
pub struct InjectOptions {
    /// The harness to launch
    #[arg(long, value_name = "HARNESS", value_parser = Suggest(harness_names()))]
    provider: String,
    /// The config holding the profile
    #[arg(long, value_name = "FILE")]
    config: PathBuf,
    /// The profile's id
    #[arg(long, value_name = "ID")]
    agent: String,
    /// Where the policy and the hook wiring are written
    #[arg(long, value_name = "DIR")]
    session_dir: PathBuf,
    /// The session's id
    #[arg(long, value_name = "ID")]
    session_id: String,
    /// The project the session works in
    #[arg(long, value_name = "DIR")]
    project_root: PathBuf,
    /// The animus-hook binary the hooks run (default: this one)
    #[arg(long, value_name = "PATH")]
    hook_binary: Option<PathBuf>,
    /// The prompt is the last launch argument: insert the hook flags before it
    #[arg(long, overrides_with = "prompt_index")]
    prompt_last: bool,
    /// The prompt is launch argument <N>: insert the hook flags before it
    #[arg(long, value_name = "N", overrides_with = "prompt_last")]
    prompt_index: Option<usize>,
    /// Print {"env": {…}, "args": […]} instead of a shell line
    #[arg(long)]
    json: bool,
    /// Also turn on claude's Bash sandbox, denying writes to the guard's files
    #[arg(long)]
    sandbox: bool,
    /// The harness's launch arguments (after `--`)
    #[arg(value_name = "LAUNCH_ARGS")]
    launch_args: Vec<String>,
}

impl From<InjectOptions> for InjectArgs {
    fn from(o: InjectOptions) -> Self {
        let prompt = match (o.prompt_last, o.prompt_index) {
            (true, _) => PromptPosition::Last,
            (false, Some(index)) => PromptPosition::Index(index),
            (false, None) => PromptPosition::None,
        };
        InjectArgs {
            provider: o.provider,
            config: o.config,
            agent: o.agent,
            session_dir: o.session_dir,
            session_id: o.session_id,
            project_root: o.project_root,
            hook_binary: o.hook_binary,
            prompt,
            json: o.json,
            sandbox: o.sandbox,
            launch_args: o.launch_args,
        }
    }
}

#[derive(Args)]
#[command(group = clap::ArgGroup::new("candidate").required(true).args(["policy", "config"]))]
pub struct ReplayOptions {
    /// The candidate policy, compiled
    #[arg(long, value_name = "FILE", conflicts_with_all = ["config", "agent"])]
    policy: Option<PathBuf>,
    /// The candidate policy as a profile (with --agent), compiled in a private directory
    #[arg(long, value_name = "FILE", requires = "agent")]
    config: Option<PathBuf>,
    /// The candidate profile's id (with --config)
    #[arg(long, value_name = "ID", requires = "config")]
    agent: Option<String>,
    /// What hook payloads were decided before (default: nothing)
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Whose payload shape the hook payloads have
    #[arg(long, value_name = "HARNESS", value_parser = harness_parser())]
    provider: Option<Harness>,
    /// One JSON object per call on stdout (the summary on stderr)
    #[arg(long)]
    json: bool,
    /// Also decide-latency percentiles and throughput
    #[arg(long)]
    stats: bool,
    /// Session logs, Claude transcripts, JSONL hook payloads, or directories of them
    #[arg(value_name = "INPUT", required = true)]
    inputs: Vec<PathBuf>,
}

impl From<ReplayOptions> for ReplayArgs {
    fn from(o: ReplayOptions) -> Self {
        let policy = match (o.policy, o.config, o.agent) {
            (Some(path), _, _) => PolicySource::Compiled(path),
            // clap's group and `requires` leave only a profile.
            (None, config, agent) => PolicySource::Profile {
                config: config.unwrap_or_default(),
                agent: agent.unwrap_or_default(),
            },
        };
        ReplayArgs {
            policy,
            baseline: o.baseline,
            provider: o.provider,
            inputs: o.inputs,
            json: o.json,
            stats: o.stats,
        }
    }
}
