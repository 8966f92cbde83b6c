//! `stateless/*`: is the server really stateless across instances (SCALE-1..3, POL-22)? The
//! steps of one flow go to different instances in a fixed round-robin order (A, B, C, …), as a
//! plain round-robin balancer would send them, and every message in the transcript names its
//! instance. Without two or more instances (`--replicas N`, several `--url`) they are skipped.
//!
//! - pagination: page 1 from A, its `nextCursor` continued on B, C, …; the whole listing must
//!   equal one instance's listing (every advertised list);
//! - MRTR: the InputRequiredResult from A, the retry with `inputResponses` and `requestState` on
//!   B completes; a tampered `requestState` is rejected on B too (MRTR-4);
//! - agreement: `server/discover`, the first page of every list with its cache hints, and the
//!   error for the same bad requests, compared field by field (SCALE-2);
//! - failover: instance A is stopped between page 1 and page 2, and between the
//!   InputRequiredResult and its retry; the flow must complete on B (SCALE-3);
//! - flows that need no state (`tools/call` of an allowed tool, `completion/complete`,
//!   `resources/read` of a URI listed on A) give the same result on every instance.

use serde_json::{Map, Value, json};

use super::prelude::*;
use super::support::{
    self, advertised_lists, answers, call_tool, first_round, is_input_required, retry, tamper,
};
use crate::replicas::label;

/// The most differences one comparison lists, and one verdict names.
const MAX_DIFFERENCES: usize = 8;
/// The most pages one round-robin listing walks.
const MAX_PAGES: usize = 20;

pub fn group() -> Vec<Check> {
    vec![
        Check {
            id: "stateless/pagination/round-robin",
            requirements: &["SCALE-1", "POL-22", "POL-11"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Fresh(Fresh::Instances),
            needs: &[Need::Modern, Need::Replicas],
            description: "Every advertised list: page 1 from instance A, each `nextCursor` \
                          continued on the next instance (B, C, …).",
            expectation: "every cursor is accepted by the instance it is sent to, and the whole \
                          listing equals instance A's own listing",
            faults: &["instance-local-cursor"],
            script: |s| Box::pin(pagination_round_robin(s)),
        },
        Check {
            id: "stateless/mrtr/round-robin",
            requirements: &["SCALE-1", "MRTR-4", "POL-22", "POL-12"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Fresh(Fresh::Instances),
            needs: &[Need::Modern, Need::Replicas, Need::ProbeProfile],
            description: "`mcpspec_confirm` on instance A; its retry with every input answered \
                          and the `requestState` as issued on instance B; then on B with the \
                          `requestState` tampered.",
            expectation: "the retry on B completes; the tampered one does not (an error, or \
                          input required again)",
            faults: &["instance-local-request-state", "request-state-not-verified"],
            script: |s| Box::pin(mrtr_round_robin(s)),
        },
        Check {
            id: "stateless/agreement/instances-agree",
            requirements: &["SCALE-2", "POL-22"],
            level: Level::Should,
            era: Era::Modern,
            isolation: Isolation::Fresh(Fresh::Instances),
            needs: &[Need::Modern, Need::Replicas],
            description: "On every instance: `server/discover`, the first page of every \
                          advertised list with its cache hints, an unknown method and a list \
                          request with a cursor no server issued.",
            expectation: "the same results and the same errors on every instance (cursors \
                          aside); each difference is listed field by field",
            faults: &["instance-drift"],
            script: |s| Box::pin(instances_agree(s)),
        },
        Check {
            id: "stateless/failover/pagination",
            requirements: &["SCALE-3", "SCALE-1", "POL-22"],
            level: Level::Should,
            era: Era::Modern,
            isolation: Isolation::Fresh(Fresh::Instances),
            needs: &[Need::Modern, Need::Replicas],
            description: "The first advertised list with a second page: page 1 from instance A, \
                          A stopped, the rest continued on B, C, ….",
            expectation: "the listing completes without instance A and equals one instance's \
                          own listing",
            faults: &["instance-local-cursor"],
            script: |s| Box::pin(failover_pagination(s)),
        },
        Check {
            id: "stateless/failover/mrtr",
            requirements: &["SCALE-3", "SCALE-1", "POL-22", "POL-12"],
            level: Level::Should,
            era: Era::Modern,
            isolation: Isolation::Fresh(Fresh::Instances),
            needs: &[Need::Modern, Need::Replicas, Need::ProbeProfile],
            description: "`mcpspec_confirm` on instance A, A stopped, the retry with every input \
                          answered and the `requestState` as issued on instance B.",
            expectation: "the retry completes on B",
            faults: &["instance-local-request-state"],
            script: |s| Box::pin(failover_mrtr(s)),
        },
        Check {
            id: "stateless/flows/same-everywhere",
            requirements: &["SCALE-1", "SCALE-2", "POL-22", "POL-12"],
            level: Level::Must,
            era: Era::Modern,
            isolation: Isolation::Fresh(Fresh::Instances),
            needs: &[Need::Modern, Need::Replicas],
            description: "Requests that need no state, on every instance: `tools/call` of each \
                          allowed tool (--allow-tool), `completion/complete` of a prompt \
                          argument or template variable, `resources/read` of the first URI \
                          `resources/list` gave on instance A.",
            expectation: "the same result on every instance; each difference is listed field by \
                          field",
            faults: &["instance-drift"],
            script: |s| Box::pin(same_everywhere(s)),
        },
    ]
}

/// The number of instances (two or more: the runner skips these checks otherwise).
fn instances(s: &Scenario) -> usize {
    s.replicas().map_or(1, |r| r.count())
}

/// A modern connection to instance `index`, answering before the flow begins (POL-24: a slow
/// start is not a lost cursor). Instances start one after the other, so an interpreter's start
/// does not compete with the next one's.
async fn ready(s: &mut Scenario, index: usize) -> Result<Peer, Outcome> {
    let mut peer = s.connect_instance(index).await?;
    warmed(&mut peer, index).await?;
    Ok(peer)
}

async fn warmed(peer: &mut Peer, index: usize) -> Result<(), Outcome> {
    peer.warm_up()
        .await
        .map_err(|e| Outcome::error(format!("instance {}: {}", label(index), e.message)))
}

/// One modern connection to each instance, A first.
async fn connect_all(s: &mut Scenario) -> Result<Vec<Peer>, Outcome> {
    let mut peers = Vec::new();
    for i in 0..instances(s) {
        peers.push(ready(s, i).await?);
    }
    Ok(peers)
}

/// Why a round-robin listing stopped, and the reply that showed it.
type Stopped = (String, Option<crate::outcome::Evidence>);

/// Where one page of a listing came from: the instance, the index of its first item in the
/// listing, and the reply (what a verdict about that page judged).
type PageOrigin = (usize, usize, Option<crate::outcome::Evidence>);

/// The page that holds item `index` of a listing, or the last page when the listing ended
/// before it (the page that said there was no more): the instance to charge a difference to.
fn page_of(pages: &[PageOrigin], index: usize) -> Option<(usize, &PageOrigin)> {
    pages
        .iter()
        .enumerate()
        .rev()
        .find(|(_, (_, start, _))| *start <= index)
}

/// A listing difference charged to the page (and instance) where it begins.
fn charged(
    list: &str,
    what: &str,
    (first, diff): (usize, String),
    pages: &[PageOrigin],
    requirement: &str,
) -> (String, Option<crate::outcome::Evidence>) {
    match page_of(pages, first) {
        Some((n, (instance, _, evidence))) => (
            format!(
                "{list}: {what}: {diff}, in page {} from instance {} ({requirement})",
                n + 1,
                label(*instance)
            ),
            evidence.clone(),
        ),
        None => (format!("{list}: {what}: {diff} ({requirement})"), None),
    }
}

/// A list walked round robin: page `k` on instance `order[k % len]`. The items and where each
/// page came from, or the problem that stopped it (naming the instance that issued the cursor
/// and the one that refused it).
async fn round_robin_items(
    peers: &mut [Peer],
    order: &[usize],
    list: &str,
    key: &str,
) -> Result<(Vec<Value>, Vec<PageOrigin>), Stopped> {
    let mut items = Vec::new();
    let mut pages = Vec::new();
    let mut cursor: Option<(Value, usize)> = None;
    for page in 0..MAX_PAGES {
        let at = order[page % order.len()];
        let mut out = request(list);
        if let Some((c, _)) = &cursor {
            out = out.param("cursor", c.clone());
        }
        let reply = peers[at].call(out).await;
        let Some(result) = reply.result() else {
            let evidence = reply.evidence();
            let problem = match &cursor {
                Some((c, issuer)) => format!(
                    "{list}: the cursor {} instance {} issued (page {page}) was not accepted by \
                     instance {}: {}",
                    shorten(&c.to_string(), 60),
                    label(*issuer),
                    label(at),
                    reply.describe()
                ),
                None => format!(
                    "{list}: page 1 on instance {} got {}",
                    label(at),
                    reply.describe()
                ),
            };
            return Err((problem, evidence));
        };
        pages.push((at, items.len(), reply.evidence()));
        items.extend(
            result
                .get(key)
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
        );
        match result.get("nextCursor").filter(|c| !c.is_null()) {
            Some(next) => cursor = Some((next.clone(), at)),
            None => return Ok((items, pages)),
        }
    }
    Err((
        format!("{list}: still a `nextCursor` after {MAX_PAGES} pages"),
        None,
    ))
}

/// How two listings of the same list differ (the index of the first item that differs, and the
/// difference in words), or `None` when they are equal.
fn listing_difference(one: &[Value], other: &[Value]) -> Option<(usize, String)> {
    if one == other {
        return None;
    }
    let name = |v: &Value| support::name_of(v).map_or_else(|| preview(v, 60), str::to_owned);
    let first = one
        .iter()
        .zip(other)
        .position(|(a, b)| a != b)
        .unwrap_or(one.len().min(other.len()));
    Some((
        first,
        format!(
            "{} items against {}; first difference at item {}: {} against {}",
            other.len(),
            one.len(),
            first + 1,
            other.get(first).map_or_else(|| "nothing".into(), name),
            one.get(first).map_or_else(|| "nothing".into(), name),
        ),
    ))
}

async fn pagination_round_robin(s: &mut Scenario) -> Verdict {
    let lists = advertised_lists(s.facts())?;
    let mut peers = connect_all(s).await?;
    let order: Vec<usize> = (0..peers.len()).collect();
    let mut problems = Problems::new();
    let mut judged = None;
    let mut crossed = Vec::new();
    for (list, key) in lists {
        let single = peers[0].items(list, key).await?;
        match round_robin_items(&mut peers, &order, list, key).await {
            Err((problem, evidence)) => {
                problems.push(format!("{problem} (SCALE-1)"));
                judged = judged.or(evidence);
            }
            Ok((items, pages)) => {
                if let Some(diff) = listing_difference(&single, &items) {
                    let what = "the listing across instances differs from instance A's own";
                    let (problem, evidence) = charged(list, what, diff, &pages, "SCALE-1");
                    problems.push(problem);
                    judged = judged.or(evidence);
                } else if pages.len() > 1 {
                    crossed.push(format!("{list} ({} pages)", pages.len()));
                }
            }
        }
    }
    if !problems.is_empty() {
        return Ok(problems.verdict("").with_evidence(judged));
    }
    Ok(if crossed.is_empty() {
        Outcome::info(
            "every advertised list fits on one page: no cursor to continue on another instance",
        )
    } else {
        Outcome::pass(format!(
            "cursors continued across instances and the listings are whole: {}",
            crossed.join(", ")
        ))
    })
}

/// Instance A's InputRequiredResult of `mcpspec_confirm`, with the state it issued.
async fn input_required_on_a(peer: &mut Peer) -> Result<(Value, Value), Outcome> {
    support::require_probe_tool(peer, tool::CONFIRM).await?;
    let first = first_round(peer).await?;
    let Some(state) = first.get("requestState").filter(|s| s.is_string()).cloned() else {
        return Err(Outcome::skipped(
            "the InputRequiredResult carries no `requestState`: nothing to carry to another \
             instance",
        ));
    };
    Ok((first, state))
}

/// Whether a retry's reply completed the request (a result that asks for no more input).
fn completed(reply: &Reply) -> bool {
    reply.result().is_some_and(|r| !is_input_required(r))
}

async fn mrtr_round_robin(s: &mut Scenario) -> Verdict {
    let mut a = ready(s, 0).await?;
    let (first, state) = input_required_on_a(&mut a).await?;
    let mut b = ready(s, 1).await?;
    let responses = answers(&first);
    let honest = retry(&mut b, Some(&state), responses.clone()).await;
    if !completed(&honest) {
        return Ok(Outcome::fail(format!(
            "the retry on instance B with the `requestState` instance A issued and every input \
             answered did not complete: {} (SCALE-1)",
            honest.describe()
        ))
        .with_evidence(honest.evidence()));
    }
    let forged = json!(tamper(state.as_str().unwrap_or_default()));
    let tampered = retry(&mut b, Some(&forged), responses).await;
    Ok(if completed(&tampered) {
        Outcome::fail(format!(
            "instance B completed a retry whose `requestState` (issued by instance A) was \
             tampered with: {} (MRTR-4)",
            tampered.describe()
        ))
        .with_evidence(tampered.evidence())
    } else {
        Outcome::pass(format!(
            "instance B completed the retry of instance A's InputRequiredResult; the tampered \
             state got {}",
            tampered.describe()
        ))
    })
}

/// What one instance said, by topic, for comparison, with where it is in the transcript.
type Said = Vec<(String, Value, Option<crate::outcome::Evidence>)>;

/// A reply as compared across instances: the result without its cursor (an opaque cursor may
/// differ and still be portable), or the error object.
fn comparable(reply: &Reply) -> Value {
    if let Some(result) = reply.result() {
        let mut result = result.clone();
        if let Some(obj) = result.as_object_mut() {
            obj.remove("nextCursor");
        }
        return json!({ "result": result });
    }
    match reply.error() {
        Some(e) => json!({ "error": { "code": e.code, "message": e.message, "data": e.data } }),
        None => json!({ "no reply": reply.describe() }),
    }
}

/// Lists where `other` differs from `one` (JSON pointers), at most [`MAX_DIFFERENCES`].
fn differences(path: &str, one: &Value, other: &Value, out: &mut Vec<(String, String, String)>) {
    if one == other || out.len() >= MAX_DIFFERENCES {
        return;
    }
    match (one, other) {
        (Value::Object(a), Value::Object(b)) => {
            let mut keys: Vec<&String> = a.keys().chain(b.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let at = format!("{path}/{}", k.replace('~', "~0").replace('/', "~1"));
                match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) => differences(&at, x, y, out),
                    (x, y) => out.push((at, shown(x), shown(y))),
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                differences(&format!("{path}/{i}"), x, y, out);
            }
        }
        _ => out.push((path.to_owned(), shown(Some(one)), shown(Some(other)))),
    }
}

fn shown(v: Option<&Value>) -> String {
    v.map_or_else(|| "nothing".into(), |v| preview(v, 80))
}

/// Compares what every instance said with what instance A said, topic by topic; each
/// difference names the topic, the field and both instances. The evidence: the first answer
/// that differs from A's.
fn disagreements(said: &[Said]) -> (Vec<String>, Option<crate::outcome::Evidence>) {
    disagreements_beyond(said, &[])
}

/// [`disagreements`], leaving out the fields `varying[topic]` names (JSON pointers; an empty
/// pointer is the whole answer): where instance A's own answers differ, no other instance can
/// be expected to repeat them.
fn disagreements_beyond(
    said: &[Said],
    varying: &[Vec<String>],
) -> (Vec<String>, Option<crate::outcome::Evidence>) {
    let mut found = Vec::new();
    let mut judged = None;
    let Some((first, rest)) = said.split_first() else {
        return (found, judged);
    };
    for (i, other) in rest.iter().enumerate() {
        for (t, ((topic, a, _), (_, b, evidence))) in first.iter().zip(other).enumerate() {
            let mut diffs = Vec::new();
            differences("", a, b, &mut diffs);
            let skip = varying.get(t).map_or(&[][..], Vec::as_slice);
            diffs.retain(|(at, _, _)| !skip.iter().any(|v| within(at, v)));
            if !diffs.is_empty() && judged.is_none() {
                judged.clone_from(evidence);
            }
            for (at, on_a, on_other) in diffs {
                found.push(format!(
                    "{topic} {at}: instance A has {on_a}, instance {} has {on_other}",
                    label(i + 1)
                ));
            }
        }
    }
    (found, judged)
}

/// Whether JSON pointer `at` is `field` or lies under it (the empty pointer is everything).
fn within(at: &str, field: &str) -> bool {
    at == field
        || at
            .strip_prefix(field)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// Where instance A's answer to each of `flows` differs from its answer to the same request
/// asked again (`first`: what it said the first time): the fields that vary from call to call
/// (a clock, a counter, a random id), which one instance does not repeat either, so a
/// difference there says nothing about statelessness. When A's answers differ in more places
/// than are listed, the whole answer is taken as varying.
async fn varying_on_a(
    peer: &mut crate::driver::Peer,
    flows: &[(String, crate::driver::Outgoing)],
    first: &Said,
) -> Vec<Vec<String>> {
    let mut varying = Vec::new();
    for ((topic, out), (_, said, _)) in flows.iter().zip(first) {
        let again = comparable(&peer.call(out.clone()).await);
        let mut diffs = Vec::new();
        differences("", said, &again, &mut diffs);
        let fields: Vec<String> = if diffs.len() >= MAX_DIFFERENCES {
            vec![String::new()]
        } else {
            diffs.into_iter().map(|(at, _, _)| at).collect()
        };
        if !fields.is_empty() {
            peer.note(format!(
                "{topic}: instance A answered differently when asked again, at {}; those fields \
                 vary from call to call and are not compared across instances",
                fields
                    .iter()
                    .map(|f| if f.is_empty() {
                        "the whole answer"
                    } else {
                        f.as_str()
                    })
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        varying.push(fields);
    }
    varying
}

/// The differences for a verdict: the first [`MAX_DIFFERENCES`], and how many more there are.
fn listed(found: &[String]) -> String {
    let shown = found[..found.len().min(MAX_DIFFERENCES)].join("; ");
    match found.len().saturating_sub(MAX_DIFFERENCES) {
        0 => shown,
        more => format!("{shown}; and {more} more"),
    }
}

async fn instances_agree(s: &mut Scenario) -> Verdict {
    let lists = advertised_lists(s.facts()).unwrap_or_default();
    let mut peers = connect_all(s).await?;
    let mut said: Vec<Said> = Vec::new();
    for peer in &mut peers {
        let mut mine = Said::new();
        let discover = peer.call(request(method::DISCOVER)).await;
        mine.push((
            method::DISCOVER.into(),
            comparable(&discover),
            discover.evidence(),
        ));
        for (list, _) in &lists {
            let page = peer.call(request(list)).await;
            mine.push((format!("{list} page 1"), comparable(&page), page.evidence()));
        }
        let unknown = peer.call(request(method::NONEXISTENT)).await;
        mine.push((
            format!("the error for {}", method::NONEXISTENT),
            comparable(&unknown),
            unknown.evidence(),
        ));
        if let Some((list, _)) = lists.first() {
            let bad = peer
                .call(request(list).param("cursor", json!("mcpspec-never-issued-7f3a")))
                .await;
            mine.push((
                format!("the error for {list} with a cursor no server issued"),
                comparable(&bad),
                bad.evidence(),
            ));
        }
        said.push(mine);
    }
    let (found, judged) = disagreements(&said);
    let topics = said.first().map_or(0, Vec::len);
    Ok(if found.is_empty() {
        Outcome::pass(format!(
            "{} instances agree on {topics} answers (discover, lists with cache hints, errors)",
            said.len()
        ))
    } else {
        Outcome::non_strict(format!(
            "the instances disagree (SCALE-2): {}",
            listed(&found)
        ))
        .with_evidence(judged)
    })
}

/// Instance A for a check that loses it: instance A of the run (stdio, embedded: a process of
/// this check's own), or one more instance started from `--spawn-http` for this check.
struct Lost {
    peer: Peer,
    extra: Option<crate::replicas::Extra>,
}

impl Lost {
    async fn open(s: &mut Scenario) -> Result<Lost, Outcome> {
        let Some(replicas) = s.replicas().cloned() else {
            return Err(Outcome::error("the run has no instances"));
        };
        if let Some(why) = replicas.cannot_stop() {
            return Err(Outcome::skipped(why));
        }
        if replicas.per_connection() {
            let peer = ready(s, 0).await?;
            return Ok(Lost { peer, extra: None });
        }
        let extra = replicas
            .spawn_extra()
            .await
            .map_err(|e| Outcome::error(format!("instance A (started to be lost): {e}")))?
            .ok_or_else(|| Outcome::error("no way to start an instance to lose"))?;
        let mut peer = s.connect_to(&extra.target, label(0)).await?;
        warmed(&mut peer, 0).await?;
        Ok(Lost {
            peer,
            extra: Some(extra),
        })
    }

    /// Stops the instance and waits until it is gone; an Error if it would not go.
    async fn stop(mut self) -> Result<(), Outcome> {
        let within = std::time::Duration::from_secs(2);
        let gone = match &mut self.extra {
            None => self.peer.terminate(within).await,
            Some(extra) => {
                extra.process.terminate(within).await;
                let l = extra.process.poll_exit();
                self.peer
                    .note("instance A's process was stopped by mcpspec");
                l
            }
        };
        match gone {
            mcpspec_core::transport::Liveness::Exited(_) => Ok(()),
            mcpspec_core::transport::Liveness::Running => Err(Outcome::error(
                "instance A could not be stopped within 2 s, so its loss proves nothing",
            )),
        }
    }
}

/// Connections to instances B, C, … (the ones that stay).
async fn survivors(s: &mut Scenario) -> Result<Vec<Peer>, Outcome> {
    let mut peers = Vec::new();
    for i in 1..instances(s) {
        peers.push(ready(s, i).await?);
    }
    Ok(peers)
}

async fn failover_pagination(s: &mut Scenario) -> Verdict {
    let lists = advertised_lists(s.facts())?;
    let mut lost = Lost::open(s).await?;
    // The first list with a second page, and its first page on A.
    let mut chosen = None;
    for (list, key) in lists {
        let reply = lost.peer.call(request(list)).await;
        let result = reply.expect_result(&format!("{list} page 1 on instance A"))?;
        if let Some(cursor) = result.get("nextCursor").filter(|c| !c.is_null()) {
            let items = result
                .get(key)
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            chosen = Some((list, key, cursor.clone(), items, reply.evidence()));
            break;
        }
    }
    let Some((list, key, cursor, mut items, first_page)) = chosen else {
        return Ok(Outcome::skipped(
            "no advertised list has a second page: no flow to lose an instance in",
        ));
    };
    lost.stop().await?;
    let mut peers = survivors(s).await?;
    let single = peers[0].items(list, key).await?;
    let mut cursor = Some(cursor);
    let mut pages = 1;
    let mut origins: Vec<PageOrigin> = vec![(0, 0, first_page)];
    while let Some(c) = cursor.take() {
        if pages >= MAX_PAGES {
            return Ok(Outcome::fail(format!(
                "{list}: still a `nextCursor` after {MAX_PAGES} pages"
            )));
        }
        let at = (pages - 1) % peers.len();
        let reply = peers[at]
            .call(request(list).param("cursor", c.clone()))
            .await;
        let Some(result) = reply.result() else {
            let issuer = if pages == 1 {
                0
            } else {
                (pages - 2) % peers.len() + 1
            };
            return Ok(Outcome::fail(format!(
                "{list}: after instance A was lost, the cursor instance {} issued (page {pages}) \
                 was not accepted by instance {}: {} (SCALE-3)",
                label(issuer),
                label(at + 1),
                reply.describe()
            ))
            .with_evidence(reply.evidence()));
        };
        origins.push((at + 1, items.len(), reply.evidence()));
        items.extend(
            result
                .get(key)
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
        );
        cursor = result.get("nextCursor").filter(|c| !c.is_null()).cloned();
        pages += 1;
    }
    Ok(match listing_difference(&single, &items) {
        Some(diff) => {
            let what = "the listing finished without instance A differs from instance B's own";
            let (problem, evidence) = charged(list, what, diff, &origins, "SCALE-3");
            Outcome::fail(problem).with_evidence(evidence)
        }
        None => Outcome::pass(format!(
            "{list}: page 1 from instance A, A stopped, the other {} pages on the remaining \
             instances; the listing is whole",
            pages - 1
        )),
    })
}

async fn failover_mrtr(s: &mut Scenario) -> Verdict {
    let mut lost = Lost::open(s).await?;
    let (first, state) = input_required_on_a(&mut lost.peer).await?;
    lost.stop().await?;
    let mut b = ready(s, 1).await?;
    let reply = retry(&mut b, Some(&state), answers(&first)).await;
    Ok(if completed(&reply) {
        Outcome::pass("instance A stopped after its InputRequiredResult; the retry completed on B")
    } else {
        Outcome::fail(format!(
            "instance A was lost after its InputRequiredResult, and the retry on instance B \
             with the `requestState` A issued did not complete: {} (SCALE-3)",
            reply.describe()
        ))
        .with_evidence(reply.evidence())
    })
}

/// Arguments for `tool` made from its `inputSchema`: a plain value for each required property.
fn plain_arguments(tool: &Value) -> Value {
    let schema = tool.get("inputSchema");
    let props = schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object);
    let required = schema
        .and_then(|s| s.get("required"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let args: Map<String, Value> = required
        .iter()
        .filter_map(Value::as_str)
        .map(|name| {
            let kind = props
                .and_then(|p| p.get(name))
                .and_then(|p| p.get("type"))
                .and_then(Value::as_str);
            let value = match kind {
                Some("number" | "integer") => json!(2),
                Some("boolean") => json!(true),
                Some("array") => json!([]),
                Some("object") => json!({}),
                _ => json!("mcpspec"),
            };
            (name.to_owned(), value)
        })
        .collect();
    Value::Object(args)
}

/// The `completion/complete` request to compare, from what instance A lists: the first prompt
/// argument, else the first template variable.
async fn completion_request(peer: &mut Peer, facts: &Facts) -> Option<crate::driver::Outgoing> {
    if !facts.has_capability("completions") {
        return None;
    }
    let complete = |reference: Value, argument: &str| {
        request(method::COMPLETION_COMPLETE)
            .param("ref", reference)
            .param("argument", json!({ "name": argument, "value": "" }))
    };
    if facts.has_capability("prompts") {
        let prompts = peer.items(method::PROMPTS_LIST, "prompts").await.ok()?;
        for p in &prompts {
            let arg = p.pointer("/arguments/0/name").and_then(Value::as_str);
            if let (Some(name), Some(arg)) = (p.get("name").and_then(Value::as_str), arg) {
                return Some(complete(json!({ "type": "ref/prompt", "name": name }), arg));
            }
        }
    }
    if facts.has_capability("resources") {
        let templates = peer
            .items(method::RESOURCES_TEMPLATES_LIST, "resourceTemplates")
            .await
            .ok()?;
        for t in &templates {
            let Some(uri) = t.get("uriTemplate").and_then(Value::as_str) else {
                continue;
            };
            let var = uri
                .split_once('{')
                .and_then(|(_, rest)| rest.split_once('}'))
                .map(|(v, _)| v.trim_start_matches(['+', '#', '?', '/', '.', ';', '&']));
            if let Some(var) = var.filter(|v| !v.is_empty()) {
                return Some(complete(json!({ "type": "ref/resource", "uri": uri }), var));
            }
        }
    }
    None
}

async fn same_everywhere(s: &mut Scenario) -> Verdict {
    let allowed = s.options().allowed_tools.clone();
    let facts = s.facts().clone();
    let mut peers = connect_all(s).await?;
    // The requests, chosen from what instance A lists.
    let mut flows: Vec<(String, crate::driver::Outgoing)> = Vec::new();
    if !allowed.is_empty() && facts.has_capability("tools") {
        let tools = peers[0].items(method::TOOLS_LIST, "tools").await?;
        for t in &tools {
            let Some(name) = t.get("name").and_then(Value::as_str) else {
                continue;
            };
            if allowed.iter().any(|a| a == name) {
                flows.push((
                    format!("tools/call {name}"),
                    call_tool(name, plain_arguments(t)),
                ));
            }
        }
    }
    if let Some(out) = completion_request(&mut peers[0], &facts).await {
        flows.push((method::COMPLETION_COMPLETE.into(), out));
    }
    if facts.has_capability("resources") {
        let listed = peers[0].call(request(method::RESOURCES_LIST)).await;
        let uri = listed
            .result()
            .and_then(|r| r.pointer("/resources/0/uri"))
            .and_then(Value::as_str)
            .map(str::to_owned);
        if let Some(uri) = uri {
            flows.push((
                format!("resources/read {uri} (listed on instance A)"),
                request(method::RESOURCES_READ).param("uri", json!(uri)),
            ));
        }
    }
    if flows.is_empty() {
        return Ok(Outcome::skipped(
            "no stateless flow to compare: no allowed tool is listed (--allow-tool), and the \
             server offers no completion and no resource",
        ));
    }
    let mut said: Vec<Said> = Vec::new();
    for peer in &mut peers {
        let mut mine = Said::new();
        for (topic, out) in &flows {
            let reply = peer.call(out.clone()).await;
            mine.push((topic.clone(), comparable(&reply), reply.evidence()));
        }
        said.push(mine);
    }
    // A request answered differently on one instance when asked twice is no evidence against
    // statelessness in the fields that differ: those are left out of the comparison.
    let varying = varying_on_a(&mut peers[0], &flows, &said[0]).await;
    let (found, judged) = disagreements_beyond(&said, &varying);
    let names: Vec<&str> = flows.iter().map(|(t, _)| t.as_str()).collect();
    Ok(if found.is_empty() {
        Outcome::pass(format!(
            "the same answers on all {} instances: {}",
            said.len(),
            names.join(", ")
        ))
    } else {
        Outcome::fail(format!(
            "a request that needs no state was answered differently by different instances \
             (SCALE-1): {}",
            listed(&found)
        ))
        .with_evidence(judged)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_instance_a_does_not_repeat_are_not_compared() {
        let said = |v: Value| -> Said { vec![("tools/call clock".into(), v, None)] };
        let a = said(json!({"result": {"now": 1, "sum": 5}}));
        let b = said(json!({"result": {"now": 2, "sum": 5}}));
        let (found, _) =
            disagreements_beyond(&[a.clone(), b.clone()], &[vec!["/result/now".into()]]);
        assert!(found.is_empty(), "{found:?}");
        let (found, _) = disagreements(&[a.clone(), b]);
        assert_eq!(found.len(), 1, "{found:?}");
        let drift = said(json!({"result": {"now": 2, "sum": 6}}));
        let (found, _) =
            disagreements_beyond(&[a.clone(), drift.clone()], &[vec!["/result/now".into()]]);
        assert_eq!(found.len(), 1, "a repeated field still compared: {found:?}");
        assert!(found[0].contains("/result/sum"), "{found:?}");
        let (found, _) = disagreements_beyond(&[a, drift], &[vec![String::new()]]);
        assert!(found.is_empty(), "the whole answer varies: {found:?}");
        assert!(within("/result/now/0", "/result/now"));
        assert!(!within("/result/nowhere", "/result/now"));
    }

    #[test]
    fn differences_are_listed_by_pointer() {
        let mut out = Vec::new();
        differences(
            "",
            &json!({"a": 1, "b": {"c": [1, 2]}, "d": "x"}),
            &json!({"a": 1, "b": {"c": [1, 3]}, "e": true}),
            &mut out,
        );
        let paths: Vec<&str> = out.iter().map(|(p, _, _)| p.as_str()).collect();
        assert_eq!(paths, ["/b/c/1", "/d", "/e"]);
    }

    #[test]
    fn a_difference_is_charged_to_the_page_it_starts_in() {
        let pages: Vec<PageOrigin> = vec![(0, 0, None), (1, 2, None), (2, 2, None)];
        let instance = |index| page_of(&pages, index).map(|(n, (i, _, _))| (n, *i));
        assert_eq!(instance(1), Some((0, 0)));
        // An empty page charged for what is missing after it: the last page starting there.
        assert_eq!(instance(2), Some((2, 2)));
        assert_eq!(instance(9), Some((2, 2)));
    }

    #[test]
    fn arguments_follow_the_required_properties() {
        let tool = json!({"inputSchema": {"type": "object",
            "properties": {"a": {"type": "number"}, "t": {"type": "string"}, "o": {}},
            "required": ["a", "t"]}});
        assert_eq!(plain_arguments(&tool), json!({"a": 2, "t": "mcpspec"}));
    }
}
