//! `animus-hook inject`: wire a guarded claude session for people who launch `claude` themselves.

use std::path::PathBuf;
use std::process::ExitCode;

use compiler::inject::{InjectRequest, Injection, inject_harness_hooks};

pub struct InjectArgs {
    pub provider: String,
    pub config: PathBuf,
    pub agent: String,
    pub session_dir: PathBuf,
    pub session_id: String,
    pub project_root: PathBuf,
    pub hook_binary: Option<PathBuf>,
    pub prompt: PromptPosition,
    pub json: bool,
    pub launch_args: Vec<String>,
}

/// Where the prompt sits in the launch arguments.
pub enum PromptPosition {
    None,
    Last,
    Index(usize),
}

pub fn run(args: InjectArgs) -> ExitCode {
    let prompt_index = match args.prompt {
        PromptPosition::None => None,
        PromptPosition::Last if args.launch_args.is_empty() => {
            eprintln!("animus-hook inject: --prompt-last given but there are no launch arguments");
            return ExitCode::from(2);
        }
        PromptPosition::Last => Some(args.launch_args.len() - 1),
        PromptPosition::Index(i) => Some(i),
    };
    let profile = match compiler::load_profile_file(&args.config, &args.agent) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}\nanimus-hook inject: failed; nothing was written");
            return ExitCode::FAILURE;
        }
    };
    let request = InjectRequest {
        provider: &args.provider,
        session_dir: &args.session_dir,
        session_id: &args.session_id,
        project_root: &args.project_root,
        profile: &profile,
        launch_args: &args.launch_args,
        prompt_index,
        hook_binary: args.hook_binary.as_deref(),
    };
    let injection = match inject_harness_hooks(&request) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("{e}\nanimus-hook inject: failed; do not launch this session");
            return ExitCode::FAILURE;
        }
    };
    match &injection {
        Injection::Disabled { .. } => {
            eprintln!(
                "animus-hook inject: {} is set: harness hooks disabled, arguments unchanged",
                compiler::inject::KILL_SWITCH_ENV
            )
        }
        Injection::NotGenerated { vector, .. } => eprintln!(
            "animus-hook inject: provider `{}` ({vector:?}) has no generated hook wiring yet; arguments unchanged",
            args.provider
        ),
        Injection::Injected {
            settings_path,
            policy_path,
            warnings,
            ..
        } => {
            for w in warnings {
                eprintln!("{w}");
            }
            eprintln!(
                "animus-hook inject: wrote {} and {}",
                policy_path.display(),
                settings_path.display()
            );
        }
    }
    if args.json {
        println!(
            "{}",
            serde_json::to_string(injection.args()).expect("strings serialize")
        );
    } else {
        for arg in injection.args() {
            println!("{arg}");
        }
    }
    ExitCode::SUCCESS
}
