//! The schema layer (SCHEMA-1..3) proven against the official schema: the 129 example messages
//! of `../shared/mcp-spec/schema/2026-07-28/examples/<TypeName>/` are valid under the typed
//! layer and under jsonschema against `schema.json#/$defs/<TypeName>`, and a mutated copy of
//! each is rejected by both; every exception of `schema/exceptions.rs` is proven; deep and
//! large messages are validated without a panic or a stack overflow.

use crate::support;
use crate::support::agreement;

use std::path::PathBuf;

use serde_json::{Value, json};

use mcpspec_harness::schema::{self, Shape, document::Document};

/// The official schema folder (`../shared/mcp-spec/schema` beside the repository).
fn spec_dir() -> PathBuf {
    support::repo_root().join("../shared/mcp-spec/schema")
}

fn official(revision: &str) -> Document {
    agreement::official(revision)
}

/// Every example: (type name, file name, message).
fn examples() -> Vec<(String, String, Value)> {
    let dir = spec_dir().join("2026-07-28/examples");
    let mut out = Vec::new();
    for ty in std::fs::read_dir(&dir).expect("the examples folder exists") {
        let ty = ty.expect("a directory entry");
        let name = ty.file_name().to_string_lossy().into_owned();
        for file in std::fs::read_dir(ty.path()).expect("a type folder") {
            let file = file.expect("an example file");
            let text = std::fs::read_to_string(file.path()).expect("an example reads");
            let value: Value = serde_json::from_str(&text).expect("an example is JSON");
            out.push((
                name.clone(),
                file.file_name().to_string_lossy().into_owned(),
                value,
            ));
        }
    }
    out.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    out
}

/// Both layers' violations of `value` as the official type `name` (the typed layer's first
/// violation; jsonschema's all).
fn both(doc: &Document, name: &str, value: &Value) -> (Vec<String>, Vec<String>) {
    let typed = schema::validate_modern_named(name, value)
        .unwrap_or_else(|| panic!("the typed layer has no table entry for {name}"));
    let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
    let official = doc.validate_as(leaked, name.to_owned(), value);
    (
        typed.iter().map(ToString::to_string).collect(),
        official.iter().map(ToString::to_string).collect(),
    )
}

#[test]
fn there_are_129_examples_and_every_one_is_valid_under_both_layers() {
    let doc = official("2026-07-28");
    let examples = examples();
    assert_eq!(examples.len(), 129, "the official example set");
    let mut disagreements = Vec::new();
    for (name, file, value) in &examples {
        let (typed, official) = both(&doc, name, value);
        if !typed.is_empty() || !official.is_empty() {
            disagreements.push(format!(
                "{name}/{file}: typed {typed:?}, official {official:?}"
            ));
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

/// Mutated copies of an example: its first required member removed; a member's JSON type
/// changed.
fn mutations(doc_root: &Value, name: &str, value: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    let Some(def) = doc_root["$defs"].get(name) else {
        return out;
    };
    let required: Vec<String> = def
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    if let (Some(field), Some(obj)) = (required.first(), value.as_object()) {
        let mut removed = obj.clone();
        removed.remove(field);
        out.push((
            format!("without required `{field}`"),
            Value::Object(removed),
        ));
    }
    // A field's JSON type changed: the first required member the schema constrains (not
    // `data`, which allows anything) becomes a boolean where it held an object, else an
    // object (no member of the schema takes both).
    let constrained = required.iter().find(|f| {
        def.get("properties")
            .and_then(|p| p.get(f.as_str()))
            .and_then(Value::as_object)
            .is_some_and(|p| {
                ["type", "$ref", "anyOf", "oneOf", "enum", "const"]
                    .iter()
                    .any(|k| p.contains_key(*k))
            })
    });
    if let (Some(field), Some(obj)) = (constrained, value.as_object()) {
        let mut changed = obj.clone();
        let replacement = if obj.get(field).is_some_and(Value::is_object) {
            json!(true)
        } else {
            json!({"mcpspec": "not-the-right-type"})
        };
        changed.insert(field.clone(), replacement);
        out.push((
            format!("with `{field}` of another JSON type"),
            Value::Object(changed),
        ));
    }
    out
}

#[test]
fn a_mutated_copy_of_every_example_is_rejected_by_both_layers() {
    let doc = official("2026-07-28");
    let root: Value = serde_json::from_str(
        &std::fs::read_to_string(spec_dir().join("2026-07-28/schema.json")).expect("reads"),
    )
    .expect("JSON");
    let mut mutated = 0;
    let mut missed = Vec::new();
    for (name, file, value) in examples() {
        for (how, copy) in mutations(&root, &name, &value) {
            mutated += 1;
            let (typed, official) = both(&doc, &name, &copy);
            if typed.is_empty() || official.is_empty() {
                missed.push(format!(
                    "{name}/{file} {how}: typed {typed:?}, official {official:?}"
                ));
            }
        }
    }
    assert!(mutated >= 200, "only {mutated} mutated copies");
    assert!(missed.is_empty(), "{}", missed.join("\n"));
}

/// Each exception of `schema/exceptions.rs` is real: the official schema accepts the message,
/// the bare generated type refuses it, and the schema layer (exceptions applied) accepts it,
/// while a second, real defect after the excused one is still found.
#[test]
fn every_exception_is_proven() {
    let ids: Vec<&str> = schema::exceptions::EXCEPTIONS
        .iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(
        ids,
        ["integral-number-is-integer"],
        "each exception has a case below"
    );
    let doc = official("2026-07-28");
    let shape = Shape::Error {
        method: Some("tools/call"),
    };
    // integral-number-is-integer: `code: -32601.0`.
    let whole = json!({"code": -32601.0, "message": "method not found"});
    assert!(doc.validate_as("Error", "error".into(), &whole).is_empty());
    assert!(matches!(
        schema::typed::check("2026-07-28", shape, &whole),
        Some(Err(_))
    ));
    assert!(schema::validate("2026-07-28", shape, &whole).is_empty());
    let fractional = json!({"code": -32601.5, "message": "x"});
    assert!(
        !doc.validate_as("Error", "error".into(), &fractional)
            .is_empty()
    );
    assert_eq!(schema::validate("2026-07-28", shape, &fractional).len(), 1);
    let then_broken = json!({"code": -32601.0, "message": 7});
    let found = schema::validate("2026-07-28", shape, &then_broken);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].pointer, "/message");
}

/// serde reads a struct from an array of its fields; the official schema says object, and
/// the typed layer agrees with it (`capabilities.tools: []`, the issue's own example).
#[test]
fn an_array_where_an_object_belongs_is_a_violation() {
    let doc = official("2026-07-28");
    let discover = json!({
        "supportedVersions": ["2026-07-28"],
        "capabilities": {"tools": []},
        "resultType": "complete", "ttlMs": 0, "cacheScope": "public"
    });
    let shape = Shape::Result {
        method: "server/discover",
    };
    let typed = schema::validate("2026-07-28", shape, &discover);
    assert_eq!(typed.len(), 1);
    assert_eq!(typed[0].pointer, "/capabilities/tools");
    assert_eq!(typed[0].expected, "an object");
    assert!(!doc.validate(shape, &discover).is_empty());
}

/// The message a violation names: method, pointer, expected and actual (POL-20).
#[test]
fn a_violation_names_method_pointer_expected_and_actual() {
    let result = json!({
        "tools": [{"name": "echo", "inputSchema": {"type": "object"}},
                  {"name": "add"}],
        "resultType": "complete", "ttlMs": 0, "cacheScope": "public"
    });
    let found = schema::validate(
        "2026-07-28",
        Shape::Result {
            method: "tools/list",
        },
        &result,
    );
    assert_eq!(
        found.iter().map(ToString::to_string).collect::<Vec<_>>(),
        ["tools/list result at /tools/1/inputSchema: expected a required member, got absent"]
    );
    let typed_wrong = json!({"code": "-32601", "message": "x"});
    let found = schema::validate("2025-06-18", Shape::Error { method: None }, &typed_wrong);
    assert_eq!(found[0].pointer, "/code");
    assert_eq!(found[0].actual, "string \"-32601\"");
    assert_eq!(found[0].expected, "i64");
}

/// Every revision has its types: an `initialize` result without `serverInfo.version` is
/// refused under each handshake revision, a discover result only exists in 2026-07-28.
#[test]
fn all_five_revisions_are_served() {
    let init = json!({
        "protocolVersion": "2025-03-26",
        "capabilities": {},
        "serverInfo": {"name": "x"}
    });
    for revision in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let found = schema::validate(
            revision,
            Shape::Result {
                method: "initialize",
            },
            &init,
        );
        assert_eq!(found.len(), 1, "{revision}");
        assert_eq!(found[0].pointer, "/serverInfo/version", "{revision}");
    }
    let discover = json!({"supportedVersions": ["2026-07-28"]});
    assert!(
        !schema::validate(
            "2026-07-28",
            Shape::Result {
                method: "server/discover"
            },
            &discover
        )
        .is_empty()
    );
    assert!(
        schema::validate(
            "2099-01-01",
            Shape::Result {
                method: "server/discover"
            },
            &discover
        )
        .is_empty(),
        "an unknown revision has no types to judge by"
    );
}

/// Server→client requests and notifications beyond results: `elicitation/create`, `roots/list`,
/// the list-changed notifications and the subscription acknowledgement are judged by their
/// params type in every revision that has them; optional params may be absent.
#[test]
fn server_requests_and_notifications_are_judged_by_their_params() {
    let request = |method| Shape::Request { method };
    let notification = |method| Shape::Notification { method };
    let form = json!({
        "mode": "form",
        "message": "Please provide your GitHub username",
        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}
    });
    for revision in ["2025-11-25", "2026-07-28"] {
        assert_eq!(
            schema::validate(revision, request("elicitation/create"), &form),
            [],
            "{revision}"
        );
        let found = schema::validate(
            revision,
            request("elicitation/create"),
            &json!({"mode": "form", "requestedSchema": {"type": "object", "properties": {}}}),
        );
        assert_eq!(found.len(), 1, "{revision}: a form without `message`");
    }
    for revision in [
        "2024-11-05",
        "2025-03-26",
        "2025-06-18",
        "2025-11-25",
        "2026-07-28",
    ] {
        for method in [
            "notifications/tools/list_changed",
            "notifications/prompts/list_changed",
            "notifications/resources/list_changed",
        ] {
            assert_eq!(
                schema::validate(revision, notification(method), &Value::Null),
                [],
                "{revision} {method}: params are optional"
            );
            assert_eq!(
                schema::validate(revision, notification(method), &json!({"_meta": "x"})).len(),
                1,
                "{revision} {method}: `_meta` must be an object"
            );
        }
        assert_eq!(
            schema::validate(revision, request("roots/list"), &Value::Null),
            [],
            "{revision}: roots/list params are optional"
        );
        assert_eq!(
            schema::validate(revision, request("roots/list"), &json!({"_meta": []})).len(),
            1,
            "{revision}: roots/list `_meta` must be an object"
        );
    }
    let acknowledged = json!({
        "_meta": {"io.modelcontextprotocol/subscriptionId": "listen-1"},
        "notifications": {"toolsListChanged": true}
    });
    let ack = notification("notifications/subscriptions/acknowledged");
    assert_eq!(schema::validate("2026-07-28", ack, &acknowledged), []);
    assert_eq!(
        schema::validate(
            "2026-07-28",
            ack,
            &json!({"notifications": {"toolsListChanged": "yes"}})
        )
        .len(),
        1
    );
}

/// A message nested far deeper than the codec allows, and one at the size bound, are
/// validated without a stack overflow or a panic, on a thread with a small stack.
#[test]
fn deep_and_large_messages_do_not_overflow_or_panic() {
    let handle = std::thread::Builder::new()
        .stack_size(512 * 1024)
        .spawn(|| {
            // Built by moving values (`json!` would serialize `deep`, recursively).
            let mut deep = Value::String("bottom".into());
            for _ in 0..100_000 {
                let mut wrap = serde_json::Map::new();
                wrap.insert("nested".into(), deep);
                deep = Value::Object(wrap);
            }
            let mut result = json!({
                "tools": [{"name": "deep", "inputSchema": {"type": "object"}}],
                "resultType": "complete", "ttlMs": 0, "cacheScope": "public"
            });
            result["tools"][0]["inputSchema"]["properties"] = deep;
            let validator = schema::Validator::default();
            let found = validator.validate(
                "2026-07-28",
                Shape::Result {
                    method: "tools/list",
                },
                &result,
            );
            assert_eq!(found.len(), 1);
            assert!(found[0].expected.contains("nested at most"));
            // serde_json drops deep values recursively: leak it rather than overflow here.
            std::mem::forget(result);

            // About 4 MiB (the default --max-message) of tools.
            let tool = json!({"name": "t", "description": "x".repeat(200),
                              "inputSchema": {"type": "object"}});
            let tools: Vec<Value> = (0..16_000).map(|_| tool.clone()).collect();
            let large = json!({"tools": tools, "resultType": "complete", "ttlMs": 0,
                               "cacheScope": "public"});
            assert!(serde_json::to_vec(&large).unwrap().len() > 3_500_000);
            assert!(
                validator
                    .validate(
                        "2026-07-28",
                        Shape::Result {
                            method: "tools/list"
                        },
                        &large
                    )
                    .is_empty()
            );
        })
        .unwrap();
    handle.join().expect("validation did not panic or overflow");
}

/// `--schema FILE`: validating against the official document catches what the built-in types
/// catch, with a pointer into the message.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_schema_replaces_the_built_in_types() {
    let mut options = support::quick_options();
    options.settings.schema =
        schema::Validator::Document(std::sync::Arc::new(official("2026-07-28")));
    let checks: Vec<_> = mcpspec_harness::catalogue::all()
        .into_iter()
        .filter(|c| c.id == "schema/discover/result")
        .collect();
    let clean = support::run(support::reference_with(&[]), &checks, options.clone()).await;
    assert_eq!(clean.results[0].outcome.kind, mcpspec::Kind::Pass);
    let broken = support::run(
        support::reference_with(&["capability-wrong-type"]),
        &checks,
        options,
    )
    .await;
    let outcome = &broken.results[0].outcome;
    assert_eq!(outcome.kind, mcpspec::Kind::Fail);
    assert!(
        outcome.message.contains("/capabilities/tools")
            && outcome.message.contains("ServerCapabilities"),
        "{}",
        outcome.message
    );
}

/// Every message recorded against the reference server (no fault in each era mode, and each
/// check under each of its faults) is validated by both layers for the revisions with a
/// `schema.json` in `../shared/mcp-spec`, and the two layers agree on every one.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn recorded_reference_messages_agree_under_both_layers() {
    let catalogue = mcpspec_harness::catalogue::all();
    let mut runs = Vec::new();
    for eras in ["both", "modern", "legacy"] {
        let config = mcp_reference_server::Config {
            eras: support::eras(eras),
            probe_profile: true,
            ..Default::default()
        };
        let mut options = support::quick_options();
        options.checks.probe_profile = true;
        let checks = catalogue.clone();
        runs.push(tokio::spawn(async move {
            support::run(mcpspec::Target::Embedded(config), &checks, options).await
        }));
    }
    for check in catalogue.iter().copied() {
        for fault in check.faults {
            runs.push(tokio::spawn(support::run_under_fault(check, fault)));
        }
    }
    let mut reports = Vec::new();
    for run in runs {
        reports.push(run.await.expect("the run completes"));
    }
    let agreement = agreement::compare(&reports);
    assert!(agreement.judged.len() >= 2, "{:?}", agreement.judged);
    agreement::assert_layers_agree(&reports, 500, "the reference server's runs");
}

fn check(id: &str) -> mcpspec::Check {
    mcpspec_harness::catalogue::all()
        .into_iter()
        .find(|c| c.id == id)
        .unwrap_or_else(|| panic!("no check {id}"))
}

/// POL-20: a behavioural check that would pass is a Fail when a message it received breaks
/// the schema, naming method, pointer, expected and actual, quoting the message; the transcript
/// marks the message with its violations.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_violation_fails_the_check_that_received_it_and_marks_the_transcript() {
    use mcpspec_core::transcript::Event;
    let checks = [check("tools/list/capability-matches")];
    let clean = support::run(
        support::reference_with(&[]),
        &checks,
        support::quick_options(),
    )
    .await;
    assert_eq!(clean.results[0].outcome.kind, mcpspec::Kind::Pass);
    let report = support::run(
        support::reference_with(&["tool-without-input-schema"]),
        &checks,
        support::quick_options(),
    )
    .await;
    let result = &report.results[0];
    assert_eq!(result.outcome.kind, mcpspec::Kind::Fail);
    assert!(
        result.outcome.message.starts_with(
            "schema violation (SCHEMA-1): tools/list result at /tools/0/inputSchema: \
             expected a required member, got absent (schema 2026-07-28); the check's own \
             verdict was PASS"
        ),
        "{}",
        result.outcome.message
    );
    let evidence = result
        .outcome
        .evidence
        .as_ref()
        .expect("the message is quoted");
    assert!(evidence.quote.contains("\"tools\""), "{evidence}");
    let marks: Vec<_> = result
        .transcript
        .iter()
        .filter_map(|e| match &e.event {
            Event::SchemaViolations { entry, violations } => Some((*entry, violations.len())),
            _ => None,
        })
        .collect();
    assert_eq!(marks, [(Some(evidence.entry), 1)]);
}

/// The example of docs/checks/schema.md: an unknown content block type, named with its pointer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_content_type_is_named_as_the_book_says() {
    let c = check("schema/tools/structured-output");
    let (target, options) = support::for_check(
        &c,
        support::reference_with(&["content-unknown-type"]),
        support::quick_options(),
    );
    let report = support::run(target, &[c], options).await;
    let outcome = &report.results[0].outcome;
    assert_eq!(outcome.kind, mcpspec::Kind::Fail);
    assert!(
        outcome.message.contains(
            "tools/call result at /content/0: expected one of the forms of ContentBlock, \
             got {\"type\":\"txt\""
        ),
        "{}",
        outcome.message
    );
}

/// A Skip or an Error is never turned into anything by a violation; a Fail keeps its finding.
#[test]
fn skips_and_errors_stand_and_fails_keep_their_finding() {
    use mcpspec_core::transcript::SchemaFinding;
    let findings = [SchemaFinding {
        evidence: None,
        violations: vec![schema::Violation {
            method: "tools/list result".into(),
            pointer: "/tools".into(),
            expected: "array".into(),
            actual: "string \"x\"".into(),
            revision: None,
        }],
    }];
    for kept in [
        mcpspec::Outcome::skipped("n/a"),
        mcpspec::Outcome::error("broken"),
    ] {
        assert_eq!(
            mcpspec_harness::runner::schema_verdict(kept.clone(), &findings),
            kept
        );
    }
    let failed =
        mcpspec_harness::runner::schema_verdict(mcpspec::Outcome::fail("wrong code"), &findings);
    assert_eq!(failed.kind, mcpspec::Kind::Fail);
    assert!(
        failed
            .message
            .starts_with("wrong code; schema violation (SCHEMA-1): tools/list result at /tools")
    );
    let info =
        mcpspec_harness::runner::schema_verdict(mcpspec::Outcome::info("recorded"), &findings);
    assert_eq!(info.kind, mcpspec::Kind::Fail);
    assert_eq!(
        mcpspec_harness::runner::schema_verdict(mcpspec::Outcome::pass("ok"), &[]),
        mcpspec::Outcome::pass("ok")
    );
}

/// The raw HTTP exchanges of the `http/*` checks (exact headers, read back below the driver)
/// go through the schema layer too: an error without `message` sent in answer to a raw POST
/// fails the check that received it, which passes on a well-shaped server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn raw_http_exchanges_are_validated_too() {
    let checks = [check("http/version-header/mismatch")];
    let mut verdicts = Vec::new();
    for faults in [&[][..], &["error-without-message"][..]] {
        let config = mcp_reference_server::Config {
            faults: faults.iter().map(|f| f.parse().expect("a fault")).collect(),
            ..Default::default()
        };
        let (target, _server) = support::http_reference(config).await;
        let report = support::run(target, &checks, support::quick_options()).await;
        verdicts.push(report.results[0].outcome.clone());
    }
    assert_eq!(
        verdicts[0].kind,
        mcpspec::Kind::Pass,
        "{}",
        verdicts[0].message
    );
    assert_eq!(
        verdicts[1].kind,
        mcpspec::Kind::Fail,
        "{}",
        verdicts[1].message
    );
    assert!(
        verdicts[1].message.contains("schema violation (SCHEMA-1)")
            && verdicts[1].message.contains("/message"),
        "{}",
        verdicts[1].message
    );
}
