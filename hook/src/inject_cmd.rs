//! `animus-hook inject`: wire a guarded session for people who launch the harness themselves
//! (Claude Code, Codex CLI, Gemini CLI, opencode): it prints the launch line to paste (the
//! environment to set, the harness and its arguments), or with `--json` an object
//! `{"env": {…}, "args": […]}`.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::stdout::outln;
use integrations::inject::{InjectRequest, Injection, inject_harness_hooks};

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
    pub sandbox: bool,
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
            eprintln!(
                "{}\nanimus-hook inject: failed; nothing was written",
                crate::diagnostics::render_all(&e.0)
            );
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
        sandbox: args.sandbox,
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
            let name = integrations::inject::KILL_SWITCH_ENV;
            eprintln!(
                "animus-hook inject: {name} is set: harness hooks disabled, arguments unchanged"
            );
            // Any non-empty value switches the guard off (the spec's meaning); a value that
            // reads as "no" is most likely a mistake, so say plainly what it did.
            let value = std::env::var_os(name).unwrap_or_default();
            if reads_as_no(&value.to_string_lossy()) {
                eprintln!(
                    "animus-hook inject: warning: {name}={:?} still switches the guard OFF (any \
                     non-empty value does): this session runs UNGUARDED. Unset {name} to guard it.",
                    value.to_string_lossy()
                );
            }
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
                eprintln!("{}", crate::diagnostics::render(w));
            }
            eprintln!(
                "animus-hook inject: wrote {} and {}",
                policy_path.display(),
                settings_path.display()
            );
        }
    }
    let env: &[(String, String)] = match &injection {
        Injection::Injected { env, .. } => env,
        _ => &[],
    };
    if args.json {
        let env: serde_json::Map<String, serde_json::Value> = env
            .iter()
            .map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone())))
            .collect();
        outln!(
            "{}",
            serde_json::json!({ "env": env, "args": injection.args() })
        );
    } else {
        outln!("{}", shell_line(env, &args.provider, injection.args()));
    }
    ExitCode::SUCCESS
}

/// The launch as one line to paste into a POSIX shell: `NAME='value' … provider 'arg' …`.
fn shell_line(env: &[(String, String)], provider: &str, args: &[String]) -> String {
    let quote = |word: &str| -> String {
        if !word.is_empty()
            && word
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b))
        {
            word.to_string()
        } else {
            format!("'{}'", word.replace('\'', "'\\''"))
        }
    };
    let mut words: Vec<String> = env
        .iter()
        .map(|(name, value)| format!("{name}={}", quote(value)))
        .collect();
    words.push(quote(provider));
    words.extend(args.iter().map(|a| quote(a)));
    words.join(" ")
}

/// Does a kill-switch value read as "off" (`0`, `false`, `no`, `off`, `n`, `f`, any case)?
fn reads_as_no(value: &str) -> bool {
    matches!(
        value.trim().to_ascii_lowercase().as_str(),
        "0" | "false" | "no" | "off" | "n" | "f" | "disabled" | "none"
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn shell_line_quotes_what_needs_it() {
        let line = super::shell_line(
            &[("A_B".into(), "/x y".into())],
            "codex",
            &[
                "exec".into(),
                "-c".into(),
                "k=[{a=\"it's\"}]".into(),
                "".into(),
            ],
        );
        assert_eq!(line, "A_B='/x y' codex exec -c 'k=[{a=\"it'\\''s\"}]' ''");
    }

    #[test]
    fn kill_switch_values_that_read_as_no() {
        for v in ["0", "false", "FALSE", " no ", "Off", "n"] {
            assert!(super::reads_as_no(v), "{v}");
        }
        for v in ["1", "true", "yes", "x"] {
            assert!(!super::reads_as_no(v), "{v}");
        }
    }
}
