//! `caching/*` and `lists/*` (2026-07-28): cache hints on every cacheable result and the same
//! `cacheScope` on every page of a list; cursors the server did not issue are rejected; lists
//! do not vary per connection and `tools/list` has a fixed order.
//!
//! Only read-only methods: the lists the server advertises (POL-11) and `resources/read` of a
//! listed resource.

use serde_json::{Value, json};

use super::prelude::*;
use super::support::{advertised_lists, expect_code_or, name_of};

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
        Check {
            id: "lists/pagination/invalid-cursor",
            requirements: &["FEAT-2", "POL-11"],
            level: Level::Should,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "An advertised list requested with a cursor the server never issued.",
            expectation: "error -32602; a page (or another error) is NonStrict",
            faults: &["invalid-cursor-accepted"],
            script: |s| Box::pin(invalid_cursor(s)),
        },
        Check {
            id: "lists/content/same-across-connections",
            requirements: &["LIST-1", "POL-8", "POL-11"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "Each advertised list (tools, prompts, resources), all pages, on two \
                          fresh connections.",
            expectation: "the same items on both",
            faults: &["list-varies-per-connection"],
            script: |s| Box::pin(same_across_connections(s)),
        },
        Check {
            id: "lists/order/deterministic",
            requirements: &["LIST-2", "POL-11"],
            level: Level::Should,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern, Need::Capability("tools")],
            description: "`tools/list` three times on one connection.",
            expectation: "the same tool names in the same order every time",
            faults: &["list-order-random"],
            script: |s| Box::pin(order_deterministic(s)),
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

async fn invalid_cursor(s: &mut Scenario) -> Verdict {
    let (list, _) = advertised_lists(s.facts())?[0];
    let mut peer = s.connect().await?;
    let reply = peer
        .call(request(list).param("cursor", json!("mcpspec-invalid-cursor-7f3a")))
        .await;
    if reply.result().is_some() {
        return Ok(Outcome::non_strict(format!(
            "{list} with a cursor it never issued was served ({}); FEAT-2 says -32602",
            reply.describe()
        )));
    }
    Ok(expect_code_or(
        &reply,
        &format!("{list} with an invalid cursor"),
        code::INVALID_PARAMS,
        Outcome::non_strict,
    ))
}

async fn same_across_connections(s: &mut Scenario) -> Verdict {
    let lists: Vec<_> = advertised_lists(s.facts())?
        .into_iter()
        .filter(|(m, _)| *m != method::RESOURCES_TEMPLATES_LIST)
        .collect();
    let mut first = Vec::new();
    let mut peer = s.connect().await?;
    for (list, key) in &lists {
        first.push(peer.items(list, key).await?);
    }
    drop(peer);
    let mut peer = s.connect().await?;
    let mut problems = Problems::new();
    for ((list, key), a) in lists.iter().zip(&first) {
        let b = peer.items(list, key).await?;
        if *a != b {
            let differing = a
                .iter()
                .zip(&b)
                .find(|(x, y)| x != y)
                .map(|(x, y)| format!(": {} vs {}", preview(x, 120), preview(y, 120)))
                .unwrap_or_else(|| format!(": {} vs {} items", a.len(), b.len()));
            problems.push(format!("{list} differs between connections{differing}"));
        }
    }
    let names: Vec<&str> = lists.iter().map(|(l, _)| *l).collect();
    Ok(problems.verdict(format!("{} the same on two connections", names.join(", "))))
}

async fn order_deterministic(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect().await?;
    let mut orders: Vec<Vec<String>> = Vec::new();
    for _ in 0..3 {
        let tools = peer.items(method::TOOLS_LIST, "tools").await?;
        orders.push(
            tools
                .iter()
                .filter_map(|t| name_of(t).map(str::to_owned))
                .collect(),
        );
    }
    Ok(if orders.iter().all(|o| *o == orders[0]) {
        Outcome::pass(format!("the same order three times: {:?}", orders[0]))
    } else {
        Outcome::fail(format!(
            "tools/list order changed between calls: {}",
            orders
                .iter()
                .map(|o| format!("{o:?}"))
                .collect::<Vec<_>>()
                .join(" then ")
        ))
    })
}
