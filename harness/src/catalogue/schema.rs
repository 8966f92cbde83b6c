//! `schema/*`: one place that shows a server's shape defects (SCHEMA-1..3), even where no
//! behavioural check looks at the field. Every check of the catalogue already has what it
//! receives validated by the schema layer (the driver validates, the runner reports, POL-20);
//! these checks ask for what a client reads first and judge it in full:
//!
//! 1. `server/discover` (modern) and `initialize` (legacy): the whole result, under the
//!    revision it negotiates.
//! 2. Every list the server advertises (`tools/list`, `resources/list`,
//!    `resources/templates/list`, `prompts/list`) and the error of an unknown method.
//! 3. Each tool's `inputSchema` and `outputSchema` as JSON Schema documents (SCHEMA-2).
//! 4. The `structuredContent` of probe-profile and allowed tools that declare `outputSchema`
//!    (SCHEMA-3).
//!
//! A check here reports the findings itself (it takes them from the recorder), so they are
//! named once. Each runs on a fresh process (POL-21): it judges every message of its
//! conversation in full, so nothing left over from another check may reach it.

use serde_json::{Value, json};

use super::prelude::*;
use crate::schema::tool_schema;

pub fn group() -> Vec<Check> {
    vec![
        Check {
            id: "schema/discover/result",
            requirements: &["SCHEMA-1", "POL-20"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "The `server/discover` result, validated in full against \
                          `DiscoverResult` of 2026-07-28.",
            expectation: "no violation: every required member present, every member of its type",
            faults: &[
                "capability-wrong-type",
                "server-info-no-version",
                "discover-bad-shape",
            ],
            script: |s| Box::pin(discover(s)),
        },
        Check {
            id: "schema/initialize/result",
            requirements: &["SCHEMA-1", "POL-20"],
            level: Level::Must,
            era: Era::Legacy,
            isolation: Isolation::Shared,
            needs: &[Need::Legacy],
            description: "The `initialize` result, validated in full against `InitializeResult` \
                          of the negotiated revision.",
            expectation: "no violation (`serverInfo` has `name` and `version`, `capabilities` \
                          members are objects)",
            faults: &[
                "capability-wrong-type --eras legacy",
                "server-info-no-version --eras legacy",
                "initialize-bad-shape --eras legacy",
            ],
            script: |s| Box::pin(initialize(s)),
        },
        Check {
            id: "schema/lists/advertised",
            requirements: &["SCHEMA-1", "POL-20"],
            level: Level::Must,
            era: Era::Any,
            isolation: Isolation::Shared,
            needs: &[Need::AnyEra],
            description: "Each advertised list (`tools/list`, `resources/list`, \
                          `resources/templates/list`, `prompts/list`), validated in full.",
            expectation: "no violation in any list result",
            faults: &[
                "tool-without-input-schema",
                "capability-wrong-type --eras legacy",
            ],
            script: |s| Box::pin(lists(s)),
        },
        Check {
            id: "schema/error/object",
            requirements: &["SCHEMA-1", "POL-20"],
            level: Level::Must,
            era: Era::Any,
            isolation: Isolation::Shared,
            needs: &[Need::AnyEra],
            description: "The error answering an unknown method, validated as a JSON-RPC error \
                          object.",
            expectation: "an error with an integer `code` and a string `message`",
            faults: &["error-without-message"],
            script: |s| Box::pin(error_object(s)),
        },
        Check {
            id: "schema/tools/input-schema",
            requirements: &["SCHEMA-2"],
            level: Level::Must,
            era: Era::Any,
            isolation: Isolation::Shared,
            needs: &[Need::AnyEra],
            description: "Each tool's `inputSchema` (and `outputSchema`) is a JSON Schema \
                          object valid under its dialect (2020-12 by default, meta-schema \
                          validated), with `type: \"object\"` at its root.",
            expectation: "every tool schema valid; a defect names the tool and the pointer \
                          (NonStrict in a session of a revision before 2025-11-25, where SCHEMA-2 \
                          is a SHOULD)",
            faults: &["invalid-input-schema", "tool-without-input-schema"],
            script: |s| Box::pin(input_schemas(s)),
        },
        Check {
            id: "schema/tools/structured-output",
            requirements: &["SCHEMA-3", "SCHEMA-1"],
            level: Level::Must,
            era: Era::Any,
            isolation: Isolation::Fresh(Fresh::ProbeLog),
            needs: &[Need::AnyEra, Need::CallableTool],
            description: "The probe-profile tool `mcpspec_probe_log` (with `--probe-profile`) \
                          and every allowed tool (`--allow-tool`) that declares `outputSchema`, \
                          called with the smallest arguments its `inputSchema` requires: a \
                          successful result's `structuredContent` is validated against that \
                          schema.",
            expectation: "`structuredContent` present and valid under the declared outputSchema",
            faults: &["structured-output-mismatch", "content-unknown-type"],
            script: |s| Box::pin(structured_output(s)),
        },
    ]
}

/// The verdict on what the schema layer found in this scenario: a Fail listing every
/// violation (with the first violating message as evidence), else a Pass saying `valid`.
fn judged(s: &Scenario, valid: String) -> Outcome {
    let findings = s.take_schema_findings();
    let Some(first) = findings.first() else {
        return Outcome::pass(valid);
    };
    let all: Vec<String> = findings
        .iter()
        .flat_map(|f| f.violations.iter().map(ToString::to_string))
        .collect();
    Outcome::fail(format!("schema violation (SCHEMA-1): {}", all.join("; ")))
        .with_evidence(first.evidence.clone())
}

async fn discover(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect().await?;
    let reply = peer.call(request(method::DISCOVER)).await;
    reply.expect_result("`server/discover`")?;
    Ok(judged(
        s,
        "the DiscoverResult is valid under 2026-07-28".into(),
    ))
}

async fn initialize(s: &mut Scenario) -> Verdict {
    // The handshake of the legacy session this check shares (POL-21): the newest legacy
    // version asked for, which the server answers with the one it negotiates.
    let (_peer, reply, _) = s.session(s.options().legacy_revision()).await?;
    let result = reply.expect_result("`initialize`")?;
    let negotiated = result
        .get("protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or(s.options().legacy_revision())
        .to_owned();
    Ok(judged(
        s,
        format!("the InitializeResult is valid under {negotiated}"),
    ))
}

/// Whether the server advertises `capability`: in its discover result (modern), else in the
/// probe's InitializeResult.
fn advertised(s: &Scenario, era: Era, capability: &str) -> bool {
    if era == Era::Modern {
        return s.facts().has_capability(capability);
    }
    s.facts()
        .initialize
        .as_ref()
        .and_then(|r| r.get("capabilities"))
        .and_then(|c| c.get(capability))
        .is_some_and(|v| !v.is_null() && *v != Value::Bool(false))
}

async fn lists(s: &mut Scenario) -> Verdict {
    let era = s.any_era();
    let mut asked = Vec::new();
    let lists = [
        ("tools", method::TOOLS_LIST),
        ("resources", method::RESOURCES_LIST),
        ("resources", method::RESOURCES_TEMPLATES_LIST),
        ("prompts", method::PROMPTS_LIST),
    ];
    let mut peer = s.connect_any_era().await?;
    for (capability, list) in lists {
        if advertised(s, era, capability) {
            peer.call(request(list)).await.expect_result(list)?;
            asked.push(list);
        }
    }
    if asked.is_empty() {
        return Ok(Outcome::skipped("the server advertises no list"));
    }
    Ok(judged(s, format!("valid: {}", asked.join(", "))))
}

async fn error_object(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect_any_era_ready().await?;
    let reply = peer.call(request(method::NONEXISTENT)).await;
    if reply.frame().is_none() {
        return Ok(Outcome::fail(format!(
            "an unknown method got {}; expected an error reply",
            reply.describe()
        )));
    }
    Ok(judged(
        s,
        "the error object of an unknown method is valid".into(),
    ))
}

/// The tools of the first page of `tools/list`, when the server lists tools.
async fn tools(s: &mut Scenario, peer: &mut Peer) -> Result<Vec<Value>, Outcome> {
    let era = s.any_era();
    if !advertised(s, era, "tools") {
        return Err(Outcome::skipped("the server does not advertise `tools`"));
    }
    let reply = peer.call(request(method::TOOLS_LIST)).await;
    let result = reply.expect_result("`tools/list`")?;
    Ok(result
        .get("tools")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default())
}

/// The first revision in which SCHEMA-2 is a MUST (a SHOULD before it).
const SCHEMA_2_MUST_FROM: &str = "2025-11-25";

async fn input_schemas(s: &mut Scenario) -> Verdict {
    // The revision the schemas are judged in: a legacy session's negotiated one (dates compare
    // as strings), else 2026-07-28.
    let older = (s.any_era() == Era::Legacy)
        .then(|| s.facts().legacy_version())
        .flatten()
        .filter(|v| *v < SCHEMA_2_MUST_FROM)
        .map(str::to_owned);
    let mut peer = s.connect_any_era().await?;
    let tools = tools(s, &mut peer).await?;
    // SCHEMA-2 judges the schemas themselves; the message's other defects are SCHEMA-1's
    // (schema/lists/advertised), so they are not repeated here.
    s.take_schema_findings();
    let defects: Vec<String> = tools
        .iter()
        .flat_map(tool_schema::tool_schema_defects)
        .map(|d| d.to_string())
        .collect();
    if defects.is_empty() {
        return Ok(Outcome::pass(format!(
            "the input and output schemas of {} tools are valid JSON Schema",
            tools.len()
        )));
    }
    let defects = defects.join("; ");
    Ok(match older {
        Some(v) => Outcome::non_strict(format!(
            "tool schemas that are not valid JSON Schema (SCHEMA-2, a SHOULD in {v}, the \
             negotiated revision; a MUST from {SCHEMA_2_MUST_FROM}): {defects}"
        )),
        None => Outcome::fail(format!(
            "tool schemas that are not valid JSON Schema (SCHEMA-2): {defects}"
        )),
    })
}

async fn structured_output(s: &mut Scenario) -> Verdict {
    let options = s.options().clone();
    let callable = |name: &str| {
        (name == tool::PROBE_LOG && options.probe_profile)
            || options.allowed_tools.iter().any(|a| a == name)
    };
    let mut peer = s.connect_any_era().await?;
    let tools = tools(s, &mut peer).await?;
    let mut problems = Problems::new();
    let (mut judged_tools, mut unjudged) = (Vec::new(), Vec::new());
    for t in &tools {
        let Some(name) = t.get("name").and_then(Value::as_str) else {
            continue;
        };
        let Some(output_schema) = t.get("outputSchema") else {
            continue;
        };
        if !callable(name) {
            continue;
        }
        let arguments = t
            .get("inputSchema")
            .map_or_else(|| json!({}), tool_schema::minimal_arguments);
        let reply = peer
            .call(
                request(method::TOOLS_CALL)
                    .param("name", json!(name))
                    .param("arguments", arguments),
            )
            .await;
        // A call that did not succeed says nothing about the shape of a successful one: it is
        // not judged (and a check that judged nothing does not pass).
        let Some(result) = reply.result() else {
            unjudged.push(format!("`{name}` got {}", reply.describe()));
            continue;
        };
        if result.get("isError").and_then(Value::as_bool) == Some(true) {
            unjudged.push(format!("`{name}` answered with isError: true"));
            continue;
        }
        judged_tools.push(name.to_owned());
        for d in tool_schema::structured_output_defects(name, output_schema, result) {
            problems.push(format!("{d} (SCHEMA-3)"));
        }
    }
    for finding in s.take_schema_findings() {
        for v in finding.violations {
            problems.push(format!("schema violation (SCHEMA-1): {v}"));
        }
    }
    if judged_tools.is_empty() && problems.is_empty() {
        if !unjudged.is_empty() {
            return Ok(Outcome::info(format!(
                "no successful call to judge: {}",
                unjudged.join("; ")
            )));
        }
        return Ok(Outcome::skipped(
            "no callable tool (probe profile or --allow-tool) declares `outputSchema`",
        ));
    }
    Ok(problems.verdict(format!(
        "structuredContent valid under the declared outputSchema: {}",
        judged_tools.join(", ")
    )))
}
