//! `DIR/matrix.html`: the comparison page, one self-contained file (the CSS and the script are
//! `matrix.css` and `matrix.js`, inlined; no network), rendered from the [`Matrix`] alone and
//! deterministic: the same matrix gives the same bytes, so a page merged from many machines'
//! records equals a single machine's page.
//!
//! The page holds:
//! - the tier table: per target its label, role, tier (or "not run" and why), pass rate and
//!   counts per revision, and what kept it from the next tier up;
//! - a legend and the filters (by outcome and by level; the script's, hidden without it);
//! - per role (servers, then clients) a matrix: rows are the requirements grouped by area,
//!   columns are that role's targets × the revisions (two header rows: the target, then each
//!   revision with its pass rate, linked to that run's report). Under each requirement row,
//!   the checks that cite it, one cell per target × revision linking to the check in that run's
//!   report (`<report>#check-<id>`, the per-run report's anchor) and to its transcript
//!   (`<transcripts>/<id with / as __>.yaml`).
//!
//! | state | symbol | class |
//! |---|---|---|
//! | requirement met / not met / not verified | ✓ ✗ ? | `s-met`, `s-not_met`, `s-not_verified` |
//! | not applicable (other role, not of this revision, no outcome) | — | `s-na` |
//! | the target could not be run | ! | `s-error` |
//! | a check's [`Kind`] | ✓ ≈ ✗ i ○ ! | `s-{Kind::key}` (`s-non_strict`) |
//!
//! Every cell carries a symbol besides its colour (colour-blind readers, greyscale prints).
//! With the script off every row is shown, expanded; the script collapses the check rows, lets
//! areas and requirements fold, filters, and marks `<body data-ready="1">` when it has run.
//! Everything from the matrix is HTML-escaped (and percent-encoded in links) here.

use std::fmt::Write as _;

use mcpspec_harness::outcome::{Kind, Level};

use super::model::{Column, Matrix, RequirementRow, RevisionScore, Role};
use mcpspec_harness::report::html::esc;

const CSS: &str = include_str!("matrix.css");
const SCRIPT: &str = include_str!("matrix.js");

/// The outcomes the check-row filters offer, in the order shown: the run report's.
const CHECK_FILTERS: [Kind; 6] = mcpspec_harness::report::html::FILTER_ORDER;

/// The page for `m`.
pub fn render(m: &Matrix) -> String {
    let mut out = String::with_capacity(64 * 1024);
    out.push_str(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\">\
         <meta name=\"color-scheme\" content=\"light\">\
         <title>mcpspec matrix</title><style>",
    );
    out.push_str(CSS);
    out.push_str("</style></head><body>\n");
    header(&mut out, m);
    tiers(&mut out, m);
    legend(&mut out);
    filters(&mut out, m);
    for role in [Role::Server, Role::Client] {
        section(&mut out, m, role);
    }
    out.push_str("<script>");
    out.push_str(SCRIPT);
    out.push_str("</script></body></html>\n");
    out
}

/// A requirement's state in one cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ReqState {
    Met,
    NotMet,
    NotVerified,
    /// The target could not be run at all.
    Error,
    /// Another role's requirement, or not one of this revision's (or no score at it).
    NotApplicable,
}

impl ReqState {
    fn key(self) -> &'static str {
        match self {
            ReqState::Met => "met",
            ReqState::NotMet => "not_met",
            ReqState::NotVerified => "not_verified",
            ReqState::Error => "error",
            ReqState::NotApplicable => "na",
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            ReqState::Met => "✓",
            ReqState::NotMet => "✗",
            ReqState::NotVerified => "?",
            ReqState::Error => "!",
            ReqState::NotApplicable => "—",
        }
    }

    fn words(self) -> &'static str {
        match self {
            ReqState::Met => "met",
            ReqState::NotMet => "not met",
            ReqState::NotVerified => "not verified",
            ReqState::Error => "could not be run",
            ReqState::NotApplicable => "not applicable",
        }
    }
}

/// A check cell: an outcome, the target's failure to run, or nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CheckState {
    Kind(Kind),
    Error,
    NotApplicable,
}

impl CheckState {
    fn key(self) -> &'static str {
        match self {
            CheckState::Kind(kind) => kind.key(),
            CheckState::Error => "error",
            CheckState::NotApplicable => "na",
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            CheckState::Kind(kind) => kind_symbol(kind),
            CheckState::Error => "!",
            CheckState::NotApplicable => "—",
        }
    }

    fn words(self) -> &'static str {
        match self {
            CheckState::Kind(kind) => kind.label(),
            CheckState::Error => "ERROR (the target could not be run)",
            CheckState::NotApplicable => "not run",
        }
    }
}

fn kind_symbol(kind: Kind) -> &'static str {
    match kind {
        Kind::Pass => "✓",
        Kind::NonStrict => "≈",
        Kind::Fail => "✗",
        Kind::Info => "i",
        Kind::Skipped => "○",
        Kind::Error => "!",
    }
}

/// `requirement`'s state for `target` at `rev`.
fn req_state(target: &Column, rev: &str, requirement: &RequirementRow) -> ReqState {
    if requirement.role != target.role {
        return ReqState::NotApplicable;
    }
    if target.error.is_some() {
        return ReqState::Error;
    }
    let Some(score) = target.revisions.get(rev) else {
        return ReqState::NotApplicable;
    };
    let has = |list: &[String]| list.contains(&requirement.id);
    if has(&score.not_met) {
        ReqState::NotMet
    } else if has(&score.met) {
        ReqState::Met
    } else if has(&score.not_verified) {
        ReqState::NotVerified
    } else {
        ReqState::NotApplicable
    }
}

/// Check `id`'s state for `target` at `rev`, under a requirement of `role`.
fn check_state(target: &Column, rev: &str, role: Role, id: &str) -> CheckState {
    if role != target.role {
        CheckState::NotApplicable
    } else if target.error.is_some() {
        CheckState::Error
    } else {
        target
            .checks
            .get(id)
            .and_then(|by_rev| by_rev.get(rev))
            .map_or(CheckState::NotApplicable, |kind| CheckState::Kind(*kind))
    }
}

/// The level filter a catalogue level belongs to: `MUST…` (`MUST NOT`, `MUST / SHOULD`),
/// `SHOULD…`, or anything else.
fn level_key(level: &str) -> &'static str {
    if level.starts_with("MUST") {
        "must"
    } else if level.starts_with("SHOULD") {
        "should"
    } else {
        "other"
    }
}

fn check_level_key(level: Level) -> &'static str {
    match level {
        Level::Must => "must",
        Level::Should => "should",
        Level::Policy => "other",
    }
}

/// Where check `id` is in a run's HTML report: its `<article id="check-<id>">`.
fn report_link(score: &RevisionScore, id: &str) -> Option<String> {
    score
        .report
        .as_ref()
        .map(|report| format!("{}#check-{}", url(report), url(id)))
}

/// Check `id`'s transcript file in a run's transcripts folder.
fn transcript_link(score: &RevisionScore, id: &str) -> Option<String> {
    score.transcripts.as_ref().map(|dir| {
        format!(
            "{}/{}.yaml",
            url(dir.trim_end_matches('/')),
            url(&id.replace('/', "__"))
        )
    })
}

/// A pass rate as a percentage, truncated to one place (99.96 % is not "100 %"); the small
/// tolerance keeps a rate read back from JSON (within an ulp) on the same side.
/// The reason a revision is not served, as a `title` attribute.
fn served_title(score: &RevisionScore) -> String {
    score
        .not_served
        .as_deref()
        .map(|why| format!(" title=\"{}\"", esc(why)))
        .unwrap_or_default()
}

fn tier_words(target: &Column) -> String {
    match target.tier {
        Some(tier) => format!("Tier {tier}"),
        None => "not run".into(),
    }
}

fn tier_class(target: &Column) -> String {
    match target.tier {
        Some(tier) => format!("tier t{tier}"),
        None => "tier t-none".into(),
    }
}

fn header(out: &mut String, m: &Matrix) {
    let servers = m.targets.iter().filter(|t| t.role == Role::Server).count();
    let clients = m.targets.len() - servers;
    let _ = writeln!(
        out,
        "<header><h1>mcpspec matrix</h1><p class=\"what\">{servers} server(s) and {clients} \
         client(s), each at {} revision(s): {}. {} requirement(s).</p></header>",
        m.revisions.len(),
        esc(&m.revisions.join(", ")),
        m.requirements.len()
    );
}

/// The tier table: one row per target.
fn tiers(out: &mut String, m: &Matrix) {
    out.push_str(
        "<section id=\"tiers\"><h2>Tiers</h2><table class=\"grid tiers\"><thead><tr>\
         <th>target</th><th>label</th><th>role</th><th>tier</th>",
    );
    for rev in &m.revisions {
        let _ = write!(out, "<th class=\"rev\">{}</th>", esc(rev));
    }
    out.push_str("<th>kept from the next tier by</th></tr></thead><tbody>\n");
    for target in &m.targets {
        let _ = write!(
            out,
            "<tr data-target=\"{}\"><th>{}</th><td>{}</td><td>{}</td><td class=\"{}\">{}",
            esc(&target.name),
            esc(&target.name),
            esc(target.label.as_deref().unwrap_or("")),
            target.role.as_str(),
            tier_class(target),
            tier_words(target),
        );
        if let Some(why) = &target.error {
            let _ = write!(out, "<div class=\"why\">{}</div>", esc(why));
        }
        out.push_str("</td>");
        for rev in &m.revisions {
            match target.revisions.get(rev) {
                Some(score) => {
                    let _ = write!(
                        out,
                        "<td class=\"rate\"><b{}>{}</b> <span class=\"counts\">\
                         <span class=\"s-met\" title=\"met\">✓{}</span> \
                         <span class=\"s-not_met\" title=\"not met\">✗{}</span> \
                         <span class=\"s-not_verified\" title=\"not verified\">?{}</span></span></td>",
                        served_title(score),
                        score.rate_text(),
                        score.met.len(),
                        score.not_met.len(),
                        score.not_verified.len()
                    );
                }
                None => out.push_str("<td class=\"rate s-na\">—</td>"),
            }
        }
        out.push_str("<td class=\"kept\">");
        if !target.kept_from_next.is_empty() {
            out.push_str("<ul>");
            for line in &target.kept_from_next {
                let _ = write!(out, "<li>{}</li>", esc(line));
            }
            out.push_str("</ul>");
        }
        out.push_str("</td></tr>\n");
    }
    if m.targets.is_empty() {
        let _ = write!(
            out,
            "<tr><td colspan=\"{}\">no targets</td></tr>",
            5 + m.revisions.len()
        );
    }
    out.push_str("</tbody></table></section>\n");
}

fn legend(out: &mut String) {
    out.push_str("<p class=\"legend\">requirements: ");
    for state in [
        ReqState::Met,
        ReqState::NotMet,
        ReqState::NotVerified,
        ReqState::Error,
        ReqState::NotApplicable,
    ] {
        let _ = write!(
            out,
            "<span class=\"key s-{}\">{}</span> {} ",
            state.key(),
            state.symbol(),
            state.words()
        );
    }
    out.push_str("· checks: ");
    for kind in CHECK_FILTERS {
        let _ = write!(
            out,
            "<span class=\"key s-{}\">{}</span> {} ",
            kind.key(),
            kind_symbol(kind),
            kind.label()
        );
    }
    out.push_str("· a check's symbol links to it in that run's report, ≡ to its transcript</p>\n");
}

/// The filters: shown and wired by the script (hidden without it, where every row shows).
fn filters(out: &mut String, m: &Matrix) {
    out.push_str("<nav id=\"filters\"><span class=\"group\"><b>requirements</b> ");
    for state in [
        ReqState::Met,
        ReqState::NotMet,
        ReqState::NotVerified,
        ReqState::Error,
    ] {
        let _ = write!(
            out,
            "<label><input type=\"checkbox\" class=\"f-req\" value=\"{key}\" checked> \
             <span class=\"key s-{key}\">{}</span> {}</label>",
            state.symbol(),
            state.words(),
            key = state.key()
        );
    }
    out.push_str("</span><span class=\"group\"><b>checks</b> ");
    for kind in CHECK_FILTERS {
        let _ = write!(
            out,
            "<label><input type=\"checkbox\" class=\"f-check\" value=\"{key}\" checked> \
             <span class=\"key s-{key}\">{}</span> {}</label>",
            kind_symbol(kind),
            kind.label(),
            key = kind.key()
        );
    }
    out.push_str("</span><span class=\"group\"><b>level</b> ");
    for (key, words) in [("must", "MUST"), ("should", "SHOULD"), ("other", "other")] {
        let _ = write!(
            out,
            "<label><input type=\"checkbox\" class=\"f-level\" value=\"{key}\" checked> {words}</label>"
        );
    }
    let _ = writeln!(
        out,
        "</span><span class=\"group\"><button type=\"button\" id=\"expand-all\">expand all</button> \
         <button type=\"button\" id=\"collapse-all\">collapse all</button> \
         <span id=\"shown\">{n} requirement(s)</span></span></nav>",
        n = m.requirements.len()
    );
}

/// The matrix of one role: its requirements against its targets.
fn section(out: &mut String, m: &Matrix, role: Role) {
    let targets: Vec<&Column> = m.targets.iter().filter(|t| t.role == role).collect();
    let rows: Vec<&RequirementRow> = m.requirements.iter().filter(|r| r.role == role).collect();
    if targets.is_empty() || rows.is_empty() {
        return;
    }
    let (id, title) = match role {
        Role::Server => ("servers", "Server requirements"),
        Role::Client => ("clients", "Client requirements"),
    };
    let _ = write!(
        out,
        "<section class=\"role\" id=\"{id}\"><h2>{title}</h2><div class=\"scroll\">\
         <table class=\"matrix\"><thead><tr><th class=\"rowhead\" rowspan=\"2\">requirement</th>"
    );
    let span = m.revisions.len().max(1);
    for target in &targets {
        let _ = write!(
            out,
            "<th class=\"target first{}\" colspan=\"{span}\"><div class=\"name\">{}</div>",
            if target.error.is_some() {
                " broken"
            } else {
                ""
            },
            esc(&target.name)
        );
        if let Some(label) = &target.label {
            let _ = write!(out, "<div class=\"label\">{}</div>", esc(label));
        }
        let _ = write!(
            out,
            "<div class=\"meta\">{} · <span class=\"{}\">{}</span></div>",
            target.role.as_str(),
            tier_class(target),
            tier_words(target)
        );
        if let Some(why) = &target.error {
            let _ = write!(out, "<div class=\"why\">! {}</div>", esc(why));
        }
        out.push_str("</th>");
    }
    out.push_str("</tr><tr>");
    for target in &targets {
        if m.revisions.is_empty() {
            out.push_str("<th class=\"rev first\">—</th>");
        }
        for (i, rev) in m.revisions.iter().enumerate() {
            let first = if i == 0 { " first" } else { "" };
            let score = target.revisions.get(rev);
            let rate = score.map_or_else(|| "—".to_owned(), RevisionScore::rate_text);
            let rev_html = match score.and_then(|s| s.report.as_deref()) {
                Some(report) => format!(
                    "<a href=\"{}\" title=\"this run's report\">{}</a>",
                    esc(&url(report)),
                    esc(rev)
                ),
                None => esc(rev),
            };
            let _ = write!(
                out,
                "<th class=\"rev{first}\">{rev_html}<div class=\"rate\">{rate}</div></th>"
            );
        }
    }
    out.push_str("</tr></thead>\n");

    // The areas in the order their first row comes (the rows are sorted by id).
    let mut areas: Vec<&str> = Vec::new();
    for row in &rows {
        if !areas.contains(&row.area.as_str()) {
            areas.push(&row.area);
        }
    }
    let columns = targets.len() * span;
    for area in areas {
        let in_area: Vec<&RequirementRow> =
            rows.iter().copied().filter(|r| r.area == area).collect();
        area_rows(out, m, &targets, area, &in_area, columns);
    }
    out.push_str("</table></div></section>\n");
}

/// An area: its head row (with each column's count of met requirements), then each
/// requirement row followed by its check rows.
fn area_rows(
    out: &mut String,
    m: &Matrix,
    targets: &[&Column],
    area: &str,
    rows: &[&RequirementRow],
    columns: usize,
) {
    let _ = write!(
        out,
        "<tbody class=\"area\" data-area=\"{a}\" data-open=\"1\"><tr class=\"area-head\">\
         <th class=\"rowhead\"><button type=\"button\" class=\"tog\" aria-expanded=\"true\" \
         title=\"fold this area\">▾</button> {a} <span class=\"n\">{n} requirement(s)</span></th>",
        a = esc(area),
        n = rows.len()
    );
    if columns > 0 {
        for target in targets {
            if m.revisions.is_empty() {
                out.push_str("<td class=\"sum first\"></td>");
            }
            for (i, rev) in m.revisions.iter().enumerate() {
                let (mut met, mut not_met, mut not_verified, mut applicable) = (0, 0, 0, 0);
                for row in rows {
                    match req_state(target, rev, row) {
                        ReqState::Met => met += 1,
                        ReqState::NotMet => not_met += 1,
                        ReqState::NotVerified => not_verified += 1,
                        ReqState::Error | ReqState::NotApplicable => continue,
                    }
                    applicable += 1;
                }
                let first = if i == 0 { " first" } else { "" };
                if applicable == 0 {
                    let _ = write!(out, "<td class=\"sum{first}\"></td>");
                } else {
                    let _ = write!(
                        out,
                        "<td class=\"sum{first}{}\" title=\"{met} met, {not_met} not met, \
                         {not_verified} not verified\">{met}/{applicable}</td>",
                        if not_met > 0 { " has-not-met" } else { "" }
                    );
                }
            }
        }
    }
    out.push_str("</tr>\n");
    for row in rows {
        requirement_row(out, m, targets, row);
    }
    out.push_str("</tbody>\n");
}

fn requirement_row(out: &mut String, m: &Matrix, targets: &[&Column], row: &RequirementRow) {
    let mut cells = String::new();
    let mut states: Vec<&str> = Vec::new();
    for target in targets {
        if m.revisions.is_empty() {
            cells.push_str("<td class=\"c first s-na\">—</td>");
        }
        for (i, rev) in m.revisions.iter().enumerate() {
            let state = req_state(target, rev, row);
            if state != ReqState::NotApplicable && !states.contains(&state.key()) {
                states.push(state.key());
            }
            let _ = write!(
                cells,
                "<td class=\"c{} s-{}\" title=\"{} · {}: {}\">{}</td>",
                if i == 0 { " first" } else { "" },
                state.key(),
                esc(&target.name),
                esc(rev),
                state.words(),
                state.symbol()
            );
        }
    }
    states.sort_unstable();
    let _ = writeln!(
        out,
        "<tr class=\"req\" id=\"req-{role}-{id}\" data-req=\"{id}\" data-level=\"{}\" \
         data-states=\"{}\" data-open=\"0\"><th class=\"rowhead\"><div class=\"rq\">\
         <button type=\"button\" class=\"tog\" aria-expanded=\"false\" title=\"show its checks\">▸</button> \
         <b class=\"id\">{id}</b> <span class=\"lvl l-{}\">{}</span> <span class=\"era\">{} · \
         {} check(s)</span></div><div class=\"txt\">{}</div></th>{cells}</tr>",
        level_key(&row.level),
        states.join(" "),
        level_key(&row.level),
        esc(&row.level),
        if row.era == "all" {
            "all revisions".to_owned()
        } else {
            esc(&row.era)
        },
        row.checks.len(),
        esc(&row.text),
        role = row.role.as_str(),
        id = esc(&row.id),
    );
    for check in &row.checks {
        check_row(out, m, targets, row, &check.id, check.level);
    }
}

fn check_row(
    out: &mut String,
    m: &Matrix,
    targets: &[&Column],
    row: &RequirementRow,
    id: &str,
    level: Level,
) {
    let mut cells = String::new();
    let mut states: Vec<&str> = Vec::new();
    for target in targets {
        if m.revisions.is_empty() {
            cells.push_str("<td class=\"c first s-na\">—</td>");
        }
        for (i, rev) in m.revisions.iter().enumerate() {
            let state = check_state(target, rev, row.role, id);
            if state != CheckState::NotApplicable && !states.contains(&state.key()) {
                states.push(state.key());
            }
            let first = if i == 0 { " first" } else { "" };
            let _ = write!(
                cells,
                "<td class=\"c{first} s-{}\" title=\"{} · {}: {}\">",
                state.key(),
                esc(&target.name),
                esc(rev),
                state.words()
            );
            let score = match state {
                CheckState::Kind(_) => target.revisions.get(rev),
                CheckState::Error | CheckState::NotApplicable => None,
            };
            match score.and_then(|s| report_link(s, id)) {
                Some(href) => {
                    let _ = write!(cells, "<a href=\"{}\">{}</a>", esc(&href), state.symbol());
                }
                None => cells.push_str(state.symbol()),
            }
            if let Some(href) = score.and_then(|s| transcript_link(s, id)) {
                let _ = write!(
                    cells,
                    "<a class=\"tr\" href=\"{}\" title=\"transcript\">≡</a>",
                    esc(&href)
                );
            }
            cells.push_str("</td>");
        }
    }
    states.sort_unstable();
    let _ = writeln!(
        out,
        "<tr class=\"chk\" data-req=\"{}\" data-level=\"{}\" data-states=\"{}\">\
         <th class=\"rowhead\"><code>{}</code> <span class=\"lvl l-{}\">{level}</span></th>{cells}</tr>",
        esc(&row.id),
        check_level_key(level),
        states.join(" "),
        esc(id),
        check_level_key(level),
    );
}

/// Percent-encodes a relative path or fragment for an `href`: every byte but the unreserved
/// ones and `/` (so a `:` cannot read as a scheme, nor a `#` or `?` end the path). The result
/// still goes through [`esc`] into the attribute.
fn url(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(b));
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

#[cfg(test)]
pub(super) mod tests {
    use std::collections::BTreeMap;

    use super::super::model::{CheckRow, SCHEMA_VERSION};
    use super::*;

    const NEW: &str = "2025-11-25";
    const OLD: &str = "2025-06-18";

    fn score(rate: f64, met: &[&str], not_met: &[&str], not_verified: &[&str]) -> RevisionScore {
        let list = |ids: &[&str]| ids.iter().map(|s| (*s).to_owned()).collect();
        RevisionScore {
            pass_rate: rate,
            met: list(met),
            not_met: list(not_met),
            not_verified: list(not_verified),
            not_served: None,
            report: None,
            transcripts: None,
        }
    }

    fn kinds(pairs: &[(&str, Kind)]) -> BTreeMap<String, Kind> {
        pairs.iter().map(|(r, k)| ((*r).to_owned(), *k)).collect()
    }

    /// Two servers (one run, one that could not be), a client, three requirements.
    pub(crate) fn sample() -> Matrix {
        let mut new = score(0.6667, &["RPC-1"], &["RPC-2"], &["HTTP-1"]);
        new.report = Some("targets/alpha/2025-11-25/report.html".into());
        new.transcripts = Some("targets/alpha/2025-11-25/transcripts".into());
        let old = score(1.0, &["RPC-1", "RPC-2"], &[], &[]);
        let alpha = Column {
            name: "alpha".into(),
            label: Some("<b>Alpha</b> & co".into()),
            role: Role::Server,
            tier: Some(2),
            kept_from_next: vec!["2025-11-25: RPC-2 not met".into()],
            error: None,
            revisions: BTreeMap::from([(NEW.into(), new), (OLD.into(), old)]),
            checks: BTreeMap::from([
                (
                    "rpc/id-echo".into(),
                    kinds(&[(NEW, Kind::Pass), (OLD, Kind::Pass)]),
                ),
                (
                    "rpc/batch".into(),
                    kinds(&[(NEW, Kind::Fail), (OLD, Kind::Pass)]),
                ),
                ("http/accept".into(), kinds(&[(NEW, Kind::Skipped)])),
            ]),
        };
        let broken = Column {
            name: "broken".into(),
            label: None,
            role: Role::Server,
            tier: None,
            kept_from_next: vec![],
            error: Some("could not start: `./srv` <not found>".into()),
            revisions: BTreeMap::new(),
            checks: BTreeMap::new(),
        };
        let client = Column {
            name: "cli".into(),
            label: None,
            role: Role::Client,
            tier: Some(1),
            kept_from_next: vec![],
            error: None,
            revisions: BTreeMap::from([
                (NEW.into(), score(1.0, &["CLI-1"], &[], &[])),
                (OLD.into(), score(0.9996, &["CLI-1"], &[], &[])),
            ]),
            checks: BTreeMap::from([(
                "client/initialize".into(),
                kinds(&[(NEW, Kind::Pass), (OLD, Kind::NonStrict)]),
            )]),
        };
        let row =
            |id: &str, area: &str, role, level: &str, checks: &[(&str, Level)]| RequirementRow {
                id: id.into(),
                area: area.into(),
                role,
                level: level.into(),
                era: "all".into(),
                text: format!("{id} text: the peer MUST do <things>"),
                checks: checks
                    .iter()
                    .map(|(id, level)| CheckRow {
                        id: (*id).into(),
                        level: *level,
                    })
                    .collect(),
            };
        Matrix {
            schema_version: SCHEMA_VERSION,
            revisions: vec![NEW.into(), OLD.into()],
            targets: vec![alpha, broken, client],
            requirements: vec![
                row(
                    "HTTP-1",
                    "HTTP",
                    Role::Server,
                    "SHOULD",
                    &[("http/accept", Level::Should)],
                ),
                row(
                    "RPC-1",
                    "RPC",
                    Role::Server,
                    "MUST",
                    &[("rpc/id-echo", Level::Must)],
                ),
                row(
                    "RPC-2",
                    "RPC",
                    Role::Server,
                    "MUST NOT",
                    &[("rpc/batch", Level::Must), ("rpc/id-echo", Level::Must)],
                ),
                row(
                    "CLI-1",
                    "CLI",
                    Role::Client,
                    "MUST",
                    &[("client/initialize", Level::Policy)],
                ),
            ],
        }
    }

    /// The `<tr …>…</tr>` that starts with `start`.
    fn row_of<'a>(html: &'a str, start: &str) -> &'a str {
        let at = html
            .find(start)
            .unwrap_or_else(|| panic!("no {start} in\n{html}"));
        let len = html[at..].find("</tr>").expect("row end");
        &html[at..at + len]
    }

    /// The cells (`<td …>…</td>`) of a row, in order.
    fn cells(row: &str) -> Vec<&str> {
        row.split("<td")
            .skip(1)
            .map(|c| c.split("</td>").next().unwrap_or(""))
            .collect()
    }

    #[test]
    fn the_tier_table_has_a_row_per_target_with_rates_counts_and_what_kept_it() {
        let html = render(&sample());
        let tiers = &html[html.find("<section id=\"tiers\">").unwrap()..];
        let tiers = &tiers[..tiers.find("</section>").unwrap()];
        assert!(
            tiers.contains("<th class=\"rev\">2025-11-25</th><th class=\"rev\">2025-06-18</th>")
        );

        let alpha = row_of(tiers, "<tr data-target=\"alpha\">");
        assert!(
            alpha.contains(
                "<th>alpha</th><td>&lt;b&gt;Alpha&lt;/b&gt; &amp; co</td><td>server</td>"
            ),
            "{alpha}"
        );
        assert!(
            alpha.contains("<td class=\"tier t2\">Tier 2</td>"),
            "{alpha}"
        );
        let c = cells(alpha);
        assert!(
            c[3].contains("<b>66.6%</b>")
                && c[3].contains("✓1")
                && c[3].contains("✗1")
                && c[3].contains("?1"),
            "{}",
            c[3]
        );
        assert!(
            c[4].contains("<b>100%</b>") && c[4].contains("✓2") && c[4].contains("✗0"),
            "{}",
            c[4]
        );
        assert!(
            c[5].contains("<li>2025-11-25: RPC-2 not met</li>"),
            "{}",
            c[5]
        );

        let broken = row_of(tiers, "<tr data-target=\"broken\">");
        assert!(
            broken.contains("<td class=\"tier t-none\">not run<div class=\"why\">could not start: `./srv` &lt;not found&gt;</div></td>"),
            "{broken}"
        );
        assert_eq!(cells(broken)[3], " class=\"rate s-na\">—");

        let client = row_of(tiers, "<tr data-target=\"cli\">");
        assert!(
            client.contains("<td>client</td><td class=\"tier t1\">Tier 1</td>"),
            "{client}"
        );
        // 99.96 % is truncated, never rounded up to a full pass.
        assert!(client.contains("<b>99.9%</b>"), "{client}");
    }

    #[test]
    fn requirement_cells_read_met_not_met_not_verified_or_not_applicable() {
        let m = sample();
        let html = render(&m);
        // Server section: alpha (NEW, OLD), broken (NEW, OLD).
        let rpc2 = row_of(&html, "<tr class=\"req\" id=\"req-server-RPC-2\"");
        assert!(rpc2.contains("data-level=\"must\""), "{rpc2}");
        assert!(rpc2.contains("data-states=\"error met not_met\""), "{rpc2}");
        let c = cells(rpc2);
        assert_eq!(c.len(), 4, "{rpc2}");
        assert_eq!(
            c[0],
            " class=\"c first s-not_met\" title=\"alpha · 2025-11-25: not met\">✗"
        );
        assert_eq!(
            c[1],
            " class=\"c s-met\" title=\"alpha · 2025-06-18: met\">✓"
        );
        let http1 = row_of(&html, "<tr class=\"req\" id=\"req-server-HTTP-1\"");
        assert!(http1.contains("data-level=\"should\""), "{http1}");
        let c = cells(http1);
        assert_eq!(
            c[0],
            " class=\"c first s-not_verified\" title=\"alpha · 2025-11-25: not verified\">?"
        );
        // In none of the three lists at that revision: not applicable.
        assert_eq!(
            c[1],
            " class=\"c s-na\" title=\"alpha · 2025-06-18: not applicable\">—"
        );

        // Another role's requirement is not applicable.
        let client = &m.targets[2];
        assert_eq!(
            req_state(client, NEW, &m.requirements[1]),
            ReqState::NotApplicable
        );
        assert_eq!(
            req_state(&m.targets[0], NEW, &m.requirements[3]),
            ReqState::NotApplicable
        );
        assert_eq!(req_state(client, NEW, &m.requirements[3]), ReqState::Met);
        // Each role's section has only its targets' columns.
        let cli1 = row_of(&html, "<tr class=\"req\" id=\"req-client-CLI-1\"");
        assert_eq!(cells(cli1).len(), 2, "{cli1}");
        // The area's head counts met of applicable, and marks a not-met.
        let head = row_of(&html, "<tbody class=\"area\" data-area=\"RPC\"");
        assert!(head.contains("<td class=\"sum first has-not-met\" title=\"1 met, 1 not met, 0 not verified\">1/2</td>"), "{head}");
    }

    #[test]
    fn a_check_cell_links_to_its_report_anchor_and_its_transcript() {
        let html = render(&sample());
        let batch = row_of(
            &html,
            "<tr class=\"chk\" data-req=\"RPC-2\" data-level=\"must\" data-states=\"error fail pass\"><th class=\"rowhead\"><code>rpc/batch</code>",
        );
        let c = cells(batch);
        assert_eq!(
            c[0],
            " class=\"c first s-fail\" title=\"alpha · 2025-11-25: FAIL\">\
             <a href=\"targets/alpha/2025-11-25/report.html#check-rpc/batch\">✗</a>\
             <a class=\"tr\" href=\"targets/alpha/2025-11-25/transcripts/rpc__batch.yaml\" title=\"transcript\">≡</a>"
        );
        // No report or transcripts at that revision: the symbol alone.
        assert_eq!(
            c[1],
            " class=\"c s-pass\" title=\"alpha · 2025-06-18: PASS\">✓"
        );
        // Absent from the target's checks at a revision: not applicable.
        let accept = row_of(&html, "<code>http/accept</code>");
        assert!(cells(accept)[1].ends_with("not run\">—"), "{accept}");
        // A policy-level check filters as "other".
        assert!(html.contains("<tr class=\"chk\" data-req=\"CLI-1\" data-level=\"other\" data-states=\"non_strict pass\">"));
        // The anchor is the per-run report's (`id="check-<id>"`), percent-encoded where needed.
        let mut s = score(1.0, &[], &[], &[]);
        s.report = Some("a b/r#1.html".into());
        s.transcripts = Some("t:x/".into());
        assert_eq!(
            report_link(&s, "x/y z").as_deref(),
            Some("a%20b/r%231.html#check-x/y%20z")
        );
        assert_eq!(
            transcript_link(&s, "x/y").as_deref(),
            Some("t%3Ax/x__y.yaml")
        );
    }

    #[test]
    fn an_errored_target_shows_why_in_its_head_and_error_in_its_cells() {
        let html = render(&sample());
        assert!(
            html.contains(
                "<th class=\"target first broken\" colspan=\"2\"><div class=\"name\">broken</div>\
             <div class=\"meta\">server · <span class=\"tier t-none\">not run</span></div>\
             <div class=\"why\">! could not start: `./srv` &lt;not found&gt;</div></th>"
            ),
            "{html}"
        );
        let rpc1 = row_of(&html, "<tr class=\"req\" id=\"req-server-RPC-1\"");
        let c = cells(rpc1);
        assert_eq!(
            c[2],
            " class=\"c first s-error\" title=\"broken · 2025-11-25: could not be run\">!"
        );
        assert_eq!(
            c[3],
            " class=\"c s-error\" title=\"broken · 2025-06-18: could not be run\">!"
        );
        let echo = row_of(&html, "<code>rpc/id-echo</code>");
        assert!(
            cells(echo)[2].contains("s-error") && cells(echo)[2].ends_with(">!"),
            "{echo}"
        );
    }

    #[test]
    fn text_from_the_matrix_is_escaped() {
        let html = render(&sample());
        assert!(!html.contains("<b>Alpha</b>"));
        assert!(html.contains("<div class=\"label\">&lt;b&gt;Alpha&lt;/b&gt; &amp; co</div>"));
        assert!(html.contains("the peer MUST do &lt;things&gt;"));
        assert_eq!(esc("<script>\"&'"), "&lt;script&gt;&quot;&amp;&#39;");
    }

    #[test]
    fn the_same_matrix_gives_the_same_bytes_even_read_back_from_json() {
        let m = sample();
        let page = render(&m);
        assert_eq!(page, render(&m.clone()));
        let back: Matrix = serde_json::from_str(&serde_json::to_string(&m).unwrap()).unwrap();
        assert_eq!(page, render(&back));
        assert!(page.starts_with("<!DOCTYPE html>") && page.ends_with("</html>\n"));
    }

    #[test]
    fn percentages_truncate_and_levels_group() {
        assert_eq!(super::super::model::percent(0.0), "0%");
        assert_eq!(super::super::model::percent(0.7), "70%");
        assert_eq!(super::super::model::percent(0.1234), "12.3%");
        assert_eq!(super::super::model::percent(0.9999), "99.9%");
        assert_eq!(super::super::model::percent(1.0), "100%");
        assert_eq!(super::super::model::percent(f64::NAN), "—");
        assert_eq!(level_key("MUST NOT"), "must");
        assert_eq!(level_key("MUST / SHOULD"), "must");
        assert_eq!(level_key("SHOULD (resilience)"), "should");
        assert_eq!(level_key("impl. (MUST via VER/DISC)"), "other");
        assert_eq!(level_key("— / SHOULD NOT"), "other");
    }

    #[test]
    fn every_state_has_a_colour_and_every_filter_a_value_the_script_reads() {
        let html = render(&sample());
        for key in ["met", "not_met", "not_verified", "error", "na"]
            .into_iter()
            .chain(Kind::ALL.iter().map(|k| k.key()))
        {
            assert!(CSS.contains(&format!(".s-{key}{{")), "no colour for {key}");
        }
        for kind in Kind::ALL {
            assert!(html.contains(&format!("class=\"f-check\" value=\"{}\"", kind.key())));
        }
        for hook in [
            "f-req",
            "f-check",
            "f-level",
            "data-ready",
            "shown",
            "expand-all",
        ] {
            assert!(SCRIPT.contains(hook), "the script does not read {hook}");
        }
    }

    /// Writes the sample page to `$MATRIX_PAGE` (default `/tmp/mcpspec-matrix.html`) for
    /// `scripts/matrix-screenshot.sh`: `cargo test -p mcpspec --lib matrix::html -- --ignored`.
    #[test]
    #[ignore = "writes a page for a look in a browser"]
    fn write_the_sample_page() {
        let path =
            std::env::var("MATRIX_PAGE").unwrap_or_else(|_| "/tmp/mcpspec-matrix.html".into());
        std::fs::write(&path, render(&sample())).unwrap();
    }
}
