//! What the feature-surface areas share (POL-31, FEAT-3..8): capability gating in either era,
//! the bounded list walk, the per-item ledger that becomes one verdict, and the rules of each
//! feature's results (content blocks, resource contents, prompt messages, completions).
//!
//! Below the area files `tool_calls`, `resources`, `prompts`, `completion` and `pagination`;
//! imports `support`, `uri_template` and the prelude, never an area.

use serde_json::{Map, Value, json};

use super::prelude::*;
use crate::outcome::{Evidence, Judged, Kind};
use mcpspec_core::transcript::SchemaFinding;

/// The most pages one listing is followed for (a server whose listing goes on is not followed
/// forever; the verdict says where it stopped).
pub const MAX_PAGES: usize = 20;
/// How many item names a verdict message spells out; the rest are counted (the items list of
/// the outcome has them all).
const NAMED_IN_MESSAGE: usize = 8;
/// The placeholder for an argument or variable no completion offered a value for.
pub const PLACEHOLDER: &str = "mcpspec";

// --- gating -------------------------------------------------------------------------------

/// Whether the server advertises `capability` in the era the check speaks: in its discover
/// result (modern), else in the probe's InitializeResult (legacy, POL-28).
pub fn advertised(s: &Scenario, capability: &str) -> bool {
    if s.any_era() == Era::Modern {
        return s.facts().has_capability(capability);
    }
    s.facts()
        .initialize
        .as_ref()
        .and_then(|r| r.get("capabilities"))
        .and_then(|c| c.get(capability))
        .is_some_and(|v| !v.is_null() && *v != Value::Bool(false))
}

/// A skip naming the first of `capabilities` the server does not advertise (POL-11); the
/// runner gates the modern era itself, this gates the legacy one.
pub fn require(s: &Scenario, capabilities: &[&str]) -> Result<(), Outcome> {
    match capabilities.iter().find(|c| !advertised(s, c)) {
        None => Ok(()),
        Some(c) => Err(Outcome::skipped(format!(
            "the server does not advertise the `{c}` capability (POL-11){}",
            if s.any_era() == Era::Legacy {
                " in its InitializeResult"
            } else {
                ""
            }
        ))),
    }
}

// --- the list walk ------------------------------------------------------------------------

/// One page of a listing.
#[derive(Debug)]
pub struct Page {
    /// 1-based.
    pub number: usize,
    /// The cursor it was asked with (none for the first).
    pub cursor: Option<Value>,
    pub result: Value,
    pub evidence: Option<Evidence>,
}

/// Why a walk stopped.
#[derive(Debug, Clone, PartialEq)]
pub enum End {
    /// The last page had no `nextCursor`.
    Last,
    /// [`MAX_PAGES`] pages were read and the listing went on.
    PageBound,
    /// The walk had the items it wanted (`--max-items`).
    ItemBound(usize),
    /// Page `page` gave a `nextCursor` already sent for page `first` (not followed again).
    RepeatedCursor {
        page: usize,
        first: usize,
        cursor: Value,
    },
}

/// A listing followed page by page, within bounds.
#[derive(Debug)]
pub struct Walk {
    pub list: &'static str,
    pub key: &'static str,
    pub pages: Vec<Page>,
    pub end: End,
    /// Schema violations of the pages, by page: reported as items of their own.
    pub findings: Vec<(usize, SchemaFinding)>,
}

/// A page that was not a result: which, and what came instead.
#[derive(Debug)]
pub struct PageFailure {
    pub list: &'static str,
    pub page: usize,
    pub reply: Reply,
}

impl PageFailure {
    /// The page's error code, when it was an error reply.
    pub fn code(&self) -> Option<i64> {
        self.reply.error().map(|e| e.code)
    }

    /// A Fail naming the page and what came (a listing a capability promises must be served).
    pub fn fail(&self) -> Outcome {
        Outcome::mismatch(
            &format!("{} page {}", self.list, self.page),
            "a result",
            self.reply.describe(),
        )
        .with_evidence(self.reply.evidence())
    }
}

impl Walk {
    /// Every item with the page it came on, in order.
    pub fn items(&self) -> Vec<(usize, &Value)> {
        self.pages
            .iter()
            .flat_map(|p| {
                p.result
                    .get(self.key)
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(move |item| (p.number, item))
            })
            .collect()
    }

    /// Where the walk stopped, in words, for a pass message.
    pub fn extent(&self) -> String {
        let pages = self.pages.len();
        match &self.end {
            End::Last => format!("{pages} page(s)"),
            End::PageBound => format!("the first {pages} pages (the walk stops at {MAX_PAGES})"),
            End::ItemBound(n) => format!("{pages} page(s), up to --max-items {n}"),
            End::RepeatedCursor { page, .. } => format!("{page} page(s), to a repeated cursor"),
        }
    }

    /// The pages' schema violations as failing items ("resources/list page 2").
    pub fn record_findings(&self, tally: &mut Tally) {
        for (page, finding) in &self.findings {
            tally.schema(
                format!("{} page {page}", self.list),
                std::slice::from_ref(finding),
            );
        }
    }
}

/// Follows `list` page by page: until a page has no `nextCursor`, [`MAX_PAGES`] pages, a
/// cursor that was already sent, or (with `max_items`) that many items. Each page's schema
/// findings are taken from the scenario and kept with the page.
pub async fn walk(
    s: &Scenario,
    peer: &mut Peer,
    list: &'static str,
    key: &'static str,
    max_items: Option<usize>,
) -> Result<Walk, PageFailure> {
    let mut walk = Walk {
        list,
        key,
        pages: Vec::new(),
        end: End::Last,
        findings: Vec::new(),
    };
    let mut sent: Vec<(usize, Value)> = Vec::new();
    let mut cursor: Option<Value> = None;
    let mut items = 0;
    loop {
        let number = walk.pages.len() + 1;
        let mut out = request(list);
        if let Some(c) = &cursor {
            out = out.param("cursor", c.clone());
            sent.push((number, c.clone()));
        }
        let reply = peer.call(out).await;
        for finding in s.take_schema_findings() {
            walk.findings.push((number, finding));
        }
        let Some(result) = reply.result().cloned() else {
            return Err(PageFailure {
                list,
                page: number,
                reply,
            });
        };
        items += result
            .get(key)
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        let next = result.get("nextCursor").filter(|c| !c.is_null()).cloned();
        walk.pages.push(Page {
            number,
            cursor: cursor.take(),
            result,
            evidence: reply.evidence(),
        });
        let Some(next) = next else {
            walk.end = End::Last;
            return Ok(walk);
        };
        if let Some((first, _)) = sent.iter().find(|(_, c)| *c == next) {
            walk.end = End::RepeatedCursor {
                page: number,
                first: *first,
                cursor: next,
            };
            return Ok(walk);
        }
        if let Some(n) = max_items.filter(|n| items >= *n) {
            walk.end = End::ItemBound(n);
            return Ok(walk);
        }
        if number >= MAX_PAGES {
            walk.end = End::PageBound;
            return Ok(walk);
        }
        cursor = Some(next);
    }
}

// --- the ledger of items ------------------------------------------------------------------

/// The items one check judged, each with its verdict, and the one verdict they make: Fail if
/// any item fails (the first failing item's reply is the evidence), else NonStrict if any is,
/// else Pass if any passed (items left unjudged are named), else Info (nothing could be
/// judged, and why).
#[derive(Debug)]
pub struct Tally {
    /// What the items are, plural ("tools", "resources").
    what: &'static str,
    /// The requirement the items are judged by, named in a Fail ("FEAT-3").
    rule: &'static str,
    judged: Vec<Judged>,
}

impl Tally {
    pub fn new(what: &'static str, rule: &'static str) -> Self {
        Tally {
            what,
            rule,
            judged: Vec::new(),
        }
    }

    pub fn push(
        &mut self,
        item: impl Into<String>,
        kind: Kind,
        message: impl Into<String>,
        evidence: Option<Evidence>,
    ) {
        self.judged.push(Judged {
            item: item.into(),
            kind,
            message: message.into(),
            evidence,
        });
    }

    pub fn info(
        &mut self,
        item: impl Into<String>,
        message: impl Into<String>,
        evidence: Option<Evidence>,
    ) {
        self.push(item, Kind::Info, message, evidence);
    }

    /// The item passes with `ok` when `problems` is empty, else fails naming every problem and
    /// quoting `evidence`, the reply it rests on.
    pub fn judge(
        &mut self,
        item: impl Into<String>,
        problems: Vec<String>,
        ok: impl Into<String>,
        evidence: Option<Evidence>,
    ) {
        if problems.is_empty() {
            // A pass names what it judged; its reply is in the transcript, and a quote of it
            // would tie the report to traffic that varies between runs (a probe log's).
            self.push(item, Kind::Pass, ok, None);
        } else {
            self.push(item, Kind::Fail, problems.join("; "), evidence);
        }
    }

    /// As [`Tally::judge`], with `deviations` beside the `problems`: with no problem, the item is
    /// NonStrict naming the deviations (a SHOULD the reply departs from); with problems, a Fail
    /// naming both.
    pub fn judge_graded(
        &mut self,
        item: impl Into<String>,
        problems: Vec<String>,
        deviations: Vec<String>,
        ok: impl Into<String>,
        evidence: Option<Evidence>,
    ) {
        match (problems.is_empty(), deviations.is_empty()) {
            (true, false) => self.push(item, Kind::NonStrict, deviations.join("; "), evidence),
            (true, true) => self.judge(item, problems, ok, evidence),
            (false, _) => {
                let all = problems.into_iter().chain(deviations).collect();
                self.judge(item, all, ok, evidence);
            }
        }
    }

    /// An item whose request got no result: `kind` with `message`, unless what came breaks its
    /// schema (`schema`, from [`violations`]): then a Fail naming the violations too.
    pub fn unanswered(
        &mut self,
        item: impl Into<String>,
        kind: Kind,
        message: String,
        schema: Vec<String>,
        evidence: Option<Evidence>,
    ) {
        if schema.is_empty() {
            self.push(item, kind, message, evidence);
        } else {
            self.push(
                item,
                Kind::Fail,
                format!("{message}; {}", schema.join("; ")),
                evidence,
            );
        }
    }

    /// Schema violations of a page (SCHEMA-1, POL-20), as one failing item of its own.
    pub fn schema(&mut self, item: impl Into<String>, findings: &[SchemaFinding]) {
        let Some(first) = findings.first() else {
            return;
        };
        let all: Vec<String> = findings
            .iter()
            .flat_map(|f| f.violations.iter().map(ToString::to_string))
            .collect();
        self.push(
            item,
            Kind::Fail,
            format!("schema violation (SCHEMA-1): {}", all.join("; ")),
            first.evidence.clone(),
        );
    }

    /// Prefixes the message of the item judged last with `note` (how it was reached).
    pub fn annotate(&mut self, note: &str) {
        if let Some(last) = self.judged.last_mut() {
            last.message = format!("{note}: {}", last.message);
        }
    }

    /// The one verdict (see [`Tally`]); `nothing` when no item was judged at all.
    pub fn verdict(self, passed: &str, nothing: Outcome) -> Outcome {
        let of = |kind: Kind| -> Vec<&Judged> {
            self.judged.iter().filter(|j| j.kind == kind).collect()
        };
        let (fails, strict, passes, infos) = (
            of(Kind::Fail),
            of(Kind::NonStrict),
            of(Kind::Pass),
            of(Kind::Info),
        );
        let total = self.judged.len();
        let outcome = if !fails.is_empty() {
            Outcome::fail(format!(
                "{} of {total} {} fail ({}): {}",
                fails.len(),
                self.what,
                self.rule,
                spelled(&fails, true)
            ))
            .with_evidence(fails.iter().find_map(|j| j.evidence.clone()))
        } else if !strict.is_empty() {
            Outcome::non_strict(format!(
                "{} of {total} {}: {}",
                strict.len(),
                self.what,
                spelled(&strict, true)
            ))
            .with_evidence(strict.iter().find_map(|j| j.evidence.clone()))
        } else if !passes.is_empty() {
            let mut message = format!(
                "{passed}: {} {} ({})",
                passes.len(),
                self.what,
                spelled(&passes, false)
            );
            if !infos.is_empty() {
                message.push_str(&format!(
                    "; {} not judged: {}",
                    infos.len(),
                    spelled(&infos, true)
                ));
            }
            Outcome::pass(message)
        } else if !infos.is_empty() {
            Outcome::info(format!(
                "no {} could be judged: {}",
                self.what,
                spelled(&infos, true)
            ))
            .with_evidence(infos.iter().find_map(|j| j.evidence.clone()))
        } else {
            return nothing;
        };
        outcome.with_items(self.judged)
    }
}

/// The SCHEMA-1 violations of the messages about one item (taken from the scenario after its
/// request, POL-20), as problems of that item.
pub fn violations(findings: &[SchemaFinding]) -> Vec<String> {
    findings
        .iter()
        .flat_map(|f| f.violations.iter())
        .map(|v| format!("schema violation (SCHEMA-1): {v}"))
        .collect()
}

/// The items named (with their messages when `messages`), the first few of them.
fn spelled(items: &[&Judged], messages: bool) -> String {
    let mut parts: Vec<String> = items
        .iter()
        .take(NAMED_IN_MESSAGE)
        .map(|j| {
            if messages {
                format!("{}: {}", j.item, j.message)
            } else {
                j.item.clone()
            }
        })
        .collect();
    if items.len() > NAMED_IN_MESSAGE {
        parts.push(format!("and {} more", items.len() - NAMED_IN_MESSAGE));
    }
    parts.join(if messages { "; " } else { ", " })
}

// --- the rules of each feature ------------------------------------------------------------

/// The content types FEAT-3 knows.
const CONTENT_TYPES: &str = "text, image, audio, resource_link, resource";

/// What is wrong with one content block (FEAT-3), each problem prefixed with `at`.
pub fn block_problems(at: &str, block: &Value) -> Vec<String> {
    let Some(obj) = block.as_object() else {
        return vec![format!("{at} is not an object: {}", preview(block, 60))];
    };
    let string = |key: &str| obj.get(key).and_then(Value::as_str);
    let mut problems = Vec::new();
    let need_string = |key: &str, problems: &mut Vec<String>| {
        if string(key).is_none() {
            problems.push(format!(
                "{at} has no string `{key}` ({})",
                obj.get(key).map_or("absent".into(), |v| preview(v, 40))
            ));
        }
    };
    match string("type") {
        Some("text") => need_string("text", &mut problems),
        Some(kind @ ("image" | "audio")) => {
            need_string("mimeType", &mut problems);
            match string("data") {
                Some(data) if !is_base64(data) => problems.push(format!(
                    "{at} ({kind}) `data` is not base64: {}",
                    shorten(data, 40)
                )),
                Some(_) => {}
                None => need_string("data", &mut problems),
            }
        }
        Some("resource_link") => {
            need_string("uri", &mut problems);
            need_string("name", &mut problems);
        }
        Some("resource") => match obj.get("resource") {
            Some(resource) => problems.extend(
                contents_item_problems(&format!("{at}.resource"), resource, None)
                    .into_iter()
                    .map(|p| p.to_string()),
            ),
            None => problems.push(format!("{at} (resource) has no `resource`")),
        },
        Some(other) => problems.push(format!(
            "{at} has the unknown type {:?} (FEAT-3: {CONTENT_TYPES})",
            other
        )),
        None => problems.push(format!(
            "{at} has no string `type` ({})",
            obj.get("type").map_or("absent".into(), |v| preview(v, 40))
        )),
    }
    problems
}

/// The block types of a content array, for a pass message (`text, image`).
pub fn block_types(content: &[Value]) -> String {
    content
        .iter()
        .map(|b| b.get("type").and_then(Value::as_str).unwrap_or("?"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// What is wrong with one item of `contents` (FEAT-4): a string `uri` (when `read` is given:
/// the URI read, or one under it), exactly one of a string `text` or a base64 `blob`.
pub fn contents_item_problems(at: &str, item: &Value, read: Option<&str>) -> Vec<String> {
    let Some(obj) = item.as_object() else {
        return vec![format!("{at} is not an object: {}", preview(item, 60))];
    };
    let mut problems = Vec::new();
    match (obj.get("uri").and_then(Value::as_str), read) {
        (None, _) => problems.push(format!("{at} has no string `uri`")),
        (Some(uri), Some(read)) if !uri.starts_with(read) => problems.push(format!(
            "{at} has `uri` {uri}, neither the URI read ({read}) nor one under it"
        )),
        _ => {}
    }
    match (obj.get("text"), obj.get("blob")) {
        (Some(_), Some(_)) => problems.push(format!("{at} has both `text` and `blob`")),
        (None, None) => problems.push(format!("{at} has neither `text` nor `blob`")),
        (Some(text), None) if !text.is_string() => problems.push(format!(
            "{at} `text` is not a string: {}",
            preview(text, 40)
        )),
        (None, Some(blob)) => match blob.as_str() {
            Some(b) if is_base64(b) => {}
            _ => problems.push(format!(
                "{at} `blob` is not a base64 string: {}",
                preview(blob, 40)
            )),
        },
        _ => {}
    }
    problems
}

/// What is wrong with a `resources/read` result of `uri` (FEAT-4's MUSTs). A content item's
/// `mimeType` is optional in every revision's schema: see [`read_deviations`].
pub fn read_problems(uri: &str, result: &Value) -> Vec<String> {
    let Some(contents) = result.get("contents").and_then(Value::as_array) else {
        return vec![format!(
            "the result has no `contents` array ({})",
            result
                .get("contents")
                .map_or("absent".into(), |c| preview(c, 40))
        )];
    };
    let mut problems = Vec::new();
    for (i, item) in contents.iter().enumerate() {
        let at = format!("contents[{i}]");
        problems.extend(contents_item_problems(&at, item, Some(uri)));
    }
    problems
}

/// Where a `resources/read` result departs from FEAT-4's SHOULD: a content item whose
/// `mimeType` names another media type than `listed_mime`, the one its listing (or template)
/// gave. A missing `mimeType` is no deviation (it is optional in every schema), nor is a
/// difference in parameters or case only (`text/plain; charset=utf-8` is `text/plain`).
pub fn read_deviations(result: &Value, listed_mime: Option<&str>) -> Vec<String> {
    let Some(listed) = listed_mime else {
        return Vec::new();
    };
    let essence = |mime: &str| {
        mime.split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase()
    };
    result
        .get("contents")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .enumerate()
        .filter_map(|(i, item)| {
            let mime = item.get("mimeType")?.as_str()?;
            (essence(mime) != essence(listed)).then(|| {
                format!(
                    "contents[{i}] has `mimeType` {mime:?}, but the listing gives {listed:?} \
                     (FEAT-4: SHOULD agree)"
                )
            })
        })
        .collect()
}

/// What a read result holds, for a pass message (`1 text item, text/plain`).
pub fn contents_summary(result: &Value) -> String {
    let contents = result
        .get("contents")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let kinds: Vec<String> = contents
        .iter()
        .map(|c| {
            let kind = if c.get("blob").is_some() {
                "blob"
            } else {
                "text"
            };
            match c.get("mimeType").and_then(Value::as_str) {
                Some(m) => format!("{kind} {m}"),
                None => kind.to_owned(),
            }
        })
        .collect();
    format!("{} item(s): {}", contents.len(), kinds.join(", "))
}

/// What is wrong with a `prompts/get` result (FEAT-6).
pub fn prompt_problems(result: &Value) -> Vec<String> {
    let Some(messages) = result.get("messages").and_then(Value::as_array) else {
        return vec![format!(
            "the result has no `messages` array ({})",
            result
                .get("messages")
                .map_or("absent".into(), |m| preview(m, 40))
        )];
    };
    let mut problems = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        let at = format!("messages[{i}]");
        match message.get("role").and_then(Value::as_str) {
            Some("user" | "assistant") => {}
            other => problems.push(format!(
                "{at} has the role {}; FEAT-6 allows `user` or `assistant`",
                other.map_or_else(
                    || message
                        .get("role")
                        .map_or("(none)".into(), |r| preview(r, 30)),
                    |r| format!("{r:?}")
                )
            )),
        }
        match message.get("content") {
            Some(Value::Array(_)) => problems.push(format!(
                "{at}.content is an array; a prompt message carries one content block"
            )),
            Some(block) => problems.extend(block_problems(&format!("{at}.content"), block)),
            None => problems.push(format!("{at} has no `content`")),
        }
    }
    problems
}

/// The most values one completion may carry (FEAT-7).
const MAX_COMPLETION_VALUES: usize = 100;

/// What is wrong with a `completion/complete` result (FEAT-7).
pub fn completion_problems(result: &Value) -> Vec<String> {
    let Some(completion) = result.get("completion").and_then(Value::as_object) else {
        return vec!["the result has no `completion` object".into()];
    };
    let mut problems = Vec::new();
    let values = completion.get("values").and_then(Value::as_array);
    match values {
        None => problems.push("`completion.values` is not an array".into()),
        Some(values) => {
            if let Some(bad) = values.iter().find(|v| !v.is_string()) {
                problems.push(format!(
                    "`completion.values` holds a value that is not a string: {}",
                    preview(bad, 30)
                ));
            }
            if values.len() > MAX_COMPLETION_VALUES {
                problems.push(format!(
                    "`completion.values` has {} values; at most {MAX_COMPLETION_VALUES} are allowed",
                    values.len()
                ));
            }
        }
    }
    if let Some(total) = completion.get("total") {
        match (total.as_u64(), values) {
            (None, _) => problems.push(format!(
                "`completion.total` is not a non-negative integer: {}",
                preview(total, 30)
            )),
            (Some(t), Some(values)) if (t as usize) < values.len() => problems.push(format!(
                "`completion.total` is {t}, below the {} values sent",
                values.len()
            )),
            _ => {}
        }
    }
    if let Some(more) = completion.get("hasMore") {
        if !more.is_boolean() {
            problems.push(format!(
                "`completion.hasMore` is not a boolean: {}",
                preview(more, 30)
            ));
        }
    }
    problems
}

/// The values of a completion result, when it has string values.
pub fn completion_values(result: &Value) -> Vec<String> {
    result
        .pointer("/completion/values")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect()
}

/// A `completion/complete` request for `argument` of `reference` (`ref/prompt` or
/// `ref/resource`), with an empty value (every candidate) and the values chosen so far.
pub fn complete(
    reference: Value,
    argument: &str,
    chosen: &Map<String, Value>,
) -> crate::driver::Outgoing {
    let mut out = request(method::COMPLETION_COMPLETE)
        .param("ref", reference)
        .param("argument", json!({ "name": argument, "value": "" }));
    if !chosen.is_empty() {
        out = out.param("context", json!({ "arguments": chosen }));
    }
    out
}

/// The first completion value for `argument`, or `None` (an error, nothing offered).
pub async fn completed_value(
    peer: &mut Peer,
    reference: Value,
    argument: &str,
    chosen: &Map<String, Value>,
) -> Option<String> {
    let reply = peer.call(complete(reference, argument, chosen)).await;
    completion_values(reply.result()?)
        .into_iter()
        .find(|v| !v.is_empty())
}

/// Whether `s` is standard base64 (RFC 4648 §4: the alphabet, padding to a multiple of 4).
pub fn is_base64(s: &str) -> bool {
    let bytes = s.as_bytes();
    if bytes.len() % 4 != 0 {
        return false;
    }
    let padding = bytes.iter().rev().take_while(|b| **b == b'=').count();
    if padding > 2 {
        return false;
    }
    bytes[..bytes.len() - padding]
        .iter()
        .all(|b| b.is_ascii_alphanumeric() || *b == b'+' || *b == b'/')
}

/// Whether `uri` is absolute (a scheme, then `:`), as `format: uri` asks of listed resources.
pub fn is_absolute_uri(uri: &str) -> bool {
    let Some((scheme, _)) = uri.split_once(':') else {
        return false;
    };
    let mut chars = scheme.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
}

/// A string member of a listed item, for naming it.
pub fn string_member<'a>(item: &'a Value, key: &str) -> Option<&'a str> {
    item.get(key).and_then(Value::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_blocks_are_judged_by_type() {
        assert!(block_problems("b", &json!({"type": "text", "text": "hi"})).is_empty());
        assert!(
            block_problems(
                "b",
                &json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"})
            )
            .is_empty()
        );
        let cases = [
            (json!({"type": "txt", "text": "hi"}), "unknown type"),
            (json!({"type": "text"}), "`text`"),
            (
                json!({"type": "image", "data": "not base64!", "mimeType": "image/png"}),
                "base64",
            ),
            (json!({"type": "audio", "data": "AAAA"}), "`mimeType`"),
            (json!({"type": "resource_link", "uri": "x://y"}), "`name`"),
            (
                json!({"type": "resource", "resource": {"uri": "x://y", "text": "a", "blob": "AAAA"}}),
                "both",
            ),
            (json!("text"), "not an object"),
        ];
        for (block, words) in cases {
            let problems = block_problems("content[0]", &block);
            assert!(
                problems.iter().any(|p| p.contains(words)),
                "{block}: {problems:?}"
            );
        }
    }

    #[test]
    fn reads_completions_and_prompts_are_judged() {
        let ok = json!({"contents": [{"uri": "x://a/b", "mimeType": "text/plain", "text": "t"}]});
        assert!(read_problems("x://a", &ok).is_empty());
        assert!(read_deviations(&ok, Some("text/plain")).is_empty());
        assert!(read_deviations(&ok, Some("Text/Plain; charset=utf-8")).is_empty());
        let wrong = json!({"contents": [{"uri": "x://other", "blob": "%%%"}]});
        let problems = read_problems("x://a", &wrong);
        assert_eq!(problems.len(), 2, "{problems:?}");
        // FEAT-4: a missing `mimeType` is no deviation, another one is (NonStrict).
        assert!(read_deviations(&wrong, Some("image/png")).is_empty());
        let other = json!({"contents": [{"uri": "x://a", "mimeType": "image/gif", "blob": ""}]});
        assert_eq!(read_deviations(&other, Some("image/png")).len(), 1);
        assert!(read_deviations(&other, None).is_empty());
        assert!(
            completion_problems(&json!({"completion": {"values": ["a"], "total": 1,
            "hasMore": false}}))
            .is_empty()
        );
        assert_eq!(
            completion_problems(&json!({"completion": {"values": ["a", 2], "total": 1,
                "hasMore": "no"}}))
            .len(),
            3
        );
        assert!(
            prompt_problems(&json!({"messages": [{"role": "user", "content":
            {"type": "text", "text": "x"}}]}))
            .is_empty()
        );
        assert_eq!(
            prompt_problems(&json!({"messages": [{"role": "system", "content": []}]})).len(),
            2
        );
    }

    #[test]
    fn base64_and_absolute_uris() {
        for good in ["", "AA==", "AAA=", "AAAA", "ab+/Zz09"] {
            assert!(is_base64(good), "{good}");
        }
        for bad in ["A", "AA=", "A===", "AA AA", "AA-_", "=AAA"] {
            assert!(!is_base64(bad), "{bad}");
        }
        assert!(is_absolute_uri("mcpspec://reference/readme"));
        assert!(is_absolute_uri("file:///x"));
        assert!(!is_absolute_uri("readme"));
        assert!(!is_absolute_uri("1x://y"));
    }
}
