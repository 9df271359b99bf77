//! The pack files compiled into the binary. Adding a file to `packs/` means adding its name
//! here: a test fails when a file in `packs/` is missing from this list.

/// `pack!("core.git")` is `("packs/core.git.yaml", <its text>)`.
macro_rules! pack {
    ($name:literal) => {
        (
            concat!("packs/", $name, ".yaml"),
            include_str!(concat!("../../../packs/", $name, ".yaml")),
        )
    };
}

/// The packs compiled into the binary: (repository path, text), in the order `animus-hook
/// packs` lists them.
pub(super) const EMBEDDED: &[(&str, &str)] = &[
    pack!("core.git"),
    pack!("core.filesystem"),
    pack!("core.shell"),
    pack!("core.secrets"),
    pack!("database.postgresql"),
    pack!("database.mysql"),
    pack!("containers.docker"),
    pack!("kubernetes"),
    pack!("cloud.aws"),
    pack!("infra.terraform"),
];
