//! `text/event-stream` responses: one `message` event per JSON-RPC message, the stream ending
//! after the final reply (a request stream) or when the session ends (a legacy GET stream).

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use tokio::sync::{mpsc, oneshot, watch};
use tokio::task::AbortHandle;

use crate::config::faults::Fault;
use crate::transport::http::shared::{Shared, header_name};
use crate::wire::Outbound;

/// Aborts the handler task when the response (or its stream) is dropped: a client that closes
/// the response stream cancels the request (HTTP-14).
#[derive(Debug)]
pub(crate) struct AbortOnDrop {
    task: AbortHandle,
    armed: bool,
}

impl AbortOnDrop {
    pub(crate) fn new(task: AbortHandle, armed: bool) -> Self {
        Self { task, armed }
    }
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if self.armed {
            self.task.abort();
        }
    }
}

/// Where the events come from.
pub(crate) struct Source {
    pending: VecDeque<Outbound>,
    /// Messages the handler sends while it runs (a request stream) or the session's outbound
    /// messages (a GET stream).
    rx: Option<mpsc::UnboundedReceiver<Outbound>>,
    /// The final reply of a request stream.
    done: Option<oneshot::Receiver<Option<Outbound>>>,
    guard: Option<AbortOnDrop>,
}

impl Source {
    /// The stream of one request: `early` messages, what the handler sends, then its reply.
    pub(crate) fn request(
        rx: mpsc::UnboundedReceiver<Outbound>,
        done: oneshot::Receiver<Option<Outbound>>,
        early: Vec<Outbound>,
        guard: AbortOnDrop,
    ) -> Self {
        Self {
            pending: early.into(),
            rx: Some(rx),
            done: Some(done),
            guard: Some(guard),
        }
    }

    /// A stream of known messages, then its end.
    pub(crate) fn fixed(messages: Vec<Outbound>) -> Self {
        Self {
            pending: messages.into(),
            rx: None,
            done: None,
            guard: None,
        }
    }

    /// A legacy GET stream: `backlog`, then everything `rx` yields until it closes.
    pub(crate) fn listen(rx: mpsc::UnboundedReceiver<Outbound>) -> Self {
        Self {
            pending: VecDeque::new(),
            rx: Some(rx),
            done: None,
            guard: None,
        }
    }

    /// The next message, or `None` at the end of the stream.
    async fn next(&mut self, stop: &mut watch::Receiver<bool>) -> Option<Outbound> {
        enum Got {
            Message(Option<Outbound>),
            Reply(Result<Option<Outbound>, oneshot::error::RecvError>),
            Stop,
        }
        loop {
            if let Some(msg) = self.pending.pop_front() {
                return Some(msg);
            }
            if *stop.borrow() {
                return None;
            }
            let got = match self.done.as_mut() {
                None => {
                    let rx = self.rx.as_mut()?;
                    tokio::select! {
                        msg = rx.recv() => Got::Message(msg),
                        _ = stop.changed() => Got::Stop,
                    }
                }
                Some(done) => {
                    tokio::select! {
                        biased;
                        msg = recv(self.rx.as_mut()) => Got::Message(msg),
                        reply = done => Got::Reply(reply),
                        _ = stop.changed() => Got::Stop,
                    }
                }
            };
            match got {
                Got::Message(Some(msg)) => return Some(msg),
                Got::Message(None) => {
                    self.rx = None;
                    self.done.as_ref()?;
                }
                Got::Reply(reply) => {
                    if let Some(rx) = &mut self.rx {
                        while let Ok(msg) = rx.try_recv() {
                            self.pending.push_back(msg);
                        }
                    }
                    match reply {
                        Ok(Some(msg)) => self.pending.push_back(msg),
                        Ok(None) => {}
                        // The handler died (a panic): say so rather than hang up.
                        Err(_) => self.pending.push_back(Outbound::Reply {
                            id: serde_json::Value::Null,
                            outcome: Err(crate::error::RpcError::internal("the handler failed")),
                        }),
                    }
                    self.rx = None;
                    self.done = None;
                    self.guard = None;
                }
                Got::Stop => return None,
            }
        }
    }
}

/// The next message on `rx`; pending forever without one.
async fn recv(rx: Option<&mut mpsc::UnboundedReceiver<Outbound>>) -> Option<Outbound> {
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

/// Event ids: a legacy session's counter (unique within the session, LEG-12), or none.
pub(crate) type EventIds = Option<Arc<AtomicU64>>;

/// A 200 `text/event-stream` response streaming `source`.
pub(crate) fn response(shared: &Arc<Shared>, source: Source, ids: EventIds) -> Response {
    struct State {
        source: Source,
        shared: Arc<Shared>,
        ids: EventIds,
        stop: watch::Receiver<bool>,
    }
    let keep_open = shared.has(Fault::HttpSseNoTerminate);
    let state = State {
        source,
        shared: shared.clone(),
        ids,
        stop: shared.stop.clone(),
    };
    let stream = futures_util::stream::unfold(state, move |mut state| async move {
        match state.source.next(&mut state.stop).await {
            Some(msg) => {
                let event = event(&state.shared, &state.ids, &msg);
                Some((Ok::<Bytes, Infallible>(event), state))
            }
            None if keep_open => {
                // The `http-sse-no-terminate` fault: the stream stays open after the reply.
                let _ = state.stop.wait_for(|stopped| *stopped).await;
                None
            }
            None => None,
        }
    });
    let mut response = Response::new(Body::from_stream(stream));
    *response.status_mut() = StatusCode::OK;
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    if !keep_open {
        headers.insert(header_name::ACCEL_BUFFERING, HeaderValue::from_static("no"));
    }
    response
}

/// One `message` event; a multi-line encoding (the `pretty-print` fault) gets one `data:` line
/// per line.
fn event(shared: &Shared, ids: &EventIds, msg: &Outbound) -> Bytes {
    let encoded = shared.encode(msg);
    let text = String::from_utf8_lossy(&encoded);
    let mut out = String::new();
    if let Some(ids) = ids {
        let id = if shared.has(Fault::HttpLegacyEventIdReused) {
            1
        } else {
            ids.fetch_add(1, Ordering::Relaxed) + 1
        };
        out.push_str(&format!("id: {id}\n"));
    }
    out.push_str("event: message\n");
    for line in text.trim_end_matches('\n').split('\n') {
        out.push_str("data: ");
        out.push_str(line);
        out.push('\n');
    }
    out.push('\n');
    Bytes::from(out)
}
