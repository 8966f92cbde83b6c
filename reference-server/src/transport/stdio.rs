//! Serving one byte stream: the framing (newline-delimited, bounded lines), the reader loop
//! (inline `initialize`, concurrent everything else), batches, and the single writer.

use std::future::Future;
use std::io;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};

use crate::config::faults::Fault;
use crate::config::{Config, Era};
use crate::engine::connection::Connection;
use crate::engine::dispatch;
use crate::engine::middleware::{BoxFuture, Chain};
use crate::error::RpcError;
use crate::protocol::{MAX_LINE, code, method, version};
use crate::wire::{self, Encoder, Inbound, Message, Outbound};

/// How long in-flight requests may finish after input EOF before the server stops anyway.
const EOF_GRACE: Duration = Duration::from_millis(200);
/// The `slow-start` fault's delay before the first read.
const SLOW_START: Duration = Duration::from_secs(10);

pub(crate) async fn serve<R, W>(config: Config, chain: Chain, input: R, output: W) -> io::Result<()>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    serve_lines(config, chain, LineReader::new(input, MAX_LINE), output).await
}

/// Serves `input` as if it were a byte stream that ends after it, writing into `output`:
/// the same reader loop and writer as [`serve`], with the lines cut from memory instead of
/// read through the async framing (no pipe, no task). The fuzz targets' fast path.
pub(crate) async fn serve_memory(
    config: Config,
    chain: Chain,
    input: &[u8],
    output: &mut Vec<u8>,
) -> io::Result<()> {
    serve_lines(config, chain, MemoryLines::new(input, MAX_LINE), output).await
}

/// The reader loop over `lines` and the single writer into `output`, until the lines end.
async fn serve_lines<L, W>(config: Config, chain: Chain, lines: L, output: W) -> io::Result<()>
where
    L: LineSource,
    W: AsyncWrite + Unpin,
{
    let (tx, rx) = mpsc::unbounded_channel();
    let encoder = Encoder::new(config.faults.clone());
    let conn = Arc::new(Connection::new(config, tx));
    let (stop_tx, stop_rx) = oneshot::channel();
    let writer = write_loop(output, rx, stop_rx, encoder);
    let reader = async move {
        let result = read_loop(conn, chain, lines).await;
        let _ = stop_tx.send(());
        result
    };
    tokio::pin!(writer);
    tokio::pin!(reader);
    tokio::select! {
        result = &mut reader => {
            let written = writer.await;
            result.and(written)
        }
        // The output failed (the peer went away): nothing more can be said.
        written = &mut writer => written,
    }
}

enum Flow {
    Continue,
    Exit,
    /// Read nothing more, stay up (a fault).
    Stall,
}

async fn read_loop<L>(conn: Arc<Connection>, chain: Chain, mut lines: L) -> io::Result<()>
where
    L: LineSource,
{
    if conn.has(Fault::LogToStdout) {
        conn.send(Outbound::Raw(
            "mcp-reference-server starting (a log line on stdout: log-to-stdout fault)".into(),
        ));
    }
    if conn.has(Fault::SlowStart) {
        tokio::time::sleep(SLOW_START).await;
    }
    let mut inflight = Inflight::default();
    loop {
        if conn.exit_requested() {
            return Ok(());
        }
        let line = tokio::select! {
            biased;
            () = inflight.next() => continue,
            line = lines.next_line() => line?,
        };
        let Some(line) = line else { break };
        match handle_line(&conn, &chain, line, &mut inflight).await? {
            Flow::Continue => {}
            Flow::Exit => return Ok(()),
            Flow::Stall => std::future::pending::<()>().await,
        }
    }
    // Input EOF: let in-flight work finish briefly, then stop (STDIO-6).
    let _ = tokio::time::timeout(EOF_GRACE, inflight.drain()).await;
    if conn.has(Fault::IgnoreEof) {
        drop(inflight);
        std::future::pending::<()>().await;
    }
    Ok(())
}

async fn handle_line(
    conn: &Arc<Connection>,
    chain: &Chain,
    line: Line,
    inflight: &mut Inflight,
) -> io::Result<Flow> {
    let bytes = match line {
        Line::TooLong => return Ok(parse_error(conn, &"message exceeds the line limit")),
        Line::Bytes(bytes) => bytes,
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Flow::Continue);
    }
    match wire::decode(&bytes, &conn.config.faults) {
        Inbound::ParseError(detail) => return Ok(parse_error(conn, &detail)),
        Inbound::Invalid { id, error } => conn.send(Outbound::Reply {
            id,
            outcome: Err(error),
        }),
        Inbound::DroppedNotification(name) => {
            tracing::debug!(method = %name, "malformed notification dropped");
            if conn.has(Fault::ReplyToNotifications) {
                conn.send(Outbound::Reply {
                    id: Value::Null,
                    outcome: Err(RpcError::invalid_request("malformed notification")),
                });
            }
            if conn.has(Fault::ResultToInvalidMessage) {
                conn.send(Outbound::Reply {
                    id: Value::Null,
                    outcome: Ok(json!({})),
                });
            }
        }
        Inbound::Batch(items) => {
            if let Some(reply) = batch(conn, chain, items).await {
                conn.send(reply);
            }
        }
        Inbound::Message(Message::Response { id, outcome }) => conn.route_response(&id, outcome),
        Inbound::Message(Message::Request {
            id,
            method: name,
            params,
        }) => {
            if name == method::INITIALIZE && conn.has(Fault::CrashOnInitialize) {
                return Err(io::Error::other("crash-on-initialize fault"));
            }
            if conn.has(Fault::HangOnNegativeId) && id.as_json().as_i64().is_some_and(|n| n < 0) {
                std::future::pending::<()>().await;
            }
            if conn.has(Fault::StdoutDebugOnCursor) {
                if let Some(cursor) = params.as_ref().and_then(|p| p.get("cursor")) {
                    conn.send(Outbound::Raw(format!("debug: {name} cursor={cursor}")));
                }
            }
            let ctx = dispatch::make_ctx(conn, Some(id), name, params);
            // `initialize` is handled inline: nothing more is read until its chain returns.
            let inline = ctx.method == method::INITIALIZE && !conn.has(Fault::InitializeNotInline);
            let work = run_and_send(conn.clone(), chain.clone(), ctx);
            if inline {
                work.await;
            } else {
                inflight.push(Box::pin(work));
            }
        }
        Inbound::Message(Message::Notification {
            method: name,
            params,
        }) => {
            let ctx = dispatch::make_ctx(conn, None, name, params);
            inflight.push(Box::pin(run_and_send(conn.clone(), chain.clone(), ctx)));
        }
    }
    Ok(Flow::Continue)
}

async fn run_and_send(conn: Arc<Connection>, chain: Chain, ctx: crate::engine::middleware::Ctx) {
    let twice = conn.has(Fault::ReplyTwice) && ctx.id.is_some() && ctx.method == method::TOOLS_CALL;
    if let Some(reply) = dispatch::run(conn.clone(), chain, ctx).await {
        if twice {
            conn.send(reply.clone());
        }
        conn.send(reply);
    }
}

/// Invalid JSON: -32700 with id null (RPC-5, POL-3), faults aside.
fn parse_error(conn: &Connection, detail: &dyn std::fmt::Display) -> Flow {
    tracing::debug!(%detail, "parse error");
    if conn.has(Fault::StallOnParseError) {
        return Flow::Stall;
    }
    if !conn.has(Fault::ParseErrorSilent) {
        let code = if conn.has(Fault::ParseErrorWrongCode) {
            code::INVALID_REQUEST
        } else {
            code::PARSE_ERROR
        };
        let id = if conn.has(Fault::ParseErrorIdZero) {
            Value::from(0)
        } else {
            Value::Null
        };
        conn.send(Outbound::Reply {
            id,
            outcome: Err(RpcError::new(
                code,
                "parse error: the line is not valid JSON",
            )),
        });
    }
    if conn.has(Fault::ExitOnParseError) {
        Flow::Exit
    } else {
        Flow::Continue
    }
}

/// A JSON array. Only a 2025-03-26 session accepts batches (RPC-10); elsewhere an array is
/// one invalid request (RPC-9, POL-4). Elements are handled in order; `initialize` may not be
/// batched; the reply is an array of the element replies, or nothing if there are none.
pub(crate) async fn batch(
    conn: &Arc<Connection>,
    chain: &Chain,
    items: Vec<Value>,
) -> Option<Outbound> {
    let batching_session = conn.locked_era() == Some(Era::Legacy)
        && conn.negotiated().as_deref() == Some(version::BATCHING);
    let accepted = if batching_session {
        !conn.has(Fault::RejectBatches20250326)
    } else {
        conn.has(Fault::ProcessBatches)
    };
    if !accepted || items.is_empty() {
        let why = if items.is_empty() {
            "an empty batch is not a valid request"
        } else {
            "JSON-RPC batches are not accepted in this protocol version"
        };
        return Some(Outbound::Reply {
            id: Value::Null,
            outcome: Err(RpcError::invalid_request(why)),
        });
    }
    let mut replies = Vec::new();
    for item in items {
        match wire::classify(item, &conn.config.faults) {
            Inbound::Invalid { id, error } => replies.push(Outbound::Reply {
                id,
                outcome: Err(error),
            }),
            Inbound::Message(Message::Response { id, outcome }) => {
                conn.route_response(&id, outcome)
            }
            Inbound::Message(Message::Request {
                id, method: name, ..
            }) if name == method::INITIALIZE => {
                replies.push(Outbound::Reply {
                    id: id.as_json().clone(),
                    outcome: Err(RpcError::invalid_request(
                        "initialize must not be part of a batch",
                    )),
                });
            }
            Inbound::Message(Message::Request {
                id,
                method: name,
                params,
            }) => {
                let ctx = dispatch::make_ctx(conn, Some(id), name, params);
                replies.extend(dispatch::run(conn.clone(), chain.clone(), ctx).await);
            }
            Inbound::Message(Message::Notification {
                method: name,
                params,
            }) => {
                let ctx = dispatch::make_ctx(conn, None, name, params);
                replies.extend(dispatch::run(conn.clone(), chain.clone(), ctx).await);
            }
            // `classify` yields neither for one element; nothing to answer.
            Inbound::ParseError(_) | Inbound::Batch(_) | Inbound::DroppedNotification(_) => {}
        }
    }
    (!replies.is_empty()).then_some(Outbound::Batch(replies))
}

/// Requests being handled concurrently, polled by the reader task itself so that replies to
/// handlers that do not wait come out in arrival order (deterministic transcripts).
#[derive(Default)]
struct Inflight(Vec<BoxFuture<()>>);

impl Inflight {
    fn push(&mut self, work: BoxFuture<()>) {
        self.0.push(work);
    }

    /// Completes when one in-flight item finishes; pending while there are none.
    fn next(&mut self) -> impl Future<Output = ()> + '_ {
        std::future::poll_fn(move |cx| {
            for i in 0..self.0.len() {
                if self.0[i].as_mut().poll(cx).is_ready() {
                    drop(self.0.remove(i));
                    return Poll::Ready(());
                }
            }
            Poll::Pending
        })
    }

    async fn drain(&mut self) {
        while !self.0.is_empty() {
            self.next().await;
        }
    }
}

enum Line {
    Bytes(Vec<u8>),
    TooLong,
}

/// Where the reader loop takes its lines from: the framing of a byte stream ([`LineReader`]),
/// or a buffer already in memory ([`MemoryLines`]). `next_line` must be cancel-safe: the reader
/// drops it unfinished whenever an in-flight request completes first.
trait LineSource {
    /// The next line without its newline; `None` at the end of the input.
    async fn next_line(&mut self) -> io::Result<Option<Line>>;
}

impl<R: AsyncRead + Unpin> LineSource for LineReader<R> {
    async fn next_line(&mut self) -> io::Result<Option<Line>> {
        LineReader::next_line(self).await
    }
}

/// The lines of a buffer, cut the way [`LineReader`] cuts the same bytes read from a stream
/// that ends after them: at each newline, a last line without a newline counts, a line longer
/// than `max` is [`Line::TooLong`].
struct MemoryLines<'a> {
    rest: &'a [u8],
    max: usize,
}

impl<'a> MemoryLines<'a> {
    fn new(input: &'a [u8], max: usize) -> Self {
        Self { rest: input, max }
    }
}

impl LineSource for MemoryLines<'_> {
    // Nothing is taken before the first poll, and the first poll finishes: cancel-safe.
    async fn next_line(&mut self) -> io::Result<Option<Line>> {
        if self.rest.is_empty() {
            return Ok(None);
        }
        let (line, rest) = match self.rest.iter().position(|&b| b == b'\n') {
            Some(i) => (&self.rest[..i], &self.rest[i + 1..]),
            None => (self.rest, &[][..]),
        };
        self.rest = rest;
        Ok(Some(if line.len() > self.max {
            Line::TooLong
        } else {
            Line::Bytes(line.to_vec())
        }))
    }
}

/// Newline framing with a cap per line. Cancel-safe: partial lines stay in `buf`.
struct LineReader<R> {
    inner: BufReader<R>,
    buf: Vec<u8>,
    /// Skipping the rest of an over-long line.
    discarding: bool,
    max: usize,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    fn new(input: R, max: usize) -> Self {
        Self {
            inner: BufReader::new(input),
            buf: Vec::new(),
            discarding: false,
            max,
        }
    }

    /// The next line without its newline; `None` at EOF. A last line without a newline counts.
    async fn next_line(&mut self) -> io::Result<Option<Line>> {
        loop {
            let chunk = self.inner.fill_buf().await?;
            if chunk.is_empty() {
                if std::mem::take(&mut self.discarding) {
                    return Ok(Some(Line::TooLong));
                }
                if self.buf.is_empty() {
                    return Ok(None);
                }
                return Ok(Some(Line::Bytes(std::mem::take(&mut self.buf))));
            }
            let (take, newline) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (i, true),
                None => (chunk.len(), false),
            };
            if !self.discarding {
                if self.buf.len() + take > self.max {
                    self.discarding = true;
                    self.buf = Vec::new();
                } else {
                    self.buf.extend_from_slice(&chunk[..take]);
                }
            }
            self.inner.consume(take + usize::from(newline));
            if newline {
                if std::mem::take(&mut self.discarding) {
                    return Ok(Some(Line::TooLong));
                }
                return Ok(Some(Line::Bytes(std::mem::take(&mut self.buf))));
            }
        }
    }
}

async fn write_loop<W>(
    mut output: W,
    mut rx: mpsc::UnboundedReceiver<Outbound>,
    mut stop: oneshot::Receiver<()>,
    mut encoder: Encoder,
) -> io::Result<()>
where
    W: AsyncWrite + Unpin,
{
    loop {
        tokio::select! {
            biased;
            msg = rx.recv() => {
                let Some(msg) = msg else { break };
                output.write_all(&encoder.encode(&msg)).await?;
                if rx.is_empty() {
                    output.flush().await?;
                }
            }
            _ = &mut stop => {
                while let Ok(msg) = rx.try_recv() {
                    output.write_all(&encoder.encode(&msg)).await?;
                }
                break;
            }
        }
    }
    output.flush().await?;
    // Closing our half tells an in-process peer the stream ended (EOF on its side).
    output.shutdown().await
}
