//! The HTTP endpoint hook (`HttpOptions::hook`): it sees every request before the server (and
//! may answer it instead), may have a response read whole and rewritten, and sees every
//! response as it is sent, in pieces, to its end.
use crate::support;

use std::sync::{Arc, Mutex};

use mcp_reference_server::config::http_hook::{Exchange, HookRequest, HookResponse, HttpHook};
use mcp_reference_server::{Config, HttpOptions};
use serde_json::json;
use support::http::*;
use support::*;

/// Answers `server/discover` with a 404 itself, rewrites the `tools/list` response, and writes
/// down everything it is shown.
#[derive(Debug, Default)]
struct Recorder {
    seen: Mutex<Vec<String>>,
    lists: Mutex<Vec<Exchange>>,
}

impl Recorder {
    fn push(&self, line: String) {
        self.seen.lock().unwrap().push(line);
    }
}

impl HttpHook for Recorder {
    fn request(&self, exchange: Exchange, request: &HookRequest<'_>) -> Option<HookResponse> {
        let body = String::from_utf8_lossy(request.body);
        self.push(format!(
            "{exchange} request {} {} mcp-method={}",
            request.method,
            request.target,
            request.header("mcp-method").unwrap_or("-")
        ));
        if body.contains("server/discover") {
            return Some(HookResponse::new(404, "text/plain", "not here"));
        }
        if body.contains("tools/list") {
            self.lists.lock().unwrap().push(exchange);
        }
        None
    }

    fn rewrites(&self, exchange: Exchange) -> bool {
        self.lists.lock().unwrap().contains(&exchange)
    }

    fn rewrite(&self, exchange: Exchange, response: HookResponse) -> HookResponse {
        self.push(format!("{exchange} rewrite of a {}", response.status));
        HookResponse::new(203, "text/plain", "rewritten")
    }

    fn response_head(&self, exchange: Exchange, status: u16, _headers: &[(String, String)]) {
        self.push(format!("{exchange} head {status}"));
    }

    fn response_chunk(&self, exchange: Exchange, chunk: &[u8]) {
        self.push(format!(
            "{exchange} chunk {}",
            String::from_utf8_lossy(chunk)
        ));
    }

    fn response_end(&self, exchange: Exchange) {
        self.push(format!("{exchange} end"));
    }
}

#[tokio::test]
async fn the_hook_sees_answers_and_rewrites_exchanges() {
    let hook = Arc::new(Recorder::default());
    let config = Config {
        http: HttpOptions {
            hook: Some(hook.clone()),
            ..HttpOptions::default()
        },
        ..Config::default()
    };
    let server = start_http(config).await;
    let addr = server.local_addr();
    let call = modern(
        1,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hi"}}),
    );
    let served = send(addr, &Req::modern(&call)).await;
    assert_eq!(served.status, 200, "{}", served.text());
    assert_eq!(served.json()["result"]["content"][0]["text"], "hi");
    let refused = send(addr, &Req::modern(&modern(2, "server/discover", json!({})))).await;
    assert_eq!((refused.status, refused.text().as_str()), (404, "not here"));
    let rewritten = send(addr, &Req::modern(&modern(3, "tools/list", json!({})))).await;
    assert_eq!(
        (rewritten.status, rewritten.text().as_str()),
        (203, "rewritten")
    );
    // Bounded wait: the end of a body is reported when the server drops it.
    for _ in 0..100 {
        if hook
            .seen
            .lock()
            .unwrap()
            .iter()
            .filter(|l| l.ends_with(" end"))
            .count()
            == 3
        {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let seen = hook.seen.lock().unwrap().clone();
    let body = served.text();
    assert_eq!(
        seen,
        [
            "1 request POST /mcp mcp-method=tools/call".to_owned(),
            "1 head 200".to_owned(),
            format!("1 chunk {body}"),
            "1 end".to_owned(),
            "2 request POST /mcp mcp-method=server/discover".to_owned(),
            "2 head 404".to_owned(),
            "2 chunk not here".to_owned(),
            "2 end".to_owned(),
            "3 request POST /mcp mcp-method=tools/list".to_owned(),
            "3 rewrite of a 200".to_owned(),
            "3 head 203".to_owned(),
            "3 chunk rewritten".to_owned(),
            "3 end".to_owned(),
        ]
    );
}
