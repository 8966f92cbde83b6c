//! The two schema layers side by side on recorded transcripts: every message a run received is
//! validated by the typed layer and by jsonschema against the official `schema.json` of its
//! revision (for the revisions `../shared/mcp-spec` has), and the two must agree. Included with
//! `#[path]` by the tests that record runs worth comparing (the reference server's, the SDKs').

use std::collections::{BTreeMap, HashMap};

use serde_json::Value;

use mcpspec::RunReport;
use mcpspec_core::transcript::{Entry, Event};
use mcpspec_harness::schema::{self, Shape, document::Document};

/// The revisions with an official `schema.json` beside the repository.
pub const OFFICIAL_REVISIONS: [&str; 3] = ["2025-06-18", "2025-11-25", "2026-07-28"];

/// The official schema of `revision` from `../shared/mcp-spec`.
pub fn official(revision: &str) -> Document {
    let path = crate::support::repo_root()
        .join("../shared/mcp-spec/schema")
        .join(revision)
        .join("schema.json");
    Document::load(&path).expect("the official schema loads")
}

/// Every message of a transcript with the revision, shape and body the schema layer gives it.
pub fn judged_messages(entries: &[Entry], mut each: impl FnMut(&str, Shape<'_>, &Value, &Value)) {
    let mut conns: HashMap<u32, schema::Asked> = HashMap::new();
    let mut modern: HashMap<u32, bool> = HashMap::new();
    for entry in entries {
        match &entry.event {
            Event::Send { message } => {
                // A connection is modern when its first request carries the modern envelope.
                let is_modern = *modern.entry(entry.conn).or_insert_with(|| {
                    message
                        .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
                        .is_some()
                });
                conns
                    .entry(entry.conn)
                    .or_insert_with(|| schema::Asked::new(is_modern))
                    .sent(message);
            }
            Event::Recv { message, .. } => {
                let asked = conns
                    .entry(entry.conn)
                    .or_insert_with(|| schema::Asked::new(false));
                asked.judge(message, |revision, shape, body| {
                    each(revision, shape, body, message)
                });
            }
            _ => {}
        }
    }
}

/// What comparing the layers on some runs found.
#[derive(Debug, Default)]
pub struct Agreement {
    /// Messages both layers judged, per revision.
    pub judged: BTreeMap<String, usize>,
    /// One line per message on which the layers disagree (sorted, deduplicated).
    pub disagreements: Vec<String>,
}

impl Agreement {
    pub fn total(&self) -> usize {
        self.judged.values().sum()
    }
}

/// Compares the two layers on every message received in `reports`.
pub fn compare<'a>(reports: impl IntoIterator<Item = &'a RunReport>) -> Agreement {
    let docs: HashMap<&str, Document> = OFFICIAL_REVISIONS
        .into_iter()
        .map(|r| (r, official(r)))
        .collect();
    let mut agreement = Agreement::default();
    for report in reports {
        for result in &report.results {
            judged_messages(&result.transcript, |revision, shape, body, message| {
                let Some(doc) = docs.get(revision) else {
                    return;
                };
                let Some(name) = schema::type_name(shape, body) else {
                    return;
                };
                if !doc.defines(name) {
                    return;
                }
                *agreement.judged.entry(revision.to_owned()).or_insert(0) += 1;
                let typed = schema::validate(revision, shape, body);
                let official = doc.validate(shape, body);
                if typed.is_empty() != official.is_empty() {
                    agreement.disagreements.push(format!(
                        "{} ({revision}, {name}): typed {:?}, official {:?}; message {}",
                        result.id,
                        typed.iter().map(ToString::to_string).collect::<Vec<_>>(),
                        official.iter().map(ToString::to_string).collect::<Vec<_>>(),
                        mcpspec_core::text::preview(message, 300)
                    ));
                }
            });
        }
    }
    agreement.disagreements.sort();
    agreement.disagreements.dedup();
    agreement
}

/// Asserts the layers agree on every message of `reports` and judged at least `at_least`.
pub fn assert_layers_agree<'a>(
    reports: impl IntoIterator<Item = &'a RunReport>,
    at_least: usize,
    what: &str,
) {
    let agreement = compare(reports);
    println!(
        "{what}: the two schema layers agree on {} messages {:?}",
        agreement.total(),
        agreement.judged
    );
    assert!(
        agreement.total() >= at_least,
        "{what}: only {} messages judged: {:?}",
        agreement.total(),
        agreement.judged
    );
    assert!(
        agreement.disagreements.is_empty(),
        "{what}: {} disagreements:\n{}",
        agreement.disagreements.len(),
        agreement.disagreements.join("\n")
    );
}
