//! Every fault does what its doc line says. `demonstrate` matches exhaustively, so a new fault
//! without a demonstration does not compile. Time is paused: the slow faults cost nothing.
use crate::support;

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

/// Asserts the violation `fault` is documented to cause (one function per area below).
async fn demonstrate(fault: Fault) {
    match fault {
        Fault::ParseErrorSilent
        | Fault::ParseErrorWrongCode
        | Fault::ParseErrorIdZero
        | Fault::ExitOnParseError
        | Fault::StallOnParseError
        | Fault::InvalidRequestWrongCode
        | Fault::AcceptAnyJsonrpcVersion
        | Fault::ProcessBatches
        | Fault::NullIdAnswered
        | Fault::IdAsNumber
        | Fault::IdAsString
        | Fault::ReplyToNotifications
        | Fault::ResultToInvalidMessage
        | Fault::UnknownMethodWrongCode
        | Fault::UnknownMethodCode32000
        | Fault::UnknownMethodCode32050
        | Fault::InvalidParamsInternalError
        | Fault::WrongJsonrpcVersionOut
        | Fault::ResultAndError
        | Fault::StaleReplyId => demonstrate_jsonrpc(fault).await,
        Fault::PrettyPrint | Fault::LogToStdout | Fault::ModernSendsPing | Fault::IgnoreEof => {
            demonstrate_stdio(fault).await
        }
        Fault::NoDiscover
        | Fault::DiscoverBadShape
        | Fault::DiscoverNoCacheHints
        | Fault::ServerInfoTopLevel
        | Fault::DiscoverIgnoresEnvelope
        | Fault::NoResultType
        | Fault::EnvelopeOptional
        | Fault::EnvelopeLessServedAsModern
        | Fault::EnvelopeLessReadAsLegacy
        | Fault::RequireClientInfo
        | Fault::VersionErrorWrongCode
        | Fault::VersionErrorDraftCode
        | Fault::VersionErrorBadData
        | Fault::AcceptUnknownVersion
        | Fault::VersionPinnedOnFirstUse
        | Fault::RequireDiscoverFirst
        | Fault::ServeRemovedMethods
        | Fault::ModernInitializeInternalError => demonstrate_modern(fault).await,
        Fault::UnknownToolAsResult | Fault::ToolErrorAsProtocolError | Fault::UndeclaredTools => {
            demonstrate_tools(fault).await
        }
        Fault::InitializeBadShape
        | Fault::InitializeWrongVersion
        | Fault::InitializeErrorOnUnknownVersion
        | Fault::InitializeInternalErrorOnUnknownVersion
        | Fault::ReplyToInitialized
        | Fault::RootsBeforeInitialized
        | Fault::LegacyWrongCapabilities
        | Fault::NoPing
        | Fault::AnswerInvalidCancellation
        | Fault::ReuseServerRequestIds
        | Fault::RejectBatches20250326
        | Fault::SilentBeforeInitialize
        | Fault::ModernInitializeNoVersions => demonstrate_legacy(fault).await,
        Fault::DeadlockOnInitialize
        | Fault::SilentDeadlockOnInitialize
        | Fault::SlowStart
        | Fault::CrashOnInitialize
        | Fault::InitializeNotInline => demonstrate_inline_initialize(fault).await,
        Fault::ProbeRefuseIgnored
        | Fault::ProbeRefuseCloses
        | Fault::ProbeRewriteIgnored
        | Fault::ProbeAnswerStamped
        | Fault::ProbeNotificationAnswered
        | Fault::ProbeLogBlind
        | Fault::VetoCommitsInitialize => demonstrate_probe_profile(fault).await,
        Fault::PanicOnDunderArgument
        | Fault::ReplyTwice
        | Fault::StdoutDebugOnCursor
        | Fault::HangOnNegativeId => demonstrate_planted(fault).await,
        Fault::HttpPost405
        | Fault::HttpNoOriginCheck
        | Fault::HttpNoHostCheck
        | Fault::HttpNoBodyLimit
        | Fault::HttpNotification200Body
        | Fault::HttpJsonWrongContentType
        | Fault::HttpVersionHeaderMismatchAccepted
        | Fault::HttpMissingVersionHeaderAccepted
        | Fault::HttpUnknownMethod200
        | Fault::HttpHeaderMismatchAccepted
        | Fault::HttpHeaderErrorWrongCode
        | Fault::HttpMethodHeaderCaseInsensitive
        | Fault::HttpNoBase64Decoding
        | Fault::HttpParamHeaderNotChecked
        | Fault::HttpSseServerRequest
        | Fault::HttpSseNoTerminate
        | Fault::HttpCloseNotCancellation
        | Fault::HttpMintsSessionIdModern
        | Fault::HttpModernGet200
        | Fault::HttpVersionErrorStatus200
        | Fault::HttpLegacyVersionHeaderIgnored
        | Fault::HttpLegacySessionIdInvalidChars
        | Fault::HttpLegacyTerminatedSession200
        | Fault::HttpLegacyGet200Json
        | Fault::HttpLegacyNotification200
        | Fault::HttpLegacyEventIdReused => demonstrate_http(fault).await,
        Fault::ListenNoAck
        | Fault::ListenAckLate
        | Fault::ListenWrongSubscriptionId
        | Fault::ListenIdTypeChanged
        | Fault::ListenUnrequestedTypes
        | Fault::ListenLogOnStream
        | Fault::ListenNoListChanged
        | Fault::ListenNoTeardown
        | Fault::ListenAfterCancel
        | Fault::ListenCancelEndsAll
        | Fault::ListenCancelledByServerForRequest => demonstrate_subscriptions(fault).await,
        Fault::LogWithoutLevel
        | Fault::LogBelowLevel
        | Fault::LogAfterReply
        | Fault::NoLoggingCapability
        | Fault::InvalidLogLevelAccepted => demonstrate_logging(fault).await,
        Fault::ProgressWithoutToken
        | Fault::ProgressNotIncreasing
        | Fault::ProgressAfterReply
        | Fault::ReplyAfterCancel => demonstrate_progress(fault).await,
        Fault::CacheHintsMissingOnList
        | Fault::CacheHintsMissingOnRead
        | Fault::CacheScopeVariesByPage
        | Fault::CacheHintsOnInputRequired
        | Fault::ListVariesPerConnection
        | Fault::ListOrderRandom
        | Fault::ResourceNotFound32002
        | Fault::ResourceNotFoundEmptyContents
        | Fault::InvalidCursorAccepted
        | Fault::UnknownPromptResult
        | Fault::PromptMissingArgumentAccepted
        | Fault::UndeclaredPrompts => demonstrate_lists(fault).await,
        Fault::InputRequiredOnList
        | Fault::InputRequiredNoRequests
        | Fault::InputRequestWrongMethod
        | Fault::InputRequestsUndeclaredCapability
        | Fault::RequestStateNotVerified
        | Fault::MissingInputResponsesError
        | Fault::MissingCapabilityWrongShape
        | Fault::MissingCapabilityWrongCode
        | Fault::CapabilityFromPreviousRequest => demonstrate_mrtr(fault).await,
        Fault::InstanceLocalCursor | Fault::InstanceLocalRequestState | Fault::InstanceDrift => {
            demonstrate_instances(fault).await
        }
        Fault::ToolWithoutInputSchema
        | Fault::InvalidInputSchema
        | Fault::ContentUnknownType
        | Fault::CapabilityWrongType
        | Fault::ServerInfoNoVersion
        | Fault::ErrorWithoutMessage
        | Fault::StructuredOutputMismatch => demonstrate_schema(fault).await,
        Fault::AuthNoChallenge
        | Fault::AuthChallengeNoResourceMetadata
        | Fault::AuthChallengeNoScope
        | Fault::AuthMetadataMissing
        | Fault::AuthResourceMismatch
        | Fault::AuthBadAuthorizationServer
        | Fault::AuthSignatureUnchecked
        | Fault::AuthExpiredAccepted
        | Fault::AuthIssuerUnchecked
        | Fault::AuthSchemeOptional
        | Fault::AuthWrongAudienceAccepted
        | Fault::AuthQueryTokenAccepted
        | Fault::AuthInsufficientScope401
        | Fault::AuthOfflineAccess
        | Fault::AuthRejectsValidToken => demonstrate_auth(fault).await,
        Fault::ToolResultIsErrorString
        | Fault::ToolImageNotBase64
        | Fault::ToolStructuredContentMissing
        | Fault::ResourceListedWithoutName
        | Fault::ResourceListedRelativeUri
        | Fault::ListedResourceUnreadable
        | Fault::ReadContentsWrongUri
        | Fault::ReadBlobNotBase64
        | Fault::ReadMimeTypeChanged
        | Fault::TemplateInvalidUriTemplate
        | Fault::TemplateWithoutName
        | Fault::TemplateReadUnexpandedUri
        | Fault::PromptMessageBadRole
        | Fault::PromptMessageContentArray
        | Fault::ListedPromptFails
        | Fault::CompletionTotalBelowCount
        | Fault::CompletionValuesNotStrings
        | Fault::TemplateCompletionInternalError
        | Fault::ListCursorRepeats
        | Fault::ListPagesOverlap => demonstrate_surface(fault).await,
    }
}

/// The feature surface on its success paths (FEAT-3..8): each fault in the modern era, and
/// the ones a legacy session shares, there too.
async fn demonstrate_surface(fault: Fault) {
    let f = &[fault];
    let showcase = json!({"label": "abc", "count": 1});
    let read = |uri: &str| json!({"uri": uri});
    let mut c = start(config(f));
    match fault {
        Fault::ToolResultIsErrorString => {
            let reply = c.call(tool(1, "echo", json!({"text": "hi"}))).await;
            assert_eq!(reply["result"]["isError"], "false", "{reply}");
        }
        Fault::ToolImageNotBase64 => {
            let reply = c.call(tool(1, "showcase", showcase)).await;
            assert_eq!(
                reply["result"]["content"][1]["data"], "not base64!",
                "{reply}"
            );
            let mut legacy = start(config_eras(f, Eras::Legacy));
            legacy.initialize("2025-11-25").await;
            let call = json!({"name": "showcase", "arguments": {"label": "abc", "count": 1}});
            let reply = legacy.call(request(2, "tools/call", call)).await;
            assert_eq!(
                reply["result"]["content"][1]["data"], "not base64!",
                "{reply}"
            );
        }
        Fault::ToolStructuredContentMissing => {
            let reply = c.call(tool(1, "showcase", showcase)).await;
            assert!(reply["result"]["content"].is_array(), "{reply}");
            assert!(
                reply["result"].get("structuredContent").is_none(),
                "{reply}"
            );
        }
        Fault::ResourceListedWithoutName | Fault::ResourceListedRelativeUri => {
            let listed = c.call(modern(1, "resources/list", json!({}))).await;
            let resources = &listed["result"]["resources"];
            if fault == Fault::ResourceListedWithoutName {
                assert!(resources[1].get("name").is_none(), "{listed}");
            } else {
                let next = json!({"cursor": listed["result"]["nextCursor"]});
                let page = c.call(modern(2, "resources/list", next)).await;
                assert_eq!(page["result"]["resources"][0]["uri"], "license", "{page}");
            }
        }
        Fault::ListedResourceUnreadable => {
            let reply = c
                .call(modern(
                    1,
                    "resources/read",
                    read("mcpspec://reference/license"),
                ))
                .await;
            assert_eq!(error_code(&reply), -32602);
        }
        Fault::ReadContentsWrongUri | Fault::ReadBlobNotBase64 | Fault::ReadMimeTypeChanged => {
            let reply = c
                .call(modern(
                    1,
                    "resources/read",
                    read("mcpspec://reference/logo.png"),
                ))
                .await;
            let item = &reply["result"]["contents"][0];
            match fault {
                Fault::ReadContentsWrongUri => {
                    assert_eq!(item["uri"], "mcpspec://reference/elsewhere", "{reply}")
                }
                Fault::ReadBlobNotBase64 => assert_eq!(item["blob"], "not base64!", "{reply}"),
                _ => assert_eq!(item["mimeType"], "application/octet-stream", "{reply}"),
            }
        }
        Fault::TemplateInvalidUriTemplate | Fault::TemplateWithoutName => {
            let listed = c
                .call(modern(1, "resources/templates/list", json!({})))
                .await;
            let template = &listed["result"]["resourceTemplates"][0];
            if fault == Fault::TemplateWithoutName {
                assert!(template.get("name").is_none(), "{listed}");
            } else {
                assert_eq!(
                    template["uriTemplate"], "mcpspec://reference/notes/{topic",
                    "{listed}"
                );
            }
        }
        Fault::TemplateReadUnexpandedUri => {
            let note = "mcpspec://reference/notes/logging";
            let reply = c.call(modern(1, "resources/read", read(note))).await;
            let uri = &reply["result"]["contents"][0]["uri"];
            assert_eq!(uri, "mcpspec://reference/notes/{topic}", "{reply}");
        }
        Fault::PromptMessageBadRole | Fault::PromptMessageContentArray => {
            let get = json!({"name": "greeting", "arguments": {"name": "Ada"}});
            let reply = c.call(modern(1, "prompts/get", get)).await;
            let message = &reply["result"]["messages"][0];
            if fault == Fault::PromptMessageBadRole {
                assert_eq!(message["role"], "system", "{reply}");
            } else {
                assert!(message["content"].is_array(), "{reply}");
            }
        }
        Fault::ListedPromptFails => {
            let get = json!({"name": "summarize", "arguments": {"text": "t"}});
            let reply = c.call(modern(1, "prompts/get", get)).await;
            assert_eq!(error_code(&reply), -32603);
        }
        Fault::CompletionTotalBelowCount | Fault::CompletionValuesNotStrings => {
            let complete = json!({"ref": {"type": "ref/prompt", "name": "code_review"},
                                  "argument": {"name": "language", "value": ""}});
            let reply = c.call(modern(1, "completion/complete", complete)).await;
            let completion = &reply["result"]["completion"];
            if fault == Fault::CompletionTotalBelowCount {
                assert_eq!(completion["values"].as_array().map(Vec::len), Some(4));
                assert_eq!(completion["total"], 0, "{reply}");
            } else {
                assert!(completion["values"][0].is_number(), "{reply}");
            }
        }
        Fault::TemplateCompletionInternalError => {
            let complete = json!({"ref": {"type": "ref/resource",
                                          "uri": "mcpspec://reference/notes/{topic}"},
                                  "argument": {"name": "topic", "value": ""}});
            let reply = c.call(modern(1, "completion/complete", complete)).await;
            assert_eq!(error_code(&reply), -32603);
        }
        Fault::ListCursorRepeats => {
            let first = c.call(modern(1, "tools/list", json!({}))).await;
            let cursor = first["result"]["nextCursor"].clone();
            assert_eq!(cursor, "mcpspec-page-0", "{first}");
            let again = c
                .call(modern(2, "tools/list", json!({"cursor": cursor})))
                .await;
            assert_eq!(again["result"], first["result"]);
            let mut legacy = start(config_eras(f, Eras::Legacy));
            legacy.initialize("2025-11-25").await;
            let listed = legacy.call(request(2, "prompts/list", json!({}))).await;
            assert_eq!(listed["result"]["nextCursor"], "mcpspec-page-0", "{listed}");
        }
        Fault::ListPagesOverlap => {
            let first = c.call(modern(1, "prompts/list", json!({}))).await;
            let next = json!({"cursor": first["result"]["nextCursor"]});
            let second = c.call(modern(2, "prompts/list", next)).await;
            assert_eq!(
                second["result"]["prompts"][0], first["result"]["prompts"][1],
                "{second}"
            );
        }
        other => unreachable!("not a feature-surface fault: {other:?}"),
    }
}

/// Authorization mode: a test issuer and real sockets, so on a real clock (`support::auth`).
async fn demonstrate_auth(fault: Fault) {
    on_real_clock(support::auth::demonstrate(fault));
}

/// Message shape against the official schema (SCHEMA-1..3).
async fn demonstrate_schema(fault: Fault) {
    let f = &[fault];
    let tools = |reply: Value| reply["result"]["tools"].as_array().unwrap().clone();
    match fault {
        Fault::ToolWithoutInputSchema => {
            let mut c = start(config(f));
            let listed = tools(c.call(modern(1, "tools/list", json!({}))).await);
            assert_eq!(listed[0]["name"], "echo");
            assert!(listed[0].get("inputSchema").is_none());
        }
        Fault::InvalidInputSchema => {
            let mut c = start(config(f));
            let listed = tools(c.call(modern(1, "tools/list", json!({}))).await);
            assert_eq!(listed[1]["inputSchema"]["properties"]["a"]["type"], "numbr");
        }
        Fault::ContentUnknownType => {
            let mut c = start(config(f));
            let reply = c
                .call(modern(
                    1,
                    "tools/call",
                    json!({"name": "echo", "arguments": {"text": "hi"}}),
                ))
                .await;
            assert_eq!(reply["result"]["content"][0]["type"], "txt");
        }
        Fault::CapabilityWrongType => {
            assert!(discover_result(f).await["capabilities"]["tools"].is_array());
            let mut c = start(config(f));
            let init = c.initialize("2025-11-25").await;
            assert!(init["capabilities"]["tools"].is_array());
        }
        Fault::ServerInfoNoVersion => {
            let info = &discover_result(f).await["_meta"]["io.modelcontextprotocol/serverInfo"];
            assert!(info.get("name").is_some() && info.get("version").is_none());
            let mut c = start(config(f));
            let init = c.initialize("2025-11-25").await;
            assert!(init["serverInfo"].get("version").is_none());
        }
        Fault::ErrorWithoutMessage => {
            let mut c = start(config(f));
            let reply = c.call(modern(1, "mcpspec/does-not-exist", json!({}))).await;
            assert_eq!(error_code(&reply), -32601);
            assert!(reply["error"].get("message").is_none());
        }
        Fault::StructuredOutputMismatch => {
            let mut c = start(probe_config(f));
            let listed = tools(c.call(modern(1, "tools/list", json!({}))).await);
            let log = listed
                .iter()
                .find(|t| t["name"] == "mcpspec_probe_log")
                .unwrap();
            assert_eq!(
                log["outputSchema"]["properties"]["entries"]["type"],
                "array"
            );
            let reply = c
                .call(modern(
                    2,
                    "tools/call",
                    json!({"name": "mcpspec_probe_log"}),
                ))
                .await;
            assert!(reply["result"]["structuredContent"]["entries"].is_object());
        }
        other => unreachable!("not a schema fault: {other:?}"),
    }
}

/// JSON-RPC: parse errors, invalid requests, batches, ids, notifications, error codes.
async fn demonstrate_jsonrpc(fault: Fault) {
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
        Fault::StallOnParseError => {
            // Nothing for the invalid JSON, and a request after it is never read.
            let mut c = start(config(f));
            c.send_raw("{oops").await;
            c.send(modern(2, "tools/list", json!({}))).await;
            c.expect_silence().await;
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
        Fault::ResultToInvalidMessage => {
            let mut c = start(config(f));
            c.send_raw(r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":"oops"}"#)
                .await;
            let reply = c.recv().await;
            assert!(
                reply["result"].is_object() && reply["id"].is_null(),
                "{reply}"
            );
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
        other => unreachable!("not a jsonrpc fault: {other:?}"),
    }
}

/// Stdio framing and the stream: one line per message, nothing but MCP on stdout, EOF.
async fn demonstrate_stdio(fault: Fault) {
    let f = &[fault];
    match fault {
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
        other => unreachable!("not a stdio fault: {other:?}"),
    }
}

/// The modern era: `server/discover`, the `_meta` envelope, version errors, removed methods.
async fn demonstrate_modern(fault: Fault) {
    let f = &[fault];
    match fault {
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
        Fault::EnvelopeLessServedAsModern => {
            // The first request, without `_meta`, on a dual-era connection: served, stamped.
            let mut c = start(config(f));
            let reply = c.call(request(1, "tools/list", json!({}))).await;
            assert!(reply["result"]["tools"].is_array(), "{reply}");
            assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
        }
        Fault::EnvelopeLessReadAsLegacy => {
            // `server/discover` too: the request is read as legacy, before `initialize`.
            for method in ["server/discover", "tools/list"] {
                let mut c = start(config(f));
                let reply = c.call(request(1, method, json!({}))).await;
                assert_eq!(error_code(&reply), -32600, "{reply}");
                assert!(
                    reply["error"]["message"]
                        .as_str()
                        .unwrap()
                        .contains("not initialized"),
                    "{reply}"
                );
            }
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
        Fault::VersionPinnedOnFirstUse => {
            // Fresh: -32022. After one request naming 2026-07-28: served.
            assert_eq!(error_code(&unknown_version(f).await), -32022);
            let mut c = start(config(f));
            assert!(c.call(modern(1, "server/discover", json!({}))).await["result"].is_object());
            let mut msg = modern(2, "server/discover", json!({}));
            msg["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
            assert!(c.call(msg).await["result"].is_object());
        }
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
        other => unreachable!("not a modern fault: {other:?}"),
    }
}

/// Tools: unknown tools, tool errors, the undeclared capability.
async fn demonstrate_tools(fault: Fault) {
    let f = &[fault];
    match fault {
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
        other => unreachable!("not a tools fault: {other:?}"),
    }
}

/// The legacy era: the `initialize` handshake, server->client requests, batches, era locks.
async fn demonstrate_legacy(fault: Fault) {
    let f = &[fault];
    match fault {
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
        other => unreachable!("not a legacy fault: {other:?}"),
    }
}

/// Inline `initialize`: deadlocks, slow starts, crashes.
async fn demonstrate_inline_initialize(fault: Fault) {
    let f = &[fault];
    match fault {
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
        other => unreachable!("not a inline_initialize fault: {other:?}"),
    }
}

/// The probe profile: the four middleware powers and the probe log.
async fn demonstrate_probe_profile(fault: Fault) {
    let f = &[fault];
    match fault {
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
        other => unreachable!("not a probe_profile fault: {other:?}"),
    }
}

/// Planted bugs for the fuzzer (cli/tests/testsuite/fuzz_planted.rs finds each one).
async fn demonstrate_planted(fault: Fault) {
    let f = &[fault];
    match fault {
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
        other => unreachable!("not a planted fault: {other:?}"),
    }
}

/// Streamable HTTP: real sockets, so on a real clock (see `on_real_clock`).
async fn demonstrate_http(fault: Fault) {
    on_real_clock(http_faults::demonstrate(fault));
}

/// `subscriptions/listen` (2026-07-28).
async fn demonstrate_subscriptions(fault: Fault) {
    let f = &[fault];
    match fault {
        Fault::ListenNoAck => {
            let mut c = start(probe_config(f));
            c.send(listen(1, json!({"toolsListChanged": true}))).await;
            c.expect_silence().await;
        }
        Fault::ListenAckLate => {
            let mut c = start(probe_config(f));
            c.send(listen(1, json!({"toolsListChanged": true}))).await;
            c.expect_silence().await;
            c.send(tool(2, "mcpspec_trigger_list_changed", json!({})))
                .await;
            let first = c.recv().await;
            assert_eq!(first["method"], "notifications/tools/list_changed");
            assert_eq!(
                c.recv().await["method"],
                "notifications/subscriptions/acknowledged"
            );
        }
        Fault::ListenWrongSubscriptionId => {
            let (ack, before) = listen_then_trigger(f, json!({"toolsListChanged": true})).await;
            assert_eq!(sub_id(&ack), json!(1));
            assert_eq!(sub_id(&before[0]), json!("sub-1"));
        }
        Fault::ListenIdTypeChanged => {
            let (ack, before) = listen_then_trigger(f, json!({"toolsListChanged": true})).await;
            assert_eq!(sub_id(&ack), json!("1"));
            assert_eq!(sub_id(&before[0]), json!("1"));
        }
        Fault::ListenUnrequestedTypes => {
            let (_, before) = listen_then_trigger(f, json!({"toolsListChanged": true})).await;
            assert_eq!(before.len(), 3, "{before:?}");
        }
        Fault::ListenLogOnStream => {
            let mut c = start(probe_config(f));
            c.send(listen(1, json!({}))).await;
            c.recv().await;
            let log = c.recv().await;
            assert_eq!(log["method"], "notifications/message");
            assert_eq!(sub_id(&log), json!(1));
        }
        Fault::ListenNoListChanged => {
            let (ack, before) = listen_then_trigger(f, json!({"toolsListChanged": true})).await;
            assert_eq!(ack["params"]["notifications"]["toolsListChanged"], true);
            assert!(before.is_empty());
        }
        Fault::ListenNoTeardown => {
            let mut c = start(probe_config(f));
            c.send(listen(1, json!({}))).await;
            c.recv().await;
            let ended = c
                .call(tool(2, "mcpspec_end_subscriptions", json!({})))
                .await;
            assert_eq!(ended["result"]["structuredContent"]["ended"], 1);
            c.expect_silence().await;
        }
        Fault::ListenAfterCancel => {
            let mut c = start(probe_config(f));
            c.send(listen(1, json!({"toolsListChanged": true}))).await;
            c.recv().await;
            c.send(notification(
                "notifications/cancelled",
                json!({"requestId": 1}),
            ))
            .await;
            let (before, _) =
                exchange(&mut c, tool(2, "mcpspec_trigger_list_changed", json!({}))).await;
            assert_eq!(before.len(), 1, "{before:?}");
        }
        Fault::ListenCancelEndsAll => {
            let mut c = start(probe_config(f));
            for id in [1, 2] {
                c.send(listen(id, json!({"toolsListChanged": true}))).await;
                c.recv().await;
            }
            c.send(notification(
                "notifications/cancelled",
                json!({"requestId": 1}),
            ))
            .await;
            // Stream 2 was not cancelled, but it is gone too: the trigger reaches no stream.
            let (before, reply) =
                exchange(&mut c, tool(3, "mcpspec_trigger_list_changed", json!({}))).await;
            assert!(before.is_empty(), "{before:?}");
            assert_eq!(reply["result"]["structuredContent"]["delivered"], 0);
        }
        Fault::ListenCancelledByServerForRequest => {
            let mut c = start(config(f));
            let (before, reply) = exchange(&mut c, tool(3, "echo", json!({"text": "x"}))).await;
            assert_eq!(before[0]["method"], "notifications/cancelled");
            assert_eq!(before[0]["params"]["requestId"], 3);
            assert!(reply["result"].is_object());
        }
        other => unreachable!("not a subscriptions fault: {other:?}"),
    }
}

/// Logging (2026-07-28): the request's `logLevel`.
async fn demonstrate_logging(fault: Fault) {
    let f = &[fault];
    match fault {
        Fault::LogWithoutLevel => {
            let mut c = start(config(f));
            let (before, _) = exchange(&mut c, modern(1, "tools/list", json!({}))).await;
            assert_eq!(before[0]["method"], "notifications/message");
        }
        Fault::LogBelowLevel => {
            let mut c = start(config(f));
            let msg = with_log_level(modern(1, "tools/list", json!({})), "error");
            let (before, _) = exchange(&mut c, msg).await;
            assert_eq!(before[0]["params"]["level"], "debug");
        }
        Fault::LogAfterReply => {
            let mut c = start(config(f));
            let msg = with_log_level(modern(1, "tools/list", json!({})), "info");
            let (before, _) = exchange(&mut c, msg).await;
            assert_eq!(before.len(), 1);
            assert_eq!(c.recv().await["method"], "notifications/message");
        }
        Fault::NoLoggingCapability => {
            assert!(
                discover_result(f).await["capabilities"]
                    .get("logging")
                    .is_none()
            );
            let mut c = start(config(f));
            let msg = with_log_level(modern(1, "tools/list", json!({})), "debug");
            let (before, _) = exchange(&mut c, msg).await;
            assert_eq!(before.len(), 2);
        }
        Fault::InvalidLogLevelAccepted => {
            let mut c = start(config(f));
            let msg = with_log_level(modern(1, "tools/list", json!({})), "verbose");
            assert!(c.call(msg).await["result"].is_object());
        }
        other => unreachable!("not a logging fault: {other:?}"),
    }
}

/// Progress and cancellation (2026-07-28).
async fn demonstrate_progress(fault: Fault) {
    let f = &[fault];
    match fault {
        Fault::ProgressWithoutToken => {
            let mut c = start(config(f));
            let (before, _) = exchange(&mut c, tool(1, "add", json!({"a": 1, "b": 1}))).await;
            assert_eq!(before[0]["method"], "notifications/progress");
        }
        Fault::ProgressNotIncreasing => {
            let mut c = start(config(f));
            let msg = with_progress(tool(1, "add", json!({"a": 1, "b": 1})));
            let (before, _) = exchange(&mut c, msg).await;
            assert_eq!(
                before[0]["params"]["progress"],
                before[1]["params"]["progress"]
            );
        }
        Fault::ProgressAfterReply => {
            let mut c = start(config(f));
            let msg = with_progress(tool(1, "add", json!({"a": 1, "b": 1})));
            let (before, _) = exchange(&mut c, msg).await;
            assert_eq!(before.len(), 2);
            assert_eq!(c.recv().await["method"], "notifications/progress");
        }
        Fault::ReplyAfterCancel => {
            let mut c = start(probe_config(f));
            c.send(tool(
                1,
                "mcpspec_slow",
                json!({"steps": 2, "delay_ms": 100}),
            ))
            .await;
            c.send(notification(
                "notifications/cancelled",
                json!({"requestId": 1}),
            ))
            .await;
            assert_eq!(c.recv().await["id"], 1);
        }
        other => unreachable!("not a progress fault: {other:?}"),
    }
}

/// Lists, cache hints, resources and prompts (2026-07-28).
async fn demonstrate_lists(fault: Fault) {
    let f = &[fault];
    match fault {
        Fault::CacheHintsMissingOnList => {
            let mut c = start(config(f));
            let result = c.call(modern(1, "prompts/list", json!({}))).await["result"].clone();
            assert!(result.get("ttlMs").is_none() && result.get("cacheScope").is_none());
        }
        Fault::CacheHintsMissingOnRead => {
            let mut c = start(config(f));
            let read = json!({"uri": "mcpspec://reference/readme"});
            let result = c.call(modern(1, "resources/read", read)).await["result"].clone();
            assert!(result.get("ttlMs").is_none() && result.get("cacheScope").is_none());
        }
        Fault::CacheScopeVariesByPage => {
            let mut c = start(config(f));
            let first = c.call(modern(1, "resources/list", json!({}))).await["result"].clone();
            let cursor = first["nextCursor"].clone();
            let second = c
                .call(modern(2, "resources/list", json!({"cursor": cursor})))
                .await["result"]
                .clone();
            assert_ne!(first["cacheScope"], second["cacheScope"]);
        }
        Fault::CacheHintsOnInputRequired => {
            let mut c = start(probe_config(f));
            let result = c.call(confirm(1, json!({"elicitation": {}}))).await["result"].clone();
            assert_eq!(result["resultType"], "input_required");
            assert!(result.get("ttlMs").is_some());
        }
        Fault::ListVariesPerConnection => {
            let mut a = start(config(f));
            let mut b = start(config(f));
            let one = a.call(modern(1, "tools/list", json!({}))).await["result"]["tools"].clone();
            let two = b.call(modern(1, "tools/list", json!({}))).await["result"]["tools"].clone();
            assert_ne!(one, two);
        }
        Fault::ListOrderRandom => {
            let mut c = start(config(f));
            let one = c.call(modern(1, "tools/list", json!({}))).await["result"]["tools"].clone();
            let two = c.call(modern(2, "tools/list", json!({}))).await["result"]["tools"].clone();
            assert_ne!(one, two);
        }
        Fault::ResourceNotFound32002 => {
            let mut c = start(config(f));
            let reply = c
                .call(modern(1, "resources/read", json!({"uri": "x:nope"})))
                .await;
            assert_eq!(error_code(&reply), -32002);
        }
        Fault::ResourceNotFoundEmptyContents => {
            let mut c = start(config(f));
            let reply = c
                .call(modern(1, "resources/read", json!({"uri": "x:nope"})))
                .await;
            assert_eq!(reply["result"]["contents"], json!([]));
        }
        Fault::InvalidCursorAccepted => {
            let mut c = start(config(f));
            let reply = c
                .call(modern(1, "prompts/list", json!({"cursor": "bogus"})))
                .await;
            assert!(reply["result"]["prompts"].is_array());
        }
        Fault::UnknownPromptResult => {
            let mut c = start(config(f));
            let reply = c
                .call(modern(1, "prompts/get", json!({"name": "nope"})))
                .await;
            assert_eq!(reply["result"]["messages"], json!([]));
        }
        Fault::PromptMissingArgumentAccepted => {
            let mut c = start(config(f));
            let reply = c
                .call(modern(1, "prompts/get", json!({"name": "greeting"})))
                .await;
            assert!(reply["result"]["messages"].is_array());
        }
        Fault::UndeclaredPrompts => {
            assert!(
                discover_result(f).await["capabilities"]
                    .get("prompts")
                    .is_none()
            );
            let mut c = start(config(f));
            assert!(c.call(modern(1, "prompts/list", json!({}))).await["result"].is_object());
        }
        other => unreachable!("not a lists fault: {other:?}"),
    }
}

/// Input-required results (MRTR, 2026-07-28).
async fn demonstrate_mrtr(fault: Fault) {
    let f = &[fault];
    match fault {
        Fault::InputRequiredOnList => {
            let mut c = start(config(f));
            let reply = c.call(modern(1, "tools/list", json!({}))).await;
            assert_eq!(reply["result"]["resultType"], "input_required");
        }
        Fault::InputRequiredNoRequests => {
            let mut c = start(probe_config(f));
            let result = c.call(confirm(1, json!({"elicitation": {}}))).await["result"].clone();
            assert_eq!(result["resultType"], "input_required");
            assert!(result.get("inputRequests").is_none() && result.get("requestState").is_none());
        }
        Fault::InputRequestWrongMethod => {
            let mut c = start(probe_config(f));
            let result = c.call(confirm(1, json!({"elicitation": {}}))).await["result"].clone();
            assert_eq!(
                result["inputRequests"]["confirm"]["method"],
                "elicitation/ask"
            );
        }
        Fault::InputRequestsUndeclaredCapability => {
            let mut c = start(probe_config(f));
            let result = c.call(confirm(1, json!({}))).await["result"].clone();
            assert_eq!(
                result["inputRequests"]["confirm"]["method"],
                "elicitation/create"
            );
        }
        Fault::RequestStateNotVerified => {
            let mut c = start(probe_config(f));
            let caps = json!({"elicitation": {}});
            let first = c.call(confirm(1, caps.clone())).await["result"].clone();
            let state = first["requestState"].as_str().unwrap();
            let (body, mac) = state.split_once('.').unwrap();
            let forged = format!("{body}.{}", "0".repeat(mac.len()));
            let mut retry = confirm(2, caps);
            retry["params"]["requestState"] = json!(forged);
            retry["params"]["inputResponses"] = json!({"confirm": {"action": "cancel"}});
            assert!(c.call(retry).await["result"]["content"].is_array());
        }
        Fault::MissingInputResponsesError => {
            let mut c = start(probe_config(f));
            let caps = json!({"elicitation": {}, "roots": {}});
            let mut retry = confirm(1, caps);
            retry["params"]["inputResponses"] = json!({"confirm": {"action": "cancel"}});
            assert_eq!(error_code(&c.call(retry).await), -32602);
        }
        Fault::MissingCapabilityWrongShape => {
            let mut c = start(probe_config(f));
            let reply = c.call(confirm(1, json!({}))).await;
            assert_eq!(error_code(&reply), -32021);
            assert!(reply["error"]["data"]["requiredCapabilities"].is_array());
        }
        Fault::MissingCapabilityWrongCode => {
            let mut c = start(probe_config(f));
            assert_eq!(error_code(&c.call(confirm(1, json!({}))).await), -32602);
        }
        Fault::CapabilityFromPreviousRequest => {
            let mut c = start(probe_config(f));
            c.call(confirm(1, json!({"elicitation": {}}))).await;
            let second = c.call(confirm(2, json!({}))).await;
            assert_eq!(second["result"]["resultType"], "input_required");
        }
        other => unreachable!("not a mrtr fault: {other:?}"),
    }
}

/// Several instances of one deployment (SCALE-1, SCALE-2): every `start` is a new instance, as
/// a new process is.
async fn demonstrate_instances(fault: Fault) {
    let f = &[fault];
    match fault {
        Fault::InstanceLocalCursor => {
            let (mut a, mut b) = (start(config(f)), start(config(f)));
            let first = a.call(modern(1, "prompts/list", json!({}))).await;
            let next = json!({ "cursor": first["result"]["nextCursor"].clone() });
            assert!(a.call(modern(2, "prompts/list", next.clone())).await["result"].is_object());
            assert_eq!(
                error_code(&b.call(modern(2, "prompts/list", next)).await),
                -32602
            );
        }
        Fault::InstanceLocalRequestState => {
            let (mut a, mut b) = (start(probe_config(f)), start(probe_config(f)));
            let caps = json!({"elicitation": {}});
            let first = a.call(confirm(1, caps.clone())).await["result"].clone();
            let mut retry = confirm(2, caps);
            retry["params"]["requestState"] = first["requestState"].clone();
            retry["params"]["inputResponses"] = json!({"confirm": {"action": "cancel"}});
            assert!(a.call(retry.clone()).await["result"]["content"].is_array());
            assert_eq!(error_code(&b.call(retry).await), -32602);
        }
        Fault::InstanceDrift => {
            let (a, b) = (discover_result(f).await, discover_result(f).await);
            assert_ne!(a["capabilities"], b["capabilities"]);
            assert_ne!(a["ttlMs"], json!(60_000));
        }
        other => unreachable!("not an instance fault: {other:?}"),
    }
}

/// Without a fault, instances are interchangeable (SCALE-1, SCALE-2): a cursor and a
/// `requestState` one issued continue on another, and both describe themselves alike.
#[tokio::test(start_paused = true)]
async fn instances_continue_each_others_flows() {
    let (mut a, mut b) = (start(probe_config(&[])), start(probe_config(&[])));
    let first = a.call(modern(1, "prompts/list", json!({}))).await;
    let next = json!({ "cursor": first["result"]["nextCursor"].clone() });
    assert!(b.call(modern(2, "prompts/list", next)).await["result"]["prompts"].is_array());
    let caps = json!({"elicitation": {}});
    let input = a.call(confirm(3, caps.clone())).await["result"].clone();
    let mut retry = confirm(4, caps);
    retry["params"]["requestState"] = input["requestState"].clone();
    retry["params"]["inputResponses"] =
        json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    assert!(b.call(retry).await["result"]["content"].is_array());
    assert_eq!(discover_result(&[]).await, discover_result(&[]).await);
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

// --- helpers for the 2026-07-28 feature faults ------------------------------------------------

fn tool(id: i64, name: &str, arguments: Value) -> Value {
    modern(
        id,
        "tools/call",
        json!({"name": name, "arguments": arguments}),
    )
}

fn listen(id: i64, filter: Value) -> Value {
    modern(id, "subscriptions/listen", json!({"notifications": filter}))
}

fn sub_id(msg: &Value) -> Value {
    msg["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"].clone()
}

fn with_log_level(mut msg: Value, level: &str) -> Value {
    msg["params"]["_meta"]["io.modelcontextprotocol/logLevel"] = json!(level);
    msg
}

fn with_progress(mut msg: Value) -> Value {
    msg["params"]["_meta"]["progressToken"] = json!("t");
    msg
}

/// `mcpspec_confirm` declaring `caps`.
fn confirm(id: i64, caps: Value) -> Value {
    let mut msg = tool(id, "mcpspec_confirm", json!({}));
    msg["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"] = caps;
    msg
}

/// Sends `msg`, reads until its reply: the messages before it and the reply.
async fn exchange(c: &mut Client, msg: Value) -> (Vec<Value>, Value) {
    let id = msg["id"].clone();
    c.send(msg).await;
    let mut before = Vec::new();
    loop {
        let m = c.recv().await;
        if m.get("method").is_none() && m["id"] == id {
            return (before, m);
        }
        before.push(m);
    }
}

/// Listen (id 1) with `filter`, then fire every list_changed: the ack and what preceded the
/// trigger's reply.
async fn listen_then_trigger(f: &[Fault], filter: Value) -> (Value, Vec<Value>) {
    let mut c = start(probe_config(f));
    c.send(listen(1, filter)).await;
    let ack = c.recv().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    let (before, _) = exchange(&mut c, tool(2, "mcpspec_trigger_list_changed", json!({}))).await;
    (ack, before)
}

/// Runs `work` on its own thread and runtime with a real clock: the demonstrations above run
/// with time paused, which would fire every timeout while a socket is being read.
fn on_real_clock(work: impl std::future::Future<Output = ()> + Send + 'static) {
    let thread = std::thread::spawn(move || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
            .block_on(work)
    });
    if let Err(panic) = thread.join() {
        std::panic::resume_unwind(panic);
    }
}

/// The streamable HTTP faults, each shown over a socket.
mod http_faults {
    use std::sync::Arc;
    use std::sync::atomic::Ordering;
    use std::time::Duration;

    use mcp_reference_server::{Config, Eras, Fault, HttpOptions};
    use serde_json::json;

    use crate::support::http::*;
    use crate::support::*;

    fn list() -> Req {
        Req::modern(&modern(1, "tools/list", json!({})))
    }

    pub async fn demonstrate(fault: Fault) {
        let f = &[fault];
        let server = start_http(config(f)).await;
        let addr = server.local_addr();
        match fault {
            Fault::HttpPost405 => assert_eq!(send(addr, &list()).await.status, 405),
            Fault::HttpNoOriginCheck => {
                let reply = send(addr, &list().header("Origin", "http://evil.test")).await;
                assert_eq!(reply.status, 200);
            }
            Fault::HttpNoHostCheck => {
                let reply = send(addr, &list().set("Host", "evil.test")).await;
                assert_eq!(reply.status, 200);
            }
            Fault::HttpNoBodyLimit => {
                let small = Config {
                    http: HttpOptions {
                        max_body: 64,
                        ..HttpOptions::default()
                    },
                    ..config(f)
                };
                let server = start_http(small).await;
                assert_eq!(send(server.local_addr(), &list()).await.status, 200);
            }
            Fault::HttpNotification200Body => {
                let mut note = notification("notifications/cancelled", json!({"requestId": 1}));
                note["params"]["_meta"] = envelope();
                let reply = send(addr, &Req::modern(&note)).await;
                assert_eq!((reply.status, reply.text().as_str()), (200, "{}"));
            }
            Fault::HttpJsonWrongContentType => {
                assert_eq!(send(addr, &list()).await.content_type(), "text/plain");
            }
            Fault::HttpVersionHeaderMismatchAccepted => {
                // A header version no era serves (POL-26), with a 2026-07-28 body: served.
                let req = list().set("MCP-Protocol-Version", "2099-01-01");
                assert_eq!(send(addr, &req).await.status, 200);
            }
            Fault::HttpMissingVersionHeaderAccepted => {
                let req = list().without("MCP-Protocol-Version");
                assert_eq!(send(addr, &req).await.status, 200);
            }
            Fault::HttpUnknownMethod200 => {
                let reply = send(addr, &Req::modern(&modern(1, "no/such", json!({})))).await;
                assert_eq!((reply.status, error_code(&reply.json())), (200, -32601));
            }
            Fault::HttpHeaderMismatchAccepted => {
                let req = list().set("Mcp-Method", "tools/call");
                assert_eq!(send(addr, &req).await.status, 200);
            }
            Fault::HttpHeaderErrorWrongCode => {
                let reply = send(addr, &list().without("Mcp-Method")).await;
                assert_eq!((reply.status, error_code(&reply.json())), (400, -32602));
            }
            Fault::HttpMethodHeaderCaseInsensitive => {
                let req = list().set("Mcp-Method", "TOOLS/LIST");
                assert_eq!(send(addr, &req).await.status, 200);
            }
            Fault::HttpNoBase64Decoding => {
                let call = modern(
                    1,
                    "tools/call",
                    json!({"name": "echo", "arguments": {"text": "x"}}),
                );
                let req = Req::modern(&call).set("Mcp-Name", "=?base64?ZWNobw==?=");
                let reply = send(addr, &req).await;
                assert_eq!((reply.status, error_code(&reply.json())), (400, -32020));
            }
            Fault::HttpParamHeaderNotChecked => {
                let with_tool = Config {
                    http: HttpOptions {
                        header_tool: true,
                        ..HttpOptions::default()
                    },
                    ..config(f)
                };
                let server = start_http(with_tool).await;
                let call = modern(
                    1,
                    "tools/call",
                    json!({"name": "route", "arguments": {"region": "eu"}}),
                );
                let reply = send(server.local_addr(), &Req::modern(&call)).await;
                assert_eq!(reply.status, 200, "{}", reply.text());
            }
            Fault::HttpSseServerRequest => {
                let events = send(addr, &list()).await.events();
                assert_eq!(events[0].json()["method"], "ping");
                assert!(events[0].json()["id"].is_string());
            }
            Fault::HttpSseNoTerminate => {
                let mut stream = Stream::open(addr, &list()).await;
                assert!(stream.header("x-accel-buffering").is_none());
                let reply = stream.next_event().await.unwrap();
                assert_eq!(reply.json()["id"], 1);
                let after = stream.next_event_within(Duration::from_millis(300)).await;
                assert!(after.is_none(), "the stream ended: {after:?}");
            }
            Fault::HttpCloseNotCancellation => {
                let slow = Arc::new(Slow::default());
                let server = start_http_server(slow_server(config(f), slow.clone())).await;
                let tcp = async {
                    let mut tcp = tokio::net::TcpStream::connect(server.local_addr())
                        .await
                        .unwrap();
                    tokio::io::AsyncWriteExt::write_all(&mut tcp, &list().bytes())
                        .await
                        .unwrap();
                    tcp
                };
                let tcp = tokio::time::timeout(WAIT, tcp).await.unwrap();
                // Closed once the request is being handled, not after a guessed delay.
                assert!(slow.until(|s| s.started.load(Ordering::SeqCst)).await);
                drop(tcp);
                assert_eq!(slow.settled().await, (true, false), "(finished, cancelled)");
            }
            Fault::HttpMintsSessionIdModern => {
                assert!(send(addr, &list()).await.header("mcp-session-id").is_some());
            }
            Fault::HttpModernGet200 => {
                let server = start_http(config_eras(f, Eras::Modern)).await;
                let get = Req::new("GET", b"").header("Accept", "text/event-stream");
                assert_eq!(send(server.local_addr(), &get).await.status, 200);
            }
            Fault::HttpVersionErrorStatus200 => {
                let mut msg = modern(1, "tools/list", json!({}));
                msg["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] =
                    json!("2099-01-01");
                let reply = send(addr, &Req::modern(&msg)).await;
                assert_eq!((reply.status, error_code(&reply.json())), (200, -32022));
            }
            Fault::HttpLegacyVersionHeaderIgnored => {
                let id = legacy_session(addr, "2025-06-18").await;
                let req = Req::json(&request(2, "tools/list", json!({})))
                    .header("Mcp-Session-Id", &id)
                    .header("MCP-Protocol-Version", "garbage");
                assert_eq!(send(addr, &req).await.status, 200);
            }
            Fault::HttpLegacySessionIdInvalidChars => {
                let reply = legacy_initialize(addr, "2025-06-18").await;
                assert!(reply.header("mcp-session-id").unwrap().contains(' '));
            }
            Fault::HttpLegacyTerminatedSession200 => {
                let id = legacy_session(addr, "2025-06-18").await;
                let delete = Req::new("DELETE", b"").header("Mcp-Session-Id", &id);
                assert_eq!(send(addr, &delete).await.status, 200);
                let req =
                    Req::json(&request(2, "tools/list", json!({}))).header("Mcp-Session-Id", &id);
                assert_eq!(send(addr, &req).await.status, 200);
            }
            Fault::HttpLegacyGet200Json => {
                let id = legacy_session(addr, "2025-06-18").await;
                let get = Req::new("GET", b"").header("Mcp-Session-Id", &id);
                let reply = send(addr, &get).await;
                assert_eq!(
                    (reply.status, reply.content_type()),
                    (200, "application/json")
                );
            }
            Fault::HttpLegacyNotification200 => {
                let reply = legacy_initialize(addr, "2025-06-18").await;
                let id = reply.header("mcp-session-id").unwrap();
                let note = notification("notifications/initialized", json!({}));
                let reply = send(addr, &Req::json(&note).header("Mcp-Session-Id", id)).await;
                assert_eq!((reply.status, reply.text().as_str()), (200, "{}"));
            }
            Fault::HttpLegacyEventIdReused => {
                let sse = Config {
                    http: HttpOptions {
                        sse: true,
                        ..HttpOptions::default()
                    },
                    ..config(f)
                };
                let server = start_http(sse).await;
                let addr = server.local_addr();
                let id = legacy_session(addr, "2025-06-18").await;
                let req =
                    Req::json(&request(2, "tools/list", json!({}))).header("Mcp-Session-Id", &id);
                let a = send(addr, &req).await.events()[0].id.clone();
                let b = send(addr, &req).await.events()[0].id.clone();
                assert_eq!((a.as_deref(), b.as_deref()), (Some("1"), Some("1")));
            }
            other => unreachable!("`{other}` is not an HTTP fault"),
        }
    }
}
