//! `modern/*`: the 2026-07-28 surface — `server/discover`, the `_meta` envelope, version
//! errors, and the methods the revision removed.

use serde_json::{Value, json};

use super::prelude::*;
use super::support::{expect_code_or, served_method};
use crate::check::Script;

pub fn group() -> Vec<Check> {
    let mut checks = vec![
        Check {
            id: "modern/discover/answers",
            requirements: &["DISC-1", "STDIO-7"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "`server/discover` with a valid envelope is served.",
            expectation: "a result (not an error, not silence)",
            faults: &["no-discover"],
            script: |s| Box::pin(discover_answers(s)),
        },
        Check {
            id: "modern/discover/result-shape",
            requirements: &["DISC-3"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "The discover result has the DiscoverResult members.",
            expectation: "`resultType: \"complete\"`, `supportedVersions` (non-empty string[] with \
                          2026-07-28), `capabilities` (object)",
            faults: &["discover-bad-shape", "no-result-type"],
            script: |s| Box::pin(discover_shape(s)),
        },
        Check {
            id: "modern/discover/cache-hints",
            requirements: &["DISC-4", "CACHE-1"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "The discover result is cacheable.",
            expectation: "`ttlMs` an integer ≥ 0 and `cacheScope` \"public\" or \"private\"",
            faults: &["discover-no-cache-hints"],
            script: |s| Box::pin(discover_cache_hints(s)),
        },
        Check {
            id: "modern/discover/server-info-in-meta",
            requirements: &["DISC-5", "META-5"],
            level: Level::Should,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "Server identity is in `result._meta`.",
            expectation: "`_meta[\"io.modelcontextprotocol/serverInfo\"]` = {name, version}; a \
                          top-level `serverInfo` instead is NonStrict",
            faults: &["server-info-top-level"],
            script: |s| Box::pin(discover_server_info(s)),
        },
        Check {
            id: "modern/discover/requires-envelope",
            requirements: &["DISC-2", "META-1", "POL-19"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Fresh(Fresh::FirstMessage),
            needs: &[Need::Modern],
            description: "`server/discover` without `_meta` is rejected like any request.",
            expectation: ENVELOPE_LESS,
            faults: &[
                "discover-ignores-envelope",
                "envelope-optional",
                "envelope-less-served-as-modern",
                "envelope-less-read-as-legacy",
            ],
            script: |s| Box::pin(discover_requires_envelope(s)),
        },
        Check {
            id: "modern/envelope/missing-meta",
            requirements: &["META-1", "POL-19"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Fresh(Fresh::FirstMessage),
            needs: &[Need::Modern],
            description: "A served request whose params have no `_meta`.",
            expectation: ENVELOPE_LESS,
            faults: &[
                "envelope-optional",
                "envelope-less-served-as-modern",
                "envelope-less-read-as-legacy",
            ],
            script: |s| Box::pin(envelope_missing(s, None)),
        },
        Check {
            id: "modern/envelope/missing-protocol-version",
            requirements: &["META-1", "POL-19"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Fresh(Fresh::FirstMessage),
            needs: &[Need::Modern],
            description: "A served request whose `_meta` lacks the protocol version.",
            expectation: ENVELOPE_LESS,
            faults: &[
                "envelope-optional",
                "envelope-less-served-as-modern",
                "envelope-less-read-as-legacy",
            ],
            script: |s| Box::pin(envelope_missing(s, Some(meta::PROTOCOL_VERSION))),
        },
        Check {
            id: "modern/envelope/missing-client-capabilities",
            requirements: &["META-1"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "A served request whose `_meta` lacks the client capabilities.",
            expectation: "error -32602",
            faults: &["envelope-optional"],
            script: |s| Box::pin(envelope_missing(s, Some(meta::CLIENT_CAPABILITIES))),
        },
        Check {
            id: "modern/envelope/client-info-optional",
            requirements: &["META-2"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "A request without `clientInfo` (it is optional).",
            expectation: "served with a result",
            faults: &["require-client-info"],
            script: |s| Box::pin(client_info_optional(s)),
        },
        Check {
            id: "modern/version/unsupported-gets-32022",
            requirements: &["VER-1", "POL-15"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "A served request naming protocol version 2099-01-01.",
            expectation: "error -32022 (a pre-release draft code is Fail)",
            faults: &[
                "version-error-wrong-code",
                "version-error-draft-code",
                "accept-unknown-version",
            ],
            script: |s| Box::pin(unsupported_version(s, false)),
        },
        Check {
            id: "modern/version/unsupported-on-discover",
            requirements: &["VER-1", "DISC-2"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "`server/discover` naming protocol version 2099-01-01.",
            expectation: "error -32022",
            faults: &["version-error-wrong-code", "accept-unknown-version"],
            script: |s| Box::pin(unsupported_version(s, true)),
        },
        Check {
            id: "modern/version/error-data",
            requirements: &["VER-1", "VER-3"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "The -32022 error says what is supported and what was requested.",
            expectation: "`data.requested` = \"2099-01-01\"; `data.supported` a string[] within \
                          discover's `supportedVersions`",
            faults: &["version-error-bad-data"],
            script: |s| Box::pin(version_error_data(s)),
        },
        Check {
            id: "modern/version/malformed-gets-32022",
            requirements: &["VER-1"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "A served request naming a protocol version that is not a date.",
            expectation: "error -32022; -32602 is NonStrict; a result is Fail",
            faults: &["accept-unknown-version"],
            script: |s| Box::pin(malformed_version(s)),
        },
        Check {
            id: "modern/version/used-connection-unsupported",
            requirements: &["VER-1", "META-3", "POL-30"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "On a connection that has served 2026-07-28 requests (`server/discover` \
                          and a served method), a request naming protocol version 2099-01-01.",
            expectation: "error -32022, as on a fresh connection; a result (the version taken \
                          from the connection's history) is Fail",
            faults: &["version-pinned-on-first-use", "accept-unknown-version"],
            script: |s| Box::pin(used_connection_unsupported(s)),
        },
        Check {
            id: "modern/version/used-connection-other-era",
            requirements: &["META-3", "VER-6", "POL-30"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern, Need::Legacy],
            description: "On a connection that has served 2026-07-28 requests, a request naming \
                          the legacy version the server serves, in the modern envelope.",
            expectation: "not served as 2026-07-28 (an error, -32022 as a rule, or the legacy \
                          era's reading); a 2026-07-28 result (the version taken from the \
                          connection's history) is Fail",
            faults: &["version-pinned-on-first-use"],
            script: |s| Box::pin(used_connection_other_era(s)),
        },
        Check {
            id: "modern/version/no-discover-needed",
            requirements: &["VER-4", "META-3"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Fresh(Fresh::FirstMessage),
            needs: &[Need::Modern],
            description: "A fresh connection's first request is a served method, not discover.",
            expectation: "served with a result",
            faults: &["require-discover-first"],
            script: |s| Box::pin(no_discover_needed(s)),
        },
        Check {
            id: "modern/removed-methods/initialize-with-envelope",
            requirements: &["VER-6", "POL-7"],
            level: Level::Policy,
            era: Era::Modern,
            isolation: Isolation::Shared,
            needs: &[Need::Modern],
            description: "`initialize` carrying the modern `_meta` envelope.",
            expectation: "error -32601; a handshake result or -32022 naming the supported versions \
                          is Info; anything else is Fail",
            faults: &["modern-initialize-internal-error"],
            script: |s| Box::pin(initialize_with_envelope(s)),
        },
    ];
    checks.extend(REMOVED.iter().map(|&(id, requirements, script)| Check {
        id,
        requirements,
        level: Level::Must,
        era: Era::Modern,
        isolation: Isolation::Shared,
        needs: &[Need::Modern],
        description: "A method 2026-07-28 removed, with the modern envelope.",
        expectation: "error -32601",
        faults: &["serve-removed-methods"],
        script,
    }));
    checks
}

/// The expectation of every check that sends a request naming no protocol version (POL-19).
const ENVELOPE_LESS: &str = "error -32602; over stdio, from a server that also advertises legacy \
                             versions, another error is NonStrict (read as legacy before \
                             `initialize`); a result or silence is Fail";

/// Methods 2026-07-28 removed: (check id, requirement ids, the script that sends that method,
/// with the one parameter it needs, if any). Each check names its method here, in its own row.
const REMOVED: [(&str, &[&str], Script); 4] = [
    ("modern/removed-methods/ping", &["LOG-4"], |s| {
        Box::pin(removed_method(s, method::PING, None))
    }),
    (
        "modern/removed-methods/logging-set-level",
        &["LOG-4"],
        |s| {
            Box::pin(removed_method(
                s,
                method::LOGGING_SET_LEVEL,
                Some(("level", "info")),
            ))
        },
    ),
    (
        "modern/removed-methods/resources-subscribe",
        &["SUB-8"],
        |s| {
            Box::pin(removed_method(
                s,
                method::RESOURCES_SUBSCRIBE,
                Some(("uri", NOWHERE)),
            ))
        },
    ),
    (
        "modern/removed-methods/resources-unsubscribe",
        &["SUB-8"],
        |s| {
            Box::pin(removed_method(
                s,
                method::RESOURCES_UNSUBSCRIBE,
                Some(("uri", NOWHERE)),
            ))
        },
    ),
];

/// The resource a removed subscription method names (none: only the method is judged).
const NOWHERE: &str = "mcpspec://nowhere";

async fn discover(s: &mut Scenario) -> Result<Value, Outcome> {
    let mut peer = s.connect().await?;
    let reply = peer.call(request(method::DISCOVER)).await;
    reply.expect_result("server/discover").cloned()
}

async fn discover_answers(s: &mut Scenario) -> Verdict {
    discover(s).await?;
    Ok(Outcome::pass("server/discover answered with a result"))
}

async fn discover_shape(s: &mut Scenario) -> Verdict {
    let result = discover(s).await?;
    let mut missing = Vec::new();
    if result.get("resultType") != Some(&json!("complete")) {
        missing.push(format!(
            "resultType is {}",
            result.get("resultType").unwrap_or(&json!("absent"))
        ));
    }
    match string_array(result.get("supportedVersions")) {
        None => missing.push("supportedVersions is not a string array".into()),
        Some(v) if v.is_empty() => missing.push("supportedVersions is empty".into()),
        Some(v) if !v.iter().any(|x| x == version::MODERN) => {
            missing.push(format!("supportedVersions {v:?} lacks {}", version::MODERN));
        }
        Some(_) => {}
    }
    if !result.get("capabilities").is_some_and(Value::is_object) {
        missing.push("capabilities is not an object".into());
    }
    Ok(if missing.is_empty() {
        Outcome::pass("resultType, supportedVersions and capabilities present")
    } else {
        Outcome::fail(missing.join("; "))
    })
}

async fn discover_cache_hints(s: &mut Scenario) -> Verdict {
    let result = discover(s).await?;
    let mut problems = Problems::new();
    match result.get("ttlMs") {
        Some(Value::Number(n)) if n.as_u64().is_some() => {}
        Some(other) => problems.push(format!("ttlMs is {other}, expected an integer ≥ 0")),
        None => problems.push("ttlMs is absent"),
    }
    match result.get("cacheScope").and_then(Value::as_str) {
        Some("public" | "private") => {}
        _ => problems.push(format!(
            "cacheScope is {}, expected \"public\" or \"private\"",
            result.get("cacheScope").unwrap_or(&json!("absent"))
        )),
    }
    Ok(problems.verdict("ttlMs and cacheScope present"))
}

async fn discover_server_info(s: &mut Scenario) -> Verdict {
    let result = discover(s).await?;
    let info = result.get("_meta").and_then(|m| m.get(meta::SERVER_INFO));
    Ok(match info {
        Some(i)
            if i.get("name").is_some_and(Value::is_string)
                && i.get("version").is_some_and(Value::is_string) =>
        {
            Outcome::pass("serverInfo {name, version} in result._meta")
        }
        Some(i) => Outcome::non_strict(format!(
            "result._meta serverInfo lacks name or version: {i}"
        )),
        None if result.get("serverInfo").is_some() => {
            Outcome::non_strict("serverInfo is a top-level member, not in result._meta (DISC-5)")
        }
        None => Outcome::non_strict("no serverInfo in result._meta (META-5)"),
    })
}

async fn discover_requires_envelope(s: &mut Scenario) -> Verdict {
    let ambiguous = envelope_less_is_ambiguous(s);
    let mut peer = s.connect().await?;
    let reply = peer.call(request(method::DISCOVER).no_meta()).await;
    Ok(judge_envelope_less(
        ambiguous,
        &reply,
        "server/discover without _meta",
    ))
}

async fn envelope_missing(s: &mut Scenario, key: Option<&'static str>) -> Verdict {
    let m = served_method(s.facts());
    let mut peer = s.connect().await?;
    let (out, what) = match key {
        None => (request(m).no_meta(), format!("{m} without _meta")),
        Some(k) => (request(m).without_meta(k), format!("{m} without {k}")),
    };
    let reply = peer.call(out).await;
    // Only a request that names no protocol version leaves the era open (POL-19); one that
    // names 2026-07-28 but lacks the client capabilities is a modern request, plain META-1.
    let names_version = key.is_some_and(|k| k != meta::PROTOCOL_VERSION);
    if names_version {
        return Ok(expect_code_or(
            &reply,
            &what,
            code::INVALID_PARAMS,
            Outcome::fail,
        ));
    }
    Ok(judge_envelope_less(
        envelope_less_is_ambiguous(s),
        &reply,
        &what,
    ))
}

/// Whether a request that names no protocol version is ambiguous (POL-19): over stdio no
/// `MCP-Protocol-Version` header tells the eras apart, and a server that advertises legacy
/// versions may read such a request, sent before any `initialize`, as a legacy one. Over HTTP,
/// or to a modern-only server, it is not: META-1 applies as written.
fn envelope_less_is_ambiguous(s: &Scenario) -> bool {
    s.endpoint().is_none() && s.facts().advertises_legacy()
}

/// How a server answered a request that names no protocol version, sent first on a fresh
/// connection (the one rule for `modern/envelope/*` and `modern/discover/requires-envelope`).
enum EnvelopeLess {
    /// -32602: right under both readings (META-1 for a modern request, any error before
    /// `initialize` for a legacy one).
    Rejected,
    /// Another error: the legacy reading, a request before `initialize` (POL-19, NonStrict).
    ErrorReadAsLegacy,
    /// A result with `resultType` or serverInfo in `_meta`: served as a modern request
    /// without the envelope (META-1, Fail).
    ServedAsModern,
    /// A result without modern stamping: the legacy reading, served before `initialize`.
    ServedAsLegacy,
    /// Silence, a closed stream, an unreadable or id-less reply.
    Other,
}

impl EnvelopeLess {
    fn read(reply: &Reply) -> Self {
        match (reply.error(), reply.result()) {
            (Some(e), _) if e.code == code::INVALID_PARAMS => EnvelopeLess::Rejected,
            (Some(_), _) => EnvelopeLess::ErrorReadAsLegacy,
            (None, Some(r))
                if r.get("resultType").is_some()
                    || r.get("_meta")
                        .and_then(|m| m.get(meta::SERVER_INFO))
                        .is_some() =>
            {
                EnvelopeLess::ServedAsModern
            }
            (None, Some(_)) => EnvelopeLess::ServedAsLegacy,
            (None, None) => EnvelopeLess::Other,
        }
    }
}

/// POL-19's verdict on `reply`, the answer to `what` (a request naming no protocol version);
/// `ambiguous` from [`envelope_less_is_ambiguous`]. Without the ambiguity it is META-1 as
/// written: -32602 or Fail.
fn judge_envelope_less(ambiguous: bool, reply: &Reply, what: &str) -> Outcome {
    if !ambiguous {
        return expect_code_or(reply, what, code::INVALID_PARAMS, Outcome::fail);
    }
    match EnvelopeLess::read(reply) {
        EnvelopeLess::Rejected => Outcome::pass(format!("{what}: error {}", code::INVALID_PARAMS)),
        EnvelopeLess::ErrorReadAsLegacy => Outcome::non_strict(format!(
            "{what}: got {}: the dual-era server read it as legacy before `initialize` \
             (POL-19); META-1 asks for -32602",
            reply.describe()
        )),
        EnvelopeLess::ServedAsModern => Outcome::fail(format!(
            "{what}: served as a modern request without the envelope, got {} (META-1: -32602)",
            reply.describe()
        )),
        EnvelopeLess::ServedAsLegacy => Outcome::non_strict(format!(
            "{what}: got {} without modern stamping: the dual-era server read it as legacy \
             and served it before `initialize` (POL-19, POL-18); META-1 asks for -32602",
            reply.describe()
        )),
        EnvelopeLess::Other => Outcome::mismatch(
            what,
            format!("error {}", code::INVALID_PARAMS),
            reply.describe(),
        ),
    }
}

async fn client_info_optional(s: &mut Scenario) -> Verdict {
    let m = served_method(s.facts());
    let mut peer = s.connect().await?;
    let reply = peer.call(request(m).without_meta(meta::CLIENT_INFO)).await;
    reply.expect_result(&format!("{m} without clientInfo"))?;
    Ok(Outcome::pass(format!("{m} without clientInfo was served")))
}

async fn unsupported_version(s: &mut Scenario, on_discover: bool) -> Verdict {
    let m = if on_discover {
        method::DISCOVER
    } else {
        served_method(s.facts())
    };
    let mut peer = s.connect().await?;
    let reply = peer.call(request(m).version(version::UNKNOWN)).await;
    let what = format!("{m} with version {}", version::UNKNOWN);
    if let Some(e) = reply.error() {
        if code::DRAFT_CODES.contains(&e.code) {
            return Ok(Outcome::fail(format!(
                "{what}: error {} is a pre-release draft code; 2026-07-28 uses -32022",
                e.code
            )));
        }
    }
    Ok(expect_code_or(
        &reply,
        &what,
        code::UNSUPPORTED_VERSION,
        Outcome::fail,
    ))
}

async fn version_error_data(s: &mut Scenario) -> Verdict {
    let supported_by_discover = s.facts().supported_versions();
    let m = served_method(s.facts());
    let mut peer = s.connect().await?;
    let reply = peer.call(request(m).version(version::UNKNOWN)).await;
    let e = reply.expect_code("an unsupported version", code::UNSUPPORTED_VERSION)?;
    let data = e.data.clone().unwrap_or(Value::Null);
    let mut problems = Problems::new();
    match data.get("requested") {
        Some(Value::String(r)) if r == version::UNKNOWN => {}
        other => problems.push(format!(
            "data.requested is {}, expected \"{}\"",
            other.map_or("absent".into(), Value::to_string),
            version::UNKNOWN
        )),
    }
    match string_array(data.get("supported")) {
        None => problems.push("data.supported is not a string array"),
        Some(list) => {
            let stray: Vec<_> = list
                .iter()
                .filter(|v| !supported_by_discover.contains(v))
                .collect();
            if !stray.is_empty() {
                problems.push(format!(
                    "data.supported lists {stray:?}, not in discover's supportedVersions {supported_by_discover:?} (VER-3)"
                ));
            }
        }
    }
    Ok(problems
        .verdict("data.requested echoes the request; data.supported within supportedVersions"))
}

async fn malformed_version(s: &mut Scenario) -> Verdict {
    let m = served_method(s.facts());
    let mut peer = s.connect().await?;
    let reply = peer.call(request(m).version(version::MALFORMED)).await;
    let what = format!("{m} with version \"{}\"", version::MALFORMED);
    Ok(match reply.error() {
        Some(e) if e.code == code::INVALID_PARAMS => Outcome::non_strict(format!(
            "{what}: error -32602; VER-1 asks for -32022 for any unsupported version"
        )),
        _ => expect_code_or(&reply, &what, code::UNSUPPORTED_VERSION, Outcome::fail),
    })
}

/// The requests that make a connection "used": a `server/discover` and, when the server lists
/// something, a served method, each in the full modern envelope and answered.
async fn use_connection(s: &Scenario, peer: &mut Peer) -> Result<(), Outcome> {
    let m = served_method(s.facts());
    let mut methods = vec![method::DISCOVER];
    if m != method::DISCOVER {
        methods.push(m);
    }
    for m in methods {
        peer.call(request(m))
            .await
            .expect_result(&format!("{m}, sent first to use the connection"))?;
    }
    Ok(())
}

async fn used_connection_unsupported(s: &mut Scenario) -> Verdict {
    let m = served_method(s.facts());
    let mut peer = s.connect().await?;
    use_connection(s, &mut peer).await?;
    let reply = peer.call(request(m).version(version::UNKNOWN)).await;
    let what = format!(
        "{m} with version {}, after the connection served 2026-07-28 requests",
        version::UNKNOWN
    );
    if reply.result().is_some() {
        return Ok(Outcome::fail(format!(
            "{what}: served ({}): the version was taken from the connection's history, not \
             from the request (META-3; VER-1 asks for -32022)",
            reply.describe()
        ))
        .with_evidence(reply.evidence()));
    }
    Ok(expect_code_or(
        &reply,
        &what,
        code::UNSUPPORTED_VERSION,
        Outcome::fail,
    ))
}

async fn used_connection_other_era(s: &mut Scenario) -> Verdict {
    let Some(legacy) = s.facts().legacy_version().map(str::to_owned) else {
        return Ok(Outcome::skipped("the server negotiated no legacy version"));
    };
    let m = served_method(s.facts());
    let what = format!(
        "{m} naming {legacy} in the modern envelope, after the connection served 2026-07-28 \
         requests"
    );
    let mut peer = s.connect().await?;
    use_connection(s, &mut peer).await?;
    let reply = peer.call(request(m).version(&legacy)).await;
    Ok(match (reply.error(), reply.result()) {
        (Some(e), _) if e.code == code::UNSUPPORTED_VERSION => {
            Outcome::pass(format!("{what}: error {}", e.code))
        }
        (Some(e), _) => Outcome::pass(format!(
            "{what}: error {} (not served as 2026-07-28)",
            e.code
        )),
        (None, Some(r)) if r.get("resultType").is_some() => Outcome::fail(format!(
            "{what}: served as 2026-07-28 ({}): the version was taken from the connection's \
             history, not from the request (META-3)",
            reply.describe()
        ))
        .with_evidence(reply.evidence()),
        (None, Some(_)) => Outcome::info(format!(
            "{what}: a legacy result (no `resultType`): the server read the request in the \
             era of the version it named"
        )),
        (None, None) => Outcome::fail(format!("{what}: got {}", reply.describe()))
            .with_evidence(reply.evidence()),
    })
}

async fn no_discover_needed(s: &mut Scenario) -> Verdict {
    let m = served_method(s.facts());
    if m == method::DISCOVER {
        return Ok(Outcome::skipped(
            "the server advertises no list method to ask without discover",
        ));
    }
    let mut peer = s.connect().await?;
    let reply = peer.call(request(m)).await;
    reply.expect_result(&format!("{m} as the first request"))?;
    Ok(Outcome::pass(format!(
        "{m} served without a prior server/discover"
    )))
}

async fn initialize_with_envelope(s: &mut Scenario) -> Verdict {
    let mut peer = s.connect().await?;
    let reply = peer
        .call(
            request(method::INITIALIZE)
                .param("protocolVersion", json!(version::MODERN))
                .param("capabilities", json!({}))
                .param("clientInfo", json!({"name": "mcpspec", "version": "0"})),
        )
        .await;
    Ok(match (reply.result(), reply.error()) {
        (_, Some(e)) if e.code == code::METHOD_NOT_FOUND => {
            Outcome::pass("initialize with the modern envelope: -32601")
        }
        (_, Some(e)) if e.code == code::UNSUPPORTED_VERSION => Outcome::info(
            "initialize with the modern envelope: -32022 naming the supported versions (POL-7)",
        ),
        (Some(r), _) if r.get("protocolVersion").is_some() => {
            Outcome::info("initialize with the modern envelope: a legacy handshake result (POL-7)")
        }
        _ => Outcome::fail(format!(
            "initialize with the modern envelope got {}",
            reply.describe()
        )),
    })
}

/// Sends `m` (removed in 2026-07-28) with the modern envelope and its one string parameter, if
/// any; -32601 passes.
async fn removed_method(
    s: &mut Scenario,
    m: &'static str,
    param: Option<(&'static str, &'static str)>,
) -> Verdict {
    let mut peer = s.connect().await?;
    let out = match param {
        Some((name, value)) => request(m).param(name, json!(value)),
        None => request(m),
    };
    let reply = peer.call(out).await;
    Ok(expect_code_or(
        &reply,
        &format!("{m} (removed in 2026-07-28)"),
        code::METHOD_NOT_FOUND,
        Outcome::fail,
    ))
}
