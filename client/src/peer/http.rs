//! The HTTP peer's endpoint hook: records every exchange (request head and body, response head
//! and the messages of its body) into the scenario's [`Log`], and answers what the scenario
//! answers below the protocol: `server/discover` refusals and version errors (they come
//! before the chain for a legacy server over HTTP), an expired session's 404, and injections.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use mcp_reference_server::config::http_hook::{Exchange, HookRequest, HookResponse, HttpHook};
use mcp_reference_server::protocol::{code, method};
use serde_json::{Value, json};

use crate::judge::{self, Kind};
use crate::observation::{HttpHead, Log};
use crate::peer::behaviour::{requested_version, version_error};
use crate::peer::inject::{Injection, Injector, as_sse, take_events};
use crate::scenario::{Behaviour, DiscoverAnswer, MODERN_ONLY, Scenario};

/// Bytes of a response body buffered while its messages are taken out (a body growing past
/// this without one complete message is recorded as it is and dropped).
const MAX_PENDING: usize = 4 * 1024 * 1024;
/// Exchanges in flight whose request is kept for injections and expiry (a client flooding
/// requests gets neither on the later ones).
const MAX_CARRIED: usize = 4096;

#[derive(Debug)]
pub struct Hook {
    scenario: &'static Scenario,
    log: Log,
    injector: Option<Arc<dyn Injector>>,
    /// The client's requests, counted over the scenario (shared with nothing: one HTTP peer).
    requests: AtomicUsize,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    /// Exchange -> the request it carried (its number and JSON), for injections and expiry.
    carried: HashMap<Exchange, (usize, Value)>,
    /// Response bodies being read: what arrived, and whether it is an event stream.
    bodies: HashMap<Exchange, (Vec<u8>, bool)>,
    /// The session that expired (`sessions/expired`), once it has.
    expired: HashSet<String>,
    /// Whether a session expired already (only the first does).
    expired_once: bool,
}

impl Hook {
    pub fn new(
        scenario: &'static Scenario,
        log: Log,
        injector: Option<Arc<dyn Injector>>,
    ) -> Arc<Self> {
        Arc::new(Self {
            scenario,
            log,
            injector,
            requests: AtomicUsize::new(0),
            state: Mutex::default(),
        })
    }

    /// The 404 for a request naming the session that expired (`sessions/expired`).
    fn expired(&self, req: &HookRequest<'_>) -> Option<HookResponse> {
        let session = req.header("mcp-session-id")?;
        self.state().expired.contains(session).then(|| {
            HookResponse::new(
                404,
                "text/plain",
                "session expired: send a new `initialize`",
            )
        })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// What the scenario answers before the server sees request `n`, if anything.
    fn answer(&self, n: Option<usize>, json: Option<&Value>) -> Option<HookResponse> {
        let (id, name) = match judge::kind(json) {
            Kind::Request { id, method } => (id.clone(), method),
            _ => return None,
        };
        let params = json.and_then(|j| j.get("params"));
        let requested = requested_version(name, params);
        let s = self.scenario;
        if s.has(Behaviour::VersionErrorAlways)
            || (n == Some(0) && s.has(Behaviour::VersionErrorOnFirst))
        {
            return Some(rpc_error(
                400,
                id,
                version_error(MODERN_ONLY, requested.as_deref()),
            ));
        }
        if name != method::DISCOVER {
            return None;
        }
        match s.discover()? {
            DiscoverAnswer::MethodNotFound => Some(rpc_error(
                404,
                id,
                mcp_reference_server::RpcError::new(
                    code::METHOD_NOT_FOUND,
                    "method not found: server/discover",
                ),
            )),
            DiscoverAnswer::VersionError(supported) => Some(rpc_error(
                400,
                id,
                version_error(supported, requested.as_deref()),
            )),
            DiscoverAnswer::HttpStatus(status) => Some(HookResponse::new(
                status,
                "text/plain",
                format!("HTTP {status}: this server does not serve server/discover"),
            )),
        }
    }
}

/// The record of a request's head, before it is answered.
pub fn head_of(exchange: Exchange, req: &HookRequest<'_>) -> HttpHead {
    HttpHead {
        exchange,
        method: req.method.to_owned(),
        target: req.target.to_owned(),
        headers: req.headers.to_vec(),
        status: None,
        minted_session: None,
    }
}

fn rpc_error(status: u16, id: Value, error: mcp_reference_server::RpcError) -> HookResponse {
    let body = json!({"jsonrpc": "2.0", "id": id, "error": error.to_json()});
    HookResponse::new(status, "application/json", body.to_string())
}

impl HttpHook for Hook {
    fn request(&self, exchange: Exchange, req: &HookRequest<'_>) -> Option<HookResponse> {
        let head = head_of(exchange, req);
        self.log.http_request(head.clone());
        if let Some(gone) = self.expired(req) {
            if req.method == "POST" {
                self.log.client_message(1, req.body, Some(head));
            }
            return Some(gone);
        }
        if req.method != "POST" {
            return None;
        }
        self.log.client_message(1, req.body, Some(head));
        let json: Option<Value> = serde_json::from_slice(req.body).ok();
        let n = matches!(judge::kind(json.as_ref()), Kind::Request { .. })
            .then(|| self.requests.fetch_add(1, Ordering::Relaxed));
        if let (Some(n), Some(j)) = (n, &json) {
            let mut state = self.state();
            if state.carried.len() < MAX_CARRIED {
                state.carried.insert(exchange, (n, j.clone()));
            }
        }
        self.answer(n, json.as_ref())
    }

    fn rewrites(&self, exchange: Exchange) -> bool {
        let Some(injector) = &self.injector else {
            return false;
        };
        let carried = self.state().carried.get(&exchange).cloned();
        carried.is_some_and(|(n, request)| injector.touches(n, &request))
    }

    fn rewrite(&self, exchange: Exchange, response: HookResponse) -> HookResponse {
        let (Some(injector), Some((n, request))) =
            (&self.injector, self.state().carried.get(&exchange).cloned())
        else {
            return response;
        };
        let mut body = response.body();
        let reply = if response
            .header("content-type")
            .is_some_and(|t| t.starts_with("text/event-stream"))
        {
            body.extend_from_slice(b"\n\n");
            take_events(&mut body)
        } else {
            vec![body]
        };
        match injector.inject(n, &request, reply) {
            Injection::Messages(messages) => as_sse(&messages),
            Injection::Http(response) => response,
        }
    }

    fn response_head(&self, exchange: Exchange, status: u16, headers: &[(String, String)]) {
        self.log.http_response(exchange, status, headers);
        let sse = headers.iter().any(|(n, v)| {
            n.eq_ignore_ascii_case("content-type") && v.starts_with("text/event-stream")
        });
        let session = self.log.session_of(exchange);
        let mut state = self.state();
        state.bodies.insert(exchange, (Vec::new(), sse));
        // `sessions/expired`: the session ends as its `tools/list` is answered, before the
        // client can send anything more.
        if self.scenario.has(Behaviour::ExpireSession) && !state.expired_once {
            let listed = state.carried.get(&exchange).is_some_and(|(_, r)| {
                r.get("method").and_then(Value::as_str) == Some(method::TOOLS_LIST)
            });
            if let (true, Some(session)) = (listed, session) {
                state.expired_once = true;
                state.expired.insert(session);
            }
        }
    }

    fn response_chunk(&self, exchange: Exchange, chunk: &[u8]) {
        let mut events = Vec::new();
        let mut overflow = None;
        {
            let mut state = self.state();
            let Some((buf, sse)) = state.bodies.get_mut(&exchange) else {
                return;
            };
            buf.extend_from_slice(chunk);
            if *sse {
                events = take_events(buf);
            }
            if buf.len() > MAX_PENDING {
                overflow = Some(std::mem::take(buf));
            }
        }
        for e in events {
            self.log.peer_message(1, &e);
        }
        if let Some(raw) = overflow {
            self.log.peer_message(1, &raw);
        }
    }

    fn response_end(&self, exchange: Exchange) {
        let pending = {
            let mut state = self.state();
            state.carried.remove(&exchange);
            state.bodies.remove(&exchange)
        };
        let Some((mut buf, sse)) = pending else {
            return;
        };
        let messages = if sse {
            buf.extend_from_slice(b"\n\n");
            take_events(&mut buf)
        } else if buf.iter().all(u8::is_ascii_whitespace) {
            Vec::new()
        } else {
            vec![buf]
        };
        for m in messages {
            self.log.peer_message(1, &m);
        }
    }
}
