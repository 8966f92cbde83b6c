//! Benchmarks: codec throughput, a driver round trip against the in-memory reference server,
//! and the whole catalogue. Run with `cargo bench -p mcpspec-harness`.

use std::sync::Arc;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::json;

use mcpspec_core::wire::{Frame, Id, Message};
use mcpspec_harness::driver::{Peer, Settings, request};
use mcpspec_harness::outcome::Era;
use mcpspec_harness::runner::RunOptions;
use mcpspec_harness::target::Target;

fn sample_line() -> Vec<u8> {
    let tools: Vec<_> = (0..8)
        .map(|i| {
            json!({"name": format!("tool-{i}"), "description": "does a thing with some words",
                   "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}}, "required": ["a"]}})
        })
        .collect();
    Message::Response {
        id: Id::Int(42),
        result: json!({"tools": tools, "resultType": "complete", "ttlMs": 0, "cacheScope": "public"}),
    }
    .encode()
}

fn codec(c: &mut Criterion) {
    let line = sample_line();
    let body = &line[..line.len() - 1];
    let mut g = c.benchmark_group("codec");
    g.throughput(Throughput::Bytes(body.len() as u64));
    g.bench_function("decode", |b| {
        b.iter(|| Frame::decode(std::hint::black_box(body)))
    });
    let message = Frame::decode(body).parsed.expect("the sample decodes");
    g.bench_function("encode", |b| {
        b.iter(|| std::hint::black_box(&message).encode())
    });
    g.finish();
}

fn driver(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let settings = Arc::new(Settings::default());
    let mut peer = rt.block_on(async {
        let transport = Target::embedded()
            .connect(settings.max_message)
            .expect("embedded server starts");
        Peer::new(
            transport,
            Default::default(),
            1,
            Era::Modern,
            settings.clone(),
        )
    });
    c.bench_function("driver/round-trip-discover", |b| {
        b.iter(|| rt.block_on(async { peer.call(request("server/discover")).await }))
    });
}

fn catalogue(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let checks = mcpspec_harness::catalogue::all();
    let mut g = c.benchmark_group("catalogue");
    g.sample_size(10);
    g.bench_function("embedded-reference-server", |b| {
        b.iter(|| {
            rt.block_on(async {
                let options = RunOptions {
                    jobs: 8,
                    ..RunOptions::default()
                };
                mcpspec_harness::runner::run(Target::embedded(), &checks, options)
                    .await
                    .expect("runs")
            })
        })
    });
    g.finish();
}

criterion_group!(benches, codec, driver, catalogue);
criterion_main!(benches);
