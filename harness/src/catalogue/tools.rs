//! `tools/*`: tool error paths. No tool of the target is called unless the user allowed it by
//! name (`--allow-tool`, POL-12); the unknown-tool path uses a name that cannot exist.

use serde_json::{Value, json};

use super::prelude::*;

pub fn group() -> Vec<Check> {
    vec![
        Check {
            id: "tools/call/unknown-tool",
            requirements: &["FEAT-2", "POL-12"],
            level: Level::Must,
            era: Era::Modern,
            needs: &[Need::Modern, Need::Capability("tools")],
            description: "`tools/call` for a tool name that cannot exist.",
            expectation: "error -32602 (a protocol error, not an `isError` result)",
            faults: &["unknown-tool-as-result"],
            script: |s| Box::pin(unknown_tool(s)),
        },
        Check {
            id: "tools/call/failure-is-result",
            requirements: &["FEAT-2", "POL-12"],
            level: Level::Must,
            era: Era::Modern,
            needs: &[Need::Modern, Need::Capability("tools"), Need::AllowedTool],
            description: "An allowed tool called without its required arguments.",
            expectation: "a result with `isError: true`; a -32602 error is NonStrict",
            faults: &["tool-error-as-protocol-error"],
            script: |s| Box::pin(failure_is_result(s)),
        },
        Check {
            id: "tools/list/capability-matches",
            requirements: &["DISC-6", "POL-11"],
            level: Level::Must,
            era: Era::Modern,
            needs: &[Need::Modern],
            description: "`tools/list` is served exactly when discover advertises `tools`.",
            expectation: "advertised: a result with a `tools` array; not advertised: error -32601",
            faults: &["undeclared-tools"],
            script: |s| Box::pin(capability_matches(s)),
        },
    ]
}

async fn unknown_tool(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect().await?;
    let reply = peer
        .call(
            request(method::TOOLS_CALL)
                .param("name", json!(tool::NONEXISTENT))
                .param("arguments", json!({})),
        )
        .await;
    if reply
        .result()
        .is_some_and(|r| r.get("isError") == Some(&json!(true)))
    {
        return Ok(Outcome::fail(
            "an unknown tool gave an `isError: true` result; FEAT-2 requires error -32602",
        ));
    }
    Ok(super::support::expect_code_or(
        &reply,
        "an unknown tool",
        code::INVALID_PARAMS,
        Outcome::fail,
    ))
}

/// Arguments that violate a tool's input schema: an empty object when it has required
/// properties.
fn violating_arguments(tool: &Value) -> Option<Value> {
    let required = tool.get("inputSchema")?.get("required")?.as_array()?;
    (!required.is_empty()).then(|| json!({}))
}

async fn failure_is_result(s: &mut Scenario) -> Verdict {
    let allowed = s.options().allowed_tools.clone();
    let mut peer = s.connect().await?;
    let listed = peer.call(request(method::TOOLS_LIST)).await;
    let tools = listed
        .expect_result("tools/list")?
        .get("tools")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let candidate = tools.iter().find_map(|t| {
        let name = t.get("name")?.as_str()?;
        if !allowed.iter().any(|a| a == name) {
            return None;
        }
        Some((name.to_owned(), violating_arguments(t)?))
    });
    let Some((name, args)) = candidate else {
        return Ok(Outcome::skipped(format!(
            "no allowed tool ({}) is listed with required arguments to leave out",
            allowed.join(", ")
        )));
    };
    let reply = peer
        .call(
            request(method::TOOLS_CALL)
                .param("name", json!(name))
                .param("arguments", args),
        )
        .await;
    Ok(match (reply.result(), reply.error()) {
        (Some(r), _) if r.get("isError") == Some(&json!(true)) => Outcome::pass(format!(
            "`{name}` without its required arguments: an isError result"
        )),
        (_, Some(e)) if e.code == code::INVALID_PARAMS => Outcome::non_strict(format!(
            "`{name}` without its required arguments: error -32602; tool input errors should be \
             `isError: true` results the model can see"
        )),
        _ => Outcome::fail(format!(
            "`{name}` without its required arguments got {}",
            reply.describe()
        )),
    })
}

async fn capability_matches(s: &mut Scenario) -> Verdict {
    let advertised = s.facts().has_capability("tools");
    let mut peer = s.connect().await?;
    let reply = peer.call(request(method::TOOLS_LIST)).await;
    let served = reply
        .result()
        .is_some_and(|r| r.get("tools").is_some_and(Value::is_array));
    Ok(match (advertised, served) {
        (true, true) => Outcome::pass("tools advertised and served"),
        (false, false) => match reply.error() {
            Some(e) if e.code == code::METHOD_NOT_FOUND => {
                Outcome::pass("tools neither advertised nor served (-32601)")
            }
            _ => Outcome::fail(format!(
                "tools not advertised; tools/list should give -32601, got {}",
                reply.describe()
            )),
        },
        (false, true) => {
            Outcome::fail("tools/list is served but discover does not advertise `tools` (DISC-6)")
        }
        (true, false) => Outcome::fail(format!(
            "discover advertises `tools` but tools/list got {}",
            reply.describe()
        )),
    })
}
