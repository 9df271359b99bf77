//! `animus-hook install` and `animus-hook uninstall`: the guard wired into the user's own
//! Claude Code settings, so every `claude` the user starts is guarded
//! ([`integrations::inject::install`] says what is written, and how).
//!
//! Install checks everything before writing anything: the settings file parses (no comments),
//! its directory takes a new file, the hook binary is this version's `animus-hook`, and the
//! policy compiles. Only then is the policy written (when it changed), the settings backed up and
//! replaced, and the manifest written.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::stdout::{out, outln};
use integrations::inject::install::{
    self, INSTALL_AGENT, MANIFEST_FILE, PROFILE_FILE, Scope, WriteError,
};
use integrations::inject::settings_doc::SettingsDoc;

mod error;
mod parse;
mod uninstall;
pub use error::{InstallError, ReadError, ScopeError, SourceError, UninstallError};
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
) -> Result<Scope, ScopeError> {
    if let Some(dir) = plugin_dir {
        if scope != ScopeArg::User || local || root.is_some() {
            return Err(ScopeError::PluginDirFlags);
        }
        std::fs::create_dir_all(dir).map_err(|source| ScopeError::CreatePluginDir {
            dir: dir.to_path_buf(),
            source,
        })?;
        let dir = std::fs::canonicalize(dir).map_err(|source| ScopeError::PluginDir {
            dir: dir.to_path_buf(),
            source,
        })?;
        return Ok(Scope::Plugin { dir });
    }
    match scope {
        ScopeArg::User if local => Err(ScopeError::LocalWithoutProject),
        ScopeArg::User if root.is_some() => Err(ScopeError::ProjectRootWithoutProject),
        ScopeArg::User => Ok(Scope::User),
        ScopeArg::Project => {
            let root = match root {
                Some(root) => root.to_path_buf(),
                None => {
                    let cwd = std::env::current_dir().map_err(ScopeError::WorkingDirectory)?;
                    gate::emit::from_payload::project_root_of(&cwd)
                }
            };
            let root = std::fs::canonicalize(&root)
                .map_err(|source| ScopeError::ProjectRoot { root, source })?;
            Ok(Scope::Project { root, local })
        }
    }
}

/// The install directory of `scope` under the state root.
pub fn install_dir(scope: &Scope) -> Result<PathBuf, gate::record::RecordError> {
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
        Scope::Codex { .. } => "codex-user".to_string(),
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
) -> Result<Source, SourceError> {
    if let Some((config, agent)) = profile {
        let config = std::path::absolute(config).map_err(SourceError::Config)?;
        let loaded = compiler::load_profile_file(&config, agent).map_err(SourceError::Profile)?;
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
    let loaded =
        compiler::load_profile_str(&yaml, name.into(), INSTALL_AGENT).map_err(|errors| {
            SourceError::Generated {
                errors,
                yaml: yaml.clone(),
            }
        })?;
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

fn check_harness(harness: &str) -> Result<(), ScopeError> {
    match harness {
        "claude" | "opencode" | "gemini" | "codex" => Ok(()),
        other => Err(ScopeError::UnknownHarness(other.to_string())),
    }
}

/// The scope of `args`, for its harness.
fn harness_scope(args: &InstallArgs) -> Result<Scope, ScopeError> {
    let user_only = |harness, target| {
        if args.scope != ScopeArg::User
            || args.local
            || args.project_root.is_some()
            || args.plugin_dir.is_some()
        {
            Err(ScopeError::UserOnly { harness, target })
        } else {
            Ok(())
        }
    };
    if args.harness == "gemini" {
        user_only("gemini", "the user's Gemini settings")?;
        return Ok(Scope::Gemini {
            home: install::gemini_home(&env)?,
        });
    }
    if args.harness == "codex" {
        user_only("codex", "the user's Codex home")?;
        return Ok(Scope::Codex {
            home: install::codex::codex_home(&env)?,
        });
    }
    if args.harness == "opencode" {
        user_only("opencode", "opencode's global config")?;
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
    text.starts_with(integrations::inject::opencode::INSTALLED_HEADER)
}

/// The policy's pin in a dry run that would write it.
const DRY_RUN_PIN: &str = "sha256:<the pin of the policy install writes>";

fn install(args: &InstallArgs) -> Result<(), InstallError> {
    check_harness(&args.harness)?;
    let scope = harness_scope(args)?;
    let gemini = matches!(scope, Scope::Gemini { .. });
    let settings = install::settings_path(&scope, &env)?;
    let before = read_settings(&settings)?;
    let name = settings.display().to_string();
    let mut doc = checked_settings(&scope, &name, before.as_deref())?;
    let mut codex = CodexConfigFile::read::<InstallError>(&scope)?;
    if !args.dry_run {
        install::check_writable(&settings)?;
        if let Some(codex) = &codex {
            install::check_writable(&codex.path)?;
        }
    }
    let binary = hook_binary(args)?;
    let dir = install_dir(&scope)?;
    let source = source_of(&scope, args.profile.as_ref(), &dir)?;
    let hook = installed_hook(args, &scope, &dir, &binary, &source)?;
    let sandbox = sandbox_of(args, &scope, &dir, &binary)?;
    // What `hooksConfig.enabled` was before the first install (uninstall puts it back).
    let gemini_enabled_before = gemini.then(|| {
        recorded(&dir, "gemini_hooks_enabled_before")
            .unwrap_or_else(|| install::gemini::hooks_enabled(&doc).unwrap_or_default())
    });
    let hooks_before = doc.clone();
    let after = settings_text(&scope, &mut doc, &hook, (&dir, sandbox.as_ref()), &name)?;
    // Codex: the trust of our hooks first, so a hook of ours never runs untrusted (skipped).
    let codex_feature_before = match &mut codex {
        Some(codex) => {
            let feature_before = recorded(&dir, "codex")
                .map(|c| c["hooks_feature_before"].clone())
                .unwrap_or_else(|| serde_json::json!(codex.config.hooks_feature()));
            codex.config.retrust(&settings, &hooks_before, &doc)?;
            if codex.config.hooks_feature() == Some(false) {
                codex.config.set_hooks_feature(Some(true))?;
            }
            codex.apply(args.dry_run)?;
            Some(feature_before)
        }
        None => None,
    };
    apply(args, &scope, &settings, before.as_deref(), &after)?;
    if args.dry_run {
        return Ok(());
    }
    // Whether install made the settings file: uninstall then removes it again (when nothing
    // but `{}` is left), rather than leaving an empty file behind.
    let created = before.is_none() || manifest_says_created(&dir);
    let codex_manifest = codex.map(|codex| {
        serde_json::json!({
            "config": codex.path,
            "created_config": codex.before.is_none()
                || recorded(&dir, "codex").is_some_and(|c| c["created_config"] == true),
            "hooks_feature_before": codex_feature_before,
        })
    });
    write_manifest(
        &dir,
        &scope,
        (&settings, created),
        &binary,
        (
            &source,
            sandbox.as_ref(),
            gemini_enabled_before.as_ref(),
            codex_manifest.as_ref(),
        ),
    )
}

/// Codex's `config.toml` (where the trust of our hooks goes), read and parsed before anything
/// is written: a file that is not TOML, or whose `hooks` is not a table, refuses the install.
pub struct CodexConfigFile {
    pub path: PathBuf,
    pub before: Option<String>,
    pub config: install::codex::CodexConfig,
}

impl CodexConfigFile {
    /// The file of a codex `scope` (`None` for every other scope).
    pub fn read<E: From<ReadError> + From<install::codex::ConfigError>>(
        scope: &Scope,
    ) -> Result<Option<CodexConfigFile>, E> {
        let Scope::Codex { home } = scope else {
            return Ok(None);
        };
        let path = home.join(install::codex::CONFIG_FILE);
        let before = read_settings(&path)?;
        let config = install::codex::CodexConfig::parse(
            &path.display().to_string(),
            before.as_deref().unwrap_or(""),
        )?;
        Ok(Some(CodexConfigFile {
            path,
            before,
            config,
        }))
    }

    /// Write the edited config (backed up first), or print its diff in a dry run. An unchanged
    /// file is not touched; with `remove_if_empty` (install created it), an empty one is
    /// removed.
    pub fn apply(&self, dry_run: bool) -> Result<(), WriteError> {
        self.apply_removing(dry_run, false)
    }

    pub fn apply_removing(&self, dry_run: bool, remove_if_empty: bool) -> Result<(), WriteError> {
        let after = self.config.print();
        if self.before.as_deref() == Some(after.as_str())
            || (self.before.is_none() && after.is_empty())
        {
            return Ok(());
        }
        let name = self.path.display().to_string();
        if dry_run {
            out!(
                "{}",
                crate::line_diff::unified(&name, self.before.as_deref().unwrap_or(""), &after)
            );
            return Ok(());
        }
        if self.before.is_some() {
            let backup = install::backup(&self.path, &backup_stamp())?;
            eprintln!("animus-hook: backed up {name} to {}", backup.display());
        }
        if remove_if_empty && after.trim().is_empty() {
            return std::fs::remove_file(&self.path).map_err(|source| WriteError::Write {
                settings: self.path.clone(),
                source,
            });
        }
        install::write_settings(&self.path, &after)
    }
}

/// The settings as they are (`before`, the contents of `name`), checked before anything is
/// written: they parse, and a `hooks` of the wrong shape is found now. opencode's plugin file
/// must be one install wrote; its document is empty.
fn checked_settings(
    scope: &Scope,
    name: &str,
    before: Option<&str>,
) -> Result<SettingsDoc, InstallError> {
    if matches!(scope, Scope::Opencode { .. }) {
        if before.is_some_and(|text| !our_opencode_plugin(text)) {
            return Err(InstallError::NotOurPlugin(name.to_string()));
        }
        return Ok(SettingsDoc::parse(name, "")?);
    }
    let doc = SettingsDoc::parse(name, before.unwrap_or(""))?;
    if matches!(scope, Scope::Gemini { .. }) {
        install::gemini::add_ours(&mut doc.clone(), ("", "", ""), "shape")?;
    } else if matches!(scope, Scope::Codex { .. }) {
        install::codex::add_ours(&mut doc.clone(), ("", "", ""), &[])?;
    } else {
        let shape = install::InstalledHook {
            binary: String::new(),
            policy: String::new(),
            policy_digest: String::new(),
            observers: Vec::new(),
        };
        install::add_ours(&mut doc.clone(), &shape)?;
    }
    Ok(doc)
}

/// The hook binary the hooks run (`--hook-binary`, else this one), checked to be this
/// version's; with a warning when the kill switch is set in this shell.
fn hook_binary(args: &InstallArgs) -> Result<PathBuf, InstallError> {
    let binary = integrations::inject::resolve_hook_binary(args.hook_binary.as_deref(), &env)
        .map(integrations::inject::lean_emit_binary)
        .map_err(InstallError::HookBinary)?;
    integrations::inject::verify_hook_binary(&binary).map_err(InstallError::HookBinary)?;
    if env(integrations::inject::KILL_SWITCH_ENV).is_some_and(|v| !v.is_empty()) {
        eprintln!(
            "animus-hook install: warning: {} is set in this shell; installed hooks still run, \
             but `inject` launches from here run unguarded (`animus-hook doctor` flags it)",
            integrations::inject::KILL_SWITCH_ENV
        );
    }
    Ok(binary)
}

/// `path` as the hooks name it.
fn utf8(path: &Path) -> Result<String, InstallError> {
    path.to_str()
        .map(String::from)
        .ok_or_else(|| InstallError::NotUtf8Path(path.to_path_buf()))
}

/// Compile `source` into the policy in `dir` (written when it changed, not in a dry run), and
/// the hooks that run it.
fn installed_hook(
    args: &InstallArgs,
    scope: &Scope,
    dir: &Path,
    binary: &Path,
    source: &Source,
) -> Result<install::InstalledHook, InstallError> {
    for report in &source.reports {
        eprintln!("{report}\n  (left out of the installed policy; claude still applies it)");
    }
    let compiled = compiler::compile_profile(&source.profile).map_err(InstallError::Compile)?;
    for warning in &compiled.warnings {
        eprintln!("{}", crate::diagnostics::render(warning));
    }
    let policy = dir.join(compiler::artifact::POLICY_FILE_NAME);
    let policy_digest = install_policy(args.dry_run, scope, dir, binary, &compiled)?;
    Ok(install::InstalledHook {
        binary: utf8(binary)?,
        policy: utf8(&policy)?,
        policy_digest,
        observers: integrations::inject::claude_observer_events(&source.profile)
            .map_err(InstallError::Observers)?,
    })
}

/// The compiled policy in `dir`, its state root and `dir` this user's and private first; an
/// unchanged policy is not rewritten. Returns its pin (a placeholder in a dry run that would
/// write it).
fn install_policy(
    dry_run: bool,
    scope: &Scope,
    dir: &Path,
    binary: &Path,
    compiled: &compiler::Compiled,
) -> Result<String, InstallError> {
    if dry_run && !dir.is_dir() {
        return Ok(DRY_RUN_PIN.to_string());
    }
    // The state root and the install dir: this user's, writable by nobody else.
    if !dry_run {
        let state = gate::record::state_root()?;
        integrations::inject::prepare_session_dir(&state)?;
        private_state_root(&state)?;
        integrations::inject::prepare_session_dir(dir)?;
    }
    let policy = dir.join(compiler::artifact::POLICY_FILE_NAME);
    let guarded = install::guarded_places(scope);
    let artifacts = compiler::render_policy_artifacts(dir, compiled, &[binary], &guarded)
        .map_err(InstallError::Policy)?;
    if policy_in_place(dir, &artifacts) {
        return engine::sidecar::stamp::pin_of(&policy).map_err(InstallError::Pin);
    }
    if dry_run {
        return Ok(DRY_RUN_PIN.to_string());
    }
    compiler::write_policy_artifacts_guarding(dir, compiled, &[binary], &guarded)
        .map_err(InstallError::Policy)?;
    eprintln!("animus-hook install: wrote the policy {}", policy.display());
    engine::sidecar::stamp::pin_of(&policy).map_err(InstallError::Pin)
}

/// `--sandbox`: Claude's Bash sandbox block denying the guard's places (claude's settings only).
fn sandbox_of(
    args: &InstallArgs,
    scope: &Scope,
    dir: &Path,
    binary: &Path,
) -> Result<Option<serde_json::Value>, InstallError> {
    if !args.sandbox {
        return Ok(None);
    }
    if matches!(
        scope,
        Scope::Opencode { .. } | Scope::Gemini { .. } | Scope::Codex { .. } | Scope::Plugin { .. }
    ) {
        return Err(InstallError::SandboxNotHere);
    }
    Ok(Some(install::sandbox_block(scope, dir, binary, &env)?))
}

/// The new text of the settings file `name` (`doc`): our hooks, and for claude's settings our
/// `sandbox` block in place of the one the last install in `dir` recorded; for opencode, the
/// plugin.
fn settings_text(
    scope: &Scope,
    doc: &mut SettingsDoc,
    hook: &install::InstalledHook,
    (dir, sandbox): (&Path, Option<&serde_json::Value>),
    name: &str,
) -> Result<String, InstallError> {
    match scope {
        Scope::Opencode { .. } => Ok(integrations::inject::opencode::installed_plugin(
            &hook.binary,
            &hook.policy,
            &hook.policy_digest,
        )),
        Scope::Gemini { .. } => {
            let name = match install::gemini::existing_name(doc) {
                Some(name) => name,
                None => install::gemini::fresh_name().map_err(InstallError::HookName)?,
            };
            install::gemini::add_ours(
                doc,
                (&hook.binary, &hook.policy, &hook.policy_digest),
                &name,
            )?;
            Ok(doc.print())
        }
        Scope::Codex { .. } => {
            install::codex::add_ours(
                doc,
                (&hook.binary, &hook.policy, &hook.policy_digest),
                &hook.observers,
            )?;
            Ok(doc.print())
        }
        _ => {
            // The sandbox block: ours when it is what the last install recorded.
            let recorded_sandbox = recorded_sandbox(dir);
            let theirs = doc.to_json().get("sandbox").cloned();
            if let (Some(existing), Some(_)) = (&theirs, sandbox)
                && Some(existing) != recorded_sandbox.as_ref()
            {
                return Err(InstallError::SandboxTaken(name.to_string()));
            }
            if let Some(recorded) = &recorded_sandbox {
                install::remove_member_if(doc, "sandbox", recorded);
            }
            if let Some(block) = sandbox {
                install::set_member(doc, "sandbox", block);
            }
            install::add_ours(doc, hook)?;
            Ok(doc.print())
        }
    }
}

/// Replace `settings` (`before`) with `after`, backed up first (or print the diff, in a dry
/// run), and say what is guarded now.
fn apply(
    args: &InstallArgs,
    scope: &Scope,
    settings: &Path,
    before: Option<&str>,
    after: &str,
) -> Result<(), InstallError> {
    let name = settings.display().to_string();
    if before == Some(after) {
        outln!("animus-hook install: {name} already has these hooks; nothing changed");
        return Ok(());
    }
    if args.dry_run {
        out!(
            "{}",
            crate::line_diff::unified(&name, before.unwrap_or(""), after)
        );
        outln!("animus-hook install: dry run; nothing was written");
        return Ok(());
    }
    // The plugin is ours, whole: nothing of the user's to back up.
    if before.is_some() && !matches!(scope, Scope::Opencode { .. }) {
        let backup = install::backup(settings, &backup_stamp())?;
        eprintln!(
            "animus-hook install: backed up {name} to {}",
            backup.display()
        );
    }
    install::write_settings(settings, after)?;
    match scope {
        Scope::Plugin { dir } => {
            write_plugin_manifest(dir)?;
            outln!(
                "animus-hook install: wrote the claude plugin {}: load it with `claude \
                 --plugin-dir {}`",
                dir.display(),
                dir.display()
            );
            outln!(
                "animus-hook install: guarded every claude session of {} scope: hooks in {name}",
                scope.name()
            );
        }
        Scope::Gemini { .. } => outln!(
            "animus-hook install: guarded every gemini session in a folder gemini trusts: \
             hooks in {name}"
        ),
        Scope::Codex { home } => outln!(
            "animus-hook install: guarded every codex session: hooks in {name}, their trust in \
             {}",
            home.join(install::codex::CONFIG_FILE).display()
        ),
        Scope::Opencode { .. } => {
            outln!("animus-hook install: guarded every opencode session: plugin {name}")
        }
        _ => outln!(
            "animus-hook install: guarded every claude session of {} scope: hooks in {name}",
            scope.name()
        ),
    }
    Ok(())
}

/// The plugin's `.claude-plugin/plugin.json` in `dir`, unless it has one.
fn write_plugin_manifest(dir: &Path) -> Result<(), InstallError> {
    let manifest = dir.join(install::PLUGIN_MANIFEST);
    if manifest.exists() {
        return Ok(());
    }
    let parent = manifest.parent().expect("the manifest is in a directory");
    std::fs::create_dir_all(parent)
        .and_then(|()| {
            compiler::artifact::write_atomic(&manifest, install::plugin_manifest().as_bytes())
        })
        .map_err(|source| InstallError::WriteFile {
            path: manifest.clone(),
            source,
        })
}

/// The state root holds every session's records (payloads included): made `0700` when it is
/// more open (it is this user's: `prepare_session_dir` checked that).
fn private_state_root(state: &Path) -> Result<(), InstallError> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(state)
        .map_err(|source| InstallError::StateRoot {
            path: state.to_path_buf(),
            source,
        })?
        .permissions()
        .mode()
        & 0o777;
    if mode != 0o700 {
        std::fs::set_permissions(state, std::fs::Permissions::from_mode(0o700)).map_err(
            |source| InstallError::MakePrivate {
                path: state.to_path_buf(),
                source,
            },
        )?;
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
    (source, sandbox, gemini_enabled_before, codex): (
        &Source,
        Option<&serde_json::Value>,
        Option<&serde_json::Value>,
        Option<&serde_json::Value>,
    ),
) -> Result<(), InstallError> {
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.join(name);
        if std::fs::read(&path).is_ok_and(|b| b == bytes) {
            return Ok(());
        }
        compiler::artifact::write_atomic(&path, bytes)
            .map_err(|source| InstallError::WriteFile { path, source })
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
        Scope::Codex { .. } => "codex",
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
        "codex": codex,
        "hook_binary": binary,
        "source": source.manifest,
    });
    let mut text = serde_json::to_string_pretty(&manifest).expect("JSON serializes");
    text.push('\n');
    write(MANIFEST_FILE, text.as_bytes())
}

/// The settings file's text, `None` when there is none.
fn read_settings(settings: &Path) -> Result<Option<String>, ReadError> {
    match std::fs::read(settings) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|_| ReadError::NotUtf8(settings.to_path_buf())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(ReadError::Io {
            path: settings.to_path_buf(),
            source,
        }),
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
