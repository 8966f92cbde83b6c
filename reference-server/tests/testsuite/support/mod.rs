//! A scripted client for in-process tests: write lines, read lines, every wait bounded.
#![allow(dead_code, clippy::unwrap_used)]

pub mod auth;
pub mod http;

use std::time::Duration;

use mcp_reference_server::{Config, Eras, Fault, Faults, Server};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::task::JoinHandle;

pub const WAIT: Duration = Duration::from_secs(2);
pub const SILENCE: Duration = Duration::from_millis(100);
pub const MODERN: &str = "2026-07-28";

#[derive(Debug)]
pub struct Client {
    to_server: Option<DuplexStream>,
    from_server: BufReader<DuplexStream>,
    pub task: JoinHandle<std::io::Result<()>>,
}

pub fn config(faults: &[Fault]) -> Config {
    Config {
        faults: faults.iter().copied().collect::<Faults>(),
        ..Config::default()
    }
}

pub fn config_eras(faults: &[Fault], eras: Eras) -> Config {
    Config {
        eras,
        ..config(faults)
    }
}

pub fn start(config: Config) -> Client {
    start_server(Server::new(config))
}

pub fn start_server(server: Server) -> Client {
    let (client_w, server_r) = tokio::io::duplex(1 << 16);
    let (server_w, client_r) = tokio::io::duplex(1 << 16);
    let task = tokio::spawn(server.serve(server_r, server_w));
    Client {
        to_server: Some(client_w),
        from_server: BufReader::new(client_r),
        task,
    }
}

impl Client {
    pub async fn send_raw(&mut self, line: &str) {
        let w = self.to_server.as_mut().expect("input still open");
        w.write_all(line.as_bytes()).await.unwrap();
        w.write_all(b"\n").await.unwrap();
    }

    pub async fn send(&mut self, msg: Value) {
        self.send_raw(&msg.to_string()).await;
    }

    /// The next line, as text; panics after `WAIT`.
    pub async fn recv_line(&mut self) -> String {
        self.recv_line_within(WAIT).await
    }

    pub async fn recv_line_within(&mut self, wait: Duration) -> String {
        let mut line = String::new();
        let n = tokio::time::timeout(wait, self.from_server.read_line(&mut line))
            .await
            .unwrap_or_else(|_| panic!("no line from the server within {wait:?}"))
            .unwrap();
        assert!(n > 0, "server closed its output");
        line
    }

    pub async fn recv(&mut self) -> Value {
        let line = self.recv_line().await;
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line:?}"))
    }

    /// Sends a request and returns the reply (skipping nothing: the next line must be it).
    pub async fn call(&mut self, msg: Value) -> Value {
        self.send(msg).await;
        self.recv().await
    }

    /// Asserts nothing arrives within `SILENCE`.
    pub async fn expect_silence(&mut self) {
        let mut line = String::new();
        if let Ok(r) = tokio::time::timeout(SILENCE, self.from_server.read_line(&mut line)).await {
            panic!("expected silence, got {r:?}: {line:?}");
        }
    }

    /// Closes the input and returns what the server returned (bounded).
    pub async fn close(mut self) -> std::io::Result<()> {
        self.to_server = None;
        tokio::time::timeout(WAIT, self.task)
            .await
            .expect("server did not stop within 2 s of input EOF")
            .unwrap()
    }

    pub fn close_input(&mut self) {
        self.to_server = None;
    }

    /// Reads until the server closes its output; returns the lines.
    pub async fn drain(&mut self) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let mut line = String::new();
            let n = tokio::time::timeout(WAIT, self.from_server.read_line(&mut line))
                .await
                .expect("output not closed within 2 s")
                .unwrap();
            if n == 0 {
                return lines;
            }
            lines.push(line);
        }
    }

    /// Legacy handshake at `version`; returns the InitializeResult and sends `initialized`,
    /// then consumes the server's post-handshake `ping` and answers it.
    pub async fn initialize(&mut self, version: &str) -> Value {
        let reply = self.call(initialize(1, version, "test-client")).await;
        let result = reply["result"].clone();
        assert!(result.is_object(), "initialize failed: {reply}");
        self.send(notification("notifications/initialized", json!({})))
            .await;
        let ping = self.recv().await;
        assert_eq!(ping["method"], "ping", "{ping}");
        self.send(json!({"jsonrpc": "2.0", "id": ping["id"], "result": {}}))
            .await;
        result
    }
}

pub fn envelope() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "0"}
    })
}

/// A modern request: `params` plus the `_meta` envelope.
pub fn modern(id: impl Into<Value>, method: &str, params: Value) -> Value {
    let mut params = params;
    params["_meta"] = envelope();
    json!({"jsonrpc": "2.0", "id": id.into(), "method": method, "params": params})
}

/// A modern request with extra `_meta` keys merged in.
pub fn modern_meta(id: impl Into<Value>, method: &str, params: Value, extra: Value) -> Value {
    let mut msg = modern(id, method, params);
    if let (Some(meta), Some(extra)) = (msg["params"]["_meta"].as_object_mut(), extra.as_object()) {
        for (k, v) in extra {
            meta.insert(k.clone(), v.clone());
        }
    }
    msg
}

pub fn request(id: impl Into<Value>, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id.into(), "method": method, "params": params})
}

pub fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

pub fn initialize(id: impl Into<Value>, version: &str, client: &str) -> Value {
    request(
        id,
        "initialize",
        json!({
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": client, "version": "0"}
        }),
    )
}

pub fn error_code(reply: &Value) -> i64 {
    reply["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error reply: {reply}"))
}
