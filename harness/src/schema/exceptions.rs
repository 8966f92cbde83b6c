//! Where a generated type disagrees with the official `schema.json`, the official schema wins.
//! Every such disagreement is one entry here, and `cli/tests/testsuite/schema.rs` proves each: the
//! message the entry names is valid under the official schema, rejected by the bare generated
//! type, and accepted by [`super::validate`].
//!
//! An exception is a repair: given the violation the typed layer reported and the body, it
//! rewrites the body into the form the generated type reads (without changing what the official
//! schema says of it) and validation goes on, so a later defect is still found.

use serde_json::Value;

use super::Violation;

/// One disagreement between a generated type and the official schema. `id` and `why` are for
/// readers and for the test that proves each exception (`tests/testsuite/schema.rs`); the product only
/// applies `repair`.
#[derive(Debug)]
pub struct Exception {
    /// A stable name, cited by the test that proves it.
    pub id: &'static str,
    /// What the official schema allows that the generated type does not.
    pub why: &'static str,
    /// Rewrites `body` at the violation so the typed layer reads it as the schema does;
    /// `false` when this exception does not apply.
    pub repair: fn(&Violation, &mut Value) -> bool,
}

/// Every exception, in one place.
pub const EXCEPTIONS: &[Exception] = &[Exception {
    id: "integral-number-is-integer",
    why: "JSON Schema's `integer` is any number with a zero fractional part (`1.0` is an \
          integer, 2020-12 §6.1.1 and draft-07 alike); serde's integer fields refuse `1.0`",
    repair: integral_number,
}];

/// How many repairs one message may need before the last violation stands.
pub const MAX_REPAIRS: usize = 32;

/// `-32601.0` where an integer is expected: rewritten as `-32601`.
fn integral_number(violation: &Violation, body: &mut Value) -> bool {
    if !violation.actual.starts_with("floating point") {
        return false;
    }
    let Some(slot) = body.pointer_mut(&violation.pointer) else {
        return false;
    };
    let Some(f) = slot.as_f64() else {
        return false;
    };
    if f.fract() != 0.0 || f.abs() > 9.007_199_254_740_992e15 {
        return false;
    }
    // Exact: a float with no fractional part within 2^53 converts without loss.
    #[allow(clippy::cast_possible_truncation)]
    let whole = f as i64;
    *slot = Value::from(whole);
    true
}
