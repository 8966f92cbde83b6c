//! Markdown for a CI step summary (`$GITHUB_STEP_SUMMARY`): a verdict line, the counts, a table
//! of every check that did not simply pass (with its requirement ids and message), the feature
//! surface item by item ("Features": what each POL-31 check read, got, completed or called,
//! with its own verdict), and the skipped checks folded away.

use std::fmt::Write as _;

use super::{CheckResult, RunReport};
use crate::outcome::Kind;

impl RunReport {
    /// The report as GitHub-flavoured Markdown.
    pub fn to_markdown(&self) -> String {
        let s = &self.summary;
        let mut out = String::new();
        let verdict = if self.passed() {
            "✅ passed"
        } else {
            "❌ failed"
        };
        let _ = writeln!(out, "## mcpspec: {verdict}\n");
        let versions = match &self.negotiated.version {
            Some(v) => format!(" {v}"),
            None => String::new(),
        };
        let _ = writeln!(
            out,
            "Target `{}` over {} · era: {}{} · mcpspec {} · {} checks in {:.2} s\n",
            cell(&self.target),
            self.transport,
            self.negotiated.era,
            versions,
            self.mcpspec_version,
            s.total,
            self.duration_ms as f64 / 1000.0
        );
        let _ = writeln!(
            out,
            "| Pass | Non-strict | Fail | Info | Skipped | Error | Unexpected | Stale |"
        );
        let _ = writeln!(out, "|---:|---:|---:|---:|---:|---:|---:|---:|");
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            s.pass,
            s.non_strict,
            s.fail,
            s.info,
            s.skipped,
            s.error,
            s.unexpected,
            s.stale.len()
        );

        let notable: Vec<&CheckResult> = self
            .results
            .iter()
            .filter(|r| {
                matches!(
                    r.outcome.kind,
                    Kind::Fail | Kind::Error | Kind::NonStrict | Kind::Info
                ) || self.summary.stale.contains(&r.id)
            })
            .collect();
        if !notable.is_empty() {
            self.check_table(&mut out, "Checks that did not simply pass", &notable);
        }

        self.features_table(&mut out);

        let stateless = self.stateless();
        if let (Some(n), false) = (self.instances, stateless.is_empty()) {
            let title = format!("Statelessness across {n} instances (POL-22)");
            self.check_table(&mut out, &title, &stateless);
        }

        let skipped: Vec<&CheckResult> = self
            .results
            .iter()
            .filter(|r| r.outcome.kind == Kind::Skipped)
            .collect();
        if !skipped.is_empty() {
            let _ = writeln!(
                out,
                "\n<details><summary>{} skipped</summary>\n",
                skipped.len()
            );
            let _ = writeln!(out, "| Check | Reason |");
            let _ = writeln!(out, "|---|---|");
            for r in skipped {
                let _ = writeln!(out, "| `{}` | {} |", r.id, cell(&r.outcome.full_message()));
            }
            let _ = writeln!(out, "\n</details>");
        }
        out
    }

    /// One `### title` table of checks: id, outcome, requirements, message.
    fn check_table(&self, out: &mut String, title: &str, rows: &[&CheckResult]) {
        let _ = writeln!(out, "\n### {title}\n");
        let _ = writeln!(out, "| Check | Outcome | Requirements | Message |");
        let _ = writeln!(out, "|---|---|---|---|");
        for r in rows {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} |",
                r.id,
                self.label(r),
                r.requirements.join(", "),
                cell(&r.outcome.full_message())
            );
        }
    }

    /// `### Features`: each check of the feature surface (POL-31) that ran, one row per item it
    /// judged (the tool, resource, template, prompt or page), or one row for the check when it
    /// judged none.
    fn features_table(&self, out: &mut String) {
        let features: Vec<&CheckResult> = self
            .results
            .iter()
            .filter(|r| r.is_feature() && r.outcome.kind != Kind::Skipped)
            .collect();
        if features.is_empty() {
            return;
        }
        let _ = writeln!(out, "\n### Features\n");
        let _ = writeln!(out, "| Check | Item | Outcome | Message |");
        let _ = writeln!(out, "|---|---|---|---|");
        for r in features {
            let items = &r.outcome.items;
            if items.is_empty() {
                let _ = writeln!(
                    out,
                    "| `{}` | | {} | {} |",
                    r.id,
                    self.label(r),
                    cell(&r.outcome.full_message())
                );
                continue;
            }
            for item in items {
                // A pass names what it judged; anything else quotes the reply too.
                let message = match &item.evidence {
                    Some(e) if item.kind != Kind::Pass => format!("{} [judged: {e}]", item.message),
                    _ => item.message.clone(),
                };
                let _ = writeln!(
                    out,
                    "| `{}` | {} | {} | {} |",
                    r.id,
                    cell(&item.item),
                    item_label(item.kind),
                    cell(&message)
                );
            }
        }
    }

    fn label(&self, r: &CheckResult) -> String {
        let mut label = match r.outcome.kind {
            Kind::Fail | Kind::Error if r.baseline_reason.is_none() => {
                format!("❌ {}", r.outcome.kind)
            }
            Kind::NonStrict => format!("⚠️ {}", r.outcome.kind),
            kind => kind.to_string(),
        };
        if let Some(reason) = &r.baseline_reason {
            let _ = write!(label, " (baseline: {})", cell(reason));
        }
        if self.summary.stale.contains(&r.id) {
            label = format!("❌ STALE baseline entry ({label})");
        }
        label
    }
}

/// An item's verdict, marked as the check verdicts are.
fn item_label(kind: Kind) -> String {
    match kind {
        Kind::Fail | Kind::Error => format!("❌ {kind}"),
        Kind::NonStrict => format!("⚠️ {kind}"),
        kind => kind.to_string(),
    }
}

/// Text safe inside a table cell: no pipes, no line breaks, no HTML tags.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace("\r\n", " ")
        .replace(['\n', '\r'], " ")
}
