//! A hook on the streamable HTTP endpoint, below the protocol: it sees every HTTP request
//! before the server does and every response as it leaves, and may answer a request itself or
//! rewrite a response. mcpspec's client tests use it to play a server that answers at the HTTP
//! level (a 404 to `server/discover`, an expired session, odd SSE framing) and to record what a
//! client under test sent, headers included.
//!
//! ```text
//! request --> hook.request ── Some(response) ──────────────────────────┐
//!                  └─ None --> the server (security, POST/GET/DELETE)   │
//!                                  └─> hook.rewrite (when it asks) ─────┤
//!                                                                       v
//!                      hook.response_head, response_chunk…, response_end --> client
//! ```
//!
//! Part of [`crate::config`]: std types only, so that the configuration stays the ground floor.

use std::fmt;

/// Numbers the exchanges of one server, from 1, so a hook can tie a response to its request.
pub type Exchange = u64;

/// What the endpoint hook is told, and what it may change. Every method has a default that
/// changes nothing.
pub trait HttpHook: fmt::Debug + Send + Sync + 'static {
    /// Sees a request (its body read whole, up to the body limit) before the server does;
    /// `Some` answers it instead of the server.
    fn request(&self, _exchange: Exchange, _request: &HookRequest<'_>) -> Option<HookResponse> {
        None
    }

    /// Whether the server's response to this exchange is to be read whole and handed to
    /// [`HttpHook::rewrite`] (a streamed response is then sent only once it has ended).
    fn rewrites(&self, _exchange: Exchange) -> bool {
        false
    }

    /// Replaces the server's response (only for exchanges [`HttpHook::rewrites`] named).
    fn rewrite(&self, _exchange: Exchange, response: HookResponse) -> HookResponse {
        response
    }

    /// The status and headers of the response the client gets (the hook's, the server's or the
    /// rewritten one).
    fn response_head(&self, _exchange: Exchange, _status: u16, _headers: &[(String, String)]) {}

    /// One piece of the response body, as it is sent.
    fn response_chunk(&self, _exchange: Exchange, _chunk: &[u8]) {}

    /// The response body ended (or the client went away).
    fn response_end(&self, _exchange: Exchange) {}
}

/// One HTTP request as the hook sees it.
#[derive(Debug, Clone, Copy)]
pub struct HookRequest<'a> {
    pub method: &'a str,
    /// The path and query.
    pub target: &'a str,
    /// Every header in order, names lower case; values as sent (invalid UTF-8 replaced).
    pub headers: &'a [(String, String)],
    pub body: &'a [u8],
}

impl HookRequest<'_> {
    /// The value of header `name` (lower case), if sent (the first one, if several were).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A response: status, headers and the body, as the pieces it is written in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// Written one after the other, each flushed as it goes (an SSE stream split in odd places).
    pub chunks: Vec<Vec<u8>>,
}

impl HookResponse {
    /// A response whose body is `body`, with `Content-Type: content_type` (none when empty).
    pub fn new(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        let headers = if content_type.is_empty() {
            Vec::new()
        } else {
            vec![("content-type".to_owned(), content_type.to_owned())]
        };
        Self {
            status,
            headers,
            chunks: vec![body.into()],
        }
    }

    /// The whole body.
    pub fn body(&self) -> Vec<u8> {
        self.chunks.concat()
    }

    /// The value of header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}
