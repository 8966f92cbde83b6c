//! The flow's HTTP, over the core's HTTP/1.1 client (which follows no redirect): one request per
//! call, each within [`FETCH_WAIT`], its body read up to a limit. Discovery's GETs also count
//! against a budget of [`MAX_DISCOVERY_FETCHES`] for the run, and a 3xx is a failed fetch;
//! the `unbounded-discovery` fault lifts all three bounds (redirects followed, no budget,
//! bodies up to [`UNBOUNDED_BODY`]).

use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use super::urls;
use mcpspec_core::transport::http::client::{self, Endpoint, Request};

/// How long one request of the flow (its body included) may take.
pub const FETCH_WAIT: Duration = Duration::from_secs(5);
/// The most bytes of a response body read.
pub const BODY_LIMIT: usize = 1024 * 1024;
/// The most metadata fetches of a run.
pub const MAX_DISCOVERY_FETCHES: usize = 10;
/// The body limit under `unbounded-discovery`.
pub const UNBOUNDED_BODY: usize = 64 * 1024 * 1024;
/// The pause between two tries under `unbounded-discovery`: without end, but not a busy loop.
pub const UNBOUNDED_PAUSE: Duration = Duration::from_millis(10);

/// A response, read whole.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as a JSON object, when it is one.
    pub fn json(&self) -> Option<Value> {
        serde_json::from_slice::<Value>(&self.body)
            .ok()
            .filter(Value::is_object)
    }

    /// What the body says, for an error: its first 200 characters.
    pub fn said(&self) -> String {
        let text = String::from_utf8_lossy(&self.body[..self.body.len().min(400)]).into_owned();
        mcpspec_core::text::shorten(text.trim(), 200)
    }
}

/// Sends `request` to `url` and reads the whole response, its body up to `limit` bytes.
pub async fn exchange(url: &str, request: &Request, limit: usize) -> Result<Reply, String> {
    let endpoint = Endpoint::parse(url)?;
    let deadline = Instant::now() + FETCH_WAIT;
    let mut response = client::send(&endpoint, request, deadline)
        .await
        .map_err(|e| format!("{} {url}: {e}", request.method))?;
    let body = response
        .body(deadline, limit)
        .await
        .map_err(|e| format!("{} {url}: {e}", request.method))?;
    Ok(Reply {
        status: response.status,
        headers: std::mem::take(&mut response.headers),
        body,
    })
}

/// Discovery's GETs: the budget spent so far and the bounds in force.
#[derive(Debug)]
pub struct Fetcher {
    /// Metadata fetches made in this run.
    pub spent: usize,
    /// The `unbounded-discovery` fault.
    pub unbounded: bool,
    /// The access token sent along to the authorization server (the `token-to-auth-server`
    /// fault), once there is one.
    pub leak: Option<String>,
}

impl Fetcher {
    /// GETs the JSON document at `url`: `Ok(None)` when the URL did not give one (an error
    /// status, a 3xx, a body that is no JSON object, too large, too slow), an error when the
    /// budget is spent.
    pub async fn document(&mut self, url: &str) -> Result<Option<Value>, String> {
        let mut at = url.to_owned();
        loop {
            if !self.unbounded && self.spent >= MAX_DISCOVERY_FETCHES {
                return Err(format!(
                    "discovery stopped after {MAX_DISCOVERY_FETCHES} metadata fetches"
                ));
            }
            self.spent += 1;
            let mut request = Request::new("GET").header("Accept", "application/json");
            if let Some(token) = &self.leak {
                request = request.header("Authorization", format!("Bearer {token}"));
            }
            let limit = if self.unbounded {
                UNBOUNDED_BODY
            } else {
                BODY_LIMIT
            };
            let Ok(reply) = exchange(&at, &request, limit).await else {
                return Ok(None);
            };
            match reply.status {
                200 => return Ok(reply.json()),
                300..=399 if self.unbounded => match reply.header("location") {
                    Some(next) => {
                        at = urls::resolve(&at, next);
                        tokio::time::sleep(UNBOUNDED_PAUSE).await;
                    }
                    None => return Ok(None),
                },
                _ => return Ok(None),
            }
        }
    }
}
