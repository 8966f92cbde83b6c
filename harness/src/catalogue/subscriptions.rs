//! `subscriptions/*`: `subscriptions/listen` (2026-07-28) — the acknowledgement, the
//! subscription id on every stream notification, the filter, teardown by either side, and
//! `notifications/cancelled` only for listen streams.
//!
//! A listen request is gated by the capabilities that give it something to carry
//! (`*.listChanged`, `resources.subscribe`; POL-11). Events are fired with the probe profile's
//! trigger tools (POL-12), so the checks that need an event need `--probe-profile` and Skip,
//! naming the tool, when it is not listed.
//!
//! The checks run on both transports. On stdio the stream's notifications share the
//! connection, and a trigger's notifications come before its reply. Over streamable HTTP the
//! listen request's response is a long-lived SSE stream: the transport turns each of its events
//! into a message as it arrives, so the notifications come on the listen stream while the
//! trigger's reply comes on its own POST, in either order (an exchange collects both, within
//! the quiet period after the reply). The client ends a listen stream with
//! `notifications/cancelled` on stdio and by closing the stream over HTTP (SUB-7), where a
//! closed stream can carry nothing more: what remains observable is that the other streams go
//! on (subscriptions are independent).

use serde_json::{Map, Value, json};

use super::prelude::*;
use super::support::{self, brief, call_tool, is_reply, method_of, params_of, require_probe_tool};

pub fn group() -> Vec<Check> {
    vec![
        Check {
            id: "subscriptions/listen/acknowledged-first",
            requirements: &["SUB-1", "POL-11"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "`subscriptions/listen` with every advertised list-changed flag; the \
                          first message for it.",
            expectation: "`notifications/subscriptions/acknowledged` first, its \
                          `params.notifications` a subset of what was requested",
            faults: &[
                "listen-no-ack",
                "listen-ack-late",
                "listen-no-ack --http",
                "listen-ack-late --http",
            ],
            script: |s| Box::pin(acknowledged_first(s)),
        },
        Check {
            id: "subscriptions/listen/ack-carries-listen-id",
            requirements: &["SUB-2"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "Two listen requests, one with an integer id and one with a string id.",
            expectation: "each acknowledgement's `_meta[\"io.modelcontextprotocol/subscriptionId\"]` \
                          is its listen id, with the same JSON type",
            faults: &["listen-id-type-changed", "listen-id-type-changed --http"],
            script: |s| Box::pin(ack_carries_listen_id(s)),
        },
        Check {
            id: "subscriptions/stream/tagged-with-listen-id",
            requirements: &["SUB-2", "POL-12"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern, Need::ProbeProfile],
            description: "A listen stream (string id) and a list change fired with \
                          `mcpspec_trigger_list_changed`.",
            expectation: "the `*/list_changed` notification carries the listen id as \
                          `subscriptionId`, with the same JSON type",
            faults: &[
                "listen-wrong-subscription-id",
                "listen-id-type-changed",
                "listen-wrong-subscription-id --http",
                "listen-id-type-changed --http",
            ],
            script: |s| Box::pin(stream_tagged(s)),
        },
        Check {
            id: "subscriptions/filter/only-requested-types",
            requirements: &["SUB-3", "POL-12"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern, Need::ProbeProfile],
            description: "A listen stream asking for one list; every list changed \
                          (`mcpspec_trigger_list_changed` without `list`) and an update of a \
                          resource it did not subscribe to.",
            expectation: "only the requested `*/list_changed` reaches the stream; no other type, \
                          no `resources/updated`",
            faults: &[
                "listen-unrequested-types",
                "listen-unrequested-types --http",
            ],
            script: |s| Box::pin(only_requested(s)),
        },
        Check {
            id: "subscriptions/stream/no-log-messages",
            requirements: &["SUB-4"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "A listen request carrying `logLevel: debug`; what follows its \
                          acknowledgement while nothing else is in flight.",
            expectation: "no `notifications/message` and no `notifications/progress` on the \
                          listen stream",
            faults: &["listen-log-on-stream", "listen-log-on-stream --http"],
            script: |s| Box::pin(no_log_on_stream(s)),
        },
        Check {
            id: "subscriptions/list-changed/delivered",
            requirements: &["SUB-5", "POL-11", "POL-12"],
            level: Level::Should,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern, Need::ProbeProfile],
            description: "A listen stream asking for an advertised `listChanged` list; that list \
                          changed (`mcpspec_trigger_list_changed`).",
            expectation: "the `*/list_changed` notification on the stream; none is NonStrict \
                          (SUB-5: SHOULD)",
            faults: &["listen-no-list-changed", "listen-no-list-changed --http"],
            script: |s| Box::pin(list_changed_delivered(s)),
        },
        Check {
            id: "subscriptions/teardown/server-ended",
            requirements: &["SUB-6", "POL-9", "POL-12"],
            level: Level::Should,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern, Need::ProbeProfile],
            description: "A listen stream the server ends (`mcpspec_end_subscriptions` with its \
                          `listenId`).",
            expectation: "the listen request's completion result (`resultType: \"complete\"`) or \
                          `notifications/cancelled` for the listen id; neither is NonStrict (POL-9)",
            faults: &["listen-no-teardown", "listen-no-teardown --http"],
            script: |s| Box::pin(server_ended(s)),
        },
        Check {
            id: "subscriptions/cancel/stream-stops",
            requirements: &["SUB-7", "STDIO-4", "POL-12"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern, Need::ProbeProfile],
            description: "Two listen streams for the same list; the client cancels the first \
                          (`notifications/cancelled`), then the list changes.",
            expectation: "the second stream gets the notification; nothing more for the cancelled \
                          one (no notification, no reply; over HTTP its stream is closed)",
            faults: &[
                "listen-after-cancel",
                // Not `listen-after-cancel --http`: a stream the client closed carries nothing
                // more to read. The trigger's `listenIds` still naming it after one
                // expected-message wait is noted in the transcript, not failed: when the server
                // notices a closed connection is up to its HTTP stack.
                "listen-cancel-ends-all",
                "listen-cancel-ends-all --http",
            ],
            script: |s| Box::pin(cancel_stops_stream(s)),
        },
        Check {
            id: "subscriptions/cancelled/only-for-listen",
            requirements: &["SUB-9", "POL-12"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Fresh(Fresh::ProbeLog),
            needs: &[Need::Modern, Need::ProbeProfile],
            description: "A probe-profile `tools/call` (not a listen request).",
            expectation: "no `notifications/cancelled` from the server for it",
            faults: &["listen-cancelled-by-server-for-request"],
            script: |s| Box::pin(cancelled_only_for_listen(s)),
        },
    ]
}

/// One list a listen filter can ask for: (filter flag, trigger `list` argument, notification).
#[derive(Debug, Clone, Copy)]
struct ListKind {
    flag: &'static str,
    name: &'static str,
    notification: &'static str,
}

const KINDS: [ListKind; 3] = [
    ListKind {
        flag: "toolsListChanged",
        name: "tools",
        notification: method::TOOLS_LIST_CHANGED,
    },
    ListKind {
        flag: "promptsListChanged",
        name: "prompts",
        notification: method::PROMPTS_LIST_CHANGED,
    },
    ListKind {
        flag: "resourcesListChanged",
        name: "resources",
        notification: method::RESOURCES_LIST_CHANGED,
    },
];

/// The lists whose `listChanged` the server advertises.
fn advertised_kinds(facts: &Facts) -> Vec<ListKind> {
    KINDS
        .iter()
        .copied()
        .filter(|k| facts.has_capability(&format!("{}.listChanged", k.name)))
        .collect()
}

/// The first advertised list-changed kind, or a POL-11 skip.
fn one_kind(facts: &Facts) -> Result<ListKind, Outcome> {
    advertised_kinds(facts).first().copied().ok_or_else(|| {
        Outcome::skipped(
            "the server advertises no `listChanged` capability (tools, prompts, resources) (POL-11)",
        )
    })
}

/// A filter asking for `kinds`.
fn filter(kinds: &[ListKind]) -> Value {
    let obj: Map<String, Value> = kinds
        .iter()
        .map(|k| (k.flag.to_owned(), json!(true)))
        .collect();
    Value::Object(obj)
}

fn listen(id: Option<Value>, notifications: Value) -> crate::driver::Outgoing {
    let out = request(method::SUBSCRIPTIONS_LISTEN).param("notifications", notifications);
    match id {
        Some(id) => out.id(id),
        None => out,
    }
}

/// The `subscriptionId` a frame carries in `params._meta`.
fn subscription_id(frame: &Frame) -> Option<&Value> {
    params_of(frame)?.get("_meta")?.get(meta::SUBSCRIPTION_ID)
}

/// Whether `frame` is tagged with `id`, loosely (7 for "7"), so a wrong type can be reported.
fn tagged_loosely(frame: &Frame, id: &Value) -> bool {
    subscription_id(frame).is_some_and(|got| {
        got == id || got.to_string().trim_matches('"') == id.to_string().trim_matches('"')
    })
}

fn is_ack(frame: &Frame) -> bool {
    method_of(frame) == Some(method::ACKNOWLEDGED)
}

/// Opens a listen stream and waits for its acknowledgement (matched loosely by id); the ack,
/// or a Fail saying what came instead.
async fn open(peer: &mut Peer, id: Value, notifications: Value) -> Result<Frame, Outcome> {
    peer.send(listen(Some(id.clone()), notifications)).await;
    let wait = peer.settings().expect_timeout;
    let (ack, seen) = peer
        .wait_for(wait, |f| {
            (is_ack(f) && tagged_loosely(f, &id)) || is_reply(f, &id)
        })
        .await;
    match ack {
        Some(f) if is_ack(&f) => Ok(f),
        Some(f) => Err(Outcome::fail(format!(
            "subscriptions/listen (id {id}) was answered instead of acknowledged: {}",
            brief(&f)
        ))),
        None => Err(Outcome::fail(format!(
            "no acknowledgement for subscriptions/listen (id {id}) within {}{}",
            crate::driver::seconds(wait),
            first_of(&seen)
        ))),
    }
}

fn first_of(frames: &[Frame]) -> String {
    frames
        .first()
        .map(|f| format!(" ({} other message(s), first: {})", frames.len(), brief(f)))
        .unwrap_or_default()
}

/// Ends a listen stream from the client side (SUB-7): over HTTP by closing the listen
/// request's response stream, on stdio with `notifications/cancelled`.
async fn cancel(peer: &mut Peer, id: &Value) {
    if peer.close_stream(id).is_some() {
        // A closed connection reaches the server's side asynchronously (unlike a cancellation
        // on stdio, read in order): give it the quiet period to notice before the check goes
        // on, so what follows is judged on a server that knows the stream is gone.
        tokio::time::sleep(peer.settings().quiet).await;
        return;
    }
    peer.send(
        notification(method::CANCELLED)
            .param("requestId", id.clone())
            .param("reason", json!("mcpspec: done listening")),
    )
    .await;
}

/// A connection with the server up (listen checks read notifications without a request of
/// their own in flight, so the start-up allowance must be spent first).
async fn ready(s: &mut Scenario) -> Result<Peer, Outcome> {
    let mut peer = s.connect().await?;
    peer.warm_up().await?;
    Ok(peer)
}

/// Fires `mcpspec_trigger_list_changed` and returns what came with it.
async fn trigger_list_changed(peer: &mut Peer, list: Option<&str>) -> Result<Exchange, Outcome> {
    let args = match list {
        Some(l) => json!({ "list": l }),
        None => json!({}),
    };
    let ex = peer
        .exchange(call_tool(tool::TRIGGER_LIST_CHANGED, args))
        .await;
    ex.reply.expect_result(tool::TRIGGER_LIST_CHANGED)?;
    Ok(ex)
}

fn all_frames(ex: &Exchange) -> Vec<&Frame> {
    ex.before.iter().chain(&ex.after).collect()
}

/// Every frame of `ex`, and, when none of them is the notification `want` accepts, what arrives
/// until it does (one expected-message wait). Over HTTP a listen stream's notification travels
/// apart from the trigger's reply and may come after the quiet period: late is not absent.
async fn frames_until(peer: &mut Peer, ex: &Exchange, want: impl Fn(&Frame) -> bool) -> Vec<Frame> {
    let mut frames: Vec<Frame> = all_frames(ex).into_iter().cloned().collect();
    if !frames.iter().any(&want) {
        let wait = peer.settings().expect_timeout;
        let (found, seen) = peer.wait_for(wait, &want).await;
        frames.extend(seen.into_iter().chain(found));
    }
    frames
}

async fn acknowledged_first(s: &mut Scenario) -> Verdict {
    let kinds = advertised_kinds(s.facts());
    let subscribe = s.facts().has_capability("resources.subscribe");
    if kinds.is_empty() && !subscribe {
        return Ok(Outcome::skipped(
            "the server advertises no `listChanged` and no `resources.subscribe`: nothing to listen for (POL-11)",
        ));
    }
    let mut peer = ready(s).await?;
    let mut wanted = filter(&kinds);
    if subscribe {
        let resources = peer.items(method::RESOURCES_LIST, "resources").await?;
        if let Some(uri) = resources
            .iter()
            .find_map(|r| r.get("uri").and_then(Value::as_str))
        {
            wanted["resourceSubscriptions"] = json!([uri]);
        }
    }
    if wanted.as_object().is_some_and(Map::is_empty) {
        return Ok(Outcome::skipped(
            "`resources.subscribe` is advertised but no resource is listed, and no `listChanged` (POL-11)",
        ));
    }
    let id = peer
        .send(listen(None, wanted.clone()))
        .await
        .unwrap_or(Value::Null);
    let wait = peer.settings().expect_timeout;
    let (first, _) = peer.wait_for(wait, |_| true).await;
    cancel(&mut peer, &id).await;
    let Some(first) = first else {
        return Ok(Outcome::fail(format!(
            "nothing within {} after subscriptions/listen (no acknowledgement)",
            crate::driver::seconds(wait)
        )));
    };
    if !is_ack(&first) {
        return Ok(Outcome::fail(format!(
            "the first message after subscriptions/listen is not the acknowledgement: {}",
            brief(&first)
        )));
    }
    let Some(honoured) = params_of(&first).and_then(|p| p.get("notifications")) else {
        return Ok(Outcome::fail(format!(
            "the acknowledgement has no `params.notifications`: {}",
            brief(&first)
        )));
    };
    let Some(honoured) = honoured.as_object() else {
        return Ok(Outcome::fail(format!(
            "`params.notifications` of the acknowledgement is not an object: {honoured}"
        )));
    };
    let mut extra = Vec::new();
    for (key, value) in honoured {
        let ok = match (key.as_str(), value) {
            ("resourceSubscriptions", Value::Array(uris)) => uris.iter().all(|u| {
                wanted["resourceSubscriptions"]
                    .as_array()
                    .is_some_and(|w| w.contains(u))
            }),
            (_, Value::Bool(false)) => true,
            (k, Value::Bool(true)) => wanted.get(k) == Some(&json!(true)),
            _ => false,
        };
        if !ok {
            extra.push(format!("{key}: {value}"));
        }
    }
    Ok(if extra.is_empty() {
        Outcome::pass(format!(
            "acknowledged first, honouring {}",
            Value::Object(honoured.clone())
        ))
    } else {
        Outcome::fail(format!(
            "the acknowledgement honours what was not requested ({}); requested {wanted}",
            extra.join(", ")
        ))
    })
}

async fn ack_carries_listen_id(s: &mut Scenario) -> Verdict {
    let kinds = advertised_kinds(s.facts());
    let Some(kind) = kinds.first().copied() else {
        return Ok(Outcome::skipped(
            "the server advertises no `listChanged` capability (POL-11)",
        ));
    };
    let mut peer = ready(s).await?;
    let mut problems = Problems::new();
    for id in [json!(4217), json!("mcpspec-listen-b")] {
        let ack = open(&mut peer, id.clone(), filter(&[kind])).await?;
        match subscription_id(&ack) {
            Some(got) if *got == id => {}
            Some(got) => problems.push(format!(
                "listen id {id} acknowledged with subscriptionId {got}"
            )),
            None => problems.push(format!(
                "the acknowledgement for listen id {id} has no subscriptionId"
            )),
        }
        cancel(&mut peer, &id).await;
    }
    Ok(problems.verdict("both acknowledgements carry their listen id, with its JSON type"))
}

async fn stream_tagged(s: &mut Scenario) -> Verdict {
    let kind = one_kind(s.facts())?;
    let mut peer = ready(s).await?;
    require_probe_tool(&mut peer, tool::TRIGGER_LIST_CHANGED).await?;
    let id = json!("mcpspec-listen-7");
    open(&mut peer, id.clone(), filter(&[kind])).await?;
    let ex = trigger_list_changed(&mut peer, Some(kind.name)).await?;
    let frames = frames_until(&mut peer, &ex, |f| method_of(f) == Some(kind.notification)).await;
    cancel(&mut peer, &id).await;
    let got: Vec<&Frame> = frames
        .iter()
        .filter(|f| method_of(f) == Some(kind.notification))
        .collect();
    let Some(first) = got.first() else {
        return Ok(Outcome::fail(format!(
            "no `{}` arrived after the trigger, so the tag cannot be seen",
            kind.notification
        )));
    };
    Ok(match subscription_id(first) {
        Some(got) if *got == id => Outcome::pass(format!(
            "`{}` carries subscriptionId {id}",
            kind.notification
        )),
        Some(got) => Outcome::fail(format!(
            "`{}` carries subscriptionId {got}; the listen id is {id}",
            kind.notification
        )),
        None => Outcome::fail(format!(
            "`{}` has no `_meta[\"{}\"]`: {}",
            kind.notification,
            meta::SUBSCRIPTION_ID,
            brief(first)
        )),
    })
}

async fn only_requested(s: &mut Scenario) -> Verdict {
    let kind = one_kind(s.facts())?;
    let mut peer = ready(s).await?;
    require_probe_tool(&mut peer, tool::TRIGGER_LIST_CHANGED).await?;
    let id = json!("mcpspec-listen-f");
    open(&mut peer, id.clone(), filter(&[kind])).await?;
    let ex = trigger_list_changed(&mut peer, None).await?;
    let mut frames: Vec<Frame> = all_frames(&ex).into_iter().cloned().collect();
    // An update of a resource the stream did not subscribe to, when one is listed.
    if s.facts().has_capability("resources") {
        let resources = peer.items(method::RESOURCES_LIST, "resources").await?;
        let uri = resources
            .iter()
            .find_map(|r| r.get("uri").and_then(Value::as_str));
        if let Some(uri) = uri.map(str::to_owned) {
            require_probe_tool(&mut peer, tool::TRIGGER_RESOURCE_UPDATED).await?;
            let ex = peer
                .exchange(call_tool(
                    tool::TRIGGER_RESOURCE_UPDATED,
                    json!({ "uri": uri }),
                ))
                .await;
            ex.reply.expect_result(tool::TRIGGER_RESOURCE_UPDATED)?;
            frames.extend(ex.before.into_iter().chain(ex.after));
        }
    }
    cancel(&mut peer, &id).await;
    let unrequested: Vec<String> = frames
        .iter()
        .filter(|f| f.raw_id().is_none())
        .filter_map(|f| method_of(f).map(|m| (m, f)))
        .filter(|(m, _)| *m != kind.notification)
        .filter(|(m, _)| {
            KINDS.iter().any(|k| k.notification == *m) || *m == method::RESOURCES_UPDATED
        })
        .map(|(_, f)| brief(f))
        .collect();
    Ok(if unrequested.is_empty() {
        Outcome::pass(format!(
            "only `{}` reached the stream (asked for `{}` alone)",
            kind.notification, kind.flag
        ))
    } else {
        Outcome::fail(format!(
            "the stream asked for `{}` alone but got {}",
            kind.flag,
            unrequested.join("; ")
        ))
    })
}

async fn no_log_on_stream(s: &mut Scenario) -> Verdict {
    let kinds = advertised_kinds(s.facts());
    let Some(kind) = kinds.first().copied() else {
        return Ok(Outcome::skipped(
            "the server advertises no `listChanged` capability (POL-11)",
        ));
    };
    let mut peer = ready(s).await?;
    let id = json!("mcpspec-listen-log");
    peer.send(
        listen(Some(id.clone()), filter(&[kind])).meta_entry(meta::LOG_LEVEL, json!("debug")),
    )
    .await;
    let wait = peer.settings().expect_timeout;
    let (ack, mut seen) = peer.wait_for(wait, is_ack).await;
    if ack.is_none() {
        return Ok(Outcome::fail(format!(
            "no acknowledgement for subscriptions/listen within {}{}",
            crate::driver::seconds(wait),
            first_of(&seen)
        )));
    }
    let quiet = peer.settings().quiet;
    seen.extend(peer.frames_within(quiet).await);
    cancel(&mut peer, &id).await;
    let bad: Vec<String> = seen
        .iter()
        .filter(|f| matches!(method_of(f), Some(method::MESSAGE | method::PROGRESS)))
        .map(brief)
        .collect();
    Ok(if bad.is_empty() {
        Outcome::pass("no log or progress notification while only the listen stream was open")
    } else {
        Outcome::fail(format!(
            "with only a listen request in flight the server sent {}",
            bad.join("; ")
        ))
    })
}

async fn list_changed_delivered(s: &mut Scenario) -> Verdict {
    let kind = one_kind(s.facts())?;
    let mut peer = ready(s).await?;
    require_probe_tool(&mut peer, tool::TRIGGER_LIST_CHANGED).await?;
    let id = json!("mcpspec-listen-5");
    open(&mut peer, id.clone(), filter(&[kind])).await?;
    let ex = trigger_list_changed(&mut peer, Some(kind.name)).await?;
    let delivered = |f: &Frame| method_of(f) == Some(kind.notification) && tagged_loosely(f, &id);
    let got = frames_until(&mut peer, &ex, delivered)
        .await
        .iter()
        .any(delivered);
    cancel(&mut peer, &id).await;
    Ok(if got {
        Outcome::pass(format!("`{}` reached the listen stream", kind.notification))
    } else {
        Outcome::non_strict(format!(
            "`{}.listChanged` is advertised and acknowledged, but the list change sent no `{}` \
             to the stream (the trigger said {}; SUB-5: SHOULD send it)",
            kind.name,
            kind.notification,
            ex.reply.describe()
        ))
    })
}

async fn server_ended(s: &mut Scenario) -> Verdict {
    let kind = one_kind(s.facts())?;
    let mut peer = ready(s).await?;
    require_probe_tool(&mut peer, tool::END_SUBSCRIPTIONS).await?;
    let id = json!("mcpspec-listen-end");
    open(&mut peer, id.clone(), filter(&[kind])).await?;
    // Only this stream: on a shared HTTP server other checks' streams are open too.
    let ex = peer
        .exchange(call_tool(
            tool::END_SUBSCRIPTIONS,
            json!({ "listenId": id }),
        ))
        .await;
    ex.reply.expect_result(tool::END_SUBSCRIPTIONS)?;
    let teardown = |f: &Frame| {
        is_reply(f, &id)
            || (method_of(f) == Some(method::CANCELLED)
                && params_of(f).and_then(|p| p.get("requestId")) == Some(&id))
    };
    let mut found = all_frames(&ex).into_iter().find(|f| teardown(f)).cloned();
    if found.is_none() {
        let wait = peer.settings().expect_timeout;
        found = peer.wait_for(wait, teardown).await.0;
    }
    let Some(frame) = found else {
        return Ok(Outcome::non_strict(format!(
            "after `{}` the listen request (id {id}) got neither a completion result nor \
             `notifications/cancelled` (POL-9)",
            tool::END_SUBSCRIPTIONS
        )));
    };
    if method_of(&frame) == Some(method::CANCELLED) {
        return Ok(Outcome::pass(
            "the server ended the stream with `notifications/cancelled` for the listen id (POL-9)",
        ));
    }
    let result = frame.json.as_ref().and_then(|j| j.get("result"));
    Ok(match result {
        Some(r) if r.get("resultType") == Some(&json!("complete")) => {
            match r.get("_meta").and_then(|m| m.get(meta::SUBSCRIPTION_ID)) {
                Some(sid) if *sid == id => Outcome::pass(
                    "the server ended the stream with the completion result (subscriptionId = the listen id)",
                ),
                other => Outcome::non_strict(format!(
                    "the completion result's `_meta.subscriptionId` is {}, expected {id}",
                    other.map_or("missing".to_owned(), Value::to_string)
                )),
            }
        }
        _ => Outcome::non_strict(format!(
            "the listen request was answered, but not with a completion result: {}",
            brief(&frame)
        )),
    })
}

async fn cancel_stops_stream(s: &mut Scenario) -> Verdict {
    let kind = one_kind(s.facts())?;
    let mut peer = ready(s).await?;
    require_probe_tool(&mut peer, tool::TRIGGER_LIST_CHANGED).await?;
    let (a, b) = (json!("mcpspec-listen-a"), json!("mcpspec-listen-b"));
    open(&mut peer, a.clone(), filter(&[kind])).await?;
    open(&mut peer, b.clone(), filter(&[kind])).await?;
    // What came before the cancellation is not judged. Over HTTP the client closes `a`'s
    // stream, after which nothing can be read from it: what still comes from it was on its way
    // before (another check's list change on the same server, say). Whether the server goes on
    // sending to it is what its trigger's result says (`change_after_close`).
    let (ex, closed) = if peer.close_stream(&a).is_some() {
        (change_after_close(&mut peer, &a, kind).await?, true)
    } else {
        cancel(&mut peer, &a).await;
        peer.frames_within(std::time::Duration::ZERO).await;
        let ex = trigger_list_changed(&mut peer, Some(kind.name)).await?;
        (ex, false)
    };
    let reached = reached_by(&ex);
    let frames = frames_until(&mut peer, &ex, |f| {
        method_of(f) == Some(kind.notification) && tagged_loosely(f, &b)
    })
    .await;
    cancel(&mut peer, &b).await;
    let for_a: Vec<String> = frames
        .iter()
        .filter(|f| !closed && (tagged_loosely(f, &a) || is_reply(f, &a)))
        .map(brief)
        .collect();
    let b_got = frames
        .iter()
        .any(|f| method_of(f) == Some(kind.notification) && tagged_loosely(f, &b));
    let b_dropped = reached.as_ref().filter(|ids| !ids.contains(&b));
    Ok(if !for_a.is_empty() {
        Outcome::fail(format!(
            "the cancelled stream {a} still got {}",
            for_a.join("; ")
        ))
    } else if let Some(ids) = b_dropped {
        Outcome::fail(format!(
            "after {a} was cancelled, the list change no longer reached the stream still open \
             ({b}): `{}` says it went to {}; subscriptions are independent (SUB-7)",
            tool::TRIGGER_LIST_CHANGED,
            Value::Array(ids.clone())
        ))
    } else if !b_got {
        Outcome::fail(format!(
            "after {a} was cancelled, the stream still open ({b}) did not get `{}`: subscriptions \
             are independent (SUB-7), and without it the cancelled one's silence proves nothing",
            kind.notification
        ))
    } else {
        Outcome::pass(format!(
            "after cancelling {a}, only {b} got `{}`",
            kind.notification
        ))
    })
}

/// The listen request ids a trigger's result says its notifications went to (`listenIds`, the
/// probe profile's signal), when it names them.
fn reached_by(ex: &Exchange) -> Option<Vec<Value>> {
    ex.reply
        .result()?
        .get("structuredContent")?
        .get("listenIds")?
        .as_array()
        .cloned()
}

/// The list change judged after the client closed `a`'s stream over HTTP. The close reaches the
/// server when its HTTP stack notices, not in order with the requests after it, so the list is
/// changed until the trigger's result no longer names `a` (the server has seen the close),
/// within one expected-message wait; what arrived before is not judged. Past the wait (the
/// server still sends to the closed stream) the last change is judged as it is. A trigger that
/// names no listen ids gives no signal: the change after the quiet period is judged.
async fn change_after_close(
    peer: &mut Peer,
    a: &Value,
    kind: ListKind,
) -> Result<Exchange, Outcome> {
    let deadline = tokio::time::Instant::now() + peer.settings().expect_timeout;
    let mut signal = true;
    loop {
        peer.frames_within(std::time::Duration::ZERO).await;
        let ex = trigger_list_changed(peer, Some(kind.name)).await?;
        let still_open = match reached_by(&ex) {
            Some(ids) => ids.contains(a),
            None if signal => {
                signal = false;
                peer.note(format!(
                    "`{}` names no `listenIds`: the list change after the quiet period is \
                     judged",
                    tool::TRIGGER_LIST_CHANGED
                ));
                tokio::time::sleep(peer.settings().quiet).await;
                continue;
            }
            None => false,
        };
        if !still_open {
            return Ok(ex);
        }
        if tokio::time::Instant::now() >= deadline {
            peer.note(format!(
                "the server still delivered to {a} {} after its stream was closed",
                seconds(peer.settings().expect_timeout)
            ));
            return Ok(ex);
        }
        tokio::time::sleep(CLOSE_POLL).await;
    }
}

/// How often the list is changed again while the server has not seen a stream's close.
const CLOSE_POLL: std::time::Duration = std::time::Duration::from_millis(20);

async fn cancelled_only_for_listen(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect().await?;
    let tool = support::first_probe_tool(&mut peer, &[tool::PROBE_LOG, tool::LOG_DEMO]).await?;
    let ex = peer.exchange(call_tool(tool, json!({}))).await;
    ex.reply.expect_result(tool)?;
    let cancelled: Vec<String> = all_frames(&ex)
        .into_iter()
        .filter(|f| method_of(f) == Some(method::CANCELLED))
        .map(brief)
        .collect();
    Ok(if cancelled.is_empty() {
        Outcome::pass(format!("no `notifications/cancelled` around `{tool}`"))
    } else {
        Outcome::fail(format!(
            "the server sent `notifications/cancelled` for a request that is not a listen stream: {}",
            cancelled.join("; ")
        ))
    })
}
