//! `caching/*` (2026-07-28): cache hints on every cacheable result and the same `cacheScope`
//! on every page of a list.
//!
//! Only read-only methods: the lists the server advertises (POL-11) and `resources/read` of a
//! listed resource.

use serde_json::{Value, json};

use super::prelude::*;
use super::support::advertised_lists;

pub fn group() -> Vec<Check> {
    vec![
        Check {
            id: "caching/lists/hints-on-every-page",
            requirements: &["CACHE-1", "POL-11"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "Every page of every advertised list (tools, prompts, resources, \
                          resource templates).",
            expectation: "each page has `ttlMs` (an integer ≥ 0) and `cacheScope` (\"public\" or \
                          \"private\")",
            faults: &["cache-hints-missing-on-list"],
            script: |s| Box::pin(hints_on_every_page(s)),
        },
        Check {
            id: "caching/pagination/same-scope",
            requirements: &["CACHE-2", "POL-11"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "The pages of each advertised list that has more than one.",
            expectation: "the same `cacheScope` on every page of one list",
            faults: &["cache-scope-varies-by-page"],
            script: |s| Box::pin(same_scope(s)),
        },
        Check {
            id: "caching/read/hints-present",
            requirements: &["CACHE-1", "POL-11"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern, Need::Capability("resources")],
            description: "`resources/read` of the first listed resource.",
            expectation: "the result has `ttlMs` (an integer ≥ 0) and `cacheScope`",
            faults: &["cache-hints-missing-on-read"],
            script: |s| Box::pin(read_hints(s)),
        },
    ]
}

/// What is wrong with the cache hints of `result`, if anything.
pub(crate) fn hint_problem(result: &Value) -> Option<String> {
    let ttl = result.get("ttlMs");
    let scope = result.get("cacheScope");
    let ttl_ok = ttl.is_some_and(|t| t.as_u64().is_some());
    let scope_ok = scope
        .and_then(Value::as_str)
        .is_some_and(|s| s == "public" || s == "private");
    (!(ttl_ok && scope_ok)).then(|| {
        format!(
            "ttlMs {}, cacheScope {}",
            ttl.map_or("missing".into(), Value::to_string),
            scope.map_or("missing".into(), Value::to_string)
        )
    })
}

async fn hints_on_every_page(s: &mut Scenario) -> Verdict {
    let lists = advertised_lists(s.facts())?;
    let mut peer = s.connect().await?;
    let mut problems = Problems::new();
    let mut seen = Vec::new();
    for (list, _) in lists {
        let pages = peer.pages(list).await?;
        for (n, page) in pages.iter().enumerate() {
            if let Some(p) = hint_problem(page) {
                problems.push(format!("{list} page {}: {p}", n + 1));
            }
        }
        seen.push(format!("{list} ({} page(s))", pages.len()));
    }
    Ok(problems.verdict(format!("cache hints on every page of {}", seen.join(", "))))
}

async fn same_scope(s: &mut Scenario) -> Verdict {
    let lists = advertised_lists(s.facts())?;
    let mut peer = s.connect().await?;
    let mut problems = Problems::new();
    let mut compared = Vec::new();
    for (list, _) in lists {
        let pages = peer.pages(list).await?;
        if pages.len() < 2 {
            continue;
        }
        let scopes: Vec<Value> = pages
            .iter()
            .map(|p| p.get("cacheScope").cloned().unwrap_or(Value::Null))
            .collect();
        if scopes.iter().any(|sc| *sc != scopes[0]) {
            problems.push(format!("{list}: cacheScope by page {}", json!(scopes)));
        }
        compared.push(format!("{list} ({} pages)", pages.len()));
    }
    Ok(if !problems.is_empty() {
        Outcome::fail(problems.joined())
    } else if compared.is_empty() {
        Outcome::skipped("no advertised list has more than one page: no pages to compare")
    } else {
        Outcome::pass(format!("one cacheScope per list: {}", compared.join(", ")))
    })
}

async fn read_hints(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect().await?;
    let resources = peer.items(method::RESOURCES_LIST, "resources").await?;
    let Some(uri) = resources
        .iter()
        .find_map(|r| r.get("uri").and_then(Value::as_str))
    else {
        return Ok(Outcome::skipped("resources/list lists no resource to read"));
    };
    let reply = peer
        .call(request(method::RESOURCES_READ).param("uri", json!(uri)))
        .await;
    let result = reply.expect_result(&format!("resources/read {uri}"))?;
    Ok(match hint_problem(result) {
        None => Outcome::pass(format!("resources/read {uri} carries cache hints")),
        Some(p) => Outcome::fail(format!("resources/read {uri}: {p}")),
    })
}
