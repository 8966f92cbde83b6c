//! The schema layer's cost (SCHEMA-1): validating a `ListToolsResult` of about 1.3 KB and one
//! of about 100 KB under 2026-07-28 with the typed layer, as the driver does for every result.
//! Run with `cargo bench -p mcpspec-harness --bench schema`.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::{Value, json};

use mcpspec_harness::schema::{self, Shape};

/// A 2026-07-28 `ListToolsResult` with `n` tools, each with a small object input schema.
fn list_tools(n: usize) -> Value {
    let tools: Vec<Value> = (0..n)
        .map(|i| {
            json!({
                "name": format!("tool-{i}"),
                "description": "Looks something up and returns it as text, politely.",
                "inputSchema": {
                    "type": "object",
                    "properties": {
                        "query": {"type": "string", "description": "what to look up"},
                        "limit": {"type": "integer", "minimum": 1}
                    },
                    "required": ["query"]
                }
            })
        })
        .collect();
    json!({
        "tools": tools,
        "resultType": "complete",
        "ttlMs": 60000,
        "cacheScope": "public",
        "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "bench", "version": "1.0.0"}}
    })
}

/// The result closest to `bytes` serialized bytes.
fn sized(bytes: usize) -> Value {
    let one = serde_json::to_vec(&list_tools(1))
        .map_or(1, |v| v.len())
        .max(1);
    list_tools((bytes / one).max(1))
}

fn validate(c: &mut Criterion) {
    let mut g = c.benchmark_group("schema");
    for (label, bytes) in [("list-tools-1.3KB", 1_300), ("list-tools-100KB", 100_000)] {
        let result = sized(bytes);
        let size = serde_json::to_vec(&result).map_or(0, |v| v.len());
        assert!(
            schema::validate(
                "2026-07-28",
                Shape::Result {
                    method: "tools/list"
                },
                &result
            )
            .is_empty(),
            "the bench input is valid"
        );
        g.throughput(Throughput::Bytes(size as u64));
        g.bench_function(label, |b| {
            b.iter(|| {
                schema::validate(
                    "2026-07-28",
                    Shape::Result {
                        method: "tools/list",
                    },
                    std::hint::black_box(&result),
                )
            })
        });
    }
    g.finish();
}

criterion_group!(benches, validate);
criterion_main!(benches);
