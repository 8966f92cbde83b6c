//! `pagination/<list>/ends` (FEAT-8; POL-31): each advertised list followed by `nextCursor`
//! ends. A cursor that comes back a second time is a loop (it is not followed again), an item
//! on two pages of one listing is a repeat; both are Fail naming the pages. The walk stops at
//! [`surface::MAX_PAGES`] pages and says so (Info: the end was not reached). In either era
//! (POL-28).

use std::collections::HashMap;

use super::prelude::*;
use super::surface::{self, End, Tally};

pub fn group() -> Vec<Check> {
    vec![
        check(
            "pagination/tools/ends",
            "`tools/list` followed by `nextCursor` until it ends.",
            &[Need::AnyEra, Need::Capability("tools")],
            SINGLE_PAGE_FAULTS,
            |s| Box::pin(ends(s, method::TOOLS_LIST)),
        ),
        check(
            "pagination/prompts/ends",
            "`prompts/list` followed by `nextCursor` until it ends.",
            &[Need::AnyEra, Need::Capability("prompts")],
            FAULTS,
            |s| Box::pin(ends(s, method::PROMPTS_LIST)),
        ),
        check(
            "pagination/resources/ends",
            "`resources/list` followed by `nextCursor` until it ends.",
            &[Need::AnyEra, Need::Capability("resources")],
            FAULTS,
            |s| Box::pin(ends(s, method::RESOURCES_LIST)),
        ),
        check(
            "pagination/resource-templates/ends",
            "`resources/templates/list` followed by `nextCursor` until it ends.",
            &[Need::AnyEra, Need::Capability("resources")],
            SINGLE_PAGE_FAULTS,
            |s| Box::pin(ends(s, method::RESOURCES_TEMPLATES_LIST)),
        ),
    ]
}

/// The faults every list's walk must catch: a looping cursor in either era, and (for the
/// lists the reference server pages) pages that overlap.
const FAULTS: &[&str] = &[
    "list-cursor-repeats",
    "list-pages-overlap",
    "list-cursor-repeats --eras legacy",
];
/// `tools/list` and the templates are one page on the reference server: no overlap to make.
const SINGLE_PAGE_FAULTS: &[&str] = &["list-cursor-repeats", "list-cursor-repeats --eras legacy"];

fn check(
    id: &'static str,
    description: &'static str,
    needs: &'static [Need],
    faults: &'static [&'static str],
    script: crate::check::Script,
) -> Check {
    Check {
        id,
        requirements: &["FEAT-8", "SCHEMA-1", "POL-28", "POL-31"],
        level: Level::Policy,
        era: Era::Any,
        isolation: Isolation::Shared,
        needs,
        description,
        expectation: "the listing ends: no `nextCursor` comes back a second time, no item (by \
                      name, uri or uriTemplate) appears on two pages",
        faults,
        script,
    }
}

/// The list's result key and the capability that gates it.
fn list_of(list: &str) -> (&'static str, &'static str) {
    match list {
        method::TOOLS_LIST => ("tools", "tools"),
        method::PROMPTS_LIST => ("prompts", "prompts"),
        method::RESOURCES_TEMPLATES_LIST => ("resourceTemplates", "resources"),
        _ => ("resources", "resources"),
    }
}

/// What identifies an item of a listing: `uri` for resources, `uriTemplate` for templates,
/// `name` for the rest.
fn identity(list: &str, item: &serde_json::Value) -> Option<String> {
    let key = match list {
        method::RESOURCES_LIST => "uri",
        method::RESOURCES_TEMPLATES_LIST => "uriTemplate",
        _ => "name",
    };
    surface::string_member(item, key)
        .or_else(|| surface::string_member(item, "name"))
        .map(str::to_owned)
}

async fn ends(s: &mut Scenario, list: &'static str) -> Verdict {
    let (key, capability) = list_of(list);
    surface::require(s, &[capability])?;
    let mut peer = s.connect_any_era().await?;
    let walk = match surface::walk(s, &mut peer, list, key, None).await {
        Ok(walk) => walk,
        Err(f)
            if list == method::RESOURCES_TEMPLATES_LIST
                && f.code() == Some(code::METHOD_NOT_FOUND) =>
        {
            return Ok(Outcome::skipped(format!(
                "{list} is not served ({}): no listing to follow",
                f.reply.describe()
            )));
        }
        Err(f) => return Err(f.fail()),
    };
    let mut tally = Tally::new("pages", "FEAT-8");
    walk.record_findings(&mut tally);
    // Where each item was first listed.
    let mut first_seen: HashMap<String, usize> = HashMap::new();
    for page in &walk.pages {
        let items = page
            .result
            .get(key)
            .and_then(serde_json::Value::as_array)
            .cloned()
            .unwrap_or_default();
        let mut problems = Vec::new();
        for item in &items {
            let Some(id) = identity(list, item) else {
                continue;
            };
            match first_seen.get(&id) {
                Some(first) if *first != page.number => {
                    problems.push(format!("repeats `{id}`, listed on page {first} (FEAT-8)"))
                }
                Some(_) => {}
                None => {
                    first_seen.insert(id, page.number);
                }
            }
        }
        if let End::RepeatedCursor {
            page: at,
            first,
            cursor,
        } = &walk.end
        {
            if *at == page.number {
                problems.push(format!(
                    "its `nextCursor` {} was already sent for page {first}: the listing loops \
                     (FEAT-8)",
                    preview(cursor, 60)
                ));
            }
        }
        let next = match page.result.get("nextCursor").filter(|c| !c.is_null()) {
            Some(c) => format!(", nextCursor {}", preview(c, 40)),
            None => ", the last".into(),
        };
        let asked = match &page.cursor {
            Some(c) => format!("asked with cursor {}", preview(c, 40)),
            None => "the first".into(),
        };
        tally.judge(
            format!("{list} page {}", page.number),
            problems,
            format!("{asked}: {} item(s){next}", items.len()),
            page.evidence.clone(),
        );
    }
    let verdict = tally.verdict(
        &format!("{list} ends after {}", walk.extent()),
        Outcome::error(format!("{list}: no page was read")),
    );
    if walk.end == End::PageBound && verdict.kind == crate::outcome::Kind::Pass {
        return Ok(Outcome::info(format!(
            "{list} did not end within {} pages, where mcpspec stops (POL-31); no cursor or \
             item repeated on them",
            surface::MAX_PAGES
        ))
        .with_items(verdict.items));
    }
    Ok(verdict)
}
