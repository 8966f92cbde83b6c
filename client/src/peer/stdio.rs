//! The stdio peer: a loopback listener for the relays the client starts (`mcpspec client peer
//! ADDR TOKEN`, see `relay.rs`). Each connection that opens with the token is served by its
//! own copy of the scenario's reference server, through a tee that records every line either
//! way and applies injections to the replies.
//!
//! ```text
//! client --stdio--> relay --tcp--> upstream tee --> server (serve over a pipe)
//! client <--stdio-- relay <--tcp-- downstream tee <-- server
//! ```
//!
//! Bounded: at most [`MAX_CONNECTIONS`] per scenario, lines past the message bound are cut
//! (and recorded as such), the token must come within [`TOKEN_WAIT`]; everything ends when
//! the peer is dropped (the accept task owns the connection tasks).

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_reference_server::Server;
use serde_json::Value;
use tokio::io::{AsyncWriteExt, duplex};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};
use tokio::time::Instant;

use crate::judge::{self, Kind};
use crate::observation::Log;
use crate::peer::inject::{Injector, as_lines};
use mcpspec_core::transport::{LineEvent, LineReader};

/// Peer processes one scenario may start.
pub const MAX_CONNECTIONS: u32 = 16;
/// How long a relay has to name the token.
const TOKEN_WAIT: Duration = Duration::from_secs(5);
/// A read's deadline while the scenario runs (the scenario's own timeout ends it first).
const IDLE: Duration = Duration::from_secs(24 * 3600);
/// The pipe between a tee and its server.
const PIPE: usize = 256 * 1024;
/// Requests awaiting their reply that a connection keeps track of (for injections); past this,
/// a client flooding requests gets no injections on the later ones.
const MAX_WAITING: usize = 4096;

/// A running stdio peer; dropping it closes every connection.
#[derive(Debug)]
pub struct StdioPeer {
    pub addr: SocketAddr,
    pub token: String,
    task: JoinHandle<()>,
}

impl Drop for StdioPeer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// What every connection of one peer shares.
#[derive(Debug)]
struct Shared {
    server: Server,
    log: Log,
    injector: Option<Arc<dyn Injector>>,
    token: String,
    max_line: usize,
    /// The client's requests, counted over all connections.
    requests: AtomicUsize,
}

impl StdioPeer {
    pub async fn start(
        server: Server,
        log: Log,
        injector: Option<Arc<dyn Injector>>,
        max_line: usize,
    ) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let token = token();
        let shared = Arc::new(Shared {
            server,
            log,
            injector,
            token: token.clone(),
            max_line,
            requests: AtomicUsize::new(0),
        });
        let task = tokio::spawn(accept(listener, shared));
        Ok(Self { addr, token, task })
    }
}

/// A token that a stray connection cannot guess (not a secret: the listener is loopback and
/// lives for one scenario).
fn token() -> String {
    use std::hash::{BuildHasher, RandomState};
    format!(
        "{:016x}{:016x}",
        RandomState::new().hash_one(1u8),
        RandomState::new().hash_one(2u8)
    )
}

async fn accept(listener: TcpListener, shared: Arc<Shared>) {
    // Owned here: when the accept task is aborted, every connection task ends with it.
    let mut connections = JoinSet::new();
    let mut accepted = 0;
    loop {
        let Ok((socket, _)) = listener.accept().await else {
            return;
        };
        accepted += 1;
        if accepted > MAX_CONNECTIONS {
            shared.log.note(
                1,
                format!("refused connection {accepted}: at most {MAX_CONNECTIONS} per scenario"),
            );
            continue;
        }
        connections.spawn(serve(socket, shared.clone()));
    }
}

async fn serve(socket: TcpStream, shared: Arc<Shared>) {
    let _ = socket.set_nodelay(true);
    let (read, mut write) = socket.into_split();
    let mut lines = LineReader::new(Box::new(read), shared.max_line);
    match lines.next_line(Instant::now() + TOKEN_WAIT).await {
        LineEvent::Line(t) if t == shared.token.as_bytes() => {}
        _ => return,
    }
    let conn = shared
        .log
        .connected("the peer (`mcpspec client peer`), over stdio".into());
    let (mut to_server, server_in) = duplex(PIPE);
    let (server_out, from_server) = duplex(PIPE);
    let server = tokio::spawn(shared.server.clone().serve(server_in, server_out));
    // Requests of this connection awaiting their reply: id (JSON text) -> number, request.
    let waiting: Mutex<HashMap<String, (usize, Value)>> = Mutex::default();
    let upstream = async {
        loop {
            let line = match lines.next_line(Instant::now() + IDLE).await {
                LineEvent::Line(line) => line,
                LineEvent::Overflow { limit, head } => {
                    shared.log.note(
                        conn,
                        format!("a line over {limit} bytes from the client, cut"),
                    );
                    head
                }
                LineEvent::Closed => break,
                LineEvent::TimedOut => continue,
            };
            if let Some(index) = shared.log.client_message(conn, &line, None) {
                note_request(&shared, &waiting, index);
            }
            let mut framed = line;
            framed.push(b'\n');
            if to_server.write_all(&framed).await.is_err() {
                break;
            }
        }
        shared.log.closed(conn);
        // The server sees its input end, as a stdio server sees stdin close.
        drop(to_server);
    };
    let downstream = async {
        let mut replies = LineReader::new(Box::new(from_server), shared.max_line);
        loop {
            let line = match replies.next_line(Instant::now() + IDLE).await {
                LineEvent::Line(line) => line,
                LineEvent::Overflow { head, .. } => head,
                LineEvent::Closed => break,
                LineEvent::TimedOut => continue,
            };
            for out in outgoing(&shared, &waiting, line) {
                shared.log.peer_message(conn, &out);
                let mut framed = out;
                framed.push(b'\n');
                if write.write_all(&framed).await.is_err() {
                    return;
                }
            }
        }
        let _ = write.shutdown().await;
    };
    tokio::join!(upstream, downstream);
    server.abort();
}

/// Numbers a request the client sent (kept as message `index`), for injections.
fn note_request(shared: &Shared, waiting: &Mutex<HashMap<String, (usize, Value)>>, index: usize) {
    let Some(message) = shared.log.client_message_at(index) else {
        return;
    };
    if let (Kind::Request { id, .. }, Some(json)) = (message.kind(), message.json.as_ref()) {
        let n = shared.requests.fetch_add(1, Ordering::Relaxed);
        if let Ok(mut w) = waiting.lock() {
            if w.len() < MAX_WAITING {
                w.insert(id.to_string(), (n, json.clone()));
            }
        }
    }
}

/// What goes to the client for one line of the server: the line, or an injection in place of
/// the reply it is.
fn outgoing(
    shared: &Shared,
    waiting: &Mutex<HashMap<String, (usize, Value)>>,
    line: Vec<u8>,
) -> Vec<Vec<u8>> {
    let Some(injector) = &shared.injector else {
        return vec![line];
    };
    let json: Option<Value> = serde_json::from_slice(&line).ok();
    let Kind::Response { id } = judge::kind(json.as_ref()) else {
        return vec![line];
    };
    let asked = waiting
        .lock()
        .ok()
        .and_then(|mut w| w.remove(&id.to_string()));
    match asked {
        Some((n, request)) if injector.touches(n, &request) => {
            as_lines(injector.inject(n, &request, vec![line]))
        }
        _ => vec![line],
    }
}
