//! The policies applied to a check's verdict after it ran: a shared process that stopped is
//! charged to the check (POL-21), schema violations raise it (SCHEMA-1..3), a slow reply is no
//! silence (POL-14), a rejection with `id: null` over HTTP is NonStrict (POL-29).

use crate::outcome::Outcome;

/// POL-21: a shared process that died or went silent after a check is charged to it. A
/// verdict that passed (or only recorded) becomes a Fail that says so; a Fail or Error keeps
/// its kind and gains the remark.
pub fn charge_stopped(outcome: Outcome, why: &str) -> Outcome {
    use crate::outcome::Kind;
    match outcome.kind {
        Kind::Fail | Kind::Error => Outcome::new(
            outcome.kind,
            format!("{}; then {why} (POL-21)", outcome.message),
        ),
        _ => Outcome::fail(format!(
            "{why} (POL-21); the check itself said: {}",
            outcome.message
        )),
    }
}

/// POL-20, applied once for every check: a received message that breaks the schema of its
/// revision (SCHEMA-1) makes the check that received it a Fail, once, naming the method, the
/// JSON pointer, what the schema expects and what came, and quoting the message. A Fail keeps
/// its own finding and names the schema's too; a Skip or an Error stands (the check did not
/// judge, and a violation never turns into a pass).
pub fn schema_verdict(
    outcome: Outcome,
    findings: &[mcpspec_core::transcript::SchemaFinding],
) -> Outcome {
    use crate::outcome::Kind;
    let Some(first) = findings.first() else {
        return outcome;
    };
    let total: usize = findings.iter().map(|f| f.violations.len()).sum();
    let shown = first
        .violations
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ");
    let more = match total - first.violations.len() {
        0 => String::new(),
        n => format!(" (and {n} more, listed in the transcript)"),
    };
    let schema = format!("schema violation (SCHEMA-1): {shown}{more}");
    match outcome.kind {
        Kind::Pass | Kind::NonStrict | Kind::Info => Outcome::fail(format!(
            "{schema}; the check's own verdict was {}: {}",
            outcome.kind, outcome.message
        ))
        .with_evidence(first.evidence.clone()),
        Kind::Fail => Outcome {
            message: format!("{}; {schema}", outcome.message),
            ..outcome
        },
        Kind::Skipped | Kind::Error => outcome,
    }
}

/// POL-24, applied once for every check: a verdict that rests on silence judged before the
/// server answered anything is an Error (the server may still have been starting); a late reply
/// makes a Pass, Info or NonStrict verdict NonStrict "late (N ms): …", and is mentioned in a
/// Fail or Error, which stand.
pub fn slow_is_not_silent(
    outcome: Outcome,
    lates: &[mcpspec_core::transcript::Late],
    unready_silence: Option<String>,
) -> Outcome {
    use crate::outcome::Kind;
    let outcome = match unready_silence {
        Some(what) if matches!(outcome.kind, Kind::Pass | Kind::NonStrict | Kind::Info) => {
            Outcome::error(format!(
                "{what} was judged before the server answered any request, so it proves nothing \
                 (POL-24: the check must warm the server up first); the check said: {}",
                outcome.message
            ))
        }
        _ => outcome,
    };
    let Some(first) = lates.first() else {
        return outcome;
    };
    let late = format!(
        "late ({} ms): the reply to id {} came after its {} wait{}",
        first.latency.as_millis(),
        first.id,
        mcpspec_core::text::seconds(first.waited),
        match lates.len() {
            1 => String::new(),
            n => format!(" ({n} late replies in all)"),
        }
    );
    match outcome.kind {
        Kind::Pass | Kind::Info | Kind::NonStrict => {
            Outcome::non_strict(format!("{late} (POL-24); {}", outcome.message))
        }
        Kind::Fail | Kind::Error => Outcome::new(
            outcome.kind,
            format!("{} ({late}, POL-24)", outcome.message),
        ),
        Kind::Skipped => outcome,
    }
}

/// POL-29, applied once for every check: over HTTP, a 4xx rejection whose JSON-RPC error has
/// `id: null` although the request's id was readable answers that request, but RPC-3 asks for
/// the request's id: a Pass, Info or NonStrict verdict becomes NonStrict saying so, and a Fail
/// or Error mentions it. POL-29's exception, the id-less body of a DNS-rebinding refusal (the 403
/// for a foreign `Origin`, HTTP-2; the 403 or 421 for a foreign `Host`, POL-33), never reaches
/// here: the two checks that provoke it read it through `catalogue::http_support::post_refusal`,
/// which notes it in the transcript instead of recording it.
pub fn null_id_rejections(outcome: Outcome, rejections: &[(String, u16)]) -> Outcome {
    use crate::outcome::Kind;
    let Some((id, status)) = rejections.first() else {
        return outcome;
    };
    let what = format!(
        "the HTTP {status} rejection of request {id} carried `id: null` though the request's id \
         was readable (POL-29; RPC-3 asks for the request's id){}",
        match rejections.len() {
            1 => String::new(),
            n => format!(", {n} such rejections in all"),
        }
    );
    match outcome.kind {
        Kind::Pass | Kind::Info | Kind::NonStrict => {
            Outcome::non_strict(format!("{what}; {}", outcome.message))
        }
        Kind::Fail | Kind::Error => {
            Outcome::new(outcome.kind, format!("{} ({what})", outcome.message))
        }
        Kind::Skipped => outcome,
    }
}
