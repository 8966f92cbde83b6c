//! GitHub Actions annotations: one `::error` workflow command per unexpected Fail or Error, per
//! stale baseline entry, and for a target that failed, so a failing run shows its failures on
//! the workflow run's page (the Action prints them; `mcpspec report RUN.json --annotations -`).
//!
//! The title names the verdict, the check and the requirements it cites; the message is the
//! verdict's, with what it judged. Listed (baseline) failures are not annotated: they are
//! expected.

use std::fmt::Write as _;

use super::RunReport;
use crate::outcome::Kind;

impl RunReport {
    /// The annotations, one workflow command per line.
    pub fn to_github_annotations(&self) -> String {
        let mut out = String::new();
        if let Some(reason) = &self.target_failure {
            command(&mut out, "mcpspec: the target failed", reason);
        }
        for r in &self.results {
            if !matches!(r.outcome.kind, Kind::Fail | Kind::Error) || r.baseline_reason.is_some() {
                continue;
            }
            let title = format!(
                "mcpspec {} {} ({})",
                r.outcome.kind.label(),
                r.id,
                r.requirements.join(", ")
            );
            let mut message = r.outcome.message.clone();
            if let Some(evidence) = &r.outcome.evidence {
                let _ = write!(message, "\njudged: {evidence}");
            }
            command(&mut out, &title, &message);
        }
        for id in &self.summary.stale {
            command(
                &mut out,
                &format!("mcpspec stale baseline entry {id}"),
                &format!("{id} no longer fails: remove it from the baseline"),
            );
        }
        out
    }
}

/// Appends `::error title=TITLE::MESSAGE`, escaped as GitHub's toolkit escapes them.
fn command(out: &mut String, title: &str, message: &str) {
    let data = |s: &str| {
        s.replace('%', "%25")
            .replace('\r', "%0D")
            .replace('\n', "%0A")
    };
    let property = |s: &str| data(s).replace(':', "%3A").replace(',', "%2C");
    let _ = writeln!(out, "::error title={}::{}", property(title), data(message));
}

#[cfg(test)]
mod tests {
    #[test]
    fn data_and_properties_are_escaped_as_the_toolkit_does() {
        let mut out = String::new();
        super::command(&mut out, "a: b, c", "100%\r\nnext");
        assert_eq!(out, "::error title=a%3A b%2C c::100%25%0D%0Anext\n");
    }
}
