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
    pack!("backup.borg"),
    pack!("backup.rclone"),
    pack!("backup.restic"),
    pack!("backup.velero"),
    pack!("cdn.cloudflare-workers"),
    pack!("cdn.cloudfront"),
    pack!("cdn.fastly"),
    pack!("cicd.circleci"),
    pack!("cicd.github-actions"),
    pack!("cicd.gitlab"),
    pack!("cicd.jenkins"),
    pack!("cloud.aws"),
    pack!("containers.docker"),
    pack!("database.mysql"),
    pack!("database.postgresql"),
    pack!("dns.cloudflare"),
    pack!("dns.route53"),
    pack!("email.aws-ses"),
    pack!("email.providers"),
    pack!("featureflags.launchdarkly"),
    pack!("featureflags.unleash"),
    pack!("infra.terraform"),
    pack!("kubernetes"),
    pack!("loadbalancer.aws"),
    pack!("loadbalancer.proxies"),
    pack!("messaging.aws"),
    pack!("messaging.kafka"),
    pack!("messaging.nats"),
    pack!("messaging.rabbitmq"),
    pack!("monitoring.datadog"),
    pack!("monitoring.grafana"),
    pack!("monitoring.pagerduty"),
    pack!("payment.stripe"),
    pack!("platform.github"),
    pack!("platform.gitlab"),
    pack!("remote.rsync"),
    pack!("search.algolia"),
    pack!("search.elasticsearch"),
    pack!("search.meilisearch"),
    pack!("secrets.aws"),
    pack!("secrets.doppler"),
    pack!("secrets.onepassword"),
    pack!("secrets.vault"),
    pack!("storage.azure"),
    pack!("storage.gcs"),
    pack!("storage.minio"),
    pack!("storage.s3"),
    pack!("strict.secret-reads"),
];
