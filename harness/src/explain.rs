//! `mcpspec explain CHECK-ID`: one check told in full, from its own metadata (the `Check`
//! literal: what it checks, what a conforming server does, what it needs, the faults it is
//! proven against), the requirement catalogue (text and source links), the policy titles with
//! where the book tells each (`docs/policies.md`), and the usual fix of each requirement it cites
//! (`fixes.yaml`).
//!
//! May import the check definitions and the requirement catalogue; nothing imports it but the
//! command line.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::OnceLock;

use crate::check::{Check, Isolation, Need};
use crate::requirements;

/// What a fix usually looks like, per requirement id: ours, embedded.
pub const FIXES_YAML: &str = include_str!("../fixes.yaml");

/// The usual fixes by requirement id. The embedded file is ours and tested (below), so a parse
/// failure is a build defect.
pub fn fixes() -> &'static BTreeMap<String, String> {
    static FIXES: OnceLock<BTreeMap<String, String>> = OnceLock::new();
    FIXES.get_or_init(|| crate::yaml::from_str(FIXES_YAML).unwrap_or_default())
}

/// The usual fix for requirement `id`.
pub fn fix(id: &str) -> Option<&'static str> {
    fixes().get(id).map(String::as_str)
}

/// When the runner runs the check, in words (the opposite of its skip reasons).
fn need_words(need: &Need) -> String {
    match need {
        Need::Modern => "the server serves 2026-07-28".into(),
        Need::AnyEra => "the server serves 2026-07-28 or a legacy revision (POL-28)".into(),
        Need::Stdio => "a stdio target (a command, or the embedded server)".into(),
        Need::Http => "an HTTP target (--url; the no-target run serves one itself)".into(),
        Need::Capability(c) => format!("the server advertises `{c}`"),
        Need::Legacy => "the server serves a legacy (initialize) revision".into(),
        Need::ModernOnly => "the server serves the modern era only".into(),
        Need::ProbeProfile => "--probe-profile (the server implements the probe profile)".into(),
        Need::AllowedTool => "--allow-tool NAME (a tool mcpspec may call)".into(),
        Need::Replicas => {
            "two or more instances of the server (--replicas N, or several --url; POL-22)".into()
        }
        Need::CallableTool => {
            "--allow-tool NAME or --probe-profile (a tool mcpspec may call)".into()
        }
    }
}

/// The check told in full, as `mcpspec explain` prints it.
pub fn explain(check: &Check) -> String {
    let mut out = String::new();
    let isolation = match check.isolation {
        Isolation::Shared => "may share a server process (POL-21)".to_owned(),
        Isolation::Fresh(why) => format!("runs on its own server process: {}", why.reason()),
    };
    let _ = writeln!(
        out,
        "{}  ({}, era {}, {isolation})\n",
        check.id,
        check.level,
        format!("{:?}", check.era).to_lowercase()
    );
    let _ = writeln!(out, "checks:   {}", check.description);
    let _ = writeln!(out, "expects:  {}", check.expectation);
    let needs: Vec<String> = check.needs.iter().map(need_words).collect();
    let _ = writeln!(
        out,
        "runs when: {}",
        if needs.is_empty() {
            "always".into()
        } else {
            needs.join("; ")
        }
    );
    let (reqs, policies): (Vec<&str>, Vec<&str>) = check
        .requirements
        .iter()
        .partition(|id| requirements::requirement(id).is_some());
    out.push_str("\nrequirements:\n");
    for id in &reqs {
        let Some(q) = requirements::requirement(id) else {
            continue;
        };
        let _ = writeln!(out, "  {} [{}] {}", q.id, q.level, q.text);
        let _ = writeln!(out, "    source: {}", q.source);
        for link in requirements::source_links(q) {
            let _ = writeln!(out, "      {link}");
        }
    }
    if !policies.is_empty() {
        out.push_str("\npolicies applied:\n");
        for id in &policies {
            let title = requirements::POLICIES
                .iter()
                .find(|(p, _)| p == id)
                .map_or("", |(_, t)| t);
            let _ = writeln!(
                out,
                "  {id}: {title} ({}#{})",
                requirements::POLICIES_PAGE,
                id.to_lowercase()
            );
        }
    }
    out.push_str("\nwhat a fix usually is:\n");
    for id in &reqs {
        if let Some(fix) = fix(id) {
            let _ = writeln!(out, "  {id}: {fix}");
        }
    }
    if !check.faults.is_empty() {
        let _ = writeln!(
            out,
            "\nshown to fail against the reference server with: {}",
            check.faults.join("; ")
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_requirement_has_a_usual_fix_and_every_fix_a_requirement() {
        let catalogue = requirements::catalogue();
        let missing: Vec<&String> = catalogue.keys().filter(|id| fix(id).is_none()).collect();
        assert!(missing.is_empty(), "no fix for {missing:?}");
        let unknown: Vec<&String> = fixes()
            .keys()
            .filter(|id| !catalogue.contains_key(*id))
            .collect();
        assert!(unknown.is_empty(), "fixes for unknown ids {unknown:?}");
    }
}
