//! `animus-hook install` and `animus-hook uninstall`: the guard wired into the user's own
//! Claude Code settings, so every `claude` the user starts is guarded
//! ([`compiler::inject::install`] says what is written, and how).
//!
//! Install checks everything before writing anything: the settings file parses (no comments),
//! its directory takes a new file, the hook binary is this version's `animus-hook`, and the
//! policy compiles. Only then is the policy written (when it changed), the settings backed up and
//! replaced, and the manifest written.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::stdout::{out, outln};
use compiler::inject::install::{self, INSTALL_AGENT, MANIFEST_FILE, PROFILE_FILE, Scope};
use compiler::inject::settings_doc::SettingsDoc;

mod parse;
mod uninstall;
pub use parse::InstallOptions;
pub use uninstall::run_uninstall;

/// What `install` and `uninstall` were asked.
pub struct InstallArgs {
    pub harness: String,
    pub scope: ScopeArg,
    pub local: bool,
    pub project_root: Option<PathBuf>,
    /// `--config` and `--agent`: a profile instead of the default packs and settings lists.
    pub profile: Option<(PathBuf, String)>,
    pub hook_binary: Option<PathBuf>,
    /// `--plugin-dir`: write a Claude Code plugin there instead of into settings.
    pub plugin_dir: Option<PathBuf>,
    /// `--sandbox`: also Claude's Bash sandbox, denying writes to the guard's places.
    pub sandbox: bool,
    pub dry_run: bool,
}

/// `--scope`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ScopeArg {
    User,
    Project,
}

fn env(name: &str) -> Option<OsString> {
    std::env::var_os(name)
}

/// The scope asked for, with a project's root found when none was given: the git top level
/// above the working directory, else the working directory (as `emit --from-payload` finds it).
pub fn scope_of(
    scope: ScopeArg,
    local: bool,
    root: Option<&Path>,
    plugin_dir: Option<&Path>,
) -> Result<Scope, String> {
    if let Some(dir) = plugin_dir {
        if scope != ScopeArg::User || local || root.is_some() {
            return Err("--plugin-dir takes no --scope, --local or --project-root".into());
        }
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create the plugin dir `{}`: {e}", dir.display()))?;
        let dir = std::fs::canonicalize(dir)
            .map_err(|e| format!("plugin dir `{}`: {e}", dir.display()))?;
        return Ok(Scope::Plugin { dir });
    }
    match scope {
        ScopeArg::User if local => Err("--local is for --scope project".into()),
        ScopeArg::User if root.is_some() => Err("--project-root is for --scope project".into()),
        ScopeArg::User => Ok(Scope::User),
        ScopeArg::Project => {
            let root = match root {
                Some(root) => root.to_path_buf(),
                None => {
                    let cwd = std::env::current_dir()
                        .map_err(|e| format!("cannot read the working directory: {e}"))?;
                    gate::emit::from_payload::project_root_of(&cwd)
                }
            };
            let root = std::fs::canonicalize(&root)
                .map_err(|e| format!("project root `{}`: {e}", root.display()))?;
            Ok(Scope::Project { root, local })
        }
    }
}

/// The install directory of `scope` under the state root.
pub fn install_dir(scope: &Scope) -> Result<PathBuf, String> {
    let root = gate::record::state_root()?;
    let name = match scope {
        Scope::User => "claude-user".to_string(),
        Scope::Project { root, local } => format!(
            "claude-project-{}{}",
            gate::record::repo_scope(root)?,
            if *local { "-local" } else { "" }
        ),
        Scope::Plugin { dir } => format!("claude-plugin-{}", gate::record::repo_scope(dir)?),
        Scope::Opencode { .. } => "opencode-user".to_string(),
        Scope::Gemini { .. } => "gemini-user".to_string(),
    };
    Ok(root.join("installed").join(name))
}

/// The profile an install compiles, its text when generated (kept as `profile.yaml`), and the
/// manifest's `source`.
pub struct Source {
    pub profile: compiler::AgentProfile,
    pub generated: Option<String>,
    pub manifest: serde_json::Value,
    pub reports: Vec<String>,
}

/// Load or generate the profile of an install of `scope` into `dir`.
pub fn source_of(
    scope: &Scope,
    profile: Option<&(PathBuf, String)>,
    dir: &Path,
) -> Result<Source, String> {
    if let Some((config, agent)) = profile {
        let config = std::path::absolute(config).map_err(|e| format!("--config: {e}"))?;
        let loaded = compiler::load_profile_file(&config, agent).map_err(|e| e.to_string())?;
        return Ok(Source {
            profile: loaded,
            generated: None,
            manifest: serde_json::json!({"config": config, "agent": agent}),
            reports: Vec::new(),
        });
    }
    let sources = install::settings_sources(scope, &env)?;
    let user = install::settings_path(&Scope::User, &env)?;
    let (yaml, reports) = install::generated_profile(&sources, &user)?;
    let name = dir.join(PROFILE_FILE).display().to_string();
    let loaded = compiler::load_profile_str(&yaml, name.into(), INSTALL_AGENT)
        .map_err(|e| format!("{e}\nthe generated profile does not compile (a bug): {yaml}"))?;
    Ok(Source {
        profile: loaded,
        generated: Some(yaml),
        manifest: serde_json::json!({
            "packs": install::INSTALL_PACKS,
            "settings_files": sources,
        }),
        reports,
    })
}

/// Do the policy files in `dir` hold exactly `artifacts`, with an intact stamp?
pub fn policy_in_place(dir: &Path, artifacts: &compiler::PolicyArtifacts) -> bool {
    let policy = dir.join(compiler::artifact::POLICY_FILE_NAME);
    std::fs::read(&policy).is_ok_and(|b| b == artifacts.json)
        && std::fs::read(engine::sidecar::sidecar_path_for(&policy))
            .is_ok_and(|b| b == artifacts.sidecar)
        && engine::sidecar::stamp::pin_of(&policy).is_ok()
}

pub fn run_install(args: InstallArgs) -> ExitCode {
    match install(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!(
                "animus-hook install: {e}\nanimus-hook install: refused; nothing was changed"
            );
            ExitCode::FAILURE
        }
    }
}

fn check_harness(harness: &str, command: &str) -> Result<(), String> {
    match harness {
        "claude" | "opencode" | "gemini" => Ok(()),
        "codex" => Err(format!(
            "`{command} --harness {harness}` is not built yet: guard {harness} per session with \
             `animus-hook inject --provider {harness}` (see the README)"
        )),
        other => Err(format!(
            "unknown --harness `{other}`; expected claude, codex, gemini or opencode"
        )),
    }
}

/// The scope of `args`, for its harness.
fn harness_scope(args: &InstallArgs) -> Result<Scope, String> {
    if args.harness == "gemini" {
        if args.scope != ScopeArg::User
            || args.local
            || args.project_root.is_some()
            || args.plugin_dir.is_some()
        {
            return Err(
                "--harness gemini installs into the user's Gemini settings only (no \
                        --scope project, --local, --project-root or --plugin-dir)"
                    .into(),
            );
        }
        return Ok(Scope::Gemini {
            home: install::gemini_home(&env)?,
        });
    }
    if args.harness == "opencode" {
        if args.scope != ScopeArg::User
            || args.local
            || args.project_root.is_some()
            || args.plugin_dir.is_some()
        {
            return Err(
                "--harness opencode installs into opencode's global config only (no \
                        --scope project, --local, --project-root or --plugin-dir)"
                    .into(),
            );
        }
        return Ok(Scope::Opencode {
            config_dir: install::opencode_config_dir(&env)?,
        });
    }
    scope_of(
        args.scope,
        args.local,
        args.project_root.as_deref(),
        args.plugin_dir.as_deref(),
    )
}

/// Is `text` a plugin `install --harness opencode` wrote?
fn our_opencode_plugin(text: &str) -> bool {
    text.starts_with(compiler::inject::opencode::INSTALLED_HEADER)
}

fn install(args: &InstallArgs) -> Result<(), String> {
    check_harness(&args.harness, "install")?;
    let scope = harness_scope(args)?;
    let opencode = matches!(scope, Scope::Opencode { .. });
    let gemini = matches!(scope, Scope::Gemini { .. });
    let settings = install::settings_path(&scope, &env)?;
    let before = read_settings(&settings)?;
    let name = settings.display().to_string();
    let mut doc = SettingsDoc::parse(&name, "")?;
    if opencode {
        if before
            .as_deref()
            .is_some_and(|text| !our_opencode_plugin(text))
        {
            return Err(format!(
                "{name} is a plugin install did not write; move it aside first"
            ));
        }
    } else {
        doc = SettingsDoc::parse(&name, before.as_deref().unwrap_or(""))?;
        // A `hooks` of the wrong shape is found now, before the policy is written.
        let shape = install::InstalledHook {
            binary: String::new(),
            policy: String::new(),
            policy_digest: String::new(),
            observers: Vec::new(),
        };
        if gemini {
            install::gemini::add_ours(&mut doc.clone(), ("", "", ""), "shape")?;
        } else {
            install::add_ours(&mut doc.clone(), &shape)?;
        }
    }
    if !args.dry_run {
        install::check_writable(&settings)?;
    }
    let binary = compiler::inject::resolve_hook_binary(args.hook_binary.as_deref(), &env)
        .map(compiler::inject::lean_emit_binary)
        .map_err(|e| e.to_string())?;
    compiler::inject::verify_hook_binary(&binary).map_err(|e| e.to_string())?;
    if env(compiler::inject::KILL_SWITCH_ENV).is_some_and(|v| !v.is_empty()) {
        eprintln!(
            "animus-hook install: warning: {} is set in this shell; installed hooks still run, \
             but `inject` launches from here run unguarded (`animus-hook doctor` flags it)",
            compiler::inject::KILL_SWITCH_ENV
        );
    }
    let dir = install_dir(&scope)?;
    let source = source_of(&scope, args.profile.as_ref(), &dir)?;
    for report in &source.reports {
        eprintln!("{report}\n  (left out of the installed policy; claude still applies it)");
    }
    let compiled = compiler::compile_profile(&source.profile)
        .map_err(|e| crate::diagnostics::render_all(&e.0))?;
    for warning in &compiled.warnings {
        eprintln!("{}", crate::diagnostics::render(warning));
    }
    let policy = dir.join(compiler::artifact::POLICY_FILE_NAME);
    let guarded = install::guarded_places(&scope);
    let utf8 = |p: &Path| {
        p.to_str()
            .map(String::from)
            .ok_or(format!("`{}` is not UTF-8", p.display()))
    };
    // The state root and the install dir: this user's, writable by nobody else.
    let policy_digest = if args.dry_run && !dir.is_dir() {
        "sha256:<the pin of the policy install writes>".to_string()
    } else {
        if !args.dry_run {
            let state = gate::record::state_root()?;
            compiler::inject::prepare_session_dir(&state)?;
            private_state_root(&state)?;
            compiler::inject::prepare_session_dir(&dir)?;
        }
        let artifacts = compiler::render_policy_artifacts(&dir, &compiled, &[&binary], &guarded)
            .map_err(|e| e.to_string())?;
        if policy_in_place(&dir, &artifacts) {
            engine::sidecar::stamp::pin_of(&policy).map_err(|e| e.to_string())?
        } else if args.dry_run {
            "sha256:<the pin of the policy install writes>".to_string()
        } else {
            compiler::write_policy_artifacts_guarding(&dir, &compiled, &[&binary], &guarded)
                .map_err(|e| e.to_string())?;
            eprintln!("animus-hook install: wrote the policy {}", policy.display());
            engine::sidecar::stamp::pin_of(&policy).map_err(|e| e.to_string())?
        }
    };
    let hook = install::InstalledHook {
        binary: utf8(&binary)?,
        policy: utf8(&policy)?,
        policy_digest,
        observers: compiler::inject::claude_observer_events(&source.profile)
            .map_err(|e| e.to_string())?,
    };
    // The sandbox block: ours when it is what the last install recorded.
    let recorded_sandbox = recorded_sandbox(&dir);
    let sandbox = if args.sandbox {
        if opencode || gemini || matches!(scope, Scope::Plugin { .. }) {
            return Err(
                "--sandbox is for claude's settings (a plugin or opencode has no \
                        sandbox setting)"
                    .into(),
            );
        }
        Some(install::sandbox_block(&scope, &dir, &binary, &env)?)
    } else {
        None
    };
    // What `hooksConfig.enabled` was before the first install (uninstall puts it back).
    let gemini_enabled_before = if gemini {
        match recorded(&dir, "gemini_hooks_enabled_before") {
            Some(before) => Some(before),
            None => Some(install::gemini::hooks_enabled(&doc).unwrap_or(serde_json::Value::Null)),
        }
    } else {
        None
    };
    if !opencode && !gemini {
        let theirs = doc.to_json().get("sandbox").cloned();
        match (&theirs, &sandbox) {
            (Some(existing), Some(_)) if Some(existing) != recorded_sandbox.as_ref() => {
                return Err(format!(
                    "{name} already configures `sandbox`; merge the guard's denyWrite places into \
                     it by hand, or install without --sandbox"
                ));
            }
            _ => {}
        }
        if let Some(recorded) = &recorded_sandbox {
            install::remove_member_if(&mut doc, "sandbox", recorded);
        }
        if let Some(block) = &sandbox {
            install::set_member(&mut doc, "sandbox", block);
        }
    }
    let after = if opencode {
        compiler::inject::opencode::installed_plugin(
            &hook.binary,
            &hook.policy,
            &hook.policy_digest,
        )
    } else if gemini {
        let name = match install::gemini::existing_name(&doc) {
            Some(name) => name,
            None => install::gemini::fresh_name()?,
        };
        install::gemini::add_ours(
            &mut doc,
            (&hook.binary, &hook.policy, &hook.policy_digest),
            &name,
        )?;
        doc.print()
    } else {
        install::add_ours(&mut doc, &hook)?;
        doc.print()
    };
    if before.as_deref() == Some(after.as_str()) {
        outln!("animus-hook install: {name} already has these hooks; nothing changed");
    } else if args.dry_run {
        out!(
            "{}",
            crate::line_diff::unified(&name, before.as_deref().unwrap_or(""), &after)
        );
        outln!("animus-hook install: dry run; nothing was written");
        return Ok(());
    } else {
        // The plugin is ours, whole: nothing of the user's to back up.
        if before.is_some() && !opencode {
            let backup = install::backup(&settings, &backup_stamp())?;
            eprintln!(
                "animus-hook install: backed up {name} to {}",
                backup.display()
            );
        }
        install::write_settings(&settings, &after)?;
        if let Scope::Plugin { dir } = &scope {
            let manifest = dir.join(install::PLUGIN_MANIFEST);
            if !manifest.exists() {
                let parent = manifest.parent().expect("the manifest is in a directory");
                std::fs::create_dir_all(parent)
                    .and_then(|()| {
                        compiler::artifact::write_atomic(
                            &manifest,
                            install::plugin_manifest().as_bytes(),
                        )
                    })
                    .map_err(|e| format!("cannot write `{}`: {e}", manifest.display()))?;
            }
            outln!(
                "animus-hook install: wrote the claude plugin {}: load it with `claude \
                 --plugin-dir {}`",
                dir.display(),
                dir.display()
            );
        }
        if gemini {
            outln!(
                "animus-hook install: guarded every gemini session in a folder gemini trusts: \
                 hooks in {name}"
            );
        } else if opencode {
            outln!("animus-hook install: guarded every opencode session: plugin {name}");
        } else {
            outln!(
                "animus-hook install: guarded every claude session of {} scope: hooks in {name}",
                scope.name()
            );
        }
    }
    if args.dry_run {
        return Ok(());
    }
    // Whether install made the settings file: uninstall then removes it again (when nothing
    // but `{}` is left), rather than leaving an empty file behind.
    let created = before.is_none() || manifest_says_created(&dir);
    write_manifest(
        &dir,
        &scope,
        (&settings, created),
        &binary,
        (&source, sandbox.as_ref(), gemini_enabled_before.as_ref()),
    )?;
    Ok(())
}

/// The state root holds every session's records (payloads included): made `0700` when it is
/// more open (it is this user's: `prepare_session_dir` checked that).
fn private_state_root(state: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(state)
        .map_err(|e| format!("{}: {e}", state.display()))?
        .permissions()
        .mode()
        & 0o777;
    if mode != 0o700 {
        std::fs::set_permissions(state, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| format!("cannot make {} private (0700): {e}", state.display()))?;
        eprintln!(
            "animus-hook install: made the state dir {} private (mode {mode:03o} → 700)",
            state.display()
        );
    }
    Ok(())
}

/// The `sandbox` block the last install in `dir` wrote, if any.
fn recorded_sandbox(dir: &Path) -> Option<serde_json::Value> {
    recorded(dir, "sandbox").filter(|s| !s.is_null())
}

/// The manifest's `key` in `dir` (`None` when there is no manifest or no such key).
fn recorded(dir: &Path, key: &str) -> Option<serde_json::Value> {
    std::fs::read_to_string(dir.join(MANIFEST_FILE))
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .and_then(|m| m.get(key).cloned())
}

/// Does the manifest in `dir` say install created the settings file?
fn manifest_says_created(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join(MANIFEST_FILE))
        .ok()
        .and_then(|text| serde_json::from_str::<serde_json::Value>(&text).ok())
        .is_some_and(|m| m["created_settings"] == true)
}

fn write_manifest(
    dir: &Path,
    scope: &Scope,
    (settings, created): (&Path, bool),
    binary: &Path,
    (source, sandbox, gemini_enabled_before): (
        &Source,
        Option<&serde_json::Value>,
        Option<&serde_json::Value>,
    ),
) -> Result<(), String> {
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        if std::fs::read(&path).is_ok_and(|b| b == bytes) {
            return Ok(());
        }
        compiler::artifact::write_atomic(&path, bytes)
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))
    };
    if let Some(yaml) = &source.generated {
        write(PROFILE_FILE, yaml.as_bytes())?;
    }
    let project = match scope {
        Scope::Project { root, .. } => serde_json::json!(root),
        _ => serde_json::Value::Null,
    };
    let harness = match scope {
        Scope::Opencode { .. } => "opencode",
        Scope::Gemini { .. } => "gemini",
        _ => "claude",
    };
    let manifest = serde_json::json!({
        "harness": harness,
        "scope": scope.name(),
        "project_root": project,
        "settings": settings,
        "created_settings": created,
        "sandbox": sandbox,
        "gemini_hooks_enabled_before": gemini_enabled_before,
        "hook_binary": binary,
        "source": source.manifest,
    });
    let mut text = serde_json::to_string_pretty(&manifest).expect("JSON serializes");
    text.push('\n');
    write(MANIFEST_FILE, text.as_bytes())
}

/// The settings file's text, `None` when there is none.
fn read_settings(settings: &Path) -> Result<Option<String>, String> {
    match std::fs::read(settings) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| format!("`{}` is not UTF-8 text", settings.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read `{}`: {e}", settings.display())),
    }
}

/// `20261204T203000Z`: the backup's time, sortable, no `:` (awkward in some shells).
fn backup_stamp() -> String {
    let full = gate::time::rfc3339_utc(std::time::SystemTime::now());
    full.chars()
        .take(19)
        .filter(|c| !matches!(c, '-' | ':'))
        .chain(['Z'])
        .collect()
}
