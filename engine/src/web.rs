//! URLs as Claude's `WebFetch(domain:…)` rules see them.
//!
//! The host of a call's URL is found by a WHATWG URL parser (the `url` crate, the same
//! standard as the `new URL(…)` Claude's fetch uses), never by a regex: in
//! `https://evil.com/?q=example.com`, `https://example.com.evil.com/` and
//! `https://user@evil.com/example.com` the host is not `example.com`, and `https://%65vil.com/`
//! or `https://EVIL.com./` is `evil.com`. The host, behind [`HOST_START`], is the only text a
//! domain matcher searches ([`host_texts`]); a [`DomainPattern`] becomes a regex over it.

use crate::pattern_error::PatternError;

/// The character before a host text, so that a domain is a literal anchored at the host's
/// start (no host contains it).
pub const HOST_START: char = '\u{1}';

/// The argument of a `WebFetch(domain:…)` entry, without `domain:`: a host name, `*.` and a
/// domain for every host below it, or `*` for every host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DomainPattern {
    /// The domain as written, without a leading `*.`.
    pub domain: String,
    /// Written `*.domain`: hosts below the domain.
    pub subdomains: bool,
}

impl DomainPattern {
    /// Read a domain (`example.com`, `*.example.com`); the error is a sentence.
    pub fn parse(pattern: &str) -> Result<DomainPattern, PatternError> {
        if pattern == "*" {
            // Every host.
            return Ok(DomainPattern {
                domain: String::new(),
                subdomains: true,
            });
        }
        let (domain, subdomains) = match pattern.strip_prefix("*.") {
            Some(rest) => (rest, true),
            None => (pattern, false),
        };
        if domain.is_empty() {
            return Err(PatternError::Empty { what: "domain" });
        }
        if let Some(c) = domain.chars().find(|c| {
            c.is_control() || c.is_whitespace() || matches!(c, '/' | '*' | '@' | '?' | '#')
        }) {
            return Err(PatternError::NotAHostName {
                pattern: pattern.to_string(),
                character: c,
            });
        }
        Ok(DomainPattern {
            domain: domain.to_string(),
            subdomains,
        })
    }

    /// The regex searched in [`host_texts`]. `generous` (deny, ask): the host is the domain
    /// or any host below it, compared without case. Otherwise (allow) as Claude compares:
    /// the host exactly, or for `*.domain` a host below the domain.
    pub fn regex(&self, generous: bool) -> String {
        // Host texts are `\x01.` and the host ([`host_texts`]): a domain and every host below
        // it are the texts ending in `.domain`, and every regex is a plain literal or chain.
        let start = format!("\\x{:02x}\\.", HOST_START as u32);
        if self.domain.is_empty() {
            return start;
        }
        if generous {
            let domain = crate::semantics::escape_literal(&self.domain.to_ascii_lowercase());
            return format!("\\.{domain}$");
        }
        let domain = crate::semantics::escape_literal(&self.domain);
        if self.subdomains {
            format!("{start}.*\\.{domain}$")
        } else {
            format!("{start}{domain}$")
        }
    }
}

/// The texts a domain matcher searches for one URL: its host behind [`HOST_START`], and for a
/// host written with a trailing dot (`example.com.`, the same name) that spelling without it.
/// A value that is not a URL with a host offers no text.
pub fn host_texts(value: &str) -> Vec<String> {
    let Ok(url) = url::Url::parse(value) else {
        return Vec::new();
    };
    let Some(host) = url.host_str() else {
        return Vec::new();
    };
    let mut texts = vec![format!("{HOST_START}.{host}")];
    if let Some(bare) = host.strip_suffix('.')
        && !bare.is_empty()
    {
        texts.push(format!("{HOST_START}.{bare}"));
    }
    texts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, generous: bool, url: &str) -> bool {
        let re =
            regex::Regex::new(&DomainPattern::parse(pattern).unwrap().regex(generous)).unwrap();
        host_texts(url).iter().any(|t| re.is_match(t))
    }

    #[test]
    fn the_host_is_parsed_not_searched() {
        for generous in [false, true] {
            assert!(matches("example.com", generous, "https://example.com/x"));
            assert!(matches(
                "example.com",
                generous,
                "https://EXAMPLE.com:8443/"
            ));
            assert!(matches("example.com", generous, "https://example.com./"));
            assert!(!matches(
                "example.com",
                generous,
                "https://evil.com/?q=example.com"
            ));
            assert!(!matches(
                "example.com",
                generous,
                "https://example.com.evil.com/"
            ));
            assert!(!matches(
                "example.com",
                generous,
                "https://user@evil.com/example.com"
            ));
            assert!(!matches("example.com", generous, "https://notexample.com/"));
            assert!(!matches("example.com", generous, "not a url"));
        }
        assert!(matches("evil.com", true, "https://%65vil.com/"));
        assert!(matches("evil.com", true, "https://evil\u{3002}com/"));
        assert!(!matches(
            "evil.com",
            true,
            "https://example.com\\@evil.com/"
        ));
        assert!(matches(
            "example.com",
            true,
            "https://example.com\\@evil.com/"
        ));
        // Deny reaches hosts below the domain; allow does not.
        assert!(matches("example.com", true, "https://api.example.com/"));
        assert!(!matches("example.com", false, "https://api.example.com/"));
        assert!(matches("*.example.com", false, "https://api.example.com/"));
        assert!(!matches("*.example.com", false, "https://example.com/"));
        assert!(matches("Example.com", true, "https://example.com/"));
        assert!(matches("*", false, "https://docs.nats.io/"));
        assert!(!matches("*", true, "data:text/plain,x"));
    }
}
