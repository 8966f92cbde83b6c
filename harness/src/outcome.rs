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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    Pass,
    NonStrict,
    Fail,
    Info,
    Skipped,
    Error,
}

impl Kind {
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
}

impl Outcome {
    pub fn new(kind: Kind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
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
            Kind::NonStrict => Self::fail(format!("(strict) {}", self.message)),
            _ => self,
        }
    }

    /// Whether this outcome catches a violation (what the mutation test asks of a fault).
    pub fn is_violation(&self) -> bool {
        matches!(self.kind, Kind::Fail | Kind::NonStrict)
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
