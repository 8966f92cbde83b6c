//! `resources/*`, `prompts/*` and `capabilities/*` (2026-07-28): error paths of resources and
//! prompts, and capability gating (DISC-6, POL-11).
//!
//! Read-only methods only: `resources/read` of a URI that cannot exist, `prompts/get` of a name
//! that cannot exist, `prompts/get` of a listed prompt without one of its required arguments
//! (the others filled with strings), and the list methods themselves.

use serde_json::{Map, Value, json};

use super::prelude::*;
use super::support::expect_code_or;

/// A resource URI no server has.
const MISSING_URI: &str = "mcpspec://nonexistent/resource-7f3a";
/// A prompt name no server has.
const MISSING_PROMPT: &str = "mcpspec-nonexistent-prompt-7f3a";

pub fn group() -> Vec<Check> {
    vec![
        Check {
            id: "resources/read/not-found",
            requirements: &["FEAT-1", "POL-11"],
            level: Level::Must,
            era: Era::Modern,
            needs: &[Need::Modern, Need::Capability("resources")],
            description: "`resources/read` of a URI that cannot exist.",
            expectation: "error -32602 (not the legacy -32002, not a result with empty `contents`)",
            faults: &[
                "resource-not-found-32002",
                "resource-not-found-empty-contents",
            ],
            script: |s| Box::pin(resource_not_found(s)),
        },
        Check {
            id: "prompts/get/unknown-prompt",
            requirements: &["FEAT-2", "POL-11"],
            level: Level::Should,
            era: Era::Modern,
            needs: &[Need::Modern, Need::Capability("prompts")],
            description: "`prompts/get` of a prompt name that cannot exist.",
            expectation: "error -32602; a result is Fail, another error code NonStrict",
            faults: &["unknown-prompt-result"],
            script: |s| Box::pin(unknown_prompt(s)),
        },
        Check {
            id: "prompts/get/missing-argument",
            requirements: &["FEAT-2", "POL-1", "POL-11"],
            level: Level::Should,
            era: Era::Modern,
            needs: &[Need::Modern, Need::Capability("prompts")],
            description: "`prompts/get` of a listed prompt without one required argument (the \
                          others given as strings).",
            expectation: "error -32602; a rendered prompt is Fail, another error code NonStrict",
            faults: &["prompt-missing-argument-accepted"],
            script: |s| Box::pin(missing_argument(s)),
        },
        Check {
            id: "capabilities/gating/methods-match",
            requirements: &["DISC-6", "POL-11"],
            level: Level::Must,
            era: Era::Modern,
            needs: &[Need::Modern],
            description: "`prompts/list`, `resources/list` and `completion/complete` against the \
                          discover capabilities `prompts`, `resources`, `completions`.",
            expectation: "each method is served (anything but -32601) exactly when its \
                          capability is advertised; otherwise -32601",
            faults: &["undeclared-prompts"],
            script: |s| Box::pin(methods_match(s)),
        },
    ]
}

async fn resource_not_found(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect().await?;
    let reply = peer
        .call(request(method::RESOURCES_READ).param("uri", json!(MISSING_URI)))
        .await;
    if let Some(result) = reply.result() {
        let empty = result
            .get("contents")
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty);
        return Ok(Outcome::fail(format!(
            "a missing resource gave a result{} ({}); FEAT-1 requires -32602",
            if empty { " with empty `contents`" } else { "" },
            reply.describe()
        )));
    }
    if reply
        .error()
        .is_some_and(|e| e.code == code::LEGACY_RESOURCE_NOT_FOUND)
    {
        return Ok(Outcome::fail(
            "a missing resource gave -32002, the legacy code removed in 2026-07-28 (FEAT-1: -32602)",
        ));
    }
    Ok(expect_code_or(
        &reply,
        "resources/read of a missing resource",
        code::INVALID_PARAMS,
        Outcome::fail,
    ))
}

async fn unknown_prompt(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect().await?;
    let reply = peer
        .call(request(method::PROMPTS_GET).param("name", json!(MISSING_PROMPT)))
        .await;
    if reply.result().is_some() {
        return Ok(Outcome::fail(format!(
            "`prompts/get` of an unknown prompt gave a result ({}); FEAT-2 says -32602",
            reply.describe()
        )));
    }
    Ok(expect_code_or(
        &reply,
        "prompts/get of an unknown prompt",
        code::INVALID_PARAMS,
        Outcome::non_strict,
    ))
}

/// A listed prompt with a required argument: its name, that argument, and the other required
/// arguments filled with strings.
fn prompt_missing_one(prompts: &[Value]) -> Option<(String, String, Map<String, Value>)> {
    prompts.iter().find_map(|p| {
        let name = p.get("name")?.as_str()?;
        let required: Vec<&str> = p
            .get("arguments")?
            .as_array()?
            .iter()
            .filter(|a| a.get("required") == Some(&json!(true)))
            .filter_map(|a| a.get("name")?.as_str())
            .collect();
        let (left_out, rest) = required.split_first()?;
        let args = rest
            .iter()
            .map(|a| ((*a).to_owned(), json!("mcpspec")))
            .collect();
        Some((name.to_owned(), (*left_out).to_owned(), args))
    })
}

async fn missing_argument(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect().await?;
    let prompts = peer.items(method::PROMPTS_LIST, "prompts").await?;
    let Some((name, left_out, args)) = prompt_missing_one(&prompts) else {
        return Ok(Outcome::skipped(
            "prompts/list lists no prompt with a required argument",
        ));
    };
    let reply = peer
        .call(
            request(method::PROMPTS_GET)
                .param("name", json!(name))
                .param("arguments", Value::Object(args)),
        )
        .await;
    let what = format!("prompts/get `{name}` without its required argument `{left_out}`");
    if reply.result().is_some() {
        return Ok(Outcome::fail(format!(
            "{what} was rendered ({}); FEAT-2 says -32602",
            reply.describe()
        )));
    }
    Ok(expect_code_or(
        &reply,
        &what,
        code::INVALID_PARAMS,
        Outcome::non_strict,
    ))
}

async fn methods_match(s: &mut Scenario) -> Verdict {
    let probes = [
        ("prompts", request(method::PROMPTS_LIST)),
        ("resources", request(method::RESOURCES_LIST)),
        (
            "completions",
            request(method::COMPLETION_COMPLETE)
                .param(
                    "ref",
                    json!({ "type": "ref/prompt", "name": "mcpspec-nonexistent-prompt-7f3a" }),
                )
                .param("argument", json!({ "name": "x", "value": "" })),
        ),
    ];
    let advertised: Vec<bool> = probes
        .iter()
        .map(|(cap, _)| s.facts().has_capability(cap))
        .collect();
    let mut peer = s.connect().await?;
    let mut problems = Problems::new();
    let mut seen = Vec::new();
    for ((cap, out), advertised) in probes.into_iter().zip(advertised) {
        let reply = peer.call(out).await;
        let not_found = reply
            .error()
            .is_some_and(|e| e.code == code::METHOD_NOT_FOUND);
        let served = reply.frame().is_some() && !not_found;
        match (advertised, served, not_found) {
            (true, true, _) => seen.push(format!("{cap}: advertised and served")),
            (false, false, true) => seen.push(format!("{cap}: neither (-32601)")),
            (false, true, _) => problems.push(format!(
                "`{cap}` is not advertised but its method is served ({})",
                reply.describe()
            )),
            (true, false, _) => problems.push(format!(
                "`{cap}` is advertised but its method got {}",
                reply.describe()
            )),
            (false, false, false) => problems.push(format!(
                "`{cap}` is not advertised; its method should give -32601, got {}",
                reply.describe()
            )),
        }
    }
    Ok(problems.verdict(seen.join("; ")))
}
