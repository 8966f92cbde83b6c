//! What the check areas share, below all of them (an area imports this module; this module
//! imports no area): the method a negative test may use (POL-1), the liveness probe, error-code
//! grading, and for the rest of the 2026-07-28 surface (subscriptions, logging, progress,
//! cancellation, caching, lists, resources, prompts, input-required results) method and tool
//! names, list walking, probe-tool lookup (POL-12) and collecting the notifications around a
//! reply.

use serde_json::{Map, Value, json};

use crate::check::Facts;
use crate::driver::{Outgoing, Peer, Reply, preview, request, shorten};
use crate::outcome::{Era, Mismatch, Outcome};
use mcpspec_core::protocol::{code, meta, method, tool};
use mcpspec_core::wire::Frame;

/// A read-only method the server serves, for negative tests that must reach envelope and
/// version validation (POL-1: the method itself must not be what is wrong).
pub(crate) fn served_method(facts: &Facts) -> &'static str {
    if facts.has_capability("tools") {
        method::TOOLS_LIST
    } else if facts.has_capability("resources") {
        method::RESOURCES_LIST
    } else if facts.has_capability("prompts") {
        method::PROMPTS_LIST
    } else {
        method::DISCOVER
    }
}

/// A list request `era` serves on this server: as [`served_method`] on the modern era; on the
/// legacy era, from the capabilities the `initialize` probe announced (`ping` without any).
pub(crate) fn served_method_in(facts: &Facts, era: Era) -> &'static str {
    if era != Era::Legacy {
        return served_method(facts);
    }
    let caps = facts
        .initialize
        .as_ref()
        .and_then(|r| r.get("capabilities"));
    let has = |c: &str| {
        caps.and_then(|caps| caps.get(c))
            .is_some_and(Value::is_object)
    };
    if has("tools") {
        method::TOOLS_LIST
    } else if has("resources") {
        method::RESOURCES_LIST
    } else if has("prompts") {
        method::PROMPTS_LIST
    } else {
        method::PING
    }
}

/// A harmless request every server of `era` answers: `server/discover` (modern) or `ping`
/// (legacy, after the handshake). Era-independent checks (POL-28) use it as their sentinel.
pub(crate) fn harmless_method(era: Era) -> &'static str {
    match era {
        Era::Legacy => method::PING,
        _ => method::DISCOVER,
    }
}

/// The liveness probe: a harmless request of the peer's era (`server/discover`, or `ping` on a
/// legacy connection) must be answered (with anything valid).
pub(crate) async fn expect_alive(peer: &mut Peer, after: &str) -> Result<(), Outcome> {
    let probe = harmless_method(peer.era);
    let reply = peer.call(request(probe)).await;
    match reply.message() {
        Some(_) => Ok(()),
        None => Err(Outcome::fail(format!(
            "after {after}, the liveness probe ({probe}) got {}",
            reply.describe()
        ))),
    }
}

/// Grades one error code against RPC-2, RPC-7 and POL-15. `None` means acceptable.
pub(crate) fn grade_error_code(code: i64) -> Option<Outcome> {
    if code == 0 {
        return Some(Outcome::fail("error code 0 (RPC-2, POL-15)"));
    }
    if code::DRAFT_CODES.contains(&code) {
        return Some(Outcome::fail(format!(
            "error code {code} is a pre-release draft code (use -32020/-32021/-32022)"
        )));
    }
    if code == code::LEGACY_RESOURCE_NOT_FOUND || code == code::LEGACY_URL_ELICITATION {
        return Some(Outcome::fail(format!(
            "error code {code} is removed in 2026-07-28 (RPC-7)"
        )));
    }
    if (-32099..=-32020).contains(&code) && !code::MODERN_DEFINED_RESERVED.contains(&code) {
        return Some(Outcome::fail(format!(
            "error code {code} is undefined in -32020..-32099 (RPC-7)"
        )));
    }
    if (-32019..=-32000).contains(&code) {
        return Some(Outcome::non_strict(format!(
            "error code {code} is in -32000..-32019, which 2026-07-28 says SHOULD NOT be used (RPC-7)"
        )));
    }
    None
}

/// Expects the error `code`; a different error code is `other`'s outcome (Fail unless the
/// caller chose NonStrict), a result or silence is Fail.
pub(crate) fn expect_code_or(
    reply: &Reply,
    what: &str,
    code: i64,
    other: fn(String) -> Outcome,
) -> Outcome {
    match reply.error() {
        Some(e) if e.code == code => Outcome::pass(format!("{what}: error {code}")),
        Some(_) => {
            let mismatch = Mismatch::new(format!("error {code}"), reply.describe());
            other(mismatch.describe(what)).with_mismatch(mismatch)
        }
        None => Outcome::mismatch(what, format!("error {code}"), reply.describe()),
    }
}

/// The `_meta` key of a progress token.
pub const PROGRESS_TOKEN: &str = "progressToken";

/// Log levels, lowest first (syslog severities, RFC 5424).
pub const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

pub fn level_rank(level: &str) -> Option<usize> {
    LOG_LEVELS.iter().position(|l| *l == level)
}

/// The list methods gated by a capability: (method, result key, capability).
pub const LISTS: [(&str, &str, &str); 4] = [
    (method::TOOLS_LIST, "tools", "tools"),
    (method::PROMPTS_LIST, "prompts", "prompts"),
    (method::RESOURCES_LIST, "resources", "resources"),
    (
        method::RESOURCES_TEMPLATES_LIST,
        "resourceTemplates",
        "resources",
    ),
];

/// The lists this server advertises (POL-11), or a skip saying none is.
pub fn advertised_lists(facts: &Facts) -> Result<Vec<(&'static str, &'static str)>, Outcome> {
    let lists: Vec<_> = LISTS
        .iter()
        .filter(|(_, _, cap)| facts.has_capability(cap))
        .map(|(m, key, _)| (*m, *key))
        .collect();
    if lists.is_empty() {
        return Err(Outcome::skipped(
            "the server advertises none of `tools`, `prompts`, `resources` (POL-11)",
        ));
    }
    Ok(lists)
}

/// Makes sure the probe tool `name` is listed (POL-12: mcpspec calls only listed probe-profile
/// tools); a skip naming it otherwise.
pub async fn require_probe_tool(peer: &mut Peer, name: &str) -> Result<(), Outcome> {
    let tools = peer.items(method::TOOLS_LIST, "tools").await?;
    if tools
        .iter()
        .any(|t| t.get("name").and_then(Value::as_str) == Some(name))
    {
        Ok(())
    } else {
        Err(Outcome::skipped(format!(
            "the probe-profile tool `{name}` is not listed by tools/list (POL-12: no other tool is called)"
        )))
    }
}

/// The first of `names` that `tools/list` lists, or a skip.
pub async fn first_probe_tool(
    peer: &mut Peer,
    names: &[&'static str],
) -> Result<&'static str, Outcome> {
    let tools = peer.items(method::TOOLS_LIST, "tools").await?;
    let listed = |n: &str| {
        tools
            .iter()
            .any(|t| t.get("name").and_then(Value::as_str) == Some(n))
    };
    names.iter().copied().find(|n| listed(n)).ok_or_else(|| {
        Outcome::skipped(format!(
            "none of the probe-profile tools {} is listed by tools/list (POL-12: no other tool is called)",
            names.join(", ")
        ))
    })
}

/// A `tools/call` request.
pub fn call_tool(name: &str, arguments: Value) -> Outgoing {
    request(method::TOOLS_CALL)
        .param("name", json!(name))
        .param("arguments", arguments)
}

/// The method of a notification (or request) frame.
pub fn method_of(frame: &Frame) -> Option<&str> {
    frame.json.as_ref()?.get("method")?.as_str()
}

/// The params of a frame.
pub fn params_of(frame: &Frame) -> Option<&Value> {
    frame.json.as_ref()?.get("params")
}

/// Whether `frame` is a reply (result or error) with exactly this id.
pub fn is_reply(frame: &Frame, id: &Value) -> bool {
    frame
        .json
        .as_ref()
        .is_some_and(|j| j.get("method").is_none() && j.get("id") == Some(id))
}

/// One frame, shortened for a verdict message.
pub fn brief(frame: &Frame) -> String {
    shorten(&frame.text(), 160)
}

/// The listed name of an item (`name`, or `uri` for resources).
pub fn name_of(item: &Value) -> Option<&str> {
    item.get("name")
        .or_else(|| item.get("uri"))
        .and_then(Value::as_str)
}

// --- input-required rounds with `mcpspec_confirm` (mrtr/*, stateless/*) ---------------------

pub(super) fn capabilities(caps: Value) -> crate::driver::Outgoing {
    call_tool(tool::CONFIRM, json!({ "message": "mcpspec asks" }))
        .meta_entry(meta::CLIENT_CAPABILITIES, caps)
}

pub(super) fn is_input_required(result: &Value) -> bool {
    result.get("resultType") == Some(&json!("input_required"))
}

/// The first round with the `elicitation` capability: the InputRequiredResult.
pub(super) async fn first_round(peer: &mut Peer) -> Result<Value, Outcome> {
    let reply = peer.call(capabilities(json!({ "elicitation": {} }))).await;
    let result = reply.expect_result(tool::CONFIRM)?;
    if !is_input_required(result) {
        return Err(Outcome::fail(format!(
            "`{}` with the elicitation capability did not ask for input: {}",
            tool::CONFIRM,
            preview(result, 200)
        )));
    }
    Ok(result.clone())
}

/// An answer to one input request, by its method.
fn answer(input: &Value) -> Value {
    match input.get("method").and_then(Value::as_str) {
        Some("roots/list") => json!({ "roots": [] }),
        Some("sampling/createMessage") => json!({
            "role": "assistant",
            "content": { "type": "text", "text": "mcpspec" },
            "model": "mcpspec"
        }),
        _ => {
            let props = input
                .pointer("/params/requestedSchema/properties")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            let content: Map<String, Value> = props
                .iter()
                .map(|(k, schema)| {
                    let v = match schema.get("type").and_then(Value::as_str) {
                        Some("boolean") => json!(true),
                        Some("number" | "integer") => json!(1),
                        _ => json!("mcpspec"),
                    };
                    (k.clone(), v)
                })
                .collect();
            json!({ "action": "accept", "content": content })
        }
    }
}

pub(super) fn answers(first: &Value) -> Value {
    let responses: Map<String, Value> = first
        .get("inputRequests")
        .and_then(Value::as_object)
        .map(|reqs| reqs.iter().map(|(k, r)| (k.clone(), answer(r))).collect())
        .unwrap_or_default();
    Value::Object(responses)
}

pub(super) async fn retry(peer: &mut Peer, state: Option<&Value>, responses: Value) -> Reply {
    let mut out = capabilities(json!({ "elicitation": {} })).param("inputResponses", responses);
    if let Some(state) = state {
        out = out.param("requestState", state.clone());
    }
    peer.call(out).await
}

/// `state` with its last character changed.
pub(super) fn tamper(state: &str) -> String {
    let mut chars: Vec<char> = state.chars().collect();
    if let Some(last) = chars.last_mut() {
        *last = if *last == '0' { '1' } else { '0' };
    }
    chars.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::Kind;

    #[test]
    fn error_code_grades() {
        assert!(grade_error_code(-32601).is_none());
        assert!(grade_error_code(-32022).is_none());
        assert_eq!(grade_error_code(0).map(|o| o.kind), Some(Kind::Fail));
        assert_eq!(grade_error_code(-32050).map(|o| o.kind), Some(Kind::Fail));
        assert_eq!(grade_error_code(-32004).map(|o| o.kind), Some(Kind::Fail));
        assert_eq!(
            grade_error_code(-32010).map(|o| o.kind),
            Some(Kind::NonStrict)
        );
        assert!(grade_error_code(-1).is_none());
    }
}
