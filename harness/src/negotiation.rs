//! Dual-era negotiation, as a dual-era client does it, and the version matrix.
//!
//! The client probes `server/discover` at its newest modern version:
//! - a DiscoverResult: the server is modern; pick the newest mutual version;
//! - a recognised modern error (-32022 with `data.supported`): retry discover with a mutual
//!   version, no fallback (if there is none, fall back);
//! - any other error, silence or a closed connection: the server is legacy. Start a fresh
//!   connection (respawn on stdio) and do the `initialize` handshake.
//!
//! The fallback is never keyed to one error code: whatever is not a DiscoverResult or a
//! recognisable -32022 sends the client down it.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::driver::{Peer, Reply, Settings, notification, request};
use crate::outcome::Era;
use crate::target::{StartError, Target};
use mcpspec_core::protocol::{code, method, version};
use mcpspec_core::transcript::Recorder;

/// Which way negotiation went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "path")]
pub enum Path {
    /// `server/discover` answered at the first version tried.
    Discover,
    /// -32022 named a mutual version; discover was retried with it.
    RetriedAfter32022 { first: String },
    /// Discover did not identify a modern server; `initialize` on a fresh connection.
    LegacyFallback { because: String },
    /// Neither era could be reached.
    Unreachable { because: String },
}

impl std::fmt::Display for Path {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Path::Discover => write!(f, "server/discover answered"),
            Path::RetriedAfter32022 { first } => {
                write!(f, "-32022 to {first}, retried with a mutual version")
            }
            Path::LegacyFallback { because } => write!(f, "fell back to initialize ({because})"),
            Path::Unreachable { because } => write!(f, "no era reached ({because})"),
        }
    }
}

/// The result of negotiation.
#[derive(Debug, Clone, Serialize)]
pub struct Negotiation {
    /// `modern`, `legacy`, or `none`.
    pub era: String,
    /// The version agreed, if any.
    pub version: Option<String>,
    pub path: Path,
    /// The DiscoverResult, when modern.
    #[serde(skip)]
    pub discover: Option<Value>,
    /// The InitializeResult, when legacy.
    #[serde(skip)]
    pub initialize: Option<Value>,
}

/// The client side of negotiation: which versions the client speaks.
#[derive(Debug, Clone)]
pub struct Client {
    /// Modern versions, newest first.
    pub modern: Vec<String>,
    /// The legacy version to offer in `initialize`.
    pub legacy: String,
}

impl Default for Client {
    fn default() -> Self {
        Client {
            modern: vec![version::MODERN.into()],
            legacy: version::LATEST_LEGACY.into(),
        }
    }
}

/// Runs negotiation against fresh connections of `target`, recording into `rec`.
pub async fn negotiate(
    target: &Target,
    settings: &Arc<Settings>,
    client: &Client,
    rec: &Recorder,
) -> Result<Negotiation, StartError> {
    let mut conn = 0;
    let mut open = |era: Era| -> Result<Peer, StartError> {
        conn += 1;
        let transport = target.connect(settings.max_message)?;
        rec.record(
            conn,
            mcpspec_core::transcript::Event::Connect {
                target: target.describe(),
            },
        );
        Ok(Peer::new(
            transport,
            rec.clone(),
            conn,
            era,
            settings.clone(),
        ))
    };
    let because = match client.modern.first() {
        None => "the client speaks no modern version".to_owned(),
        Some(_) => {
            let mut peer = open(Era::Modern)?;
            match discover_step(&mut peer, client).await {
                Ok(done) => return Ok(done),
                Err(because) => because,
            }
        }
    };
    // POL-8: the legacy attempt starts from a fresh connection.
    let mut peer = open(Era::Legacy)?;
    Ok(fallback_step(&mut peer, client, because).await)
}

/// The modern half of negotiation on `peer`: `server/discover` at the client's first version,
/// and a retry at a mutual version after -32022. `Err`: why the client falls back.
pub async fn discover_step(peer: &mut Peer, client: &Client) -> Result<Negotiation, String> {
    let Some(first) = client.modern.first() else {
        return Err("the client speaks no modern version".into());
    };
    let reply = peer.call(request(method::DISCOVER).version(first)).await;
    match classify_discover(&reply) {
        DiscoverAnswer::Result(result) => {
            let version = mutual(&result, client);
            Ok(modern(result, version, Path::Discover))
        }
        DiscoverAnswer::Unsupported(supported) => {
            match client.modern.iter().find(|v| supported.contains(v)) {
                Some(v) => {
                    let retry = peer.call(request(method::DISCOVER).version(v)).await;
                    if let DiscoverAnswer::Result(result) = classify_discover(&retry) {
                        let path = Path::RetriedAfter32022 {
                            first: first.clone(),
                        };
                        return Ok(modern(result, Some(v.clone()), path));
                    }
                    Err(format!("the retry at {v} got {}", retry.describe()))
                }
                None => Err(format!(
                    "-32022 names no mutual modern version ({supported:?})"
                )),
            }
        }
        DiscoverAnswer::Other => Err(format!("server/discover got {}", reply.describe())),
    }
}

/// The legacy half on `peer`, a fresh connection: `initialize` at the client's legacy version,
/// then `notifications/initialized`; `because` says why the client fell back.
pub async fn fallback_step(peer: &mut Peer, client: &Client, because: String) -> Negotiation {
    let reply = initialize(peer, &client.legacy, "mcpspec").await;
    match reply
        .result()
        .filter(|r| r.get("protocolVersion").is_some())
    {
        Some(result) => {
            peer.send(notification(method::INITIALIZED).bare()).await;
            Negotiation {
                era: "legacy".into(),
                version: result
                    .get("protocolVersion")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                path: Path::LegacyFallback { because },
                discover: None,
                initialize: Some(result.clone()),
            }
        }
        None => Negotiation {
            era: "none".into(),
            version: None,
            path: Path::Unreachable {
                because: format!("{because}; initialize got {}", reply.describe()),
            },
            discover: None,
            initialize: None,
        },
    }
}

fn modern(result: Value, version: Option<String>, path: Path) -> Negotiation {
    Negotiation {
        era: "modern".into(),
        version,
        path,
        discover: Some(result),
        initialize: None,
    }
}

fn mutual(result: &Value, client: &Client) -> Option<String> {
    let supported =
        mcpspec_core::protocol::string_array(result.get("supportedVersions")).unwrap_or_default();
    client
        .modern
        .iter()
        .find(|v| supported.contains(v))
        .cloned()
}

enum DiscoverAnswer {
    Result(Value),
    Unsupported(Vec<String>),
    Other,
}

fn classify_discover(reply: &Reply) -> DiscoverAnswer {
    if let Some(result) = reply.result() {
        if result.get("supportedVersions").is_some() {
            return DiscoverAnswer::Result(result.clone());
        }
    }
    match reply.error() {
        Some(e) if e.code == code::UNSUPPORTED_VERSION => {
            let supported = e
                .data
                .as_ref()
                .and_then(|d| mcpspec_core::protocol::string_array(d.get("supported")));
            supported.map_or(DiscoverAnswer::Other, DiscoverAnswer::Unsupported)
        }
        _ => DiscoverAnswer::Other,
    }
}

/// Sends a legacy `initialize` (no modern envelope) and returns the reply.
pub async fn initialize(peer: &mut Peer, version: &str, client_name: &str) -> Reply {
    peer.call(crate::driver::initialize_request(version, client_name))
        .await
}

/// One cell of the version matrix: what the server answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "answer")]
pub enum Cell {
    /// Served at the requested version (modern: a DiscoverResult; legacy: echoed).
    Served,
    /// Legacy: a different version was offered.
    CounterOffered { version: String },
    /// An error, with `data.supported` when given.
    Error {
        code: i64,
        #[serde(skip_serializing_if = "Option::is_none", default)]
        supported: Option<Vec<String>>,
    },
    /// A result of another shape.
    UnexpectedResult,
    /// Nothing within the wait (or the connection closed).
    NoReply,
}

/// One row: a requested version, asked as a modern request and as a legacy `initialize`, each
/// on a fresh connection, and as a modern request on one connection that served 2026-07-28
/// first (META-3: the answer must not depend on the connection's history).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Row {
    pub version: String,
    pub modern: Cell,
    pub legacy: Cell,
    /// The modern request on a used connection (absent when the server served no 2026-07-28
    /// `server/discover` to use it with, and in expectations written before it existed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub used: Option<Cell>,
}

/// The version matrix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Matrix {
    pub rows: Vec<Row>,
}

/// The versions the matrix asks about: the five known, an unknown one and a malformed one.
pub fn matrix_versions() -> Vec<&'static str> {
    let mut v: Vec<&str> = version::ALL.to_vec();
    v.push(version::UNKNOWN);
    v.push(version::MALFORMED);
    v
}

/// Builds the matrix: every cell on a fresh connection (POL-8), cells run concurrently.
pub async fn matrix(target: &Target, settings: &Arc<Settings>) -> Result<Matrix, StartError> {
    // Fail fast (exit 3) if the target cannot start or be reached at all.
    let contact = crate::preflight::preflight(target, settings.max_message).await?;
    // No more server processes at once than cores (POL-24): fourteen interpreters starting
    // together on two cores make every one of them late, and late is not silent. A target that
    // said nothing at first contact costs no CPU to wait for: its cells all run at once.
    let processes = match contact {
        crate::preflight::Contact::Answered => {
            std::thread::available_parallelism().map_or(2, usize::from)
        }
        crate::preflight::Contact::Quiet => matrix_versions().len() * 2,
    };
    let permits = Arc::new(tokio::sync::Semaphore::new(processes));
    let mut handles = Vec::new();
    for v in matrix_versions() {
        for legacy in [false, true] {
            let (target, settings, permits) = (target.clone(), settings.clone(), permits.clone());
            handles.push(tokio::spawn(async move {
                let _permit = permits.acquire_owned().await;
                cell(&target, &settings, v, legacy).await
            }));
        }
    }
    let used = used_column(target, settings).await;
    let mut cells = Vec::new();
    for h in handles {
        cells.push(h.await.unwrap_or(Cell::NoReply));
    }
    let rows = matrix_versions()
        .into_iter()
        .zip(cells.chunks(2))
        .enumerate()
        .map(|(i, (v, pair))| Row {
            version: v.to_owned(),
            modern: pair[0].clone(),
            legacy: pair[1].clone(),
            used: used.as_ref().and_then(|u| u.get(i).cloned()),
        })
        .collect();
    Ok(Matrix { rows })
}

async fn cell(target: &Target, settings: &Arc<Settings>, v: &str, legacy: bool) -> Cell {
    let transport = match target.connect(settings.max_message) {
        Ok(t) => t,
        Err(_) => return Cell::NoReply,
    };
    let era = if legacy { Era::Legacy } else { Era::Modern };
    let mut peer = Peer::new(transport, Recorder::default(), 1, era, settings.clone());
    let reply = if legacy {
        initialize(&mut peer, v, "mcpspec").await
    } else {
        peer.call(request(method::DISCOVER).version(v)).await
    };
    judge_cell(&reply, v, legacy)
}

/// The modern column again, on one connection: a `server/discover` at 2026-07-28 first, then
/// each version's in turn. `None` when that first discover is not served (nothing to use the
/// connection with).
async fn used_column(target: &Target, settings: &Arc<Settings>) -> Option<Vec<Cell>> {
    let transport = target.connect(settings.max_message).ok()?;
    let mut peer = Peer::new(
        transport,
        Recorder::default(),
        1,
        Era::Modern,
        settings.clone(),
    );
    let first = peer.call(request(method::DISCOVER)).await;
    if judge_cell(&first, version::MODERN, false) != Cell::Served {
        return None;
    }
    let mut cells = Vec::new();
    for v in matrix_versions() {
        let reply = peer.call(request(method::DISCOVER).version(v)).await;
        cells.push(judge_cell(&reply, v, false));
    }
    Some(cells)
}

/// What one answer to version `v` is, as a cell.
fn judge_cell(reply: &Reply, v: &str, legacy: bool) -> Cell {
    if let Some(result) = reply.result() {
        let answered = result.get("protocolVersion").and_then(Value::as_str);
        return match (legacy, answered) {
            (false, _) if result.get("supportedVersions").is_some() => Cell::Served,
            (true, Some(a)) if a == v => Cell::Served,
            (true, Some(a)) => Cell::CounterOffered {
                version: a.to_owned(),
            },
            _ => Cell::UnexpectedResult,
        };
    }
    if let Some(e) = reply.error() {
        let supported = e
            .data
            .as_ref()
            .and_then(|d| mcpspec_core::protocol::string_array(d.get("supported")));
        return Cell::Error {
            code: e.code,
            supported,
        };
    }
    Cell::NoReply
}

impl Cell {
    fn text(&self) -> String {
        match self {
            Cell::Served => "served".into(),
            Cell::CounterOffered { version } => format!("counter-offer {version}"),
            Cell::Error {
                code,
                supported: Some(s),
            } => format!("error {code} supported={}", s.join(",")),
            Cell::Error {
                code,
                supported: None,
            } => format!("error {code}"),
            Cell::UnexpectedResult => "unexpected result".into(),
            Cell::NoReply => "no reply".into(),
        }
    }
}

impl Matrix {
    /// Whether no cell got any answer: the target never produced a JSON-RPC message.
    pub fn answered_nothing(&self) -> bool {
        self.rows
            .iter()
            .all(|r| r.modern == Cell::NoReply && r.legacy == Cell::NoReply)
    }

    /// A plain-text table.
    pub fn to_table(&self) -> String {
        let with_used = self.rows.iter().any(|r| r.used.is_some());
        let rows: Vec<Vec<String>> = self
            .rows
            .iter()
            .map(|r| {
                let mut row = vec![r.version.clone(), r.modern.text(), r.legacy.text()];
                if with_used {
                    row.push(r.used.as_ref().map_or_else(|| "-".into(), Cell::text));
                }
                row
            })
            .collect();
        let mut header = vec![
            "requested".to_owned(),
            "modern (server/discover)".into(),
            "legacy (initialize)".into(),
        ];
        if with_used {
            header.push("modern, used connection".into());
        }
        let widths: Vec<usize> = (0..header.len())
            .map(|i| {
                rows.iter()
                    .map(|r| r[i].len())
                    .chain([header[i].len()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |cells: &[String]| {
            let last = cells.len() - 1;
            let mut text = String::new();
            for (i, c) in cells.iter().enumerate() {
                if i == last {
                    text.push_str(c);
                } else {
                    text.push_str(&format!("{c:<w$}  ", w = widths[i]));
                }
            }
            text.push('\n');
            text
        };
        let mut out = line(&header);
        for r in &rows {
            out.push_str(&line(r));
        }
        out
    }

    /// The cells that differ from `expected`, one line each.
    pub fn diff(&self, expected: &Matrix) -> Vec<String> {
        let mut out = Vec::new();
        for want in &expected.rows {
            match self.rows.iter().find(|r| r.version == want.version) {
                None => out.push(format!("{}: row missing", want.version)),
                Some(got) => {
                    if got.modern != want.modern {
                        out.push(format!(
                            "{} modern: expected {}, got {}",
                            want.version,
                            want.modern.text(),
                            got.modern.text()
                        ));
                    }
                    if got.legacy != want.legacy {
                        out.push(format!(
                            "{} legacy: expected {}, got {}",
                            want.version,
                            want.legacy.text(),
                            got.legacy.text()
                        ));
                    }
                    if let Some(want_used) = &want.used {
                        if got.used.as_ref() != Some(want_used) {
                            out.push(format!(
                                "{} modern on a used connection: expected {}, got {}",
                                want.version,
                                want_used.text(),
                                got.used
                                    .as_ref()
                                    .map_or_else(|| "nothing".into(), Cell::text)
                            ));
                        }
                    }
                }
            }
        }
        for got in &self.rows {
            if !expected.rows.iter().any(|w| w.version == got.version) {
                out.push(format!("{}: row not in the expectation", got.version));
            }
        }
        out
    }
}
