//! `animus-hook uninstall`: exactly what install added goes (our hooks, our sandbox block, the
//! installed policy); a backup's bytes come back when nothing else changed, and a settings
//! file install created is removed again.

use std::path::Path;
use std::process::ExitCode;

use integrations::inject::install::{self, MANIFEST_FILE, PROFILE_FILE, Scope};
use integrations::inject::settings_doc::SettingsDoc;

use super::{
    CodexConfigFile, InstallArgs, UninstallError, backup_stamp, check_harness, env, harness_scope,
    install_dir, manifest_says_created, our_opencode_plugin, read_settings, recorded,
    recorded_sandbox,
};
use crate::stdout::{out, outln};

pub fn run_uninstall(args: InstallArgs) -> ExitCode {
    match uninstall(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("animus-hook uninstall: {e}\nanimus-hook uninstall: nothing was changed");
            ExitCode::FAILURE
        }
    }
}

fn uninstall(args: &InstallArgs) -> Result<(), UninstallError> {
    check_harness(&args.harness)?;
    if args.profile.is_some() || args.hook_binary.is_some() || args.sandbox {
        return Err(UninstallError::InstallOnlyFlags);
    }
    let scope = harness_scope(args)?;
    let settings = install::settings_path(&scope, &env)?;
    let name = settings.display().to_string();
    let Some(before) = read_settings(&settings)? else {
        outln!("animus-hook uninstall: there is no {name}; nothing to remove");
        return Ok(());
    };
    if matches!(scope, Scope::Opencode { .. }) {
        if !our_opencode_plugin(&before) {
            return Err(UninstallError::NotOurPlugin(name));
        }
        if args.dry_run {
            outln!("animus-hook uninstall: would remove {name}; dry run, nothing was written");
            return Ok(());
        }
        std::fs::remove_file(&settings).map_err(|source| UninstallError::Remove {
            path: settings.clone(),
            source,
        })?;
        outln!("animus-hook uninstall: removed the guard plugin {name}");
        remove_install_dir(&install_dir(&scope)?);
        return Ok(());
    }
    // Our sandbox block goes first (when it is what install recorded), then our hooks.
    let mut current = before.clone();
    let mut sandbox_removed = false;
    if let Some(recorded) = recorded_sandbox(&install_dir(&scope)?) {
        let mut doc = SettingsDoc::parse(&name, &before)?;
        if install::remove_member_if(&mut doc, "sandbox", &recorded) {
            sandbox_removed = true;
            current = doc.print();
        }
    }
    // Gemini: `hooksConfig.enabled` back to what it was before the first install.
    if matches!(scope, Scope::Gemini { .. })
        && let Some(before) = recorded(&install_dir(&scope)?, "gemini_hooks_enabled_before")
    {
        let mut doc = SettingsDoc::parse(&name, &current)?;
        if !install::our_handlers(&doc).is_empty() {
            install::gemini::set_enabled(&mut doc, Some(&before).filter(|b| !b.is_null()))?;
            current = doc.print();
        }
    }
    // Codex: the trust of our hooks goes with them, the user's own moves with theirs, and
    // `features.hooks` is put back when install turned it on.
    let mut codex = CodexConfigFile::read::<UninstallError>(&scope)?;
    if let Some(codex) = &mut codex {
        let with_ours = SettingsDoc::parse(&name, &current)?;
        let mut without = with_ours.clone();
        install::remove_ours(&mut without);
        codex.config.retrust(&settings, &with_ours, &without)?;
        let recorded = recorded(&install_dir(&scope)?, "codex");
        if recorded
            .as_ref()
            .is_some_and(|c| c["hooks_feature_before"] == false)
            && codex.config.hooks_feature() == Some(true)
        {
            codex.config.set_hooks_feature(Some(false))?;
        }
    }
    let codex_created =
        recorded(&install_dir(&scope)?, "codex").is_some_and(|c| c["created_config"] == true);
    let (after, removed, restored) = install::plan_uninstall(&settings, &current)?;
    let removed = removed + usize::from(sandbox_removed);
    if removed == 0 {
        outln!("animus-hook uninstall: {name} holds no animus-hook entries; nothing changed");
        return Ok(());
    }
    if args.dry_run {
        out!("{}", crate::line_diff::unified(&name, &before, &after));
        if let Some(codex) = &codex {
            codex.apply(true)?;
        }
        outln!("animus-hook uninstall: dry run; nothing was written");
        return Ok(());
    }
    install::check_writable(&settings)?;
    if let Some(codex) = &codex {
        install::check_writable(&codex.path)?;
    }
    let backup = install::backup(&settings, &backup_stamp())?;
    let dir = install_dir(&scope)?;
    if manifest_says_created(&dir)
        && SettingsDoc::parse(&name, &after).is_ok_and(|d| d.to_json() == serde_json::json!({}))
    {
        std::fs::remove_file(&settings).map_err(|source| UninstallError::Remove {
            path: settings.clone(),
            source,
        })?;
        if let Some(codex) = &codex {
            codex.apply_removing(false, codex_created)?;
        }
        outln!(
            "animus-hook uninstall: removed {name}, which install had created (the state before \
             was backed up to {})",
            backup.display()
        );
        remove_install_dir(&dir);
        return Ok(());
    }
    install::write_settings(&settings, &after)?;
    if let Some(codex) = &codex {
        codex.apply_removing(false, codex_created)?;
    }
    match restored {
        Some(from) => outln!(
            "animus-hook uninstall: removed {removed} hooks; {name} is again the content of {} \
             (the state before was backed up to {})",
            from.display(),
            backup.display()
        ),
        None => outln!(
            "animus-hook uninstall: removed {removed} hooks from {name} (the state before was \
             backed up to {})",
            backup.display()
        ),
    }
    remove_install_dir(&install_dir(&scope)?);
    Ok(())
}

/// Remove the files install wrote into `dir` (and `dir`, when nothing else is left in it).
fn remove_install_dir(dir: &Path) {
    let policy = dir.join(compiler::artifact::POLICY_FILE_NAME);
    for file in [
        engine::sidecar::stamp_path_for(&policy),
        policy.clone(),
        engine::sidecar::sidecar_path_for(&policy),
        dir.join(MANIFEST_FILE),
        dir.join(PROFILE_FILE),
    ] {
        let _ = std::fs::remove_file(file);
    }
    if std::fs::remove_dir(dir).is_ok() {
        outln!(
            "animus-hook uninstall: removed the installed policy {}",
            dir.display()
        );
    }
}
