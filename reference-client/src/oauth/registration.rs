//! The client_id (CLI-15), in the spec's order of preference: the context's pre-registered
//! credentials, else its Client ID Metadata Document URL when the authorization server supports
//! those, else Dynamic Client Registration at the server's registration_endpoint, else none
//! (an error). The choice is a pure function ([`choose`]); only registration touches the wire.

use super::Context;
use super::discovery::Server;
use super::grant::{self, Client, Registered};
use crate::faults::{Fault, Faults};

/// The registrations the `register-forever` fault makes.
const REGISTER_FOREVER: usize = 10_000;
/// The padding of the `huge-body` fault's client_name.
const HUGE_NAME: usize = 30 * 1024 * 1024;
/// The client_id the `no-registration` fault makes up.
const MADE_UP: &str = "mcpspec-unregistered";

/// Where the client_id comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Choice {
    /// Held already: pre-registered, a metadata document URL, or (a fault) made up.
    Held(Client),
    /// Registered at this endpoint.
    Register(String),
}

/// Chooses as the module doc says (and as the faults break it).
pub fn choose(faults: &Faults, context: &Context, server: &Server) -> Result<Choice, String> {
    if faults.has(Fault::NoRegistration) {
        return Ok(Choice::Held(Client {
            id: MADE_UP.into(),
            secret: None,
        }));
    }
    let ignore_pre_registered = faults.has(Fault::IgnorePreRegistered);
    if let (Some(id), false) = (&context.client_id, ignore_pre_registered) {
        return Ok(Choice::Held(Client {
            id: id.clone(),
            secret: context.client_secret.clone(),
        }));
    }
    let cimd = server.cimd_supported && !faults.has(Fault::IgnoreCimd);
    if let (Some(url), true) = (&context.client_metadata_url, cimd) {
        return Ok(Choice::Held(Client {
            id: url.clone(),
            secret: None,
        }));
    }
    let guessed = ignore_pre_registered.then(|| format!("{}/register", server.issuer));
    server
        .registration_endpoint
        .clone()
        .or(guessed)
        .map(Choice::Register)
        .ok_or_else(|| {
            "no client_id: no pre-registered credentials, no client ID metadata document the \
             server supports, and no registration_endpoint"
                .into()
        })
}

/// The client_id: chosen, and registered when that is the choice.
pub async fn obtain(
    faults: &Faults,
    context: &Context,
    server: &Server,
    leak: Option<&str>,
) -> Result<Client, String> {
    match choose(faults, context, server)? {
        Choice::Held(client) => Ok(client),
        Choice::Register(endpoint) => register(faults, &endpoint, leak).await,
    }
}

/// Dynamic Client Registration at `endpoint` (10,000 times under `register-forever`, until a
/// 429).
async fn register(faults: &Faults, endpoint: &str, leak: Option<&str>) -> Result<Client, String> {
    let padding = if faults.has(Fault::HugeBody) {
        HUGE_NAME
    } else {
        0
    };
    let body = grant::registration(faults.has(Fault::DcrNoApplicationType), padding);
    let times = if faults.has(Fault::RegisterForever) {
        REGISTER_FOREVER
    } else {
        1
    };
    let mut client = None;
    for _ in 0..times {
        match grant::register(endpoint, &body, leak).await? {
            Registered::Client(c) => client = Some(c),
            Registered::TooMany => break,
        }
    }
    client.ok_or_else(|| format!("registration at {endpoint} was refused (429)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server(registration: bool, cimd: bool) -> Server {
        Server {
            issuer: "http://127.0.0.1:9".into(),
            authorization_endpoint: "http://127.0.0.1:9/authorize".into(),
            token_endpoint: "http://127.0.0.1:9/token".into(),
            registration_endpoint: registration.then(|| "http://127.0.0.1:9/reg".into()),
            scopes_supported: Vec::new(),
            challenge_methods: Some(vec!["S256".into()]),
            cimd_supported: cimd,
            iss_supported: true,
        }
    }

    fn held(id: &str, secret: Option<&str>) -> Result<Choice, String> {
        Ok(Choice::Held(Client {
            id: id.into(),
            secret: secret.map(str::to_owned),
        }))
    }

    #[test]
    fn pre_registered_then_metadata_document_then_registration() {
        let none = Faults::default();
        let all = Context {
            client_id: Some("pre".into()),
            client_secret: Some("s".into()),
            client_metadata_url: Some("http://c/doc.json".into()),
        };
        assert_eq!(
            choose(&none, &all, &server(true, true)),
            held("pre", Some("s"))
        );
        let cimd_only = Context {
            client_metadata_url: all.client_metadata_url.clone(),
            ..Context::default()
        };
        assert_eq!(
            choose(&none, &cimd_only, &server(true, true)),
            held("http://c/doc.json", None)
        );
        let register = Ok(Choice::Register("http://127.0.0.1:9/reg".into()));
        assert_eq!(choose(&none, &cimd_only, &server(true, false)), register);
        assert!(choose(&none, &Context::default(), &server(false, false)).is_err());
    }

    #[test]
    fn the_faults_break_the_order() {
        let all = Context {
            client_id: Some("pre".into()),
            client_secret: None,
            client_metadata_url: Some("http://c/doc.json".into()),
        };
        let no_reg = Faults::default().with(Fault::NoRegistration);
        assert_eq!(
            choose(&no_reg, &all, &server(true, true)),
            held(MADE_UP, None)
        );
        let ignore_pre = Faults::default().with(Fault::IgnorePreRegistered);
        let pre_only = Context {
            client_metadata_url: None,
            ..all.clone()
        };
        assert_eq!(
            choose(&ignore_pre, &pre_only, &server(false, false)),
            Ok(Choice::Register("http://127.0.0.1:9/register".into()))
        );
        let ignore_cimd = Faults::default().with(Fault::IgnoreCimd);
        let cimd_only = Context {
            client_id: None,
            ..all
        };
        assert_eq!(
            choose(&ignore_cimd, &cimd_only, &server(true, true)),
            Ok(Choice::Register("http://127.0.0.1:9/reg".into()))
        );
    }
}
