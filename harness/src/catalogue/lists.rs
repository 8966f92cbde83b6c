//! `lists/*` (2026-07-28): cursors the server did not issue are rejected; lists do not vary
//! per connection and `tools/list` has a fixed order. (Their cache hints: `caching.rs`.)
//!
//! Only read-only methods: the lists the server advertises (POL-11).

use serde_json::json;

use super::prelude::*;
use super::support::{advertised_lists, expect_code_or, name_of};

pub fn group() -> Vec<Check> {
    vec![
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
            expectation: "the same tool names in the same order every time; another order is \
                          NonStrict (LIST-2: SHOULD)",
            faults: &["list-order-random"],
            script: |s| Box::pin(order_deterministic(s)),
        },
    ]
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
        Outcome::non_strict(format!(
            "tools/list order changed between calls (LIST-2: SHOULD be deterministic): {}",
            orders
                .iter()
                .map(|o| format!("{o:?}"))
                .collect::<Vec<_>>()
                .join(" then ")
        ))
    })
}
