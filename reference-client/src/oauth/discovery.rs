//! Discovery: the Protected Resource Metadata of the MCP server (RFC 9728) and the metadata of
//! its first authorization server (RFC 8414 / OpenID Connect discovery), each tried at its URLs
//! in order until one answers a JSON document, and that document checked: a PRM naming another
//! resource, or AS metadata naming another issuer, ends discovery with an error.

use serde_json::Value;

use super::fetch::Fetcher;
use super::urls;
use crate::faults::{Fault, Faults};

/// What the PRM says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    /// `resource`.
    pub resource: String,
    /// `scopes_supported` (empty when absent).
    pub scopes_supported: Vec<String>,
    /// `authorization_servers[0]`: the issuer the client goes to.
    pub issuer: String,
}

/// What the AS metadata says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Server {
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    pub registration_endpoint: Option<String>,
    pub scopes_supported: Vec<String>,
    /// `code_challenge_methods_supported`; `None` when absent.
    pub challenge_methods: Option<Vec<String>>,
    /// `client_id_metadata_document_supported`.
    pub cimd_supported: bool,
    /// `authorization_response_iss_parameter_supported`.
    pub iss_supported: bool,
}

/// Both documents.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Discovered {
    pub resource: Resource,
    pub server: Server,
}

/// Discovers the authorization of `mcp_url`, whose 401 named `challenged` as its PRM URL.
pub async fn discover(
    fetcher: &mut Fetcher,
    faults: &Faults,
    mcp_url: &str,
    challenged: Option<&str>,
) -> Result<Discovered, String> {
    let resource = protected_resource(fetcher, faults, mcp_url, challenged).await?;
    let server = authorization_server(fetcher, faults, &resource.issuer).await?;
    Ok(Discovered { resource, server })
}

/// The PRM URLs in the order tried: the challenge's, then the well-known ones (the root one
/// alone under `prm-root-only`), each once.
pub fn prm_candidates(faults: &Faults, mcp_url: &str, challenged: Option<&str>) -> Vec<String> {
    if faults.has(Fault::PrmRootOnly) {
        return urls::prm_root_url(mcp_url).into_iter().collect();
    }
    let mut candidates: Vec<String> = challenged.map(str::to_owned).into_iter().collect();
    for url in urls::prm_urls(mcp_url) {
        if !candidates.contains(&url) {
            candidates.push(url);
        }
    }
    candidates
}

async fn protected_resource(
    fetcher: &mut Fetcher,
    faults: &Faults,
    mcp_url: &str,
    challenged: Option<&str>,
) -> Result<Resource, String> {
    for url in prm_candidates(faults, mcp_url, challenged) {
        let Some(doc) = fetcher.document(&url).await? else {
            continue;
        };
        let resource = text(&doc, "resource").unwrap_or_default();
        if resource != mcp_url && !faults.has(Fault::AcceptAnyPrmResource) {
            return Err(format!(
                "the protected resource metadata at {url} is for `{resource}`, not `{mcp_url}`"
            ));
        }
        let issuer = doc
            .get("authorization_servers")
            .and_then(Value::as_array)
            .and_then(|a| a.first())
            .and_then(Value::as_str)
            .ok_or_else(|| {
                format!("the protected resource metadata at {url} names no authorization server")
            })?;
        return Ok(Resource {
            resource,
            scopes_supported: texts(&doc, "scopes_supported"),
            issuer: issuer.to_owned(),
        });
    }
    Err(format!(
        "no protected resource metadata for {mcp_url} at any URL tried"
    ))
}

async fn authorization_server(
    fetcher: &mut Fetcher,
    faults: &Faults,
    issuer: &str,
) -> Result<Server, String> {
    let oidc_first = faults.has(Fault::AsMetadataOidcFirst);
    for url in urls::as_metadata_urls(issuer, oidc_first) {
        let Some(doc) = fetcher.document(&url).await? else {
            continue;
        };
        let named = text(&doc, "issuer").unwrap_or_default();
        if named != issuer && !faults.has(Fault::AcceptAnyIssuer) {
            return Err(format!(
                "the authorization server metadata at {url} names issuer `{named}`, not `{issuer}`"
            ));
        }
        let endpoint = |key: &str| {
            text(&doc, key)
                .ok_or_else(|| format!("the authorization server metadata at {url} has no {key}"))
        };
        return Ok(Server {
            issuer: named.clone(),
            authorization_endpoint: endpoint("authorization_endpoint")?,
            token_endpoint: endpoint("token_endpoint")?,
            registration_endpoint: text(&doc, "registration_endpoint"),
            scopes_supported: texts(&doc, "scopes_supported"),
            challenge_methods: doc
                .get("code_challenge_methods_supported")
                .and_then(Value::as_array)
                .map(|_| texts(&doc, "code_challenge_methods_supported")),
            cimd_supported: flag(&doc, "client_id_metadata_document_supported"),
            iss_supported: flag(&doc, "authorization_response_iss_parameter_supported"),
        });
    }
    Err(format!(
        "no authorization server metadata for {issuer} at any URL tried"
    ))
}

fn text(doc: &Value, key: &str) -> Option<String> {
    doc.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn texts(doc: &Value, key: &str) -> Vec<String> {
    doc.get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

fn flag(doc: &Value, key: &str) -> bool {
    doc.get(key).and_then(Value::as_bool) == Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prm_is_tried_at_the_challenge_then_path_inserted_then_root() {
        let mcp = "http://127.0.0.1:8/mcp";
        let inserted = "http://127.0.0.1:8/.well-known/oauth-protected-resource/mcp";
        let root = "http://127.0.0.1:8/.well-known/oauth-protected-resource";
        let none = Faults::default();
        assert_eq!(prm_candidates(&none, mcp, None), [inserted, root]);
        assert_eq!(prm_candidates(&none, mcp, Some(inserted)), [inserted, root]);
        assert_eq!(
            prm_candidates(&none, mcp, Some("http://o:1/prm")),
            ["http://o:1/prm", inserted, root]
        );
        let root_only = Faults::default().with(Fault::PrmRootOnly);
        assert_eq!(prm_candidates(&root_only, mcp, Some(inserted)), [root]);
    }
}
