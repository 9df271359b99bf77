//! `animus-hook doctor`: is the installed guard really guarding? One line per check, `✓` or
//! `✗` with the command that fixes it; `--json` prints the same as one object. Exit 0 only when
//! every check passes.
//!
//! It looks at every Claude settings file `install` writes to — the user's, and the project's
//! two for the project of the working directory (or `--project-root`) — and checks each one
//! holding our hooks (the user's is always checked: no install anywhere is a failure):
//!
//! 1. the file parses (strict JSON: what `install` writes and re-reads);
//! 2. both gates (`PreToolUse`, `PermissionRequest`) are there, in exec form, with
//!    `"onFailure": "block"` and a pinned policy; the observers are there;
//! 3. the binary they run exists, is executable and answers `--version` with this version;
//! 4. the policy loads with its pin (policy, sidecar and stamp agree), and compiles from its
//!    sources (the manifest's profile, or the packs and the settings' lists) to the same bytes;
//! 5. the kill switch is set neither in this environment nor in the settings' `env`;
//! 6. the state directory is this user's and `0700`;
//! 7. the exact installed gate command denies a call that rewrites its own policy and says
//!    nothing to `git status`;
//! 8. the harness CLI's version, when `claude` is on `PATH` (information; it fails only when
//!    `claude --version` does).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use integrations::inject::install::{self, MANIFEST_FILE, Scope};
use integrations::inject::settings_doc::SettingsDoc;
use serde_json::{Value, json};

use crate::install_cmd;
use crate::stdout::outln;

mod probe;
use probe::{cli_version, probe};

/// What `doctor` was asked.
#[derive(clap::Args)]
pub struct DoctorArgs {
    /// One JSON document: {"ok", "checks": [{"check", "ok", "detail", "fix"}]}
    #[arg(long)]
    pub json: bool,
    /// The project whose settings to check too
    #[arg(long, value_name = "DIR")]
    pub project_root: Option<PathBuf>,
    /// Also check the plugin `install --plugin-dir` wrote there
    #[arg(long, value_name = "DIR")]
    pub plugin_dir: Option<PathBuf>,
}

/// One check's outcome.
struct Check {
    name: String,
    ok: bool,
    detail: String,
    fix: Option<String>,
}

#[derive(Default)]
struct Report {
    checks: Vec<Check>,
}

impl Report {
    fn pass(&mut self, name: impl Into<String>, detail: impl Into<String>) {
        self.checks.push(Check {
            name: name.into(),
            ok: true,
            detail: detail.into(),
            fix: None,
        });
    }

    fn fail(&mut self, name: impl Into<String>, detail: impl Into<String>, fix: impl Into<String>) {
        self.checks.push(Check {
            name: name.into(),
            ok: false,
            detail: detail.into(),
            fix: Some(fix.into()),
        });
    }

    fn check(&mut self, name: &str, result: Result<String, (String, String)>) -> bool {
        match result {
            Ok(detail) => {
                self.pass(name, detail);
                true
            }
            Err((detail, fix)) => {
                self.fail(name, detail, fix);
                false
            }
        }
    }
}

fn env(name: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(name)
}

pub fn run(args: DoctorArgs) -> ExitCode {
    let mut report = Report::default();
    diagnose(&args, &mut report);
    let ok = report.checks.iter().all(|c| c.ok);
    if args.json {
        let checks: Vec<Value> = report
            .checks
            .iter()
            .map(|c| json!({"check": c.name, "ok": c.ok, "detail": c.detail, "fix": c.fix}))
            .collect();
        outln!("{}", json!({"ok": ok, "checks": checks}));
    } else {
        let mut out = std::io::stdout().lock();
        for c in &report.checks {
            let mark = if c.ok { "✓" } else { "✗" };
            let _ = write!(out, "{mark} {}: {}", c.name, c.detail);
            if let Some(fix) = &c.fix {
                let _ = write!(out, " — fix: {fix}");
            }
            let _ = writeln!(out);
        }
        let failed = report.checks.iter().filter(|c| !c.ok).count();
        let _ = writeln!(
            out,
            "{}",
            if ok {
                "animus-hook doctor: every check passed".to_string()
            } else {
                format!("animus-hook doctor: {failed} check(s) failed")
            }
        );
    }
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn diagnose(args: &DoctorArgs, report: &mut Report) {
    let mut scopes = vec![Scope::User];
    if let Ok(Scope::Project { root, .. }) = install_cmd::scope_of(
        install_cmd::ScopeArg::Project,
        false,
        args.project_root.as_deref(),
        None,
    ) {
        scopes.push(Scope::Project {
            root: root.clone(),
            local: false,
        });
        scopes.push(Scope::Project { root, local: true });
    }
    if let Some(dir) = &args.plugin_dir {
        match std::fs::canonicalize(dir) {
            Ok(dir) => scopes.push(Scope::Plugin { dir }),
            Err(e) => report.fail(
                "plugin",
                format!("{}: {e}", dir.display()),
                format!("animus-hook install --plugin-dir {}", dir.display()),
            ),
        }
    }
    // A project at HOME names the user's settings again: checked once.
    let user = install::settings_path(&Scope::User, &env).ok();
    scopes.retain(|s| s == &Scope::User || install::settings_path(s, &env).ok() != user);
    let opencode = install::opencode_config_dir(&env)
        .ok()
        .map(|config_dir| Scope::Opencode { config_dir });
    let opencode_plugin = opencode
        .as_ref()
        .and_then(|scope| install::settings_path(scope, &env).ok())
        .and_then(|path| std::fs::read_to_string(&path).ok().map(|text| (path, text)))
        .filter(|(_, text)| text.starts_with(integrations::inject::opencode::INSTALLED_HEADER));
    let gemini = install::gemini_home(&env)
        .ok()
        .map(|home| Scope::Gemini { home });
    let gemini_settings = gemini.as_ref().and_then(settings_with_ours);
    let codex = install::codex::codex_home(&env)
        .ok()
        .map(|home| Scope::Codex { home });
    let codex_hooks = codex.as_ref().and_then(settings_with_ours);
    let projects_installed = scopes[1..].iter().any(has_ours)
        || opencode_plugin.is_some()
        || gemini_settings.is_some()
        || codex_hooks.is_some();
    for scope in &scopes {
        let settings = match install::settings_path(scope, &env) {
            Ok(path) => path,
            Err(e) => {
                report.fail("settings", e.to_string(), "set HOME (or CLAUDE_CONFIG_DIR)");
                continue;
            }
        };
        let text = std::fs::read_to_string(&settings);
        if text.is_err() && (scope != &Scope::User || projects_installed) {
            continue;
        }
        let name = settings.display().to_string();
        if let Err(e) = &text
            && e.kind() == std::io::ErrorKind::NotFound
        {
            report.fail(
                "installed",
                format!("{name} does not exist: no claude session is guarded"),
                "animus-hook install",
            );
            continue;
        }
        let doc = match text
            .map_err(|e| e.to_string())
            .and_then(|t| SettingsDoc::parse(&name, &t).map_err(|e| e.to_string()))
        {
            Ok(doc) => doc,
            Err(e) => {
                report.fail(
                    format!("settings parse ({})", scope.name()),
                    e,
                    format!("fix {name} by hand, then `animus-hook install`"),
                );
                continue;
            }
        };
        let ours = install::our_handlers(&doc);
        if ours.is_empty() {
            if scope == &Scope::User && !projects_installed {
                report.fail(
                    "installed",
                    format!("{name} holds no animus-hook hooks, nor does the project's settings"),
                    "animus-hook install",
                );
            }
            continue;
        }
        report.pass(format!("settings parse ({})", scope.name()), name.clone());
        diagnose_install(scope, &name, &doc, &ours, report);
    }
    if let (Some(scope), Some((path, text))) = (&opencode, &opencode_plugin) {
        match integrations::inject::opencode::plugin_gate(text) {
            Some((binary, args)) => {
                report.pass("opencode plugin", path.display().to_string());
                diagnose_gate(scope, &binary, &args, report);
            }
            None => report.fail(
                "opencode plugin",
                format!("{}: no gate command in it", path.display()),
                reinstall(scope),
            ),
        }
    }
    if let (Some(scope), Some((path, doc))) = (&gemini, &gemini_settings) {
        diagnose_gemini(scope, path, doc, report);
    }
    if let (Some(scope), Some((path, doc))) = (&codex, &codex_hooks) {
        diagnose_codex(scope, path, doc, report);
    }
    kill_switch(report);
    state_dir(report);
    cli_version(report, "claude");
    if gemini_settings.is_some() {
        cli_version(report, "gemini");
    }
    if opencode_plugin.is_some() {
        cli_version(report, "opencode");
    }
    if codex_hooks.is_some() {
        cli_version(report, "codex");
    }
}

fn has_ours(scope: &Scope) -> bool {
    settings_with_ours(scope).is_some()
}

/// The settings file of `scope` and its document, when it parses and holds hooks of ours.
fn settings_with_ours(scope: &Scope) -> Option<(PathBuf, SettingsDoc)> {
    let path = install::settings_path(scope, &env).ok()?;
    let text = std::fs::read_to_string(&path).ok()?;
    let doc = SettingsDoc::parse(&path.display().to_string(), &text).ok()?;
    (!install::our_handlers(&doc).is_empty()).then_some((path, doc))
}

/// Gemini CLI's settings: our `BeforeTool` gate (its shell line read back into the command),
/// `hooksConfig.enabled`, then the checks every gate gets.
fn diagnose_gemini(scope: &Scope, path: &Path, doc: &SettingsDoc, report: &mut Report) {
    let fix = reinstall(scope);
    let gate = install::our_handlers(doc)
        .into_iter()
        .filter(|(event, _)| event == "BeforeTool")
        .find_map(|(_, handler)| {
            let command = handler.to_json()["command"].as_str()?.to_string();
            install::gemini::gate_of_shell_line(&command)
        });
    let Some((binary, args)) = gate else {
        report.fail(
            "gates (gemini)",
            format!("{}: no `BeforeTool` gate of ours", path.display()),
            fix,
        );
        return;
    };
    report.check(
        "gates (gemini)",
        if install::gemini::hooks_enabled(doc) == Some(json!(true)) {
            Ok(format!(
                "{}: BeforeTool gated, hooksConfig.enabled",
                path.display()
            ))
        } else {
            Err((
                format!("{}: `hooksConfig.enabled` is not true", path.display()),
                fix,
            ))
        },
    );
    diagnose_gate(scope, &binary, &args, report);
}

/// Codex's `hooks.json`: our gates (their shell lines read back into the command), each hook of
/// ours trusted in `config.toml` for exactly its definition (Codex skips an untrusted hook
/// without a word), `features.hooks` not off; then the checks every gate gets.
fn diagnose_codex(scope: &Scope, path: &Path, doc: &SettingsDoc, report: &mut Report) {
    let Scope::Codex { home } = scope else {
        return;
    };
    let fix = reinstall(scope);
    let ours = install::our_handlers(doc);
    let mut problems = Vec::new();
    let mut gate = None;
    for (event, _) in engine::harness::Harness::Codex.gate_events() {
        let found = ours
            .iter()
            .filter(|(e, _)| e == event)
            .find_map(|(_, handler)| {
                let command = handler.to_json()["command"].as_str()?.to_string();
                install::gemini::gate_of_shell_line(&command)
            });
        match found {
            Some(found) => {
                gate.get_or_insert(found);
            }
            None => problems.push(format!("no `{event}` gate of ours")),
        }
    }
    let config_path = home.join(install::codex::CONFIG_FILE);
    let config_text = std::fs::read_to_string(&config_path).unwrap_or_default();
    match install::codex::CodexConfig::parse(&config_path.display().to_string(), &config_text) {
        Ok(config) => {
            problems.extend(
                config
                    .untrusted_ours(path, doc)
                    .into_iter()
                    .map(|p| format!("{p} in {} (codex skips it silently)", config_path.display())),
            );
            if config.hooks_feature() == Some(false) {
                problems.push(format!(
                    "`features.hooks = false` in {} switches every hook off",
                    config_path.display()
                ));
            }
        }
        Err(e) => problems.push(e.to_string()),
    }
    report.check(
        "gates (codex)",
        if problems.is_empty() {
            Ok(format!(
                "{}: PreToolUse and PermissionRequest gated, {} hooks trusted in {}",
                path.display(),
                ours.len(),
                config_path.display()
            ))
        } else {
            Err((format!("{}: {}", path.display(), problems.join("; ")), fix))
        },
    );
    if let Some((binary, args)) = gate {
        diagnose_gate(scope, &binary, &args, report);
    }
}

/// The fix that reinstalls `scope`.
fn reinstall(scope: &Scope) -> String {
    match scope {
        Scope::User => "animus-hook install".into(),
        Scope::Project { root, local } => format!(
            "animus-hook install --scope project --project-root {}{}",
            root.display(),
            if *local { " --local" } else { "" }
        ),
        Scope::Plugin { dir } => format!("animus-hook install --plugin-dir {}", dir.display()),
        Scope::Opencode { .. } => "animus-hook install --harness opencode".into(),
        Scope::Gemini { .. } => "animus-hook install --harness gemini".into(),
        Scope::Codex { .. } => "animus-hook install --harness codex".into(),
    }
}

/// A handler's `command` and `args`.
fn command_of(handler: &compiler::jsonc::Node) -> Option<(String, Vec<String>)> {
    let json = handler.to_json();
    let command = json.get("command")?.as_str()?.to_string();
    let args = json
        .get("args")?
        .as_array()?
        .iter()
        .map(|a| a.as_str().map(String::from))
        .collect::<Option<Vec<_>>>()?;
    Some((command, args))
}

fn arg_after(args: &[String], flag: &str) -> Option<String> {
    args.iter()
        .position(|a| a == flag)
        .and_then(|i| args.get(i + 1))
        .cloned()
}

fn diagnose_install(
    scope: &Scope,
    name: &str,
    doc: &SettingsDoc,
    ours: &[(String, compiler::jsonc::Node)],
    report: &mut Report,
) {
    let fix = reinstall(scope);
    let scope_name = scope.name();
    // 2. The gates: present, exec form, onFailure block, pinned.
    let mut gate: Option<(String, Vec<String>)> = None;
    let mut problems = Vec::new();
    for event in engine::GATE_EVENTS {
        let handlers: Vec<_> = ours.iter().filter(|(e, _)| e == event).collect();
        if handlers.is_empty() {
            problems.push(format!("no `{event}` gate"));
        }
        for (_, handler) in handlers {
            let json = handler.to_json();
            match command_of(handler) {
                Some((command, args)) if json.get("type") == Some(&json!("command")) => {
                    if json.get("onFailure") != Some(&json!("block")) {
                        problems.push(format!("the `{event}` gate lacks \"onFailure\": \"block\""));
                    }
                    if arg_after(&args, "--policy").is_none()
                        || arg_after(&args, "--policy-digest").is_none()
                    {
                        problems.push(format!("the `{event}` gate names no pinned policy"));
                    }
                    gate.get_or_insert((command, args));
                }
                _ => problems.push(format!(
                    "the `{event}` gate is not in exec form (`command` and an `args` list)"
                )),
            }
        }
    }
    let observers_missing: Vec<&str> = integrations::inject::KERNEL_OBSERVER_EVENTS
        .into_iter()
        .filter(|event| !ours.iter().any(|(e, _)| e == event))
        .collect();
    if !observers_missing.is_empty() {
        problems.push(format!("no observer for {}", observers_missing.join(", ")));
    }
    let gates_ok = problems.is_empty();
    report.check(
        &format!("gates ({scope_name})"),
        if gates_ok {
            Ok(format!(
                "PreToolUse and PermissionRequest gated (exec form, onFailure block, pinned), {} observers",
                ours.len() - engine::GATE_EVENTS.len()
            ))
        } else {
            Err((format!("{name}: {}", problems.join("; ")), fix.clone()))
        },
    );
    let Some((binary, args)) = gate else { return };
    diagnose_gate(scope, &binary, &args, report);
    // The sandbox install wrote (`install --sandbox`), still there and unchanged.
    let policy = PathBuf::from(arg_after(&args, "--policy").unwrap_or_default());
    let recorded = policy
        .parent()
        .and_then(|dir| std::fs::read_to_string(dir.join(MANIFEST_FILE)).ok())
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .map(|manifest| manifest["sandbox"].clone())
        .filter(|sandbox| !sandbox.is_null());
    if let Some(recorded) = recorded {
        report.check(
            &format!("sandbox ({scope_name})"),
            if doc.to_json().get("sandbox") == Some(&recorded) {
                Ok("claude's Bash sandbox denies writes to the guard's places".into())
            } else {
                Err((
                    format!("{name}: the `sandbox` install wrote was changed or removed"),
                    format!("{fix} --sandbox"),
                ))
            },
        );
    }
    // 5. The kill switch in this file's `env`.
    let set = doc
        .to_json()
        .get("env")
        .and_then(|e| e.get(integrations::inject::KILL_SWITCH_ENV))
        .is_some_and(|v| v.as_str().is_none_or(|s| !s.is_empty()));
    report.check(
        &format!("kill switch in settings env ({scope_name})"),
        if set {
            Err((
                format!(
                    "{name} sets {} in `env`",
                    integrations::inject::KILL_SWITCH_ENV
                ),
                format!(
                    "remove `env.{}` from {name}",
                    integrations::inject::KILL_SWITCH_ENV
                ),
            ))
        } else {
            Ok("not set".into())
        },
    );
}

/// The checks every installed gate gets, whatever wires it: the binary, the policy with its
/// pin, its sources, and a live deny and pass through the exact command.
fn diagnose_gate(scope: &Scope, binary: &str, args: &[String], report: &mut Report) {
    let fix = reinstall(scope);
    let scope_name = scope.name();
    // 3. The binary.
    let binary_ok = report.check(
        &format!("hook binary ({scope_name})"),
        integrations::inject::verify_hook_binary(Path::new(binary))
            .map(|()| format!("{binary} is animus-hook {}", env!("CARGO_PKG_VERSION")))
            .map_err(|e| (e.to_string(), format!("reinstall the binary, then `{fix}`"))),
    );
    // 4. The policy: loads with its pin, and recompiles without drift.
    let policy = PathBuf::from(arg_after(args, "--policy").unwrap_or_default());
    let digest = arg_after(args, "--policy-digest").unwrap_or_default();
    let loaded = engine::sidecar::stamp::parse_pin(&digest)
        .map_err(|e| e.to_string())
        .and_then(|pin| {
            gate::policy_source::load_for_hook(&policy, Some(&pin))
                .map(drop)
                .map_err(|e| e.to_string())
        });
    let policy_ok = report.check(
        &format!("policy ({scope_name})"),
        loaded
            .map(|()| {
                format!(
                    "{} loads and matches its pin, sidecar and stamp",
                    policy.display()
                )
            })
            .map_err(|e| (format!("{}: {e}", policy.display()), fix.clone())),
    );
    report.check(
        &format!("policy sources ({scope_name})"),
        drift(scope, &policy, &fix),
    );
    // 7. The exact installed command, on a call it must deny and one it must leave alone.
    if binary_ok && policy_ok {
        report.check(
            &format!("live gate ({scope_name})"),
            probe(binary, args, &policy, &fix),
        );
    }
}

/// Recompile the installed policy from its sources and compare the bytes.
fn drift(scope: &Scope, policy: &Path, fix: &str) -> Result<String, (String, String)> {
    let dir = policy.parent().unwrap_or(Path::new("/"));
    let manifest: Value = std::fs::read_to_string(dir.join(MANIFEST_FILE))
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()))
        .map_err(|e| {
            (
                format!("{}: {e}", dir.join(MANIFEST_FILE).display()),
                fix.to_string(),
            )
        })?;
    let source = &manifest["source"];
    let profile = match (source["config"].as_str(), source["agent"].as_str()) {
        (Some(config), Some(agent)) => Some((PathBuf::from(config), agent.to_string())),
        _ => None,
    };
    let failed = |e: String| (e, fix.to_string());
    let source =
        install_cmd::source_of(scope, profile.as_ref(), dir).map_err(|e| failed(e.to_string()))?;
    let compiled = compiler::compile_profile(&source.profile).map_err(|e| failed(e.to_string()))?;
    let binary = manifest["hook_binary"]
        .as_str()
        .map(PathBuf::from)
        .unwrap_or_default();
    let guarded = install::guarded_places(scope);
    let artifacts = compiler::render_policy_artifacts(dir, &compiled, &[&binary], &guarded)
        .map_err(|e| failed(e.to_string()))?;
    let json_same = std::fs::read(policy).is_ok_and(|b| b == artifacts.json);
    let sidecar_same = std::fs::read(engine::sidecar::sidecar_path_for(policy))
        .is_ok_and(|b| b == artifacts.sidecar);
    if json_same && sidecar_same {
        Ok("recompiles from its sources to the same policy".into())
    } else {
        Err((
            format!(
                "{} is not what its sources compile to now (they changed since install, or the \
                 policy was altered)",
                policy.display()
            ),
            fix.to_string(),
        ))
    }
}

fn kill_switch(report: &mut Report) {
    let name = integrations::inject::KILL_SWITCH_ENV;
    match std::env::var_os(name).filter(|v| !v.is_empty()) {
        Some(value) => report.fail(
            "kill switch in environment",
            format!(
                "{name}={:?} is set: sessions launched with `inject` from here run unguarded",
                value
            ),
            format!("unset {name}"),
        ),
        None => report.pass("kill switch in environment", "not set"),
    }
}

fn state_dir(report: &mut Report) {
    use std::os::unix::fs::PermissionsExt;
    let result = gate::record::state_root()
        .map_err(|e| e.to_string())
        .and_then(|root| {
            let metadata =
                std::fs::metadata(&root).map_err(|e| format!("{}: {e}", root.display()))?;
            engine::ownership::check_owner_and_mode(&metadata, &root, false)
                .map_err(|e| e.to_string())?;
            let mode = metadata.permissions().mode() & 0o777;
            if mode != 0o700 {
                return Err(format!("{} has mode {mode:03o}, not 700", root.display()));
            }
            Ok(format!("{} is yours and 0700", root.display()))
        });
    match result {
        Ok(detail) => report.pass("state dir", detail),
        Err(e) => report.fail(
            "state dir",
            e,
            "chmod 700 the state dir (or `animus-hook install`)",
        ),
    }
}
