//! The HTML report (`run --html FILE`, `report RUN.json --html FILE`): one self-contained page,
//! no network and no external asset (the CSS and the script are `html/report.css` and
//! `html/report.js`, inlined), for triaging a run by reading its conversations.
//!
//! It is rendered from the typed [`RunReport`] (a JSON report is read back into one first), so
//! a run and a JSON report written earlier give the same page. The page holds: the summary
//! (counts, target, transport, negotiated era and version, duration, processes), the
//! negotiation (and the version matrix when the report carries one), the outcome filters and a
//! search box, and per area each check (the feature surface's areas, POL-31, together under
//! "Features", each check with the items it judged: tool, resource, template, prompt or page,
//! its verdict and a link to the reply it rests on): its verdict, what was expected beside what
//! came, the requirement texts with their source links, and the transcript as a conversation
//! (client left, server right, one bubble per message with its number, connection and time offset;
//! the message the verdict judged and the values a schema violation names are marked).
//!
//! | outcome | badge, filter and class | opened |
//! |---|---|---|
//! | each [`Kind`] | `k-{Kind::key}` (`k-non_strict`), labelled [`Kind::label`] | Fail, Error, NonStrict |
//!
//! Everything from the report is HTML-escaped here; the script only toggles visibility.
//! May import the report types and what they carry (the outcome model, the transcript, the
//! negotiation matrix, schema violations), the check catalogue (a check's description and
//! expectation) and the requirement catalogue.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use serde_json::Value;

use super::{CheckResult, RunReport};
use crate::check::Check;
use crate::negotiation::Cell;
use crate::outcome::Kind;
use crate::requirements;
use crate::schema::Violation;
use mcpspec_core::transcript::{Entry, Event};

const CSS: &str = include_str!("html/report.css");
const SCRIPT: &str = include_str!("html/report.js");

/// A message whose pretty form is longer than this many lines is folded (a click opens it).
const FOLD_LINES: usize = 24;

/// The outcome kinds in the order the filters show them (the matrix page's too).
pub const FILTER_ORDER: [Kind; 6] = [
    Kind::Fail,
    Kind::Error,
    Kind::NonStrict,
    Kind::Info,
    Kind::Pass,
    Kind::Skipped,
];

/// The page for `report`.
pub fn render(report: &RunReport) -> String {
    let mut out = String::with_capacity(64 * 1024);
    let title = format!("mcpspec — {}", report.target);
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

/// Whether a check of this kind is shown opened: the verdicts a reader came for.
fn opened(kind: Kind) -> bool {
    matches!(kind, Kind::Fail | Kind::Error | Kind::NonStrict)
}

fn badge(kind: Kind) -> String {
    format!(
        "<span class=\"badge k-{}\">{}</span>",
        kind.key(),
        kind.label()
    )
}

fn summary(out: &mut String, report: &RunReport) {
    let s = &report.summary;
    let passed = report.passed();
    let _ = write!(
        out,
        "<header><h1>mcpspec <span class=\"verdict {cls}\">{verdict}</span></h1><table class=\"facts\">",
        cls = if passed { "ok" } else { "bad" },
        verdict = if passed { "passed" } else { "failed" },
    );
    let n = &report.negotiated;
    let processes = match &report.processes {
        Some(p) => format!("{} started (--isolation {})", p.started, p.isolation),
        None => "-".into(),
    };
    let rows = [
        ("target", report.target.clone()),
        ("transport", report.transport.clone()),
        (
            "negotiated",
            format!("{} {}", n.era, n.version.as_deref().unwrap_or("-")),
        ),
        ("duration", seconds(report.duration_ms)),
        ("processes", processes),
        ("mcpspec", report.mcpspec_version.clone()),
    ];
    for (name, value) in rows {
        let _ = write!(out, "<tr><th>{name}</th><td>{}</td></tr>", esc(&value));
    }
    out.push_str("</table><p class=\"counts\">");
    let _ = write!(out, "{} checks: ", s.total);
    let counts: Vec<String> = FILTER_ORDER
        .iter()
        .map(|kind| format!("{} {}", badge(*kind), s.count(*kind)))
        .collect();
    out.push_str(&counts.join(" "));
    out.push_str("</p>");
    if !s.skipped_by_reason.is_empty() {
        out.push_str("<p class=\"skips\">skipped: ");
        let parts: Vec<String> = s
            .skipped_by_reason
            .iter()
            .map(|(why, n)| format!("{} {}", n, esc(why)))
            .collect();
        out.push_str(&parts.join(", "));
        out.push_str("</p>");
    }
    if s.unexpected > 0 {
        let _ = write!(
            out,
            "<p class=\"bad\">{} unexpected failure(s)</p>",
            s.unexpected
        );
    }
    for id in &s.stale {
        let _ = write!(
            out,
            "<p class=\"bad\">stale baseline entry: {} no longer fails</p>",
            esc(id)
        );
    }
    if let Some(why) = &report.target_failure {
        let _ = write!(out, "<p class=\"bad\">target failure: {}</p>", esc(why));
    }
    out.push_str("</header>\n");
}

fn negotiation(out: &mut String, report: &RunReport) {
    let n = &report.negotiated;
    out.push_str("<section id=\"negotiation\"><h2>Negotiation</h2><table class=\"grid\">");
    let _ = write!(
        out,
        "<tr><th>a dual-era client ends</th><td>{} {}</td></tr>\
         <tr><th>path</th><td>{}</td></tr><tr><th>versions served</th><td>{}</td></tr></table>",
        esc(&n.era),
        esc(n.version.as_deref().unwrap_or("-")),
        esc(&n.path),
        esc(&n.versions.join(", "))
    );
    if let Some(matrix) = &report.negotiation_matrix {
        out.push_str(
            "<table class=\"grid matrix\"><tr><th>requested</th><th>modern (server/discover)</th>\
             <th>legacy (initialize)</th></tr>",
        );
        for row in &matrix.rows {
            let _ = write!(
                out,
                "<tr><td>{}</td>{}{}</tr>",
                esc(&row.version),
                matrix_cell(&row.modern),
                matrix_cell(&row.legacy)
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

/// One cell of the version matrix, as `mcpspec negotiate` words it; its class names the
/// answer as the JSON report does.
fn matrix_cell(cell: &Cell) -> String {
    let (class, words) = match cell {
        Cell::Served => ("served", "served".to_owned()),
        Cell::CounterOffered { version } => ("counter-offered", format!("counter-offer {version}")),
        Cell::Error { code, supported } => (
            "error",
            match supported.as_deref() {
                None | Some([]) => format!("error {code}"),
                Some(versions) => format!("error {code} (supported: {})", versions.join(", ")),
            },
        ),
        Cell::UnexpectedResult => ("unexpected-result", "unexpected result".to_owned()),
        Cell::NoReply => ("no-reply", "no reply".to_owned()),
    };
    format!("<td class=\"a-{class}\">{}</td>", esc(&words))
}

fn filters(out: &mut String, report: &RunReport) {
    let s = &report.summary;
    out.push_str("<nav id=\"filters\">");
    for kind in FILTER_ORDER {
        let _ = write!(
            out,
            "<label><input type=\"checkbox\" class=\"filter\" id=\"filter-{key}\" value=\"{key}\" checked> \
             {} {}</label>",
            badge(kind),
            s.count(kind),
            key = kind.key(),
        );
    }
    let _ = writeln!(
        out,
        "<input type=\"search\" id=\"search\" placeholder=\"search ids, messages, requirements\">\
         <span id=\"shown\">showing {total} of {total}</span></nav>",
        total = s.total
    );
}

/// Where a result is shown: its area, or the "Features" group for the feature surface (POL-31).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Group<'a> {
    Area(&'a str),
    Features,
}

fn checks(out: &mut String, report: &RunReport) {
    // Groups in the order their first check appears (catalogue order).
    let mut order: Vec<Group> = Vec::new();
    let mut by_group: HashMap<Group, Vec<&CheckResult>> = HashMap::new();
    for r in &report.results {
        let group = if r.is_feature() {
            Group::Features
        } else {
            Group::Area(r.area())
        };
        if !by_group.contains_key(&group) {
            order.push(group);
        }
        by_group.entry(group).or_default().push(r);
    }
    let catalogue = crate::catalogue::all();
    // A client run (`mcpspec client`): mcpspec is the server side of each conversation.
    let sides = if report.client.is_some() {
        Sides::CLIENT_RUN
    } else {
        Sides::SERVER_RUN
    };
    out.push_str("<main>");
    for group in order {
        let results = by_group.get(&group).map_or(&[][..], Vec::as_slice);
        match group {
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
                let mut current = "";
                for r in results {
                    if r.area() != current {
                        current = r.area();
                        let _ = write!(out, "<h3>{}</h3>", esc(current));
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

fn check(out: &mut String, r: &CheckResult, catalogue: &[Check], sides: Sides) {
    let kind = r.outcome.kind;
    // The items a feature check judged are searchable by name (a tool, a URI, a prompt).
    let item_names: Vec<&str> = r.outcome.items.iter().map(|i| i.item.as_str()).collect();
    let search = format!(
        "{} {} {} {}",
        r.id,
        r.outcome.message,
        r.requirements.join(" "),
        item_names.join(" ")
    )
    .to_lowercase();
    let _ = write!(
        out,
        "<article class=\"check k-{key}\" id=\"check-{}\" data-outcome=\"{key}\" data-search=\"{}\">\
         <details{}><summary>{} <code>{}</code> \
         <span class=\"msg\">{}</span> <span class=\"dur\">{} ms</span></summary><div class=\"body\">",
        esc(&r.id),
        esc(&search),
        if opened(kind) { " open" } else { "" },
        badge(kind),
        esc(&r.id),
        esc(&r.outcome.message),
        r.duration_ms,
        key = kind.key(),
    );
    verdict(out, r, catalogue.iter().find(|c| c.id == r.id));
    items(out, r);
    requirements_list(out, &r.requirements);
    conversation(out, r, sides);
    out.push_str("</div></details></article>\n");
}

/// The verdict, what was expected beside what came, the judged entry and the baseline reason.
fn verdict(out: &mut String, r: &CheckResult, check: Option<&Check>) {
    let outcome = &r.outcome;
    let _ = write!(out, "<p class=\"message\">{}</p>", esc(&outcome.message));
    let observed = if let Some(m) = &outcome.mismatch {
        Some((m.expected.clone(), m.actual.clone()))
    } else if outcome.wants_evidence() {
        let came = outcome
            .evidence
            .as_ref()
            .map_or_else(|| outcome.message.clone(), |e| e.quote.clone());
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
    if let Some(e) = &outcome.evidence {
        let _ = write!(
            out,
            "<p class=\"judged\">judged: <a href=\"#{}\">transcript entry {} (connection {})</a></p>",
            esc(&entry_anchor(&r.id, e.conn, e.entry)),
            e.entry,
            e.conn
        );
    }
    if let Some(reason) = &r.baseline_reason {
        let _ = write!(out, "<p class=\"baseline\">baseline: {}</p>", esc(reason));
    }
    if let Some(transport) = &r.transport {
        let _ = write!(out, "<p class=\"via\">over {}</p>", esc(transport));
    }
    if let Some(c) = check {
        let _ = write!(out, "<p class=\"what\">{}</p>", esc(c.description));
    }
}

/// The items a feature-surface check judged: what, its verdict, its message, and the reply it
/// rests on (a link into the conversation below).
fn items(out: &mut String, r: &CheckResult) {
    if r.outcome.items.is_empty() {
        return;
    }
    out.push_str(
        "<table class=\"grid items\"><tr><th>item</th><th>verdict</th><th>message</th>\
         <th>reply</th></tr>",
    );
    for item in &r.outcome.items {
        let link = item.evidence.as_ref().map_or_else(String::new, |e| {
            format!(
                "<a href=\"#{}\">entry {}</a>",
                esc(&entry_anchor(&r.id, e.conn, e.entry)),
                e.entry
            )
        });
        let _ = write!(
            out,
            "<tr class=\"k-{key}\"><td><code>{}</code></td><td>{}</td><td>{}</td><td>{link}</td></tr>",
            esc(&item.item),
            badge(item.kind),
            esc(&item.message),
            key = item.kind.key(),
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

/// Which column an event goes in.
fn side(event: &Event) -> &'static str {
    match event {
        Event::Send { .. } | Event::SendRaw { .. } | Event::Answer { .. } => "client",
        Event::Recv { .. } | Event::RecvLarge { .. } | Event::RecvInvalid { .. } => "server",
        _ => "event",
    }
}

/// The event's name in the bubble's heading.
fn event_name(event: &Event) -> &'static str {
    match event {
        Event::Connect { .. } => "connect",
        Event::Send { .. } => "send",
        Event::SendRaw { .. } => "send raw",
        Event::Recv { .. } => "recv",
        Event::RecvLarge { .. } => "recv large",
        Event::RecvInvalid { .. } => "recv invalid",
        Event::Answer { .. } => "answer",
        Event::Timeout { .. } => "timeout",
        Event::Overflow { .. } => "overflow",
        Event::Closed => "closed",
        Event::CloseInput => "close input",
        Event::Exit { .. } => "exit",
        Event::SendFailed { .. } => "send failed",
        Event::Note { .. } => "note",
        Event::SchemaViolations { .. } => "schema violations",
        Event::Dropped { .. } => "dropped",
    }
}

/// The HTTP status a received message came with.
fn http_status(event: &Event) -> Option<u16> {
    match event {
        Event::Recv { http_status, .. }
        | Event::RecvLarge { http_status, .. }
        | Event::RecvInvalid { http_status, .. } => *http_status,
        _ => None,
    }
}

/// The transcript as a conversation: client bubbles left, server bubbles right, other events
/// across both columns.
fn conversation(out: &mut String, r: &CheckResult, sides: Sides) {
    if r.transcript.is_empty() {
        return;
    }
    let judged = r.outcome.evidence.as_ref().map(|e| (e.conn, e.entry));
    // The schema violations by the entry of the message they are about.
    let mut violations: BTreeMap<u32, Vec<&Violation>> = BTreeMap::new();
    for e in &r.transcript {
        if let Event::SchemaViolations {
            entry: Some(entry),
            violations: found,
        } = &e.event
        {
            violations.entry(*entry).or_default().extend(found);
        }
    }
    let _ = write!(
        out,
        "<div class=\"conversation\"><div class=\"side client\">{}</div>\
         <div class=\"side server\">{}</div>",
        sides.mcpspec, sides.other
    );
    for e in &r.transcript {
        let is_judged = judged == Some((e.conn, e.seq));
        let found = violations.get(&e.seq);
        let mut classes = format!("bubble {}", side(&e.event));
        if is_judged {
            classes.push_str(" judged");
        }
        if found.is_some() {
            classes.push_str(" violates");
        }
        let at = e.at_ms.map_or(String::new(), |ms| format!(" · +{ms} ms"));
        let status = http_status(&e.event).map_or(String::new(), |s| format!(" · HTTP {s}"));
        let _ = write!(
            out,
            "<div class=\"{classes}\" id=\"{}\"><div class=\"meta\">#{} · conn {}{at}{status} · {}{}</div>",
            esc(&entry_anchor(&r.id, e.conn, e.seq)),
            e.seq,
            e.conn,
            event_name(&e.event),
            if is_judged { " · <b>judged</b>" } else { "" }
        );
        let marks: Vec<String> = match (&e.event, found) {
            (Event::Recv { message, .. }, Some(found)) => found
                .iter()
                .flat_map(|v| absolute_pointers(message, &v.pointer))
                .collect(),
            _ => Vec::new(),
        };
        body(out, e, &marks);
        if let Some(found) = found {
            out.push_str("<ul class=\"violations\">");
            for v in found {
                let _ = write!(
                    out,
                    "<li>{} at <code>{}</code>: expected {}, got {}</li>",
                    esc(&v.method),
                    esc(&v.pointer),
                    esc(&v.expected),
                    esc(&v.actual)
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
fn body(out: &mut String, e: &Entry, marks: &[String]) {
    let words = match &e.event {
        Event::Send { message } | Event::Recv { message, .. } | Event::Answer { message } => {
            let mut pretty = String::new();
            pretty_json(&mut pretty, message, 0, &mut String::new(), marks);
            folded(out, &pretty, message.to_string().len());
            return;
        }
        Event::SendRaw { text } => text.clone(),
        Event::RecvLarge { bytes, text, .. } => {
            format!("{bytes} bytes, first ones kept: {text}")
        }
        Event::RecvInvalid { text, error, .. } => {
            format!("{text}\n— not a JSON-RPC message: {error}")
        }
        Event::Connect { target } => format!("connected to {target}"),
        Event::Timeout {
            waited_ms,
            waiting_for,
        } => format!("nothing within {waited_ms} ms (waiting for {waiting_for})"),
        Event::Overflow { limit } => format!("a line over the {limit}-byte bound"),
        Event::Closed => "the server closed its output".into(),
        Event::CloseInput => "mcpspec closed the server's input".into(),
        Event::Exit { how } => format!("the server ended: {how}"),
        Event::SendFailed { error } => format!("could not send: {error}"),
        Event::Note { text } => text.clone(),
        Event::SchemaViolations { entry, .. } => match entry {
            Some(entry) => format!("schema violations of entry {entry} (marked there)"),
            None => "schema violations of a message not in the transcript".into(),
        },
        Event::Dropped { events, bytes } => {
            format!("{events} more events ({bytes} bytes) counted, not kept")
        }
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

fn entry_anchor(id: &str, conn: u32, seq: u32) -> String {
    format!("{}-{conn}-{seq}", id.replace('/', "."))
}

fn seconds(ms: u64) -> String {
    format!("{:.2} s", ms as f64 / 1000.0)
}

/// HTML-escapes text for element content and double-quoted attributes (the matrix page
/// escapes with it too).
pub fn esc(s: &str) -> String {
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

    fn recv(message: Value) -> Entry {
        Entry {
            seq: 1,
            conn: 1,
            at_ms: None,
            instance: None,
            event: Event::Recv {
                message,
                http_status: None,
            },
        }
    }

    #[test]
    fn the_stylesheet_colours_every_kind_and_the_page_labels_and_filters_it() {
        for kind in Kind::ALL {
            let key = kind.key();
            assert!(CSS.contains(&format!("--{key}:")), "no colour for {key}");
            assert!(
                CSS.contains(&format!(".k-{key}.badge{{background:var(--{key})}}")),
                "no badge colour for {key}"
            );
            assert!(FILTER_ORDER.contains(&kind), "no filter for {key}");
        }
    }

    #[test]
    fn text_from_the_report_is_escaped() {
        assert_eq!(esc("<script>\"&'"), "&lt;script&gt;&quot;&amp;&#39;");
    }

    #[test]
    fn a_long_message_is_folded_and_a_short_one_is_not() {
        let long = serde_json::json!({ "items": (0..40).collect::<Vec<_>>() });
        let mut html = String::new();
        body(&mut html, &recv(long), &[]);
        assert!(
            html.starts_with("<details class=\"long\"><summary>44 lines, 121 bytes"),
            "{html}"
        );
        let mut html = String::new();
        body(&mut html, &recv(serde_json::json!({"id": 1})), &[]);
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
