//! `capabilities/*` (2026-07-28): capability gating (DISC-6, POL-11): a method is served
//! exactly when its capability is advertised. Read-only: the list methods themselves.

use serde_json::json;

use super::prelude::*;

pub fn group() -> Vec<Check> {
    vec![Check {
        id: "capabilities/gating/methods-match",
        requirements: &["DISC-6", "POL-11"],
        level: Level::Must,
        era: Era::Modern,
        isolation: Isolation::Shared,
        needs: &[Need::Modern],
        description: "`prompts/list`, `resources/list` and `completion/complete` against the \
                          discover capabilities `prompts`, `resources`, `completions`.",
        expectation: "each method is served (anything but -32601) exactly when its \
                          capability is advertised; otherwise -32601",
        faults: &["undeclared-prompts"],
        script: |s| Box::pin(methods_match(s)),
    }]
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
