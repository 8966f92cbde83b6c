//! `tools/call/result-shape` (FEAT-3, SCHEMA-1, SCHEMA-3; POL-12, POL-31): the success path of
//! every tool mcpspec may call. Each allowed tool (`--allow-tool`) that `tools/list` lists, and
//! with `--probe-profile` the harmless `mcpspec_probe_log`, is called once with arguments built
//! from its `inputSchema` (and validated against it) by [`crate::schema::arguments`], and its
//! result is judged: every content block valid for its type, `isError` a boolean,
//! `structuredContent` valid under a declared `outputSchema`, the message valid under the
//! schema of its revision.
//!
//! A tool answering valid arguments with `isError: true` (it may need real input) or with an
//! error is recorded as Info with its text; a schema mcpspec cannot build arguments for is
//! Info, never a guess. In either era (POL-28): on a legacy-only server after the handshake.

use serde_json::Value;

use super::prelude::*;
use super::support::call_tool;
use super::surface::{self, Tally};
use crate::schema::{arguments, tool_schema};

pub fn group() -> Vec<Check> {
    vec![Check {
        id: "tools/call/result-shape",
        requirements: &[
            "FEAT-3", "SCHEMA-1", "SCHEMA-3", "POL-12", "POL-28", "POL-31",
        ],
        level: Level::Must,
        era: Era::Any,
        isolation: Isolation::Shared,
        needs: &[Need::AnyEra, Need::Capability("tools"), Need::CallableTool],
        description: "Each allowed tool (and with --probe-profile `mcpspec_probe_log`), called \
                      once with arguments generated from its `inputSchema` and validated \
                      against it; the result judged block by block.",
        expectation: "a result whose content blocks are each valid for their type (`text` a \
                      string; image/audio base64 `data` and a `mimeType`; resource_link `uri` \
                      and `name`; resource `uri` and `text` or `blob`), `isError` a boolean, \
                      `structuredContent` valid under `outputSchema`; `isError: true` is Info",
        faults: &[
            "content-unknown-type",
            "tool-result-is-error-string",
            "tool-image-not-base64",
            "tool-structured-content-missing",
            "tool-image-not-base64 --eras legacy",
        ],
        script: |s| Box::pin(result_shape(s)),
    }]
}

/// The calls the check may make: the allowed tools and, with the probe profile, the probe log.
fn callable(options: &crate::check::CheckOptions, name: &str) -> bool {
    (name == tool::PROBE_LOG && options.probe_profile)
        || options.allowed_tools.iter().any(|a| a == name)
}

async fn result_shape(s: &mut Scenario) -> Verdict {
    surface::require(s, &["tools"])?;
    let options = s.options().clone();
    let mut peer = s.connect_any_era().await?;
    let walk = surface::walk(s, &mut peer, method::TOOLS_LIST, "tools", None)
        .await
        .map_err(|f| f.fail())?;
    let mut tally = Tally::new("tools", "FEAT-3");
    walk.record_findings(&mut tally);
    let listed: Vec<&Value> = walk.items().into_iter().map(|(_, t)| t).collect();
    let mut unlisted: Vec<&str> = options
        .allowed_tools
        .iter()
        .map(String::as_str)
        .filter(|a| {
            !listed
                .iter()
                .any(|t| surface::string_member(t, "name") == Some(a))
        })
        .collect();
    unlisted.dedup();
    let tools: Vec<&Value> = listed
        .into_iter()
        .filter(|t| surface::string_member(t, "name").is_some_and(|n| callable(&options, n)))
        .take(options.max_items)
        .collect();
    for tool in tools {
        let name = surface::string_member(tool, "name").unwrap_or_default();
        if !call_one(s, &mut peer, &mut tally, name, tool).await {
            break;
        }
    }
    let nothing = Outcome::skipped(format!(
        "no tool mcpspec may call is listed (allowed: {}; POL-12)",
        if options.allowed_tools.is_empty() {
            "none".into()
        } else {
            options.allowed_tools.join(", ")
        }
    ));
    let mut verdict = tally.verdict("valid results", nothing);
    if !unlisted.is_empty() && verdict.kind != crate::outcome::Kind::Skipped {
        verdict.message.push_str(&format!(
            " (allowed but not listed: {})",
            unlisted.join(", ")
        ));
    }
    Ok(verdict)
}

/// Calls one tool and judges its result into `tally`; `false` when the server stopped
/// answering (no further call would be answered either).
async fn call_one(
    s: &Scenario,
    peer: &mut Peer,
    tally: &mut Tally,
    name: &str,
    tool: &Value,
) -> bool {
    let item = format!("tool `{name}`");
    let Some(input_schema) = tool.get("inputSchema") else {
        tally.info(
            item,
            format!("could not build arguments for `{name}`: it declares no inputSchema"),
            None,
        );
        return true;
    };
    let args = match arguments::arguments(input_schema, 0) {
        Ok(args) => args,
        Err(e) => {
            tally.info(
                item,
                format!("could not build arguments for `{name}`: {e}"),
                None,
            );
            return true;
        }
    };
    let reply = peer.call(call_tool(name, args.clone())).await;
    let schema = surface::violations(&s.take_schema_findings());
    let called = format!("called with {}", preview(&args, 80));
    let Some(result) = reply.result() else {
        let answered = reply.error().is_some();
        let (kind, message) = if answered {
            (
                crate::outcome::Kind::Info,
                format!(
                    "{called}: the tool refused the generated arguments with {}",
                    reply.describe()
                ),
            )
        } else {
            (
                crate::outcome::Kind::Fail,
                format!("{called}: {}", reply.describe()),
            )
        };
        tally.unanswered(item, kind, message, schema, reply.evidence());
        return answered;
    };
    let mut problems = result_problems(result, tool, name);
    problems.extend(schema);
    let failed = result.get("isError") == Some(&Value::Bool(true));
    if problems.is_empty() && failed {
        tally.info(
            item,
            format!(
                "{called}: `isError: true` ({}); the tool may need real input",
                error_text(result)
            ),
            reply.evidence(),
        );
        return true;
    }
    let content = result
        .get("content")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let structured = if tool.get("outputSchema").is_some() {
        ", structuredContent valid under outputSchema"
    } else {
        ""
    };
    tally.judge(
        item,
        problems,
        format!(
            "{called}: content [{}]{structured}",
            surface::block_types(&content)
        ),
        reply.evidence(),
    );
    true
}

/// FEAT-3 and SCHEMA-3 on one `tools/call` result of `tool`.
fn result_problems(result: &Value, tool: &Value, name: &str) -> Vec<String> {
    let mut problems = Vec::new();
    match result.get("content") {
        Some(Value::Array(blocks)) => {
            for (i, block) in blocks.iter().enumerate() {
                problems.extend(surface::block_problems(&format!("content[{i}]"), block));
            }
        }
        other => problems.push(format!(
            "no `content` array ({})",
            other.map_or("absent".into(), |c| preview(c, 40))
        )),
    }
    if let Some(flag) = result.get("isError").filter(|f| !f.is_boolean()) {
        problems.push(format!("`isError` is {}, not a boolean", preview(flag, 30)));
    }
    if let Some(output_schema) = tool.get("outputSchema") {
        problems.extend(
            tool_schema::structured_output_defects(name, output_schema, result)
                .into_iter()
                .map(|d| format!("{d} (SCHEMA-3)")),
        );
    }
    problems
}

/// The text of an `isError` result, shortened.
fn error_text(result: &Value) -> String {
    let text: Vec<&str> = result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    if text.is_empty() {
        "no text".into()
    } else {
        format!("\"{}\"", shorten(&text.join(" "), 120))
    }
}
