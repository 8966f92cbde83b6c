//! The 2026-07-28 surface beyond the core: resources and templates, prompts, completion,
//! pagination and cache hints, `subscriptions/listen`, per-request logging, progress,
//! cancellation and input-required results (issue 8). One test per behaviour; the faults that
//! break each one are demonstrated in `faults.rs`.
use crate::support;

use mcp_reference_server::{Config, Eras};
use serde_json::{Value, json};
use support::*;

const README: &str = "mcpspec://reference/readme";

fn probe_on() -> Config {
    Config {
        probe_profile: true,
        ..config(&[])
    }
}

fn call_tool(id: impl Into<Value>, name: &str, arguments: Value) -> Value {
    modern(
        id,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    )
}

/// A modern request whose `_meta` also has `extra`.
fn with_meta(mut msg: Value, extra: Value) -> Value {
    for (k, v) in extra.as_object().unwrap() {
        msg["params"]["_meta"][k] = v.clone();
    }
    msg
}

/// Declares `caps` as this request's client capabilities.
fn with_caps(msg: Value, caps: Value) -> Value {
    with_meta(
        msg,
        json!({"io.modelcontextprotocol/clientCapabilities": caps}),
    )
}

/// Sends `msg` and reads until its reply; returns the messages before it and the reply.
async fn exchange(c: &mut Client, msg: Value) -> (Vec<Value>, Value) {
    let id = msg["id"].clone();
    c.send(msg).await;
    until_reply(c, &id).await
}

/// Reads messages until the reply to `id`; returns the messages before it and the reply.
async fn until_reply(c: &mut Client, id: &Value) -> (Vec<Value>, Value) {
    let mut before = Vec::new();
    loop {
        let msg = c.recv().await;
        if msg.get("method").is_none() && msg["id"] == *id {
            return (before, msg);
        }
        before.push(msg);
    }
}

fn methods(msgs: &[Value]) -> Vec<&str> {
    msgs.iter()
        .map(|m| m["method"].as_str().unwrap_or("-"))
        .collect()
}

fn sub_id(msg: &Value) -> &Value {
    &msg["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"]
}

fn listen(id: impl Into<Value>, filter: Value) -> Value {
    modern(id, "subscriptions/listen", json!({"notifications": filter}))
}

/// Walks every page of a list; returns the items and each page's result.
async fn walk(c: &mut Client, method: &str, key: &str) -> (Vec<Value>, Vec<Value>) {
    let mut items = Vec::new();
    let mut pages = Vec::new();
    let mut cursor: Option<Value> = None;
    for i in 0..10 {
        let params = match &cursor {
            Some(cursor) => json!({"cursor": cursor}),
            None => json!({}),
        };
        let reply = c.call(modern(format!("page-{i}"), method, params)).await;
        let result = reply["result"].clone();
        items.extend(result[key].as_array().unwrap().iter().cloned());
        cursor = result.get("nextCursor").cloned();
        pages.push(result);
        if cursor.is_none() {
            break;
        }
    }
    (items, pages)
}

// --- discover ---------------------------------------------------------------------------------

#[tokio::test]
async fn discover_advertises_what_is_served() {
    let mut c = start(config(&[]));
    let caps =
        c.call(modern(1, "server/discover", json!({}))).await["result"]["capabilities"].clone();
    assert_eq!(caps["tools"], json!({"listChanged": true}));
    assert_eq!(
        caps["resources"],
        json!({"subscribe": true, "listChanged": true})
    );
    assert_eq!(caps["prompts"], json!({"listChanged": true}));
    assert_eq!(caps["logging"], json!({}));
    assert_eq!(caps["completions"], json!({}));
    for (i, method) in [
        "prompts/list",
        "resources/templates/list",
        "completion/complete",
    ]
    .into_iter()
    .enumerate()
    {
        let reply = c.call(modern(10 + i as i64, method, json!({}))).await;
        assert_ne!(reply["error"]["code"], -32601, "{method}: {reply}");
    }
}

// --- resources, pagination, cache hints -------------------------------------------------------

#[tokio::test]
async fn resources_page_in_twos_with_the_same_cache_scope() {
    let mut c = start(config(&[]));
    let (items, pages) = walk(&mut c, "resources/list", "resources").await;
    assert_eq!(pages.len(), 2, "{pages:?}");
    assert_eq!(items.len(), 4);
    assert_eq!(items[0]["uri"], README);
    for page in &pages {
        assert_eq!(page["cacheScope"], "public", "{page}");
        assert!(page["ttlMs"].as_u64().is_some(), "{page}");
        assert_eq!(page["resultType"], "complete");
    }
    let (again, _) = walk(&mut c, "resources/list", "resources").await;
    assert_eq!(items, again, "deterministic");
    let mut other = start(config(&[]));
    let (elsewhere, _) = walk(&mut other, "resources/list", "resources").await;
    assert_eq!(items, elsewhere, "the same on every connection");
}

#[tokio::test]
async fn an_unknown_cursor_is_32602_on_every_list() {
    let mut c = start(config(&[]));
    for (i, method) in [
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
    ]
    .into_iter()
    .enumerate()
    {
        let reply = c
            .call(modern(
                i as i64,
                method,
                json!({"cursor": "no-such-cursor"}),
            ))
            .await;
        assert_eq!(error_code(&reply), -32602, "{method}: {reply}");
    }
}

#[tokio::test]
async fn every_cacheable_result_has_hints() {
    let mut c = start(config(&[]));
    for (i, (method, params)) in [
        ("server/discover", json!({})),
        ("tools/list", json!({})),
        ("prompts/list", json!({})),
        ("resources/list", json!({})),
        ("resources/templates/list", json!({})),
        ("resources/read", json!({"uri": README})),
    ]
    .into_iter()
    .enumerate()
    {
        let result = c.call(modern(i as i64, method, params)).await["result"].clone();
        assert_eq!(result["ttlMs"], 60_000, "{method}: {result}");
        assert_eq!(result["cacheScope"], "public", "{method}: {result}");
    }
}

#[tokio::test]
async fn the_template_is_listed_read_and_completed() {
    let mut c = start(config(&[]));
    let templates = c
        .call(modern(1, "resources/templates/list", json!({})))
        .await;
    let template = &templates["result"]["resourceTemplates"][0];
    assert_eq!(template["uriTemplate"], "mcpspec://reference/notes/{topic}");
    let read = c
        .call(modern(
            2,
            "resources/read",
            json!({"uri": "mcpspec://reference/notes/logging"}),
        ))
        .await;
    assert_eq!(
        read["result"]["contents"][0]["text"], "Notes on logging.\n",
        "{read}"
    );
    let completed = c
        .call(modern(
            3,
            "completion/complete",
            json!({
                "ref": {"type": "ref/resource", "uri": "mcpspec://reference/notes/{topic}"},
                "argument": {"name": "topic", "value": "c"}
            }),
        ))
        .await;
    assert_eq!(
        completed["result"]["completion"]["values"],
        json!(["cancellation"])
    );
}

#[tokio::test]
async fn a_missing_resource_is_32602_never_empty_contents() {
    let mut c = start(config(&[]));
    for (id, uri) in [
        (1, "mcpspec://nowhere"),
        (2, "mcpspec://reference/notes/nothing"),
    ] {
        let reply = c
            .call(modern(id, "resources/read", json!({"uri": uri})))
            .await;
        assert_eq!(error_code(&reply), -32602, "{reply}");
        assert!(reply.get("result").is_none());
    }
}

/// The blob resource reads as base64 with the listed `mimeType`.
#[tokio::test]
async fn the_logo_is_a_blob_resource() {
    let mut c = start(config(&[]));
    let (items, _) = walk(&mut c, "resources/list", "resources").await;
    let logo = items.iter().find(|r| r["name"] == "logo").unwrap();
    assert_eq!(logo["mimeType"], "image/png");
    let reply = c
        .call(modern(9, "resources/read", json!({"uri": logo["uri"]})))
        .await;
    let item = &reply["result"]["contents"][0];
    assert_eq!(item["uri"], logo["uri"]);
    assert_eq!(item["mimeType"], "image/png");
    assert!(
        item["blob"].as_str().unwrap().starts_with("iVBORw0KGgo"),
        "{reply}"
    );
    assert!(item.get("text").is_none());
}

// --- the showcase tool --------------------------------------------------------------------------

/// One block of each content type and structured output under its outputSchema; arguments
/// outside the inputSchema are a tool failure.
#[tokio::test]
async fn the_showcase_tool_returns_every_content_type() {
    let mut c = start(config(&[]));
    let args = json!({"label": "abc", "count": 2, "style": "fancy"});
    let reply = c.call(call_tool(1, "showcase", args)).await;
    let result = &reply["result"];
    let types: Vec<&str> = result["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        ["text", "image", "audio", "resource_link", "resource"]
    );
    assert_eq!(
        result["structuredContent"],
        json!({"label": "abc", "count": 2, "blocks": 5})
    );
    for bad in [
        json!({"label": "ABC", "count": 1}),
        json!({"label": "abc", "count": 4}),
        json!({"label": "abc", "count": 1, "style": "loud"}),
    ] {
        let reply = c.call(call_tool(2, "showcase", bad)).await;
        assert_eq!(reply["result"]["isError"], true, "{reply}");
    }
    // A 2024-11-05 session gets only the block types its revision has, and no structured output.
    let mut legacy = start(config_eras(&[], Eras::Legacy));
    legacy.initialize("2024-11-05").await;
    let call = json!({"name": "showcase", "arguments": {"label": "abc", "count": 1}});
    let reply = legacy.call(request(3, "tools/call", call)).await;
    let types: Vec<&str> = reply["result"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["text", "image", "resource"]);
    assert!(reply["result"].get("structuredContent").is_none());
}

/// Legacy sessions serve prompts and (from 2025-03-26, when announced) completions.
#[tokio::test]
async fn legacy_sessions_serve_prompts_and_completions() {
    let mut c = start(config_eras(&[], Eras::Legacy));
    let init = c.initialize("2025-11-25").await;
    assert!(init["capabilities"]["prompts"].is_object());
    assert!(init["capabilities"]["completions"].is_object());
    let listed = c.call(request(2, "prompts/list", json!({}))).await;
    assert_eq!(
        listed["result"]["prompts"].as_array().map(Vec::len),
        Some(3)
    );
    let get = json!({"name": "greeting", "arguments": {"name": "Ada"}});
    let got = c.call(request(3, "prompts/get", get)).await;
    assert_eq!(got["result"]["messages"][0]["role"], "user");
    let complete = json!({"ref": {"type": "ref/prompt", "name": "code_review"},
                          "argument": {"name": "language", "value": "r"}});
    let done = c
        .call(request(4, "completion/complete", complete.clone()))
        .await;
    assert_eq!(done["result"]["completion"]["values"], json!(["rust"]));
    let mut old = start(config_eras(&[], Eras::Legacy));
    let init = old.initialize("2024-11-05").await;
    assert!(init["capabilities"].get("completions").is_none());
    let refused = old.call(request(2, "completion/complete", complete)).await;
    assert_eq!(error_code(&refused), -32601);
}

// --- prompts and completion -------------------------------------------------------------------

#[tokio::test]
async fn prompts_page_and_render_with_arguments() {
    let mut c = start(config(&[]));
    let (prompts, pages) = walk(&mut c, "prompts/list", "prompts").await;
    assert_eq!(pages.len(), 2);
    let names: Vec<&str> = prompts
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["greeting", "code_review", "summarize"]);
    let got = c
        .call(modern(
            1,
            "prompts/get",
            json!({"name": "greeting", "arguments": {"name": "Ada"}}),
        ))
        .await;
    let result = &got["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["messages"][0]["role"], "user");
    assert_eq!(
        result["messages"][0]["content"]["text"],
        "Say hello to Ada."
    );
    assert!(
        result.get("ttlMs").is_none(),
        "prompts/get is not cacheable"
    );
}

#[tokio::test]
async fn unknown_prompt_and_missing_argument_are_32602() {
    let mut c = start(config(&[]));
    let unknown = c
        .call(modern(1, "prompts/get", json!({"name": "no-such-prompt"})))
        .await;
    assert_eq!(error_code(&unknown), -32602);
    let missing = c
        .call(modern(
            2,
            "prompts/get",
            json!({"name": "code_review", "arguments": {"language": "rust"}}),
        ))
        .await;
    assert_eq!(error_code(&missing), -32602);
    let optional_left_out = c
        .call(modern(
            3,
            "prompts/get",
            json!({"name": "code_review", "arguments": {"code": "fn main() {}"}}),
        ))
        .await;
    assert!(optional_left_out["result"]["messages"].is_array());
}

#[tokio::test]
async fn prompt_arguments_complete_by_prefix() {
    let mut c = start(config(&[]));
    let reply = c
        .call(modern(
            1,
            "completion/complete",
            json!({
                "ref": {"type": "ref/prompt", "name": "code_review"},
                "argument": {"name": "language", "value": "r"}
            }),
        ))
        .await;
    assert_eq!(reply["result"]["completion"]["values"], json!(["rust"]));
    assert_eq!(reply["result"]["resultType"], "complete");
    let unknown = c
        .call(modern(
            2,
            "completion/complete",
            json!({
                "ref": {"type": "ref/prompt", "name": "nope"},
                "argument": {"name": "x", "value": ""}
            }),
        ))
        .await;
    assert_eq!(error_code(&unknown), -32602);
}

// --- subscriptions/listen ---------------------------------------------------------------------

#[tokio::test]
async fn listen_acknowledges_first_with_the_honoured_subset() {
    let mut c = start(probe_on());
    c.send(listen(
        7,
        json!({
            "toolsListChanged": true,
            "promptsListChanged": false,
            "resourceSubscriptions": [README, "mcpspec://nowhere"]
        }),
    ))
    .await;
    let ack = c.recv().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true, "resourceSubscriptions": [README]})
    );
    assert_eq!(*sub_id(&ack), json!(7));
    assert!(ack.get("id").is_none());
    c.expect_silence().await;
}

#[tokio::test]
async fn listen_streams_only_requested_types_tagged_with_the_listen_id() {
    let mut c = start(probe_on());
    c.send(listen(
        "L",
        json!({"toolsListChanged": true, "resourceSubscriptions": [README]}),
    ))
    .await;
    let ack = c.recv().await;
    assert_eq!(*sub_id(&ack), json!("L"));
    // All three list kinds fire; only the tools one was asked for.
    let (before, reply) = exchange(
        &mut c,
        call_tool(1, "mcpspec_trigger_list_changed", json!({})),
    )
    .await;
    assert_eq!(methods(&before), ["notifications/tools/list_changed"]);
    assert_eq!(*sub_id(&before[0]), json!("L"));
    assert_eq!(reply["result"]["structuredContent"]["delivered"], 1);
    // The trigger names the listen request each notification went to.
    assert_eq!(
        reply["result"]["structuredContent"]["listenIds"],
        json!(["L"])
    );
    // resources/updated only for the listed URI.
    let (before, _) = exchange(
        &mut c,
        call_tool(
            2,
            "mcpspec_trigger_resource_updated",
            json!({"uri": README}),
        ),
    )
    .await;
    assert_eq!(methods(&before), ["notifications/resources/updated"]);
    assert_eq!(before[0]["params"]["uri"], README);
    assert_eq!(*sub_id(&before[0]), json!("L"));
    let (before, _) = exchange(
        &mut c,
        call_tool(
            3,
            "mcpspec_trigger_resource_updated",
            json!({"uri": "mcpspec://reference/license"}),
        ),
    )
    .await;
    assert!(before.is_empty(), "{before:?}");
}

#[tokio::test]
async fn listen_id_keeps_its_json_type() {
    let mut c = start(probe_on());
    c.send(listen(5, json!({"promptsListChanged": true}))).await;
    assert_eq!(*sub_id(&c.recv().await), json!(5));
    c.send(listen("5", json!({"promptsListChanged": true})))
        .await;
    assert_eq!(*sub_id(&c.recv().await), json!("5"));
    let (before, _) = exchange(
        &mut c,
        call_tool(
            1,
            "mcpspec_trigger_list_changed",
            json!({"list": "prompts"}),
        ),
    )
    .await;
    let ids: Vec<&Value> = before.iter().map(sub_id).collect();
    assert_eq!(ids, [&json!(5), &json!("5")]);
}

#[tokio::test]
async fn client_cancellation_stops_one_stream_and_not_the_other() {
    let mut c = start(probe_on());
    c.send(listen("a", json!({"toolsListChanged": true}))).await;
    c.recv().await;
    c.send(listen("b", json!({"toolsListChanged": true}))).await;
    c.recv().await;
    c.send(notification(
        "notifications/cancelled",
        json!({"requestId": "a"}),
    ))
    .await;
    let (before, _) = exchange(
        &mut c,
        call_tool(1, "mcpspec_trigger_list_changed", json!({"list": "tools"})),
    )
    .await;
    let ids: Vec<&Value> = before.iter().map(sub_id).collect();
    assert_eq!(ids, [&json!("b")], "{before:?}");
    c.expect_silence().await;
}

#[tokio::test]
async fn server_teardown_is_a_completion_result_never_cancelled() {
    let mut c = start(probe_on());
    c.send(listen(9, json!({"toolsListChanged": true}))).await;
    c.recv().await;
    c.send(call_tool(1, "mcpspec_end_subscriptions", json!({})))
        .await;
    let mut seen = [c.recv().await, c.recv().await];
    seen.sort_by_key(|m| m["id"].to_string());
    assert_eq!(seen[0]["result"]["structuredContent"]["ended"], 1);
    let done = &seen[1];
    assert_eq!(done["id"], 9);
    assert_eq!(done["result"]["resultType"], "complete");
    assert_eq!(
        done["result"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        9
    );
    assert!(done["result"]["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());
    // Ended: triggers reach nobody, and nothing else arrives.
    let (before, _) = exchange(
        &mut c,
        call_tool(2, "mcpspec_trigger_list_changed", json!({})),
    )
    .await;
    assert!(before.is_empty());
    c.expect_silence().await;
}

#[tokio::test]
async fn listen_rejects_a_bad_filter_and_is_modern_only() {
    let mut c = start(config(&[]));
    let reply = c
        .call(modern(
            1,
            "subscriptions/listen",
            json!({"notifications": {"toolsListChanged": "yes"}}),
        ))
        .await;
    assert_eq!(error_code(&reply), -32602);
    let reply = c.call(modern(2, "subscriptions/listen", json!({}))).await;
    assert_eq!(error_code(&reply), -32602);
    let mut legacy = start(config(&[]));
    legacy.initialize("2025-11-25").await;
    let reply = legacy
        .call(request(
            3,
            "subscriptions/listen",
            json!({"notifications": {}}),
        ))
        .await;
    assert_eq!(error_code(&reply), -32601);
}

// --- logging ----------------------------------------------------------------------------------

fn log_level(msg: Value, level: &str) -> Value {
    with_meta(msg, json!({"io.modelcontextprotocol/logLevel": level}))
}

#[tokio::test]
async fn no_log_messages_without_a_level() {
    let mut c = start(probe_on());
    let (before, reply) = exchange(&mut c, call_tool(1, "mcpspec_log_demo", json!({}))).await;
    assert!(before.is_empty(), "{before:?}");
    assert!(reply["result"].is_object());
    c.expect_silence().await;
}

#[tokio::test]
async fn log_messages_at_or_above_the_level_before_the_reply() {
    let mut c = start(probe_on());
    let msg = log_level(call_tool(1, "mcpspec_log_demo", json!({})), "error");
    let (before, reply) = exchange(&mut c, msg).await;
    let levels: Vec<&str> = before
        .iter()
        .map(|m| {
            assert_eq!(m["method"], "notifications/message");
            m["params"]["level"].as_str().unwrap()
        })
        .collect();
    assert_eq!(levels, ["error", "critical", "alert", "emergency"]);
    assert!(
        before
            .iter()
            .all(|m| sub_id(m).is_null() && m.get("id").is_none())
    );
    assert!(reply["result"].is_object());
    c.expect_silence().await;
    // Any modern request logs `debug` on entry and `info` when done.
    let (before, _) = exchange(
        &mut c,
        log_level(modern(2, "tools/list", json!({})), "debug"),
    )
    .await;
    let levels: Vec<&str> = before
        .iter()
        .map(|m| m["params"]["level"].as_str().unwrap())
        .collect();
    assert_eq!(levels, ["debug", "info"]);
    let (before, _) = exchange(
        &mut c,
        log_level(modern(3, "tools/list", json!({})), "info"),
    )
    .await;
    assert_eq!(before.len(), 1);
}

#[tokio::test]
async fn an_unknown_log_level_is_32602() {
    let mut c = start(config(&[]));
    for (id, level) in [(1, json!("verbose")), (2, json!(3))] {
        let msg = with_meta(
            modern(id, "tools/list", json!({})),
            json!({"io.modelcontextprotocol/logLevel": level}),
        );
        assert_eq!(error_code(&c.call(msg).await), -32602);
    }
}

// --- progress and cancellation ----------------------------------------------------------------

fn progress_token(msg: Value, token: Value) -> Value {
    with_meta(msg, json!({"progressToken": token}))
}

#[tokio::test]
async fn progress_only_with_a_token_increasing_before_the_reply() {
    let mut c = start(config(&[]));
    let (before, _) = exchange(&mut c, call_tool(1, "add", json!({"a": 1, "b": 2}))).await;
    assert!(before.is_empty());
    let msg = progress_token(call_tool(2, "add", json!({"a": 1, "b": 2})), json!("t-1"));
    let (before, reply) = exchange(&mut c, msg).await;
    assert_eq!(reply["result"]["content"][0]["text"], "3");
    assert_eq!(
        methods(&before),
        ["notifications/progress", "notifications/progress"]
    );
    let progress: Vec<u64> = before
        .iter()
        .map(|m| {
            assert_eq!(m["params"]["progressToken"], "t-1");
            m["params"]["progress"].as_u64().unwrap()
        })
        .collect();
    assert_eq!(progress, [1, 2]);
    c.expect_silence().await;
}

#[tokio::test(start_paused = true)]
async fn the_slow_tool_reports_each_step() {
    let mut c = start(probe_on());
    let msg = progress_token(
        call_tool(1, "mcpspec_slow", json!({"steps": 4, "delay_ms": 50})),
        json!(17),
    );
    let (before, reply) = exchange(&mut c, msg).await;
    let progress: Vec<u64> = before
        .iter()
        .map(|m| m["params"]["progress"].as_u64().unwrap())
        .collect();
    assert_eq!(progress, [1, 2, 3, 4]);
    assert_eq!(before[0]["params"]["progressToken"], 17);
    assert_eq!(reply["result"]["content"][0]["text"], "done after 4 steps");
    c.expect_silence().await;
}

#[tokio::test(start_paused = true)]
async fn a_cancelled_request_is_never_answered() {
    let mut c = start(probe_on());
    c.send(progress_token(
        call_tool(
            "slow",
            "mcpspec_slow",
            json!({"steps": 3, "delay_ms": 1000}),
        ),
        json!("p"),
    ))
    .await;
    c.send(notification(
        "notifications/cancelled",
        json!({"requestId": "slow", "reason": "test"}),
    ))
    .await;
    c.expect_silence().await;
    tokio::time::sleep(std::time::Duration::from_secs(5)).await;
    let reply = c.call(modern(2, "tools/list", json!({}))).await;
    assert_eq!(reply["id"], 2, "nothing for the cancelled request: {reply}");
}

#[tokio::test]
async fn invalid_cancellations_are_ignored() {
    let mut c = start(config(&[]));
    c.call(modern(1, "tools/list", json!({}))).await;
    for params in [
        json!({"requestId": 1}),
        json!({"requestId": "never-sent"}),
        json!({"requestId": {"not": "an id"}}),
        json!({}),
    ] {
        c.send(notification("notifications/cancelled", params))
            .await;
    }
    c.expect_silence().await;
    assert_eq!(c.call(modern(2, "tools/list", json!({}))).await["id"], 2);
}

// --- input-required results (MRTR) ------------------------------------------------------------

fn confirm(id: impl Into<Value>, caps: Value, extra: Value) -> Value {
    let mut msg = with_caps(call_tool(id, "mcpspec_confirm", json!({})), caps);
    for (k, v) in extra.as_object().unwrap() {
        msg["params"][k] = v.clone();
    }
    msg
}

#[tokio::test]
async fn an_undeclared_capability_is_32021_with_an_object() {
    let mut c = start(probe_on());
    let reply = c.call(confirm(1, json!({}), json!({}))).await;
    assert_eq!(error_code(&reply), -32021);
    assert_eq!(
        reply["error"]["data"]["requiredCapabilities"],
        json!({"elicitation": {}})
    );
}

#[tokio::test]
async fn input_required_then_a_retry_completes() {
    let mut c = start(probe_on());
    let caps = json!({"elicitation": {}});
    let first = c.call(confirm(1, caps.clone(), json!({}))).await["result"].clone();
    assert_eq!(first["resultType"], "input_required");
    assert!(first.get("ttlMs").is_none() && first.get("cacheScope").is_none());
    let requests = first["inputRequests"].as_object().unwrap();
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["confirm"]);
    assert_eq!(requests["confirm"]["method"], "elicitation/create");
    assert!(requests["confirm"]["params"]["requestedSchema"].is_object());
    let state = first["requestState"].clone();
    assert!(state.is_string());
    let done = c
        .call(confirm(
            2,
            caps,
            json!({
                "requestState": state,
                "inputResponses": {
                    "confirm": {"action": "accept", "content": {"confirm": true}},
                    "unasked": {"action": "decline"}
                }
            }),
        ))
        .await["result"]
        .clone();
    assert_eq!(done["resultType"], "complete");
    assert_eq!(done["content"][0]["text"], "confirmed");
}

#[tokio::test]
async fn input_requests_follow_the_declared_capabilities() {
    let mut c = start(probe_on());
    let caps = json!({"elicitation": {}, "roots": {}});
    let first = c.call(confirm(1, caps.clone(), json!({}))).await["result"].clone();
    let keys: Vec<&String> = first["inputRequests"].as_object().unwrap().keys().collect();
    assert_eq!(keys, ["confirm", "roots"]);
    assert_eq!(first["inputRequests"]["roots"]["method"], "roots/list");
    // Only one of the two answered: a new InputRequiredResult for the other (MRTR-5).
    let partial = c
        .call(confirm(
            2,
            caps.clone(),
            json!({
                "requestState": first["requestState"],
                "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}
            }),
        ))
        .await["result"]
        .clone();
    assert_eq!(partial["resultType"], "input_required", "{partial}");
    let keys: Vec<&String> = partial["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["roots"]);
    let done = c
        .call(confirm(
            3,
            caps,
            json!({
                "requestState": partial["requestState"],
                "inputResponses": {
                    "confirm": {"action": "decline"},
                    "roots": {"roots": [{"uri": "file:///tmp"}]}
                }
            }),
        ))
        .await["result"]
        .clone();
    assert_eq!(
        done["content"][0]["text"],
        "not confirmed (decline); 1 root(s)"
    );
}

#[tokio::test]
async fn a_tampered_request_state_is_32602() {
    let mut c = start(probe_on());
    let caps = json!({"elicitation": {}});
    let first = c.call(confirm(1, caps.clone(), json!({}))).await["result"].clone();
    let state = first["requestState"].as_str().unwrap();
    let (body, mac) = state.split_once('.').unwrap();
    let forged_body: String = body.replace("31", "32"); // "round":1 -> "round":2
    assert_ne!(forged_body, body);
    let answers = json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    for (id, forged) in [
        (2, format!("{forged_body}.{mac}")),
        (3, format!("{body}.{}", "0".repeat(mac.len()))),
        (4, "not-a-state".to_owned()),
    ] {
        let reply = c
            .call(confirm(
                id,
                caps.clone(),
                json!({"requestState": forged, "inputResponses": answers}),
            ))
            .await;
        assert_eq!(error_code(&reply), -32602, "{reply}");
    }
}

#[tokio::test]
async fn input_required_only_where_allowed() {
    let mut c = start(probe_on());
    let caps = json!({"elicitation": {}, "sampling": {}, "roots": {}});
    for (i, (method, params)) in [
        ("tools/list", json!({})),
        ("prompts/list", json!({})),
        ("resources/list", json!({})),
        ("server/discover", json!({})),
    ]
    .into_iter()
    .enumerate()
    {
        let result = c
            .call(with_caps(modern(i as i64, method, params), caps.clone()))
            .await;
        assert_eq!(result["result"]["resultType"], "complete", "{method}");
    }
}

#[tokio::test]
async fn capabilities_come_from_each_request_only() {
    let mut c = start(probe_on());
    let first = c
        .call(confirm(1, json!({"elicitation": {}}), json!({})))
        .await;
    assert_eq!(first["result"]["resultType"], "input_required");
    let second = c.call(confirm(2, json!({}), json!({}))).await;
    assert_eq!(error_code(&second), -32021, "META-3: {second}");
}

// --- lists and the legacy era -----------------------------------------------------------------

#[tokio::test]
async fn probe_tools_are_listed_only_with_the_probe_profile() {
    let names = |reply: Value| -> Vec<String> {
        reply["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let mut plain = start(config(&[]));
    assert_eq!(
        names(plain.call(modern(1, "tools/list", json!({}))).await),
        ["echo", "add", "showcase"]
    );
    let mut probe = start(probe_on());
    let listed = names(probe.call(modern(1, "tools/list", json!({}))).await);
    assert!(
        listed
            .iter()
            .all(|n| ["echo", "add", "showcase"].contains(&n.as_str()) || n.starts_with("mcpspec_"))
    );
    assert_eq!(listed.len(), 10, "{listed:?}");
    let unknown = plain
        .call(call_tool(2, "mcpspec_trigger_list_changed", json!({})))
        .await;
    assert_eq!(error_code(&unknown), -32602);
}

#[tokio::test]
async fn legacy_keeps_working_with_progress_and_templates() {
    let mut c = start(config(&[]));
    c.initialize("2025-06-18").await;
    let msg = json!({
        "jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "hi"}, "_meta": {"progressToken": "lt"}}
    });
    let (before, reply) = exchange(&mut c, msg).await;
    assert_eq!(reply["result"]["content"][0]["text"], "hi");
    assert!(reply["result"].get("resultType").is_none());
    assert_eq!(
        methods(&before),
        ["notifications/progress", "notifications/progress"]
    );
    let templates = c
        .call(request(6, "resources/templates/list", json!({})))
        .await;
    assert_eq!(
        templates["result"]["resourceTemplates"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let read = c
        .call(request(
            7,
            "resources/read",
            json!({"uri": "mcpspec://nowhere"}),
        ))
        .await;
    assert_eq!(error_code(&read), -32002);
}

#[tokio::test]
async fn fault_free_server_has_no_fault_state_effects() {
    // LIST-1 / LIST-2: tools/list is the same on every call and every connection.
    let mut a = start(config(&[]));
    let mut b = start(config(&[]));
    let one = a.call(modern(1, "tools/list", json!({}))).await["result"]["tools"].clone();
    let two = a.call(modern(2, "tools/list", json!({}))).await["result"]["tools"].clone();
    let other = b.call(modern(1, "tools/list", json!({}))).await["result"]["tools"].clone();
    assert_eq!(one, two);
    assert_eq!(one, other);
}
