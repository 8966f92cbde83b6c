//! The book's check reference (`docs/reference.md`): every server check, every client check,
//! and the text of every requirement id they cite, generated from the catalogue itself.
//! `mcpspec list --markdown FILE` writes it; `cli/tests/testsuite/book.rs` holds the committed page
//! to what this module writes, so the page cannot drift from the code.
//!
//! May import the check definitions (both catalogues), the requirement catalogue and the
//! coverage counts; nothing imports it but the command line and the tests.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use mcpspec_client::checks::ClientCheck;
use mcpspec_harness::check::{Check, Isolation, Need};
use mcpspec_harness::coverage::Coverage;
use mcpspec_harness::requirements::{self, Requirement};

/// Where the page lives in the repository, and what `mcpspec list --markdown` is told to write.
pub const PAGE: &str = "docs/reference.md";

/// The page, from the server catalogue `checks` and the client catalogue `client_checks`.
pub fn markdown(checks: &[Check], client_checks: &[ClientCheck]) -> String {
    let mut out = String::new();
    let coverage = Coverage::of(checks);
    let _ = writeln!(
        out,
        "# Check reference\n\n\
         <!-- Generated from the catalogue by `mcpspec list --markdown {PAGE}`; \
         cli/tests/testsuite/book.rs fails when it differs from the code. Do not edit by hand. -->\n\n\
         {} server checks and {} client checks. {} of the {} server requirement ids have a \
         check; every id below is quoted from `harness/requirements.yaml`. Policy ids (POL-n) \
         link to [Policies](policies.md). `mcpspec explain CHECK-ID` tells one check in full.\n",
        checks.len(),
        client_checks.len(),
        coverage.covered,
        coverage.total,
    );
    server_checks(&mut out, checks);
    client_check_list(&mut out, client_checks);
    requirement_texts(&mut out, checks, client_checks);
    out
}

fn server_checks(out: &mut String, checks: &[Check]) {
    out.push_str("## Server checks\n\n");
    out.push_str(
        "Each check: its level, the era it exercises, the requirement and policy ids it cites, \
         what it needs before it runs, and whether it may run on a process earlier checks used \
         (`shared`) or needs one of its own, and why (POL-21); then what it checks and what a \
         conforming server does.\n",
    );
    let mut area = "";
    for check in checks {
        let this = check.id.split('/').next().unwrap_or(check.id);
        if this != area {
            area = this;
            let _ = writeln!(out, "\n### `{area}/*`\n");
        }
        let needs: Vec<String> = check.needs.iter().map(need_words).collect();
        let process = match check.isolation {
            Isolation::Shared => "shared".to_owned(),
            Isolation::Fresh(why) => format!("own process: {}", why.label()),
        };
        let _ = writeln!(
            out,
            "- `{}`: {}, {} era; cites {}; needs {}; {}.\n  {} Expected: {}.",
            check.id,
            check.level,
            format!("{:?}", check.era).to_lowercase(),
            cited(check.requirements),
            if needs.is_empty() {
                "nothing".to_owned()
            } else {
                needs.join(", ")
            },
            process,
            text(check.description),
            text(check.expectation).trim_end_matches('.')
        );
    }
    out.push('\n');
}

fn client_check_list(out: &mut String, checks: &[ClientCheck]) {
    out.push_str("## Client checks\n\n");
    out.push_str(
        "`mcpspec client` runs these against a client under test (see \
         [Testing a client](testing-clients.md)): each judges what the client sent in one \
         scenario.\n\n",
    );
    for check in checks {
        let _ = writeln!(
            out,
            "- `{}`: {}; cites {}; scenario `{}`, over {}.\n  {} Expected: {}.",
            check.id,
            check.level,
            cited(check.requirements),
            check.scenario,
            check.only.map_or("either transport", |t| t.name()),
            text(check.description),
            text(check.expectation).trim_end_matches('.')
        );
    }
    out.push('\n');
}

/// Every requirement id of both catalogues, with its text, its source and the checks citing it.
fn requirement_texts(out: &mut String, checks: &[Check], client_checks: &[ClientCheck]) {
    let mut citing: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for check in checks {
        for id in check.requirements {
            citing.entry(id).or_default().push(check.id);
        }
    }
    for check in client_checks {
        for id in check.requirements {
            citing.entry(id).or_default().push(check.id);
        }
    }
    for (title, catalogue) in [
        ("Server requirements", requirements::catalogue()),
        ("Client requirements", requirements::client_catalogue()),
    ] {
        let _ = writeln!(out, "## {title}\n");
        let mut ids: Vec<&Requirement> = catalogue.values().collect();
        ids.sort_by_key(|r| id_order(&r.id));
        for r in ids {
            let by: Vec<String> = citing
                .get(r.id.as_str())
                .into_iter()
                .flatten()
                .map(|id| format!("`{id}`"))
                .collect();
            let _ = writeln!(
                out,
                "### {}\n\n**{}**, era: {}. {}\n\nSource: {}.\n\nChecked by: {}.\n",
                r.id,
                r.level,
                r.era,
                text(&r.text),
                text(&r.source).trim_end_matches('.'),
                if by.is_empty() {
                    "no check yet".to_owned()
                } else {
                    by.join(", ")
                }
            );
        }
    }
}

/// `RPC-10` after `RPC-9`: the prefix, then the number.
fn id_order(id: &str) -> (String, u32) {
    match id.rsplit_once('-') {
        Some((prefix, n)) => (prefix.to_owned(), n.parse().unwrap_or(u32::MAX)),
        None => (id.to_owned(), 0),
    }
}

/// The ids a check cites, each a link: a requirement to its text below, a policy to its page.
fn cited(ids: &[&str]) -> String {
    ids.iter()
        .map(|id| {
            if requirements::requirement(id).is_some() {
                format!("[{id}](#{})", id.to_lowercase())
            } else {
                format!("[{id}]({})", requirements::policy_anchor(id))
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// What a check needs before it runs, in a few words.
fn need_words(need: &Need) -> String {
    match need {
        Need::Modern => "2026-07-28".into(),
        Need::AnyEra => "any era".into(),
        Need::Stdio => "stdio".into(),
        Need::Http => "HTTP".into(),
        Need::Capability(c) => format!("`{c}`"),
        Need::Legacy => "a legacy revision".into(),
        Need::ModernOnly => "modern only".into(),
        Need::ProbeProfile => "`--probe-profile`".into(),
        Need::AllowedTool => "`--allow-tool`".into(),
        Need::Replicas => "several instances".into(),
        Need::CallableTool => "a callable tool".into(),
    }
}

/// Text from the catalogue as Markdown: `<` would open an HTML tag.
fn text(text: &str) -> String {
    text.replace('<', "&lt;")
}
