//! JUnit XML (via quick-junit), the shape nextest writes and CI systems read.
//!
//! One `<testsuite>` per area (the check id without its last segment), each `<testcase>` named
//! by the full check id with the area as its `classname`. Each suite carries the properties
//! `target`, `transport`, `era`, `version` (what a dual-era client negotiated) and `versions`
//! (the versions the server was seen to serve).
//!
//! | outcome                     | JUnit                                                      |
//! |-----------------------------|------------------------------------------------------------|
//! | Pass                        | a passing test case                                        |
//! | NonStrict, Info             | a passing test case; `<system-out>` says NON-STRICT / INFO |
//! | Fail                        | `<failure>`, the requirement texts as its body             |
//! | Error                       | `<error>`                                                  |
//! | Skipped                     | `<skipped>` with the reason                                |
//! | Fail/Error in the baseline  | `<skipped>`: "expected failure (baseline): …"              |
//! | stale baseline entry        | `<failure>`: the check passes but the baseline lists it   |

use std::time::Duration;

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use super::{CheckResult, RunReport};
use crate::outcome::Kind;
use crate::requirements;

impl RunReport {
    /// The report as JUnit XML.
    pub fn to_junit(&self) -> String {
        let mut report = Report::new("mcpspec");
        report.set_time(Duration::from_millis(self.duration_ms));
        let mut suites: Vec<TestSuite> = Vec::new();
        for r in &self.results {
            let area = r.area();
            let suite = match suites.iter().position(|s| s.name.as_str() == area) {
                Some(i) => &mut suites[i],
                None => {
                    suites.push(self.suite(area));
                    suites.last_mut().expect("a suite was just pushed")
                }
            };
            suite.add_test_case(self.case(r));
        }
        for suite in &mut suites {
            let ms: u64 = self
                .results
                .iter()
                .filter(|r| r.area() == suite.name.as_str())
                .map(|r| r.duration_ms)
                .sum();
            suite.set_time(Duration::from_millis(ms));
        }
        report.add_test_suites(suites);
        // Serializing into a String cannot fail on I/O; quick-junit reports only writer errors.
        report.to_string().unwrap_or_default()
    }

    fn suite(&self, area: &str) -> TestSuite {
        let mut suite = TestSuite::new(area);
        suite.add_property(("target", self.target.as_str()));
        suite.add_property(("transport", self.transport.as_str()));
        suite.add_property(("era", self.negotiated.era.as_str()));
        if let Some(version) = &self.negotiated.version {
            suite.add_property(("version", version.as_str()));
        }
        suite.add_property(("versions", self.negotiated.versions.join(" ").as_str()));
        suite
    }

    fn case(&self, r: &CheckResult) -> TestCase {
        let stale = self.summary.stale.contains(&r.id);
        let status = match (r.outcome.kind, &r.baseline_reason) {
            (Kind::Fail | Kind::Error, Some(reason)) => {
                let mut s = TestCaseStatus::skipped();
                s.set_message(format!(
                    "expected failure (baseline): {reason} — {}: {}",
                    r.outcome.kind,
                    r.outcome.full_message()
                ));
                s
            }
            (Kind::Fail, None) => {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                s.set_message(r.outcome.full_message());
                s.set_type("FAIL");
                s.set_description(requirement_texts(r));
                s
            }
            (Kind::Error, None) => {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
                s.set_message(r.outcome.full_message());
                s.set_type("ERROR");
                s
            }
            _ if stale => {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                s.set_message(format!(
                    "stale baseline entry: the baseline lists this check but it did not fail ({}: {})",
                    r.outcome.kind, r.outcome.full_message()
                ));
                s.set_type("STALE");
                s
            }
            (Kind::Skipped, _) => {
                let mut s = TestCaseStatus::skipped();
                s.set_message(r.outcome.full_message());
                s
            }
            (Kind::Pass | Kind::NonStrict | Kind::Info, _) => TestCaseStatus::success(),
        };
        let mut case = TestCase::new(r.id.as_str(), status);
        case.set_classname(r.area());
        case.set_time(Duration::from_millis(r.duration_ms));
        if matches!(r.outcome.kind, Kind::NonStrict | Kind::Info) && !stale {
            let mut note = format!("{}: {}", r.outcome.kind, r.outcome.full_message());
            let texts = requirement_texts(r);
            if r.outcome.kind == Kind::NonStrict && !texts.is_empty() {
                note.push('\n');
                note.push_str(&texts);
            }
            case.set_system_out(note);
        }
        case
    }
}

/// The cited requirements, one `ID [LEVEL] text` line each.
fn requirement_texts(r: &CheckResult) -> String {
    r.requirements
        .iter()
        .filter_map(|id| requirements::requirement(id))
        .map(|q| format!("{} [{}] {}", q.id, q.level, q.text))
        .collect::<Vec<_>>()
        .join("\n")
}
