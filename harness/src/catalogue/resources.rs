//! `resources/list/complete`, `resources/read/listed`, `resources/templates/shape` and
//! `resources/templates/read-expanded` (FEAT-4, FEAT-5; POL-31): what a server lists is read.
//!
//! The listing is followed page by page (bounded: [`surface::MAX_PAGES`] pages, `--max-items`
//! items); each listed resource is judged, then read; each template is checked as an RFC 6570
//! template, expanded with values from `completion/complete` (when the server declares
//! completions), else from a listed resource that is an instance of it, else a placeholder,
//! and the expansion is read (a not-found there is Info: a template may describe resources
//! that do not exist yet). Only read-only methods; in either era (POL-28).
//!
//! Also the error path (2026-07-28, [`error_paths`]): `resources/read` of a URI that cannot
//! exist is -32602.

use serde_json::{Map, Value, json};

use super::prelude::*;
use super::support::expect_code_or;
use super::surface::{self, Tally};
use super::uri_template::Template;
use crate::outcome::Kind;

pub fn group() -> Vec<Check> {
    vec![
        Check {
            id: "resources/list/complete",
            requirements: &["FEAT-4", "SCHEMA-1", "POL-28", "POL-31"],
            level: Level::Must,
            era: Era::Any,
            isolation: Isolation::Shared,
            needs: &[Need::AnyEra, Need::Capability("resources")],
            description: "`resources/list` followed page by page (up to --max-items resources); \
                          each listed resource judged.",
            expectation: "every listed resource has a string `name` and a string `uri` that is \
                          an absolute URI; every page valid under the schema",
            faults: &[
                "resource-listed-without-name",
                "resource-listed-relative-uri",
                "resource-listed-relative-uri --eras legacy",
            ],
            script: |s| Box::pin(list_complete(s)),
        },
        Check {
            id: "resources/read/listed",
            requirements: &["FEAT-4", "SCHEMA-1", "POL-28", "POL-31"],
            level: Level::Must,
            era: Era::Any,
            isolation: Isolation::Shared,
            needs: &[Need::AnyEra, Need::Capability("resources")],
            description: "`resources/read` of each of the first --max-items listed resources.",
            expectation: "a result whose `contents` items each carry the URI read (or one under \
                          it) and exactly one of `text` or base64 `blob`; a `mimeType` other than \
                          the listing's is NonStrict (FEAT-4: SHOULD agree), a missing one is \
                          fine (optional in every schema)",
            faults: &[
                "listed-resource-unreadable",
                "read-contents-wrong-uri",
                "read-blob-not-base64",
                "read-mime-type-changed",
                "read-contents-wrong-uri --eras legacy",
            ],
            script: |s| Box::pin(read_listed(s)),
        },
        Check {
            id: "resources/templates/shape",
            requirements: &["FEAT-5", "SCHEMA-1", "POL-28", "POL-31"],
            level: Level::Must,
            era: Era::Any,
            isolation: Isolation::Shared,
            needs: &[Need::AnyEra, Need::Capability("resources")],
            description: "`resources/templates/list` followed page by page; each template \
                          judged.",
            expectation: "every template has a string `name` and a `uriTemplate` that is an \
                          RFC 6570 URI template",
            faults: &[
                "template-invalid-uri-template",
                "template-without-name",
                "template-invalid-uri-template --eras legacy",
            ],
            script: |s| Box::pin(templates_shape(s)),
        },
        Check {
            id: "resources/templates/read-expanded",
            requirements: &["FEAT-5", "FEAT-4", "FEAT-7", "SCHEMA-1", "POL-28", "POL-31"],
            level: Level::Must,
            era: Era::Any,
            isolation: Isolation::Shared,
            needs: &[Need::AnyEra, Need::Capability("resources")],
            description: "Each listed template (up to --max-items), expanded with values from \
                          `completion/complete` (when completions are declared), else from a \
                          listed resource that is an instance of it, else `mcpspec`; the \
                          expansion read.",
            expectation: "the template expands; the read's `contents` carry the expanded URI \
                          (or one under it) and `text` or base64 `blob`; an error is Info (the \
                          resource may not exist); a `mimeType` other than the template's is \
                          NonStrict (FEAT-4)",
            faults: &[
                "template-read-unexpanded-uri",
                "template-invalid-uri-template",
                "template-read-unexpanded-uri --eras legacy",
            ],
            script: |s| Box::pin(read_expanded(s)),
        },
    ]
}

/// A resource as a verdict names it.
fn resource_item(uri: Option<&str>, index: usize) -> String {
    match uri {
        Some(uri) => format!("resource {uri}"),
        None => format!("resource #{}", index + 1),
    }
}

async fn list_complete(s: &mut Scenario) -> Verdict {
    surface::require(s, &["resources"])?;
    let max = s.options().max_items;
    let mut peer = s.connect_any_era().await?;
    let walk = surface::walk(s, &mut peer, method::RESOURCES_LIST, "resources", Some(max))
        .await
        .map_err(|f| f.fail())?;
    let mut tally = Tally::new("resources", "FEAT-4");
    walk.record_findings(&mut tally);
    for (i, (page, resource)) in walk.items().into_iter().take(max).enumerate() {
        let uri = surface::string_member(resource, "uri");
        let mut problems = Vec::new();
        match uri {
            None => problems.push("no string `uri`".to_owned()),
            Some(u) if !surface::is_absolute_uri(u) => problems.push(format!(
                "`uri` {u:?} is not an absolute URI (the schema's `format: uri`)"
            )),
            Some(_) => {}
        }
        if surface::string_member(resource, "name").is_none() {
            problems.push(format!(
                "no string `name` ({})",
                resource
                    .get("name")
                    .map_or("absent".into(), |n| preview(n, 30))
            ));
        }
        let evidence = walk.pages.get(page - 1).and_then(|p| p.evidence.clone());
        tally.judge(
            resource_item(uri, i),
            problems
                .into_iter()
                .map(|p| format!("{p} (page {page})"))
                .collect(),
            format!("listed on page {page}"),
            evidence,
        );
    }
    let extent = walk.extent();
    Ok(tally.verdict(
        &format!("complete on {extent}"),
        Outcome::skipped(format!(
            "resources/list lists no resource to judge ({extent})"
        )),
    ))
}

async fn read_listed(s: &mut Scenario) -> Verdict {
    surface::require(s, &["resources"])?;
    let max = s.options().max_items;
    let mut peer = s.connect_any_era().await?;
    let walk = surface::walk(s, &mut peer, method::RESOURCES_LIST, "resources", Some(max))
        .await
        .map_err(|f| f.fail())?;
    let mut tally = Tally::new("resources", "FEAT-4");
    walk.record_findings(&mut tally);
    let resources: Vec<Value> = walk
        .items()
        .into_iter()
        .take(max)
        .map(|(_, r)| r.clone())
        .collect();
    for resource in &resources {
        let Some(uri) = surface::string_member(resource, "uri") else {
            continue;
        };
        let mime = surface::string_member(resource, "mimeType");
        if !read_one(
            s,
            &mut peer,
            &mut tally,
            format!("resource {uri}"),
            uri,
            mime,
            false,
        )
        .await
        {
            break;
        }
    }
    Ok(tally.verdict(
        &format!("read, listed on {}", walk.extent()),
        Outcome::skipped("resources/list lists no resource with a `uri` to read"),
    ))
}

/// Reads `uri` and judges the result into `tally` (FEAT-4); when `expanded`, an error reply is
/// Info (a template may describe resources that do not exist yet), else Fail. `false` when the
/// server stopped answering.
async fn read_one(
    s: &Scenario,
    peer: &mut Peer,
    tally: &mut Tally,
    item: String,
    uri: &str,
    mime: Option<&str>,
    expanded: bool,
) -> bool {
    let reply = peer
        .call(request(method::RESOURCES_READ).param("uri", json!(uri)))
        .await;
    let schema = surface::violations(&s.take_schema_findings());
    let Some(result) = reply.result() else {
        let answered = reply.error().is_some();
        let kind = if answered && expanded {
            Kind::Info
        } else {
            Kind::Fail
        };
        let message = if expanded && answered {
            format!(
                "reading the expansion {uri} got {} (the template may describe resources that \
                 do not exist yet)",
                reply.describe()
            )
        } else {
            format!(
                "reading {uri} got {}; FEAT-4: a listed resource is readable",
                reply.describe()
            )
        };
        tally.unanswered(item, kind, message, schema, reply.evidence());
        return answered;
    };
    let mut problems = surface::read_problems(uri, result);
    problems.extend(schema);
    let deviations = surface::read_deviations(result, mime);
    if problems.is_empty()
        && result
            .get("contents")
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty)
    {
        tally.info(
            item,
            format!("reading {uri} gave empty `contents`: nothing to judge"),
            reply.evidence(),
        );
        return true;
    }
    tally.judge_graded(
        item,
        problems,
        deviations,
        surface::contents_summary(result),
        reply.evidence(),
    );
    true
}

/// A template as a verdict names it.
fn template_item(template: &Value, index: usize) -> String {
    match (
        surface::string_member(template, "uriTemplate"),
        surface::string_member(template, "name"),
    ) {
        (Some(t), _) => format!("template {t}"),
        (None, Some(n)) => format!("template `{n}`"),
        (None, None) => format!("template #{}", index + 1),
    }
}

/// The templates of the listing, or an outcome. A server that does not serve
/// `resources/templates/list` (-32601) is `not_served`'s: the shape check records it (Info),
/// the others have nothing to do (Skipped).
async fn templates(
    s: &Scenario,
    peer: &mut Peer,
    max: usize,
    not_served: fn(String) -> Outcome,
) -> Result<(surface::Walk, Vec<Value>), Outcome> {
    let walk = match surface::walk(
        s,
        peer,
        method::RESOURCES_TEMPLATES_LIST,
        "resourceTemplates",
        Some(max),
    )
    .await
    {
        Ok(walk) => walk,
        Err(f) if f.code() == Some(code::METHOD_NOT_FOUND) => {
            let outcome = not_served(format!(
                "resources/templates/list is not served ({}): no templates",
                f.reply.describe()
            ));
            return Err(if outcome.wants_evidence() {
                outcome.with_evidence(f.reply.evidence())
            } else {
                outcome
            });
        }
        Err(f) => return Err(f.fail()),
    };
    let listed = walk
        .items()
        .into_iter()
        .take(max)
        .map(|(_, t)| t.clone())
        .collect();
    Ok((walk, listed))
}

async fn templates_shape(s: &mut Scenario) -> Verdict {
    surface::require(s, &["resources"])?;
    let max = s.options().max_items;
    let mut peer = s.connect_any_era().await?;
    let (walk, listed) = templates(s, &mut peer, max, Outcome::info).await?;
    let mut tally = Tally::new("templates", "FEAT-5");
    walk.record_findings(&mut tally);
    for (i, template) in listed.iter().enumerate() {
        let mut problems = Vec::new();
        if surface::string_member(template, "name").is_none() {
            problems.push("no string `name`".to_owned());
        }
        let mut ok = String::from("a valid RFC 6570 template");
        match template.get("uriTemplate") {
            Some(Value::String(t)) => match Template::parse(t) {
                Ok(parsed) => {
                    ok = format!("variables {:?}", parsed.variables());
                }
                Err(e) => problems.push(format!("`uriTemplate` is not an RFC 6570 template: {e}")),
            },
            other => problems.push(format!(
                "no string `uriTemplate` ({})",
                other.map_or("absent".into(), |t| preview(t, 30))
            )),
        }
        let page = walk.items().get(i).map(|(p, _)| *p).unwrap_or(1);
        tally.judge(
            template_item(template, i),
            problems,
            ok,
            walk.pages.get(page - 1).and_then(|p| p.evidence.clone()),
        );
    }
    let extent = walk.extent();
    Ok(tally.verdict(
        &format!("valid on {extent}"),
        Outcome::skipped(format!(
            "resources/templates/list lists no template to judge ({extent})"
        )),
    ))
}

async fn read_expanded(s: &mut Scenario) -> Verdict {
    surface::require(s, &["resources"])?;
    let max = s.options().max_items;
    let completes = surface::advertised(s, "completions");
    let mut peer = s.connect_any_era().await?;
    let (walk, listed) = templates(s, &mut peer, max, Outcome::skipped).await?;
    let mut tally = Tally::new("templates", "FEAT-4, FEAT-5");
    walk.record_findings(&mut tally);
    // The listed resources, asked once: an instance of a template gives it example values.
    let mut examples: Option<Vec<String>> = None;
    for (i, template) in listed.iter().enumerate() {
        let item = template_item(template, i);
        let Some(text) = surface::string_member(template, "uriTemplate") else {
            tally.push(
                item,
                Kind::Fail,
                "no string `uriTemplate` to expand (FEAT-5)",
                walk.pages.first().and_then(|p| p.evidence.clone()),
            );
            continue;
        };
        let parsed = match Template::parse(text) {
            Ok(t) => t,
            Err(e) => {
                tally.push(
                    item,
                    Kind::Fail,
                    format!("cannot be expanded: not an RFC 6570 template ({e}; FEAT-5)"),
                    walk.pages.first().and_then(|p| p.evidence.clone()),
                );
                continue;
            }
        };
        if examples.is_none() && !completes {
            examples = Some(listed_uris(s, &mut peer, max).await);
        }
        let mut values: Map<String, Value> = Map::new();
        let mut sources = Vec::new();
        let from_example = examples
            .iter()
            .flatten()
            .find_map(|uri| parsed.match_uri(uri));
        for var in parsed.variables() {
            let completed = if completes {
                let reference = json!({ "type": "ref/resource", "uri": text });
                surface::completed_value(&mut peer, reference, var, &values).await
            } else {
                None
            };
            let (value, source) = match completed {
                Some(v) => (v, "completion"),
                None => match from_example.iter().flatten().find(|(name, _)| name == var) {
                    Some((_, v)) => (v.clone(), "a listed instance"),
                    None => (surface::PLACEHOLDER.to_owned(), "placeholder"),
                },
            };
            sources.push(format!("{var}={value} ({source})"));
            values.insert(var.to_owned(), json!(value));
        }
        // The completions only supply values here: `completion/complete/template-variable`
        // judges them (and their messages).
        s.take_schema_findings();
        let uri = parsed.expand(|name| values.get(name).and_then(Value::as_str).map(str::to_owned));
        let mime = surface::string_member(template, "mimeType");
        let answered = read_one(s, &mut peer, &mut tally, item, &uri, mime, true).await;
        if !sources.is_empty() {
            tally.annotate(&format!("expanded with {}", sources.join(", ")));
        }
        if !answered {
            break;
        }
    }
    Ok(tally.verdict(
        "expanded and read",
        Outcome::skipped(format!(
            "resources/templates/list lists no template to expand ({})",
            walk.extent()
        )),
    ))
}

/// The URIs of the first `max` listed resources (empty when the server lists none or refuses).
/// The listing only supplies example values here: `resources/list/complete` judges it.
async fn listed_uris(s: &Scenario, peer: &mut Peer, max: usize) -> Vec<String> {
    if !surface::advertised(s, "resources") {
        return Vec::new();
    }
    let Ok(walk) = surface::walk(s, peer, method::RESOURCES_LIST, "resources", Some(max)).await
    else {
        return Vec::new();
    };
    walk.items()
        .into_iter()
        .filter_map(|(_, r)| surface::string_member(r, "uri").map(str::to_owned))
        .collect()
}

pub fn error_paths() -> Vec<Check> {
    vec![Check {
        id: "resources/read/not-found",
        requirements: &["FEAT-1", "POL-11"],
        level: Level::Must,
        era: Era::Modern,
        isolation: Isolation::Shared,
        needs: &[Need::Modern, Need::Capability("resources")],
        description: "`resources/read` of a URI that cannot exist.",
        expectation: "error -32602 (not the legacy -32002, not a result with empty `contents`)",
        faults: &[
            "resource-not-found-32002",
            "resource-not-found-empty-contents",
        ],
        script: |s| Box::pin(resource_not_found(s)),
    }]
}

/// A resource URI no server has.
const MISSING_URI: &str = "mcpspec://nonexistent/resource-7f3a";

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
