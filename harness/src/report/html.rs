//! The HTML report (`run --html FILE`, `report RUN.json --html FILE`): one self-contained page,
//! no network and no external asset (the CSS and the script are `html/report.css` and
//! `html/report.js`, inlined), for triaging a run by reading its conversations.
//!
//! It is rendered from the JSON form of a [`RunReport`](super::RunReport) (a `serde_json::Value`),
//! so a run and a JSON report written earlier give the same page. The page holds: the summary
//! (counts, target, transport, negotiated era and version, duration, processes), the
//! negotiation (and the version matrix when the report carries one), the outcome filters and a
//! search box, and per area each check (the feature surface's areas, POL-31, together under
//! "Features", each check with the items it judged: tool, resource, template, prompt or page,
//! its verdict and a link to the reply it rests on): its verdict, what was expected beside what
//! came, the requirement texts with their source links, and the transcript as a conversation (client
//! left, server right, one bubble per message with its number, connection and time offset;
//! the message the verdict judged and the values a schema violation names are marked).
//!
//! Everything from the report is HTML-escaped here; the script only toggles visibility.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use serde_json::Value;

use crate::requirements;

const CSS: &str = include_str!("html/report.css");
const SCRIPT: &str = include_str!("html/report.js");

/// A message whose pretty form is longer than this many lines is folded (a click opens it).
const FOLD_LINES: usize = 24;

/// The outcome kinds in the order the filters show them: (JSON name, label).
const KINDS: &[(&str, &str)] = &[
    ("fail", "FAIL"),
    ("error", "ERROR"),
    ("non_strict", "NON-STRICT"),
    ("info", "INFO"),
    ("pass", "PASS"),
    ("skipped", "SKIP"),
];

/// The page for `report`, the JSON form of a run report.
pub fn render(report: &Value) -> String {
    let mut out = String::with_capacity(64 * 1024);
    let title = format!("mcpspec — {}", text(&report["target"]));
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\">\
         <title>{}</title><style>{CSS}</style></head><body>\n",
        esc(&title)
    );
    summary(&mut out, report);
    negotiation(&mut out, report);
    filters(&mut out, report);
    checks(&mut out, report);
    let _ = writeln!(out, "<script>{SCRIPT}</script></body></html>");
    out
}

fn summary(out: &mut String, report: &Value) {
    let s = &report["summary"];
    let passed =
        s["unexpected"].as_u64() == Some(0) && s["stale"].as_array().is_none_or(|a| a.is_empty());
    let _ = write!(
        out,
        "<header><h1>mcpspec <span class=\"verdict {cls}\">{verdict}</span></h1><table class=\"facts\">",
        cls = if passed { "ok" } else { "bad" },
        verdict = if passed { "passed" } else { "failed" },
    );
    let n = &report["negotiated"];
    let processes = match report["processes"].as_object() {
        Some(p) => format!(
            "{} started (--isolation {})",
            p.get("started").map_or(0, |v| v.as_u64().unwrap_or(0)),
            p.get("isolation").map(text).unwrap_or_default()
        ),
        None => "-".into(),
    };
    let rows = [
        ("target", text(&report["target"])),
        ("transport", text(&report["transport"])),
        (
            "negotiated",
            format!("{} {}", text(&n["era"]), text(&n["version"])),
        ),
        ("duration", seconds(report["duration_ms"].as_u64())),
        ("processes", processes),
        ("mcpspec", text(&report["mcpspec_version"])),
    ];
    for (name, value) in rows {
        let _ = write!(out, "<tr><th>{name}</th><td>{}</td></tr>", esc(&value));
    }
    out.push_str("</table><p class=\"counts\">");
    let _ = write!(out, "{} checks: ", s["total"].as_u64().unwrap_or(0));
    let counts: Vec<String> = KINDS
        .iter()
        .map(|(kind, label)| {
            format!(
                "<span class=\"badge k-{kind}\">{label}</span> {}",
                s[*kind].as_u64().unwrap_or(0)
            )
        })
        .collect();
    out.push_str(&counts.join(" "));
    out.push_str("</p>");
    if let Some(groups) = s["skipped_by_reason"].as_object() {
        out.push_str("<p class=\"skips\">skipped: ");
        let parts: Vec<String> = groups
            .iter()
            .map(|(why, n)| format!("{} {}", n, esc(why)))
            .collect();
        out.push_str(&parts.join(", "));
        out.push_str("</p>");
    }
    if let Some(u) = s["unexpected"].as_u64().filter(|u| *u > 0) {
        let _ = write!(out, "<p class=\"bad\">{u} unexpected failure(s)</p>");
    }
    for id in s["stale"].as_array().into_iter().flatten() {
        let _ = write!(
            out,
            "<p class=\"bad\">stale baseline entry: {} no longer fails</p>",
            esc(&text(id))
        );
    }
    if let Some(why) = report["target_failure"].as_str() {
        let _ = write!(out, "<p class=\"bad\">target failure: {}</p>", esc(why));
    }
    out.push_str("</header>\n");
}

fn negotiation(out: &mut String, report: &Value) {
    let n = &report["negotiated"];
    out.push_str("<section id=\"negotiation\"><h2>Negotiation</h2><table class=\"grid\">");
    let versions: Vec<String> = n["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(text)
        .collect();
    let _ = write!(
        out,
        "<tr><th>a dual-era client ends</th><td>{} {}</td></tr>\
         <tr><th>path</th><td>{}</td></tr><tr><th>versions served</th><td>{}</td></tr></table>",
        esc(&text(&n["era"])),
        esc(&text(&n["version"])),
        esc(&text(&n["path"])),
        esc(&versions.join(", "))
    );
    if let Some(rows) = report["negotiation_matrix"]["rows"].as_array() {
        out.push_str(
            "<table class=\"grid matrix\"><tr><th>requested</th><th>modern (server/discover)</th>\
             <th>legacy (initialize)</th></tr>",
        );
        for row in rows {
            let _ = write!(
                out,
                "<tr><td>{}</td>{}{}</tr>",
                esc(&text(&row["version"])),
                matrix_cell(&row["modern"]),
                matrix_cell(&row["legacy"])
            );
        }
        out.push_str("</table>");
    } else {
        out.push_str(
            "<p class=\"what\">The version matrix was not asked in this run \
             (<code>mcpspec run --html</code> asks it after the checks).</p>",
        );
    }
    out.push_str("</section>\n");
}

/// One cell of the version matrix, as `mcpspec negotiate` words it.
fn matrix_cell(cell: &Value) -> String {
    let answer = text(&cell["answer"]);
    let words = match answer.as_str() {
        "counter-offered" => format!("counter-offer {}", text(&cell["version"])),
        "error" => {
            let supported: Vec<String> = cell["supported"]
                .as_array()
                .into_iter()
                .flatten()
                .map(text)
                .collect();
            match supported.is_empty() {
                true => format!("error {}", cell["code"]),
                false => format!(
                    "error {} (supported: {})",
                    cell["code"],
                    supported.join(", ")
                ),
            }
        }
        other => other.replace('-', " "),
    };
    format!("<td class=\"a-{}\">{}</td>", esc(&answer), esc(&words))
}

fn filters(out: &mut String, report: &Value) {
    let s = &report["summary"];
    out.push_str("<nav id=\"filters\">");
    for (kind, label) in KINDS {
        let _ = write!(
            out,
            "<label><input type=\"checkbox\" class=\"filter\" id=\"filter-{kind}\" value=\"{kind}\" checked> \
             <span class=\"badge k-{kind}\">{label}</span> {}</label>",
            s[*kind].as_u64().unwrap_or(0)
        );
    }
    let total = s["total"].as_u64().unwrap_or(0);
    let _ = writeln!(
        out,
        "<input type=\"search\" id=\"search\" placeholder=\"search ids, messages, requirements\">\
         <span id=\"shown\">showing {total} of {total}</span></nav>"
    );
}

/// Where a result is shown: its area, or the "Features" group for the feature surface (POL-31).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Group {
    Area(String),
    Features,
}

fn checks(out: &mut String, report: &Value) {
    // Groups in the order their first check appears (catalogue order).
    let mut order: Vec<Group> = Vec::new();
    let mut by_group: HashMap<Group, Vec<&Value>> = HashMap::new();
    for r in report["results"].as_array().into_iter().flatten() {
        let feature = r["requirements"]
            .as_array()
            .is_some_and(|ids| ids.iter().any(|id| id == crate::report::FEATURE_POLICY));
        let group = if feature {
            Group::Features
        } else {
            Group::Area(area_of(&text(&r["id"])))
        };
        if !by_group.contains_key(&group) {
            order.push(group.clone());
        }
        by_group.entry(group).or_default().push(r);
    }
    let catalogue = crate::catalogue::all();
    // A client run (`mcpspec client`): mcpspec is the server side of each conversation.
    let sides = if report.get("client").is_some_and(|c| !c.is_null()) {
        Sides::CLIENT_RUN
    } else {
        Sides::SERVER_RUN
    };
    out.push_str("<main>");
    for group in order {
        let results = by_group.get(&group).map_or(&[][..], Vec::as_slice);
        match &group {
            Group::Area(area) => {
                let _ = write!(out, "<section class=\"area\"><h2>{}</h2>", esc(area));
                for r in results {
                    check(out, r, &catalogue, sides);
                }
            }
            Group::Features => {
                out.push_str(
                    "<section class=\"area features\" id=\"features\"><h2>Features</h2>\
                     <p class=\"what\">What the server lists, read, got, completed and called \
                     (POL-31), item by item.</p>",
                );
                let mut current = String::new();
                for r in results {
                    let area = area_of(&text(&r["id"]));
                    if area != current {
                        let _ = write!(out, "<h3>{}</h3>", esc(&area));
                        current = area;
                    }
                    check(out, r, &catalogue, sides);
                }
            }
        }
        out.push_str("</section>\n");
    }
    out.push_str("</main>");
}

/// The two sides of a conversation: who sends what the transcript calls `send` (mcpspec) and
/// who sends what it calls `recv`.
#[derive(Debug, Clone, Copy)]
struct Sides {
    mcpspec: &'static str,
    other: &'static str,
}

impl Sides {
    const SERVER_RUN: Sides = Sides {
        mcpspec: "client (mcpspec)",
        other: "server",
    };
    const CLIENT_RUN: Sides = Sides {
        mcpspec: "server (mcpspec)",
        other: "client under test",
    };
}

/// A check id without its last segment.
fn area_of(id: &str) -> String {
    id.rsplit_once('/').map_or(id, |(a, _)| a).to_owned()
}

fn check(out: &mut String, r: &Value, catalogue: &[crate::check::Check], sides: Sides) {
    let id = text(&r["id"]);
    let outcome = &r["outcome"];
    let kind = text(&outcome["kind"]);
    let label = KINDS
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or(kind.as_str(), |(_, l)| l);
    let message = text(&outcome["message"]);
    let requirement_ids: Vec<String> = r["requirements"]
        .as_array()
        .into_iter()
        .flatten()
        .map(text)
        .collect();
    // The items a feature check judged are searchable by name (a tool, a URI, a prompt).
    let item_names: Vec<String> = outcome["items"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|i| text(&i["item"]))
        .collect();
    let search = format!(
        "{id} {message} {} {}",
        requirement_ids.join(" "),
        item_names.join(" ")
    )
    .to_lowercase();
    let open = matches!(kind.as_str(), "fail" | "error" | "non_strict");
    let _ = write!(
        out,
        "<article class=\"check k-{kind}\" id=\"check-{}\" data-outcome=\"{kind}\" data-search=\"{}\">\
         <details{}><summary><span class=\"badge k-{kind}\">{label}</span> <code>{}</code> \
         <span class=\"msg\">{}</span> <span class=\"dur\">{} ms</span></summary><div class=\"body\">",
        esc(&id),
        esc(&search),
        if open { " open" } else { "" },
        esc(&id),
        esc(&message),
        r["duration_ms"].as_u64().unwrap_or(0)
    );
    verdict(out, r, catalogue.iter().find(|c| c.id == id));
    items(out, r);
    requirements_list(out, &requirement_ids);
    conversation(out, r, sides);
    out.push_str("</div></details></article>\n");
}

/// The verdict, what was expected beside what came, the judged entry and the baseline reason.
fn verdict(out: &mut String, r: &Value, check: Option<&crate::check::Check>) {
    let outcome = &r["outcome"];
    let _ = write!(
        out,
        "<p class=\"message\">{}</p>",
        esc(&text(&outcome["message"]))
    );
    let kind = text(&outcome["kind"]);
    let observed = if let Some(m) = outcome["mismatch"].as_object() {
        Some((
            m.get("expected").map(text).unwrap_or_default(),
            m.get("actual").map(text).unwrap_or_default(),
        ))
    } else if kind != "pass" && kind != "skipped" {
        let came = outcome["evidence"]["quote"]
            .as_str()
            .map_or_else(|| text(&outcome["message"]), str::to_owned);
        check.map(|c| (c.expectation.to_owned(), came))
    } else {
        None
    };
    if let Some((expected, actual)) = observed {
        let _ = write!(
            out,
            "<div class=\"versus\"><div><h4>expected</h4><pre>{}</pre></div>\
             <div><h4>observed</h4><pre>{}</pre></div></div>",
            esc(&expected),
            esc(&actual)
        );
    }
    if let Some(e) = outcome["evidence"].as_object() {
        let _ = write!(
            out,
            "<p class=\"judged\">judged: <a href=\"#{}\">transcript entry {} (connection {})</a></p>",
            esc(&entry_anchor(
                &text(&r["id"]),
                e.get("entry"),
                e.get("conn")
            )),
            e.get("entry").map(text).unwrap_or_default(),
            e.get("conn").map(text).unwrap_or_default()
        );
    }
    if let Some(reason) = r["baseline_reason"].as_str() {
        let _ = write!(out, "<p class=\"baseline\">baseline: {}</p>", esc(reason));
    }
    if let Some(transport) = r["transport"].as_str() {
        let _ = write!(out, "<p class=\"via\">over {}</p>", esc(transport));
    }
    if let Some(c) = check {
        let _ = write!(out, "<p class=\"what\">{}</p>", esc(c.description));
    }
}

/// The items a feature-surface check judged: what, its verdict, its message, and the reply it
/// rests on (a link into the conversation below).
fn items(out: &mut String, r: &Value) {
    let Some(items) = r["outcome"]["items"].as_array().filter(|i| !i.is_empty()) else {
        return;
    };
    let id = text(&r["id"]);
    out.push_str(
        "<table class=\"grid items\"><tr><th>item</th><th>verdict</th><th>message</th>\
         <th>reply</th></tr>",
    );
    for item in items {
        let kind = text(&item["kind"]);
        let label = KINDS
            .iter()
            .find(|(k, _)| *k == kind)
            .map_or(kind.as_str(), |(_, l)| l);
        let e = &item["evidence"];
        let link = if e.is_object() {
            format!(
                "<a href=\"#{}\">entry {}</a>",
                esc(&entry_anchor(&id, e.get("entry"), e.get("conn"))),
                esc(&text(&e["entry"]))
            )
        } else {
            String::new()
        };
        let _ = write!(
            out,
            "<tr class=\"k-{kind}\"><td><code>{}</code></td><td><span class=\"badge k-{kind}\">{label}</span></td>\
             <td>{}</td><td>{link}</td></tr>",
            esc(&text(&item["item"])),
            esc(&text(&item["message"]))
        );
    }
    out.push_str("</table>");
}

fn requirements_list(out: &mut String, ids: &[String]) {
    out.push_str("<ul class=\"reqs\">");
    for id in ids {
        match requirements::requirement(id) {
            Some(q) => {
                let links: Vec<String> = requirements::source_links(q)
                    .into_iter()
                    .map(|url| format!("<a href=\"{}\">source</a>", esc(&url)))
                    .collect();
                let _ = write!(
                    out,
                    "<li><b>{}</b> [{}] {} {}</li>",
                    esc(&q.id),
                    esc(&q.level),
                    esc(&q.text),
                    links.join(" ")
                );
            }
            None => {
                let title = requirements::POLICIES
                    .iter()
                    .find(|(p, _)| p == id)
                    .map_or("", |(_, t)| t);
                let _ = write!(out, "<li><b>{}</b> policy: {}</li>", esc(id), esc(title));
            }
        }
    }
    out.push_str("</ul>");
}

/// The transcript as a conversation: client bubbles left, server bubbles right, other events
/// across both columns.
fn conversation(out: &mut String, r: &Value, sides: Sides) {
    let Some(entries) = r["transcript"].as_array().filter(|e| !e.is_empty()) else {
        return;
    };
    let id = text(&r["id"]);
    let judged = &r["outcome"]["evidence"];
    // The schema violations by the entry of the message they are about.
    let mut violations: BTreeMap<u64, Vec<&Value>> = BTreeMap::new();
    for e in entries {
        if e["event"] == "schema_violations" {
            if let Some(entry) = e["entry"].as_u64() {
                violations
                    .entry(entry)
                    .or_default()
                    .extend(e["violations"].as_array().into_iter().flatten());
            }
        }
    }
    let _ = write!(
        out,
        "<div class=\"conversation\"><div class=\"side client\">{}</div>\
         <div class=\"side server\">{}</div>",
        sides.mcpspec, sides.other
    );
    for e in entries {
        let event = text(&e["event"]);
        let side = match event.as_str() {
            "send" | "send_raw" | "answer" => "client",
            "recv" | "recv_large" | "recv_invalid" => "server",
            _ => "event",
        };
        let is_judged = judged["entry"] == e["seq"] && judged["conn"] == e["conn"];
        let found = e["seq"].as_u64().and_then(|s| violations.get(&s));
        let mut classes = format!("bubble {side}");
        if is_judged {
            classes.push_str(" judged");
        }
        if found.is_some() {
            classes.push_str(" violates");
        }
        let at = e["at_ms"]
            .as_u64()
            .map_or(String::new(), |ms| format!(" · +{ms} ms"));
        let status = e["http_status"]
            .as_u64()
            .map_or(String::new(), |s| format!(" · HTTP {s}"));
        let _ = write!(
            out,
            "<div class=\"{classes}\" id=\"{}\"><div class=\"meta\">#{} · conn {}{at}{status} · {}{}</div>",
            esc(&entry_anchor(&id, Some(&e["seq"]), Some(&e["conn"]))),
            e["seq"],
            e["conn"],
            esc(&event.replace('_', " ")),
            if is_judged { " · <b>judged</b>" } else { "" }
        );
        let marks: Vec<String> = found
            .into_iter()
            .flatten()
            .flat_map(|v| absolute_pointers(&e["message"], &text(&v["pointer"])))
            .collect();
        body(out, e, &event, &marks);
        if let Some(found) = found {
            out.push_str("<ul class=\"violations\">");
            for v in found {
                let _ = write!(
                    out,
                    "<li>{} at <code>{}</code>: expected {}, got {}</li>",
                    esc(&text(&v["method"])),
                    esc(&text(&v["pointer"])),
                    esc(&text(&v["expected"])),
                    esc(&text(&v["actual"]))
                );
            }
            out.push_str("</ul>");
        }
        out.push_str("</div>");
    }
    out.push_str("</div>");
}

/// The event's content: a message pretty-printed (folded when long), raw text, or the event's
/// own words.
fn body(out: &mut String, e: &Value, event: &str, marks: &[String]) {
    let words = match event {
        "send" | "recv" | "answer" => {
            let mut pretty = String::new();
            pretty_json(&mut pretty, &e["message"], 0, &mut String::new(), marks);
            folded(out, &pretty, e["message"].to_string().len());
            return;
        }
        "send_raw" => text(&e["text"]),
        "recv_large" => format!(
            "{} bytes, first ones kept: {}",
            e["bytes"],
            text(&e["text"])
        ),
        "recv_invalid" => format!(
            "{}\n— not a JSON-RPC message: {}",
            text(&e["text"]),
            text(&e["error"])
        ),
        "connect" => format!("connected to {}", text(&e["target"])),
        "timeout" => format!(
            "nothing within {} ms (waiting for {})",
            e["waited_ms"],
            text(&e["waiting_for"])
        ),
        "overflow" => format!("a line over the {}-byte bound", e["limit"]),
        "closed" => "the server closed its output".into(),
        "close_input" => "mcpspec closed the server's input".into(),
        "exit" => format!("the server ended: {}", text(&e["how"])),
        "send_failed" => format!("could not send: {}", text(&e["error"])),
        "note" => text(&e["text"]),
        "schema_violations" => format!("schema violations of entry {} (marked there)", e["entry"]),
        "dropped" => format!(
            "{} more events ({} bytes) counted, not kept",
            e["events"], e["bytes"]
        ),
        other => other.to_owned(),
    };
    folded(out, &esc(&words), words.len());
}

/// `html` (already escaped) in a `<pre>`, inside a closed `<details>` when it is long.
fn folded(out: &mut String, html: &str, bytes: usize) {
    let lines = html.lines().count();
    if lines > FOLD_LINES {
        let _ = write!(
            out,
            "<details class=\"long\"><summary>{lines} lines, {bytes} bytes</summary><pre>{html}</pre></details>"
        );
    } else {
        let _ = write!(out, "<pre>{html}</pre>");
    }
}

/// Where a violation's pointer (into the `result`, `error` or `params` member) is in the whole
/// message.
fn absolute_pointers(message: &Value, pointer: &str) -> Vec<String> {
    ["result", "error", "params"]
        .iter()
        .filter(|m| message.get(**m).is_some())
        .map(|m| format!("/{m}{pointer}"))
        .collect()
}

/// Pretty JSON as escaped HTML; the values at `marks` (JSON pointers) wrapped in
/// `<mark class="violation">`.
fn pretty_json(out: &mut String, v: &Value, indent: usize, path: &mut String, marks: &[String]) {
    let marked = !marks.is_empty() && marks.iter().any(|m| m == path);
    if marked {
        out.push_str("<mark class=\"violation\">");
    }
    let pad = |n: usize| "  ".repeat(n);
    match v {
        Value::Object(map) if !map.is_empty() => {
            out.push_str("{\n");
            for (i, (k, child)) in map.iter().enumerate() {
                let _ = write!(
                    out,
                    "{}<b>{}</b>: ",
                    pad(indent + 1),
                    esc(&Value::from(k.as_str()).to_string())
                );
                let len = path.len();
                let _ = write!(path, "/{}", k.replace('~', "~0").replace('/', "~1"));
                pretty_json(out, child, indent + 1, path, marks);
                path.truncate(len);
                out.push_str(if i + 1 < map.len() { ",\n" } else { "\n" });
            }
            let _ = write!(out, "{}}}", pad(indent));
        }
        Value::Array(items) if !items.is_empty() => {
            out.push_str("[\n");
            for (i, child) in items.iter().enumerate() {
                out.push_str(&pad(indent + 1));
                let len = path.len();
                let _ = write!(path, "/{i}");
                pretty_json(out, child, indent + 1, path, marks);
                path.truncate(len);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            let _ = write!(out, "{}]", pad(indent));
        }
        other => out.push_str(&esc(&other.to_string())),
    }
    if marked {
        out.push_str("</mark>");
    }
}

fn entry_anchor(id: &str, seq: Option<&Value>, conn: Option<&Value>) -> String {
    format!(
        "{}-{}-{}",
        id.replace('/', "."),
        conn.map(text).unwrap_or_default(),
        seq.map(text).unwrap_or_default()
    )
}

/// A JSON value as plain text: a string's contents, `-` for null, anything else as JSON.
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "-".into(),
        other => other.to_string(),
    }
}

fn seconds(ms: Option<u64>) -> String {
    ms.map_or("-".into(), |ms| format!("{:.2} s", ms as f64 / 1000.0))
}

/// HTML-escapes text for element content and double-quoted attributes.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_from_the_report_is_escaped() {
        assert_eq!(esc("<script>\"&'"), "&lt;script&gt;&quot;&amp;&#39;");
    }

    #[test]
    fn a_long_message_is_folded_and_a_short_one_is_not() {
        let long = serde_json::json!({ "items": (0..40).collect::<Vec<_>>() });
        let entry = serde_json::json!({ "seq": 1, "conn": 1, "event": "recv", "message": long });
        let mut html = String::new();
        body(&mut html, &entry, "recv", &[]);
        assert!(
            html.starts_with("<details class=\"long\"><summary>44 lines, 121 bytes"),
            "{html}"
        );
        let short =
            serde_json::json!({ "seq": 1, "conn": 1, "event": "recv", "message": {"id": 1} });
        let mut html = String::new();
        body(&mut html, &short, "recv", &[]);
        assert!(html.starts_with("<pre>{"), "{html}");
    }

    #[test]
    fn a_violation_is_marked_at_its_path() {
        let message = serde_json::json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "txt"}]}});
        let marks = absolute_pointers(&message, "/content/0");
        let mut html = String::new();
        pretty_json(&mut html, &message, 0, &mut String::new(), &marks);
        assert!(
            html.contains(
                "<mark class=\"violation\">{\n        <b>&quot;type&quot;</b>: &quot;txt&quot;\n      }</mark>"
            ),
            "{html}"
        );
        assert_eq!(html.matches("<mark").count(), 1, "{html}");
    }
}
