//! Judging what the server wrote for one case: each line (a stdout line, or an HTTP body or
//! event) read as JSON text, lone surrogate escapes allowed (RFC 8259 §8.2) and bytes that are
//! not UTF-8 allowed only where the case sent them; each message held to JSON-RPC; each reply
//! and HTTP refusal kept, then matched against the case's [slots](super::sent::Slot).
//!
//! Matching is a bipartite matching of replies to slots (a reply fills a slot that allows its
//! id; a slot takes one reply), required slots first, so no order of arrival and no choice among
//! slots that share an id (`null`, a reused id) makes a violation that another choice avoids.
//! What stays unmatched is the finding: a reply no slot allows (unmatched, or a reply to a
//! notification), one more than its slots (a duplicate), a refusal no slot allows, a required
//! slot left empty once the probe came back (unanswered).

use std::collections::HashMap;

use super::sent::{Obligations, Slot};
use super::{Oracle, PROBE_ID, TransportKind, Violation, allowed_error_code};
use crate::fuzz::reading::{self, Decoder, Doc, IdKey, Kind, Val};
use mcpspec_core::protocol::{self, method};
use mcpspec_core::wire::HttpContext;

/// The judge of one case.
#[derive(Debug)]
pub struct Judge<'a> {
    expected: &'a Obligations,
    transport: TransportKind,
    probe: IdKey,
    items: Vec<Item>,
    /// Replies per id so far (for [`Judge::complete`]).
    count: HashMap<IdKey, usize>,
    violations: Vec<Violation>,
    probe_answered: bool,
    server_requests: usize,
    modern_success: bool,
    legacy_success: bool,
}

/// What came back that a slot must account for.
#[derive(Debug, Clone)]
enum Item {
    Reply(IdKey),
    /// An HTTP exchange with no JSON-RPC body: its status (0: no response), the id POSTed (if
    /// the transport could read one), and what came instead.
    Refusal {
        key: Option<IdKey>,
        status: u16,
        why: String,
    },
}

impl<'a> Judge<'a> {
    pub fn new(expected: &'a Obligations, transport: TransportKind) -> Self {
        Judge {
            expected,
            transport,
            probe: IdKey::string(PROBE_ID),
            items: Vec::new(),
            count: HashMap::new(),
            violations: Vec::new(),
            probe_answered: false,
            server_requests: 0,
            modern_success: false,
            legacy_success: false,
        }
    }

    pub fn probe_answered(&self) -> bool {
        self.probe_answered
    }

    pub fn violation(&mut self, oracle: Oracle, detail: impl Into<String>) {
        self.violations.push(Violation {
            oracle,
            detail: detail.into(),
        });
    }

    /// Whether everything the case requires has come (the probe's reply included): the case
    /// may stop listening.
    pub fn complete(&self) -> bool {
        self.probe_answered
            && self.expected.slots.iter().filter(|s| s.required).all(|s| {
                s.keys
                    .iter()
                    .any(|k| self.count.get(k).copied().unwrap_or(0) > 0)
            })
    }

    /// Judges one line the server wrote, `http` the exchange it came back on; returns the
    /// answers owed to the server's own requests.
    pub fn line(&mut self, bytes: &[u8], http: Option<&HttpContext>) -> Vec<Vec<u8>> {
        let what = match self.transport {
            TransportKind::Stdio => "stdout line",
            TransportKind::Http => "HTTP body",
        };
        let shown = || mcpspec_core::text::shorten(&String::from_utf8_lossy(bytes), 120);
        let doc = match reading::read(bytes) {
            Ok(doc) => doc,
            Err(_) => {
                self.violation(Oracle::NonMcpOutput, format!("{what} {:?}", shown()));
                return Vec::new();
            }
        };
        if let Some(bad) = self.unsent_invalid_utf8(&doc, bytes) {
            self.violation(
                Oracle::NonMcpOutput,
                format!(
                    "{what} with bytes that are not UTF-8 and that the case did not send \
                     ({bad}): {:?}",
                    shown()
                ),
            );
            return Vec::new();
        }
        // Over HTTP, a 4xx to a POSTed notification is HTTP's rejection of it (HTTP-3), not a
        // JSON-RPC reply.
        if http.is_some_and(HttpContext::rejects_notification) {
            return Vec::new();
        }
        let posted = http
            .and_then(|h| h.request_id.as_ref())
            .and_then(|id| IdKey::of_json(id.to_string().as_bytes()));
        let mut answers = Vec::new();
        match doc.root.kind {
            Kind::Array => {
                for element in doc.elements(doc.root) {
                    self.message(&doc, element, posted.as_ref(), true, &mut answers);
                }
            }
            _ => self.message(&doc, doc.root, posted.as_ref(), false, &mut answers),
        }
        answers
    }

    /// An HTTP exchange that carried no JSON-RPC body.
    pub fn refusal(&mut self, http: Option<&HttpContext>, why: &[u8]) {
        let status = http.map_or(0, |h| h.status);
        // An empty 2xx says nothing: a request it leaves unanswered is judged as such.
        if (200..300).contains(&status) {
            return;
        }
        let key = http
            .and_then(|h| h.request_id.as_ref())
            .and_then(|id| IdKey::of_json(id.to_string().as_bytes()));
        let client_error = (400..500).contains(&status);
        // A 4xx to a POST without a readable request id (a notification, a client's response,
        // a body that is no request) is HTTP's rejection of it (HTTP-3), as with a JSON body; a
        // request the server could read, and so owes an answer, is still judged unanswered.
        if key.is_none() && client_error {
            return;
        }
        // The probe's POST refused by the server's own rules (a bare `ping` outside a session
        // the server keeps): the server is serving, which is all the probe asks.
        if key.as_ref() == Some(&self.probe) && client_error {
            self.probe_answered = true;
            return;
        }
        // The exchange is over: nothing more comes for this request (settle judges whether
        // the refusal was allowed).
        if let Some(k) = &key {
            *self.count.entry(k.clone()).or_default() += 1;
        }
        self.items.push(Item::Refusal {
            key,
            status,
            why: String::from_utf8_lossy(why).into_owned(),
        });
    }

    /// The first sequence of bytes that are not UTF-8 and that no line of the case holds.
    fn unsent_invalid_utf8(&self, doc: &Doc<'_>, bytes: &[u8]) -> Option<String> {
        if !doc.facts.invalid_utf8 {
            return None;
        }
        bytes.utf8_chunks().map(|c| c.invalid()).find_map(|bad| {
            let sent = bad.is_empty()
                || self
                    .expected
                    .invalid_utf8
                    .iter()
                    .any(|s| memchr::memmem::find(s, bad).is_some());
            (!sent).then(|| bad.iter().map(|b| format!("\\x{b:02x}")).collect())
        })
    }

    /// Judges one message (an element of a batch when `in_batch`).
    fn message(
        &mut self,
        doc: &Doc<'_>,
        v: Val,
        posted: Option<&IdKey>,
        in_batch: bool,
        answers: &mut Vec<Vec<u8>>,
    ) {
        let invalid = |judge: &mut Self, why: String| {
            let text = mcpspec_core::text::shorten(&String::from_utf8_lossy(doc.raw(v)), 120);
            let place = if in_batch { "batch element: " } else { "" };
            judge.violation(Oracle::InvalidReply, format!("{place}{why}: {text}"));
        };
        if v.kind != Kind::Object {
            return invalid(
                self,
                format!("not a JSON object (found {})", kind_name(v.kind)),
            );
        }
        let obj = doc.object(v);
        match obj.get("jsonrpc") {
            Some(j) if doc.is(j, "2.0") => {}
            Some(j) => {
                let found = String::from_utf8_lossy(doc.raw(j)).into_owned();
                return invalid(
                    self,
                    format!("`jsonrpc` member is {found}, expected \"2.0\""),
                );
            }
            None => return invalid(self, "`jsonrpc` member is absent".into()),
        }
        let id = obj.get("id");
        if let Some(m) = obj.get("method") {
            if m.kind != Kind::String {
                return invalid(self, format!("`method` is {}", kind_name(m.kind)));
            }
            if let Some(p) = obj.get("params") {
                if !matches!(p.kind, Kind::Object | Kind::Array) {
                    return invalid(self, format!("`params` is {}", kind_name(p.kind)));
                }
            }
            match id {
                None => {}
                Some(id) if matches!(id.kind, Kind::String | Kind::Number) => {
                    self.server_requests += 1;
                    answers.push(protocol::answer_server_request(
                        doc.is(m, method::PING),
                        doc.raw(id),
                    ));
                }
                Some(id) => invalid(self, format!("a request's `id` is {}", kind_name(id.kind))),
            }
            return;
        }
        let (result, error) = (obj.get("result"), obj.get("error"));
        let key = match (result, error, id) {
            (Some(_), Some(_), _) => return invalid(self, "has both `result` and `error`".into()),
            (None, None, _) => {
                return invalid(self, "has none of `method`, `result`, `error`".into());
            }
            (Some(_), None, None) => return invalid(self, "a response without `id`".into()),
            (Some(_), None, Some(id)) if id.kind == Kind::Null => {
                return invalid(self, "a result whose `id` is null".into());
            }
            (_, _, None) => IdKey::null(),
            (_, _, Some(id)) => {
                let key = doc.id_key(id, Decoder::Escape);
                let echoed = self.expected.carried.contains(&key);
                if !matches!(id.kind, Kind::String | Kind::Number | Kind::Null) && !echoed {
                    return invalid(
                        self,
                        format!(
                            "`id` is {}, expected an integer or a string",
                            String::from_utf8_lossy(doc.raw(id))
                        ),
                    );
                }
                key
            }
        };
        if let Some(e) = error {
            if let Err(why) = self.error_object(doc, e, &key) {
                return invalid(self, format!("malformed `error` object: {why}"));
            }
        }
        // An error whose id is null, on the exchange of a POSTed request, answers that request.
        let key = match posted {
            Some(p) if key.is_null() && error.is_some() => p.clone(),
            _ => key,
        };
        if key == self.probe {
            self.probe_answered = true;
            return;
        }
        if let Some(result) = result {
            if self.expected.modern.contains(&key) {
                self.modern_success = true;
            }
            if self.expected.initialize.contains(&key)
                && doc.get(result, "protocolVersion").is_some()
            {
                self.legacy_success = true;
            }
        }
        *self.count.entry(key.clone()).or_default() += 1;
        self.items.push(Item::Reply(key));
    }

    /// Checks an error object's shape and its code (POL-15).
    fn error_object(&mut self, doc: &Doc<'_>, e: Val, key: &IdKey) -> Result<(), String> {
        if e.kind != Kind::Object {
            return Err(format!("{} instead of an object", kind_name(e.kind)));
        }
        let code = match doc.get(e, "code") {
            Some(c) if doc.is_integer(c) => c,
            Some(c) => return Err(format!("`code` {} is not an integer", shown(doc, c))),
            None => return Err("no `code`".into()),
        };
        let message = match doc.get(e, "message") {
            Some(m) if m.kind == Kind::String => m,
            Some(m) => return Err(format!("`message` is {}", kind_name(m.kind))),
            None => return Err("no `message`".into()),
        };
        // A code past an i64 is far outside the reserved range: allowed.
        if let Some(code) = doc.integer(code).filter(|c| !allowed_error_code(*c)) {
            self.violation(
                Oracle::BadErrorCode,
                format!(
                    "error code {code} ({:?}) in a reply to id {key}",
                    doc.lossy(message)
                ),
            );
        }
        Ok(())
    }

    /// The violations of the case, once everything has been read.
    pub fn settle(mut self) -> Vec<Violation> {
        if self.server_requests > 0 && self.modern_success && !self.legacy_success {
            let n = self.server_requests;
            self.violation(
                Oracle::ServerRequestInModernEra,
                format!("{n} server->client request(s) on a connection in the modern era"),
            );
        }
        let slots = &self.expected.slots;
        let matching = Matching::of(&self.items, slots);
        let mut unmatched: Vec<(IdKey, usize)> = Vec::new();
        let mut refusals = Vec::new();
        for (i, item) in self.items.iter().enumerate() {
            if matching.slot_of_item[i].is_some() {
                continue;
            }
            match item {
                Item::Reply(key) => match unmatched.iter_mut().find(|(k, _)| k == key) {
                    Some((_, n)) => *n += 1,
                    None => unmatched.push((key.clone(), 1)),
                },
                Item::Refusal { status, why, .. } => refusals.push((*status, why.clone())),
            }
        }
        for (status, why) in refusals {
            // No HTTP response at all, where the case built no malformed request: the server
            // stopped serving.
            if status == 0 {
                self.violation(Oracle::Crash, format!("a POST got no HTTP response: {why}"));
            } else {
                self.violation(Oracle::NonMcpOutput, why);
            }
        }
        // Requests that had to be answered and were not: an id-null reply beside them most
        // likely answered one of them without its id.
        let missing: Vec<String> = slots
            .iter()
            .enumerate()
            .filter(|(s, slot)| slot.required && matching.item_of_slot[*s].is_none())
            .map(|(_, slot)| slot.keys.first().map_or_else(String::new, IdKey::to_string))
            .collect();
        for (key, extra) in unmatched {
            let allowed = slots.iter().filter(|s| s.keys.contains(&key)).count();
            let got = allowed + extra;
            let (oracle, detail) = if key.is_null() && !missing.is_empty() {
                (
                    Oracle::DuplicateReply,
                    format!(
                        "{got} replies with id null or no id, which only {allowed} line(s) may \
                         earn, while the request(s) with id {} got no reply: a request with a \
                         readable id is answered with that id{}",
                        missing.join(", "),
                        if self.expected.notifications > 0 {
                            " (or a notification was answered)"
                        } else {
                            ""
                        }
                    ),
                )
            } else if key.is_null() && self.expected.notifications > 0 {
                (
                    Oracle::ReplyToNotification,
                    format!(
                        "{got} replies with id null; the case had {} notification(s) and only \
                         {allowed} line(s) that could earn an id-null error",
                        self.expected.notifications
                    ),
                )
            } else if key.is_null() && allowed > 0 {
                // More id-null replies than unreadable lines: some request whose id could be
                // read was answered without it (its own id then goes unanswered).
                (
                    Oracle::DuplicateReply,
                    format!(
                        "{got} replies with id null or no id, which only {allowed} line(s) \
                         whose id could not be read may earn: a request with a readable id is \
                         answered with that id"
                    ),
                )
            } else if allowed > 0 {
                (
                    Oracle::DuplicateReply,
                    format!("{got} replies with id {key}, which {allowed} line(s) carried"),
                )
            } else {
                (
                    Oracle::UnmatchedReply,
                    format!("{extra} reply(ies) with id {key}, which no line carried"),
                )
            };
            self.violation(oracle, detail);
        }
        if self.probe_answered && !missing.is_empty() {
            self.violation(
                Oracle::UnansweredRequest,
                format!(
                    "no reply to the request(s) with id {} although the later probe was answered",
                    missing.join(", ")
                ),
            );
        }
        self.violations
    }
}

/// A maximum matching of items to slots, found from the slot side (Kuhn's augmenting paths),
/// required slots first: a slot once matched stays matched, so as many required slots as
/// possible are filled, and as many items as possible are placed.
struct Matching {
    item_of_slot: Vec<Option<usize>>,
    slot_of_item: Vec<Option<usize>>,
}

impl Matching {
    fn of(items: &[Item], slots: &[Slot]) -> Matching {
        let mut m = Matching {
            item_of_slot: vec![None; slots.len()],
            slot_of_item: vec![None; items.len()],
        };
        let mut order: Vec<usize> = (0..slots.len()).collect();
        order.sort_by_key(|&s| !slots[s].required);
        for s in order {
            let mut visited = vec![false; items.len()];
            m.augment(s, items, slots, &mut visited);
        }
        m
    }

    fn augment(&mut self, s: usize, items: &[Item], slots: &[Slot], visited: &mut [bool]) -> bool {
        for i in 0..items.len() {
            if visited[i] || !fits(&items[i], &slots[s]) {
                continue;
            }
            visited[i] = true;
            let free = match self.slot_of_item[i] {
                None => true,
                Some(other) => self.augment(other, items, slots, visited),
            };
            if free {
                self.slot_of_item[i] = Some(s);
                self.item_of_slot[s] = Some(i);
                return true;
            }
        }
        false
    }
}

/// Whether `item` may fill `slot`.
fn fits(item: &Item, slot: &Slot) -> bool {
    match item {
        Item::Reply(key) => slot.keys.contains(key),
        Item::Refusal { key, status, .. } => {
            slot.refusable.is_some_and(|r| r.allows(*status))
                && key.as_ref().is_none_or(|k| slot.keys.contains(k))
        }
    }
}

fn shown(doc: &Doc<'_>, v: Val) -> String {
    String::from_utf8_lossy(doc.raw(v)).into_owned()
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::Null => "null",
        Kind::True | Kind::False => "a boolean",
        Kind::Number => "a number",
        Kind::String => "a string",
        Kind::Array => "an array",
        Kind::Object => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::oracle::sent::Refusable;

    fn judge_case(case: &[&[u8]], output: &[&[u8]]) -> Vec<Violation> {
        let case: Vec<Vec<u8>> = case.iter().map(|l| l.to_vec()).collect();
        let expected = Obligations::of(&case, TransportKind::Stdio);
        let mut judge = Judge::new(&expected, TransportKind::Stdio);
        for line in output {
            judge.line(line, None);
        }
        judge.line(
            br#"{"jsonrpc":"2.0","id":"mcpspec-fuzz-probe","result":{}}"#,
            None,
        );
        judge.settle()
    }

    fn oracles(v: &[Violation]) -> Vec<Oracle> {
        v.iter().map(|v| v.oracle).collect()
    }

    #[test]
    fn a_huge_id_echoed_exactly_or_as_a_double_is_a_reply() {
        let case: &[&[u8]] = &[br#"[{"jsonrpc":"2.0","id":18446744073709551615,"method":"ping"}]"#];
        let exact: &[u8] = br#"[{"jsonrpc":"2.0","id":18446744073709551615,"result":{}}]"#;
        let double: &[u8] = br#"{"jsonrpc":"2.0","id":18446744073709552000,"result":{}}"#;
        assert_eq!(judge_case(case, &[exact]), []);
        assert_eq!(judge_case(case, &[double]), []);
        let other: &[u8] = br#"{"jsonrpc":"2.0","id":18446744073709551614,"result":{}}"#;
        assert_eq!(
            oracles(&judge_case(case, &[other])),
            [Oracle::UnmatchedReply]
        );
    }

    #[test]
    fn a_lone_surrogate_escape_is_json_and_sent_bytes_may_come_back() {
        let case: &[&[u8]] =
            &[b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"v\":\"\xff\"}}"];
        let escaped: &[u8] =
            br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"x","data":{"requested":"\udcff"}}}"#;
        assert_eq!(judge_case(case, &[escaped]), []);
        let raw: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"v\":\"\xff\"}}";
        assert_eq!(judge_case(case, &[raw]), []);
        // Bytes the case never sent are still not MCP output.
        let unsent: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"v\":\"\xfe\"}}";
        assert_eq!(
            oracles(&judge_case(case, &[unsent])),
            [Oracle::NonMcpOutput]
        );
    }

    #[test]
    fn replies_match_slots_whatever_their_order() {
        // Line 1 may earn null or 5 (its bytes are not UTF-8); line 2 is invalid (null). Two
        // replies, null and 5, fit only one way: 5 to line 1, null to line 2.
        let case: &[&[u8]] = &[
            b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\",\"k\xff\":1}",
            br#"{"jsonrpc":"1.0"}"#,
        ];
        let null: &[u8] = br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}"#;
        let five: &[u8] = br#"{"jsonrpc":"2.0","id":5,"result":{}}"#;
        assert_eq!(judge_case(case, &[null, five]), []);
        assert_eq!(judge_case(case, &[five, null]), []);
        assert_eq!(
            oracles(&judge_case(case, &[five, null, null])),
            [Oracle::DuplicateReply]
        );
    }

    #[test]
    fn duplicates_unanswered_and_replies_to_notifications() {
        let ping: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        let note: &[u8] = br#"{"jsonrpc":"2.0","method":"notifications/x"}"#;
        let one: &[u8] = br#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
        let null: &[u8] = br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}"#;
        assert_eq!(judge_case(&[ping], &[one]), []);
        assert_eq!(
            oracles(&judge_case(&[ping], &[one, one])),
            [Oracle::DuplicateReply]
        );
        assert_eq!(
            oracles(&judge_case(&[ping], &[])),
            [Oracle::UnansweredRequest]
        );
        assert_eq!(
            oracles(&judge_case(&[ping, note], &[one, null])),
            [Oracle::ReplyToNotification]
        );
        // rmcp's bytes: a notification beside a request it answers with an id-less error. The
        // id-null reply is named as the request's, whose own id went unanswered.
        let found = judge_case(&[note, ping], &[null]);
        assert_eq!(
            oracles(&found),
            [Oracle::DuplicateReply, Oracle::UnansweredRequest]
        );
        assert!(
            found[0]
                .detail
                .contains("request(s) with id 1 got no reply")
                && found[0].detail.contains("(or a notification was answered)"),
            "{}",
            found[0].detail
        );
    }

    /// rmcp 1.x's bytes: no reply to a line that is not JSON, and an error without an `id` to
    /// a request it cannot deserialize though its id is readable.
    #[test]
    fn an_id_less_error_for_a_readable_request_is_named_as_such() {
        let broken: &[u8] = br#"{"j"#;
        let request: &[u8] = br#"{"jsonrpc":"2.0","id":11,"method":"j","params":[{},-1]}"#;
        let id_less: &[u8] =
            br#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid request"}}"#;
        // One id-less error for the broken line: what JSON-RPC allows.
        assert_eq!(
            oracles(&judge_case(
                &[broken, request],
                &[
                    id_less,
                    br#"{"jsonrpc":"2.0","id":11,"error":{"code":-32600,"message":"x"}}"#
                ]
            )),
            []
        );
        let found = judge_case(&[broken, request], &[id_less, id_less]);
        assert_eq!(
            oracles(&found),
            [Oracle::DuplicateReply, Oracle::UnansweredRequest]
        );
        assert!(
            found[0]
                .detail
                .contains("a request with a readable id is answered with that id"),
            "{}",
            found[0].detail
        );
    }

    #[test]
    fn invalid_messages_and_codes() {
        let ping: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
        for (reply, oracle) in [
            (
                &br#"{"jsonrpc":"2.0","id":1,"error":{"code":0,"message":"x"}}"#[..],
                Oracle::BadErrorCode,
            ),
            (
                br#"{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"x"}}"#,
                Oracle::InvalidReply,
            ),
            (
                br#"{"jsonrpc":"2.0","id":true,"result":{}}"#,
                Oracle::InvalidReply,
            ),
            (br#"{"jsonrpc":"2.0","id":1}"#, Oracle::InvalidReply),
            (br#"{"id":1,"result":{}}"#, Oracle::InvalidReply),
            (br#"not json"#, Oracle::NonMcpOutput),
        ] {
            let got = oracles(&judge_case(&[ping], &[reply]));
            assert_eq!(
                got.iter().min(),
                Some(&oracle),
                "{}",
                String::from_utf8_lossy(reply)
            );
        }
        let big: &[u8] = br#"{"jsonrpc":"2.0","id":1,"error":{"code":1e30,"message":"x"}}"#;
        assert_eq!(judge_case(&[ping], &[big]), []);
    }

    #[test]
    fn over_http_only_what_the_case_made_refusable_may_be_refused() {
        let malformed = serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "ping",
            "params": {"_meta": {mcpspec_core::protocol::meta::PROTOCOL_VERSION: "2026-0\u{0}7-28"}}})
        .to_string()
        .into_bytes();
        // Enveloped: a request no session rule lets the server refuse.
        let good = serde_json::json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list",
            "params": {"_meta": {mcpspec_core::protocol::meta::PROTOCOL_VERSION: "2026-07-28"}}})
        .to_string()
        .into_bytes();
        let case = vec![malformed, good];
        let expected = Obligations::of(&case, TransportKind::Http);
        let ctx = |id: i64| HttpContext {
            status: 400,
            request_id: Some(serde_json::json!(id)),
        };
        let probe = br#"{"jsonrpc":"2.0","id":"mcpspec-fuzz-probe","result":{}}"#;
        let four = br#"{"jsonrpc":"2.0","id":4,"result":{}}"#;

        let mut judge = Judge::new(&expected, TransportKind::Http);
        judge.refusal(Some(&ctx(3)), b"HTTP 400 Bad Request with an empty body");
        judge.line(four, None);
        judge.line(probe, None);
        assert_eq!(judge.settle(), []);

        let mut judge = Judge::new(&expected, TransportKind::Http);
        judge.line(br#"{"jsonrpc":"2.0","id":3,"result":{}}"#, None);
        judge.refusal(Some(&ctx(4)), b"HTTP 400 Bad Request with an empty body");
        judge.line(probe, None);
        let got = judge.settle();
        assert_eq!(
            oracles(&got),
            [Oracle::NonMcpOutput, Oracle::UnansweredRequest]
        );
    }

    /// The Rust SDK's HTTP service keeps sessions for the handshake era: outside one, a `ping`
    /// (the probe's included) and a notification get a bare `400 Bad Request: Session ID is
    /// required`. That is the server's rule, not a finding; the probe refused so shows it
    /// serving. An enveloped request refused the same way is still a finding.
    #[test]
    fn refusals_outside_a_session_are_the_servers_right() {
        let ping = br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#.to_vec();
        let note = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_vec();
        let enveloped = serde_json::json!({"jsonrpc": "2.0", "id": 8, "method": "tools/list",
            "params": {"_meta": {mcpspec_core::protocol::meta::PROTOCOL_VERSION: "2026-07-28"}}})
        .to_string()
        .into_bytes();
        let initialize = br#"{"jsonrpc":"2.0","id":9,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#.to_vec();
        let case = vec![ping, note, enveloped, initialize];
        let expected = Obligations::of(&case, TransportKind::Http);
        let refusable: Vec<_> = expected.slots.iter().map(|s| s.refusable).collect();
        assert_eq!(
            refusable,
            [Some(Refusable::OutsideSession { large: false }), None, None]
        );
        let ctx = |status: u16, id: Option<serde_json::Value>| HttpContext {
            status,
            request_id: id,
        };
        let why: &[u8] = b"HTTP 400 Bad Request: Session ID is required";
        let eight = br#"{"jsonrpc":"2.0","id":8,"result":{"tools":[]}}"#;
        let nine = br#"{"jsonrpc":"2.0","id":9,"result":{"protocolVersion":"2025-11-25"}}"#;

        let mut judge = Judge::new(&expected, TransportKind::Http);
        judge.refusal(Some(&ctx(400, Some(serde_json::json!(7)))), why);
        judge.refusal(Some(&ctx(400, None)), why);
        judge.line(eight, None);
        judge.line(nine, None);
        judge.refusal(Some(&ctx(400, Some(serde_json::json!(PROBE_ID)))), why);
        assert!(judge.probe_answered() && judge.complete());
        assert_eq!(judge.settle(), []);

        // A 404 (a session the server does not know) is the same rule; a 5xx to the probe is no
        // sign of a server still serving.
        let mut judge = Judge::new(&expected, TransportKind::Http);
        judge.refusal(Some(&ctx(404, Some(serde_json::json!(7)))), b"HTTP 404");
        judge.refusal(Some(&ctx(400, Some(serde_json::json!(8)))), why);
        judge.line(nine, None);
        judge.refusal(
            Some(&ctx(500, Some(serde_json::json!(PROBE_ID)))),
            b"HTTP 500",
        );
        assert!(!judge.probe_answered());
        // Request 8's refusal and the probe's 500 (the run adds the `hang`).
        assert_eq!(
            oracles(&judge.settle()),
            [Oracle::NonMcpOutput, Oracle::NonMcpOutput]
        );
    }
}
