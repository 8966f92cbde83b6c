//! The requirement catalogue (`requirements.yaml`, our own copy) and the policy ids.
//!
//! Every check cites at least one requirement id from the catalogue, and may cite policies
//! (POL-n) next to them; a test pins that every cited id exists.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

/// The catalogue file, embedded so the binary needs nothing at run time.
pub const CATALOGUE_YAML: &str = include_str!("../requirements.yaml");

/// One normative server requirement.
#[derive(Debug, Clone, Deserialize)]
pub struct Requirement {
    pub id: String,
    pub era: String,
    pub level: String,
    pub text: String,
    pub source: String,
    /// The only revisions it applies at, when its era says too much (`RPC-10`: 2025-03-26).
    #[serde(default)]
    pub revisions: Vec<String>,
    /// The oldest revision at which it is a MUST, when its level changed between revisions.
    #[serde(default)]
    pub must_since: Option<String>,
}

impl Requirement {
    /// Whether it applies at `revision`: by its era (`legacy` at the handshake revisions,
    /// `modern` at the others, `all` at each), narrowed by `revisions` when given.
    pub fn applies_at(&self, revision: &str) -> bool {
        let handshake = mcpspec_core::protocol::version::LEGACY.contains(&revision);
        let by_era = match self.era.as_str() {
            "modern" => !handshake,
            "legacy" => handshake,
            _ => true,
        };
        by_era && (self.revisions.is_empty() || self.revisions.iter().any(|r| r == revision))
    }

    /// Whether it is a MUST (or MUST NOT) at `revision`. Revisions are dates, so they compare
    /// as text.
    pub fn is_must_at(&self, revision: &str) -> bool {
        match &self.must_since {
            Some(since) => revision >= since.as_str(),
            None => self.level.trim_start().starts_with("MUST"),
        }
    }
}

#[derive(Deserialize)]
struct File {
    requirements: Vec<Requirement>,
    /// What an MCP client must do (CLI-n), judged by `mcpspec client`.
    #[serde(default)]
    client_requirements: Vec<Requirement>,
}

/// The embedded file, parsed once. It is ours and tested, so a parse failure is a build defect,
/// caught by the unit test below.
fn file() -> &'static File {
    static FILE: OnceLock<File> = OnceLock::new();
    FILE.get_or_init(|| {
        crate::yaml::from_str(CATALOGUE_YAML).unwrap_or(File {
            requirements: vec![],
            client_requirements: vec![],
        })
    })
}

fn by_id(list: &[Requirement]) -> BTreeMap<String, Requirement> {
    list.iter().map(|r| (r.id.clone(), r.clone())).collect()
}

/// The server requirements, by id.
pub fn catalogue() -> &'static BTreeMap<String, Requirement> {
    static CATALOGUE: OnceLock<BTreeMap<String, Requirement>> = OnceLock::new();
    CATALOGUE.get_or_init(|| by_id(&file().requirements))
}

/// The client requirements (CLI-n), by id.
pub fn client_catalogue() -> &'static BTreeMap<String, Requirement> {
    static CATALOGUE: OnceLock<BTreeMap<String, Requirement>> = OnceLock::new();
    CATALOGUE.get_or_init(|| by_id(&file().client_requirements))
}

/// A server or client requirement by id.
pub fn requirement(id: &str) -> Option<&'static Requirement> {
    catalogue().get(id).or_else(|| client_catalogue().get(id))
}

/// Where `S/` in a requirement's `source` points.
pub const SPEC_BASE: &str = "https://modelcontextprotocol.io/specification/";

/// The links a requirement's `source` names unambiguously: each `S/<page>[#anchor]` part, and
/// a bare `#anchor` part on the page before it. Parts written in words (`…/stdio`, `schema`,
/// `jsonrpc.org §5`) stay in the text only.
pub fn source_links(requirement: &Requirement) -> Vec<String> {
    let mut links = Vec::new();
    let mut page: Option<&str> = None;
    for part in requirement.source.split(';').map(str::trim) {
        if let Some(rest) = part.strip_prefix("S/") {
            let rest = rest.split_whitespace().next().unwrap_or(rest);
            page = Some(rest.split('#').next().unwrap_or(rest));
            links.push(format!("{SPEC_BASE}{rest}"));
        } else if let (Some(anchor), Some(page)) = (part.strip_prefix('#'), page) {
            let anchor = anchor.split_whitespace().next().unwrap_or(anchor);
            links.push(format!("{SPEC_BASE}{page}#{anchor}"));
        }
    }
    links
}

/// The book's page of policies, from the repository's root: each policy is its section `## POL-n`.
pub const POLICIES_PAGE: &str = "docs/policies.md";

/// Where policy `id` is told, relative to the book's pages: `policies.md#pol-12`.
pub fn policy_anchor(id: &str) -> String {
    let page = POLICIES_PAGE.rsplit('/').next().unwrap_or(POLICIES_PAGE);
    format!("{page}#{}", id.to_lowercase())
}

/// The policies (`docs/policies.md`), by id, with a short title of our own.
pub const POLICIES: &[(&str, &str)] = &[
    ("POL-1", "one rule per negative test"),
    ("POL-2", "unreadable ids: null or absent id both pass"),
    ("POL-3", "invalid JSON: -32700, keep serving"),
    ("POL-4", "batches: single -32600 passes"),
    ("POL-5", "null ids are invalid requests"),
    ("POL-6", "legacy version negotiation counter-offers"),
    ("POL-7", "initialize with the modern envelope: -32601"),
    ("POL-8", "eras are not mixed on one connection"),
    ("POL-9", "server-ended subscriptions"),
    ("POL-10", "HTTP header validation: 400 and -32020"),
    ("POL-11", "capability gating"),
    ("POL-12", "tool safety"),
    ("POL-13", "timeouts are reported as such"),
    ("POL-14", "deadlock verdicts"),
    ("POL-15", "error code ranges"),
    ("POL-16", "resultType on modern results"),
    ("POL-17", "repeated initialize: recorded"),
    ("POL-18", "requests before initialize: any error passes"),
    (
        "POL-19",
        "envelope-less requests to a dual-era server over stdio",
    ),
    ("POL-20", "schema violations: a Fail of the receiving check"),
    ("POL-21", "shared processes"),
    ("POL-22", "replicas"),
    ("POL-23", "a reply is result/error without method"),
    ("POL-24", "slow is not silent"),
    ("POL-25", "id-less invalid messages: -32600 or silence"),
    (
        "POL-26",
        "version header against body: a version no era serves",
    ),
    (
        "POL-27",
        "SSE: empty-data events are no message; every event counts",
    ),
    ("POL-28", "era-independent checks on legacy-only servers"),
    (
        "POL-29",
        "id: null in HTTP rejections decided from the headers",
    ),
    (
        "POL-30",
        "verdicts carry their evidence: confirmed on a fresh process",
    ),
    ("POL-31", "the feature surface: what is read and called"),
    ("POL-32", "repeated header fields: the same value twice"),
    ("POL-33", "host and origin: the MUST is about Origin"),
    ("POL-34", "what a client was never asked to do is skipped"),
    (
        "POL-35",
        "tiers: scored per role and per revision, from verdicts alone",
    ),
];

/// Whether `id` names a requirement or a policy.
#[cfg(test)]
pub fn is_known(id: &str) -> bool {
    requirement(id).is_some() || POLICIES.iter().any(|(p, _)| *p == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_has_all_112_server_and_19_client_requirements() {
        assert_eq!(catalogue().len(), 112);
        assert_eq!(client_catalogue().len(), 19);
        assert!(requirement("CLI-2").is_some_and(|r| r.text.contains("server/discover")));
        assert!(requirement("RPC-5").is_some_and(|r| r.text.contains("-32700")));
    }

    #[test]
    fn a_requirement_applies_and_binds_by_revision() {
        let req = |id: &str| requirement(id).expect("in the catalogue");
        assert!(req("DISC-3").applies_at("2026-07-28"));
        assert!(!req("DISC-3").applies_at("2025-11-25"));
        assert!(req("LEG-1").applies_at("2024-11-05") && !req("LEG-1").applies_at("2026-07-28"));
        assert!(req("RPC-1").applies_at("2024-11-05") && req("RPC-1").applies_at("2026-07-28"));
        // Batches: 2025-03-26 only.
        assert!(req("RPC-10").applies_at("2025-03-26"));
        assert!(!req("RPC-10").applies_at("2025-06-18"));
        // Structured output: from 2025-06-18.
        assert!(!req("SCHEMA-3").applies_at("2025-03-26"));
        assert!(req("SCHEMA-3").applies_at("2026-07-28"));
        // Tool schemas: a SHOULD before 2025-11-25, a MUST from it.
        assert!(!req("SCHEMA-2").is_must_at("2025-06-18"));
        assert!(req("SCHEMA-2").is_must_at("2025-11-25"));
        assert!(req("RPC-8").is_must_at("2026-07-28"), "MUST NOT is a MUST");
        assert!(!req("META-5").is_must_at("2026-07-28"), "a SHOULD");
        // Every revision named in the file is one mcpspec knows.
        for r in catalogue().values().chain(client_catalogue().values()) {
            for rev in r.revisions.iter().chain(&r.must_since) {
                assert!(
                    mcpspec_core::protocol::version::ALL.contains(&rev.as_str()),
                    "{}: {rev}",
                    r.id
                );
            }
        }
    }

    #[test]
    fn source_links_resolve_pages_and_bare_anchors() {
        let rpc2 = requirement("RPC-2").expect("RPC-2 is in the catalogue");
        assert_eq!(
            source_links(rpc2),
            [
                "https://modelcontextprotocol.io/specification/2026-07-28/basic/index#responses",
                "https://modelcontextprotocol.io/specification/2026-07-28/basic/index#error-responses",
            ]
        );
    }
}
