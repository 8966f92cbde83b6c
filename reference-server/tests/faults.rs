//! Every fault does what its doc line says. `demonstrate` matches exhaustively, so a new fault
//! without a demonstration does not compile. Time is paused: the slow faults cost nothing.
#![allow(clippy::unwrap_used)]

mod support;

use mcp_reference_server::{Config, Eras, Fault};
use serde_json::{Value, json};
use support::*;

fn probe_config(faults: &[Fault]) -> Config {
    Config {
        probe_profile: true,
        ..config(faults)
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

async fn modern_client(faults: &[Fault]) -> Client {
    let mut c = start(config(faults));
    let _ = c.call(modern("lock", "tools/list", json!({}))).await;
    c
}

/// Asserts the violation `fault` is documented to cause.
async fn demonstrate(fault: Fault) {
    let f = &[fault];
    match fault {
        Fault::ParseErrorSilent => {
            let mut c = start(config(f));
            c.send_raw("{oops").await;
            c.expect_silence().await;
        }
        Fault::ParseErrorWrongCode => {
            let mut c = start(config(f));
            c.send_raw("{oops").await;
            assert_eq!(error_code(&c.recv().await), -32600);
        }
        Fault::ParseErrorIdZero => {
            let mut c = start(config(f));
            c.send_raw("{oops").await;
            assert_eq!(c.recv().await["id"], 0);
        }
        Fault::ExitOnParseError => {
            let mut c = start(config(f));
            c.send_raw("{oops").await;
            let lines = c.drain().await;
            assert_eq!(lines.len(), 1, "{lines:?}");
            tokio::time::timeout(WAIT, c.task)
                .await
                .unwrap()
                .unwrap()
                .unwrap();
        }
        Fault::InvalidRequestWrongCode => {
            let mut c = start(config(f));
            c.send_raw(r#"{"jsonrpc":"2.0","id":1}"#).await;
            assert_eq!(error_code(&c.recv().await), -32603);
        }
        Fault::AcceptAnyJsonrpcVersion => {
            let mut c = start(config(f));
            let mut msg = modern(1, "tools/list", json!({}));
            msg["jsonrpc"] = json!("1.0");
            assert!(c.call(msg).await["result"].is_object());
        }
        Fault::ProcessBatches => {
            let mut c = modern_client(f).await;
            let batch = json!([
                modern(1, "tools/list", json!({})),
                modern(2, "tools/list", json!({}))
            ]);
            let reply = c.call(batch).await;
            assert_eq!(reply.as_array().map(Vec::len), Some(2), "{reply}");
        }
        Fault::NullIdAnswered => {
            let mut c = start(config(f));
            let reply = c.call(modern(Value::Null, "tools/list", json!({}))).await;
            assert!(reply["result"].is_object(), "{reply}");
        }
        Fault::IdAsNumber => {
            let mut c = start(config(f));
            assert_eq!(c.call(modern("7", "tools/list", json!({}))).await["id"], 7);
        }
        Fault::IdAsString => {
            let mut c = start(config(f));
            assert_eq!(c.call(modern(7, "tools/list", json!({}))).await["id"], "7");
        }
        Fault::ReplyToNotifications => {
            let mut c = start(config(f));
            c.send(notification("notifications/unknown", json!({})))
                .await;
            assert!(c.recv().await["error"].is_object());
        }
        Fault::UnknownMethodWrongCode => unknown_method_code(f, -32600).await,
        Fault::UnknownMethodCode32000 => unknown_method_code(f, -32000).await,
        Fault::UnknownMethodCode32050 => unknown_method_code(f, -32050).await,
        Fault::InvalidParamsInternalError => {
            let mut c = start(config(f));
            let reply = c.call(modern(1, "tools/call", json!({}))).await;
            assert_eq!(error_code(&reply), -32603);
        }
        Fault::WrongJsonrpcVersionOut => {
            let mut c = start(config(f));
            assert_eq!(
                c.call(modern(1, "tools/list", json!({}))).await["jsonrpc"],
                "2"
            );
        }
        Fault::ResultAndError => {
            let mut c = modern_client(f).await;
            let reply = c.call(modern(1, "no/such", json!({}))).await;
            assert!(reply["error"].is_object() && reply.get("result").is_some());
        }
        Fault::StaleReplyId => {
            let mut c = start(config(f));
            assert_eq!(c.call(modern(1, "tools/list", json!({}))).await["id"], 1);
            assert_eq!(c.call(modern(2, "tools/list", json!({}))).await["id"], 1);
        }
        Fault::PrettyPrint => {
            let mut c = start(config(f));
            c.send(modern(1, "tools/list", json!({}))).await;
            assert_eq!(c.recv_line().await, "{\n");
        }
        Fault::LogToStdout => {
            let mut c = start(config(f));
            let line = c.recv_line().await;
            assert!(serde_json::from_str::<Value>(&line).is_err(), "{line}");
        }
        Fault::ModernSendsPing => {
            let mut c = start(config(f));
            c.send(modern(1, "tools/list", json!({}))).await;
            let first = c.recv().await;
            assert_eq!(first["method"], "ping");
            assert!(first["id"].is_string());
            assert!(c.recv().await["result"].is_object());
        }
        Fault::IgnoreEof => {
            let mut c = start(config(f));
            c.close_input();
            let waited =
                tokio::time::timeout(std::time::Duration::from_secs(30), &mut c.task).await;
            assert!(waited.is_err(), "the server stopped at EOF");
        }
        Fault::NoDiscover => {
            let mut c = start(config(f));
            assert_eq!(
                error_code(&c.call(modern(1, "server/discover", json!({}))).await),
                -32601
            );
        }
        Fault::DiscoverBadShape => {
            let r = discover_result(f).await;
            assert!(r.get("supportedVersions").is_none() && r.get("capabilities").is_none());
        }
        Fault::DiscoverNoCacheHints => {
            let r = discover_result(f).await;
            assert!(r.get("ttlMs").is_none() && r.get("cacheScope").is_none());
        }
        Fault::ServerInfoTopLevel => {
            let r = discover_result(f).await;
            assert!(r["serverInfo"].is_object());
            assert!(r["_meta"]["io.modelcontextprotocol/serverInfo"].is_null());
        }
        Fault::DiscoverIgnoresEnvelope => {
            let mut c = start(config(f));
            let reply = c.call(request(1, "server/discover", json!({}))).await;
            assert!(reply["result"].is_object(), "{reply}");
        }
        Fault::NoResultType => {
            assert!(discover_result(f).await.get("resultType").is_none());
        }
        Fault::EnvelopeOptional => {
            let mut c = modern_client(f).await;
            assert!(c.call(request(1, "tools/list", json!({}))).await["result"].is_object());
        }
        Fault::RequireClientInfo => {
            let mut c = start(config(f));
            let mut msg = modern(1, "tools/list", json!({}));
            msg["params"]["_meta"]
                .as_object_mut()
                .unwrap()
                .remove("io.modelcontextprotocol/clientInfo");
            assert_eq!(error_code(&c.call(msg).await), -32602);
        }
        Fault::VersionErrorWrongCode => assert_eq!(error_code(&unknown_version(f).await), -32602),
        Fault::VersionErrorDraftCode => assert_eq!(error_code(&unknown_version(f).await), -32004),
        Fault::VersionErrorBadData => {
            let data = unknown_version(f).await["error"]["data"].clone();
            assert!(data.get("requested").is_none());
            assert!(
                data["supported"]
                    .as_array()
                    .unwrap()
                    .contains(&json!("2099-12-31"))
            );
        }
        Fault::AcceptUnknownVersion => assert!(unknown_version(f).await["result"].is_object()),
        Fault::RequireDiscoverFirst => {
            let mut c = start(config(f));
            assert_eq!(
                error_code(&c.call(modern(1, "tools/list", json!({}))).await),
                -32600
            );
            c.call(modern(2, "server/discover", json!({}))).await;
            assert!(c.call(modern(3, "tools/list", json!({}))).await["result"].is_object());
        }
        Fault::ServeRemovedMethods => {
            let mut c = start(config(f));
            assert!(c.call(modern(1, "ping", json!({}))).await["result"].is_object());
        }
        Fault::ModernInitializeInternalError => {
            let mut c = start(config(f));
            assert_eq!(
                error_code(&c.call(modern(1, "initialize", json!({}))).await),
                -32603
            );
        }
        Fault::UnknownToolAsResult => {
            let mut c = start(config(f));
            let reply = c
                .call(modern(1, "tools/call", json!({"name": "nope-7f3a"})))
                .await;
            assert_eq!(reply["result"]["isError"], true);
        }
        Fault::ToolErrorAsProtocolError => {
            let mut c = start(config(f));
            let reply = c
                .call(modern(
                    1,
                    "tools/call",
                    json!({"name": "add", "arguments": {"a": "x", "b": 1}}),
                ))
                .await;
            assert_eq!(error_code(&reply), -32602);
        }
        Fault::UndeclaredTools => {
            assert!(
                discover_result(f).await["capabilities"]
                    .get("tools")
                    .is_none()
            );
        }
        Fault::InitializeBadShape => {
            let mut c = start(config(f));
            let r = c.call(initialize(1, "2025-06-18", "t")).await["result"].clone();
            assert!(r.get("serverInfo").is_none() && r.get("capabilities").is_none());
        }
        Fault::InitializeWrongVersion => {
            let mut c = start(config(f));
            let r = c.call(initialize(1, "2025-06-18", "t")).await;
            assert_ne!(r["result"]["protocolVersion"], "2025-06-18");
        }
        Fault::InitializeErrorOnUnknownVersion => {
            let mut c = start(config(f));
            let r = c.call(initialize(1, "2099-01-01", "t")).await;
            assert_eq!(error_code(&r), -32602);
            assert!(r["error"]["data"]["supported"].is_array());
        }
        Fault::InitializeInternalErrorOnUnknownVersion => {
            let mut c = start(config(f));
            assert_eq!(
                error_code(&c.call(initialize(1, "2099-01-01", "t")).await),
                -32603
            );
        }
        Fault::ReplyToInitialized => {
            let mut c = start(config(f));
            c.call(initialize(1, "2025-06-18", "t")).await;
            c.send(notification("notifications/initialized", json!({})))
                .await;
            // The reply and the server's own ping, in either order.
            let (a, b) = (c.recv().await, c.recv().await);
            let reply = if a.get("method").is_some() { b } else { a };
            assert!(
                reply.get("result").is_some() && reply["id"].is_null(),
                "{reply}"
            );
        }
        Fault::RootsBeforeInitialized => {
            let mut c = start(config(f));
            c.call(initialize(1, "2025-06-18", "t")).await;
            assert_eq!(c.recv().await["method"], "roots/list");
        }
        Fault::LegacyWrongCapabilities => {
            let mut c = start(config(f));
            let caps = c.initialize("2025-06-18").await["capabilities"].clone();
            assert!(caps["resources"].get("subscribe").is_none());
            let uri = json!({"uri": "mcpspec://reference/readme"});
            assert!(c.call(request(2, "resources/subscribe", uri)).await["result"].is_object());
        }
        Fault::NoPing => {
            let mut c = start(config(f));
            c.initialize("2025-06-18").await;
            assert_eq!(
                error_code(&c.call(request(2, "ping", json!({}))).await),
                -32601
            );
        }
        Fault::AnswerInvalidCancellation => {
            let mut c = start(config(f));
            c.initialize("2025-06-18").await;
            c.send(notification(
                "notifications/cancelled",
                json!({"requestId": 77}),
            ))
            .await;
            assert!(c.recv().await["error"].is_object());
        }
        Fault::ReuseServerRequestIds => {
            let mut c = start(config(f));
            c.call(initialize(1, "2025-06-18", "t")).await;
            c.send(notification("notifications/initialized", json!({})))
                .await;
            let (a, b) = (c.recv().await, c.recv().await);
            assert_eq!(
                (a["method"].as_str(), b["method"].as_str()),
                (Some("ping"), Some("ping"))
            );
            assert_eq!(a["id"], b["id"]);
        }
        Fault::RejectBatches20250326 => {
            let mut c = start(config(f));
            c.initialize("2025-03-26").await;
            let reply = c.call(json!([request(2, "ping", json!({}))])).await;
            assert_eq!(error_code(&reply), -32600);
        }
        Fault::SilentBeforeInitialize => {
            let mut c = start(config(f));
            // The early request is dropped: the next line is the ping's reply.
            c.send(request(1, "tools/list", json!({}))).await;
            let reply = c.call(request(2, "ping", json!({}))).await;
            assert_eq!(reply["id"], json!(2), "{reply}");
        }
        Fault::ModernInitializeNoVersions => {
            let mut c = start(config_eras(f, Eras::Modern));
            let reply = c.call(initialize(1, "2025-06-18", "t")).await;
            assert_eq!(error_code(&reply), -32601);
            assert!(reply["error"].get("data").is_none());
        }
        Fault::DeadlockOnInitialize => {
            let mut c = start(config(f));
            assert_eq!(
                c.call(request(0, "ping", json!({}))).await["result"],
                json!({})
            );
            c.send(initialize(1, "2025-06-18", "t")).await;
            let ping = c.recv().await;
            assert_eq!(ping["method"], "ping");
            c.send(json!({"jsonrpc": "2.0", "id": ping["id"], "result": {}}))
                .await;
            c.send(request(2, "ping", json!({}))).await;
            c.expect_silence().await;
        }
        Fault::SilentDeadlockOnInitialize => {
            let mut c = start(config(f));
            c.send(initialize(1, "2025-06-18", "t")).await;
            c.send(request(2, "ping", json!({}))).await;
            c.expect_silence().await;
        }
        Fault::SlowStart => {
            let mut c = start(config(f));
            c.send(request(1, "ping", json!({}))).await;
            c.expect_silence().await;
            // ... and then it serves (paused time: the 10 s cost nothing).
            let line = c.recv_line_within(std::time::Duration::from_secs(15)).await;
            assert!(line.contains(r#""id":1"#), "{line}");
        }
        Fault::CrashOnInitialize => {
            let mut c = start(config(f));
            c.send(initialize(1, "2025-06-18", "t")).await;
            let result = tokio::time::timeout(WAIT, &mut c.task)
                .await
                .unwrap()
                .unwrap();
            assert!(result.is_err());
        }
        Fault::InitializeNotInline => {
            let mut c = start(probe_config(f));
            c.send(initialize(1, "2025-06-18", "mcpspec-probe-deadlock"))
                .await;
            let ping = c.recv().await;
            assert_eq!(ping["method"], "ping");
            c.send(json!({"jsonrpc": "2.0", "id": ping["id"], "result": {}}))
                .await;
            assert_eq!(c.recv().await["result"]["protocolVersion"], "2025-06-18");
        }
        Fault::ProbeRefuseIgnored => {
            let mut c = start(probe_config(f));
            let directive = json!({"refuse": {"code": -32001, "message": "no"}});
            let reply = c.call(probe(1, "tools/list", json!({}), directive)).await;
            assert!(reply["result"].is_object(), "{reply}");
        }
        Fault::ProbeRefuseCloses => {
            let mut c = start(probe_config(f));
            let directive = json!({"refuse": {"code": -32001, "message": "no"}});
            c.send(probe(1, "tools/list", json!({}), directive)).await;
            c.send(modern(2, "tools/list", json!({}))).await;
            let lines = c.drain().await;
            assert_eq!(lines.len(), 1, "{lines:?}");
        }
        Fault::ProbeRewriteIgnored => {
            let mut c = start(probe_config(f));
            let directive = json!({"rewrite": {"method": "server/discover"}});
            let reply = c.call(probe(1, "tools/list", json!({}), directive)).await;
            assert!(reply["result"]["tools"].is_array(), "{reply}");
        }
        Fault::ProbeAnswerStamped => {
            let mut c = start(probe_config(f));
            let directive = json!({"answer": {"x": 1}});
            let reply = c.call(probe(1, "tools/list", json!({}), directive)).await;
            assert_eq!(reply["result"]["resultType"], "complete");
        }
        Fault::ProbeNotificationAnswered => {
            let mut c = start(probe_config(f));
            let mut note = probe(0, "notifications/x", json!({}), json!({"answer": {"x": 1}}));
            note.as_object_mut().unwrap().remove("id");
            c.send(note).await;
            assert_eq!(c.recv().await["result"], json!({"x": 1}));
        }
        Fault::ProbeLogBlind => {
            let mut c = start(probe_config(f));
            c.send(notification("notifications/x", json!({}))).await;
            c.call(modern(1, "no/such", json!({}))).await;
            let log = probe_log(&mut c, 2).await;
            assert_eq!(
                log,
                json!([{"method": "no/such", "kind": "request", "id": 1, "outcome": "ok"}])
            );
        }
        Fault::VetoCommitsInitialize => {
            let mut c = start(probe_config(f));
            let reply = c
                .call(initialize(1, "2025-06-18", "mcpspec-probe-veto"))
                .await;
            assert!(reply["error"].is_object());
            let again = c.call(initialize(2, "2025-06-18", "t")).await;
            assert_eq!(error_code(&again), -32600, "{again}");
        }
        // Planted bugs for the fuzzer (harness/tests/fuzz_planted.rs finds each one).
        Fault::PanicOnDunderArgument => {
            let mut c = start(config(f));
            let args = json!({"name": "echo", "arguments": {"__proto__": [1]}});
            c.send(modern(1, "tools/call", args)).await;
            assert!(
                c.drain().await.is_empty(),
                "the server died without a reply"
            );
            assert!(c.task.await.unwrap_err().is_panic());
        }
        Fault::ReplyTwice => {
            let mut c = start(config(f));
            let args = json!({"name": "echo", "arguments": {"text": "x"}});
            let first = c.call(modern(1, "tools/call", args)).await;
            assert_eq!(c.recv().await, first);
        }
        Fault::StdoutDebugOnCursor => {
            let mut c = start(config(f));
            c.send(modern(1, "tools/list", json!({"cursor": "abc"})))
                .await;
            assert!(c.recv_line().await.starts_with("debug: "));
        }
        Fault::HangOnNegativeId => {
            let mut c = start(config(f));
            c.send(modern(-1, "tools/list", json!({}))).await;
            c.send(modern(2, "tools/list", json!({}))).await;
            c.expect_silence().await;
        }
    }
}

async fn unknown_method_code(f: &[Fault], code: i64) {
    let mut c = start(config(f));
    assert_eq!(
        error_code(&c.call(modern(1, "no/such", json!({}))).await),
        code
    );
}

async fn discover_result(f: &[Fault]) -> Value {
    let mut c = start(config(f));
    c.call(modern(1, "server/discover", json!({}))).await["result"].clone()
}

async fn unknown_version(f: &[Fault]) -> Value {
    let mut c = start(config(f));
    let mut msg = modern(1, "server/discover", json!({}));
    msg["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    c.call(msg).await
}

pub async fn probe_log(c: &mut Client, id: i64) -> Value {
    let reply = c
        .call(modern(
            id,
            "tools/call",
            json!({"name": "mcpspec_probe_log"}),
        ))
        .await;
    let log = reply["result"]["structuredContent"]["entries"].clone();
    let text: Value =
        serde_json::from_str(reply["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text["entries"], log);
    log
}

#[tokio::test(start_paused = true)]
async fn every_fault_breaks_what_it_names() {
    for &fault in mcp_reference_server::Fault::ALL {
        let run = tokio::spawn(demonstrate(fault));
        if let Err(e) = run.await {
            panic!("fault `{fault}`: {e}");
        }
    }
}

#[test]
fn fault_names_are_unique_kebab_case_and_parse_back() {
    let mut names: Vec<&str> = Fault::ALL.iter().map(|f| f.name()).collect();
    for name in &names {
        assert!(
            name.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        );
        assert_eq!(name.parse::<Fault>().unwrap().name(), *name);
    }
    names.sort_unstable();
    let before = names.len();
    names.dedup();
    assert_eq!(before, names.len());
}
