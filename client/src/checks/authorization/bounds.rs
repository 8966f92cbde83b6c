//! Bounds (CLI-10): a client meeting hostile authorization documents stops in bounded time and
//! requests, and a client on a plain protected server does not flood it.

use super::super::prelude::*;
use super::{fail_on, flow};
use crate::observation::authorization::AuthCounts;
use crate::scenario::protection::MAX_BODY;

/// Metadata fetches beyond which a client is looping.
const MAX_METADATA: usize = 30;
/// Authorization requests beyond which a client is looping.
const MAX_AUTHORIZATIONS: usize = 10;
/// Registrations beyond which a client is flooding the AS.
const MAX_REGISTRATIONS: usize = 10;
/// Token requests beyond which a client is retrying without end.
const MAX_TOKEN_REQUESTS: usize = 20;

fn hostile(
    id: &'static str,
    scenario: &'static str,
    what: &'static str,
    faults: &'static [&'static str],
) -> ClientCheck {
    ClientCheck {
        id,
        requirements: &["CLI-10"],
        level: Level::Must,
        scenario,
        only: Some(Transport::Http),
        description: what,
        expectation: "The client stops (an error is right) within its timeout, after a bounded number of requests.",
        faults,
        judge: stops_in_bounds,
    }
}

pub fn group() -> Vec<ClientCheck> {
    vec![
        hostile(
            "client/auth/hostile-prm-self",
            "auth/hostile/prm-self",
            "Protected Resource Metadata naming its own URL as the authorization server does not make the client loop.",
            &["unbounded-discovery"],
        ),
        hostile(
            "client/auth/hostile-redirect-loop",
            "auth/hostile/redirect-loop",
            "Metadata URLs that redirect to themselves do not make the client loop.",
            &["unbounded-discovery"],
        ),
        hostile(
            "client/auth/hostile-huge-metadata",
            "auth/hostile/huge-metadata",
            "A 30 MB metadata body does not make the client hang, crash or loop.",
            &["unbounded-discovery"],
        ),
        hostile(
            "client/auth/hostile-unauthorized-forever",
            "auth/hostile/unauthorized-forever",
            "A server that refuses every token does not make the client authorize without end.",
            &["retry-forever"],
        ),
        ClientCheck {
            id: "client/auth/bounded-requests",
            requirements: &["CLI-10"],
            level: Level::Must,
            scenario: "auth/basic",
            only: Some(Transport::Http),
            description: "On a plain protected server the client registers, authorizes and asks for tokens a bounded number of times, with bodies of reasonable size.",
            expectation: "At most 10 registrations, 10 authorization requests and 20 token requests; no body over 1 MiB.",
            faults: &["register-forever", "huge-body"],
            judge: bounded_requests,
        },
    ]
}

/// The counts past a bound, in words.
fn excesses(c: &AuthCounts) -> Vec<String> {
    let mut out = Vec::new();
    if c.metadata > MAX_METADATA {
        out.push(format!("fetched metadata {} times", c.metadata));
    }
    if c.authorizations > MAX_AUTHORIZATIONS {
        out.push(format!("made {} authorization requests", c.authorizations));
    }
    if c.registrations > MAX_REGISTRATIONS {
        out.push(format!(
            "registered {} times (the AS answers 429 past {})",
            c.registrations,
            crate::scenario::protection::MAX_REGISTRATIONS
        ));
    }
    if c.token_requests > MAX_TOKEN_REQUESTS {
        out.push(format!("made {} token requests", c.token_requests));
    }
    if c.oversized > 0 {
        out.push(format!(
            "sent {} request(s) with a body over {} MiB (answered 413)",
            c.oversized,
            MAX_BODY / (1024 * 1024)
        ));
    }
    out
}

fn stops_in_bounds(obs: &Observation) -> Outcome {
    judge_counts(obs, "the client loops on the hostile peer: it", |c| {
        format!(
            "the client made {} request(s) of authorization ({} for metadata) and stopped",
            c.total, c.metadata
        )
    })
}

fn bounded_requests(obs: &Observation) -> Outcome {
    judge_counts(obs, "the client", |c| {
        format!(
            "{} registration(s), {} authorization request(s), {} token request(s); largest body {} bytes",
            c.registrations, c.authorizations, c.token_requests, c.largest_body
        )
    })
}

/// A Fail naming every bound the client went past (`lead` before the list), else a pass
/// saying `within` of the counts.
fn judge_counts(obs: &Observation, lead: &str, within: fn(&AuthCounts) -> String) -> Outcome {
    let f = match flow(obs) {
        Ok(f) => f,
        Err(skip) => return skip,
    };
    let c = f.trail.counts;
    let over = excesses(&c);
    if over.is_empty() {
        return Outcome::pass(within(&c));
    }
    let last = f.trail.requests.last().expect("attempted: a request");
    fail_on(last, format!("{lead} {}", over.join(", ")))
}
