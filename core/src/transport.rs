//! Byte transports: bytes out, lines in, a deadline on every read.
//!
//! A transport never interprets what it carries; that is the codec's job. It reports what the
//! wire did as a [`Recv`] event: a line (a byte stream), an HTTP exchange's message or failure
//! (typed, with its status and the POSTed id), the end of the stream, a timeout, or a line that
//! grew past the configured bound (so a server that floods stdout cannot exhaust memory).
//!
//! Owns `transport/`: child processes and their process groups (`process.rs`), line framing
//! (`lines.rs`), streamable HTTP (`http.rs`, `http/`). May import only the leaves (`text`,
//! `protocol`) and the wire codec's SSE parser; everything above reads lines through
//! [`LineTransport`].

pub mod http;
mod lines;
mod process;
mod sent;
pub use process::{kill_group, wait_group_gone};
pub use sent::SentLog;

use std::time::Duration;

use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;
use tokio::time::Instant;

pub use crate::wire::HttpContext;

pub use lines::{LineEvent, LineReader};
pub use process::{Liveness, ServerHandle};

/// The default bound on one received message: 4 MiB, the same for every subcommand. mcpspec
/// holds a message at most about twice while judging it, once per concurrent check, so the bound
/// is what keeps its memory small against a server whose every reply is huge (`--max-message`
/// raises it).
pub const DEFAULT_MAX_MESSAGE: usize = 4 * 1024 * 1024;

/// What a read produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recv {
    /// One line, without its terminator.
    Line(Vec<u8>),
    /// What an HTTP exchange brought back: one message (a JSON body, or one SSE event's data)
    /// or why none came, with the exchange that carried it.
    Exchange(Exchange),
    /// The peer closed its output (stdout EOF).
    Closed,
    /// Nothing arrived before the deadline.
    TimedOut,
    /// A line exceeded the bound; its bytes past the first [`crate::wire::OVERSIZED_HEAD`]
    /// (kept in `head`, so the line can still be matched by id) were discarded up to the next
    /// newline.
    Overflow { limit: usize, head: Vec<u8> },
}

/// One HTTP exchange's contribution to the inbound stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exchange {
    /// The status of the response and the id of the POSTed request.
    pub http: HttpContext,
    pub body: ExchangeBody,
}

/// What an exchange carried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExchangeBody {
    /// A message's bytes, exactly as the server wrote them.
    Message(Vec<u8>),
    /// No JSON-RPC message, and why (a refused connection, a status without a body, a redirect,
    /// a body cut short, a reply that is not HTTP).
    Failed(String),
}

impl Exchange {
    /// The frame the driver reads: the message decoded, or the failure, with its exchange.
    pub fn into_frame(self) -> crate::wire::Frame {
        match self.body {
            ExchangeBody::Message(bytes) => crate::wire::Frame::decode_owned(bytes).over(self.http),
            ExchangeBody::Failed(why) => crate::wire::Frame::http_failure(why, self.http),
        }
    }
}

/// Where inbound events come from: a byte stream split into lines (stdio, in memory), or the
/// events HTTP exchanges post (each exchange a task of its own).
enum Inbound {
    Stream(LineReader),
    Exchanges(mpsc::Receiver<Recv>),
}

impl Inbound {
    /// The next event, waiting at most until `deadline`. Cancel-safe, as both sources are.
    async fn next(&mut self, deadline: Instant) -> Recv {
        match self {
            Inbound::Stream(reader) => reader.next_line(deadline).await.into(),
            Inbound::Exchanges(events) => {
                if Instant::now() >= deadline {
                    return Recv::TimedOut;
                }
                match tokio::time::timeout_at(deadline, events.recv()).await {
                    Ok(Some(event)) => event,
                    // Every sender is gone: the transport's writer and every exchange ended.
                    Ok(None) => Recv::Closed,
                    Err(_) => Recv::TimedOut,
                }
            }
        }
    }
}

/// A newline-delimited byte stream to and from one server (stdio child or in-memory), or an
/// HTTP endpoint that takes each written line as a POST.
pub struct LineTransport {
    writer: Option<Box<dyn AsyncWrite + Send + Unpin>>,
    reader: Inbound,
    /// What [`LineTransport::send_reading`] read while it wrote, for the next reads.
    pending: std::collections::VecDeque<Recv>,
    server: ServerHandle,
    era_hint: Option<http::EraHint>,
    /// Every write, in order, when the pool asked for it (a shared process's history, POL-30).
    sent: Option<SentLog>,
}

impl std::fmt::Debug for LineTransport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineTransport")
            .field("server", &self.server)
            .finish_non_exhaustive()
    }
}

impl LineTransport {
    pub fn new(
        writer: Box<dyn AsyncWrite + Send + Unpin>,
        reader: LineReader,
        server: ServerHandle,
    ) -> Self {
        Self {
            writer: Some(writer),
            reader: Inbound::Stream(reader),
            pending: std::collections::VecDeque::new(),
            server,
            era_hint: None,
            sent: None,
        }
    }

    /// Keeps every write from now on, as written by `by` until the next [`Self::mark_sent`]
    /// (what earlier checks sent to a shared process, POL-30).
    pub fn keep_sent(&mut self, by: impl Into<String>) {
        self.sent.get_or_insert_with(SentLog::default).mark(by);
    }

    /// Later writes are `by`'s (when writes are kept).
    pub fn mark_sent(&mut self, by: impl Into<String>) {
        if let Some(log) = &mut self.sent {
            log.mark(by);
        }
    }

    /// Everything written since [`Self::keep_sent`], when writes are kept.
    pub fn sent(&self) -> Option<&SentLog> {
        self.sent.as_ref()
    }

    /// A transport to nothing: no input, an empty output, no server (what a peer holds once
    /// its connection was handed back to the pool).
    pub fn detached() -> Self {
        Self::new(
            Box::new(tokio::io::sink()),
            LineReader::new(Box::new(tokio::io::empty()), 0),
            ServerHandle::remote(),
        )
    }

    /// A transport whose inbound events are posted by exchanges (HTTP): `events` ends when the
    /// writer and every exchange are gone.
    pub fn over_exchanges(
        writer: Box<dyn AsyncWrite + Send + Unpin>,
        events: mpsc::Receiver<Recv>,
        server: ServerHandle,
    ) -> Self {
        let mut transport = Self::new(
            writer,
            LineReader::new(Box::new(tokio::io::empty()), 0),
            server,
        );
        transport.reader = Inbound::Exchanges(events);
        transport
    }

    pub fn with_era_hint(mut self, hint: http::EraHint) -> Self {
        self.era_hint = Some(hint);
        self
    }

    /// Whether this is one byte stream (stdio or in-memory), where silence is judged by time;
    /// over HTTP every request is its own exchange.
    pub fn is_stream(&self) -> bool {
        self.era_hint.is_none()
    }

    /// Tells the transport which era the driver speaks (HTTP derives headers from it).
    pub fn set_modern(&self, modern: bool) {
        if let Some(h) = &self.era_hint {
            h.set_modern(modern);
        }
    }

    /// Closes the stream request `id`'s reply comes on, where each request has its own (HTTP:
    /// the exchange is dropped and its connection closed); whether one was open. `None`: this
    /// transport has no per-request streams (stdio, in memory).
    pub fn close_stream(&self, id: &serde_json::Value) -> Option<bool> {
        self.era_hint.as_ref().map(|h| h.close_stream(id))
    }

    /// Writes bytes as they are (the caller adds the newline). A write to a closed peer is
    /// reported as an error, not a panic.
    pub async fn send(&mut self, bytes: &[u8], deadline: Instant) -> std::io::Result<()> {
        let Some(w) = self.writer.as_mut() else {
            return Err(std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                "input closed",
            ));
        };
        if let Some(log) = &mut self.sent {
            log.push(bytes);
        }
        let write = async {
            w.write_all(bytes).await?;
            w.flush().await
        };
        match tokio::time::timeout_at(deadline, write).await {
            Ok(r) => r,
            Err(_) => Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the server stopped reading its input",
            )),
        }
    }

    /// As [`LineTransport::send`], reading the server's output meanwhile (kept, in order, for
    /// the next [`LineTransport::recv`]): a server that writes a large answer before it reads
    /// its next input is never blocked on a full pipe by a client that writes without reading.
    pub async fn send_reading(&mut self, bytes: &[u8], deadline: Instant) -> std::io::Result<()> {
        let Some(w) = self.writer.as_mut() else {
            return Err(std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                "input closed",
            ));
        };
        let (reader, pending) = (&mut self.reader, &mut self.pending);
        let write = async {
            w.write_all(bytes).await?;
            w.flush().await
        };
        tokio::pin!(write);
        let mut reading = true;
        loop {
            tokio::select! {
                written = &mut write => return written,
                event = reader.next(deadline), if reading => match event {
                    Recv::TimedOut => {
                        return Err(std::io::Error::new(
                            std::io::ErrorKind::TimedOut,
                            "the server stopped reading its input",
                        ));
                    }
                    Recv::Closed => {
                        reading = false;
                        pending.push_back(Recv::Closed);
                    }
                    event => pending.push_back(event),
                },
            }
        }
    }

    /// Reads the next line or event, waiting at most until `deadline`. Once the deadline has
    /// passed this is `TimedOut` even while lines are still arriving, so a server that floods
    /// its output cannot stretch a wait.
    pub async fn recv(&mut self, deadline: Instant) -> Recv {
        if let Some(event) = self.pending.pop_front() {
            return event;
        }
        self.reader.next(deadline).await
    }

    /// Closes the server's input (stdin EOF).
    pub async fn close_input(&mut self) {
        if let Some(mut w) = self.writer.take() {
            let _ = w.shutdown().await;
        }
    }

    /// Waits up to `within` for the server to exit.
    pub async fn wait_exit(&mut self, within: Duration) -> Liveness {
        self.server.wait_exit(within).await
    }

    /// Ends the server and waits (up to `within`) until it is gone (see
    /// [`ServerHandle::terminate`]).
    pub async fn terminate(&mut self, within: Duration) {
        self.writer = None;
        self.server.terminate(within).await;
    }

    /// Whether the server is still running, without waiting.
    pub fn liveness(&mut self) -> Liveness {
        self.server.poll_exit()
    }

    /// Waits up to `within` for the server's stderr to end (after an exit).
    pub async fn stderr_settled(&mut self, within: Duration) {
        self.server.stderr_settled(within).await;
    }

    /// The last lines the server wrote to stderr (bounded).
    pub fn stderr_tail(&self) -> Vec<String> {
        self.server.stderr_tail()
    }
}
