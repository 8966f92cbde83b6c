//! Every claim of the middleware docs (crate doc, `middleware`, `probe`), one test each.
use crate::support;

use std::sync::{Arc, Mutex};

use mcp_reference_server::{
    Config, Ctx, Era, Middleware, Next, RpcError, Server, from_fn, middleware::TRACING,
};
use serde_json::{Value, json};
use support::*;

type Log = Arc<Mutex<Vec<String>>>;

fn recorder(name: &'static str, log: Log) -> Middleware {
    from_fn(name, move |ctx: Ctx, next: Next| {
        let log = log.clone();
        async move {
            log.lock().unwrap().push(format!("{name}-in"));
            let outcome = next.run(ctx).await;
            log.lock().unwrap().push(format!("{name}-out"));
            outcome
        }
    })
}

fn probe_on() -> Config {
    Config {
        probe_profile: true,
        ..Config::default()
    }
}

fn probe(id: i64, method: &str, params: Value, directive: Value) -> Value {
    modern_meta(
        id,
        method,
        params,
        json!({ "dev.mcpspec/probe": directive }),
    )
}

async fn probe_log(c: &mut Client, id: i64) -> Vec<Value> {
    let reply = c
        .call(modern(
            id,
            "tools/call",
            json!({"name": "mcpspec_probe_log"}),
        ))
        .await;
    let entries = reply["result"]["structuredContent"]["entries"].clone();
    let text: Value =
        serde_json::from_str(reply["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text["entries"], entries, "text and structuredContent agree");
    entries.as_array().unwrap().clone()
}

#[tokio::test]
async fn order_is_outermost_first() {
    let log = Log::default();
    let server = Server::bare(Config::default())
        .with_middleware(recorder("a", log.clone()))
        .with_middleware(recorder("b", log.clone()));
    let mut c = start_server(server);
    c.call(modern(1, "tools/list", json!({}))).await;
    assert_eq!(*log.lock().unwrap(), ["a-in", "b-in", "b-out", "a-out"]);
}

#[tokio::test]
async fn the_chain_wraps_every_message() {
    let seen = Log::default();
    let s = seen.clone();
    let server = Server::bare(Config::default()).with_middleware(from_fn(
        "seen",
        move |ctx: Ctx, next: Next| {
            let s = s.clone();
            async move {
                s.lock()
                    .unwrap()
                    .push(format!("{} {}", ctx.kind().as_str(), ctx.method));
                next.run(ctx).await
            }
        },
    ));
    let mut c = start_server(server);
    c.call(modern(1, "server/discover", json!({}))).await;
    c.send(notification(
        "notifications/cancelled",
        json!({"requestId": 1}),
    ))
    .await;
    c.call(modern(2, "no/such", json!({}))).await;
    let mut init = initialize(3, "2025-06-18", "t");
    init["params"]["_meta"] = envelope();
    c.call(init).await;
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "request server/discover",
            "notification notifications/cancelled",
            "request no/such",
            "request initialize"
        ]
    );
}

#[tokio::test]
async fn ctx_carries_method_params_id_version_era_and_meta() {
    let captured: Arc<Mutex<Option<Ctx>>> = Arc::default();
    let cap = captured.clone();
    let server = Server::bare(Config::default()).with_middleware(from_fn(
        "cap",
        move |ctx: Ctx, next: Next| {
            let cap = cap.clone();
            async move {
                *cap.lock().unwrap() = Some(ctx.clone());
                next.run(ctx).await
            }
        },
    ));
    let mut c = start_server(server);
    c.call(modern("x", "tools/list", json!({"cursor": "c"})))
        .await;
    let ctx = captured.lock().unwrap().take().unwrap();
    assert_eq!(ctx.method, "tools/list");
    assert_eq!(ctx.params.as_ref().unwrap()["cursor"], "c");
    assert_eq!(ctx.id.as_ref().unwrap().as_json(), &json!("x"));
    assert_eq!(ctx.protocol_version.as_deref(), Some(MODERN));
    assert_eq!(ctx.era, Some(Era::Modern));
    assert!(
        ctx.client_meta
            .unwrap()
            .contains_key("io.modelcontextprotocol/clientCapabilities")
    );
}

#[tokio::test]
async fn refusal_is_the_reply_and_the_connection_stays_up() {
    let server = Server::bare(Config::default()).with_middleware(from_fn(
        "deny",
        |ctx: Ctx, next: Next| async move {
            if ctx.method == "tools/list" {
                return Err(RpcError::new(-32001, "denied").with_data(json!({"why": "test"})));
            }
            next.run(ctx).await
        },
    ));
    let mut c = start_server(server);
    let reply = c.call(modern(1, "tools/list", json!({}))).await;
    assert_eq!(
        reply["error"],
        json!({"code": -32001, "message": "denied", "data": {"why": "test"}})
    );
    assert!(c.call(modern(2, "server/discover", json!({}))).await["result"].is_object());
}

#[tokio::test]
async fn rewrite_reaches_lookup_validation_and_handler() {
    let server = Server::bare(Config::default()).with_middleware(from_fn(
        "rw",
        |mut ctx: Ctx, next: Next| async move {
            if let Some(text) = ctx
                .params
                .as_ref()
                .and_then(|p| p.get("rewrite-to"))
                .cloned()
            {
                ctx.method = "tools/call".into();
                let meta = ctx.params.as_ref().unwrap()["_meta"].clone();
                ctx.params =
                    Some(json!({"_meta": meta, "name": "echo", "arguments": {"text": text}}));
            }
            next.run(ctx).await
        },
    ));
    let mut c = start_server(server);
    // Handler: the rewritten method and params are what ran.
    let reply = c
        .call(modern(1, "no/such", json!({"rewrite-to": "rewritten"})))
        .await;
    assert_eq!(
        reply["result"]["content"][0]["text"], "rewritten",
        "{reply}"
    );
    // Validation: rewritten params that fail the tool's validation give its error result.
    let reply = c.call(modern(2, "no/such", json!({"rewrite-to": 5}))).await;
    assert_eq!(reply["result"]["isError"], true, "{reply}");
}

#[tokio::test]
async fn an_answer_is_sent_verbatim() {
    let server = Server::bare(Config::default())
        .with_middleware(from_fn("ans", |_ctx: Ctx, _next: Next| async move {
            Ok(json!({"custom": true}))
        }));
    let mut c = start_server(server);
    let reply = c.call(modern(1, "tools/list", json!({}))).await;
    assert_eq!(
        reply,
        json!({"jsonrpc": "2.0", "id": 1, "result": {"custom": true}})
    );
}

#[tokio::test]
async fn a_notification_answer_is_discarded() {
    let server = Server::bare(Config::default())
        .with_middleware(from_fn("ans", |_ctx: Ctx, _next: Next| async move {
            Ok(json!({"custom": true}))
        }));
    let mut c = start_server(server);
    c.send(notification("notifications/anything", json!({})))
        .await;
    c.expect_silence().await;
}

#[tokio::test]
async fn handler_errors_flow_back_through_next() {
    let outcomes = Log::default();
    let o = outcomes.clone();
    let server = Server::bare(Config::default()).with_middleware(from_fn(
        "outer",
        move |ctx: Ctx, next: Next| {
            let o = o.clone();
            async move {
                let started = std::time::Instant::now();
                let outcome = next.run(ctx).await;
                let _elapsed = started.elapsed(); // an outer middleware can time failures too
                let code = outcome.as_ref().err().map(|e| e.code);
                o.lock().unwrap().push(format!("{code:?}"));
                outcome
            }
        },
    ));
    let mut c = start_server(server);
    c.call(modern(1, "no/such", json!({}))).await;
    c.call(modern(2, "tools/call", json!({"name": "nope-7f3a"})))
        .await;
    assert_eq!(*outcomes.lock().unwrap(), ["Some(-32601)", "Some(-32602)"]);
}

#[tokio::test]
async fn a_vetoed_initialize_leaves_the_connection_uninitialized() {
    let server = Server::bare(Config::default()).with_middleware(from_fn(
        "veto",
        |ctx: Ctx, next: Next| async move {
            let client = ctx
                .params
                .as_ref()
                .and_then(|p| p["clientInfo"]["name"].as_str().map(str::to_owned));
            let outcome = next.run(ctx).await;
            // Refusing on the way out: the handler ran, but nothing is committed.
            if client.as_deref() == Some("veto-me") {
                return Err(RpcError::new(-32600, "vetoed"));
            }
            outcome
        },
    ));
    let mut c = start_server(server);
    assert_eq!(
        error_code(&c.call(initialize(1, "2025-06-18", "veto-me")).await),
        -32600
    );
    assert_eq!(
        error_code(&c.call(request(2, "tools/list", json!({}))).await),
        -32602
    );
    let ok = c.call(initialize(3, "2025-06-18", "fine")).await;
    assert_eq!(ok["result"]["protocolVersion"], "2025-06-18");
    assert!(c.call(request(4, "tools/list", json!({}))).await["result"].is_object());
}

#[tokio::test]
async fn awaiting_the_client_during_initialize_deadlocks() {
    let server = Server::bare(Config::default()).with_middleware(from_fn(
        "await",
        |ctx: Ctx, next: Next| async move {
            if ctx.method == "initialize" {
                let _ = ctx.client().request("ping", None).await;
            }
            next.run(ctx).await
        },
    ));
    let mut c = start_server(server);
    c.send(initialize(1, "2025-06-18", "t")).await;
    let ping = c.recv().await;
    assert_eq!(ping["method"], "ping");
    // The reply is written but never read: the reader is parked inside `initialize`.
    c.send(json!({"jsonrpc": "2.0", "id": ping["id"], "result": {}}))
        .await;
    c.send(request(2, "ping", json!({}))).await;
    c.expect_silence().await;
}

#[tokio::test]
async fn awaiting_the_client_outside_initialize_is_fine() {
    let server = Server::bare(Config::default()).with_middleware(from_fn(
        "await",
        |ctx: Ctx, next: Next| async move {
            if ctx.method == "tools/list" {
                ctx.client().request("ping", None).await?;
            }
            next.run(ctx).await
        },
    ));
    let mut c = start_server(server);
    c.initialize("2025-06-18").await;
    c.send(request(2, "tools/list", json!({}))).await;
    let ping = c.recv().await;
    assert_eq!(ping["method"], "ping");
    c.send(json!({"jsonrpc": "2.0", "id": ping["id"], "result": {}}))
        .await;
    assert!(c.recv().await["result"]["tools"].is_array());
}

#[tokio::test]
async fn tracing_is_on_the_default_list_and_removable() {
    let mut server = Server::new(Config::default());
    assert_eq!(server.middleware()[0].name(), TRACING);
    server.middleware_mut().retain(|m| m.name() != TRACING);
    assert!(server.middleware().is_empty());
    let mut c = start_server(server);
    assert!(c.call(modern(1, "tools/list", json!({}))).await["result"].is_object());
    let probed = Server::new(probe_on());
    let names: Vec<&str> = probed.middleware().iter().map(Middleware::name).collect();
    assert_eq!(names, [TRACING, "probe"]);
}

// --- the probe profile -----------------------------------------------------------------------

#[tokio::test]
async fn probe_tool_is_listed_only_with_the_profile() {
    let tools = |reply: Value| -> Vec<String> {
        reply["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let mut c = start(Config::default());
    assert_eq!(
        tools(c.call(modern(1, "tools/list", json!({}))).await),
        ["echo", "add", "showcase"]
    );
    let no_tool = c
        .call(modern(
            2,
            "tools/call",
            json!({"name": "mcpspec_probe_log"}),
        ))
        .await;
    assert_eq!(error_code(&no_tool), -32602);
    let mut c = start(probe_on());
    assert_eq!(
        tools(c.call(modern(1, "tools/list", json!({}))).await)[..4],
        ["echo", "add", "showcase", "mcpspec_probe_log"]
    );
}

#[tokio::test]
async fn probe_observes_every_message_with_its_outcome() {
    let mut c = start(probe_on());
    c.call(modern(1, "server/discover", json!({}))).await;
    c.send(notification(
        "notifications/cancelled",
        json!({"requestId": 1}),
    ))
    .await;
    c.call(modern(2, "no/such", json!({}))).await;
    c.call(modern("s", "tools/call", json!({"name": "nope-7f3a"})))
        .await;
    let log = probe_log(&mut c, 3).await;
    assert_eq!(
        log,
        [
            json!({"method": "server/discover", "kind": "request", "id": 1, "outcome": "ok"}),
            json!({"method": "notifications/cancelled", "kind": "notification", "id": null, "outcome": "error -32602"}),
            json!({"method": "no/such", "kind": "request", "id": 2, "outcome": "error -32601"}),
            json!({"method": "tools/call", "kind": "request", "id": "s", "outcome": "error -32602"}),
        ]
    );
}

#[tokio::test]
async fn probe_observes_legacy_initialize() {
    let mut c = start(probe_on());
    c.initialize("2025-06-18").await;
    let reply = c
        .call(request(
            2,
            "tools/call",
            json!({"name": "mcpspec_probe_log"}),
        ))
        .await;
    let entries = reply["result"]["structuredContent"]["entries"].clone();
    assert_eq!(
        entries[0],
        json!({"method": "initialize", "kind": "request", "id": 1, "outcome": "ok"})
    );
    assert_eq!(entries[1]["method"], "notifications/initialized");
}

#[tokio::test]
async fn probe_refuses_exactly_and_keeps_serving() {
    let mut c = start(probe_on());
    let directive = json!({"refuse": {"code": -32042, "message": "nope", "data": {"k": [1]}}});
    let reply = c.call(probe(1, "tools/list", json!({}), directive)).await;
    assert_eq!(
        reply["error"],
        json!({"code": -32042, "message": "nope", "data": {"k": [1]}})
    );
    assert!(c.call(modern(2, "tools/list", json!({}))).await["result"].is_object());
}

#[tokio::test]
async fn probe_rewrites_method_and_params() {
    let mut c = start(probe_on());
    let directive = json!({"rewrite": {"method": "server/discover"}});
    let reply = c.call(probe(1, "tools/list", json!({}), directive)).await;
    assert!(reply["result"]["supportedVersions"].is_array(), "{reply}");
    let directive = json!({"rewrite": {"params": {"arguments": {"text": "from-probe"}}}});
    let call = probe(
        2,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "orig"}}),
        directive,
    );
    assert_eq!(
        c.call(call).await["result"]["content"][0]["text"],
        "from-probe"
    );
    let directive = json!({"rewrite": {"params": {"name": "nope-7f3a"}}});
    let call = probe(
        3,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "x"}}),
        directive,
    );
    assert_eq!(error_code(&c.call(call).await), -32602);
}

#[tokio::test]
async fn probe_answers_verbatim_and_discards_notification_answers() {
    let mut c = start(probe_on());
    let reply = c
        .call(probe(
            1,
            "tools/list",
            json!({}),
            json!({"answer": {"only": "this"}}),
        ))
        .await;
    assert_eq!(reply["result"], json!({"only": "this"}));
    let mut note = probe(0, "notifications/x", json!({}), json!({"answer": {"x": 1}}));
    note.as_object_mut().unwrap().remove("id");
    c.send(note).await;
    c.expect_silence().await;
}

#[tokio::test]
async fn probe_veto_then_success() {
    let mut c = start(probe_on());
    let veto = c
        .call(initialize(1, "2025-06-18", "mcpspec-probe-veto"))
        .await;
    assert_eq!(error_code(&veto), -32600);
    let ok = c.call(initialize(2, "2025-06-18", "mcpspec-probe")).await;
    assert_eq!(ok["result"]["protocolVersion"], "2025-06-18");
}

#[tokio::test]
async fn probe_deadlock_client_deadlocks() {
    let mut c = start(probe_on());
    assert_eq!(
        c.call(request(0, "ping", json!({}))).await["result"],
        json!({})
    );
    c.send(initialize(1, "2025-06-18", "mcpspec-probe-deadlock"))
        .await;
    let ping = c.recv().await;
    assert_eq!(ping["method"], "ping");
    c.send(json!({"jsonrpc": "2.0", "id": ping["id"], "result": {}}))
        .await;
    c.send(request(2, "ping", json!({}))).await;
    c.expect_silence().await;
}

#[tokio::test]
async fn malformed_probe_directives_are_invalid_params() {
    let mut c = start(probe_on());
    for (id, directive) in [
        json!("refuse"),
        json!({"refuse": {"code": "x"}}),
        json!({"explode": {}}),
    ]
    .into_iter()
    .enumerate()
    {
        let reply = c
            .call(probe(id as i64, "tools/list", json!({}), directive))
            .await;
        assert_eq!(error_code(&reply), -32602, "{reply}");
    }
}
