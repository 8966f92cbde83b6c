//! The outcome model: what a check concluded, and the metadata every check carries.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A check's verdict kind.
///
/// - `Pass`: the requirement holds.
/// - `NonStrict`: a SHOULD is violated, or a tolerated alternative behaviour was seen.
/// - `Fail`: a MUST / MUST NOT is violated.
/// - `Info`: the spec leaves it open; the behaviour is recorded.
/// - `Skipped`: not applicable (capability not advertised, era not served, ...). Never a pass.
/// - `Error`: the harness could not run the check.
///
/// In JSON (the report's `outcome.kind`, its summary counts, the HTML report's classes and
/// filters) each kind has one spelling, [`Kind::key`]: `pass`, `non_strict`, `fail`, `info`,
/// `skipped`, `error`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Pass,
    NonStrict,
    Fail,
    Info,
    Skipped,
    Error,
}

impl Kind {
    /// Every kind, in declaration order.
    pub const ALL: [Kind; 6] = [
        Kind::Pass,
        Kind::NonStrict,
        Kind::Fail,
        Kind::Info,
        Kind::Skipped,
        Kind::Error,
    ];

    /// The kind's one spelling in JSON and HTML (its serde name; a test holds them equal).
    pub fn key(self) -> &'static str {
        match self {
            Kind::Pass => "pass",
            Kind::NonStrict => "non_strict",
            Kind::Fail => "fail",
            Kind::Info => "info",
            Kind::Skipped => "skipped",
            Kind::Error => "error",
        }
    }

    /// The label reports print (`NON-STRICT`).
    pub fn label(self) -> &'static str {
        match self {
            Kind::Pass => "PASS",
            Kind::NonStrict => "NON-STRICT",
            Kind::Fail => "FAIL",
            Kind::Info => "INFO",
            Kind::Skipped => "SKIP",
            Kind::Error => "ERROR",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.label())
    }
}

/// A verdict with what was seen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    pub kind: Kind,
    pub message: String,
    /// The transcript entry the verdict judged (non-pass verdicts), quoted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
    /// What was expected and what came, when the verdict is one such comparison. The message
    /// says it in words; the HTML report sets the two side by side. Boxed: an `Outcome` is the
    /// `Err` of every check step, so it stays small.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mismatch: Option<Box<Mismatch>>,
    /// The items a feature-surface check judged one by one (POL-31): each tool, resource,
    /// template or prompt with its own verdict. The reports list them under "Features".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<Judged>,
}

/// One item a feature-surface check judged (POL-31): what it is, how it fared and the
/// message that showed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Judged {
    /// The item as a verdict names it: "tool `echo`", "resource mcpspec://…", "prompt `x`".
    pub item: String,
    pub kind: Kind,
    pub message: String,
    /// The transcript entry the item's verdict rests on (its reply), quoted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Evidence>,
}

/// What a check expected and what came instead: a mismatch as a value (h2spec's TestError),
/// rendered in a verdict as `{what}: expected {expected}, got {actual}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mismatch {
    pub expected: String,
    pub actual: String,
}

impl Mismatch {
    pub fn new(expected: impl Into<String>, actual: impl Into<String>) -> Self {
        Self {
            expected: expected.into(),
            actual: actual.into(),
        }
    }

    /// The verdict text: `{what}: expected {expected}, got {actual}`.
    pub fn describe(&self, what: &str) -> String {
        format!("{what}: expected {}, got {}", self.expected, self.actual)
    }
}

pub use mcpspec_core::transcript::Evidence;

impl Outcome {
    pub fn new(kind: Kind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            evidence: None,
            mismatch: None,
            items: Vec::new(),
        }
    }

    /// The same verdict, with the items it judged one by one.
    pub fn with_items(mut self, items: Vec<Judged>) -> Self {
        self.items = items;
        self
    }

    /// A Fail saying what `what` expected and what came instead (see [`Mismatch::describe`]).
    pub fn mismatch(what: &str, expected: impl Into<String>, actual: impl Into<String>) -> Self {
        let mismatch = Mismatch::new(expected, actual);
        Self::fail(mismatch.describe(what)).with_mismatch(mismatch)
    }

    /// The same verdict, carrying the comparison it states.
    pub fn with_mismatch(mut self, mismatch: Mismatch) -> Self {
        self.mismatch = Some(Box::new(mismatch));
        self
    }

    /// The same verdict, pointing at `evidence` (kept if one is set already: the first
    /// to name it is the closest to the judgement).
    pub fn with_evidence(mut self, evidence: Option<Evidence>) -> Self {
        if self.evidence.is_none() {
            self.evidence = evidence;
        }
        self
    }

    /// Whether this verdict should quote what it judged: every verdict but a pass or a skip.
    pub fn wants_evidence(&self) -> bool {
        !matches!(self.kind, Kind::Pass | Kind::Skipped)
    }

    /// The message with its evidence, as the text, JUnit and Markdown reports print it.
    pub fn full_message(&self) -> String {
        match &self.evidence {
            Some(e) => format!("{} [judged: {e}]", self.message),
            None => self.message.clone(),
        }
    }
    pub fn pass(message: impl Into<String>) -> Self {
        Self::new(Kind::Pass, message)
    }
    pub fn non_strict(message: impl Into<String>) -> Self {
        Self::new(Kind::NonStrict, message)
    }
    pub fn fail(message: impl Into<String>) -> Self {
        Self::new(Kind::Fail, message)
    }
    pub fn info(message: impl Into<String>) -> Self {
        Self::new(Kind::Info, message)
    }
    pub fn skipped(reason: impl Into<String>) -> Self {
        Self::new(Kind::Skipped, reason)
    }
    pub fn error(reason: impl Into<String>) -> Self {
        Self::new(Kind::Error, reason)
    }

    /// The outcome under `--strict`: NonStrict becomes Fail.
    pub fn strict(self) -> Self {
        match self.kind {
            Kind::NonStrict => Self {
                kind: Kind::Fail,
                message: format!("(strict) {}", self.message),
                ..self
            },
            _ => self,
        }
    }

    /// Whether this outcome catches a violation (what the mutation test asks of a fault).
    pub fn is_violation(&self) -> bool {
        matches!(self.kind, Kind::Fail | Kind::NonStrict)
    }
}

/// What a check found wrong, collected while it judges several things at once and joined into
/// one verdict (`; ` between problems): a Pass when nothing is wrong, else a Fail naming all.
#[derive(Debug, Default)]
pub struct Problems(Vec<String>);

impl Problems {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, problem: impl Into<String>) {
        self.0.push(problem.into());
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Every problem, joined with `; `.
    pub fn joined(&self) -> String {
        self.0.join("; ")
    }

    /// A Pass with `pass` when nothing is wrong, else a Fail naming every problem.
    pub fn verdict(self, pass: impl Into<String>) -> Outcome {
        self.verdict_as(Outcome::fail, pass)
    }

    /// As [`Problems::verdict`], with `problem` (`Outcome::non_strict`, …) instead of a Fail.
    pub fn verdict_as(self, problem: fn(String) -> Outcome, pass: impl Into<String>) -> Outcome {
        if self.is_empty() {
            Outcome::pass(pass)
        } else {
            problem(self.joined())
        }
    }
}

/// The strength of what a check verifies (RFC 2119, or implementation policy).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Level {
    Must,
    Should,
    /// What the spec leaves open; the expectation comes from a policy (POL-n).
    Policy,
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
            Level::Policy => "POLICY",
        })
    }
}

/// Which protocol era a check exercises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Era {
    /// 2026-07-28, stateless.
    Modern,
    /// The initialize-handshake revisions.
    Legacy,
    /// Era-independent (framing, process behaviour).
    Any,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mismatch_reads_as_expected_then_got() {
        let o = Outcome::mismatch("tools/list", "error -32601", "a result");
        assert_eq!(o.kind, Kind::Fail);
        assert_eq!(o.message, "tools/list: expected error -32601, got a result");
        assert_eq!(
            o.mismatch.as_deref(),
            Some(&Mismatch::new("error -32601", "a result"))
        );
    }

    #[test]
    fn problems_pass_when_empty_and_join_with_semicolons() {
        assert_eq!(Problems::new().verdict("fine"), Outcome::pass("fine"));
        let mut p = Problems::new();
        p.push("a");
        p.push(String::from("b"));
        assert_eq!(p.verdict("fine"), Outcome::fail("a; b"));
    }

    #[test]
    fn every_kind_has_one_spelling_in_json() {
        for kind in Kind::ALL {
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.key());
            let back: Kind = serde_json::from_value(kind.key().into()).unwrap();
            assert_eq!(back, kind);
        }
    }
}
