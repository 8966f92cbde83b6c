//! What a case's lines oblige the server to write: one [`Slot`] per reply a line may (or must)
//! earn, with every id that reply may carry.
//!
//! A line is read every way a peer on the other end may read it ([`readings`]):
//!
//! | the line | readings |
//! | --- | --- |
//! | JSON text a strict parser accepts | that one |
//! | bytes that are not UTF-8, a lone surrogate escape, a number past a double, nesting [`MAX_DEPTH`] deep or deeper, a repeated key | refused (a parse error: id null, or the id a scan finds), and read by a replacing decoder and by an escaping one (surrogateescape), each of which may see another id |
//! | a raw carriage return, over stdio | also as the lines a reader with universal newlines (Python's text stdin, Node's readline) splits it into |
//! | not JSON | refused |
//!
//! A line with one reading obliges what it says: a request one reply with its id (or, for an id
//! past the interoperable range or not an integer, an error with id null: RFC 8259 §6 lets a
//! peer refuse such a number), a notification none, anything invalid at most one error. A line
//! with several readings obliges nothing and allows whatever any of them allows. Over HTTP, a
//! POST that is no request, or whose mirrored header the fuzzer made malformed on purpose
//! ([`super::super::headers`]), may also be refused by the HTTP layer; so may a large one, and a
//! handshake-era request outside a session ([`Refusable`]).

use std::collections::HashSet;

use super::TransportKind;
use crate::fuzz::headers;
use crate::fuzz::reading::{self, Decoder, Doc, IdKey, Kind, Object, Val};
use mcpspec_core::protocol::{meta, method};

/// Nesting this deep a strict parser may refuse (serde_json refuses its 128th level; Python's
/// limit is near 1000, V8's far beyond).
pub const MAX_DEPTH: usize = mcpspec_core::wire::MAX_DEPTH;

/// The largest integer every JSON peer reads exactly (RFC 8259 §6: 2^53 - 1).
const INTEROPERABLE: i64 = (1 << 53) - 1;

/// What a case obliges.
#[derive(Debug, Default)]
pub struct Obligations {
    pub slots: Vec<Slot>,
    /// Notifications among the lines (any reading): an id-null reply with no slot left is
    /// then a reply to one.
    pub notifications: usize,
    /// Ids of requests announcing the modern era (the `_meta` envelope, `server/discover`).
    pub modern: HashSet<IdKey>,
    /// Ids of `initialize` requests.
    pub initialize: HashSet<IdKey>,
    /// Every id a line carried, any reading, valid or not.
    pub carried: HashSet<IdKey>,
    /// The maximal sequences of bytes that are not UTF-8 in the lines: a server may echo them.
    pub invalid_utf8: Vec<Vec<u8>>,
}

/// One reply a line may earn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    /// The ids the reply may carry (`null` among them when an id-null error may answer).
    pub keys: Vec<IdKey>,
    /// Whether the line must earn it (a request, uncancelled, read one way only).
    pub required: bool,
    /// Over HTTP: whether the HTTP layer may refuse the POST instead, and how.
    pub refusable: Option<Refusable>,
    /// The line (0-based) that earns it.
    pub line: usize,
}

/// How an HTTP layer may refuse a POST instead of answering it with JSON-RPC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusable {
    /// Not a request (not JSON, invalid, a batch): a 4xx, with or without a JSON body.
    NotARequest,
    /// A header value HTTP cannot carry, built on purpose: a 4xx, or the connection closed.
    MalformedHeader,
    /// A request whose body is at least [`LARGE_BODY`] bytes: 413 Content Too Large (RFC 9110
    /// §15.5.14), whatever its body says. A server may cap the size of what it reads; a cap
    /// below that size is still judged.
    TooLarge,
    /// A handshake-era request (no `_meta` version string of the stateless era) other than a
    /// well-formed `initialize`: a server that keeps sessions refuses it outside one with 400
    /// (no `Mcp-Session-Id`) or 404 (a session it does not know), as the transport spec says
    /// (2025-11-25, "Session Management"); and with 413 when it is also large.
    OutsideSession { large: bool },
}

/// The body size from which an HTTP layer may refuse a request as too large: the fuzzer's huge
/// arguments (up to 200 kB) pass it; Express's default `json()` limit (100 kB) is above it.
pub const LARGE_BODY: usize = 64 * 1024;

impl Refusable {
    /// Whether a response with `status` (0: none came) is such a refusal.
    pub fn allows(self, status: u16) -> bool {
        match self {
            Refusable::NotARequest => (400..500).contains(&status),
            Refusable::MalformedHeader => (400..500).contains(&status) || status == 0,
            Refusable::TooLarge => status == 413,
            Refusable::OutsideSession { large } => {
                matches!(status, 400 | 404) || (large && status == 413)
            }
        }
    }
}

impl Obligations {
    /// What `case` obliges a server reached over `transport` to write.
    pub fn of(case: &[Vec<u8>], transport: TransportKind) -> Obligations {
        let mut o = Obligations::default();
        let mut cancelled: Vec<IdKey> = Vec::new();
        for (i, line) in case.iter().enumerate() {
            if std::str::from_utf8(line).is_err() {
                for chunk in line.utf8_chunks() {
                    if !chunk.invalid().is_empty() {
                        o.invalid_utf8.push(chunk.invalid().to_vec());
                    }
                }
            }
            let readings = readings(line, transport);
            let mut each: Vec<Vec<Spec>> = Vec::new();
            let mut notifications = 0;
            for shapes in &readings {
                let (mut specs, mut n) = (Vec::new(), 0);
                for shape in shapes {
                    shape.note(&mut o, &mut cancelled, &mut n);
                    shape.specs(&mut specs, true);
                }
                notifications = notifications.max(n);
                each.push(specs);
            }
            o.notifications += notifications;
            let specs = merged(each);
            let malformed = transport == TransportKind::Http && headers::malformed(strip_cr(line));
            let large = line.len() >= LARGE_BODY;
            for spec in specs {
                let refusable = match transport {
                    TransportKind::Stdio => None,
                    TransportKind::Http if malformed => Some(Refusable::MalformedHeader),
                    TransportKind::Http if !spec.request => Some(Refusable::NotARequest),
                    TransportKind::Http if spec.session_bound => {
                        Some(Refusable::OutsideSession { large })
                    }
                    TransportKind::Http => large.then_some(Refusable::TooLarge),
                };
                o.slots.push(Slot {
                    keys: spec.keys,
                    required: spec.required,
                    refusable,
                    line: i,
                });
            }
        }
        // A cancelled request may go unanswered (the receiver SHOULD NOT answer it).
        for slot in &mut o.slots {
            if slot.keys.iter().any(|k| cancelled.contains(k)) {
                slot.required = false;
            }
        }
        o
    }
}

/// One way of reading a line: the messages it reads as (several when a reader splits it).
type Reading = Vec<Shape>;

/// A message as one reading sees it.
#[derive(Debug, Clone, PartialEq)]
enum Shape {
    Request {
        keys: Vec<IdKey>,
        /// An id a peer may fail to read ([`odd_id`]): an id-null error may answer, or none.
        odd: bool,
        /// A `subscriptions/listen` request, answered only when its stream ends.
        listen: bool,
        modern: bool,
        initialize: bool,
        /// A handshake-era request (no `_meta` version string of the stateless era) that is no
        /// well-formed `initialize`: over HTTP, refusable outside a session.
        session_bound: bool,
    },
    Notification {
        cancels: Vec<IdKey>,
    },
    /// A response or error sent by the client; `null_error` an error with id null, which a
    /// server may take for an invalid request and answer.
    ClientReply {
        null_error: bool,
    },
    Batch(Vec<Shape>),
    /// Refused, or invalid JSON-RPC: at most one error, with id null or an id it carried.
    Invalid {
        keys: Vec<IdKey>,
    },
}

/// One reply a shape allows, before the line's readings are merged.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Spec {
    keys: Vec<IdKey>,
    required: bool,
    /// Earned by a request (not refusable as "no request" over HTTP).
    request: bool,
    /// Earned by a handshake-era request other than `initialize`: over HTTP, refusable outside
    /// a session ([`Refusable::OutsideSession`]).
    session_bound: bool,
}

impl Shape {
    /// Records what the shape tells about the case: its ids, era marks, cancellations.
    fn note(&self, o: &mut Obligations, cancelled: &mut Vec<IdKey>, notifications: &mut usize) {
        match self {
            Shape::Request {
                keys,
                modern,
                initialize,
                ..
            } => {
                o.carried.extend(keys.iter().cloned());
                if *modern {
                    o.modern.extend(keys.iter().cloned());
                }
                if *initialize {
                    o.initialize.extend(keys.iter().cloned());
                }
            }
            Shape::Notification { cancels } => {
                *notifications += 1;
                cancelled.extend(cancels.iter().cloned());
            }
            Shape::Invalid { keys } => o.carried.extend(keys.iter().cloned()),
            Shape::Batch(items) => {
                for item in items {
                    item.note(o, cancelled, notifications);
                }
            }
            Shape::ClientReply { .. } => {}
        }
    }

    /// The replies the shape allows; `top`: the line itself, not a batch element.
    fn specs(&self, out: &mut Vec<Spec>, top: bool) {
        let optional = |keys: Vec<IdKey>, request: bool| Spec {
            keys,
            required: false,
            request,
            session_bound: false,
        };
        match self {
            Shape::Request {
                keys,
                odd,
                listen,
                session_bound,
                ..
            } => {
                let mut keys = keys.clone();
                if *odd {
                    keys.push(IdKey::null());
                }
                out.push(Spec {
                    keys,
                    // A batch may be refused whole, a listen request answers late, and a peer
                    // that cannot read an odd id may drop the request it came in.
                    required: top && !listen && !odd,
                    // A peer that cannot read the id may refuse the line as it would refuse
                    // text that is not JSON: over HTTP, a bare 4xx.
                    request: !odd,
                    session_bound: *session_bound,
                });
            }
            Shape::Notification { .. } => {}
            Shape::ClientReply { null_error } => {
                if *null_error {
                    out.push(optional(vec![IdKey::null()], false));
                }
            }
            Shape::Batch(items) => {
                // One error for the batch as a whole, or a reply per element.
                out.push(optional(vec![IdKey::null()], false));
                for item in items {
                    item.specs(out, false);
                }
            }
            Shape::Invalid { keys } => {
                let mut all = vec![IdKey::null()];
                all.extend(keys.iter().filter(|k| !k.is_null()).cloned());
                out.push(optional(all, false));
            }
        }
    }
}

/// The specs of a line from its readings. Read one way, the line obliges what that reading
/// says. Read several ways, it obliges nothing: when no reading allows more than one reply, one
/// optional slot takes any id any of them allows; else each distinct spec is a slot of its own.
fn merged(mut each: Vec<Vec<Spec>>) -> Vec<Spec> {
    if each.len() == 1 {
        return each.pop().unwrap_or_default();
    }
    let all: Vec<Spec> = each.iter().flatten().cloned().collect();
    // Refusable as "no request" over HTTP unless every reading is a request; outside a session
    // only if every reading is session-bound.
    let request = all.iter().all(|s| s.request);
    let session_bound = all.iter().all(|s| s.session_bound);
    if each.iter().all(|specs| specs.len() <= 1) {
        let mut keys: Vec<IdKey> = Vec::new();
        for k in all.iter().flat_map(|s| s.keys.iter()) {
            if !keys.contains(k) {
                keys.push(k.clone());
            }
        }
        return vec![Spec {
            keys,
            required: false,
            request,
            session_bound,
        }];
    }
    let mut distinct: Vec<Spec> = Vec::new();
    for mut spec in all {
        spec.required = false;
        spec.request = request;
        spec.session_bound = session_bound;
        if !distinct.contains(&spec) {
            distinct.push(spec);
        }
    }
    distinct
}

/// A trailing carriage return is part of the line terminator for every reader.
fn strip_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Every way a peer may read `line` (see the module doc).
fn readings(line: &[u8], transport: TransportKind) -> Vec<Reading> {
    let body = strip_cr(line);
    let mut out = Vec::new();
    match reading::read(body) {
        Ok(doc) => {
            // The messages: the root, or each element of a batch (each read once).
            let messages: Vec<Object<'_, '_>> = match doc.root.kind {
                Kind::Array => doc
                    .elements(doc.root)
                    .into_iter()
                    .map(|e| doc.object(e))
                    .collect(),
                _ => vec![doc.object(doc.root)],
            };
            if strict_reads(&doc, &messages) {
                out.push(shapes(&doc, &messages, Decoder::Escape));
                return out;
            }
            let mut refused = Vec::new();
            for decoder in Decoder::ALL {
                let reading = shapes(&doc, &messages, decoder);
                for shape in &reading {
                    if let Shape::Request { keys, .. } | Shape::Invalid { keys } = shape {
                        refused.extend(keys.iter().cloned());
                    }
                }
                out.push(reading);
            }
            out.push(vec![Shape::Invalid { keys: refused }]);
        }
        Err(_) => out.push(vec![Shape::Invalid {
            keys: scanned_id(body),
        }]),
    }
    // Over HTTP a body is one message, whatever it holds.
    if transport == TransportKind::Stdio && memchr::memchr(b'\r', body).is_some() {
        let pieces = body
            .split(|&b| b == b'\r')
            .filter(|p| !p.iter().all(u8::is_ascii_whitespace));
        out.push(
            pieces
                .flat_map(|piece| match reading::read(piece) {
                    Ok(doc) => {
                        let messages = match doc.root.kind {
                            Kind::Array => doc
                                .elements(doc.root)
                                .into_iter()
                                .map(|e| doc.object(e))
                                .collect(),
                            _ => vec![doc.object(doc.root)],
                        };
                        shapes(&doc, &messages, Decoder::Escape)
                    }
                    Err(_) => vec![Shape::Invalid {
                        keys: scanned_id(piece),
                    }],
                })
                .collect(),
        );
    }
    out
}

/// Whether a strict parser (serde_json, say) reads the line as every lenient one does.
fn strict_reads(doc: &Doc<'_>, messages: &[Object<'_, '_>]) -> bool {
    let f = doc.facts;
    let repeats = messages.iter().any(Object::repeats_a_key);
    !(f.invalid_utf8 || f.lone_surrogate || f.overflow || f.depth >= MAX_DEPTH || repeats)
}

/// The id a shallow scan finds in a line that is not JSON (a peer may answer a parse error
/// with it).
fn scanned_id(body: &[u8]) -> Vec<IdKey> {
    mcpspec_core::wire::scan_envelope(body)
        .and_then(|e| e.id)
        .and_then(|id| IdKey::of_json(id.to_string().as_bytes()))
        .into_iter()
        .collect()
}

/// The messages a document reads as under `decoder`: `messages` are its root, or the elements
/// of the batch it is.
fn shapes(doc: &Doc<'_>, messages: &[Object<'_, '_>], decoder: Decoder) -> Reading {
    let each = messages.iter().map(|m| shape(doc, m, decoder));
    match doc.root.kind {
        Kind::Array => vec![Shape::Batch(each.collect())],
        _ => each.collect(),
    }
}

/// One message (an object, else invalid) as `decoder` reads it, by JSON-RPC's rules.
fn shape(doc: &Doc<'_>, obj: &Object<'_, '_>, decoder: Decoder) -> Shape {
    let v = obj.value;
    let ids = obj.get_all("id");
    let keys: Vec<IdKey> = ids
        .iter()
        .flat_map(|id| doc.id_keys(*id, decoder))
        .collect();
    let invalid = || Shape::Invalid { keys: keys.clone() };
    if v.kind != Kind::Object || !obj.get("jsonrpc").is_some_and(|j| doc.is(j, "2.0")) {
        return invalid();
    }
    let params = obj.get("params");
    let Some(m) = obj.get("method") else {
        return client_reply(doc, obj, ids.last().copied()).unwrap_or_else(invalid);
    };
    if m.kind != Kind::String
        || params.is_some_and(|p| !matches!(p.kind, Kind::Object | Kind::Array))
    {
        return invalid();
    }
    let Some(&id) = ids.last() else {
        let cancels = match params {
            Some(p) if doc.is(m, method::CANCELLED) => doc
                .get(p, "requestId")
                .map(|r| doc.id_keys(r, decoder))
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        return Shape::Notification { cancels };
    };
    if !matches!(id.kind, Kind::String | Kind::Number) {
        return invalid();
    }
    let odd = odd_id(doc, id);
    let version = params
        .and_then(|p| doc.get(p, "_meta"))
        .and_then(|meta| doc.get(meta, meta::PROTOCOL_VERSION));
    let enveloped = version.is_some();
    // A version string naming no handshake revision: the stateless era, served without a
    // session. A handshake revision there, or no string at all, leaves the server in the
    // handshake era.
    let modern_version = version.is_some_and(|v| {
        v.kind == Kind::String
            && !mcpspec_core::protocol::version::LEGACY
                .iter()
                .any(|l| doc.is(v, l))
    });
    // What a server that keeps sessions may read as "initialization": an `initialize` whose
    // params it can read as one. Any other handshake-era request needs the session.
    let handshake = doc.is(m, method::INITIALIZE)
        && params.is_some_and(|p| {
            doc.get(p, "protocolVersion")
                .is_some_and(|v| v.kind == Kind::String)
                && doc
                    .get(p, "capabilities")
                    .is_some_and(|v| v.kind == Kind::Object)
                && doc
                    .get(p, "clientInfo")
                    .is_some_and(|v| v.kind == Kind::Object)
        });
    Shape::Request {
        keys,
        odd,
        listen: doc.is(m, "subscriptions/listen"),
        modern: enveloped || doc.is(m, method::DISCOVER),
        initialize: doc.is(m, method::INITIALIZE),
        session_bound: !modern_version && !handshake,
    }
}

/// Whether a peer may fail to read an id as the id it is: a number not spelled as a plain
/// integer (`1.5`, `1e21`, `-0.0`: a Python peer reads a float) or past 2^53 - 1 (RFC 8259 §6).
fn odd_id(doc: &Doc<'_>, id: Val) -> bool {
    let raw = doc.raw(id);
    id.kind == Kind::Number
        && (raw.iter().any(|b| matches!(b, b'.' | b'e' | b'E'))
            || doc
                .integer(id)
                .is_none_or(|n| !(-INTEROPERABLE..=INTEROPERABLE).contains(&n)))
}

/// A message without `method` that is a well-formed response or error from the client; `None`
/// for anything a strict peer would take for an invalid message (both or neither of `result`
/// and `error`, a result without an id, an error object that is not one, an odd id), which
/// may then earn an error.
fn client_reply(doc: &Doc<'_>, obj: &Object<'_, '_>, id: Option<Val>) -> Option<Shape> {
    let id_ok = |id: Val| matches!(id.kind, Kind::String | Kind::Number) && !odd_id(doc, id);
    match (obj.get("result"), obj.get("error")) {
        (Some(_), None) => id
            .filter(|id| id_ok(*id))
            .map(|_| Shape::ClientReply { null_error: false }),
        (None, Some(e)) => {
            let code = doc.get(e, "code").filter(|c| {
                doc.integer(*c).is_some()
                    && !doc.raw(*c).iter().any(|b| matches!(b, b'.' | b'e' | b'E'))
            });
            let message = doc.get(e, "message").filter(|m| m.kind == Kind::String);
            if e.kind != Kind::Object || code.is_none() || message.is_none() {
                return None;
            }
            match id {
                None => Some(Shape::ClientReply { null_error: true }),
                Some(id) if id.kind == Kind::Null => Some(Shape::ClientReply { null_error: true }),
                Some(id) if id_ok(id) => Some(Shape::ClientReply { null_error: false }),
                Some(_) => None,
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn of(lines: &[&[u8]]) -> Obligations {
        let case: Vec<Vec<u8>> = lines.iter().map(|l| l.to_vec()).collect();
        Obligations::of(&case, TransportKind::Stdio)
    }

    fn key(json: &str) -> IdKey {
        IdKey::of_json(json.as_bytes()).unwrap_or_else(IdKey::null)
    }

    #[test]
    fn a_request_must_be_answered_once_and_a_notification_never() {
        let o = of(&[
            br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            br#"{"jsonrpc":"2.0","method":"notifications/x"}"#,
            br#"{"jsonrpc":"1.0","id":"a","method":"ping"}"#,
            br#"{"jsonrpc":"2.0","id":2,"method":"x"}"#,
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#,
        ]);
        assert_eq!(o.notifications, 2);
        let slot = |k: &str| o.slots.iter().find(|s| s.keys.contains(&key(k))).cloned();
        assert!(slot("1").is_some_and(|s| s.required && s.keys.len() == 1));
        assert!(slot("2").is_some_and(|s| !s.required));
        assert!(slot("\"a\"").is_some_and(|s| !s.required && s.keys.contains(&IdKey::null())));
        assert_eq!(o.slots.len(), 3);
    }

    #[test]
    fn an_id_past_a_double_may_be_refused_and_keys_as_written_and_as_rounded() {
        let o = of(&[br#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}"#]);
        let keys = &o.slots[0].keys;
        assert!(!o.slots[0].required);
        assert!(keys.contains(&key("18446744073709551615")));
        assert!(keys.contains(&key("18446744073709552000")));
        assert!(keys.contains(&IdKey::null()));
    }

    #[test]
    fn an_invalid_client_message_may_earn_one_error_and_a_valid_one_none() {
        let o = of(&[
            br#"{"jsonrpc":"2.0","id":0,"result":{},"error":{"code":1,"message":"x"}}"#,
            br#"{"jsonrpc":"2.0","id":1e+21,"error":{"code":-32603,"message":"no"}}"#,
            br#"{"jsonrpc":"2.0","result":{}}"#,
            br#"{"jsonrpc":"2.0","id":7,"error":{"code":1.5,"message":"x"}}"#,
            br#"{"jsonrpc":"2.0","id":8,"result":{}}"#,
            br#"{"jsonrpc":"2.0","id":9,"error":{"code":-1,"message":"x"}}"#,
            br#"{"jsonrpc":"2.0","error":{"code":-1,"message":"x"}}"#,
        ]);
        let lines: Vec<usize> = o.slots.iter().map(|s| s.line).collect();
        assert_eq!(lines, [0, 1, 2, 3, 6]);
        assert!(
            o.slots
                .iter()
                .all(|s| !s.required && s.keys.contains(&IdKey::null()))
        );
    }

    #[test]
    fn an_id_a_peer_may_read_as_a_float_need_not_be_answered() {
        for id in ["1e21", "1.5", "-0.0", "9007199254740992"] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
            let o = of(&[line.as_bytes()]);
            assert!(!o.slots[0].required, "{id}");
        }
        let o = of(&[br#"{"jsonrpc":"2.0","id":-9007199254740991,"method":"ping"}"#]);
        assert!(o.slots[0].required);
    }

    #[test]
    fn bytes_that_are_not_utf8_are_read_every_lenient_way() {
        // A key mangled, the id intact: a lenient server reads a request with id 5.
        let o = of(&[b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\",\"x\xff\":1}"]);
        assert_eq!(o.slots.len(), 1);
        assert!(!o.slots[0].required);
        assert!(o.slots[0].keys.contains(&key("5")));
        assert!(o.slots[0].keys.contains(&IdKey::null()));
        assert_eq!(o.invalid_utf8, vec![vec![0xff]]);
        // The id mangled: what each decoder reads, as a server would echo it.
        let o = of(&[b"{\"jsonrpc\":\"2.0\",\"id\":\"r\xfe1\",\"method\":\"ping\"}"]);
        let keys = &o.slots[0].keys;
        assert!(keys.contains(&key(r#""r\udcfe1""#)));
        assert!(keys.contains(&key(r#""r\ufffd1""#)));
    }

    #[test]
    fn a_lone_surrogate_deep_nesting_or_a_repeated_key_may_be_refused() {
        let deep = format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"ping","params":{{"a":{}{}}}}}"#,
            "[".repeat(500),
            "]".repeat(500)
        );
        for line in [
            br#"{"jsonrpc":"2.0","id":4,"method":"ping","params":{"a":"\udcff"}}"#.to_vec(),
            deep.into_bytes(),
            br#"{"jsonrpc":"2.0","id":6,"id":7,"method":"ping"}"#.to_vec(),
        ] {
            let o = of(&[&line]);
            assert_eq!(o.slots.len(), 1, "{}", String::from_utf8_lossy(&line));
            assert!(!o.slots[0].required);
            assert!(o.slots[0].keys.contains(&IdKey::null()));
        }
    }

    #[test]
    fn nesting_as_deep_as_serde_json_refuses_may_be_refused() {
        let nested = |depth: usize| {
            // The envelope and `params` are two levels; the array holds the rest.
            let inner = depth - 2;
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":{}{}}}}}"#,
                "[".repeat(inner),
                "]".repeat(inner)
            )
        };
        for (depth, strict) in [(MAX_DEPTH - 1, true), (MAX_DEPTH, false)] {
            let line = nested(depth);
            let serde = serde_json::from_str::<serde_json::Value>(&line).is_ok();
            assert_eq!(serde, strict, "serde_json at depth {depth}");
            let o = of(&[line.as_bytes()]);
            assert_eq!(o.slots[0].required, strict, "depth {depth}");
        }
    }

    #[test]
    fn a_carriage_return_may_split_a_line() {
        let o = of(&[b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}"]);
        let all: Vec<&IdKey> = o.slots.iter().flat_map(|s| s.keys.iter()).collect();
        assert!(all.contains(&&key("1")) && all.contains(&&key("2")));
        assert!(o.slots.iter().all(|s| !s.required));
    }

    #[test]
    fn over_http_what_may_be_refused() {
        let malformed = json!({"jsonrpc": "2.0", "id": 1, "method": "ping",
            "params": {"_meta": {meta::PROTOCOL_VERSION: "2026-0\u{0}7-28"}}})
        .to_string();
        let enveloped = |id: u32, method: &str, params: serde_json::Value| {
            let mut params = params;
            params["_meta"] = json!({meta::PROTOCOL_VERSION: "2026-07-28"});
            json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
                .to_string()
                .into_bytes()
        };
        let case = vec![
            malformed.into_bytes(),
            enveloped(2, "tools/list", json!({})),
            b"{oops".to_vec(),
            br#"{"jsonrpc":"2.0","id":4,"method":"ping"}"#.to_vec(),
            br#"{"jsonrpc":"2.0","id":5,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#.to_vec(),
            // An `initialize` a server cannot read as one needs a session like any request.
            br#"{"jsonrpc":"2.0","id":6,"method":"initialize"}"#.to_vec(),
        ];
        let o = Obligations::of(&case, TransportKind::Http);
        let refusable: Vec<_> = o.slots.iter().map(|s| s.refusable).collect();
        assert_eq!(
            refusable,
            [
                Some(Refusable::MalformedHeader),
                None,
                Some(Refusable::NotARequest),
                Some(Refusable::OutsideSession { large: false }),
                None,
                Some(Refusable::OutsideSession { large: false }),
            ]
        );
        assert!(Refusable::MalformedHeader.allows(0) && !Refusable::NotARequest.allows(0));
        assert!(!Refusable::NotARequest.allows(500));
        let outside = Refusable::OutsideSession { large: false };
        assert!(outside.allows(400) && outside.allows(404));
        assert!(!outside.allows(403) && !outside.allows(413) && !outside.allows(500));
        // A huge request may be refused for its size, and only for its size (or, in the
        // handshake era, outside a session).
        let text = "x".repeat(LARGE_BODY);
        let huge = enveloped(
            1,
            "tools/call",
            json!({"name": "echo", "arguments": {"text": text}}),
        );
        let unenveloped = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": text}}})
        .to_string()
        .into_bytes();
        let small = enveloped(2, "tools/list", json!({}));
        let o = Obligations::of(&[huge, small, unenveloped], TransportKind::Http);
        let refusable: Vec<_> = o.slots.iter().map(|s| s.refusable).collect();
        assert_eq!(
            refusable,
            [
                Some(Refusable::TooLarge),
                None,
                Some(Refusable::OutsideSession { large: true })
            ]
        );
        assert!(Refusable::TooLarge.allows(413) && !Refusable::TooLarge.allows(400));
        assert!(Refusable::OutsideSession { large: true }.allows(413));
        // An id a peer may fail to read (a fraction, an exponent, past 2^53) may get what a line
        // it cannot parse gets: the Rust SDK's HTTP layer answers a bare 415.
        let o = Obligations::of(
            &[
                enveloped(0, "tools/list", json!({})),
                br#"{"jsonrpc":"2.0","id":1.5,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#.to_vec(),
                br#"{"jsonrpc":"2.0","id":340282366920938463463374607431768211457,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#.to_vec(),
                // A handshake revision in `_meta` leaves the server in the handshake era.
                br#"{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2024-11-05"}}}"#.to_vec(),
                br#"{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}}"#.to_vec(),
            ],
            TransportKind::Http,
        );
        let refusable: Vec<_> = o.slots.iter().map(|s| s.refusable).collect();
        assert_eq!(
            refusable,
            [
                None,
                Some(Refusable::NotARequest),
                Some(Refusable::NotARequest),
                Some(Refusable::OutsideSession { large: false }),
                None
            ]
        );
        let stdio = Obligations::of(&case, TransportKind::Stdio);
        assert!(stdio.slots.iter().all(|s| s.refusable.is_none()));
    }
}
